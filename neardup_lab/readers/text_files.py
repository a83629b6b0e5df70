""".txt files and folders of them: one file is one document, its id its path."""

from __future__ import annotations

import codecs
import errno
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field

from .files import (
    NotRegular,
    check_regular,
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


def read_txt_file(
    path: str, source: str, encoding: str, max_bytes: int, *, follow_links: bool = True
) -> Document | Problem:
    """The ``.txt`` file ``path`` as a Document (id ``source``) or its Problem; reads bounded by max_bytes.

    >>> read_txt_file("no-such.txt", "no-such.txt", "utf-8", 100).reason
    'unreadable'
    """
    try:
        f, size = open_input(path, follow_links=follow_links)
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
            return open_problem(source, err)
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
    """What one run has read: files by real path, folders by ``(st_dev, st_ino)``, with the name shown.

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
        """None the first time a folder is met; else a ``link-loop`` or ``duplicate-input`` problem."""
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
    """A .txt file found in a folder: the path shown (and opened), its real path."""

    path: str
    real: str


@dataclass(frozen=True)
class _Descend:
    """A folder to walk: shown, relative and real paths, ``(st_dev, st_ino)``, the parent's real path."""

    path: str
    rel: str
    real: str
    key: tuple[int, int]
    parent: str | None = None


def _inside(real: str, top: str) -> bool:
    """Whether the real path ``real`` is the folder ``top`` (a real path) or below it."""
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def _followed(path: str, top: _Descend, shown: str) -> tuple[str, os.stat_result] | Problem:
    """Where the link ``path`` leads (real path, stat), or its Problem (out of ``top``, a loop, nowhere)."""
    real = os.path.realpath(path)
    if not _inside(real, top.real):
        message = (
            f"is a link to {display(os.readlink(path))}, which leads out of the folder {top.path} given; "
            "not followed (name its target as an input to read it)"
        )
        return Problem(shown, None, "link-escape", message)
    try:
        return real, os.stat(path)
    except OSError as err:
        if err.errno == errno.ELOOP:
            message = "is a loop of links, which leads to no file; not followed"
            return Problem(shown, None, "link-loop", message)
        message = f"is a link that leads nowhere ({err.strerror or err}); fix or remove it"
        return Problem(shown, None, "unreadable", message)


def _classify(
    entry: os.DirEntry, here: _Descend, top: _Descend, rel: str, shown: str, follow: bool
) -> _ToRead | _Descend | Problem | OtherFile:
    """What to do with one folder entry: read it, walk it, report it, or pass it over."""
    is_txt = entry.name.lower().endswith(".txt")
    real = os.path.join(here.real, entry.name)
    try:
        info: os.stat_result | None = entry.stat(follow_symlinks=False)
    except OSError:  # gone meanwhile: reading it says so
        info = None
    if info is not None and stat.S_ISLNK(info.st_mode):
        if not follow:
            message = (
                "is a symbolic link; links in folders are not followed (give --follow-links to follow "
                "those that stay inside the folder, or name the link's target as an input)"
            )
            return Problem(shown, None, "link", message)
        followed = _followed(entry.path, top, shown)
        if isinstance(followed, Problem):
            return followed
        real, info = followed
    if info is None:
        return _ToRead(shown, real) if is_txt else OtherFile(shown)
    if stat.S_ISDIR(info.st_mode):
        return _Descend(shown, rel, real, (info.st_dev, info.st_ino), here.real)
    try:
        check_regular(info.st_mode)
    except NotRegular as err:  # never opened: a FIFO or a device could make the run wait
        return open_problem(shown, err)
    return _ToRead(shown, real) if is_txt else OtherFile(shown)


def _walk(top: _Descend, seen: ReadAlready, follow: bool) -> list[tuple[str, _ToRead | Problem | OtherFile]]:
    """Every entry below ``top`` with its relative path, sorted by it; each folder entered once."""

    def show(rel: str) -> str:
        return rel if top.path == "." else f"{top.path}/{rel}" if rel else top.path

    found: list[tuple[str, _ToRead | Problem | OtherFile]] = []
    stack = [top]
    while stack:
        here = stack.pop()
        again = seen.folder(here.key, here.path, here.real, here.parent)
        if again:
            found.append((here.rel, again))
            continue
        try:
            with os.scandir(here.path) as listing:
                entries = sorted(listing, key=lambda entry: entry.name)
        except OSError as err:
            message = f"cannot be listed ({err.strerror or err}), so none of its files is read"
            found.append((here.rel, Problem(here.path, None, "unreadable-folder", message)))
            continue
        folders = []
        for entry in entries:
            rel = f"{here.rel}/{entry.name}" if here.rel else entry.name
            item = _classify(entry, here, top, rel, show(rel), follow)
            if isinstance(item, _Descend):
                folders.append(item)
            else:
                found.append((rel, item))
        stack.extend(reversed(folders))  # so they are popped in name order
    return sorted(found, key=lambda pair: pair[0])


def read_folder(
    path: str, encoding: str, max_bytes: int, seen: ReadAlready, *, follow_links: bool = False
) -> Iterator[Document | Problem | OtherFile]:
    """The ``.txt`` files below an input folder, in sorted order, each opened by the path shown (its id);
    other entries as ``OtherFile`` or problems, links followed only with ``follow_links``.

    >>> [p.reason for p in read_folder("no-such-folder", "utf-8", 100, ReadAlready())]
    ['unreadable-folder']
    """
    shown = display(path)
    try:
        info = os.stat(shown)
    except OSError as err:
        yield Problem(shown, None, "unreadable-folder", f"cannot be opened ({err.strerror or err})")
        return
    top = _Descend(shown, "", os.path.realpath(shown), (info.st_dev, info.st_ino))
    for _, item in _walk(top, seen, follow_links):
        if isinstance(item, _ToRead):
            again = seen.file(item.real, item.path)
            yield again or read_txt_file(item.path, item.path, encoding, max_bytes, follow_links=follow_links)
        else:
            yield item
