""".txt files and folders of them: one file is one document, its id its path.

Folders are walked without recursion, however deep, in sorted order; each file and folder is
read once per run, however many names or links lead to it (:class:`ReadAlready`).
"""

from __future__ import annotations

import codecs
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field

from .files import (
    NotRegular,
    damaged,
    display,
    open_input,
    open_problem,
    read_at_most,
    read_errors,
    sniff,
    undecodable,
)
from .records import LIMIT_HINT, Document, OtherFile, Problem, too_large


def read_txt_file(path: str, source: str, encoding: str, max_bytes: int) -> Document | Problem:
    """The ``.txt`` file at ``path`` as one Document (id and source: ``source``), or its Problem.

    Reads at most one byte past ``max_bytes`` (0: no limit), whatever size the file claims.

    >>> read_txt_file("no-such.txt", "no-such.txt", "utf-8", 100).reason
    'unreadable'
    """
    try:
        f, size = open_input(path)
    except (OSError, NotRegular) as err:
        return open_problem(source, err)
    with f:
        problem = None if size is None else too_large(source, None, size, max_bytes)
        if problem:
            return problem
        try:  # the size above is only a claim (files grow, /proc says 0)
            data = read_at_most(f, max_bytes + 1 if max_bytes else 0)
        except read_errors() as err:
            return damaged(source, None, err)
        except OSError as err:
            return Problem(source, None, "unreadable", f"cannot be read ({err.strerror or err})")
    if max_bytes and len(data) > max_bytes:
        message = f"holds more than the limit of {max_bytes} bytes (more than its size said); {LIMIT_HINT}"
        return Problem(source, None, "too-large", message)
    sniffed = sniff(data)
    if sniffed:
        return Problem(source, None, *sniffed)
    if codecs.lookup(encoding).name == "utf-8":
        data = data.removeprefix(codecs.BOM_UTF8)
    try:
        return Document(source, data.decode(encoding), source)
    except UnicodeDecodeError as err:
        return undecodable(source, data, err, encoding)


@dataclass
class ReadAlready:
    """What one run has read so far: files by real path, folders by ``(st_dev, st_ino)``, each with
    the path shown when first read, to name it when the same file or folder turns up again.

    >>> seen = ReadAlready()
    >>> seen.file("/data/a.txt", "a.txt") is None, seen.file("/data/a.txt", "./a.txt").reason
    (True, 'duplicate-input')
    """

    files: dict[str, str] = field(default_factory=dict)
    folders: dict[tuple[int, int], tuple[str, str]] = field(default_factory=dict)

    def file(self, real: str, source: str) -> Problem | None:
        """None the first time a file is met (and remember it); a ``duplicate-input`` problem after."""
        if real not in self.files:
            self.files[real] = source
            return None
        message = f"the same file as {self.files[real]}, read already; each file is read once"
        return Problem(source, None, "duplicate-input", message)

    def folder(self, key: tuple[int, int], source: str, real: str, parent: str | None) -> Problem | None:
        """None the first time a folder is met; else a ``link-loop`` or ``duplicate-input`` problem.

        ``parent`` is the real path of the folder holding the link (None for an input).
        """
        if key not in self.folders:
            self.folders[key] = (source, real)
            return None
        first, first_real = self.folders[key]
        if parent is not None and (parent + os.sep).startswith(first_real.rstrip(os.sep) + os.sep):
            message = f"links back to {first}, a folder it is in; not followed"
            return Problem(source, None, "link-loop", message)
        message = f"the same folder as {first}, read already; each file is read once"
        return Problem(source, None, "duplicate-input", message)


@dataclass(frozen=True)
class _ToRead:
    """A .txt file found in a folder: where to open it, how to show it, its real path."""

    path: str
    source: str
    real: str


@dataclass(frozen=True)
class _Descend:
    """A folder to walk: where it is, its path below the input, its real path, its ``(st_dev, st_ino)``
    and the real path of the folder holding it (None for the input)."""

    path: str
    rel: str
    real: str
    key: tuple[int, int]
    parent: str | None = None


def _classify(entry: os.DirEntry, rel: str, source: str, parent_real: str) -> _ToRead | _Descend | OtherFile:
    """What to do with one folder entry: read it, walk it, or pass it over."""
    is_txt = entry.name.lower().endswith(".txt")
    own_path = os.path.join(parent_real, entry.name)
    try:
        is_link = entry.is_symlink()
        info = os.stat(entry.path) if is_link else entry.stat(follow_symlinks=False)
    except OSError:  # a broken link, or gone meanwhile: reading a .txt says which
        return _ToRead(entry.path, source, own_path) if is_txt else OtherFile(source)
    real = os.path.realpath(entry.path) if is_link else own_path
    if stat.S_ISDIR(info.st_mode):
        return _Descend(entry.path, rel, real, (info.st_dev, info.st_ino), parent_real)
    return _ToRead(entry.path, source, real) if is_txt else OtherFile(source)


def _walk(top: _Descend, seen: ReadAlready) -> list[tuple[str, _ToRead | Problem | OtherFile]]:
    """Every entry below ``top`` with its relative path, sorted by it; folders are entered depth first
    in name order, once each (of two links to one folder, the first met is followed)."""
    base = display(top.path)

    def show(rel: str) -> str:
        return rel if base == "." else f"{base}/{rel}" if rel else base

    found: list[tuple[str, _ToRead | Problem | OtherFile]] = []
    stack = [top]
    while stack:
        here = stack.pop()
        again = seen.folder(here.key, show(here.rel), here.real, here.parent)
        if again:
            found.append((here.rel, again))
            continue
        try:
            with os.scandir(here.path) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as err:
            message = f"cannot be listed ({err.strerror or err}), so none of its files is read"
            found.append((here.rel, Problem(show(here.rel), None, "unreadable-folder", message)))
            continue
        folders = []
        for entry in entries:
            rel = f"{here.rel}/{entry.name}" if here.rel else entry.name
            item = _classify(entry, rel, show(rel), here.real)
            if isinstance(item, _Descend):
                folders.append(item)
            else:
                found.append((rel, item))
        stack.extend(reversed(folders))  # so they are popped in name order
    return sorted(found, key=lambda pair: pair[0])


def read_folder(
    path: str, encoding: str, max_bytes: int, seen: ReadAlready
) -> Iterator[Document | Problem | OtherFile]:
    """The ``.txt`` files below a folder named as an input, in sorted order; the folder is read once
    per run however it is spelled (``seen``), and other files come as :class:`~.records.OtherFile`.

    >>> [p.reason for p in read_folder("no-such-folder", "utf-8", 100, ReadAlready())]
    ['unreadable-folder']
    """
    try:
        info = os.stat(path)
    except OSError as err:
        yield Problem(display(path), None, "unreadable-folder", f"cannot be opened ({err.strerror or err})")
        return
    for _, item in _walk(_Descend(path, "", os.path.realpath(path), (info.st_dev, info.st_ino)), seen):
        if isinstance(item, _ToRead):
            again = seen.file(item.real, item.source)
            yield again or read_txt_file(item.path, item.source, encoding, max_bytes)
        else:
            yield item
