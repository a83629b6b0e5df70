"""Parquet files (with the optional ``pyarrow``): one document a row, read in record batches."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..support import limits
from .files import NotRegular, display, open_problem, open_regular, optional_module, read_again
from .records import Again, Document, Problem, ReadOptions, describe, own_id, record_document

_NEEDS = ("pyarrow.parquet", "pyarrow", "reading Parquet files")


def _damaged(source: str, row: int | None, err: Exception) -> Problem:
    where = f"reading stopped at row {row}; the rows before it were read" if row else "no row was read"
    return Problem(source, row, "damaged", f"cannot be read as Parquet ({err}); {where}")


def _column(batch: Any, name: str) -> list[object] | None:
    """The values of the one column ``name`` of ``batch``; None unless exactly one has that name."""
    where = batch.schema.get_all_field_indices(name)
    return batch.column(where[0]).to_pylist() if len(where) == 1 else None


def _rows(
    source: str, numbers: Sequence[int], batch: Any, options: ReadOptions
) -> Iterator[Document | Problem]:
    """The rows of ``batch``, numbered ``numbers``, as Documents or Problems."""
    texts = _column(batch, options.column)
    ids = [None] * batch.num_rows if options.id_column is None else _column(batch, options.id_column)
    if texts is None or ids is None:  # a file rewritten meanwhile
        yield from (Problem(source, row, "missing-parquet-column", "") for row in numbers)
        return
    wholes = batch.to_pylist() if options.fingerprints else [None] * len(texts)
    for row, text, own, whole in zip(numbers, texts, ids, wholes):
        yield _row(source, row, text, own, whole, options)


def _row(
    source: str, row: int, text: object, own: object, whole: object, options: ReadOptions
) -> Document | Problem:
    """One Parquet row as a Document, or the Problem that keeps it out (``own``: its id column)."""
    if not isinstance(text, str):
        message = f"column {options.column!r} holds {describe(text)}, not a string"
        return Problem(source, row, "not-text", message)
    doc_id = None
    if options.id_column is not None:
        if own is None:
            message = f"column {options.id_column!r} is null; give every row an id"
            return Problem(source, row, "missing-id", message)
        doc_id, error = own_id(own, f"column {options.id_column!r}", "id-column")
        if error is not None:
            return Problem(source, row, "bad-id", error)
    return record_document(source, row, text, options.max_bytes, doc_id, whole)


def read_parquet(path: str, options: ReadOptions) -> Iterator[Document | Problem]:
    """Each row of the Parquet file at ``path`` as a Document or a Problem.

    >>> import os, tempfile
    >>> import pyarrow as pa, pyarrow.parquet as pq
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     pq.write_table(pa.table({"text": ["heavy rain", None]}), os.path.join(tmp, "a.parquet"))
    ...     [type(r).__name__ for r in read_parquet(os.path.join(tmp, "a.parquet"), ReadOptions())]
    ['Document', 'Problem']
    """
    source = display(path)
    pq = optional_module(*_NEEDS)
    errors = (sys.modules["pyarrow"].ArrowException, OSError, ValueError)  # of a damaged file
    try:
        f, _ = open_regular(path)
    except (OSError, NotRegular) as err:
        yield open_problem(source, err)
        return
    row = 0
    with f:
        try:
            parquet = pq.ParquetFile(f)
            names = parquet.schema_arrow.names
        except errors as err:
            yield _damaged(source, None, err)
            return
        missing = options.missing_column(names)
        if missing:
            yield Problem(source, None, "missing-parquet-column", missing)
            return
        wanted = {options.column, options.id_column} - {None}
        repeated = sorted(name for name in names if name in wanted and names.count(name) > 1)
        if repeated:
            detail = f"several columns are named {repeated[0]!r}, so which one to read is unclear"
            yield Problem(source, None, "repeated-parquet-column", f"{detail}; give them distinct names")
            return
        # A fingerprint is of the whole row; else only the columns used are read.
        columns = None if options.fingerprints else sorted(wanted, key=names.index)
        try:
            for batch in parquet.iter_batches(batch_size=limits.PARQUET_BATCH_ROWS, columns=columns):
                yield from _rows(source, range(row + 1, row + 1 + batch.num_rows), batch, options)
                row += batch.num_rows
        except errors as err:
            yield _damaged(source, row + 1, err)


def parquet_schema(path: str) -> Any:
    """The Arrow schema of the Parquet file at ``path``, or None when it cannot be read.

    >>> parquet_schema("no-such.parquet") is None
    True
    """
    pq = optional_module(*_NEEDS)
    try:
        with contextlib.closing(read_again(path, lambda f: iter([pq.ParquetFile(f).schema_arrow]))) as found:
            return next(found)
    except ValueError:  # InputChanged: gone or damaged
        return None


def parquet_again(path: str, wanted: Mapping[int, Document], options: ReadOptions) -> Iterator[Any]:
    """The rows ``wanted`` of the Parquet file ``path`` read again and checked, as record batches.

    >>> import os, tempfile
    >>> import pyarrow as pa, pyarrow.parquet as pq
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "a.parquet")
    ...     pq.write_table(pa.table({"text": ["rain", "sun"], "n": [1, 2]}), path)
    ...     first = list(read_parquet(path, ReadOptions()))
    ...     [batch.to_pylist() for batch in parquet_again(path, {2: first[1]}, ReadOptions())]
    [[{'text': 'sun', 'n': 2}]]
    """
    pq = optional_module(*_NEEDS)
    pa = sys.modules["pyarrow"]
    again, first = Again(display(path), wanted, "row"), 1  # first: the batch's first row
    read = read_again(path, lambda f: pq.ParquetFile(f).iter_batches(limits.PARQUET_BATCH_ROWS))
    with contextlib.closing(read) as batches:
        for batch in batches:
            rows = [r for r in range(first, first + batch.num_rows) if again.wants(r)]
            if rows:
                chosen = batch.take(pa.array([r - first for r in rows]))
                for row, doc in zip(rows, _rows(again.source, rows, chosen, options)):
                    again.check(row, doc)
                yield chosen
                if not again.left:
                    return
            first += batch.num_rows
    again.finish()
