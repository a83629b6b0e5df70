"""Read documents from files a reader brings: folders of .txt, JSONL, CSV.

Every input ends up as exactly one of two things: a :class:`Document` with a
stable id, or a :class:`Problem` that says which file and line could not be
used and why. Nothing is dropped without a trace.

Ids are built from the path as it was given (never made absolute), so the
same command run from the same folder gives the same ids on any machine:

- a ``.txt`` file is one document, its id is its path: ``news/a.txt``;
- a JSONL line or a CSV record is one document, its id is ``path:line``
  with the 1-based line on which the record starts: ``day1.jsonl:3``.

Rules that apply to every kind of input:

- Text must decode with ``encoding`` (UTF-8 by default; a UTF-8 byte-order
  mark is accepted). Bytes that do not decode make a ``undecodable`` problem
  that names the line.
- A file with a NUL byte in its first 8192 bytes is ``binary`` and skipped
  whole. A file that starts with a UTF-16 or UTF-32 byte-order mark is
  ``undecodable``, with a hint to convert it to UTF-8.
- A document larger than ``max_bytes`` (UTF-8 bytes of its text; for a
  ``.txt`` file, its size) is ``too-large`` and refused, so one stray giant
  file cannot exhaust memory. Reads are bounded by the bytes actually read,
  not by the size the file system claims. ``max_bytes=0`` lifts the limit.
- Only regular files (or links to them) are opened. A named pipe, a device,
  a socket or a folder where a file was expected is ``not-regular``, so no
  input can make a run wait forever.
- A file is read once per run, however many names lead to it (the same
  folder given as ``f`` and as an absolute path, a link to a file that is
  read anyway): later names are ``duplicate-input``. Folder links are
  followed once; a link back into its own folder is a ``link-loop``; a
  folder that cannot be listed is ``unreadable-folder``. Folders are walked
  without recursion, however deep, in sorted order.
- A CSV quote that is never closed, which would swallow the rest of the
  file into one document, is ``bad-csv``; the lines after it are read again
  as rows of their own. A JSONL line that Python cannot parse safely (a
  number of thousands of digits, arrays nested thousands deep) is
  ``bad-json``, and the run goes on.
- An empty document (or one that is only spaces or punctuation) is still a
  document: it is read, kept and, after normalisation, it is an exact copy
  of every other empty document.
- Blank lines between JSONL records or CSV rows hold no record; they are
  counted in :attr:`ReadReport.blank_lines`, not treated as problems.

>>> import json, os, tempfile
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = os.path.join(tmp, "day1.jsonl")
...     with open(path, "w", encoding="utf-8") as f:
...         _ = f.write(json.dumps({"text": "heavy rain"}) + "\\n" + json.dumps({"body": "x"}) + "\\n")
...     report = read_inputs([path], field="text")
>>> [d.text for d in report.documents], [p.reason for p in report.problems]
(['heavy rain'], ['missing-field'])
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import os
import stat
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, BinaryIO

__all__ = [
    "DEFAULT_MAX_BYTES",
    "FORMATS",
    "REASONS",
    "Document",
    "Problem",
    "ReadReport",
    "InputError",
    "detect_format",
    "iter_records",
    "read_inputs",
]

#: Documents above this many bytes are refused unless the caller raises the limit.
DEFAULT_MAX_BYTES = 10_000_000
#: Input kinds, and the file name endings that select each one automatically.
FORMATS = {"txt": (".txt",), "jsonl": (".jsonl", ".ndjson"), "csv": (".csv", ".tsv")}
#: The reasons an input is skipped, each with the short label summaries print.
REASONS = {
    "unreadable": "unreadable file",
    "unreadable-folder": "unreadable folder",
    "not-regular": "not a regular file",
    "duplicate-input": "input read already",
    "link-loop": "folder link loop",
    "undecodable": "undecodable bytes",
    "binary": "binary file",
    "too-large": "document too large",
    "missing-field": "missing JSON field",
    "missing-column": "missing CSV column",
    "not-text": "field is not a string",
    "bad-json": "invalid JSON",
    "bad-csv": "malformed CSV row",
}
_SNIFF_BYTES = 8192
_BOMS = {
    codecs.BOM_UTF32_LE: "UTF-32",
    codecs.BOM_UTF32_BE: "UTF-32",
    codecs.BOM_UTF16_LE: "UTF-16",
    codecs.BOM_UTF16_BE: "UTF-16",
}


class InputError(ValueError):
    """An input cannot be used at all (missing path, unknown format, bad option).

    Unlike a :class:`Problem`, which skips one record and lets the run go on,
    this stops the run before anything is read.
    """


@dataclass(frozen=True)
class Document:
    """One document: a stable ``id``, its ``text``, and where it came from.

    ``line`` is the 1-based line where a JSONL/CSV record starts, ``None`` for
    a ``.txt`` file.

    >>> Document("a.txt", "heavy rain", "a.txt").id
    'a.txt'
    """

    id: str
    text: str
    source: str
    line: int | None = None


@dataclass(frozen=True)
class Problem:
    """An input that was skipped: where (``source``, ``line``), why (``reason``), and what to do.

    ``line`` is ``None`` when the whole file is affected.

    >>> print(Problem("a.jsonl", 3, "missing-field", "no field 'text'"))
    a.jsonl:3: missing JSON field: no field 'text'
    """

    source: str
    line: int | None
    reason: str
    message: str

    @property
    def where(self) -> str:
        """``path:line``, or just ``path`` for a whole-file problem."""
        return self.source if self.line is None else f"{self.source}:{self.line}"

    def __str__(self) -> str:
        return f"{self.where}: {REASONS[self.reason]}: {self.message}"

    def to_dict(self) -> dict:
        """The problem as plain data, for JSON output.

        >>> Problem("a.txt", None, "binary", "NUL byte").to_dict()["reason"]
        'binary'
        """
        return {"source": self.source, "line": self.line, "reason": self.reason, "message": self.message}


@dataclass
class ReadReport:
    """Everything read from a list of inputs: documents, problems, and counts.

    ``input_files`` holds the real path of every file met as an input, read
    or not, so that no output is ever written over one of them.
    """

    documents: list[Document] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    blank_lines: int = 0
    other_files: int = 0
    input_files: set[str] = field(default_factory=set)

    @property
    def skipped(self) -> Counter:
        """Number of problems per reason.

        >>> ReadReport(problems=[Problem("a", 1, "binary", "")]).skipped
        Counter({'binary': 1})
        """
        return Counter(p.reason for p in self.problems)


@dataclass(frozen=True)
class _Blank:
    """A blank line between records (internal marker)."""


@dataclass(frozen=True)
class _OtherFile:
    """A file in a folder that does not end in .txt (internal marker)."""

    path: str


def _display(path: str | os.PathLike) -> str:
    """The path as the user gave it, tidied (``./a//b`` -> ``a/b``), with forward slashes."""
    return Path(os.path.normpath(os.fspath(path))).as_posix()


def detect_format(path: str | os.PathLike, fmt: str = "auto") -> str:
    """Which reader an input needs: ``"txt"``, ``"jsonl"`` or ``"csv"``.

    A folder is a folder of ``.txt`` files. A file is recognised by its ending
    unless ``fmt`` names the format.

    >>> detect_format("day1.jsonl"), detect_format("notes.TXT"), detect_format("x.dat", "csv")
    ('jsonl', 'txt', 'csv')
    """
    if fmt != "auto":
        if fmt not in FORMATS:
            raise InputError(f"unknown format {fmt!r}; choose one of auto, {', '.join(FORMATS)}")
        return fmt
    if os.path.isdir(path):
        return "txt"
    suffix = Path(path).suffix.lower()
    for name, suffixes in FORMATS.items():
        if suffix in suffixes:
            return name
    known = ", ".join(s for suffixes in FORMATS.values() for s in suffixes)
    raise InputError(
        f"cannot tell the format of {_display(path)} from its name; inputs are folders of .txt files "
        f"or files ending in {known}; pass --format to say which"
    )


def _check_encoding(encoding: str) -> str:
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise InputError(f"unknown encoding {encoding!r}; try utf-8, latin-1 or cp1252") from None
    if "\n".encode(encoding) != b"\n" or "a".encode(encoding) != b"a":
        raise InputError(
            f"encoding {encoding!r} is not ASCII-compatible, so lines cannot be found in it; "
            "convert the files to UTF-8 first"
        )
    return encoding


def _sniff(head: bytes) -> tuple[str, str] | None:
    """A whole-file problem visible in the first bytes, as (reason, message), or None."""
    for bom, name in _BOMS.items():
        if head.startswith(bom):
            return "undecodable", f"starts with a {name} byte-order mark; convert the file to UTF-8"
    if b"\x00" in head[:_SNIFF_BYTES]:
        return "binary", "contains NUL bytes, so it is not a text file"
    return None


def _too_large(size: int, max_bytes: int) -> bool:
    return max_bytes > 0 and size > max_bytes


def _text_size_over(text: str, max_bytes: int) -> int | None:
    """UTF-8 size of ``text`` when it exceeds ``max_bytes``, else None (cheap for small texts)."""
    if max_bytes <= 0 or 4 * len(text) <= max_bytes:
        return None
    size = len(text.encode("utf-8", "surrogatepass"))
    return size if size > max_bytes else None


def _limit_hint() -> str:
    return "raise the limit with --max-bytes (0 for none) if you mean it"


def _decode_error_message(data: bytes, err: UnicodeDecodeError, encoding: str) -> tuple[int, str]:
    line = data.count(b"\n", 0, err.start) + 1
    bad = data[err.start : err.start + 1].hex()
    return line, f"byte 0x{bad} does not decode as {encoding}; save the file as UTF-8 or pass --encoding"


# ----- opening one file, safely --------------------------------------------------------

_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_OPEN_FLAGS = os.O_RDONLY | _O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
_FILE_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class _NotRegular(Exception):
    """The path names something other than a regular file; the message says what (internal)."""


def _kind(mode: int) -> str:
    """What a file-system object is, in words: ``'a named pipe (FIFO)'``."""
    return next((name for test, name in _FILE_KINDS if test(mode)), "a special file")


def _open_regular(path: str) -> tuple[BinaryIO, int]:
    """Open ``path`` for reading if it is a regular file (or a link to one); return it and its size.

    Checked before opening, so a device is never opened, and again on the
    open file, in case the name changed in between. The open itself does
    not wait (``O_NONBLOCK``), so even a pipe slipped in cannot hang a run.
    Raises :class:`_NotRegular` or :class:`OSError`.
    """
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise _NotRegular(_kind(mode))
    fd = os.open(path, _OPEN_FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _NotRegular(_kind(info.st_mode))
        if _O_NONBLOCK:
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb"), info.st_size
    except BaseException:
        os.close(fd)
        raise


def _open_problem(shown: str, err: OSError | _NotRegular) -> Problem:
    """The problem of an input that could not be opened."""
    if isinstance(err, _NotRegular):
        return Problem(shown, None, "not-regular", f"is {err}; only regular files are read")
    return Problem(shown, None, "unreadable", f"cannot be read ({err.strerror or err})")


def _too_large_problem(shown: str, line: int | None, size: int, max_bytes: int) -> Problem:
    return Problem(
        shown, line, "too-large", f"{size} bytes is over the limit of {max_bytes}; {_limit_hint()}"
    )


def _read_txt_file(path: str, shown: str, encoding: str, max_bytes: int) -> Document | Problem:
    try:
        f, size = _open_regular(path)
    except (OSError, _NotRegular) as err:
        return _open_problem(shown, err)
    with f:
        if _too_large(size, max_bytes):
            return _too_large_problem(shown, None, size, max_bytes)
        try:  # the size above is only a claim (files grow, /proc says 0): read one byte past the limit
            data = f.read(max_bytes + 1) if max_bytes else f.read()
        except OSError as err:
            return Problem(shown, None, "unreadable", f"cannot be read ({err.strerror or err})")
    if _too_large(len(data), max_bytes):
        return Problem(
            shown,
            None,
            "too-large",
            f"holds more than the limit of {max_bytes} bytes (more than its size said); {_limit_hint()}",
        )
    sniffed = _sniff(data)
    if sniffed:
        return Problem(shown, None, *sniffed)
    if data.startswith(codecs.BOM_UTF8) and codecs.lookup(encoding).name == "utf-8":
        data = data[len(codecs.BOM_UTF8) :]
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as err:
        line, message = _decode_error_message(data, err, encoding)
        return Problem(shown, line, "undecodable", message)
    return Document(shown, text, shown)


# ----- what a run has read already ----------------------------------------------------------


def _is_within(path: str, folder: str) -> bool:
    """True when ``path`` is ``folder`` or lies below it (both real paths)."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


@dataclass
class _Seen:
    """What one run has read so far: files by real path, folders by ``(st_dev, st_ino)``.

    Both remember the path shown for the first reading, to name it when the
    same file or folder turns up again under another name.
    """

    files: dict[str, str] = field(default_factory=dict)
    folders: dict[tuple[int, int], tuple[str, str]] = field(default_factory=dict)

    def file(self, real: str, shown: str) -> Problem | None:
        """None the first time a file is met (and remember it); a ``duplicate-input`` problem after."""
        if real not in self.files:
            self.files[real] = shown
            return None
        first = self.files[real]
        return Problem(
            shown, None, "duplicate-input", f"the same file as {first}, read already; each file is read once"
        )

    def folder(self, key: tuple[int, int], shown: str, real: str, parent: str | None) -> Problem | None:
        """None the first time a folder is met; else a ``link-loop`` or ``duplicate-input`` problem.

        ``parent`` is the real path of the folder holding the link (None for an input).
        """
        if key not in self.folders:
            self.folders[key] = (shown, real)
            return None
        first, first_real = self.folders[key]
        if parent is not None and _is_within(parent, first_real):
            return Problem(
                shown, None, "link-loop", f"links back to {first}, a folder it is in; not followed"
            )
        return Problem(
            shown,
            None,
            "duplicate-input",
            f"the same folder as {first}, read already; each file is read once",
        )


# ----- folders of .txt files -------------------------------------------------------------


@dataclass(frozen=True)
class _ToRead:
    """A .txt file found in a folder: where to open it, how to show it, its real path."""

    path: str
    shown: str
    real: str


@dataclass(frozen=True)
class _Descend:
    """A folder to walk: where it is, its path below the input, its real path.

    ``key`` (``(st_dev, st_ino)``) and ``parent`` (the real path of the folder
    holding it) are checked against :class:`_Seen` when the walk reaches it;
    an input folder, checked already, has neither.
    """

    path: str
    rel: str
    real: str
    key: tuple[int, int] | None = None
    parent: str | None = None


def _classify(entry: os.DirEntry, rel: str, shown: str, parent_real: str) -> _ToRead | _Descend | _OtherFile:
    """What to do with one folder entry: read it, walk it, or pass it over."""
    is_txt = entry.name.lower().endswith(".txt")
    own_path = os.path.join(parent_real, entry.name)
    try:
        is_link = entry.is_symlink()
        info = os.stat(entry.path) if is_link else entry.stat(follow_symlinks=False)
    except OSError:  # a broken link, or gone meanwhile: reading a .txt says which
        return _ToRead(entry.path, shown, own_path) if is_txt else _OtherFile(shown)
    real = os.path.realpath(entry.path) if is_link else own_path
    if stat.S_ISDIR(info.st_mode):
        return _Descend(entry.path, rel, real, (info.st_dev, info.st_ino), parent_real)
    return _ToRead(entry.path, shown, real) if is_txt else _OtherFile(shown)


def _walk(folder: str, seen: _Seen) -> list[tuple[str, _ToRead | Problem | _OtherFile]]:
    """Every entry below ``folder`` with its relative path, sorted by that path.

    Depth first in name order, with an explicit stack instead of recursion,
    so a tree of any depth is walked; each folder is entered once, and when
    two links lead to one folder the first in that order is followed (see
    :class:`_Seen`).
    """
    base = _display(folder)

    def show(rel: str) -> str:
        return rel if base == "." else f"{base}/{rel}" if rel else base

    found: list[tuple[str, _ToRead | Problem | _OtherFile]] = []
    stack = [_Descend(folder, "", os.path.realpath(folder))]
    while stack:
        here = stack.pop()
        if here.key is not None and here.parent is not None:
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
    found.sort(key=lambda pair: pair[0])
    return found


def _iter_txt_folder(
    folder: str, encoding: str, max_bytes: int, seen: _Seen
) -> Iterator[Document | Problem | _OtherFile]:
    for _, item in _walk(folder, seen):
        if isinstance(item, _ToRead):
            yield seen.file(item.real, item.shown) or _read_txt_file(
                item.path, item.shown, encoding, max_bytes
            )
        else:
            yield item


# ----- JSONL -----------------------------------------------------------------------------


def _describe_json(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def _sized_record(shown: str, line: int, text: str, max_bytes: int) -> Document | Problem:
    """The record at ``shown:line`` as a Document, or a Problem when it is over ``max_bytes``."""
    size = _text_size_over(text, max_bytes)
    if size is not None:
        return _too_large_problem(shown, line, size, max_bytes)
    return Document(f"{shown}:{line}", text, shown, line)


def _jsonl_line_limit(max_bytes: int) -> int:
    """Longest JSONL line read, in bytes (0: no limit).

    JSON may spell one character of text in six bytes (``\\u0001``), and a
    record holds other fields too: a line beyond this cannot be a document
    within ``max_bytes``, so it is skipped without being held in memory.
    """
    return 6 * max_bytes + 1_000_000 if max_bytes else 0


def _bounded_lines(f: BinaryIO, limit: int) -> Iterator[bytes | None]:
    """The lines of ``f``, or None for a line longer than ``limit`` bytes (skipped unread)."""
    while True:
        line = f.readline(limit + 1) if limit else f.readline()
        if not line:
            return
        if limit and len(line) > limit and not line.endswith(b"\n"):
            while True:  # pass over the rest of the line in bounded steps
                rest = f.readline(1 << 20)
                if not rest or rest.endswith(b"\n"):
                    break
            yield None
        else:
            yield line


def _parse_json(line: str) -> tuple[object, str | None]:
    """The value on one JSONL line and None, or None and why it cannot be read."""
    try:
        return json.loads(line), None
    except json.JSONDecodeError as err:
        return None, f"{err.msg} (column {err.colno})"
    except RecursionError:
        return None, "values are nested too deeply to read; flatten the record"
    except ValueError as err:  # Python refuses to convert integers with too many digits
        return None, f"cannot be read safely ({str(err).split(';')[0]}); store long numbers as strings"


def _jsonl_record(shown: str, number: int, line: str, field_name: str, max_bytes: int) -> Document | Problem:
    """One non-blank JSONL line as a Document, or the Problem that keeps it out."""
    record, error = _parse_json(line)
    if error is not None:
        return Problem(shown, number, "bad-json", error)
    if not isinstance(record, dict):
        return Problem(
            shown, number, "bad-json", f"the line holds {_describe_json(record)}, not a JSON object"
        )
    if field_name not in record:
        keys = ", ".join(sorted(map(str, record))) or "none"
        return Problem(
            shown,
            number,
            "missing-field",
            f"no field {field_name!r} (fields: {keys}); choose the field with --field",
        )
    text = record[field_name]
    if not isinstance(text, str):
        return Problem(
            shown, number, "not-text", f"field {field_name!r} holds {_describe_json(text)}, not a string"
        )
    return _sized_record(shown, number, text, max_bytes)


def _iter_jsonl(
    path: str, field_name: str, encoding: str, max_bytes: int
) -> Iterator[Document | Problem | _Blank]:
    shown = _display(path)
    try:
        f, _ = _open_regular(path)
    except (OSError, _NotRegular) as err:
        yield _open_problem(shown, err)
        return
    limit = _jsonl_line_limit(max_bytes)
    try:
        sniffed = _sniff(f.peek(_SNIFF_BYTES)[:_SNIFF_BYTES])
        if sniffed:
            yield Problem(shown, None, *sniffed)
            return
        for number, raw in enumerate(_bounded_lines(f, limit), start=1):
            if raw is None:
                message = f"the line is longer than {limit} bytes, too long for a document of {max_bytes}"
                yield Problem(shown, number, "too-large", f"{message}; {_limit_hint()}")
                continue
            if number == 1 and raw.startswith(codecs.BOM_UTF8):
                raw = raw[len(codecs.BOM_UTF8) :]
            raw = raw.rstrip(b"\r\n")
            try:
                line = raw.decode(encoding)
            except UnicodeDecodeError as err:
                yield Problem(shown, number, "undecodable", _decode_error_message(raw, err, encoding)[1])
                continue
            if not line.strip():
                yield _Blank()
                continue
            yield _jsonl_record(shown, number, line, field_name, max_bytes)
    except OSError as err:
        yield Problem(shown, None, "unreadable", f"reading stopped part way ({err.strerror or err})")
    finally:
        f.close()


# ----- CSV -------------------------------------------------------------------------------


def _fields(n: int) -> str:
    return f"{n} field" if n == 1 else f"{n} fields"


def _has_escaped_bytes(text: str) -> bool:
    """True when ``text`` holds bytes kept by the ``surrogateescape`` error handler."""
    return any("\udc80" <= ch <= "\udcff" for ch in text) if not text.isascii() else False


def _csv_record_limit(max_bytes: int) -> int:
    """Longest CSV record read, in characters (0: no limit): the text column and as much again."""
    return 2 * max_bytes + 1_000_000 if max_bytes else 0


class _RecordTooLarge(Exception):
    """A CSV record grew past the record limit (internal)."""


class _CsvLines:
    """The lines ``csv.reader`` asks for: counted, bounded, and kept while one record is read.

    ``ended`` tells that the file ran out in the middle of a record, which
    only happens inside a quoted field: a quote that is never closed. The
    lines that record swallowed can then be read again (:meth:`reread`).
    """

    def __init__(self, text: IO[str], limit: int) -> None:
        self.text, self.limit = text, limit
        self.number = 0  # lines handed out so far
        self.record: list[str] = []
        self.ended = False
        self._again: list[str] = []  # lines to hand out again, last first
        self._size = 0

    def start_record(self) -> int:
        """Forget the previous record; return the line the next one starts on."""
        self.record, self._size, self.ended = [], 0, False
        return self.number + 1

    def reread(self, start: int) -> None:
        """Hand out again the lines of the record that started on ``start``, from its second line."""
        self._again.extend(reversed(self.record[1:]))
        self.number = start

    def __iter__(self) -> _CsvLines:
        return self

    def __next__(self) -> str:
        if self._again:
            line = self._again.pop()
        else:
            line = self.text.readline(self.limit + 1) if self.limit else self.text.readline()
            if not line:
                self.ended = True
                raise StopIteration
        self._size += len(line)
        if self.limit and self._size > self.limit:
            raise _RecordTooLarge
        self.number += 1
        self.record.append(line)
        return line


def _csv_row(
    shown: str,
    start: int,
    row: list[str],
    header: list[str],
    col: int,
    column: str,
    encoding: str,
    max_bytes: int,
) -> Document | Problem:
    """One CSV data row as a Document, or the Problem that keeps it out."""
    if col >= len(row):
        return Problem(
            shown,
            start,
            "missing-column",
            f"the row has {_fields(len(row))}, so no column {column!r} (the header has {len(header)})",
        )
    if len(row) != len(header):
        return Problem(
            shown,
            start,
            "bad-csv",
            f"the row has {_fields(len(row))} but the header has {len(header)}; "
            "quote fields that contain the delimiter",
        )
    value = row[col]
    if _has_escaped_bytes(value):
        return Problem(
            shown,
            start,
            "undecodable",
            f"column {column!r} holds bytes that do not decode as {encoding}; "
            "save the file as UTF-8 or pass --encoding",
        )
    return _sized_record(shown, start, value, max_bytes)


def _unclosed_quote(shown: str, start: int, end: int, header_done: bool) -> Problem:
    swallowed = f"lines {start}-{end}" if end > start else f"line {start}"
    then = (
        "the lines after it are read as rows of their own"
        if header_done
        else "it is in the header, so no row of this file was read"
    )
    message = f"a quote opened in this record is never closed, so it would swallow {swallowed}; {then}"
    return Problem(shown, start, "bad-csv", f"{message}; close the quote")


def _iter_csv(
    path: str, column: str, encoding: str, max_bytes: int, delimiter: str | None
) -> Iterator[Document | Problem | _Blank]:
    shown = _display(path)
    if delimiter is None:
        delimiter = "\t" if Path(path).suffix.lower() == ".tsv" else ","
    try:
        raw, _ = _open_regular(path)
    except (OSError, _NotRegular) as err:
        yield _open_problem(shown, err)
        return
    old_limit = csv.field_size_limit()
    try:
        sniffed = _sniff(raw.peek(_SNIFF_BYTES)[:_SNIFF_BYTES])
        if sniffed:
            yield Problem(shown, None, *sniffed)
            return
        utf8 = codecs.lookup(encoding).name == "utf-8"
        text = io.TextIOWrapper(
            raw, encoding="utf-8-sig" if utf8 else encoding, errors="surrogateescape", newline=""
        )
        # Sizes are checked below, with a message; csv's own limit would just raise.
        csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
        limit = _csv_record_limit(max_bytes)
        lines = _CsvLines(text, limit)
        reader = csv.reader(lines, delimiter=delimiter)
        header: list[str] | None = None
        col = -1
        while True:
            start = lines.start_record()
            try:
                row = next(reader)
            except StopIteration:
                break
            except _RecordTooLarge:
                message = (
                    f"the record starting on this line is longer than {limit} characters, too long for a "
                    f"document of {max_bytes} bytes (a quote that is never closed?); reading of this file "
                    "stopped here"
                )
                yield Problem(shown, start, "too-large", f"{message}; {_limit_hint()}")
                return
            except csv.Error as err:
                yield Problem(
                    shown, start, "bad-csv", f"{err}; reading of this file stopped here, fix the quoting"
                )
                return
            if lines.ended:
                yield _unclosed_quote(shown, start, lines.number, header is not None)
                if header is None:
                    return
                lines.reread(start)
                reader = csv.reader(lines, delimiter=delimiter)
                continue
            if not row:
                yield _Blank()
                continue
            if header is None:
                header = row
                if column not in header:
                    names = ", ".join(header)
                    yield Problem(
                        shown,
                        start,
                        "missing-column",
                        f"the header has no column {column!r} (columns: {names}); choose one with --column; "
                        "no row of this file was read",
                    )
                    return
                col = header.index(column)
                continue
            yield _csv_row(shown, start, row, header, col, column, encoding, max_bytes)
    except OSError as err:
        yield Problem(shown, None, "unreadable", f"reading stopped part way ({err.strerror or err})")
    finally:
        csv.field_size_limit(old_limit)
        raw.close()


def iter_records(
    path: str | os.PathLike,
    *,
    fmt: str = "auto",
    field: str = "text",
    column: str = "text",
    encoding: str = "utf-8",
    max_bytes: int = DEFAULT_MAX_BYTES,
    delimiter: str | None = None,
) -> Iterator[Document | Problem]:
    """Yield a :class:`Document` or a :class:`Problem` for every record of one input, in order.

    Blank lines and non-``.txt`` files in folders are passed over here;
    :func:`read_inputs` counts them.

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with open(os.path.join(tmp, "a.csv"), "w", encoding="utf-8") as f:
    ...         _ = f.write("id,text\\n1,heavy rain\\n2\\n")
    ...     [type(r).__name__ for r in iter_records(os.path.join(tmp, "a.csv"))]
    ['Document', 'Problem']
    """
    for item in _iter_raw(path, fmt, field, column, encoding, max_bytes, delimiter, _Seen()):
        if isinstance(item, (Document, Problem)):
            yield item


def _iter_raw(
    path: str | os.PathLike,
    fmt: str,
    field: str,
    column: str,
    encoding: str,
    max_bytes: int,
    delimiter: str | None,
    seen: _Seen,
) -> Iterator[Document | Problem | _Blank | _OtherFile]:
    path = os.fspath(path)
    _check_encoding(encoding)
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
        raise InputError(f"max_bytes must be a non-negative int (0 for no limit), got {max_bytes!r}")
    if not os.path.lexists(path):
        raise InputError(f"no such file or folder: {_display(path)}")
    kind = detect_format(path, fmt)
    shown = _display(path)
    if os.path.isdir(path):
        if kind != "txt":
            raise InputError(f"{shown} is a folder; only folders of .txt files can be read")
        yield from _iter_input_folder(path, shown, encoding, max_bytes, seen)
        return
    again = seen.file(os.path.realpath(path), shown)
    if again:
        yield again
    elif kind == "txt":
        yield _read_txt_file(path, shown, encoding, max_bytes)
    elif kind == "jsonl":
        yield from _iter_jsonl(path, field, encoding, max_bytes)
    else:
        yield from _iter_csv(path, column, encoding, max_bytes, delimiter)


def _iter_input_folder(
    path: str, shown: str, encoding: str, max_bytes: int, seen: _Seen
) -> Iterator[Document | Problem | _OtherFile]:
    """A folder named as an input: read once, however it is spelled."""
    try:
        info = os.stat(path)
    except OSError as err:
        yield Problem(shown, None, "unreadable-folder", f"cannot be opened ({err.strerror or err})")
        return
    again = seen.folder((info.st_dev, info.st_ino), shown, os.path.realpath(path), None)
    if again:
        yield again
    else:
        yield from _iter_txt_folder(path, encoding, max_bytes, seen)


def _check_inputs(paths: Sequence[str | os.PathLike]) -> list[str]:
    if isinstance(paths, (str, bytes, os.PathLike)):
        raise InputError("inputs must be a list of paths; wrap a single path in a list")
    if not paths:
        raise InputError("no inputs given; name at least one folder of .txt files, .jsonl or .csv file")
    shown: dict[str, str] = {}
    for p in paths:
        key = _display(p)
        if key in shown:
            raise InputError(f"input {key} is given twice; its documents would get the same ids")
        shown[key] = os.fspath(p)
    for p in paths:
        if not os.path.lexists(p):
            raise InputError(f"no such file or folder: {_display(p)}")
    return [os.fspath(p) for p in paths]


def read_inputs(
    paths: Sequence[str | os.PathLike],
    *,
    fmt: str = "auto",
    field: str = "text",
    column: str = "text",
    encoding: str = "utf-8",
    max_bytes: int = DEFAULT_MAX_BYTES,
    delimiter: str | None = None,
    progress: Iterable | None = None,
) -> ReadReport:
    """Read every input into one :class:`ReadReport`, in the order given.

    Raises :class:`InputError` before reading anything when an input does
    not exist, is given twice, or has a format that cannot be told; also
    when two records would get the same id. Per-record trouble never
    raises: it becomes a :class:`Problem`.

    ``progress``, if given, is a callable taking an iterable and returning
    one (such as ``tqdm``); records are passed through it.

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     for name, text in [("a.txt", "heavy rain"), ("b.txt", ""), ("c.txt", "x\\x00y")]:
    ...         with open(os.path.join(tmp, name), "w", encoding="utf-8") as f:
    ...             _ = f.write(text)
    ...     report = read_inputs([tmp])
    >>> len(report.documents), dict(report.skipped)
    (2, {'binary': 1})
    """
    checked = _check_inputs(paths)
    for p in checked:  # fail on an unknown format before anything is read
        detect_format(p, fmt)
    report = ReadReport()
    seen: set[str] = set()  # document ids
    read_already = _Seen()
    for p in checked:
        items: Iterable = _iter_raw(p, fmt, field, column, encoding, max_bytes, delimiter, read_already)
        if progress is not None:
            items = progress(items)
        for item in items:
            if isinstance(item, Document):
                if item.id in seen:
                    raise InputError(
                        f"two documents would get the id {item.id}; give each input once, "
                        "and not a folder together with a file inside it"
                    )
                seen.add(item.id)
                report.documents.append(item)
            elif isinstance(item, Problem):
                report.problems.append(item)
            elif isinstance(item, _Blank):
                report.blank_lines += 1
            else:
                report.other_files += 1
    report.input_files = set(read_already.files)
    return report
