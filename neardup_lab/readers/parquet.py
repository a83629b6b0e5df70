"""Parquet files (with the optional ``pyarrow``): one document a row, its text in a column, read in
record batches of :data:`~neardup_lab.support.limits.PARQUET_BATCH_ROWS`; its id ``path:row`` or its own."""

from __future__ import annotations

import sys
from collections.abc import Iterator

from ..support import limits
from .files import NotRegular, display, open_problem, open_regular, optional_module
from .records import Document, Problem, ReadOptions, describe, own_id, record_document


def _damaged(source: str, row: int | None, err: Exception) -> Problem:
    where = f"reading stopped at row {row}; the rows before it were read" if row else "no row was read"
    return Problem(source, row, "damaged", f"cannot be read as Parquet ({err}); {where}")


def _row(source: str, row: int, text: object, own: object, options: ReadOptions) -> Document | Problem:
    """One Parquet row as a Document, or the Problem that keeps it out (``own``: its id column's value)."""
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
    return record_document(source, row, text, options.max_bytes, doc_id)


def read_parquet(path: str, options: ReadOptions) -> Iterator[Document | Problem]:
    """Each row of the Parquet file at ``path`` as a Document or a Problem; without ``pyarrow``, an
    :class:`~neardup_lab.readers.InputError` naming the package to install.

    >>> import os, tempfile
    >>> import pyarrow as pa, pyarrow.parquet as pq
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     pq.write_table(pa.table({"text": ["heavy rain", None]}), os.path.join(tmp, "a.parquet"))
    ...     [type(r).__name__ for r in read_parquet(os.path.join(tmp, "a.parquet"), ReadOptions())]
    ['Document', 'Problem']
    """
    source = display(path)
    pq = optional_module("pyarrow.parquet", "pyarrow", "reading Parquet files")
    errors = (sys.modules["pyarrow"].ArrowException, OSError, ValueError)  # what a damaged file raises
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
        repeated = sorted(name for name in wanted if names.count(name) > 1)
        if repeated:
            detail = f"several columns are named {repeated[0]!r}, so which one to read is unclear"
            yield Problem(source, None, "repeated-parquet-column", f"{detail}; give them distinct names")
            return
        # one column read once, even when it holds both the ids and the texts
        columns = sorted(wanted, key=names.index)
        try:
            for batch in parquet.iter_batches(batch_size=limits.PARQUET_BATCH_ROWS, columns=columns):
                texts = batch.column(columns.index(options.column)).to_pylist()
                ids = (
                    batch.column(columns.index(options.id_column)).to_pylist()
                    if options.id_column is not None
                    else [None] * len(texts)
                )
                for text, own in zip(texts, ids):
                    row += 1
                    yield _row(source, row, text, own, options)
        except errors as err:
            yield _damaged(source, row + 1, err)
