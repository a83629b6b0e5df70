"""The files the ``neardup-lab`` command writes, and where it may write them.

``--out`` (clusters or matches), ``--problems`` (skipped inputs), and the inputs' own records in
their format (:func:`records_writer`): ``--keep-out`` and ``--removed-out`` (dedup), ``--new-out``
(index). An output may never overwrite an input, land inside an index folder, or be a ``.txt``
file in an input folder (a later run would read it as a document): :func:`check_outputs` refuses
such paths before anything is read, :func:`check_not_read` after reading. Every file is written
under a temporary name next to its path, and :func:`staged` moves them all into place only when
the whole run succeeded.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import gzip
import io
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from .. import limits
from ..engine.pipeline import DedupResult
from ..index.fileformat import LOCK_NAME, META_NAME, atomic_writer
from ..index.store import Match
from ..readers import (
    FORMATS,
    Document,
    Problem,
    ReadReport,
    compression_of,
    csv_delimiter,
    csv_rows,
    detect_format,
    jsonl_lines,
    open_input,
    optional_module,
    record_value,
)
from .console import posix

__all__ = ["OUT_FORMATS", "WHY_COLUMNS", "UsageError", "Writer", "check_outputs", "check_not_read", "staged"]
__all__ += ["clusters_writer", "matches_writer", "problems_writer", "RECORD_OPTIONS", "records_format"]
__all__ += ["records_writer"]

OUT_FORMATS = ("jsonl", "csv")
#: The fields ``--why`` adds to each removed document of the cluster output (CSV columns, in order).
WHY_COLUMNS = ("tied_to", "tied_to_index", "jaccard", "exact", "steps")
#: Every option that names a file the command writes.
_OUTPUT_OPTIONS = ("out", "problems", "keep_out", "removed_out", "new_out")
#: Writes one output file to the open text file it is given.
Writer = Callable[[IO[str]], None]


class UsageError(Exception):
    """A problem with the command line or the files it names: exit code 2."""


def _out_format(path: str | None, given: str | None) -> str | None:
    if path is None:
        if given:
            raise UsageError("--out-format needs --out PATH")
        return None
    fmt = given or {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv"}.get(Path(path).suffix.lower())
    if fmt is None:
        raise UsageError(f"cannot tell the format of --out {path} from its name; {_OUT_HINT}")
    return fmt


_OUT_HINT = "end it in .jsonl or .csv, or give --out-format"
_ELSEWHERE = "write it elsewhere"


def _is_within(path: str, folder: str) -> bool:
    """True when the real path ``path`` is ``folder`` or lies below it."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _looks_like_index(folder: str) -> bool:
    """True when ``folder`` holds the files every saved index has."""
    meta, lock = (os.path.join(folder, name) for name in (META_NAME, LOCK_NAME))
    return os.path.isfile(meta) and os.path.lexists(lock)


def _output_problem(path: str, args: argparse.Namespace) -> str | None:
    """What is wrong with writing an output to ``path``, said after the path; None when nothing is."""
    real, parent = os.path.realpath(path), os.path.dirname(path) or "."
    inputs = {os.path.realpath(p) for p in args.inputs}
    index = getattr(args, "index", None)
    risk = "where it could overwrite the index; " + _ELSEWHERE
    if real in inputs:
        return " is one of the inputs; " + _ELSEWHERE
    if index is not None and _is_within(real, os.path.realpath(index)):
        return f" is inside the index folder {posix(index)}, {risk}"
    if _looks_like_index(os.path.dirname(real)):
        return f" is inside a saved index folder, {risk}"
    if real.lower().endswith(".txt") and any(_is_within(real, i) for i in inputs if os.path.isdir(i)):
        later = "so a later run would read it as a document"
        return f" is a .txt file inside an input folder, {later}; {_ELSEWHERE}"
    if os.path.isdir(path):
        return " is a folder; give a file name"
    return None if os.path.isdir(parent) else f": the folder {parent} does not exist"


def check_outputs(args: argparse.Namespace) -> str | None:
    """Refuse ``--out``/``--problems`` able to overwrite an input or an index; return ``--out``'s format.

    Run before anything is read. Raises :class:`UsageError` naming the option.

    >>> check_outputs(argparse.Namespace(inputs=["news"], out="c.csv", out_format=None, problems=None))
    'csv'
    """
    fmt = _out_format(args.out, args.out_format)
    given: dict[str, str] = {}  # real path -> option
    for option in _OUTPUT_OPTIONS:
        path = getattr(args, option, None)
        if path is not None:
            problem = _output_problem(path, args)
            if problem:
                raise UsageError(f"{_option_name(option)} {path}{problem}")
            real = os.path.realpath(path)
            if real in given:
                raise UsageError(f"{_option_name(given[real])} and {_option_name(option)} name the same file")
            given[real] = option
    return fmt


def check_not_read(args: argparse.Namespace, input_files: set[str]) -> None:
    """Refuse an output that is one of the files read (``input_files``, real paths) via a folder or a link.

    >>> check_not_read(argparse.Namespace(out="c.jsonl", problems=None), set())
    """
    for option in _OUTPUT_OPTIONS:
        path = getattr(args, option, None)
        if path is not None and os.path.realpath(path) in input_files:
            raise UsageError(f"{_option_name(option)} {path} is one of the files read as input; {_ELSEWHERE}")


@contextlib.contextmanager
def staged(outputs: Sequence[tuple[str, Writer]]) -> Iterator[None]:
    """Write each output to a temporary file next to its path; move them all into place on success.

    The block runs after the outputs are written and before they are moved:
    if it raises (the index could not be saved), every temporary file is
    removed and nothing is left behind.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with staged([(os.path.join(tmp, "p.jsonl"), problems_writer([]))]):
    ...         os.listdir(tmp) != ["p.jsonl"]  # still under its temporary name
    ...     os.listdir(tmp)
    True
    ['p.jsonl']
    """
    with contextlib.ExitStack() as stack:
        for path, write in outputs:
            write(stack.enter_context(atomic_writer(path)))
        yield


def _rows_writer(fmt: str, nested: list[dict], flat: list[dict], columns: list[str]) -> Writer:
    """A writer of one JSON line per ``nested`` record, or a CSV table of the ``flat`` rows."""

    def write(f: IO[str]) -> None:
        if fmt == "jsonl":
            f.writelines(json.dumps(record, ensure_ascii=False) + "\n" for record in nested)
        else:
            writer = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
            writer.writeheader()
            writer.writerows(flat)

    return write


def clusters_writer(fmt: str, result: DedupResult, ids: list[str], why: dict | None = None) -> Writer:
    """Write ``result``'s clusters: one JSON line per cluster, or a CSV row per document.

    >>> import io
    >>> from neardup_lab.engine.pipeline import dedup
    >>> f = io.StringIO()
    >>> clusters_writer("csv", dedup(["a b", "a b"], k=1), ["x", "y"])(f)
    >>> print(f.getvalue().strip())
    cluster,size,index,id,keep
    0,2,0,x,True
    0,2,1,y,False
    """
    nested, flat = [], []
    for number, (members, keeper) in enumerate(zip(result.clusters, result.keepers)):
        nested.append(dict(cluster=number, size=len(members), keeper=ids[keeper], keeper_index=keeper))
        nested[-1] |= {"ids": [ids[i] for i in members], "indices": members}
        if why is not None:  # --why: the pair that tied each removed document to its cluster
            nested[-1]["why"] = [{"id": ids[i], **why[i]} for i in members if i in why]
        flat += [
            {"cluster": number, "size": len(members), "index": i, "id": ids[i], "keep": i == keeper}
            | (why.get(i, dict.fromkeys(WHY_COLUMNS, "")) if why is not None else {})
            for i in members
        ]
    columns = ["cluster", "size", "index", "id", "keep", *(WHY_COLUMNS if why is not None else ())]
    return _rows_writer(fmt, nested, flat, columns)


def matches_writer(fmt: str, ids: list[str], found: list[list[Match]]) -> Writer:
    """Write each document's matches: one JSON line per document, or a CSV row per match.

    >>> import io
    >>> f = io.StringIO()
    >>> matches_writer("jsonl", ["a"], [[]])(f)
    >>> f.getvalue()
    '{"id": "a", "position": 0, "status": "new", "matches": []}\\n'
    """
    nested, flat = [], []
    columns = ["id", "position", "status", "match_id", "match_in", "jaccard", "exact"]
    for position, (doc_id, matches) in enumerate(zip(ids, found)):
        status = "duplicate" if matches else "new"
        nested.append(
            {"id": doc_id, "position": position, "status": status, "matches": [m.to_dict() for m in matches]}
        )
        flat += [
            dict(zip(columns, (doc_id, position, status, *_match_cells(m)))) for m in matches or [None]
        ]
    return _rows_writer(fmt, nested, flat, columns)


def _match_cells(m: Match | None) -> tuple:
    """The CSV cells of one match: id, where it is, Jaccard, exact; empty for a document without one."""
    return (m.id, "index" if m.in_index else "batch", m.jaccard, m.exact) if m else ("",) * 4


def problems_writer(problems: Sequence[Problem]) -> Writer:
    """Write every skipped input as a JSON line (the ``--problems`` file).

    >>> import io
    >>> f = io.StringIO()
    >>> problems_writer([Problem("a.txt", None, "binary", "NUL byte")])(f)
    >>> f.getvalue()
    '{"source": "a.txt", "line": null, "reason": "binary", "message": "NUL byte"}\\n'
    """
    return _rows_writer("jsonl", [problem.to_dict() for problem in problems], [], [])


# ----- the records themselves: --keep-out, --removed-out, --new-out ---------------------------

#: The options that write chosen records of the inputs, in the inputs' own format.
RECORD_OPTIONS = ("keep_out", "removed_out", "new_out")


def _option_name(option: str) -> str:
    return "--" + option.replace("_", "-")


def records_format(args: argparse.Namespace) -> str | None:
    """The one format of all inputs, in which the record options (``--keep-out``...) write; None without them.

    Raises :class:`UsageError` when the inputs mix formats or an output's
    name announces another format than the inputs'.

    >>> records_format(argparse.Namespace(inputs=["a.jsonl.gz", "b.jsonl"], keep_out="kept.jsonl"))
    'jsonl'
    """
    asked = [(option, getattr(args, option)) for option in RECORD_OPTIONS if getattr(args, option, None)]
    if not asked:
        return None
    kinds = {detect_format(path, getattr(args, "format", "auto")) for path in args.inputs}
    option = _option_name(asked[0][0])
    if len(kinds) > 1:
        raise UsageError(
            f"{option} writes records in the inputs' own format, but the inputs mix "
            f"{' and '.join(sorted(kinds))}; deduplicate each format in its own run"
        )
    (kind,) = kinds
    for option, path in asked:
        compressed = compression_of(path)
        stem = path[: -len(compressed)] if compressed else path
        named = next((k for k, suffixes in FORMATS.items() if Path(stem).suffix.lower() in suffixes), kind)
        if named != kind and kind != "txt":
            raise UsageError(
                f"{_option_name(option)} {path} names a {named} file, but the inputs are {kind}; "
                f"records are written in the inputs' format (end the name in {FORMATS[kind][0]})"
            )
        if compressed and kind == "parquet":
            raise UsageError(
                f"{_option_name(option)} {path}: Parquet compresses inside; leave out {compressed}"
            )
    return kind


@contextlib.contextmanager
def _compressed(raw: IO[bytes], path: str) -> Iterator[IO[bytes]]:
    """``raw``, compressed as ``path``'s name says (``.gz``, ``.zst``), finished when the block ends."""
    compressed = compression_of(path)
    if compressed is None:
        yield raw
    elif compressed == ".gz":
        with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as packed:  # mtime 0: same bytes every run
            yield packed
    else:
        zstandard = optional_module("zstandard", "zstandard", "writing .zst files")
        with zstandard.ZstdCompressor().stream_writer(raw, closefd=False) as packed:
            yield packed


def _changed(source: str, where: str) -> UsageError:
    return UsageError(f"{source} changed while this run read it ({where} is not what was read); {_AGAIN}")


_AGAIN = "nothing was written, run again"


def _mixed(kind: str, first: str, other: str, what: str) -> UsageError:
    return UsageError(
        f"the {kind} inputs {posix(first)} and {posix(other)} have different {what}, so their rows "
        "cannot go to one file; deduplicate them in separate runs"
    )


#: The documents of each input file, by line (or row).
_Grouped = dict[str, dict[int, Document]]


def _by_source(documents: Sequence[Document]) -> _Grouped:
    """The documents of each input file, by line (or row), files in input order."""
    grouped: _Grouped = {}
    for doc in documents:
        grouped.setdefault(doc.source, {})[doc.line or 0] = doc
    return grouped


def _copy_jsonl(out: IO[bytes], path: str, wanted: dict[int, Document], args: argparse.Namespace) -> None:
    f, _ = open_input(path)
    with f:
        for number, raw in jsonl_lines(f, args.max_bytes):
            doc = wanted.get(number)
            if doc is None:
                continue
            try:
                same = (
                    raw is not None
                    and record_value(json.loads(raw.decode(args.encoding)), args.field) == doc.text
                )
            except (ValueError, TypeError, RecursionError):  # TypeError: no longer an object
                same = False
            if not same:
                raise _changed(doc.source, f"line {number}")
            out.write(raw if raw.endswith(b"\n") else raw + b"\n")


def _csv_header(path: str, args: argparse.Namespace) -> list[str] | None:
    """The header of a CSV input, or None when it has none that can be read."""
    rows = csv_rows(path, args.encoding, args.max_bytes, args.delimiter)
    first = next((item for item in rows if item is not None), None)
    rows.close()
    return first[1] if isinstance(first, tuple) else None


def _copy_csv(rows: Any, path: str, wanted: dict[int, Document], args: argparse.Namespace) -> None:
    header: list[str] | None = None
    for item in csv_rows(path, args.encoding, args.max_bytes, args.delimiter):
        if not isinstance(item, tuple):
            continue
        start, row = item
        if header is None:
            header = row
            continue
        doc = wanted.get(start)
        if doc is not None:
            if row[header.index(args.column)] != doc.text:
                raise _changed(doc.source, f"line {start}")
            rows.writerow(row)


def _write_csv(raw: IO[bytes], grouped: _Grouped, report: ReadReport, args: argparse.Namespace) -> None:
    sources = report.sources
    paths = [sources[s].path for s in grouped]
    if not paths:  # no row to write: the header of the first input that has one
        header = next(filter(None, (_csv_header(s.path, args) for s in sources.values())), None)
        paths = [next(iter(sources.values())).path]
    else:
        header = _csv_header(paths[0], args)
    for path in paths[1:]:
        if _csv_header(path, args) != header:
            raise _mixed("CSV", paths[0], path, "headers")
    if header is None:
        return
    text = io.TextIOWrapper(raw, encoding=args.encoding, errors="surrogateescape", newline="")
    rows = csv.writer(text, delimiter=csv_delimiter(paths[0], args.delimiter), lineterminator="\n")
    rows.writerow(header)
    for source, wanted in grouped.items():
        _copy_csv(rows, sources[source].path, wanted, args)
    text.flush()
    text.detach()  # the caller closes the file under it


def _parquet_schema(path: str, pq: Any) -> Any:
    """The Arrow schema of a Parquet input, or None when it cannot be read."""
    try:
        f, _ = open_input(path)
        with f:
            return pq.ParquetFile(f).schema_arrow
    except (OSError, ValueError, sys.modules["pyarrow"].ArrowException):
        return None


def _write_parquet(raw: IO[bytes], grouped: _Grouped, report: ReadReport, args: argparse.Namespace) -> None:
    sources = report.sources
    pa = optional_module("pyarrow", "pyarrow", "writing Parquet files")
    pq = optional_module("pyarrow.parquet", "pyarrow", "writing Parquet files")
    paths = [sources[s].path for s in grouped]
    if not paths:  # no row to write: the schema of the first input that can be read
        paths = [next((s.path for s in sources.values() if _parquet_schema(s.path, pq) is not None), "")]
    schema = _parquet_schema(paths[0], pq) if paths[0] else None
    if schema is None:
        raise UsageError("no input can be read as Parquet, so there is no schema for the records written")
    for path in paths[1:]:  # one file open at a time: a run may name thousands of shards
        other = _parquet_schema(path, pq)
        if other is None:
            raise _changed(posix(path), "its schema")
        if not schema.equals(other):
            raise _mixed("Parquet", paths[0], path, "schemas")
    with pq.ParquetWriter(raw, schema) as writer:
        for source, wanted in grouped.items():
            f, _ = open_input(sources[source].path)
            with f:
                _copy_parquet(writer, pq.ParquetFile(f), wanted, args.column, pa)


def _copy_parquet(writer: Any, table: Any, wanted: dict[int, Document], column: str, pa: Any) -> None:
    first = 1  # row number of the batch's first row
    for batch in table.iter_batches(batch_size=limits.PARQUET_BATCH_ROWS):
        rows = [r for r in range(first, first + batch.num_rows) if r in wanted]
        if rows:
            chosen = batch.take(pa.array([r - first for r in rows]))
            texts = chosen.column(chosen.schema.get_field_index(column)).to_pylist()
            for row, text in zip(rows, texts):
                if text != wanted[row].text:
                    raise _changed(wanted[row].source, f"row {row}")
            writer.write_batch(chosen)
        first += batch.num_rows


def records_writer(
    kind: str, path: str, report: ReadReport, chosen: Sequence[int], args: argparse.Namespace
) -> Writer:
    """Write the documents ``chosen`` (indices into ``report.documents``) as records, in input order.

    JSONL lines are copied byte for byte as read; CSV rows are written under
    the inputs' header, Parquet rows with their schema, and for folders of
    ``.txt`` files the paths, one per line. The records are read again from
    the inputs (never held in memory) and checked against the texts read the
    first time: an input that changed meanwhile is refused, and nothing is
    written. The output is compressed when ``path`` ends in ``.gz``/``.zst``.

    >>> import io, pathlib, tempfile
    >>> from neardup_lab.readers import read_inputs
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     src = pathlib.Path(tmp, "a.jsonl")
    ...     _ = src.write_text('{"text": "rain", "n": 1}\\n{"text": "sun"}\\n')
    ...     report = read_inputs([src])
    ...     args = argparse.Namespace(field="text", encoding="utf-8", max_bytes=1000)
    ...     f = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    ...     records_writer("jsonl", "kept.jsonl", report, [0], args)(f)
    ...     f.buffer.getvalue()
    b'{"text": "rain", "n": 1}\\n'
    """
    documents = [report.documents[i] for i in sorted(chosen)]
    grouped = _by_source(documents)

    def write(f: IO[str]) -> None:
        f.flush()
        with _compressed(f.buffer, path) as raw:  # type: ignore[attr-defined]
            if kind == "txt":  # the bytes of each path, as the file system holds them
                raw.writelines(os.fsencode(doc.source) + b"\n" for doc in documents)
            elif kind == "jsonl":
                for source, wanted in grouped.items():
                    _copy_jsonl(raw, report.sources[source].path, wanted, args)
            elif kind == "csv":
                _write_csv(raw, grouped, report, args)
            else:
                _write_parquet(raw, grouped, report, args)

    return write
