"""The files ``neardup-lab`` writes: never over an input or an index, all committed together."""

from __future__ import annotations

import argparse
import contextlib
import csv
import gzip
import io
import json
import os
import re
import shutil
import signal
import stat
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any, TextIO

from ..engine.pipeline import DedupResult
from ..index.atomic import UnsafeLink, followed_for_writing, sync_folder, utf8_text, written_aside
from ..index.fileformat import LOCK_NAME, META_NAME
from ..index.store import Match
from ..readers import (
    FORMATS,
    Document,
    InputChanged,
    Problem,
    ReadReport,
    compression_of,
    csv_delimiter,
    detect_format,
    display,
    optional_module,
    record_layout,
    records_again,
)
from ..readers.files import inner_suffix

__all__ = ["OUT_FORMATS", "WHY_COLUMNS", "UsageError", "Writer", "check_outputs", "check_not_read", "staged"]
__all__ += ["clusters_writer", "matches_writer", "problems_writer", "RECORD_OPTIONS", "records_format"]
__all__ += ["records_writer", "writes_to_stdout", "output_delimiter", "CsvRows", "signals_handled"]

OUT_FORMATS = ("jsonl", "csv")
#: The fields ``--why`` adds to each removed document (CSV columns, in order).
WHY_COLUMNS = ("tied_to", "tied_to_index", "jaccard", "exact", "steps")
#: The options that write chosen records of the inputs, in the inputs' own format.
RECORD_OPTIONS = ("keep_out", "removed_out", "new_out")
_OUTPUT_OPTIONS = ("out", "problems", *RECORD_OPTIONS)
#: Writes one output to the open text file it is given.
Writer = Callable[[TextIO], None]
_ELSEWHERE = "write it elsewhere"
_SPOOL_BYTES = 1 << 24  # output for a device is held in memory up to this, then in a temporary file
_UNWRITTEN = (".bz2", ".xz", ".lzma", ".lz4", ".zip", ".7z", ".br", ".z", ".tgz")  # .gz, .zst are written


class UsageError(Exception):
    """A problem with the command line or the files it names: exit code 2."""


def _option_name(option: str) -> str:
    return "--" + option.replace("_", "-")


def _identity(path: str) -> tuple[int, int] | None:
    """``(st_dev, st_ino)`` of what ``path`` leads to, or None: paths are compared by this, not as text."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino


def _identities(paths: Iterable[str]) -> set[tuple[int, int]]:
    return {found for path in paths if (found := _identity(path)) is not None}


def _below_any(path: str, folders: set[tuple[int, int]]) -> bool:
    """Whether a folder on the way up from ``path`` is one of ``folders`` (identities)."""
    here = os.path.dirname(os.path.abspath(path))
    while _identity(here) not in folders:
        here, before = os.path.dirname(here), here
        if here == before:
            return False
    return True


def _output_problem(path: str, args: argparse.Namespace) -> str | None:
    """What is wrong with writing an output to ``path`` (said after the path), or None."""
    real = os.path.realpath(path)
    folder, index = os.path.dirname(real), getattr(args, "index", None)
    risk = "where it could overwrite the index; " + _ELSEWHERE
    if _identity(path) in _identities(args.inputs):
        return " is one of the inputs; " + _ELSEWHERE
    if index is not None and (_identity(path) == _identity(index) or _below_any(real, _identities([index]))):
        return f" is inside the index folder {display(index)}, {risk}"
    if os.path.isfile(os.path.join(folder, META_NAME)) and os.path.lexists(os.path.join(folder, LOCK_NAME)):
        return f" is inside a saved index folder, {risk}"
    # Reached through a link inside an input folder too: --follow-links would read it.
    folders = _identities(p for p in args.inputs if os.path.isdir(p))
    lexical = _below_any(path, folders)
    if real.lower().endswith(".txt") and (_below_any(real, folders) or lexical):
        later = "so a later run would read it as a document"
        return f" is a .txt file inside an input folder, {later}; {_ELSEWHERE}"
    if os.path.isdir(path):
        return " is a folder; give a file name"
    if os.path.islink(path) and not os.path.isdir(folder):  # written through: the target's folder
        return f" is a link to {display(real)}, whose folder does not exist; fix the link or {_ELSEWHERE}"
    parent = os.path.dirname(path) or "."
    return None if os.path.isdir(parent) else f": the folder {parent} does not exist"


def _compression_problem(option: str, path: str) -> str | None:
    """What is wrong with the compression ``path``'s name announces for ``option``, or None."""
    suffix, records = Path(path).suffix.lower(), option in RECORD_OPTIONS
    if suffix in _UNWRITTEN and records:
        return f" names a {suffix} file, which is not written; end the name in .gz or .zst, or drop {suffix}"
    if suffix in _UNWRITTEN or (compression_of(path) and not records):
        return f" names a {suffix} file, but it is written uncompressed; leave out {suffix}"
    return None


def check_outputs(args: argparse.Namespace) -> str | None:
    """Refuse, before reading, outputs that could overwrite an input or an index; return the format.

    >>> check_outputs(argparse.Namespace(inputs=["news"], out="c.csv", out_format=None, problems=None))
    'csv'
    """
    if args.out is None and args.out_format:
        raise UsageError("--out-format needs --out PATH")
    fmt = None
    if args.out is not None:
        fmt = args.out_format or {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv"}.get(
            Path(args.out).suffix.lower()
        )
        if fmt is None:
            hint = "end it in .jsonl or .csv, or give --out-format"
            raise UsageError(f"cannot tell the format of --out {args.out} from its name; {hint}")
    given: dict[object, str] = {}  # identity (or real path) -> option
    for option in _OUTPUT_OPTIONS:
        path = getattr(args, option, None)
        if path is not None:
            _written_path(path, _option_name(option))
            problem = _output_problem(path, args) or _compression_problem(option, path)
            if problem:
                raise UsageError(f"{_option_name(option)} {path}{problem}")
            same = _identity(path) or os.path.realpath(path)  # a new file has only its name
            if same in given:
                raise UsageError(f"{_option_name(given[same])} and {_option_name(option)} name the same file")
            given[same] = option
    return fmt


def _is_stdout(path: str) -> bool:
    """Whether ``path`` leads to this process's standard output (or the file it goes to)."""
    try:
        stdout = os.fstat(1)
    except OSError:
        return False
    return _identity(path) == (stdout.st_dev, stdout.st_ino)


def writes_to_stdout(args: argparse.Namespace) -> bool:
    """Whether an output named in ``args`` is standard output (then nothing else is printed there).

    >>> writes_to_stdout(argparse.Namespace(out="clusters.jsonl"))
    False
    """
    return any(_is_stdout(path) for option in _OUTPUT_OPTIONS if (path := getattr(args, option, None)))


def check_not_read(args: argparse.Namespace, input_files: set[str]) -> None:
    """Refuse an output that is one of the files read (``input_files``).

    >>> check_not_read(argparse.Namespace(out="c.jsonl", problems=None), set())
    """
    outputs = [(option, path) for option in _OUTPUT_OPTIONS if (path := getattr(args, option, None))]
    read = _identities(input_files) if any(_identity(path) for _, path in outputs) else set()
    for option, path in outputs:
        if _identity(path) in read:
            raise UsageError(f"{_option_name(option)} {path} is one of the files read as input; {_ELSEWHERE}")


# ----- writing: files staged and committed together, devices written into ---------------------


_DESCRIPTORS = re.compile(r"/proc/(self|thread-self|\d+)(/task/\d+)?/fd")


def _fd_alias(path: str) -> bool:
    """Whether ``path`` leads to an open descriptor (``/dev/stdout``): replacing the file the shell
    opened would leave the shell writing to a deleted one."""
    hop = os.path.abspath(path)
    for _ in range(40):  # links followed at most, as the kernel allows
        if _DESCRIPTORS.fullmatch(os.path.realpath(os.path.dirname(hop))):
            return True
        if not os.path.islink(hop):
            return False
        hop = os.path.join(os.path.dirname(hop), os.readlink(hop))
    return False


def _streamed(path: str) -> bool:
    """Whether ``path`` is written into, not replaced: a device, a FIFO, ``/dev/stdout``.

    >>> _streamed(os.devnull), _streamed("new-clusters.jsonl")
    (True, False)
    """
    try:
        mode = os.stat(path).st_mode
    except OSError:  # a new name, or a link to one
        return False
    return not stat.S_ISDIR(mode) and (not stat.S_ISREG(mode) or _fd_alias(path))


def _written_path(path: str, named: str = "") -> str:
    """Where output ``path`` goes, past every link; a link planted by another user is a UsageError.

    >>> _written_path("/") == os.sep
    True
    """
    try:
        return followed_for_writing(path)
    except OSError as err:  # UnsafeLink, or a loop of links
        raise _cannot_write(path, err, named) from None


def _cannot_write(path: str, err: OSError, named: str = "") -> UsageError:
    todo = "" if isinstance(err, UnsafeLink) else " (free some space or write elsewhere, then run again)"
    where = f"{named} {path}" if named else display(path)
    return UsageError(f"cannot write {where}: {err.strerror or err}; nothing was written{todo}")


def _stage(path: str, write: Writer) -> tuple[str, str]:
    """Write output ``path`` whole under a temporary name beside it: that name, and where it goes."""
    target = _written_path(path)
    try:
        with written_aside(target) as (raw, staged), utf8_text(raw) as text:
            write(text)
    except OSError as err:
        raise _cannot_write(path, err) from None
    return staged, target


@contextlib.contextmanager
def _spooled(path: str, write: Writer) -> Iterator[IO[bytes]]:
    """What ``write`` writes for the device ``path``, held whole before any of it is written there."""
    with tempfile.SpooledTemporaryFile(max_size=_SPOOL_BYTES) as spool:
        try:
            with utf8_text(spool) as text:
                write(text)
        except OSError as err:
            raise _cannot_write(path, err) from None
        spool.seek(0)
        yield spool


def _stream(path: str, spool: IO[bytes]) -> None:
    """Write ``spool`` into output ``path`` as ``>>`` would."""
    _written_path(path)  # a link planted by another user is refused here too
    try:
        with open(os.open(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOCTTY", 0)), "wb") as device:
            shutil.copyfileobj(spool, device)
    except OSError as err:
        if isinstance(err, BrokenPipeError):
            raise
        raise _cannot_write(path, err) from None


@contextlib.contextmanager
def signals_handled(handler: Callable[[int, Any], None], *numbers: int) -> Iterator[None]:
    """Run the block with ``handler`` for the signals ``numbers`` (in the main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before = {number: signal.signal(number, handler) for number in numbers}
    try:
        yield
    finally:
        for number, old in before.items():
            signal.signal(number, old)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Defer Ctrl-C and SIGTERM while the outputs and the index commit, then raise the first."""
    caught: list[int] = []
    try:
        with signals_handled(lambda number, _: caught.append(number), signal.SIGINT, signal.SIGTERM):
            yield
    finally:
        if caught:  # to the handler it would have met
            signal.raise_signal(caught[0])


def _commit(moves: list[tuple[str, str, str]]) -> None:
    """Rename each staged file into place; on a failure, keep what is left staged and say where."""
    for done, (path, tmp, target) in enumerate(moves):
        try:
            os.replace(tmp, target)
        except OSError as err:
            placed = ", ".join(display(p) for p, _, _ in moves[:done]) or "none"
            left = "; ".join(f"{display(p)} is complete in {display(t)}" for p, t, _ in moves[done:])
            raise UsageError(
                f"cannot put {display(path)} in place: {err.strerror or err}. Written: {placed}. "
                f"Not moved, rename by hand: {left}"
            ) from None
    for folder in {os.path.dirname(target) for _, _, target in moves}:
        sync_folder(folder)


@contextlib.contextmanager
def staged(outputs: Sequence[tuple[str, Writer]]) -> Iterator[None]:
    """Write every output whole, run the block (the index save), then move them all into place.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with staged([(os.path.join(tmp, "p.jsonl"), problems_writer([]))]):
    ...         os.listdir(tmp) != ["p.jsonl"]  # still under its temporary name
    ...     os.listdir(tmp)
    True
    ['p.jsonl']
    """
    moves: list[tuple[str, str, str]] = []  # (output path, staged file, where it goes)
    written: list[str] = []  # devices written into
    committing = committed = False
    try:
        with contextlib.ExitStack() as spools:
            held = []  # (device, what goes to it)
            for path, write in outputs:
                if _streamed(path):
                    held.append((path, spools.enter_context(_spooled(path, write))))
                else:
                    moves.append((path, *_stage(path, write)))
            # stdout last: if another device fails, what a person reads was not written
            for path, spool in sorted(held, key=lambda item: _is_stdout(item[0])):
                _stream(path, spool)
                written.append(display(path))
        with _signals_held():
            yield
            committing = True
            _commit(moves)
            committed = True
    except BaseException as err:
        if not committing:  # once renaming began, what is left staged is kept (and named)
            for _, tmp, _ in moves:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
            if written:
                err.add_note(f"except {', '.join(written)}, written into before (a device is never replaced)")
        elif committed and isinstance(err, KeyboardInterrupt):  # deferred by _signals_held
            err.add_note("it came while the outputs were put in place, and waited until they all were")
        raise


# ----- what is written ---------------------------------------------------------------------------


class CsvRows:
    r"""Rows written as CSV to ``f``, each ending in ``\n``; a field holding ``\r``, ``\n``, the
    delimiter or a quote is quoted (``csv.writer`` quotes only its own line end).

    >>> out = io.StringIO()
    >>> CsvRows(out).writerow(["a\rb", "c"])
    >>> out.getvalue()
    '"a\rb",c\n'
    """

    def __init__(self, f: IO[str], delimiter: str = ",") -> None:
        self._f, self._row = f, io.StringIO()
        self._writer = csv.writer(self._row, delimiter=delimiter, lineterminator="\r\n")

    def writerow(self, row: Sequence[object]) -> None:
        self._row.seek(0)
        self._row.truncate()
        self._writer.writerow(row)
        self._f.write(self._row.getvalue()[:-2] + "\n")


_Rows = list[dict[str, Any]]


def _rows_writer(fmt: str, nested: _Rows, flat: _Rows, columns: list[str]) -> Writer:
    """A writer of one JSON line per ``nested`` record, or a CSV table of the ``flat`` rows."""

    def write(f: TextIO) -> None:
        if fmt == "jsonl":
            f.writelines(json.dumps(record, ensure_ascii=False) + "\n" for record in nested)
        else:
            rows = CsvRows(f)
            rows.writerow(columns)
            for row in flat:
                rows.writerow([row.get(column, "") for column in columns])

    return write


def clusters_writer(
    fmt: str, result: DedupResult, ids: list[str], why: dict[int, dict[str, object]] | None = None
) -> Writer:
    """Write ``result``'s clusters: one JSON line per cluster, or a CSV row per document.

    >>> from neardup_lab.engine.pipeline import dedup
    >>> f = io.StringIO()
    >>> clusters_writer("csv", dedup(["a b", "a b"], k=1), ["x", "y"])(f)
    >>> print(f.getvalue().strip())
    cluster,size,index,id,keep
    0,2,0,x,True
    0,2,1,y,False
    """
    nested: _Rows = []
    flat: _Rows = []
    for number, (members, keeper) in enumerate(zip(result.clusters, result.keepers)):
        record = dict(cluster=number, size=len(members), keeper=ids[keeper], keeper_index=keeper)
        nested.append(record | {"ids": [ids[i] for i in members], "indices": members})
        if why is not None:
            nested[-1]["why"] = [{"id": ids[i], **why[i]} for i in members if i in why]
        for i in members:
            row = {"cluster": number, "size": len(members), "index": i, "id": ids[i], "keep": i == keeper}
            flat.append(row | (why.get(i, {}) if why is not None else {}))
    columns = ["cluster", "size", "index", "id", "keep", *(WHY_COLUMNS if why is not None else ())]
    return _rows_writer(fmt, nested, flat, columns)


def matches_writer(fmt: str, ids: list[str], found: list[list[Match]]) -> Writer:
    """Write each document's matches: one JSON line per document, or a CSV row per match.

    >>> f = io.StringIO()
    >>> matches_writer("jsonl", ["a"], [[]])(f)
    >>> f.getvalue()
    '{"id": "a", "position": 0, "status": "new", "matches": []}\\n'
    """
    nested: _Rows = []
    flat: _Rows = []
    columns = ["id", "position", "status", "match_id", "match_in", "jaccard", "exact"]
    for position, (doc_id, matches) in enumerate(zip(ids, found)):
        document = {"id": doc_id, "position": position, "status": "duplicate" if matches else "new"}
        nested.append(document | {"matches": [m.to_dict() for m in matches]})
        cells = [(m.id, "index" if m.in_index else "batch", m.jaccard, m.exact) for m in matches]
        flat += [document | dict(zip(columns[3:], cell)) for cell in cells] or [document]
    return _rows_writer(fmt, nested, flat, columns)


def problems_writer(problems: Sequence[Problem]) -> Writer:
    """Write every skipped input as a JSON line (``--problems``).

    >>> f = io.StringIO()
    >>> problems_writer([Problem("a.txt", None, "binary", "NUL byte")])(f)
    >>> f.getvalue()
    '{"source": "a.txt", "line": null, "reason": "binary", "message": "NUL byte"}\\n'
    """
    return _rows_writer("jsonl", [problem.to_dict() for problem in problems], [], [])


# ----- the records themselves: --keep-out, --removed-out, --new-out ---------------------------


def records_format(args: argparse.Namespace) -> str | None:
    """The one format of all inputs, in which the record options write; None without them.

    >>> records_format(argparse.Namespace(inputs=["a.jsonl.gz", "b.jsonl"], keep_out="kept.jsonl"))
    'jsonl'
    """
    asked = [(_option_name(o), getattr(args, o)) for o in RECORD_OPTIONS if getattr(args, o, None)]
    if not asked:
        return None
    kinds = {detect_format(path, getattr(args, "format", "auto")) for path in args.inputs}
    if len(kinds) > 1:
        raise UsageError(
            f"{asked[0][0]} writes records in the inputs' own format, but the inputs mix "
            f"{' and '.join(sorted(kinds))}; deduplicate each format in its own run"
        )
    (kind,) = kinds
    for option, path in asked:
        named = next((k for k, suffixes in FORMATS.items() if inner_suffix(path) in suffixes), kind)
        if named != kind and kind != "txt":
            raise UsageError(
                f"{option} {path} names a {named} file, but the inputs are {kind}; "
                f"records are written in the inputs' format (end the name in {FORMATS[kind][0]})"
            )
        compressed = compression_of(path)
        if compressed and kind == "parquet":
            raise UsageError(f"{option} {path}: Parquet compresses inside; leave out {compressed}")
    return kind


@contextlib.contextmanager
def _compressed(raw: IO[bytes], path: str) -> Iterator[IO[bytes] | gzip.GzipFile]:
    """``raw``, compressed as ``path``'s name says, finished when the block ends."""
    compressed = compression_of(path)
    if compressed is None:
        yield raw
    elif compressed == ".gz":
        with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as packed:  # the same bytes every run
            yield packed
    else:
        zstandard = optional_module("zstandard", "zstandard", "writing .zst files")
        with zstandard.ZstdCompressor().stream_writer(raw, closefd=False) as packed:
            yield packed


def output_delimiter(out: str, read_with: str) -> str:
    r"""The delimiter of CSV output ``out``: a tab for ``.tsv``, a comma for ``.csv`` when the inputs
    had tabs, else the inputs' (``read_with``).

    >>> [output_delimiter(out, read) for out, read in [("a.tsv", ","), ("a.csv.gz", "\t"), ("a.csv", ";")]]
    ['\t', ',', ';']
    """
    suffix = inner_suffix(out)
    if suffix == ".tsv":
        return "\t"
    return "," if suffix == ".csv" and read_with == "\t" else read_with


def _layout(kind: str, paths: list[str], report: ReadReport) -> Any:
    """The CSV header or Parquet schema the inputs ``paths`` share (without ``paths``: the first)."""
    if kind == "jsonl":
        return None
    if not paths:  # no record to write, but a header or a schema
        found = (record_layout(kind, s.path, report.options) for s in report.sources.values())
        return next((layout for layout in found if layout is not None), None)
    what, first = "header" if kind == "csv" else "schema", None
    for path in paths:  # one file open at a time: a run may name thousands of shards
        layout = record_layout(kind, path, report.options)
        if layout is None:
            changed = f"{display(path)} changed while this run read it"
            raise InputChanged(f"{changed} (its {what} cannot be read again)")
        if first is not None and layout != first:
            pair = f"{'CSV' if kind == 'csv' else 'Parquet'} inputs {display(paths[0])} and {display(path)}"
            raise UsageError(
                f"the {pair} have different {what}s, so their rows cannot go to one file; "
                "deduplicate them in separate runs"
            )
        first = layout
    return first


@contextlib.contextmanager
def _record_sink(
    kind: str, raw: IO[bytes] | gzip.GzipFile, layout: Any, out: str, encoding: str, read_with: str
) -> Iterator[Any]:
    """Where the records read again go, under the CSV header or Parquet schema ``layout``."""
    if kind == "jsonl":
        yield raw.write
    elif kind == "csv":
        text = io.TextIOWrapper(raw, encoding=encoding, errors="surrogateescape", newline="")
        rows = CsvRows(text, delimiter=output_delimiter(out, read_with))
        if layout is not None:  # no header: no row either
            rows.writerow(layout)
        yield rows.writerow
        text.flush()
        text.detach()
    else:
        pq = optional_module("pyarrow.parquet", "pyarrow", "writing Parquet files")
        if layout is None:
            raise UsageError("no input can be read as Parquet, so there is no schema for the records written")
        with pq.ParquetWriter(raw, layout) as writer:
            yield writer.write_batch


def _path_lines(documents: Sequence[Document], path: str, null: bool) -> Iterator[bytes]:
    """Each document's path as the file system holds it, a line each (``null``: NUL-ended)."""
    for doc in documents:
        name = os.fsencode(doc.source)
        if not null and re.search(rb"[\x00-\x1f\x7f]", name):
            raise UsageError(
                f"{display(path)} lists one path per line, but the file name {doc.source!r} holds a control "
                "character (a newline would make it two paths); give --null for NUL-ended paths "
                "(xargs -0), or rename the file"
            )
        yield name + (b"\0" if null else b"\n")


def records_writer(
    kind: str, path: str, report: ReadReport, chosen: Sequence[int], args: argparse.Namespace
) -> Writer:
    """Write the documents ``chosen`` as their records, read again (a changed input is refused).

    >>> import pathlib, tempfile
    >>> from neardup_lab.readers import read_inputs
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     src = pathlib.Path(tmp, "a.jsonl")
    ...     _ = src.write_text('{"text": "rain", "n": 1}\\n{"text": "sun"}\\n')
    ...     report = read_inputs([src], fingerprints=True)
    ...     f = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    ...     records_writer("jsonl", "kept.jsonl", report, [0], argparse.Namespace())(f)
    ...     f.buffer.getvalue()
    b'{"text": "rain", "n": 1}\\n'
    """
    documents = [report.documents[i] for i in sorted(chosen)]
    grouped: dict[str, dict[int, Document]] = {}  # by input, then by line or row
    for doc in documents:
        grouped.setdefault(doc.source, {})[doc.line or 0] = doc

    def write(f: TextIO) -> None:
        f.flush()
        with _compressed(f.buffer, path) as raw:
            if kind == "txt":
                raw.writelines(_path_lines(documents, path, getattr(args, "null", False)))
                return
            paths, options = [report.sources[source].path for source in grouped], report.options
            layout = _layout(kind, paths, report)
            read_with = csv_delimiter(paths[0] if paths else path, options.delimiter)
            with _record_sink(kind, raw, layout, path, options.encoding, read_with) as put:
                for source_path, wanted in zip(paths, grouped.values()):
                    for record in records_again(kind, source_path, wanted, options):
                        put(record)

    def write_or_refuse(f: TextIO) -> None:
        try:
            write(f)
        except InputChanged as err:
            raise UsageError(f"{err}; nothing was written, run again") from None

    return write_or_refuse
