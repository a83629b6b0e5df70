"""Reading a list of inputs of any format into one report."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from ..support import limits
from .delimited import csv_again, csv_header, read_csv
from .files import check_inputs, detect_format, display
from .jsonl import jsonl_again, read_jsonl
from .parquet import parquet_again, parquet_schema, read_parquet
from .records import BlankLine, Document, InputError, InputFile, OtherFile, Problem, ReadOptions, ReadReport
from .text_files import ReadAlready, read_folder, read_txt_file


def _read_any(
    path: str | os.PathLike, fmt: str, options: ReadOptions, seen: ReadAlready
) -> Iterator[Document | Problem | BlankLine | OtherFile]:
    """Every item of one input, with the reader its format needs."""
    path = os.fspath(path)
    if not os.path.lexists(path):
        raise InputError(f"no such file or folder: {display(path)}")
    kind, source = detect_format(path, fmt), display(path)
    if os.path.isdir(path):
        if kind != "txt":
            raise InputError(f"{source} is a folder; only folders of .txt files can be read")
        follow = options.follow_links
        yield from read_folder(path, options.encoding, options.max_bytes, seen, follow_links=follow)
        return
    again = seen.file(os.path.realpath(path), source)
    if again or kind == "txt":  # opened by the path shown, which is its id
        yield again or read_txt_file(source, source, options.encoding, options.max_bytes)
    else:
        yield from {"jsonl": read_jsonl, "csv": read_csv, "parquet": read_parquet}[kind](path, options)


def iter_records(
    path: str | os.PathLike, *, fmt: str = "auto", **options: Any
) -> Iterator[Document | Problem]:
    """Yield a Document or a Problem for every record of one input (options as :func:`read_inputs`).

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with open(os.path.join(tmp, "a.csv"), "w", encoding="utf-8") as f:
    ...         _ = f.write("id,text\\n1,heavy rain\\n2\\n")
    ...     [type(r).__name__ for r in iter_records(os.path.join(tmp, "a.csv"))]
    ['Document', 'Problem']
    """
    if options.get("max_bytes") is None:
        options["max_bytes"] = limits.DEFAULT_MAX_BYTES
    for item in _read_any(path, fmt, ReadOptions(**options), ReadAlready()):
        if isinstance(item, (Document, Problem)):
            yield item


def _duplicate_id(doc: Document, first: Document) -> Problem:
    where = first.id if first.line is None else f"{first.source}:{first.line}"
    message = (
        f"the id {doc.id!r} was given already to {where}; "
        "ids must be unique, so this record was not read (give it its own id)"
    )
    return Problem(doc.source, doc.line, "duplicate-id", message)


def read_inputs(
    paths: Sequence[str | os.PathLike],
    *,
    fmt: str = "auto",
    field: str = "text",
    column: str = "text",
    encoding: str = "utf-8",
    max_bytes: int | None = None,
    delimiter: str | None = None,
    id_field: str | None = None,
    id_column: str | None = None,
    fingerprints: bool = False,
    follow_links: bool = False,
    progress: Callable[[Iterable[Any]], Iterable[Any]] | None = None,
) -> ReadReport:
    """Read every input into one :class:`~neardup_lab.readers.ReadReport`, in the order given.

    ``fmt``: a key of ``FORMATS`` or ``"auto"``; the text is in the JSONL ``field`` or the CSV/Parquet
    ``column``; ``id_field``/``id_column`` name a record's own id; ``max_bytes`` (0: no limit);
    ``progress`` wraps the records read (``tqdm``); ``fingerprints`` for :func:`records_again`.
    A bad input or option raises :class:`~neardup_lab.readers.InputError` before reading.

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
    most = limits.DEFAULT_MAX_BYTES if max_bytes is None else max_bytes
    options = ReadOptions(
        field, column, encoding, most, delimiter, id_field, id_column, fingerprints, follow_links
    )
    # an unknown format or a missing package fails before anything is read
    kinds = {display(p): detect_format(p, fmt) for p in checked}
    if id_field is not None and "jsonl" not in kinds.values():
        raise InputError("--id-field names a field of JSONL records, but no input is a JSONL file")
    if id_column is not None and not {"csv", "parquet"} & set(kinds.values()):
        raise InputError("--id-column names a CSV or Parquet column, but no input is a CSV or Parquet file")
    report = ReadReport(options=options)
    report.sources = {display(p): InputFile(p, kinds[display(p)]) for p in checked if not os.path.isdir(p)}
    first_with: dict[str, Document] = {}
    read_already = ReadAlready()
    for p in checked:
        items: Iterable[object] = _read_any(p, fmt, options, read_already)
        for item in progress(items) if progress is not None else items:
            if isinstance(item, Document):
                if item.id in first_with:
                    report.problems.append(_duplicate_id(item, first_with[item.id]))
                else:
                    first_with[item.id] = item
                    report.documents.append(item)
            elif isinstance(item, Problem):
                report.problems.append(item)
            elif isinstance(item, BlankLine):
                report.blank_lines += 1
            else:
                report.other_files += 1
    report.input_files = set(read_already.files)
    return report


def records_again(
    kind: str, path: str, wanted: Mapping[int, Document], options: ReadOptions
) -> Iterator[Any]:
    """The records ``wanted`` (by line or row) of ``path`` read again, in file order; each must read
    as the Document it gave first, else :class:`~neardup_lab.readers.InputChanged`.

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "a.jsonl")
    ...     with open(path, "w", encoding="utf-8") as f:
    ...         _ = f.write('{"text": "rain", "n": 1}\\n')
    ...     report = read_inputs([path], fingerprints=True)
    ...     with open(path, "w", encoding="utf-8") as f:
    ...         _ = f.write('{"text": "rain", "n": 2}\\n')  # the same text, another record
    ...     list(records_again("jsonl", path, {1: report.documents[0]}, report.options))
    Traceback (most recent call last):
        ...
    neardup_lab.readers.records.InputChanged: ...a.jsonl changed while this run read it (line 1 is ...)
    """
    return {"jsonl": jsonl_again, "csv": csv_again, "parquet": parquet_again}[kind](path, wanted, options)


def record_layout(kind: str, path: str, options: ReadOptions) -> Any:
    """A CSV file's header or a Parquet file's schema, read again; None for JSONL or when unreadable.

    >>> record_layout("csv", "no-such.csv", ReadOptions()) is None
    True
    """
    if kind == "csv":
        return csv_header(path, options)
    return parquet_schema(path) if kind == "parquet" else None
