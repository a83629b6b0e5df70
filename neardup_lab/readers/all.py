"""Read documents from files a reader brings: folders of .txt, JSONL, CSV, Parquet.

Every input ends up as exactly one of two things: a :class:`Document` with a
stable id, or a :class:`Problem` that says which file and line could not be
used and why. Nothing is dropped without a trace.

Ids are built from the path as it was given (never made absolute), so the
same command run from the same folder gives the same ids on any machine:

- a ``.txt`` file is one document, its id is its path: ``news/a.txt``;
- a JSONL line or a CSV record is one document, its id is ``path:line``
  with the 1-based line on which the record starts: ``day1.jsonl:3``;
- a Parquet row is one document, its id is ``path:row`` with the 1-based
  row number: ``crawl.parquet:3``;
- with ``id_field`` (JSONL; a dotted path such as ``meta.id`` reaches into
  nested objects) or ``id_column`` (CSV and Parquet), a record's own id is
  used instead. A record without one is ``missing-id``, one that is not a
  string or a whole number is ``bad-id``, and a record whose id was taken
  by an earlier record is ``duplicate-id``: records are never merged
  silently under one id.

Files ending in ``.gz`` (read with the standard library) or ``.zst`` (with
the ``zstandard`` package) are decompressed as they are read, in bounded
steps: ``day1.jsonl.gz``. Compressed data that is cut off or damaged is
``damaged``, naming the line where reading stopped; the records before it
are read. Parquet files (with ``pyarrow``) are read in record batches, the
text from ``column``; a file ``pyarrow`` cannot read is ``damaged``, one
without the column is ``missing-parquet-column``.

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
import gzip
import importlib
import io
import json
import os
import stat
import sys
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import IO, BinaryIO, NamedTuple

__all__ = [
    "DEFAULT_MAX_BYTES",
    "FORMATS",
    "COMPRESSIONS",
    "REASONS",
    "Document",
    "Problem",
    "InputFile",
    "ReadReport",
    "InputError",
    "detect_format",
    "compression_of",
    "optional_module",
    "open_input",
    "jsonl_lines",
    "csv_rows",
    "csv_delimiter",
    "record_value",
    "iter_records",
    "read_inputs",
    "check_inputs",
    "PARQUET_BATCH_ROWS",
]

#: Documents above this many bytes are refused unless the caller raises the limit.
DEFAULT_MAX_BYTES = 10_000_000
#: Input kinds, and the file name endings that select each one automatically.
FORMATS = {
    "txt": (".txt",),
    "jsonl": (".jsonl", ".ndjson"),
    "csv": (".csv", ".tsv"),
    "parquet": (".parquet", ".pq"),
}
#: Endings of compressed files, each with the module that reads it and the package that holds it.
COMPRESSIONS = {".gz": ("gzip", "the standard library"), ".zst": ("zstandard", "zstandard")}
#: Rows per record batch read from a Parquet file.
PARQUET_BATCH_ROWS = 1024
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
    "damaged": "damaged file",
    "missing-parquet-column": "missing Parquet column",
    "missing-id": "missing id",
    "bad-id": "unusable id",
    "duplicate-id": "duplicate id",
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


@dataclass(frozen=True)
class _Options:
    """How records are read: the text field or column, ids, encoding, size limit, CSV delimiter."""

    field: str = "text"
    column: str = "text"
    encoding: str = "utf-8"
    max_bytes: int = DEFAULT_MAX_BYTES
    delimiter: str | None = None
    id_field: str | None = None
    id_column: str | None = None


class InputFile(NamedTuple):
    """A file named as an input: the ``path`` it was opened by and its ``format``."""

    path: str
    format: str


@dataclass
class ReadReport:
    """Everything read from a list of inputs: documents, problems, and counts.

    ``input_files`` holds the real path of every file met as an input, read
    or not, so that no output is ever written over one of them; ``sources``
    tells how to open each named input file again (to copy its records).
    """

    documents: list[Document] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    blank_lines: int = 0
    other_files: int = 0
    input_files: set[str] = field(default_factory=set)
    #: Each file named as an input (not the files found in folders), by the name documents give as source.
    sources: dict[str, InputFile] = field(default_factory=dict)

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


def compression_of(path: str | os.PathLike) -> str | None:
    """The compression a file name announces (a key of :data:`COMPRESSIONS`), or None.

    >>> compression_of("day1.jsonl.GZ"), compression_of("day1.jsonl.zst"), compression_of("day1.jsonl")
    ('.gz', '.zst', None)
    """
    suffix = Path(path).suffix.lower()
    return suffix if suffix in COMPRESSIONS else None


def optional_module(module: str, package: str, purpose: str) -> ModuleType:
    """Import ``module``, or raise :class:`InputError` naming the ``package`` to install for ``purpose``.

    >>> optional_module("gzip", "the standard library", "reading .gz files").__name__
    'gzip'
    >>> optional_module("no_such_module", "nosuch", "reading .xyz files")
    Traceback (most recent call last):
        ...
    neardup_lab.readers.all.InputError: reading .xyz files needs the nosuch package, which is not installed; \
pip install nosuch
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise InputError(
            f"{purpose} needs the {package} package, which is not installed; pip install {package}"
        ) from None


def detect_format(path: str | os.PathLike, fmt: str = "auto") -> str:
    """Which reader an input needs: ``"txt"``, ``"jsonl"``, ``"csv"`` or ``"parquet"``.

    A folder is a folder of ``.txt`` files. A file is recognised by its ending
    (after a compression ending such as ``.gz``) unless ``fmt`` names the
    format. Raises :class:`InputError` when a package the input needs is
    missing, so the run stops before anything is read.

    >>> detect_format("day1.jsonl"), detect_format("notes.TXT"), detect_format("x.dat", "csv")
    ('jsonl', 'txt', 'csv')
    >>> detect_format("crawl.jsonl.gz"), detect_format("crawl.parquet")
    ('jsonl', 'parquet')
    """
    if fmt != "auto" and fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}; choose one of auto, {', '.join(FORMATS)}")
    if os.path.isdir(path):
        return "txt" if fmt == "auto" else fmt
    compressed = compression_of(path)
    name = Path(path).name.lower()
    stem = name[: -len(compressed)] if compressed else name
    kind = fmt if fmt != "auto" else _format_of(stem)
    if kind is None:
        known = ", ".join(s for suffixes in FORMATS.values() for s in suffixes)
        raise InputError(
            f"cannot tell the format of {_display(path)} from its name; inputs are folders of .txt files "
            f"or files ending in {known} (or these followed by .gz or .zst); pass --format to say which"
        )
    if compressed and kind == "parquet":
        raise InputError(
            f"{_display(path)} is a compressed Parquet file; Parquet compresses inside the file, "
            "so decompress it first"
        )
    if compressed:
        module, package = COMPRESSIONS[compressed]
        optional_module(module, package, f"reading {compressed} files")
    if kind == "parquet":
        optional_module("pyarrow.parquet", "pyarrow", "reading Parquet files")
    return kind


def _format_of(name: str) -> str | None:
    suffix = Path(name).suffix
    return next((kind for kind, suffixes in FORMATS.items() if suffix in suffixes), None)


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


class _NotRegular(ValueError):
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


class _ZstdFrames(io.RawIOBase):
    """The frames of a zstandard file, one after another, decompressed in bounded steps.

    ``zstandard``'s own stream reader stops without a word when the data is
    cut off inside a frame; this one raises :class:`EOFError` instead, so a
    truncated file is reported, never read as if it were whole. Input is fed
    in small steps because one step of zstandard data may decompress to
    thousands of times its size.
    """

    _STEP = 1 << 12

    def __init__(self, f: BinaryIO, zstandard: ModuleType) -> None:
        self._f, self._zstd = f, zstandard
        self._frame = zstandard.ZstdDecompressor().decompressobj()
        self._in_frame = False
        self._pending = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def]
        while not self._pending:
            chunk = self._f.read(self._STEP)
            if not chunk:
                if self._in_frame:
                    raise EOFError("the zstandard data ends inside a frame (a cut-off file?)")
                return 0
            self._pending = memoryview(self._feed(chunk))
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n

    def _feed(self, chunk: bytes) -> bytes:
        out = []
        while chunk:
            self._in_frame = True
            out.append(self._frame.decompress(chunk))
            chunk = b""
            if self._frame.eof:  # the next frame, if any, starts in the unused bytes
                chunk = self._frame.unused_data
                self._frame = self._zstd.ZstdDecompressor().decompressobj()
                self._in_frame = False
        return b"".join(out)

    def close(self) -> None:
        try:
            self._f.close()
        finally:
            super().close()


class _Decompressed(io.BufferedReader):
    """A buffered decompressed stream that also closes the file under it."""

    def __init__(self, stream: IO[bytes], file: BinaryIO) -> None:
        super().__init__(stream, buffer_size=1 << 16)  # type: ignore[arg-type]
        self._file = file

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._file.close()


def _read_errors() -> tuple[type[BaseException], ...]:
    """What reading a (compressed) file may raise when its data is damaged or cut off."""
    errors: tuple[type[BaseException], ...] = (EOFError, zlib.error, gzip.BadGzipFile)
    zstandard = sys.modules.get("zstandard")
    return errors + ((zstandard.ZstdError,) if zstandard is not None else ())


def open_input(path: str | os.PathLike) -> tuple[BinaryIO, int | None]:
    """Open an input file for reading, decompressed as its name says; return it and its size.

    The size is the file's (None for a compressed file, whose size says
    nothing about its text). Only regular files are opened (see the module
    notes); raises :class:`OSError` or, for anything else, :class:`ValueError`.

    >>> import gzip, os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "a.txt.gz")
    ...     with gzip.open(path, "wb") as f:
    ...         _ = f.write(b"heavy rain")
    ...     f, size = open_input(path)
    ...     with f:
    ...         f.read(), size
    (b'heavy rain', None)
    """
    path = os.fspath(path)
    f, size = _open_regular(path)
    compressed = compression_of(path)
    try:
        if compressed == ".gz":
            return _Decompressed(gzip.GzipFile(fileobj=f, mode="rb"), f), None
        if compressed == ".zst":
            zstandard = optional_module("zstandard", "zstandard", "reading .zst files")
            return _Decompressed(_ZstdFrames(f, zstandard), f), None
    except BaseException:
        f.close()
        raise
    return f, size


def _open_problem(shown: str, err: OSError | _NotRegular) -> Problem:
    """The problem of an input that could not be opened."""
    if isinstance(err, _NotRegular):
        return Problem(shown, None, "not-regular", f"is {err}; only regular files are read")
    return Problem(shown, None, "unreadable", f"cannot be read ({err.strerror or err})")


def _too_large_problem(shown: str, line: int | None, size: int, max_bytes: int) -> Problem:
    return Problem(
        shown, line, "too-large", f"{size} bytes is over the limit of {max_bytes}; {_limit_hint()}"
    )


def _damaged(shown: str, line: int | None, err: BaseException) -> Problem:
    where = f"reading stopped at line {line}; the lines before it were read" if line else "nothing was read"
    return Problem(shown, line, "damaged", f"the compressed data is damaged or cut off ({err}); {where}")


def _read_txt_file(path: str, shown: str, encoding: str, max_bytes: int) -> Document | Problem:
    try:
        f, size = open_input(path)
    except (OSError, _NotRegular) as err:
        return _open_problem(shown, err)
    with f:
        if size is not None and _too_large(size, max_bytes):
            return _too_large_problem(shown, None, size, max_bytes)
        try:  # the size above is only a claim (files grow, /proc says 0): read one byte past the limit
            data = f.read(max_bytes + 1) if max_bytes else f.read()
        except _read_errors() as err:
            return _damaged(shown, None, err)
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


def _sized_record(
    shown: str, line: int, text: str, max_bytes: int, doc_id: str | None = None
) -> Document | Problem:
    """The record at ``shown:line`` as a Document (its id ``doc_id``, or ``shown:line``), or a
    Problem when it is over ``max_bytes``."""
    size = _text_size_over(text, max_bytes)
    if size is not None:
        return _too_large_problem(shown, line, size, max_bytes)
    return Document(f"{shown}:{line}" if doc_id is None else doc_id, text, shown, line)


def _own_id(value: object, what: str, option: str) -> tuple[str | None, str | None]:
    """A record's own id from ``value`` and None, or None and why it cannot be one.

    Strings and whole numbers (as JSON and Parquet store them) are ids;
    ``what`` names where the value was found, for the message.
    """
    if isinstance(value, str) and value:
        return value, None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value), None
    held = "an empty string" if value == "" else _describe_json(value)
    return None, f"{what} holds {held}; an id is a non-empty string or a whole number (--{option})"


def _jsonl_line_limit(max_bytes: int) -> int:
    """Longest JSONL line read, in bytes (0: no limit).

    JSON may spell one character of text in six bytes (``\\u0001``), and a
    record holds other fields too: a line beyond this cannot be a document
    within ``max_bytes``, so it is skipped without being held in memory.
    """
    return 6 * max_bytes + 1_000_000 if max_bytes else 0


def jsonl_lines(f: BinaryIO, max_bytes: int = DEFAULT_MAX_BYTES) -> Iterator[tuple[int, bytes | None]]:
    """Each line of a JSONL file as ``(number, bytes)``, 1-based, the bytes as read.

    A UTF-8 byte-order mark before the first line is left out. A line too
    long to hold a document of ``max_bytes`` comes as ``(number, None)``
    and is passed over in bounded steps, never held in memory.

    >>> import io
    >>> list(jsonl_lines(io.BytesIO(b'{"text": "a"}\\n\\n{"text": "b"}')))
    [(1, b'{"text": "a"}\\n'), (2, b'\\n'), (3, b'{"text": "b"}')]
    """
    limit = _jsonl_line_limit(max_bytes)
    number = 0
    while True:
        line = f.readline(limit + 1) if limit else f.readline()
        if not line:
            return
        number += 1
        if limit and len(line) > limit and not line.endswith(b"\n"):
            while True:  # pass over the rest of the line in bounded steps
                rest = f.readline(1 << 20)
                if not rest or rest.endswith(b"\n"):
                    break
            yield number, None
            continue
        if number == 1 and line.startswith(codecs.BOM_UTF8):
            line = line[len(codecs.BOM_UTF8) :]
        yield number, line


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


_ABSENT = object()


def record_value(record: dict, path: str) -> object:
    """The value at ``path`` in a JSON object: a key, or a dotted path into nested objects.

    A key that holds dots itself is found first. Returns a private marker
    (not None, which JSON may hold) when there is no such value; test it with
    ``is``, as below.

    >>> record = {"meta": {"id": 7}, "a.b": 1}
    >>> record_value(record, "meta.id"), record_value(record, "a.b")
    (7, 1)
    >>> record_value(record, "meta.url") is record_value({}, "x")
    True
    """
    if path in record:
        return record[path]
    value: object = record
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return _ABSENT
        value = value[part]
    return value


def _jsonl_record(shown: str, number: int, line: str, options: _Options) -> Document | Problem:
    """One non-blank JSONL line as a Document, or the Problem that keeps it out."""
    record, error = _parse_json(line)
    if error is not None:
        return Problem(shown, number, "bad-json", error)
    if not isinstance(record, dict):
        return Problem(
            shown, number, "bad-json", f"the line holds {_describe_json(record)}, not a JSON object"
        )
    text = record_value(record, options.field)
    if text is _ABSENT:
        keys = ", ".join(sorted(map(str, record))) or "none"
        return Problem(
            shown,
            number,
            "missing-field",
            f"no field {options.field!r} (fields: {keys}); choose the field with --field",
        )
    if not isinstance(text, str):
        return Problem(
            shown, number, "not-text", f"field {options.field!r} holds {_describe_json(text)}, not a string"
        )
    doc_id = None
    if options.id_field is not None:
        value = record_value(record, options.id_field)
        if value is _ABSENT:
            return Problem(
                shown,
                number,
                "missing-id",
                f"no field {options.id_field!r}; give every record an id, or leave out --id-field",
            )
        doc_id, error = _own_id(value, f"field {options.id_field!r}", "id-field")
        if error is not None:
            return Problem(shown, number, "bad-id", error)
    return _sized_record(shown, number, text, options.max_bytes, doc_id)


def _iter_jsonl(path: str, options: _Options) -> Iterator[Document | Problem | _Blank]:
    shown = _display(path)
    try:
        f, _ = open_input(path)
    except (OSError, _NotRegular) as err:
        yield _open_problem(shown, err)
        return
    number = 0
    try:
        sniffed = _sniff(f.peek(_SNIFF_BYTES)[:_SNIFF_BYTES])
        if sniffed:
            yield Problem(shown, None, *sniffed)
            return
        limit = _jsonl_line_limit(options.max_bytes)
        for number, raw in jsonl_lines(f, options.max_bytes):
            if raw is None:
                message = (
                    f"the line is longer than {limit} bytes, too long for a document of {options.max_bytes}"
                )
                yield Problem(shown, number, "too-large", f"{message}; {_limit_hint()}")
                continue
            try:
                line = raw.rstrip(b"\r\n").decode(options.encoding)
            except UnicodeDecodeError as err:
                yield Problem(
                    shown, number, "undecodable", _decode_error_message(raw, err, options.encoding)[1]
                )
                continue
            if not line.strip():
                yield _Blank()
                continue
            yield _jsonl_record(shown, number, line, options)
    except _read_errors() as err:
        yield _damaged(shown, number + 1, err)
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
    shown: str, start: int, row: list[str], header: list[str], cols: tuple[int, int | None], options: _Options
) -> Document | Problem:
    """One CSV data row as a Document, or the Problem that keeps it out.

    ``cols`` are the positions of the text column and of the id column (None without ``--id-column``).
    """
    col, id_col = cols
    needed = max(col, -1 if id_col is None else id_col)
    if needed >= len(row):
        missing = options.column if col >= len(row) else options.id_column
        return Problem(
            shown,
            start,
            "missing-column",
            f"the row has {_fields(len(row))}, so no column {missing!r} (the header has {len(header)})",
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
    for name, cell in [
        (options.column, value),
        (options.id_column, row[id_col] if id_col is not None else ""),
    ]:
        if _has_escaped_bytes(cell):
            return Problem(
                shown,
                start,
                "undecodable",
                f"column {name!r} holds bytes that do not decode as {options.encoding}; "
                "save the file as UTF-8 or pass --encoding",
            )
    doc_id = None
    if id_col is not None:
        doc_id = row[id_col]
        if not doc_id:
            return Problem(
                shown, start, "missing-id", f"column {options.id_column!r} is empty; give every row an id"
            )
    return _sized_record(shown, start, value, options.max_bytes, doc_id)


def _unclosed_quote(shown: str, start: int, end: int, header_done: bool) -> Problem:
    swallowed = f"lines {start}-{end}" if end > start else f"line {start}"
    then = (
        "the lines after it are read as rows of their own"
        if header_done
        else "it is in the header, so no row of this file was read"
    )
    message = f"a quote opened in this record is never closed, so it would swallow {swallowed}; {then}"
    return Problem(shown, start, "bad-csv", f"{message}; close the quote")


def csv_delimiter(path: str | os.PathLike, delimiter: str | None = None) -> str:
    """The delimiter given, or the one the file name suggests: a tab for ``.tsv`` (also compressed).

    >>> csv_delimiter("a.tsv.gz"), csv_delimiter("a.csv"), csv_delimiter("a.csv", ";")
    ('\\t', ',', ';')
    """
    if delimiter is not None:
        return delimiter
    name = Path(path).name.lower()
    compressed = compression_of(name)
    return "\t" if Path(name[: -len(compressed)] if compressed else name).suffix == ".tsv" else ","


def csv_rows(
    path: str | os.PathLike,
    encoding: str = "utf-8",
    max_bytes: int = DEFAULT_MAX_BYTES,
    delimiter: str | None = None,
) -> Iterator[tuple[int, list[str]] | Problem | None]:
    """The records of a CSV file, header first, as ``(start line, fields)``; None for a blank line.

    Fields hold bytes that do not decode as ``surrogateescape`` characters,
    so encoding them back with the same error handler gives the bytes read.
    An unclosed quote is reported and the lines it swallowed are read again
    (in the header, reading stops); a record longer than the limit for
    ``max_bytes`` stops reading, with a Problem.

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with open(os.path.join(tmp, "a.csv"), "w", encoding="utf-8") as f:
    ...         _ = f.write('id,text\\n1,"heavy\\nrain"\\n\\n2,sun\\n')
    ...     list(csv_rows(os.path.join(tmp, "a.csv")))
    [(1, ['id', 'text']), (2, ['1', 'heavy\\nrain']), None, (5, ['2', 'sun'])]
    """
    path = os.fspath(path)
    shown = _display(path)
    delimiter = csv_delimiter(path, delimiter)
    try:
        raw, _ = open_input(path)
    except (OSError, _NotRegular) as err:
        yield _open_problem(shown, err)
        return
    old_limit = csv.field_size_limit()
    lines: _CsvLines | None = None
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
        header_done = False
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
                yield _unclosed_quote(shown, start, lines.number, header_done)
                if not header_done:
                    return
                lines.reread(start)
                reader = csv.reader(lines, delimiter=delimiter)
                continue
            if not row:
                yield None
                continue
            header_done = True
            yield start, row
    except _read_errors() as err:
        yield _damaged(shown, lines.number + 1 if lines else None, err)
    except OSError as err:
        yield Problem(shown, None, "unreadable", f"reading stopped part way ({err.strerror or err})")
    finally:
        csv.field_size_limit(old_limit)
        raw.close()


def _header_columns(
    shown: str, start: int, header: list[str], options: _Options
) -> tuple[int, int | None] | Problem:
    """Where the text and id columns are in ``header``, or the Problem of a missing one."""
    for name in (options.column, options.id_column):
        if name is not None and name not in header:
            names = ", ".join(header)
            option = "--column" if name == options.column else "--id-column"
            return Problem(
                shown,
                start,
                "missing-column",
                f"the header has no column {name!r} (columns: {names}); choose one with {option}; "
                "no row of this file was read",
            )
    return header.index(options.column), None if options.id_column is None else header.index(
        options.id_column
    )


def _iter_csv(path: str, options: _Options) -> Iterator[Document | Problem | _Blank]:
    shown = _display(path)
    header: list[str] | None = None
    cols: tuple[int, int | None] = (-1, None)
    for item in csv_rows(path, options.encoding, options.max_bytes, options.delimiter):
        if item is None:
            yield _Blank()
        elif isinstance(item, Problem):
            yield item
        elif header is None:
            start, header = item
            found = _header_columns(shown, start, header, options)
            if isinstance(found, Problem):
                yield found
                return
            cols = found
        else:
            yield _csv_row(shown, item[0], item[1], header, cols, options)


# ----- Parquet ----------------------------------------------------------------------------


def _parquet_problem(shown: str, row: int | None, err: Exception) -> Problem:
    where = f"reading stopped at row {row}; the rows before it were read" if row else "no row was read"
    return Problem(shown, row, "damaged", f"cannot be read as Parquet ({err}); {where}")


def _parquet_row(shown: str, row: int, text: object, own: object, options: _Options) -> Document | Problem:
    """One Parquet row as a Document, or the Problem that keeps it out (``own``: its id column's value)."""
    if not isinstance(text, str):
        return Problem(
            shown, row, "not-text", f"column {options.column!r} holds {_describe_json(text)}, not a string"
        )
    doc_id = None
    if options.id_column is not None:
        if own is None:
            return Problem(
                shown, row, "missing-id", f"column {options.id_column!r} is null; give every row an id"
            )
        doc_id, error = _own_id(own, f"column {options.id_column!r}", "id-column")
        if error is not None:
            return Problem(shown, row, "bad-id", error)
    return _sized_record(shown, row, text, options.max_bytes, doc_id)


def _iter_parquet(path: str, options: _Options) -> Iterator[Document | Problem]:
    """The rows of a Parquet file, read in record batches of :data:`PARQUET_BATCH_ROWS`."""
    shown = _display(path)
    pq = optional_module("pyarrow.parquet", "pyarrow", "reading Parquet files")
    errors = (sys.modules["pyarrow"].ArrowException, OSError, ValueError)  # what a damaged file raises
    try:
        f, _ = _open_regular(path)
    except (OSError, _NotRegular) as err:
        yield _open_problem(shown, err)
        return
    row = 0
    with f:
        try:
            parquet = pq.ParquetFile(f)
            names = parquet.schema_arrow.names
        except errors as err:
            yield _parquet_problem(shown, None, err)
            return
        for name in (options.column, options.id_column):
            if name is not None and name not in names:
                option = "--column" if name == options.column else "--id-column"
                yield Problem(
                    shown,
                    None,
                    "missing-parquet-column",
                    f"no column {name!r} (columns: {', '.join(names)}); choose one with {option}; "
                    "no row of this file was read",
                )
                return
        columns = [options.column] + ([options.id_column] if options.id_column is not None else [])
        try:
            for batch in parquet.iter_batches(batch_size=PARQUET_BATCH_ROWS, columns=columns):
                texts = batch.column(0).to_pylist()
                ids = batch.column(1).to_pylist() if options.id_column is not None else [None] * len(texts)
                for text, own in zip(texts, ids):
                    row += 1
                    yield _parquet_row(shown, row, text, own, options)
        except errors as err:
            yield _parquet_problem(shown, row + 1, err)


def iter_records(
    path: str | os.PathLike,
    *,
    fmt: str = "auto",
    field: str = "text",
    column: str = "text",
    encoding: str = "utf-8",
    max_bytes: int = DEFAULT_MAX_BYTES,
    delimiter: str | None = None,
    id_field: str | None = None,
    id_column: str | None = None,
) -> Iterator[Document | Problem]:
    """Yield a :class:`Document` or a :class:`Problem` for every record of one input, in order.

    Blank lines and non-``.txt`` files in folders are passed over here;
    :func:`read_inputs` counts them, and checks that no two documents share
    an id.

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with open(os.path.join(tmp, "a.csv"), "w", encoding="utf-8") as f:
    ...         _ = f.write("id,text\\n1,heavy rain\\n2\\n")
    ...     [type(r).__name__ for r in iter_records(os.path.join(tmp, "a.csv"))]
    ['Document', 'Problem']
    """
    options = _options(field, column, encoding, max_bytes, delimiter, id_field, id_column)
    for item in _iter_raw(path, fmt, options, _Seen()):
        if isinstance(item, (Document, Problem)):
            yield item


def _options(
    field: str,
    column: str,
    encoding: str,
    max_bytes: int,
    delimiter: str | None,
    id_field: str | None,
    id_column: str | None,
) -> _Options:
    """The reading options, checked."""
    _check_encoding(encoding)
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
        raise InputError(f"max_bytes must be a non-negative int (0 for no limit), got {max_bytes!r}")
    for name, value in [("id_field", id_field), ("id_column", id_column)]:
        if value is not None and (not isinstance(value, str) or not value):
            raise InputError(f"{name} must be a non-empty name, got {value!r}")
    return _Options(field, column, encoding, max_bytes, delimiter, id_field, id_column)


def _iter_raw(
    path: str | os.PathLike, fmt: str, options: _Options, seen: _Seen
) -> Iterator[Document | Problem | _Blank | _OtherFile]:
    path = os.fspath(path)
    if not os.path.lexists(path):
        raise InputError(f"no such file or folder: {_display(path)}")
    kind = detect_format(path, fmt)
    shown = _display(path)
    if os.path.isdir(path):
        if kind != "txt":
            raise InputError(f"{shown} is a folder; only folders of .txt files can be read")
        yield from _iter_input_folder(path, shown, options.encoding, options.max_bytes, seen)
        return
    again = seen.file(os.path.realpath(path), shown)
    if again:
        yield again
    elif kind == "txt":
        yield _read_txt_file(path, shown, options.encoding, options.max_bytes)
    elif kind == "jsonl":
        yield from _iter_jsonl(path, options)
    elif kind == "csv":
        yield from _iter_csv(path, options)
    else:
        yield from _iter_parquet(path, options)


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


def check_inputs(paths: Sequence[str | os.PathLike]) -> list[str]:
    if isinstance(paths, (str, bytes, os.PathLike)):
        raise InputError("inputs must be a list of paths; wrap a single path in a list")
    if not paths:
        raise InputError(
            "no inputs given; name at least one folder of .txt files, .jsonl, .csv or .parquet file"
        )
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


def _check_id_options(kinds: dict[str, str], id_field: str | None, id_column: str | None) -> None:
    """Refuse an id option that no input can use: it is a mistake, not a default."""
    if id_field is not None and "jsonl" not in kinds.values():
        raise InputError("--id-field names a field of JSONL records, but no input is a JSONL file")
    if id_column is not None and not {"csv", "parquet"} & set(kinds.values()):
        raise InputError("--id-column names a CSV or Parquet column, but no input is a CSV or Parquet file")


def _duplicate_id(doc: Document, first: Document) -> Problem:
    return Problem(
        doc.source,
        doc.line,
        "duplicate-id",
        f"the id {doc.id!r} was given already to {first.id if first.line is None else _where(first)}; "
        "ids must be unique, so this record was not read (give it its own id)",
    )


def _where(doc: Document) -> str:
    return doc.source if doc.line is None else f"{doc.source}:{doc.line}"


def read_inputs(
    paths: Sequence[str | os.PathLike],
    *,
    fmt: str = "auto",
    field: str = "text",
    column: str = "text",
    encoding: str = "utf-8",
    max_bytes: int = DEFAULT_MAX_BYTES,
    delimiter: str | None = None,
    id_field: str | None = None,
    id_column: str | None = None,
    progress: Iterable | None = None,
) -> ReadReport:
    """Read every input into one :class:`ReadReport`, in the order given.

    Raises :class:`InputError` before reading anything when an input does
    not exist, is given twice, has a format that cannot be told or needs a
    package that is missing, or when an id option applies to no input.
    Per-record trouble never raises: it becomes a :class:`Problem`; so does
    a document whose id an earlier one has (``duplicate-id``).

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
    checked = check_inputs(paths)
    options = _options(field, column, encoding, max_bytes, delimiter, id_field, id_column)
    # fail on an unknown format or a missing package before anything is read
    kinds = {_display(p): detect_format(p, fmt) for p in checked}
    _check_id_options(kinds, id_field, id_column)
    report = ReadReport()
    report.sources = {_display(p): InputFile(p, kinds[_display(p)]) for p in checked if not os.path.isdir(p)}
    first_with: dict[str, Document] = {}  # each id, and the document that has it
    read_already = _Seen()
    for p in checked:
        items: Iterable = _iter_raw(p, fmt, options, read_already)
        if progress is not None:
            items = progress(items)
        for item in items:
            if isinstance(item, Document):
                if item.id in first_with:
                    report.problems.append(_duplicate_id(item, first_with[item.id]))
                    continue
                first_with[item.id] = item
                report.documents.append(item)
            elif isinstance(item, Problem):
                report.problems.append(item)
            elif isinstance(item, _Blank):
                report.blank_lines += 1
            else:
                report.other_files += 1
    report.input_files = set(read_already.files)
    return report
