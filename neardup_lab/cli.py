"""The ``neardup-lab`` command: deduplicate your own files, or keep a saved index for daily batches.

Two commands::

    neardup-lab dedup INPUT... [--out clusters.jsonl]
    neardup-lab index build|add|query|info INDEX [INPUT...]

Inputs are folders of ``.txt`` files, JSONL files (one JSON object per line,
text in ``--field``) and CSV files (with a header row, text in ``--column``);
see :mod:`neardup_lab.readers`. The saved index is described in
:mod:`neardup_lab.store`.

Exit codes: 0 when everything was read and done; 1 when the work was done
but some inputs were skipped (each one is reported on standard error with
its file and line, and counted in the summary); 2 for a usage error or a
fatal error, in which case nothing was written.

Reports (``--out``, ``--problems``) are written under temporary names next
to their paths and moved into place only when the whole run succeeded (for
``index add``, after the index is saved). They may never land on an input
or inside an index folder.

The same run from Python:

>>> from neardup_lab.cli import main
>>> main(["dedup", "--help"])  # doctest: +ELLIPSIS
usage: neardup-lab dedup ...
0
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import dataclasses
import json
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO

from .clusters import KEEPER_POLICIES
from .indexfile import LOCK_NAME, META_NAME, StoreError, atomic_writer
from .lsh import approx_threshold, s_curve
from .minhash import SCHEMES
from .pipeline import DedupResult, dedup
from .readers import DEFAULT_MAX_BYTES, FORMATS, REASONS, InputError, ReadReport, read_inputs
from .settings import RECALL_WEIGHTS, SHINGLE_KINDS, Settings
from .store import Match, SavedIndex
from .text import normalize

__all__ = ["main", "build_parser", "EXIT_OK", "EXIT_SKIPPED", "EXIT_ERROR"]

PROG = "neardup-lab"
EXIT_OK, EXIT_SKIPPED, EXIT_ERROR = 0, 1, 2
#: Schemes offered on the command line; "small-affine" is a deliberately weak hash for teaching.
CLI_SCHEMES = tuple(s for s in SCHEMES if s != "small-affine")
OUT_FORMATS = ("jsonl", "csv")
#: Most signing processes --jobs accepts.
MAX_JOBS = 256
_PROBLEMS_SHOWN = 20
_MATCHES_SHOWN = 20
_SIMILARITIES = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
_DEFAULTS = {f.name: f.default for f in dataclasses.fields(Settings)}

_MAIN_EPILOG = """\
examples:
  neardup-lab dedup news/ --out clusters.jsonl
  neardup-lab dedup articles.jsonl --field body --threshold 0.7 --explain
  neardup-lab dedup posts.csv --column text --shingle char --shingle-size 4 --out clusters.csv
  neardup-lab index build news.idx day1.jsonl
  neardup-lab index add news.idx day2.jsonl --out day2-matches.jsonl
  neardup-lab index query news.idx draft.txt

exit codes: 0 done; 1 done, but some inputs were skipped (each is reported with its
file and line); 2 usage or fatal error (nothing was written).
"""

_DEDUP_EPILOG = """\
examples:
  neardup-lab dedup news/                                  folder of .txt files, summary only
  neardup-lab dedup news/ --out clusters.jsonl             one JSON line per cluster
  neardup-lab dedup a.jsonl b.jsonl --field body --out clusters.csv
  neardup-lab dedup posts.csv --column text --keep longest --explain
  neardup-lab dedup notes/ --shingle char --shingle-size 4 --threshold 0.7

Every document appears in exactly one cluster of the output; the keeper of each
cluster is the one to keep, the others are its duplicates. Empty documents are kept
as documents: they are exact copies of each other.
"""

_INDEX_EPILOG = """\
examples:
  neardup-lab index build news.idx day1.jsonl              create the index from a first batch
  neardup-lab index add news.idx day2.jsonl --out m.jsonl  report duplicates, then insert
  neardup-lab index add news.idx today.jsonl --id-prefix 2026-03-02/
  neardup-lab index query news.idx draft.txt               look up without inserting
  neardup-lab index info news.idx                          settings and size

`add` compares each new document with the index and with the earlier documents of
its batch before inserting it. The index is a folder; writes are atomic, so an
interrupted run leaves the previous index intact.
"""


_ACTION_EPILOGS = {
    "build": """\
examples:
  neardup-lab index build news.idx day1.jsonl
  neardup-lab index build notes.idx notes/ --shingle char --shingle-size 4 --threshold 0.7

The settings given here are stored in the index and used by every later add and query.
""",
    "add": """\
examples:
  neardup-lab index add news.idx day2.jsonl
  neardup-lab index add news.idx day2.jsonl --out day2-matches.csv
  neardup-lab index add news.idx today.jsonl --id-prefix 2026-03-02/

Document ids must be new: adding the same file twice is refused, and nothing changes.
""",
    "query": """\
examples:
  neardup-lab index query news.idx draft.txt
  neardup-lab index query news.idx candidates.jsonl --out matches.jsonl
""",
}


class UsageError(Exception):
    """A problem with the command line or the files it names: exit code 2."""


# ----- argument parsing ---------------------------------------------------------------


def _echo(text: str) -> str:
    """``text`` quoted for an error message, cut short when it is long."""
    return repr(text) if len(text) <= 40 else repr(text[:37]) + "..."


def _number(text: str) -> float:
    """A number; its range is checked by :class:`~neardup_lab.settings.Settings`.

    >>> _number("0.7")
    0.7
    """
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {_echo(text)}") from None


def _whole(text: str) -> int:
    """A whole number; its range is checked by :class:`~neardup_lab.settings.Settings`.

    >>> _whole("128")
    128
    """
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {_echo(text)}") from None


def _jobs(text: str) -> int:
    """A number of signing processes: 1..MAX_JOBS, or -1 for all cores.

    >>> _jobs("-1")
    -1
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {_echo(text)}") from None
    if value == 0 or value < -1:
        raise argparse.ArgumentTypeError(
            f"must be a positive number of processes, or -1 for all cores; got {text}"
        )
    if value > MAX_JOBS:  # every process is started up front: a typo must not fork thousands
        raise argparse.ArgumentTypeError(
            f"must be at most {MAX_JOBS}, got {text}; -1 uses every core of this machine"
        )
    return value


def _byte_size(text: str) -> int:
    """``10000000``, ``10_000_000``, ``10M``, ``10MB``, ``512k``: bytes (decimal units); 0 for no limit."""
    units = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9}
    raw = text.strip().lower().removesuffix("b")
    number, unit = (raw[:-1], raw[-1]) if raw and raw[-1] in "kmg" else (raw, "")
    try:
        value = int(number) * units[unit]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number of bytes such as 10000000 or 10M (0 for no limit), got {text!r}"
        ) from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {text}")
    return value


def _add_input_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("input")
    g.add_argument(
        "inputs",
        nargs="+",
        metavar="INPUT",
        help="folders of .txt files, .jsonl/.ndjson files, .csv/.tsv files",
    )
    g.add_argument(
        "--format",
        choices=("auto", *FORMATS),
        default="auto",
        help="how to read files (default: from the file name)",
    )
    g.add_argument("--field", default="text", help="JSONL field holding the text (default: text)")
    g.add_argument("--column", default="text", help="CSV column holding the text (default: text)")
    g.add_argument("--delimiter", default=None, help="CSV delimiter (default: ',' or a tab for .tsv)")
    g.add_argument("--encoding", default="utf-8", help="text encoding of the files (default: utf-8)")
    g.add_argument(
        "--max-bytes",
        type=_byte_size,
        default=DEFAULT_MAX_BYTES,
        metavar="N",
        help=f"refuse documents larger than N bytes (default: {DEFAULT_MAX_BYTES}; 0: no limit); "
        "refused documents are reported and counted",
    )


def _add_hash_options(p: argparse.ArgumentParser, *, from_index: bool) -> None:
    """Options named after the fields of :class:`~neardup_lab.settings.Settings`, which checks them."""
    if from_index:
        title = "settings (stored in the index; give one only to check it matches)"
    else:
        title = "similarity and hashing"
    g = p.add_argument_group(title)

    def default(name: str) -> str:
        return "" if from_index else f" (default: {_DEFAULTS[name]})"

    g.add_argument(
        "--threshold",
        type=_number,
        metavar="T",
        help="Jaccard similarity from which two documents are duplicates" + default("threshold"),
    )
    g.add_argument(
        "-k",
        "--shingle-size",
        dest="k",
        type=_whole,
        metavar="K",
        help="words (or characters) per shingle" + default("k"),
    )
    g.add_argument("--shingle", choices=SHINGLE_KINDS, help="shingle kind" + default("shingle"))
    g.add_argument(
        "--num-perm", type=_whole, metavar="P", help="MinHash signature length" + default("num_perm")
    )
    g.add_argument(
        "--bands",
        type=_whole,
        metavar="B",
        help="LSH bands (give with --rows)"
        + ("" if from_index else "; default: optimal_params for the threshold, favouring recall"),
    )
    g.add_argument("--rows", type=_whole, metavar="R", help="LSH rows per band (give with --bands)")
    g.add_argument("--seed", type=_whole, metavar="S", help="seed of the hash functions" + default("seed"))
    g.add_argument("--scheme", choices=CLI_SCHEMES, help="MinHash hash family" + default("scheme"))


def _add_output_options(p: argparse.ArgumentParser, what: str) -> None:
    g = p.add_argument_group("output")
    g.add_argument("--out", metavar="PATH", help=f"write {what} to PATH (.jsonl or .csv)")
    g.add_argument("--out-format", choices=OUT_FORMATS, help="format of --out (default: from its name)")
    g.add_argument("--problems", metavar="PATH", help="write every skipped input to PATH as JSONL")
    g.add_argument("--explain", action="store_true", help="print the chosen bands and rows and the S-curve")
    g.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no progress bars and no summary (problems are still reported)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``neardup-lab`` (exposed for documentation and tests).

    >>> build_parser().parse_args(["dedup", "news/"]).command
    'dedup'
    """
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Find near-duplicate documents in your own text files with MinHash and LSH.",
        epilog=_MAIN_EPILOG,
        formatter_class=fmt,
    )
    from . import __version__

    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = commands.add_parser(
        "dedup",
        help="cluster near-duplicates in a set of files and pick one document to keep per cluster",
        description="Cluster near-duplicate documents and choose one keeper per cluster.",
        epilog=_DEDUP_EPILOG,
        formatter_class=fmt,
    )
    _add_input_options(p)
    _add_hash_options(p, from_index=False)
    g = p.add_argument_group("clusters")
    g.add_argument(
        "--keep",
        dest="keeper",
        choices=KEEPER_POLICIES,
        default="first",
        help="which document of a cluster to keep: the first read, or the longest (default: first)",
    )
    g.add_argument(
        "--jobs", type=_jobs, default=1, metavar="N", help="processes for signing (-1: all cores; default: 1)"
    )
    _add_output_options(p, "the clusters")
    p.set_defaults(run=_run_dedup, parser=p)

    index = commands.add_parser(
        "index",
        help="a saved index on disk for documents that arrive in batches",
        description="Keep a saved index of documents and check new batches against it.",
        epilog=_INDEX_EPILOG,
        formatter_class=fmt,
    )
    actions = index.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, help_text, run in [
        ("build", "create a new index from a first batch (reports duplicates inside it)", _run_build),
        ("add", "report which new documents duplicate indexed ones or each other, then insert all", _run_add),
        ("query", "report duplicates in the index of some documents, without inserting them", _run_query),
    ]:
        a = actions.add_parser(
            name,
            help=help_text,
            description=help_text[0].upper() + help_text[1:] + ".",
            epilog=_ACTION_EPILOGS[name],
            formatter_class=fmt,
        )
        a.add_argument("index", metavar="INDEX", help="the index folder")
        _add_input_options(a)
        _add_hash_options(a, from_index=name != "build")
        if name != "query":
            a.add_argument(
                "--id-prefix",
                default="",
                metavar="PREFIX",
                help="put this before every document id (to keep ids unique)",
            )
        _add_output_options(a, "one record per document with its matches")
        a.set_defaults(run=run, parser=a)
    info = actions.add_parser(
        "info", help="print an index's settings and size", description="Print an index's settings and size."
    )
    info.add_argument("index", metavar="INDEX", help="the index folder")
    info.set_defaults(run=_run_info)
    return parser


# ----- shared helpers -----------------------------------------------------------------


class _Console:
    """Where output goes: the summary to stdout, problems and errors to stderr."""

    def __init__(self, quiet: bool, out: IO[str] | None = None, err: IO[str] | None = None) -> None:
        self.quiet = quiet
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.bars = not quiet and _isatty(self.err)

    def say(self, line: str = "") -> None:
        if not self.quiet:
            print(line, file=self.out)

    def warn(self, line: str) -> None:
        print(f"{PROG}: {line}", file=self.err)

    def progress(self) -> Callable | None:
        if not self.bars:
            return None
        from tqdm import tqdm

        def bar(items, **kwargs):  # type: ignore[no-untyped-def]
            return tqdm(items, file=self.err, leave=False, **kwargs)

        return bar


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _seconds(value: float) -> str:
    return f"{value:.2f} s"


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else plural or word + 's'}"


def _out_format(path: str | None, given: str | None) -> str | None:
    if path is None:
        if given:
            raise UsageError("--out-format needs --out PATH")
        return None
    if given:
        return given
    suffix = Path(path).suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    if suffix in (".csv",):
        return "csv"
    raise UsageError(
        f"cannot tell the format of --out {path} from its name; "
        "end it in .jsonl or .csv, or give --out-format"
    )


def _is_within(path: str, folder: str) -> bool:
    """True when the real path ``path`` is ``folder`` or lies below it."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _looks_like_index(folder: str) -> bool:
    """True when ``folder`` holds the files every saved index has."""
    return os.path.isfile(os.path.join(folder, META_NAME)) and os.path.lexists(
        os.path.join(folder, LOCK_NAME)
    )


def _check_output(option: str, path: str, args: argparse.Namespace) -> None:
    """Refuse an output that would overwrite an input, land in an index folder, or have nowhere to go."""
    real = os.path.realpath(path)
    inputs = {os.path.realpath(p) for p in args.inputs}
    if real in inputs:
        raise UsageError(f"--{option} {path} is one of the inputs; write it elsewhere")
    index = getattr(args, "index", None)
    if index is not None and _is_within(real, os.path.realpath(index)):
        raise UsageError(
            f"--{option} {path} is inside the index folder {Path(index).as_posix()}, where it could "
            "overwrite the index; write it elsewhere"
        )
    if _looks_like_index(os.path.dirname(real)):
        raise UsageError(
            f"--{option} {path} is inside a saved index folder, where it could overwrite the index; "
            "write it elsewhere"
        )
    folders = [i for i in inputs if os.path.isdir(i)]
    if real.lower().endswith(".txt") and any(_is_within(real, folder) for folder in folders):
        raise UsageError(
            f"--{option} {path} is a .txt file inside an input folder, so a later run would read "
            "it as a document; write it elsewhere"
        )
    if os.path.isdir(path):
        raise UsageError(f"--{option} {path} is a folder; give a file name")
    parent = os.path.dirname(path) or "."
    if not os.path.isdir(parent):
        raise UsageError(f"--{option} {path}: the folder {parent} does not exist")


def _check_outputs(args: argparse.Namespace) -> None:
    """Check ``--out`` and ``--problems`` before anything is read (see :func:`_check_output`)."""
    for option in ("out", "problems"):
        path = getattr(args, option, None)
        if path is not None:
            _check_output(option, path, args)
    if args.out and args.problems and os.path.realpath(args.out) == os.path.realpath(args.problems):
        raise UsageError("--out and --problems name the same file")


_Writer = Callable[[IO[str]], None]


@contextlib.contextmanager
def _staged(reports: list[tuple[str, _Writer]]) -> Iterator[None]:
    """Write each report to a temporary file next to its path; move them all into place on success.

    The block runs after the reports are written and before they are moved:
    if it raises (the index could not be saved), every temporary file is
    removed and nothing is left behind.
    """
    with contextlib.ExitStack() as stack:
        for path, write in reports:
            write(stack.enter_context(atomic_writer(path)))
        yield


def _read(args: argparse.Namespace, console: _Console) -> tuple[ReadReport, float]:
    started = time.perf_counter()
    progress = console.progress()
    report = read_inputs(
        args.inputs,
        fmt=args.format,
        field=args.field,
        column=args.column,
        encoding=args.encoding,
        max_bytes=args.max_bytes,
        delimiter=args.delimiter,
        progress=(lambda items: progress(items, desc="reading", unit="record")) if progress else None,
    )
    return report, time.perf_counter() - started


def _check_outputs_after_reading(args: argparse.Namespace, report: ReadReport) -> None:
    """Refuse an output that is one of the files read, reached through a folder or a link."""
    for option in ("out", "problems"):
        path = getattr(args, option, None)
        if path is not None and os.path.realpath(path) in report.input_files:
            raise UsageError(f"--{option} {path} is one of the files read as input; write it elsewhere")


def _write_reports(reports: list[tuple[str, _Writer]]) -> None:
    """Write every report: all of them appear, or (on an error) none."""
    with _staged(reports):
        pass


def _report_problems(report: ReadReport, args: argparse.Namespace, console: _Console) -> None:
    for problem in report.problems[:_PROBLEMS_SHOWN]:
        console.warn(f"skipped {problem}")
    hidden = len(report.problems) - _PROBLEMS_SHOWN
    if hidden > 0:
        hint = f"all are in {args.problems}" if args.problems else "--problems PATH writes them all"
        console.warn(f"... and {_plural(hidden, 'more skipped input')}; {hint}")


def _problem_report(report: ReadReport, args: argparse.Namespace) -> list[tuple[str, _Writer]]:
    """The ``--problems`` file, if asked for, as a (path, writer) pair for :func:`_staged`."""
    if not args.problems:
        return []

    def write(f: IO[str]) -> None:
        for problem in report.problems:
            f.write(json.dumps(problem.to_dict(), ensure_ascii=False) + "\n")

    return [(args.problems, write)]


def _count_empty(texts: Sequence[str]) -> int:
    def empty(text: str) -> bool:
        head = text[:200]
        if any(c.isascii() and c.isalnum() for c in head):  # ASCII letters and digits always survive
            return False
        return not normalize(text)

    return sum(map(empty, texts))


def _read_summary(report: ReadReport, n_inputs: int, console: _Console) -> None:
    docs = report.documents
    console.say(f"documents read: {len(docs)} (from {_plural(n_inputs, 'input')})")
    empty = _count_empty([d.text for d in docs])
    if empty:
        console.say(
            f"  empty after normalisation: {empty} (kept as documents; they are exact copies of each other)"
        )
    if report.problems:
        counts = report.skipped
        parts = ", ".join(f"{label}: {counts[r]}" for r, label in REASONS.items() if counts[r])
        console.say(f"skipped inputs: {len(report.problems)} ({parts})")
    else:
        console.say("skipped inputs: 0")
    if report.blank_lines:
        console.say(f"blank lines passed over: {report.blank_lines}")
    if report.other_files:
        console.say(f"files in folders not ending in .txt, passed over: {report.other_files}")


def _explain(settings: Settings, origin: str, console: _Console) -> None:
    """Print the banding and its S-curve. ``origin``: "chosen", "given" or "index"."""
    b, r, t = settings.bands, settings.rows, settings.threshold

    def say(line: str) -> None:  # asked for explicitly, so printed even with --quiet
        print(line, file=console.out)

    fp, fn = RECALL_WEIGHTS
    how = {
        "chosen": f"chosen by optimal_params for threshold {t:g}, weighing missed pairs {fn:g} "
        f"and false candidates {fp:g}",
        "given": "as given by --bands and --rows",
        "index": "as stored in the index",
    }[origin]
    say(f"banding: {b} bands x {r} rows = {b * r} of {settings.num_perm} signature values, {how}")
    say(f"the S-curve rises most steeply near similarity {approx_threshold(b, r):.3f} = (1/{b})^(1/{r})")
    say("chance that a pair of documents becomes a candidate, by Jaccard similarity:")
    for s in sorted({*_SIMILARITIES, t}):
        mark = "  <- threshold" if s == t else ""
        say(f"  {s:.2f}: {s_curve(s, b, r):.4f}{mark}")
    say(f"candidates are then checked with their exact Jaccard similarity; pairs below {t:g} are dropped")


def _given_settings(args: argparse.Namespace) -> dict[str, object]:
    """The settings typed on the command line, by their names in :class:`~neardup_lab.settings.Settings`."""
    return {name: getattr(args, name) for name in _DEFAULTS if getattr(args, name, None) is not None}


def _settings(args: argparse.Namespace) -> Settings | None:
    """The one :class:`~neardup_lab.settings.Settings` of a dedup or build: given options, defaults for
    the rest. A value Settings refuses is a usage error (exit 2). Add and query use the index's.
    """
    if args.run not in (_run_dedup, _run_build):
        return None
    try:
        return Settings(**_given_settings(args))
    except (ValueError, TypeError) as err:
        args.parser.error(str(err))  # prints the command's usage and exits with 2
        raise


def _origin(args: argparse.Namespace) -> str:
    """Where the banding came from, for :func:`_explain`."""
    return "chosen" if args.bands is None else "given"


def _rows_writer(fmt: str, records: list[dict], csv_rows: list[dict], columns: list[str]) -> _Writer:
    def write(f: IO[str]) -> None:
        if fmt == "jsonl":
            for record in records:
                f.write(json.dumps(record, ensure_ascii=False) + "\n")
        else:
            writer = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
            writer.writeheader()
            writer.writerows(csv_rows)

    return write


def _exit_code(report: ReadReport) -> int:
    return EXIT_SKIPPED if report.problems else EXIT_OK


# ----- dedup ----------------------------------------------------------------------------


def _run_dedup(args: argparse.Namespace, console: _Console) -> int:
    out_format = _out_format(args.out, args.out_format)
    _check_outputs(args)
    settings = args.settings
    report, read_seconds = _read(args, console)
    _check_outputs_after_reading(args, report)
    _report_problems(report, args, console)
    texts = [d.text for d in report.documents]
    if not texts:
        console.warn("warning: no documents were read from the inputs")
    if args.explain:
        _explain(settings, _origin(args), console)
    result = _dedup(texts, settings, args, console)
    started = time.perf_counter()
    reports = _problem_report(report, args)
    if args.out:
        assert out_format is not None
        reports.append((args.out, _clusters_writer(out_format, result, [d.id for d in report.documents])))
    _write_reports(reports)
    write_seconds = time.perf_counter() - started
    _dedup_summary(report, result, settings, args, read_seconds, write_seconds, console)
    return _exit_code(report)


def _dedup(texts: list[str], settings: Settings, args: argparse.Namespace, console: _Console) -> DedupResult:
    """Run :func:`~neardup_lab.pipeline.dedup` with the command's settings.

    The pipeline checks its settings before any work; a setting it refuses
    is a usage error, not an internal one.
    """
    try:
        return dedup(texts, **settings.to_dict(), n_jobs=args.jobs, progress=console.bars)
    except ValueError as err:
        raise UsageError(str(err)) from None


def _clusters_writer(fmt: str, result: DedupResult, ids: list[str]) -> _Writer:
    keepers = result.keepers
    records, rows = [], []
    for number, (members, keeper) in enumerate(zip(result.clusters, keepers)):
        records.append(
            {
                "cluster": number,
                "size": len(members),
                "keeper": ids[keeper],
                "keeper_index": keeper,
                "ids": [ids[i] for i in members],
                "indices": members,
            }
        )
        for i in members:
            rows.append(
                {"cluster": number, "size": len(members), "index": i, "id": ids[i], "keep": i == keeper}
            )
    return _rows_writer(fmt, records, rows, ["cluster", "size", "index", "id", "keep"])


def _dedup_summary(
    report: ReadReport,
    result: DedupResult,
    settings: Settings,
    args: argparse.Namespace,
    read_seconds: float,
    write_seconds: float,
    console: _Console,
) -> None:
    _read_summary(report, len(args.inputs), console)
    stats = result.stats
    multi = sum(1 for c in result.clusters if len(c) > 1)
    console.say(f"exact copies: {int(stats['exact']['copies'])}")
    console.say(f"clusters: {len(result.clusters)} ({multi} with more than one document)")
    console.say(f"kept: {len(result.keepers)} (policy: {settings.keeper})")
    console.say(f"removed: {len(result.removed)}")
    console.say(
        f"settings: threshold {settings.threshold:g}, "
        f"{settings.k}-{settings.shingle} shingles, "
        f"{settings.num_perm} permutations, {settings.bands} bands x {settings.rows} rows"
    )
    if args.out:
        console.say(f"clusters written to {Path(args.out).as_posix()}")
    stages = [("read", read_seconds)] + [(name, s["seconds"]) for name, s in stats.items()]
    stages.append(("write", write_seconds))
    console.say("time: " + ", ".join(f"{name} {_seconds(sec)}" for name, sec in stages))


# ----- index ----------------------------------------------------------------------------


def _prefixed_ids(report: ReadReport, prefix: str) -> list[str]:
    return [prefix + d.id for d in report.documents]


def _match_records(ids: list[str], found: list[list[Match]]) -> tuple[list[dict], list[dict]]:
    records, rows = [], []
    for position, (doc_id, matches) in enumerate(zip(ids, found)):
        status = "duplicate" if matches else "new"
        records.append(
            {"id": doc_id, "position": position, "status": status, "matches": [m.to_dict() for m in matches]}
        )
        for m in matches or [None]:
            rows.append(
                {
                    "id": doc_id,
                    "position": position,
                    "status": status,
                    "match_id": m.id if m else "",
                    "match_in": ("index" if m.in_index else "batch") if m else "",
                    "jaccard": m.jaccard if m else "",
                    "exact": m.exact if m else "",
                }
            )
    return records, rows


def _describe(m: Match) -> str:
    where = "" if m.in_index else ", same batch"
    what = "exact copy" if m.exact else f"Jaccard {m.jaccard:.3f}"
    return f"{m.id} ({what}{where})"


def _match_summary(
    ids: list[str], found: list[list[Match]], console: _Console, *, index: bool, batch: bool
) -> None:
    dup_index = sum(1 for ms in found if any(m.in_index for m in ms))
    exact_index = sum(1 for ms in found if any(m.in_index and m.exact for m in ms))
    dup_batch = sum(1 for ms in found if ms and not any(m.in_index for m in ms))
    if index:
        exact = _plural(exact_index, "exact copy", "exact copies")
        console.say(f"duplicates of indexed documents: {dup_index} ({exact})")
    if batch:
        console.say(f"duplicates of earlier documents in this batch only: {dup_batch}")
    console.say(f"new (no duplicate found): {sum(1 for ms in found if not ms)}")
    shown = 0
    for doc_id, ms in zip(ids, found):
        if not ms:
            continue
        if shown == _MATCHES_SHOWN:
            rest = sum(1 for m in found if m) - shown
            console.say(f"  ... and {rest} more; --out PATH writes every match")
            break
        more = f" and {_plural(len(ms) - 1, 'more match', 'more matches')}" if len(ms) > 1 else ""
        console.say(f"  {doc_id} duplicates {_describe(ms[0])}{more}")
        shown += 1


def _run_index_batch(args: argparse.Namespace, console: _Console, action: str) -> int:
    out_format = _out_format(args.out, args.out_format)
    _check_outputs(args)
    if action == "build":
        settings, origin = args.settings, _origin(args)
        if os.path.lexists(args.index):
            raise UsageError(
                f"{Path(args.index).as_posix()} already exists; "
                "add to it with `index add`, or choose a new path"
            )
        index = SavedIndex(settings)
    else:  # the options given are checks: each must equal the index's setting
        index = SavedIndex.open(args.index, expect=_given_settings(args))
        settings, origin = index.settings, "index"
    before = len(index)
    report, read_seconds = _read(args, console)
    _check_outputs_after_reading(args, report)
    _report_problems(report, args, console)
    if args.explain:
        _explain(settings, origin, console)
    started = time.perf_counter()
    if action == "query":
        ids = [d.id for d in report.documents]
        found = index.query([d.text for d in report.documents], progress=console.bars)
    else:
        ids = _prefixed_ids(report, args.id_prefix)
        try:
            found = index.add(ids, [d.text for d in report.documents], progress=console.bars)
        except ValueError as err:
            raise UsageError(f"{err} (for example with --id-prefix)") from None
    match_seconds = time.perf_counter() - started
    reports = _problem_report(report, args)
    if args.out:
        records, rows = _match_records(ids, found)
        assert out_format is not None
        columns = ["id", "position", "status", "match_id", "match_in", "jaccard", "exact"]
        reports.append((args.out, _rows_writer(out_format, records, rows, columns)))
    started = time.perf_counter()
    # Reports are written first and moved into place only once the index is saved: a failed
    # save (another run wrote meanwhile, a read-only index) leaves neither behind.
    with _staged(reports):
        if action != "query":
            index.save(args.index)
    save_seconds = time.perf_counter() - started
    _read_summary(report, len(args.inputs), console)
    shown = Path(args.index).as_posix()
    if action == "build":
        console.say(f"index created: {shown} with {_plural(len(index), 'document')}")
    elif action == "add":
        console.say(f"index updated: {shown}, {before} -> {_plural(len(index), 'document')}")
    else:
        console.say(f"index searched: {shown} ({_plural(len(index), 'document')}, not changed)")
    _match_summary(ids, found, console, index=action != "build", batch=action != "query")
    if args.out:
        console.say(f"matches written to {Path(args.out).as_posix()}")
    times = [("read", read_seconds), ("match", match_seconds)]
    if action != "query":
        times.append(("save", save_seconds))
    console.say("time: " + ", ".join(f"{name} {_seconds(sec)}" for name, sec in times))
    if not report.documents:
        console.warn("warning: no documents were read from the inputs")
    return _exit_code(report)


def _run_build(args: argparse.Namespace, console: _Console) -> int:
    return _run_index_batch(args, console, "build")


def _run_add(args: argparse.Namespace, console: _Console) -> int:
    return _run_index_batch(args, console, "add")


def _run_query(args: argparse.Namespace, console: _Console) -> int:
    return _run_index_batch(args, console, "query")


def _run_info(args: argparse.Namespace, console: _Console) -> int:
    index = SavedIndex.open(args.index)
    info = index.info()
    s = index.settings
    console.say(f"index: {Path(args.index).as_posix()}")
    console.say(f"format version: {info['format_version']}")
    console.say(f"documents: {info['documents']} ({info['distinct_texts']} distinct texts)")
    console.say(f"threshold: {s.threshold:g}")
    console.say(f"shingles: {s.k}-{s.shingle}")
    console.say(f"signatures: {s.num_perm} values, scheme {s.scheme}, seed {s.seed}")
    console.say(f"banding: {s.bands} bands x {s.rows} rows")
    console.say(f"normalisation: {info['normalization']}")
    return EXIT_OK


# ----- entry point --------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``neardup-lab`` with ``argv`` (default: the command line); return the exit code.

    >>> main(["index", "info", "no-such-index"])
    2
    """
    if argv is None:  # the real command line: never fail on printing an odd file name
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(AttributeError, ValueError):
                stream.reconfigure(errors="backslashreplace")
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        args.settings = _settings(args)
    except SystemExit as stop:  # --help, --version, or a usage error (argparse says which)
        return int(stop.code) if isinstance(stop.code, int) else EXIT_ERROR
    console = _Console(quiet=getattr(args, "quiet", False))
    try:
        return args.run(args, console)
    except (UsageError, InputError, StoreError) as err:
        console.warn(f"error: {err}")
    except KeyboardInterrupt:
        console.warn("interrupted; no file was left half-written")
    except MemoryError:
        console.warn("error: out of memory; lower --max-bytes, split the inputs, or use a larger machine")
    except BrokenPipeError:
        sys.stderr.close()  # the reader of our output went away; nothing more to say
    except OSError as err:
        console.warn(f"error: {err.strerror or err}: {err.filename or ''}".rstrip(": "))
    except Exception as err:  # a bug: still exit 2, never 1, and say so plainly
        console.warn(
            f"internal error: {type(err).__name__}: {err}; please report this with the command you ran"
        )
    return EXIT_ERROR
