"""CSV and TSV files: a header, then one document a row (split here: csv's field limit is process-wide)."""

from __future__ import annotations

import codecs
import contextlib
import io
import os
import re
import sys
from collections.abc import Generator, Iterator, Mapping
from typing import IO, BinaryIO

from ..support import limits
from .files import Cursor, display, inner_suffix, read_guarded
from .records import (
    LIMIT_HINT,
    Again,
    BlankLine,
    Document,
    InputError,
    Problem,
    ReadOptions,
    record_document,
)


def csv_delimiter(path: str | os.PathLike, delimiter: str | None = None) -> str:
    """The delimiter given (one character, no quote or line break), else a tab for ``.tsv``, or a comma.

    >>> csv_delimiter("a.tsv.gz"), csv_delimiter("a.csv"), csv_delimiter("a.csv", ";")
    ('\\t', ',', ';')
    """
    if delimiter is None:
        return "\t" if inner_suffix(path) == ".tsv" else ","
    if not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in '"\r\n':
        raise InputError(f"a delimiter is one character, not a quote or a line break; got {delimiter!r}")
    return delimiter


class _RecordTooLarge(Exception):
    """A CSV record grew past the record limit."""


_FIELD, _UNQUOTED, _QUOTED = range(3)  # where the splitter is: at a field's start, in one
# A quoted field's text up to its closing quote (one not doubled).
_QUOTED_TEXT = re.compile(r'(?:[^"]++|"")*+')


class _Records:
    """The records of a CSV text stream, each within ``limit`` characters; ``at`` counts the lines."""

    def __init__(self, text: IO[str], delimiter: str, limit: int, at: Cursor) -> None:
        self.text, self.delimiter, self.limit, self.at = text, delimiter, limit, at
        self.lines: list[str] = []  # the lines of the record read last
        self._again: list[str] = []  # lines to read again, last first

    def _line(self) -> str:
        if self._again:
            return self._again.pop()
        return self.text.readline(self.limit + 1) if self.limit else self.text.readline()

    def reread(self) -> None:
        """Read again the lines of the last record, from its second line."""
        self._again.extend(reversed(self.lines[1:]))
        self.at.line -= len(self.lines) - 1

    def next(self) -> tuple[list[str], bool] | None:
        """The next record as (fields, closed), ``[]`` if blank, None at the end; as ``csv.reader`` splits."""
        fields: list[str] = []
        piece: list[str] = []  # parts of the field being read
        state, size, delimiter = _FIELD, 0, self.delimiter
        self.lines = []
        while True:
            line = self._line()
            if not line:
                return (fields + ["".join(piece)], False) if self.lines else None
            size += len(line)
            if self.limit and size > self.limit:
                raise _RecordTooLarge
            self.at.line += 1
            self.lines.append(line)
            body = line.rstrip("\r\n")
            if len(self.lines) == 1 and '"' not in body:  # most rows: no quotes, one line
                return (body.split(delimiter) if body else []), True
            pos, end = 0, len(body)
            while True:
                if state == _QUOTED:
                    quoted = _QUOTED_TEXT.match(body, pos)  # always found (it matches no text too)
                    stop = quoted.end() if quoted else pos
                    piece.append(body[pos:stop].replace('""', '"'))
                    if stop == end:
                        piece.append(line[end:])
                        break
                    pos, state = stop + 1, _UNQUOTED
                elif pos == end:
                    fields.append("".join(piece))
                    return fields, True
                elif state == _FIELD and body[pos] == '"':
                    pos, state = pos + 1, _QUOTED
                else:
                    stop = body.find(delimiter, pos)
                    piece.append(body[pos : end if stop < 0 else stop])
                    if stop < 0:
                        pos, state = end, _UNQUOTED
                    else:
                        fields.append("".join(piece))
                        piece, pos, state = [], stop + 1, _FIELD


def csv_rows(
    path: str | os.PathLike,
    encoding: str = "utf-8",
    max_bytes: int | None = None,
    delimiter: str | None = None,
) -> Generator[tuple[int, list[str]] | Problem | None, None, None]:
    """The records of a CSV file, header first, as ``(start line, fields)``; None for a blank line.

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with open(os.path.join(tmp, "a.csv"), "w", encoding="utf-8") as f:
    ...         _ = f.write('id,text\\n1,"heavy\\nrain"\\n\\n2,sun\\n')
    ...     list(csv_rows(os.path.join(tmp, "a.csv")))
    [(1, ['id', 'text']), (2, ['1', 'heavy\\nrain']), None, (5, ['2', 'sun'])]
    """
    path = os.fspath(path)
    source, delimiter = display(path), csv_delimiter(path, delimiter)
    max_bytes = limits.DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
    # Characters: the text column and as much again (capped to a valid read size).
    limit = min(2 * max_bytes + 1_000_000, sys.maxsize - 1) if max_bytes else 0

    def read(raw: BinaryIO, at: Cursor) -> Iterator[tuple[int, list[str]] | Problem | None]:
        at.line = 1
        utf8 = codecs.lookup(encoding).name == "utf-8"
        text = io.TextIOWrapper(
            raw, encoding="utf-8-sig" if utf8 else encoding, errors="surrogateescape", newline=""
        )
        records = _Records(text, delimiter, limit, at)
        header_done = False
        while True:
            start = at.line
            try:
                record = records.next()
            except _RecordTooLarge:
                message = (
                    f"the record starting on this line is longer than {limit} characters, too long for a "
                    f"document of {max_bytes} bytes (a quote that is never closed?); reading of this file "
                    "stopped here"
                )
                yield Problem(source, start, "too-large", f"{message}; {LIMIT_HINT}")
                return
            if record is None:
                return
            row, closed = record
            if not closed:
                yield _unclosed_quote(source, start, at.line - 1, header_done)
                if not header_done:
                    return
                records.reread()
            elif not row:
                yield None
            else:
                header_done = True
                yield start, row

    return read_guarded(path, read)


def _unclosed_quote(source: str, start: int, end: int, header_done: bool) -> Problem:
    swallowed = f"lines {start}-{end}" if end > start else f"line {start}"
    then = (
        "the lines after it are read as rows of their own"
        if header_done
        else "it is in the header, so no row of this file was read"
    )
    message = f"a quote opened in this record is never closed, so it would swallow {swallowed}; {then}"
    return Problem(source, start, "bad-csv", f"{message}; close the quote")


def _row(source: str, start: int, row: list[str], header: list[str], opts: ReadOptions) -> Document | Problem:
    """One CSV data row under ``header`` as a Document, or the Problem that keeps it out."""
    width, col = len(header), header.index(opts.column)
    id_col = None if opts.id_column is None else header.index(opts.id_column)
    fields = f"{len(row)} field" if len(row) == 1 else f"{len(row)} fields"
    if max(col, -1 if id_col is None else id_col) >= len(row):
        missing = opts.column if col >= len(row) else opts.id_column
        message = f"the row has {fields}, so no column {missing!r} (the header has {width})"
        return Problem(source, start, "missing-column", message)
    if len(row) != width:
        message = f"the row has {fields} but the header has {width}; quote fields that contain the delimiter"
        return Problem(source, start, "bad-csv", message)
    doc_id = None if id_col is None else row[id_col]
    for name, cell in [(opts.column, row[col]), (opts.id_column, doc_id or "")]:
        if not cell.isascii() and any("\udc80" <= ch <= "\udcff" for ch in cell):  # surrogateescape
            message = (
                f"column {name!r} holds bytes that do not decode as {opts.encoding}; "
                "save the file as UTF-8 or pass --encoding"
            )
            return Problem(source, start, "undecodable", message)
    if doc_id == "":
        message = f"column {opts.id_column!r} is empty; give every row an id"
        return Problem(source, start, "missing-id", message)
    whole = row if opts.fingerprints else None
    return record_document(source, start, row[col], opts.max_bytes, doc_id, whole)


def read_csv(path: str, options: ReadOptions) -> Iterator[Document | Problem | BlankLine]:
    """Each data row of the CSV file at ``path`` as a Document, a Problem or a :class:`~.records.BlankLine`.

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with open(os.path.join(tmp, "a.csv"), "w", encoding="utf-8") as f:
    ...         _ = f.write("id,text\\n1,heavy rain\\n2\\n")
    ...     [type(r).__name__ for r in read_csv(os.path.join(tmp, "a.csv"), ReadOptions())]
    ['Document', 'Problem']
    """
    source, header = display(path), None
    for item in csv_rows(path, options.encoding, options.max_bytes, options.delimiter):
        if item is None:
            yield BlankLine()
        elif isinstance(item, Problem):
            yield item
        elif header is None:
            start, header = item
            missing = options.missing_column(header)
            if missing:
                yield Problem(source, start, "missing-column", f"the header has {missing}")
                return
        else:
            yield _row(source, *item, header, options)


def csv_header(path: str, options: ReadOptions) -> list[str] | None:
    """The header of the CSV file at ``path``, or None when it has none that can be read.

    >>> csv_header("no-such.csv", ReadOptions()) is None
    True
    """
    with contextlib.closing(csv_rows(path, options.encoding, options.max_bytes, options.delimiter)) as rows:
        first = next((item for item in rows if item is not None), None)
    return first[1] if isinstance(first, tuple) else None


def csv_again(path: str, wanted: Mapping[int, Document], options: ReadOptions) -> Iterator[list[str]]:
    """The rows ``wanted`` (by start line) of the CSV file ``path`` read again and checked, in order.

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "a.csv")
    ...     with open(path, "w", encoding="utf-8") as f:
    ...         _ = f.write("id,text\\n1,rain\\n2,sun\\n")
    ...     first = list(read_csv(path, ReadOptions()))
    ...     list(csv_again(path, {3: first[1]}, ReadOptions()))
    [['2', 'sun']]
    """
    again = Again(display(path), wanted, "line")
    with contextlib.closing(csv_rows(path, options.encoding, options.max_bytes, options.delimiter)) as rows:
        records = (item for item in rows if isinstance(item, tuple))
        header = next(records, (0, []))[1]
        readable = options.missing_column(header) is None
        for start, row in records:
            if again.wants(start):
                again.check(start, readable and _row(again.source, start, row, header, options))
                yield row
                if not again.left:
                    return
    again.finish()
