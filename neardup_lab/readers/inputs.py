"""Reading a list of inputs of any format: the reader each one needs, and one report of them all."""

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
    if again or kind == "txt":  # opened by the path shown, which its id and any list of paths give
        yield again or read_txt_file(source, source, options.encoding, options.max_bytes)
    else:
        yield from {"jsonl": read_jsonl, "csv": read_csv, "parquet": read_parquet}[kind](path, options)


def iter_records(
    path: str | os.PathLike, *, fmt: str = "auto", **options: Any
) -> Iterator[Document | Problem]:
    """Yield a :class:`~neardup_lab.readers.Document` or a :class:`~neardup_lab.readers.Problem` for
    every record of one input, in order; ``fmt`` and the ``options`` are those of :func:`read_inputs`.

    Blank lines and non-``.txt`` files in folders are passed over here; :func:`read_inputs` counts
    them, and checks that no two documents share an id.

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

    ``fmt`` is a key of ``FORMATS`` or ``"auto"`` (by file name); the text is in the JSONL ``field`` or
    the CSV/Parquet ``column``; ``id_field`` and ``id_column`` name a record's own id; ``max_bytes``
    (default :data:`~neardup_lab.support.limits.DEFAULT_MAX_BYTES`; 0: no limit) refuses larger documents;
    ``delimiter`` is the CSV delimiter (default ``,``, a tab for ``.tsv``); ``progress``, if given, is
    a callable taking an iterable and returning one (such as ``tqdm``) that records pass through;
    ``fingerprints`` gives each Document the fingerprint of its whole record, for :func:`records_again`.

    In folders, only regular files are opened: pipes, devices and sockets are problems
    (``not-regular``), and so are symbolic links (``link``) unless ``follow_links``; then a link is
    followed if it stays inside the folder given (``link-escape``, ``link-loop`` otherwise). A path
    is never tidied as text: ``data/link/..`` is the folder the system finds there.

    Raises :class:`~neardup_lab.readers.InputError` before reading anything when an input does not
    exist, is given twice, has a format that cannot be told or needs a package that is missing, or
    when an option is wrong or an id option applies to no input. Per-record trouble never raises: it
    becomes a Problem, and so does a document whose id an earlier one has (``duplicate-id``).

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
    # fail on an unknown format or a missing package before anything is read
    kinds = {display(p): detect_format(p, fmt) for p in checked}
    if id_field is not None and "jsonl" not in kinds.values():  # an id option no input can use is a mistake
        raise InputError("--id-field names a field of JSONL records, but no input is a JSONL file")
    if id_column is not None and not {"csv", "parquet"} & set(kinds.values()):
        raise InputError("--id-column names a CSV or Parquet column, but no input is a CSV or Parquet file")
    report = ReadReport(options=options)
    report.sources = {display(p): InputFile(p, kinds[display(p)]) for p in checked if not os.path.isdir(p)}
    first_with: dict[str, Document] = {}  # each id, and the document that has it
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
    """The records ``wanted`` (by line or row number) of the ``kind`` input ``path`` read again with
    the ``options`` of the first read, in file order: JSONL lines as bytes, CSV rows as lists of
    fields, Parquet rows as record batches. Each must read as the Document it gave the first time
    (with fingerprints: the whole record); else :class:`~neardup_lab.readers.InputChanged`.

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
    """What every record of the ``kind`` input ``path`` shares, read again: a CSV file's header, a
    Parquet file's schema; None for JSONL, or when it cannot be read.

    >>> record_layout("csv", "no-such.csv", ReadOptions()) is None
    True
    """
    if kind == "csv":
        return csv_header(path, options)
    return parquet_schema(path) if kind == "parquet" else None
