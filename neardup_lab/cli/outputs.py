"""The files the ``neardup-lab`` command writes, and where it may write them.

``--out`` (clusters or matches), ``--problems`` (skipped inputs), and the inputs' own records in
their format (:func:`records_writer`): ``--keep-out`` and ``--removed-out`` (dedup), ``--new-out``
(index). An output may never overwrite an input, land inside an index folder, or be a ``.txt``
file in an input folder (a later run would read it as a document): :func:`check_outputs` refuses
such paths before anything is read, :func:`check_not_read` after reading. Every file is written
completely under a temporary name next to its path before the index is saved, and :func:`staged`
moves them all into place only after that: the outputs and the index are committed together. An
output never replaces a device, a FIFO or a link: a device is written into, a link written through.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import gzip
import io
import json
import os
import re
import signal
import stat
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from ..engine.pipeline import DedupResult
from ..index.fileformat import LOCK_NAME, META_NAME, create_temporary_file, sync_folder
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
from ..readers.files import inner_suffix, read_errors
from ..support import limits
from .console import posix

__all__ = ["OUT_FORMATS", "WHY_COLUMNS", "UsageError", "Writer", "check_outputs", "check_not_read", "staged"]
__all__ += ["clusters_writer", "matches_writer", "problems_writer", "RECORD_OPTIONS", "records_format"]
__all__ += ["records_writer"]

OUT_FORMATS = ("jsonl", "csv")
#: The fields ``--why`` adds to each removed document of the cluster output (CSV columns, in order).
WHY_COLUMNS = ("tied_to", "tied_to_index", "jaccard", "exact", "steps")
#: The options that write chosen records of the inputs, in the inputs' own format.
RECORD_OPTIONS = ("keep_out", "removed_out", "new_out")
_OUTPUT_OPTIONS = ("out", "problems", *RECORD_OPTIONS)
#: Writes one output file to the open text file it is given.
Writer = Callable[[IO[str]], None]
_ELSEWHERE = "write it elsewhere"
#: Compressions no output is written in (``--keep-out`` writes ``.gz`` and ``.zst``).
_UNWRITTEN = (".bz2", ".xz", ".lzma", ".lz4", ".zip", ".7z", ".br", ".z", ".tgz")


class UsageError(Exception):
    """A problem with the command line or the files it names: exit code 2."""


def _option_name(option: str) -> str:
    return "--" + option.replace("_", "-")


def _identity(path: str) -> tuple[int, int] | None:
    """``(st_dev, st_ino)`` of what ``path`` leads to, or None when nothing is there.

    Paths are compared by this, never by their text: a bind mount or a hard link shows one
    file under two names.
    """
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino


def _below_any(path: str, folders: set[tuple[int, int]]) -> bool:
    """True when a folder on the way up from ``path`` is one of ``folders`` (identities)."""
    here = os.path.dirname(os.path.abspath(path))
    while True:
        if _identity(here) in folders:
            return True
        up = os.path.dirname(here)
        if up == here:
            return False
        here = up


def _output_problem(path: str, args: argparse.Namespace) -> str | None:
    """What is wrong with writing an output to ``path``, said after the path; None when nothing is."""
    real = os.path.realpath(path)
    folder, index = os.path.dirname(real), getattr(args, "index", None)
    risk = "where it could overwrite the index; " + _ELSEWHERE
    inputs = {_identity(p) for p in args.inputs} - {None}
    if _identity(path) in inputs:
        return " is one of the inputs; " + _ELSEWHERE
    if index is not None and (_identity(path) == _identity(index) or _below_any(real, {_identity(index)})):
        return f" is inside the index folder {posix(index)}, {risk}"
    if os.path.isfile(os.path.join(folder, META_NAME)) and os.path.lexists(os.path.join(folder, LOCK_NAME)):
        return f" is inside a saved index folder, {risk}"
    # A new file reached through a link inside an input folder too (an existing one is an input).
    folders = {_identity(p) for p in args.inputs if os.path.isdir(p)} - {None}
    lexical = not os.path.exists(path) and _below_any(path, folders)
    if real.lower().endswith(".txt") and (_below_any(real, folders) or lexical):
        later = "so a later run would read it as a document"
        return f" is a .txt file inside an input folder, {later}; {_ELSEWHERE}"
    if os.path.isdir(path):
        return " is a folder; give a file name"
    if os.path.islink(path) and not os.path.isdir(folder):  # written through: the target's folder
        return f" is a link to {posix(real)}, whose folder does not exist; fix the link or {_ELSEWHERE}"
    parent = os.path.dirname(path) or "."
    return None if os.path.isdir(parent) else f": the folder {parent} does not exist"


def _compression_problem(option: str, path: str) -> str | None:
    """What is wrong with the compression ``path``'s name announces for ``option``; None when nothing is."""
    suffix = Path(path).suffix.lower()
    records = option in RECORD_OPTIONS
    if suffix in _UNWRITTEN and records:
        return f" names a {suffix} file, which is not written; end the name in .gz or .zst, or drop {suffix}"
    if suffix in _UNWRITTEN or (compression_of(path) and not records):
        return f" names a {suffix} file, but it is written uncompressed; leave out {suffix}"
    return None


def check_outputs(args: argparse.Namespace) -> str | None:
    """Refuse ``--out``/``--problems`` able to overwrite an input or an index; return ``--out``'s format.

    Run before anything is read. Raises :class:`UsageError` naming the option.

    >>> check_outputs(argparse.Namespace(inputs=["news"], out="c.csv", out_format=None, problems=None))
    'csv'
    """
    if args.out is None and args.out_format:
        raise UsageError("--out-format needs --out PATH")
    fmt = None
    if args.out is not None:
        suffixes = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv"}
        fmt = args.out_format or suffixes.get(Path(args.out).suffix.lower())
        if fmt is None:
            hint = "end it in .jsonl or .csv, or give --out-format"
            raise UsageError(f"cannot tell the format of --out {args.out} from its name; {hint}")
    given: dict[object, str] = {}  # identity (or real path) -> option
    for option in _OUTPUT_OPTIONS:
        path = getattr(args, option, None)
        if path is not None:
            problem = _output_problem(path, args) or _compression_problem(option, path)
            if problem:
                raise UsageError(f"{_option_name(option)} {path}{problem}")
            same = _identity(path) or os.path.realpath(path)  # a new file: its name is all there is
            if same in given:
                raise UsageError(f"{_option_name(given[same])} and {_option_name(option)} name the same file")
            given[same] = option
    return fmt


def writes_to_stdout(args: argparse.Namespace) -> bool:
    """Whether an output named in ``args`` is this process's standard output (``/dev/stdout``, or
    the very file the shell redirected it to): then nothing else may be printed there.

    >>> writes_to_stdout(argparse.Namespace(out="clusters.jsonl"))
    False
    """
    try:
        stdout = os.fstat(1)
    except OSError:
        return False
    named = [getattr(args, option, None) for option in _OUTPUT_OPTIONS]
    return any(_identity(path) == (stdout.st_dev, stdout.st_ino) for path in named if path is not None)


def check_not_read(args: argparse.Namespace, input_files: set[str]) -> None:
    """Refuse an output that is one of the files read (``input_files``, real paths) via a folder or a link.

    >>> check_not_read(argparse.Namespace(out="c.jsonl", problems=None), set())
    """
    read: set[tuple[int, int] | None] | None = None
    for option in _OUTPUT_OPTIONS:
        path = getattr(args, option, None)
        if path is None or _identity(path) is None:
            continue
        read = read if read is not None else {_identity(p) for p in input_files}
        if _identity(path) in read:
            raise UsageError(f"{_option_name(option)} {path} is one of the files read as input; {_ELSEWHERE}")


# ----- writing: files staged and committed together, devices streamed ----------------------


def _fd_alias(path: str) -> bool:
    """True when ``path`` leads, through links, to an open descriptor (``/dev/stdout``, ``/dev/fd/1``).

    Such a name may reach a file the shell opened: replacing that would leave the shell writing to a
    deleted one.
    """
    hop = os.path.abspath(path)
    for _ in range(40):  # links followed at most, as the kernel itself allows
        folder = os.path.realpath(os.path.dirname(hop))
        if re.fullmatch(r"/proc/(self|thread-self|\d+)(/task/\d+)?/fd", folder):
            return True
        if not os.path.islink(hop):
            return False
        hop = os.path.join(os.path.dirname(hop), os.readlink(hop))
    return False


def _streamed(path: str) -> bool:
    """True when ``path`` is written into, not replaced: a device, a FIFO, a socket, ``/dev/stdout``.

    >>> _streamed(os.devnull), _streamed("new-clusters.jsonl")
    (True, False)
    """
    try:
        mode = os.stat(path).st_mode
    except OSError:  # a new name, or a link to one
        return False
    return not stat.S_ISDIR(mode) and (not stat.S_ISREG(mode) or _fd_alias(path))


def _written_path(path: str) -> str:
    """Where the bytes of output ``path`` go: the file a link points to (the link stays), else ``path``."""
    return os.path.realpath(path) if os.path.islink(path) else path


def _write(path: str, write: Writer, streamed: bool) -> str | None:
    """Write output ``path``: into it as ``>>`` would when ``streamed`` (a device is never replaced),
    else completely and synced to a temporary file next to where it goes, whose name is returned."""
    tmp = None
    try:
        if streamed:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOCTTY", 0))
        else:
            target = _written_path(path)
            folder, name = os.path.split(target)
            fd, tmp = create_temporary_file(folder, f".tmp-{name}-", like=target)
        # Odd file names in the output are escaped rather than refused.
        with open(fd, "w", encoding="utf-8", newline="", errors="backslashreplace") as f:
            write(f)
            if tmp:
                f.flush()
                os.fsync(f.fileno())
    except BaseException as err:
        if tmp:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        if isinstance(err, OSError) and not isinstance(err, BrokenPipeError):
            nothing = "nothing was written (free some space or write elsewhere, then run again)"
            raise UsageError(f"cannot write {posix(path)}: {err.strerror or err}; {nothing}") from None
        raise
    return tmp


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM while the block commits; a signal then lets the commit finish.

    Stopped between the index save and the renames, a run would leave the index grown and its
    reports missing. Only the main thread can set handlers.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = {number: signal.signal(number, lambda *_: None) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, handler in held.items():
            signal.signal(number, handler)


def _commit(moves: list[tuple[str, str]]) -> None:
    """Rename each staged file into place; on a failure, keep what is left staged and say where."""
    for done, (path, tmp) in enumerate(moves):
        try:
            os.replace(tmp, _written_path(path))
        except OSError as err:
            placed = ", ".join(posix(p) for p, _ in moves[:done]) or "none"
            left = "; ".join(f"{posix(p)} is complete in {posix(t)}" for p, t in moves[done:])
            raise UsageError(
                f"cannot put {posix(path)} in place: {err.strerror or err}. Written: {placed}. "
                f"Not moved, rename by hand: {left}"
            ) from None
    for folder in {os.path.dirname(_written_path(p)) or "." for p, _ in moves}:
        sync_folder(folder)


@contextlib.contextmanager
def staged(outputs: Sequence[tuple[str, Writer]]) -> Iterator[None]:
    """Write every output completely, run the block (the index save), then move all files into place.

    Each file is written and synced under a temporary name next to where it goes before the
    block runs, so a full disk stops the run before the index commits. A device, FIFO or
    ``/dev/stdout`` is written into after that, never replaced; a link is written through.
    Signals wait while the block and the renames run.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with staged([(os.path.join(tmp, "p.jsonl"), problems_writer([]))]):
    ...         os.listdir(tmp) != ["p.jsonl"]  # still under its temporary name
    ...     os.listdir(tmp)
    True
    ['p.jsonl']
    """
    moves: list[tuple[str, str]] = []  # (output path, staged file)
    committing = False
    try:
        for path, write in outputs:
            if not _streamed(path):
                moves.append((path, _write(path, write, streamed=False)))  # type: ignore[arg-type]
        for path, write in outputs:
            if _streamed(path):
                _write(path, write, streamed=True)
        with _signals_held():
            yield
            committing = True
            _commit(moves)
    except BaseException:
        if not committing:  # once renaming began, what is left staged is kept and named
            for _, tmp in moves:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
        raise


class CsvRows:
    r"""Rows written as CSV to ``f``, each ending in ``\n``, a field holding a carriage return, a
    line feed, the delimiter or a quote quoted.

    (``csv.writer`` quotes only the characters of its own line end: with ``"\n"`` a bare ``"\r"``
    went out unquoted and split the row for the next reader.)

    >>> import io
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

    def writerows(self, rows: Iterable[Sequence[object]]) -> None:
        for row in rows:
            self.writerow(row)


def _rows_writer(fmt: str, nested: list[dict], flat: list[dict], columns: list[str]) -> Writer:
    """A writer of one JSON line per ``nested`` record, or a CSV table of the ``flat`` rows."""

    def write(f: IO[str]) -> None:
        if fmt == "jsonl":
            f.writelines(json.dumps(record, ensure_ascii=False) + "\n" for record in nested)
        else:
            rows = CsvRows(f)
            rows.writerow(columns)
            rows.writerows([row.get(column, "") for column in columns] for row in flat)

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
        for m in matches or [None]:  # a document without a match: one row of empty match cells
            cells = (m.id, "index" if m.in_index else "batch", m.jaccard, m.exact) if m else ("",) * 4
            flat.append(dict(zip(columns, (doc_id, position, status, *cells))))
    return _rows_writer(fmt, nested, flat, columns)


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


def records_format(args: argparse.Namespace) -> str | None:
    """The one format of all inputs, in which the record options (``--keep-out``...) write; None without them.

    Raises :class:`UsageError` when the inputs mix formats or an output's
    name announces another format than the inputs'.

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


_AGAIN = "nothing was written, run again"


def _changed(source: str, what: str) -> UsageError:
    return UsageError(f"{source} changed while this run read it ({what}); {_AGAIN}")


def _check_all_found(source: str, left: set[int], unit: str) -> None:
    """Refuse a copy that did not find every wanted record: the input was cut short or rewritten."""
    if left:
        more = f" and {len(left) - 1} more" if len(left) > 1 else ""
        raise _changed(source, f"{unit} {min(left)}{more} read before cannot be found again")


def _unreadable(source: str, err: BaseException) -> UsageError:
    return UsageError(f"{source} cannot be read again to copy its records ({err}); {_AGAIN}")


def _read_again(path: str, items: Callable[[IO[bytes]], Iterator[Any]]) -> Iterator[Any]:
    """``items(f)`` of the input ``path`` opened again; a damaged or vanished file is a clear error.

    Only reading is guarded: the caller writes between the items, outside of it.
    """
    arrow = sys.modules.get("pyarrow")
    errors = (OSError, ValueError, *read_errors(), *((arrow.ArrowException,) if arrow else ()))
    try:
        f, _ = open_input(path)
    except errors as err:
        raise _unreadable(posix(path), err) from None
    with f:
        found = items(f)
        while True:
            try:
                item = next(found)
            except StopIteration:
                return
            except errors as err:
                raise _unreadable(posix(path), err) from None
            yield item


def _mixed(kind: str, first: str, other: str, what: str) -> UsageError:
    return UsageError(
        f"the {kind} inputs {posix(first)} and {posix(other)} have different {what}, so their rows "
        "cannot go to one file; deduplicate them in separate runs"
    )


#: The documents of each input file, by line (or row).
_Grouped = dict[str, dict[int, Document]]


def _copy_jsonl(out: IO[bytes], path: str, wanted: dict[int, Document], args: argparse.Namespace) -> None:
    left = set(wanted)
    for number, raw in _read_again(path, lambda f: jsonl_lines(f, args.max_bytes)):
        doc = wanted.get(number)
        if doc is None:
            continue
        try:
            record = json.loads(raw.decode(args.encoding)) if raw is not None else None
            same = record is not None and record_value(record, args.field) == doc.text
        except (ValueError, TypeError, RecursionError):  # TypeError: no longer an object
            same = False
        if not same:
            raise _changed(doc.source, f"line {number} is not what was read")
        out.write(raw if raw.endswith(b"\n") else raw + b"\n")
        left.discard(number)
        if not left:  # stop before any damage further on, which the first read reported
            return
    _check_all_found(posix(path), left, "line")


def _csv_header(path: str, args: argparse.Namespace) -> list[str] | None:
    """The header of a CSV input, or None when it has none that can be read."""
    rows = csv_rows(path, args.encoding, args.max_bytes, args.delimiter)
    first = next((item for item in rows if item is not None), None)
    rows.close()
    return first[1] if isinstance(first, tuple) else None


def _copy_csv(rows: CsvRows, path: str, wanted: dict[int, Document], args: argparse.Namespace) -> None:
    left = set(wanted)
    found = csv_rows(path, args.encoding, args.max_bytes, args.delimiter)
    header: list[str] = next((item[1] for item in found if isinstance(item, tuple)), [])
    for item in found:
        doc = wanted.get(item[0]) if isinstance(item, tuple) else None
        if doc is None:
            continue
        start, row = item
        if args.column not in header or row[header.index(args.column)] != doc.text:
            raise _changed(doc.source, f"line {start} is not what was read")
        rows.writerow(row)
        left.discard(start)
        if not left:
            found.close()
            return
    _check_all_found(posix(path), left, "line")


def output_delimiter(out: str, read_with: str) -> str:
    r"""The delimiter of CSV output ``out``: a tab for a ``.tsv`` name, never a tab for a ``.csv``
    one (a comma then), else ``read_with``, the inputs' own.

    >>> [output_delimiter(out, read) for out, read in [("a.tsv", ","), ("a.csv.gz", "\t"), ("a.csv", ";")]]
    ['\t', ',', ';']
    """
    suffix = inner_suffix(out)
    if suffix == ".tsv":
        return "\t"
    return "," if suffix == ".csv" and read_with == "\t" else read_with


def _write_csv(
    raw: IO[bytes], grouped: _Grouped, report: ReadReport, args: argparse.Namespace, out: str
) -> None:
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
    rows = CsvRows(text, delimiter=output_delimiter(out, csv_delimiter(paths[0], args.delimiter)))
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
            raise _changed(posix(path), "its schema cannot be read again")
        if not schema.equals(other):
            raise _mixed("Parquet", paths[0], path, "schemas")
    with pq.ParquetWriter(raw, schema) as writer:
        for source, wanted in grouped.items():
            _copy_parquet(writer, sources[source].path, wanted, args.column, pa)


def _copy_parquet(writer: Any, path: str, wanted: dict[int, Document], column: str, pa: Any) -> None:
    pq = sys.modules["pyarrow.parquet"]
    left, first = set(wanted), 1  # first: row number of the batch's first row
    batches = _read_again(path, lambda f: pq.ParquetFile(f).iter_batches(limits.PARQUET_BATCH_ROWS))
    for batch in batches:
        rows = [r for r in range(first, first + batch.num_rows) if r in wanted]
        if rows:
            chosen = batch.take(pa.array([r - first for r in rows]))
            texts = chosen.column(chosen.schema.get_field_index(column)).to_pylist()
            for row, text in zip(rows, texts):
                if text != wanted[row].text:
                    raise _changed(wanted[row].source, f"row {row} is not what was read")
            writer.write_batch(chosen)
            left.difference_update(rows)
            if not left:  # stop before any damage further on, which the first read reported
                batches.close()
                return
        first += batch.num_rows
    _check_all_found(posix(path), left, "row")


def _path_lines(documents: Sequence[Document], path: str, null: bool) -> Iterator[bytes]:
    """The bytes of each document's path as the file system holds them, a line each (``null``: NUL-ended)."""
    for doc in documents:
        name = os.fsencode(doc.source)
        if not null and re.search(rb"[\x00-\x1f\x7f]", name):  # a newline would make one path two
            raise UsageError(
                f"{posix(path)} lists one path per line, but the file name {doc.source!r} holds a control "
                "character (a newline would make it two paths); give --null for NUL-ended paths "
                "(xargs -0), or rename the file"
            )
        yield name + (b"\0" if null else b"\n")


def records_writer(
    kind: str, path: str, report: ReadReport, chosen: Sequence[int], args: argparse.Namespace
) -> Writer:
    """Write the documents ``chosen`` (indices into ``report.documents``) as records, in input order.

    JSONL lines are copied byte for byte as read; CSV rows are written under the inputs' header,
    Parquet rows with their schema, and for folders of ``.txt`` files the paths, one per line
    (NUL-ended with ``args.null``). The records are read again from the inputs and checked against
    the texts read the first time: an input that changed meanwhile, was cut short, or cannot be read
    again is refused, and nothing is written. ``path`` ending in ``.gz``/``.zst`` compresses.

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
    grouped: _Grouped = {}
    for doc in documents:
        grouped.setdefault(doc.source, {})[doc.line or 0] = doc

    def write(f: IO[str]) -> None:
        f.flush()
        with _compressed(f.buffer, path) as raw:  # type: ignore[attr-defined]
            if kind == "txt":
                raw.writelines(_path_lines(documents, path, getattr(args, "null", False)))
            elif kind == "jsonl":
                for source, wanted in grouped.items():
                    _copy_jsonl(raw, report.sources[source].path, wanted, args)
            elif kind == "csv":
                _write_csv(raw, grouped, report, args, path)
            else:
                _write_parquet(raw, grouped, report, args)

    return write
