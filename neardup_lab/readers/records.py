"""What reading gives, its options, and what every reader does with a record."""

from __future__ import annotations

import codecs
import dataclasses
import hashlib
import sys
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from numbers import Number
from typing import NamedTuple

from ..support import limits

#: The reasons an input is skipped, each with the short label summaries print.
REASONS = {
    "unreadable": "unreadable file",
    "unreadable-folder": "unreadable folder",
    "not-regular": "not a regular file",
    "duplicate-input": "input read already",
    "link-loop": "folder link loop",
    "link": "link not followed",
    "link-escape": "link out of the folder",
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
    "repeated-parquet-column": "Parquet column named twice",
    "missing-id": "missing id",
    "bad-id": "unusable id",
    "duplicate-id": "duplicate id",
}
LIMIT_HINT = "raise the limit with --max-bytes (0 for none) if you mean it"


class InputError(ValueError):
    """An input cannot be used at all (missing path, unknown format, bad option): nothing is read."""


class InputChanged(InputError):
    """An input read again, to copy chosen records, is not what was read."""


@dataclass(frozen=True)
class Document:
    """A document: ``id``, ``text``, ``source``, the ``line`` (or row) it starts on, its fingerprint.

    >>> Document("a.txt", "heavy rain", "a.txt").id
    'a.txt'
    """

    id: str
    text: str
    source: str
    line: int | None = None
    fingerprint: bytes | None = field(default=None, repr=False)


@dataclass(frozen=True)
class Problem:
    """An input skipped: where (``line`` None: the whole file), why (a key of ``REASONS``), what to do.

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

    def to_dict(self) -> dict[str, object]:
        """The problem as plain data, for JSON output.

        >>> Problem("a.txt", None, "binary", "NUL byte").to_dict()["reason"]
        'binary'
        """
        return asdict(self)


class InputFile(NamedTuple):
    """A file named as an input: the ``path`` it was opened by and its ``format``."""

    path: str
    format: str


@dataclass
class ReadReport:
    """Everything read from a list of inputs: documents, problems, counts, files read, options."""

    documents: list[Document] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    blank_lines: int = 0
    other_files: int = 0
    input_files: set[str] = field(default_factory=set)
    sources: dict[str, InputFile] = field(default_factory=dict)  # files named as inputs, not in folders
    options: ReadOptions = field(default_factory=lambda: ReadOptions())

    @property
    def skipped(self) -> Counter[str]:
        """Number of problems per reason.

        >>> ReadReport(problems=[Problem("a", 1, "binary", "")]).skipped
        Counter({'binary': 1})
        """
        return Counter(p.reason for p in self.problems)


@dataclass(frozen=True)
class BlankLine:
    """A blank line between JSONL records or CSV rows: no record, only counted."""


@dataclass(frozen=True)
class OtherFile:
    """A file in a folder that does not end in .txt: passed over, only counted."""

    path: str


def check_encoding(encoding: object) -> str:
    """``encoding`` if ASCII bytes are ASCII in it (lines are found byte by byte); else InputError.

    >>> check_encoding("utf-8-sig"), check_encoding("latin-1")
    ('utf-8-sig', 'latin-1')
    >>> check_encoding("rot13")
    Traceback (most recent call last):
        ...
    neardup_lab.readers.records.InputError: 'rot13' is not a text encoding; try utf-8, latin-1 or cp1252
    """
    if not isinstance(encoding, str):
        raise InputError(f"encoding must be a name such as 'utf-8', got {type(encoding).__name__}")
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise InputError(f"unknown encoding {encoding!r}; try utf-8, latin-1 or cp1252") from None
    try:  # rot13 and base64 are codecs, not text encodings
        "a".encode(encoding)
    except (LookupError, UnicodeError):
        raise InputError(f"{encoding!r} is not a text encoding; try utf-8, latin-1 or cp1252") from None
    try:
        ascii_compatible = _ASCII.decode(encoding, "surrogateescape") == _ASCII.decode("ascii")
    except (LookupError, UnicodeError, ValueError):
        ascii_compatible = False
    if not ascii_compatible:
        raise InputError(
            f"encoding {encoding!r} is not ASCII-compatible, so lines cannot be found in it; "
            "convert the files to UTF-8 first"
        )
    return encoding


# Every ASCII byte, and an escape that escape-decoding codecs would change.
_ASCII = bytes(range(128)) + b"\\u00e9"


@dataclass(frozen=True)
class ReadOptions:
    """How records are read; checked when made, so a bad option stops a run before reading.

    >>> ReadOptions(encoding="utf-16")
    Traceback (most recent call last):
        ...
    neardup_lab.readers.records.InputError: encoding 'utf-16' is not ASCII-compatible, so lines \
cannot be found in it; convert the files to UTF-8 first
    """

    field: str = "text"
    column: str = "text"
    encoding: str = "utf-8"
    max_bytes: int = dataclasses.field(default_factory=lambda: limits.DEFAULT_MAX_BYTES)  # 0: no limit
    delimiter: str | None = None
    id_field: str | None = None
    id_column: str | None = None
    fingerprints: bool = False  # of each whole record (Parquet: every column is read)
    follow_links: bool = False  # in folders; never out of the folder given

    def __post_init__(self) -> None:
        check_encoding(self.encoding)
        if not isinstance(self.follow_links, bool):
            raise InputError(f"follow_links must be True or False, got {self.follow_links!r}")
        max_bytes = self.max_bytes
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or not 0 <= max_bytes <= sys.maxsize:
            raise InputError(
                f"max_bytes must be an int from 0 (no limit) to {sys.maxsize}, got {max_bytes!r}"
            )
        for name, value in [("id_field", self.id_field), ("id_column", self.id_column)]:
            if value is not None and (not isinstance(value, str) or not value):
                raise InputError(f"{name} must be a non-empty name, got {value!r}")

    def missing_column(self, names: list[str]) -> str | None:
        """Why a table with columns ``names`` cannot be read (no text or id column), or None.

        >>> print(ReadOptions(id_column="id").missing_column(["text"]))
        no column 'id' (columns: text); choose one with --id-column; no row of this file was read
        """
        for name, option in [(self.column, "--column"), (self.id_column, "--id-column")]:
            if name is not None and name not in names:
                return (
                    f"no column {name!r} (columns: {', '.join(names)}); choose one with {option}; "
                    "no row of this file was read"
                )
        return None


def too_large(source: str, line: int | None, size: int, max_bytes: int) -> Problem | None:
    """The ``too-large`` problem of ``size`` bytes, or None within ``max_bytes`` (0: no limit).

    >>> too_large("a.txt", None, 5, 0), too_large("a.txt", None, 5, 4).reason
    (None, 'too-large')
    """
    if max_bytes <= 0 or size <= max_bytes:
        return None
    return Problem(source, line, "too-large", f"{size} bytes is over the limit of {max_bytes}; {LIMIT_HINT}")


def describe(value: object) -> str:
    """A JSON (or Parquet) value's kind, for a message.

    >>> describe([1]), describe(None), describe(2.5), describe(b"\\x00")
    ('an array', 'null', 'a number', 'binary data (bytes, not text)')
    """
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    if type(value) in names:
        return names[type(value)]
    if isinstance(value, (bytes, bytearray)):  # a Parquet binary column
        return "binary data (bytes, not text)"
    if isinstance(value, Number):
        return "a number"
    return f"a value of type {type(value).__name__}"


def own_id(value: object, what: str, option: str) -> tuple[str | None, str | None]:
    """A record's own id from ``value`` (a non-empty string or a whole number) and None, or None and why.

    >>> own_id(17, "field 'id'", "id-field"), own_id(True, "field 'id'", "id-field")[0]
    (('17', None), None)
    """
    if isinstance(value, str) and value:
        return value, None
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value), None
    held = "an empty string" if value == "" else describe(value)
    return None, f"{what} holds {held}; an id is a non-empty string or a whole number (--{option})"


def record_document(
    source: str, line: int, text: str, max_bytes: int, doc_id: str | None, whole: object = None
) -> Document | Problem:
    """The record at ``source:line`` as a Document (id ``doc_id``, else ``source:line``), or too-large.

    >>> record_document("a.jsonl", 3, "heavy rain", 100, None).id
    'a.jsonl:3'
    >>> record_document("a.jsonl", 3, "é" * 60, 100, None).message[:35]
    '120 bytes is over the limit of 100;'
    """
    if max_bytes > 0 and 4 * len(text) > max_bytes:  # UTF-8: at most 4 bytes a character
        problem = too_large(source, line, len(text.encode("utf-8", "surrogatepass")), max_bytes)
        if problem:
            return problem
    doc_id = f"{source}:{line}" if doc_id is None else doc_id
    return Document(doc_id, text, source, line, None if whole is None else fingerprint(whole))


def fingerprint(record: object) -> bytes:
    """16 bytes of the SHA-256 of a whole record: its bytes, or the ``repr`` of its fields.

    >>> fingerprint(["a,b"]) == fingerprint(["a", "b"])
    False
    """
    data = record if isinstance(record, bytes) else repr(record).encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).digest()[:16]


class Again:
    """The records of one input read again: each must be found and be the Document read first.

    >>> again = Again("a.jsonl", {3: Document("x", "rain", "a.jsonl", 3)}, "line")
    >>> again.wants(3)
    True
    >>> again.check(3, Document("y", "rain", "a.jsonl", 3))
    Traceback (most recent call last):
        ...
    neardup_lab.readers.records.InputChanged: a.jsonl changed while this run read it (line 3 is \
not the record read)
    """

    def __init__(self, source: str, wanted: Mapping[int, Document], unit: str) -> None:
        self.source, self.wanted, self.unit = source, wanted, unit
        self.left = set(wanted)

    def wants(self, number: int) -> bool:
        return number in self.left

    def check(self, number: int, again: object) -> None:
        """Tick record ``number`` off if ``again`` (how it reads now) is the Document read first."""
        if again != self.wanted[number]:
            raise self.changed(f"{self.unit} {number} is not the record read")
        self.left.discard(number)

    def finish(self) -> None:
        """Raise :class:`InputChanged` unless every wanted record was found."""
        if self.left:
            more = f" and {len(self.left) - 1} more" if len(self.left) > 1 else ""
            raise self.changed(f"{self.unit} {min(self.left)}{more} read before cannot be found again")

    def changed(self, what: str) -> InputChanged:
        return InputChanged(f"{self.source} changed while this run read it ({what})")
