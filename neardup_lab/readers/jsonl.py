"""JSONL files: one JSON object a line, its text in a field, its id ``path:line`` or its own."""

from __future__ import annotations

import codecs
import contextlib
import json
import re
import sys
from collections.abc import Iterator, Mapping
from typing import BinaryIO

from ..support import limits
from .files import Cursor, display, read_again, read_guarded, undecodable
from .records import (
    LIMIT_HINT,
    Again,
    BlankLine,
    Document,
    Problem,
    ReadOptions,
    describe,
    own_id,
    record_document,
)


def _line_limit(max_bytes: int) -> int:
    """Longest JSONL line read, in bytes (0: no limit): a character may take six (``\\u0001``)."""
    return min(6 * max_bytes + 1_000_000, sys.maxsize - 1) if max_bytes else 0


def jsonl_lines(f: BinaryIO, max_bytes: int | None = None) -> Iterator[tuple[int, bytes | None]]:
    """Each line of a JSONL file as ``(number, bytes)``; one too long for ``max_bytes`` as ``(number, None)``.

    >>> import io
    >>> list(jsonl_lines(io.BytesIO(b'{"text": "a"}\\n\\n{"text": "b"}')))
    [(1, b'{"text": "a"}\\n'), (2, b'\\n'), (3, b'{"text": "b"}')]
    """
    limit = _line_limit(limits.DEFAULT_MAX_BYTES if max_bytes is None else max_bytes)
    for number, line in enumerate(iter(lambda: f.readline(limit + 1 if limit else -1), b""), 1):
        if limit and len(line) > limit and not line.endswith(b"\n"):
            while (rest := f.readline(limits.SKIP_STEP)) and not rest.endswith(b"\n"):
                pass
            yield number, None
        else:
            yield number, line.removeprefix(codecs.BOM_UTF8) if number == 1 else line


_ABSENT = object()


def record_value(record: dict, path: str) -> object:
    """The value at ``path`` (a key, or a dotted path) in a JSON object, or a private marker.

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


def nested_too_deeply(text: str) -> bool:
    """Whether arrays and objects nest more than ``limits.MAX_JSON_NESTING`` deep in JSON ``text``.

    >>> nested_too_deeply('{"a": [1, [2]], "b": "[[["}'), nested_too_deeply("[" * 101 + "]" * 101)
    (False, True)
    """
    if text.count("[") + text.count("{") <= limits.MAX_JSON_NESTING:
        return False  # the common case
    depth = 0
    for bracket in _BRACKET.findall(_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        if depth > limits.MAX_JSON_NESTING:
            return True
    return False


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(r"[\[\]{}]")


def _parse(line: str) -> tuple[object, str | None]:
    """The value on one JSONL line and None, or None and why it cannot be read."""
    if nested_too_deeply(line):
        levels = limits.MAX_JSON_NESTING
        return None, f"values are nested too deeply (over {levels} levels); flatten the record"
    try:
        return json.loads(line), None
    except json.JSONDecodeError as err:
        return None, f"{err.msg} (column {err.colno})"
    except RecursionError:
        return None, "values are nested too deeply to read; flatten the record"
    except ValueError as err:  # an integer with too many digits
        return None, f"cannot be read safely ({str(err).split(';')[0]}); store long numbers as strings"


def _record(source: str, number: int, line: str, raw: bytes, opts: ReadOptions) -> Document | Problem:
    """One non-blank JSONL line (``raw`` as read) as a Document, or the Problem that keeps it out."""
    record, error = _parse(line)
    if not isinstance(record, dict):
        error = error or f"the line holds {describe(record)}, not a JSON object"
        return Problem(source, number, "bad-json", error)
    text = record_value(record, opts.field)
    if text is _ABSENT:
        keys = ", ".join(sorted(map(str, record))) or "none"
        message = f"no field {opts.field!r} (fields: {keys}); choose the field with --field"
        return Problem(source, number, "missing-field", message)
    if not isinstance(text, str):
        message = f"field {opts.field!r} holds {describe(text)}, not a string"
        return Problem(source, number, "not-text", message)
    doc_id = None
    if opts.id_field is not None:
        value = record_value(record, opts.id_field)
        if value is _ABSENT:
            message = f"no field {opts.id_field!r}; give every record an id, or leave out --id-field"
            return Problem(source, number, "missing-id", message)
        doc_id, error = own_id(value, f"field {opts.id_field!r}", "id-field")
        if error is not None:
            return Problem(source, number, "bad-id", error)
    # A line feed a later append may add to the last line is no part of the record.
    whole = raw.removesuffix(b"\n") if opts.fingerprints else None
    return record_document(source, number, text, opts.max_bytes, doc_id, whole)


def _line(source: str, number: int, raw: bytes | None, opts: ReadOptions) -> Document | Problem | BlankLine:
    """Line ``number`` as :func:`jsonl_lines` gives it: a Document, a Problem or a BlankLine."""
    if raw is None:
        limit, most = _line_limit(opts.max_bytes), opts.max_bytes
        message = f"the line is longer than {limit} bytes, too long for a document of {most}"
        return Problem(source, number, "too-large", f"{message}; {LIMIT_HINT}")
    try:
        line = raw.rstrip(b"\r\n").decode(opts.encoding)
    except UnicodeDecodeError as err:
        return undecodable(source, raw, err, opts.encoding, first_line=number)
    return BlankLine() if not line.strip() else _record(source, number, line, raw, opts)


def read_jsonl(path: str, options: ReadOptions) -> Iterator[Document | Problem | BlankLine]:
    """Each line of the JSONL file at ``path`` as a Document, a Problem or a :class:`~.records.BlankLine`.

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with open(os.path.join(tmp, "a.jsonl"), "w", encoding="utf-8") as f:
    ...         _ = f.write('{"text": "heavy rain"}\\n\\n[1]\\n')
    ...     [type(r).__name__ for r in read_jsonl(os.path.join(tmp, "a.jsonl"), ReadOptions())]
    ['Document', 'BlankLine', 'Problem']
    """
    source = display(path)

    def read(f: BinaryIO, at: Cursor) -> Iterator[Document | Problem | BlankLine]:
        for number, raw in jsonl_lines(f, options.max_bytes):
            at.line = number + 1
            yield _line(source, number, raw, options)

    return read_guarded(path, read, first_line=1)


def jsonl_again(path: str, wanted: Mapping[int, Document], options: ReadOptions) -> Iterator[bytes]:
    """The lines ``wanted`` of the JSONL file ``path`` read again and checked, each ending in ``\\n``.

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "a.jsonl")
    ...     with open(path, "w", encoding="utf-8") as f:
    ...         _ = f.write('{"text": "rain"}\\n{"text": "sun"}')
    ...     first = list(read_jsonl(path, ReadOptions()))
    ...     list(jsonl_again(path, {2: first[1]}, ReadOptions()))
    [b'{"text": "sun"}\\n']
    """
    again = Again(display(path), wanted, "line")
    with contextlib.closing(read_again(path, lambda f: jsonl_lines(f, options.max_bytes))) as lines:
        for number, raw in lines:
            if again.wants(number):
                again.check(number, _line(again.source, number, raw, options))
                assert raw is not None  # a line too long is a Problem, never the Document wanted
                yield raw if raw.endswith(b"\n") else raw + b"\n"
                if not again.left:  # stop before damage further on (the first read reported it)
                    return
    again.finish()
