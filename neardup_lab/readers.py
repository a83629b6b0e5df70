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
  file cannot exhaust memory. ``max_bytes=0`` lifts the limit.
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
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

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
    """Everything read from a list of inputs: documents, problems, and counts."""

    documents: list[Document] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    blank_lines: int = 0
    other_files: int = 0

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


def _read_txt_file(path: str, shown: str, encoding: str, max_bytes: int) -> Document | Problem:
    try:
        size = os.path.getsize(path)
        if _too_large(size, max_bytes):
            return Problem(
                shown, None, "too-large", f"{size} bytes is over the limit of {max_bytes}; {_limit_hint()}"
            )
        with open(path, "rb") as f:
            data = f.read()
    except OSError as err:
        return Problem(shown, None, "unreadable", f"cannot be read ({err.strerror or err})")
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


def _iter_txt_folder(folder: str, encoding: str, max_bytes: int) -> Iterator[Document | Problem | _OtherFile]:
    base = _display(folder)
    found: list[str] = []
    for root, dirs, files in os.walk(folder, onerror=None):
        dirs.sort()
        for name in files:
            found.append(os.path.relpath(os.path.join(root, name), folder))
    for rel in sorted(found, key=lambda p: Path(p).as_posix()):
        path = os.path.join(folder, rel)
        shown = f"{base}/{Path(rel).as_posix()}" if base != "." else Path(rel).as_posix()
        if not rel.lower().endswith(".txt"):
            yield _OtherFile(shown)
            continue
        yield _read_txt_file(path, shown, encoding, max_bytes)


def _describe_json(value: object) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def _sized_record(shown: str, line: int, text: str, max_bytes: int) -> Document | Problem:
    """The record at ``shown:line`` as a Document, or a Problem when it is over ``max_bytes``."""
    size = _text_size_over(text, max_bytes)
    if size is not None:
        return Problem(
            shown, line, "too-large", f"{size} bytes is over the limit of {max_bytes}; {_limit_hint()}"
        )
    return Document(f"{shown}:{line}", text, shown, line)


def _iter_jsonl(
    path: str, field_name: str, encoding: str, max_bytes: int
) -> Iterator[Document | Problem | _Blank]:
    shown = _display(path)
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed in the finally below, while yielding
    except OSError as err:
        yield Problem(shown, None, "unreadable", f"cannot be read ({err.strerror or err})")
        return
    try:
        sniffed = _sniff(f.peek(_SNIFF_BYTES)[:_SNIFF_BYTES])
        if sniffed:
            yield Problem(shown, None, *sniffed)
            return
        for number, raw in enumerate(f, start=1):
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
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                yield Problem(shown, number, "bad-json", f"{err.msg} (column {err.colno})")
                continue
            if not isinstance(record, dict):
                yield Problem(
                    shown, number, "bad-json", f"the line holds {_describe_json(record)}, not a JSON object"
                )
                continue
            if field_name not in record:
                keys = ", ".join(sorted(map(str, record))) or "none"
                yield Problem(
                    shown,
                    number,
                    "missing-field",
                    f"no field {field_name!r} (fields: {keys}); choose the field with --field",
                )
                continue
            text = record[field_name]
            if not isinstance(text, str):
                yield Problem(
                    shown,
                    number,
                    "not-text",
                    f"field {field_name!r} holds {_describe_json(text)}, not a string",
                )
                continue
            yield _sized_record(shown, number, text, max_bytes)
    except OSError as err:
        yield Problem(shown, None, "unreadable", f"reading stopped part way ({err.strerror or err})")
    finally:
        f.close()


def _fields(n: int) -> str:
    return f"{n} field" if n == 1 else f"{n} fields"


def _has_escaped_bytes(text: str) -> bool:
    """True when ``text`` holds bytes kept by the ``surrogateescape`` error handler."""
    return any("\udc80" <= ch <= "\udcff" for ch in text) if not text.isascii() else False


def _iter_csv(
    path: str, column: str, encoding: str, max_bytes: int, delimiter: str | None
) -> Iterator[Document | Problem | _Blank]:
    shown = _display(path)
    if delimiter is None:
        delimiter = "\t" if Path(path).suffix.lower() == ".tsv" else ","
    try:
        raw = open(path, "rb")  # noqa: SIM115 - closed in the finally below, while yielding
    except OSError as err:
        yield Problem(shown, None, "unreadable", f"cannot be read ({err.strerror or err})")
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
        reader = csv.reader(text, delimiter=delimiter)
        header: list[str] | None = None
        where = 0
        col = -1
        while True:
            start = reader.line_num + 1
            try:
                row = next(reader)
            except StopIteration:
                break
            except csv.Error as err:
                yield Problem(
                    shown, start, "bad-csv", f"{err}; reading of this file stopped here, fix the quoting"
                )
                return
            if not row:
                yield _Blank()
                continue
            if header is None:
                header, where = row, start
                if column not in header:
                    names = ", ".join(header)
                    yield Problem(
                        shown,
                        where,
                        "missing-column",
                        f"the header has no column {column!r} (columns: {names}); choose one with --column; "
                        "no row of this file was read",
                    )
                    return
                col = header.index(column)
                continue
            if col >= len(row):
                yield Problem(
                    shown,
                    start,
                    "missing-column",
                    f"the row has {_fields(len(row))}, so no column {column!r} "
                    f"(the header has {len(header)})",
                )
                continue
            if len(row) != len(header):
                yield Problem(
                    shown,
                    start,
                    "bad-csv",
                    f"the row has {_fields(len(row))} but the header has {len(header)}; "
                    "quote fields that contain the delimiter",
                )
                continue
            value = row[col]
            if _has_escaped_bytes(value):
                yield Problem(
                    shown,
                    start,
                    "undecodable",
                    f"column {column!r} holds bytes that do not decode as {encoding}; "
                    "save the file as UTF-8 or pass --encoding",
                )
                continue
            yield _sized_record(shown, start, value, max_bytes)
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
    for item in _iter_raw(path, fmt, field, column, encoding, max_bytes, delimiter):
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
) -> Iterator[Document | Problem | _Blank | _OtherFile]:
    path = os.fspath(path)
    _check_encoding(encoding)
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
        raise InputError(f"max_bytes must be a non-negative int (0 for no limit), got {max_bytes!r}")
    if not os.path.lexists(path):
        raise InputError(f"no such file or folder: {_display(path)}")
    kind = detect_format(path, fmt)
    if os.path.isdir(path):
        if kind != "txt":
            raise InputError(f"{_display(path)} is a folder; only folders of .txt files can be read")
        yield from _iter_txt_folder(path, encoding, max_bytes)
    elif kind == "txt":
        yield _read_txt_file(path, _display(path), encoding, max_bytes)
    elif kind == "jsonl":
        yield from _iter_jsonl(path, field, encoding, max_bytes)
    else:
        yield from _iter_csv(path, column, encoding, max_bytes, delimiter)


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
    seen: set[str] = set()
    for p in checked:
        items: Iterable = _iter_raw(p, fmt, field, column, encoding, max_bytes, delimiter)
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
    return report
