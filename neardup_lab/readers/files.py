"""Input files: their format, opening them safely, decompressing in bounded steps, whole-file problems."""

from __future__ import annotations

import codecs
import gzip
import importlib
import io
import os
import stat
import sys
import zlib
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import IO, TYPE_CHECKING, BinaryIO, TypeVar

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

from ..support import limits
from .records import InputChanged, InputError, Problem

#: Input kinds, and the file name endings that select each.
FORMATS = {
    "txt": (".txt",),
    "jsonl": (".jsonl", ".ndjson"),
    "csv": (".csv", ".tsv"),
    "parquet": (".parquet", ".pq"),
}
#: Endings of compressed files, with the module that reads each and its package.
COMPRESSIONS = {".gz": ("gzip", "the standard library"), ".zst": ("zstandard", "zstandard")}
#: Byte-order marks of encodings whose lines cannot be found byte by byte (UTF-32 first: it starts alike).
WIDE_BOMS = {codecs.BOM_UTF32_LE: "UTF-32", codecs.BOM_UTF32_BE: "UTF-32"}
WIDE_BOMS |= {codecs.BOM_UTF16_LE: "UTF-16", codecs.BOM_UTF16_BE: "UTF-16"}
T = TypeVar("T")


def display(path: str | os.PathLike[str]) -> str:
    """The path as given, with forward slashes; ``..`` stays (after a link it leads elsewhere).

    >>> display("./news//a.txt"), display("data/link/..")
    ('news/a.txt', 'data/link/..')
    """
    return Path(path).as_posix()


def compression_of(path: str | os.PathLike) -> str | None:
    """The compression a file name announces (a key of ``COMPRESSIONS``), or None.

    >>> compression_of("day1.jsonl.GZ"), compression_of("day1.jsonl.zst"), compression_of("day1.jsonl")
    ('.gz', '.zst', None)
    """
    suffix = Path(path).suffix.lower()
    return suffix if suffix in COMPRESSIONS else None


def inner_suffix(path: str | os.PathLike) -> str:
    """The ending of a file name before any compression ending, in lower case.

    >>> inner_suffix("Day1.TSV.gz"), inner_suffix("a.csv")
    ('.tsv', '.csv')
    """
    name = Path(path).name.lower()
    compressed = compression_of(name)
    return Path(name[: -len(compressed)] if compressed else name).suffix


def optional_module(module: str, package: str, purpose: str) -> ModuleType:
    """Import ``module``, or raise :class:`~neardup_lab.readers.InputError` naming what to install.

    >>> optional_module("no_such_module", "nosuch", "reading .xyz files")
    Traceback (most recent call last):
        ...
    neardup_lab.readers.records.InputError: reading .xyz files needs the nosuch package, which is not \
installed; pip install nosuch, or pip install 'neardup-lab[formats]' for every optional format
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise InputError(
            f"{purpose} needs the {package} package, which is not installed; pip install {package}, "
            "or pip install 'neardup-lab[formats]' for every optional format"
        ) from None


def detect_format(path: str | os.PathLike, fmt: str = "auto") -> str:
    """Which reader an input needs: ``fmt``, else by the name's ending; a missing package fails here.

    >>> detect_format("day1.jsonl"), detect_format("notes.TXT"), detect_format("x.dat", "csv")
    ('jsonl', 'txt', 'csv')
    >>> detect_format("crawl.jsonl.gz"), detect_format("shard.tsv")
    ('jsonl', 'csv')
    """
    if fmt != "auto" and fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}; choose one of auto, {', '.join(FORMATS)}")
    if os.path.isdir(path):
        return "txt" if fmt == "auto" else fmt
    compressed, suffix = compression_of(path), inner_suffix(path)
    kind = fmt if fmt != "auto" else next((k for k, ends in FORMATS.items() if suffix in ends), None)
    if kind is None:
        known = ", ".join(s for suffixes in FORMATS.values() for s in suffixes)
        raise InputError(
            f"cannot tell the format of {display(path)} from its name; inputs are folders of .txt files "
            f"or files ending in {known} (or these followed by .gz or .zst); pass --format to say which"
        )
    if compressed and kind == "parquet":
        raise InputError(
            f"{display(path)} is a compressed Parquet file; Parquet compresses inside the file, "
            "so decompress it first"
        )
    if compressed:
        optional_module(*COMPRESSIONS[compressed], f"reading {compressed} files")
    if kind == "parquet":
        optional_module("pyarrow.parquet", "pyarrow", "reading Parquet files")
    return kind


def check_inputs(paths: Sequence[str | os.PathLike]) -> list[str]:
    """The input paths as strings, each existing and named once.

    >>> check_inputs([".", "./"])
    Traceback (most recent call last):
        ...
    neardup_lab.readers.records.InputError: input . is given twice; its documents would get the same ids
    """
    if isinstance(paths, (str, bytes, os.PathLike)):
        raise InputError("inputs must be a list of paths; wrap a single path in a list")
    if not paths:
        raise InputError(
            "no inputs given; name at least one folder of .txt files, .jsonl, .csv or .parquet file"
        )
    shown: set[str] = set()
    for p in paths:
        if display(p) in shown:
            raise InputError(f"input {display(p)} is given twice; its documents would get the same ids")
        shown.add(display(p))
    for p in paths:
        if not os.path.lexists(p):
            raise InputError(f"no such file or folder: {display(p)}")
    return [os.fspath(p) for p in paths]


# ----- opening one file, safely --------------------------------------------------------

_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_OPEN_FLAGS = os.O_RDONLY | _O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
_FILE_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class NotRegular(ValueError):
    """The path names no regular file; the message says what: ``a socket``."""


def check_regular(mode: int) -> None:
    """Raise :class:`NotRegular` unless ``mode`` (``st_mode``) is a regular file's.

    >>> check_regular(os.stat(".").st_mode)
    Traceback (most recent call last):
        ...
    neardup_lab.readers.files.NotRegular: a folder
    """
    if not stat.S_ISREG(mode):
        raise NotRegular(next((name for test, name in _FILE_KINDS if test(mode)), "a special file"))


def open_regular(path: str, *, follow_links: bool = True) -> tuple[io.BufferedReader, int]:
    """Open ``path`` if it is a regular file (or a link to one): it and its size. Checked before and
    after an open that does not wait (a pipe slipped in cannot hang a run).

    >>> open_regular(".")
    Traceback (most recent call last):
        ...
    neardup_lab.readers.files.NotRegular: a folder
    """
    check_regular(os.stat(path, follow_symlinks=follow_links).st_mode)
    fd = os.open(path, _OPEN_FLAGS | (0 if follow_links else _O_NOFOLLOW))
    try:
        info = os.fstat(fd)
        check_regular(info.st_mode)
        if _O_NONBLOCK:
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb"), info.st_size
    except BaseException:
        os.close(fd)
        raise


class _ZstdFrames(io.RawIOBase):
    """A zstandard file's frames decompressed in bounded steps; a cut-off frame raises EOFError."""

    def __init__(self, f: BinaryIO, zstandard: ModuleType) -> None:
        self._f, self._zstd = f, zstandard
        self._frame = zstandard.ZstdDecompressor().decompressobj()
        self._in_frame = False
        self._pending = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        while not self._pending:
            chunk = self._f.read(limits.DECOMPRESS_STEP)
            if not chunk:
                if self._in_frame:
                    raise EOFError("the zstandard data ends inside a frame (a cut-off file?)")
                return 0
            out = []
            while chunk:
                out.append(self._frame.decompress(chunk))
                self._in_frame, chunk = not self._frame.eof, b""
                if self._frame.eof:  # the next frame starts in the unused bytes
                    chunk = self._frame.unused_data
                    self._frame = self._zstd.ZstdDecompressor().decompressobj()
            self._pending = memoryview(b"".join(out))
        into = memoryview(buffer).cast("B")
        n = min(len(into), len(self._pending))
        into[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n


class _Decompressed(io.BufferedReader):
    """A decompressed stream that also closes the file under it."""

    def __init__(self, stream: io.RawIOBase | gzip.GzipFile, file: BinaryIO) -> None:
        super().__init__(stream, buffer_size=1 << 16)
        self._file = file

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._file.close()


def read_at_most(f: IO[bytes], limit: int) -> bytes:
    """Up to ``limit`` bytes of ``f`` (0: all), read in steps (memory follows the bytes there are).

    >>> read_at_most(io.BytesIO(b"heavy rain"), 5), read_at_most(io.BytesIO(b"heavy rain"), 10**12)
    (b'heavy', b'heavy rain')
    """
    if not limit:
        return f.read()
    parts, left = [], limit
    while left > 0 and (chunk := f.read(min(left, limits.READ_STEP))):
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def read_errors() -> tuple[type[BaseException], ...]:
    """What reading a compressed file may raise when its data is damaged or cut off.

    >>> EOFError in read_errors()
    True
    """
    zstandard = sys.modules.get("zstandard")
    return (EOFError, zlib.error, gzip.BadGzipFile) + ((zstandard.ZstdError,) if zstandard else ())


def open_input(
    path: str | os.PathLike[str], *, follow_links: bool = True
) -> tuple[io.BufferedReader, int | None]:
    """Open a regular input file, decompressed as its name says: it and its size (None if compressed).

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
    f, size = open_regular(path, follow_links=follow_links)
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


# ----- problems of a whole file ----------------------------------------------------------


def sniff(head: bytes) -> tuple[str, str] | None:
    """A whole-file problem the first bytes show, as (reason, message), or None.

    >>> sniff(b"heavy rain"), sniff(b"\\x89PNG\\x00")[0], sniff(b"\\xff\\xfeh\\x00")[0]
    (None, 'binary', 'undecodable')
    """
    for bom, name in WIDE_BOMS.items():
        if head.startswith(bom):
            return "undecodable", f"starts with a {name} byte-order mark; convert the file to UTF-8"
    if b"\x00" in head[: limits.SNIFF_BYTES]:
        return "binary", "contains NUL bytes, so it is not a text file"
    return None


def open_problem(source: str, err: OSError | NotRegular) -> Problem:
    """The problem of an input that could not be opened.

    >>> open_problem("a.txt", NotRegular("a socket")).message
    'is a socket; only regular files are read'
    """
    if isinstance(err, NotRegular):
        return Problem(source, None, "not-regular", f"is {err}; only regular files are read")
    return Problem(source, None, "unreadable", f"cannot be read ({err.strerror or err})")


def damaged(source: str, line: int | None, err: BaseException) -> Problem:
    """The problem of compressed data damaged or cut off on ``line`` (None: before any line).

    >>> damaged("a.jsonl.gz", 3, EOFError("cut off")).message[-56:]
    'reading stopped at line 3; the lines before it were read'
    """
    where = f"reading stopped at line {line}; the lines before it were read" if line else "nothing was read"
    return Problem(source, line, "damaged", f"the compressed data is damaged or cut off ({err}); {where}")


def undecodable(
    source: str, data: bytes, err: UnicodeDecodeError, encoding: str, first_line: int = 1
) -> Problem:
    """The ``undecodable`` problem of ``data`` (starting on ``first_line``), on the line that fails.

    >>> err = UnicodeDecodeError("utf-8", b"ok\\n\\xff", 3, 4, "invalid start byte")
    >>> print(undecodable("a.txt", b"ok\\n\\xff", err, "utf-8"))
    a.txt:2: undecodable bytes: byte 0xff does not decode as utf-8; save the file as UTF-8 or pass --encoding
    """
    line = first_line + data.count(b"\n", 0, err.start)
    message = f"byte 0x{data[err.start : err.start + 1].hex()} does not decode as {encoding}"
    return Problem(source, line, "undecodable", f"{message}; save the file as UTF-8 or pass --encoding")


@dataclass
class Cursor:
    """The line a reader is at (0 before the first), for the message of damaged data."""

    line: int = 0


def read_guarded(
    path: str, read: Callable[[BinaryIO, Cursor], Iterator[T]], first_line: int = 0
) -> Generator[T | Problem, None, None]:
    """What ``read(f, cursor)`` yields from ``path``, then one Problem if opening or reading fails.

    >>> [p.reason for p in read_guarded("no-such.jsonl", lambda f, at: iter([f.read()]))]
    ['unreadable']
    """
    source = display(path)
    try:
        f, _ = open_input(path)
    except (OSError, NotRegular) as err:
        yield open_problem(source, err)
        return
    at = Cursor(first_line)
    try:
        sniffed = sniff(f.peek(limits.SNIFF_BYTES))
        if sniffed:
            yield Problem(source, None, *sniffed)
            return
        yield from read(f, at)
    except read_errors() as err:
        yield damaged(source, at.line or None, err)
    except OSError as err:
        yield Problem(source, None, "unreadable", f"reading stopped part way ({err.strerror or err})")
    finally:
        f.close()


def read_again(path: str, items: Callable[[BinaryIO], Iterator[T]]) -> Generator[T, None, None]:
    """``items(f)`` of ``path`` opened again; a file that fails raises :class:`~.records.InputChanged`.

    >>> list(read_again("no-such.jsonl", lambda f: iter([f.read()])))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
        ...
    neardup_lab.readers.records.InputChanged: no-such.jsonl cannot be read again ([Errno ...] No such \
file or directory: 'no-such.jsonl')
    """
    arrow = sys.modules.get("pyarrow")
    errors = (OSError, ValueError, *read_errors(), *((arrow.ArrowException,) if arrow else ()))
    try:
        f, _ = open_input(path)
        with f:
            yield from items(f)  # the caller's errors between items raise there, not here
    except errors as err:
        raise InputChanged(f"{display(path)} cannot be read again ({err})") from None
