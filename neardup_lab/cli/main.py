"""The ``neardup-lab`` command's arguments, help and entry point. Exit codes: 0 done; 1 done, but
some inputs were skipped; 2 a usage or fatal error (nothing written but a device).

>>> main(["dedup", "--help"])  # doctest: +ELLIPSIS
usage: neardup-lab dedup ...
0
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import traceback
import warnings
from collections.abc import Sequence

from .. import __version__
from ..engine.workers import IN_BROWSER
from ..index import StoreError
from ..readers import FORMATS, InputError
from ..settings import Settings
from .commands import run_dedup, run_index, run_info
from .console import PROG, Console
from .explain import add_explain_command
from .options import (
    EXIT_ERROR,
    Parser,
    add_command,
    add_hash_options,
    add_max_bytes,
    add_setting_options,
    delimiter,
    encoding,
    given_settings,
    jobs,
)
from .outputs import OUT_FORMATS, UsageError, writes_to_stdout

__all__ = ["main", "build_parser", "DEBUG_ENV"]

#: Set in the environment, an internal error prints its traceback too.
DEBUG_ENV = "NEARDUP_LAB_DEBUG"

_MAIN_EPILOG = """\
examples:
  neardup-lab dedup news/ --out clusters.jsonl
  neardup-lab dedup data.jsonl --id-field id --keep-out deduped.jsonl
  neardup-lab dedup articles.jsonl --field body --threshold 0.7 --explain
  neardup-lab dedup news/ --out clusters.csv --why
  neardup-lab explain news/a.txt news/b.txt
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
  neardup-lab dedup crawl.jsonl.zst --id-field meta.url --keep-out deduped.jsonl.zst
  neardup-lab dedup shard.parquet --column text --id-column id --keep-out kept.parquet
  neardup-lab dedup posts.csv --column text --keep longest --explain
  neardup-lab dedup notes/ --shingle char --shingle-size 4 --threshold 0.7

Every document appears in exactly one cluster of the output; the keeper of each
cluster is the one to keep, the others are its duplicates. A document with no words
after normalisation is kept on its own: an empty text is nobody's copy.
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
  neardup-lab index add news.idx day2.jsonl --id-field id --new-out day2-new.jsonl
  neardup-lab index add news.idx today.jsonl --id-prefix 2026-03-02/

Document ids must be new: adding the same file twice is refused, and nothing changes.
""",
    "query": """\
examples:
  neardup-lab index query news.idx draft.txt
  neardup-lab index query news.idx candidates.jsonl --out matches.jsonl
""",
}


def _add_input_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("input")
    kinds = ".jsonl/.ndjson files, .csv/.tsv files (each also as .gz or .zst), .parquet files"
    g.add_argument("inputs", nargs="+", metavar="INPUT", help="folders of .txt files, " + kinds)
    how = "how to read files (default: from the file name)"
    g.add_argument("--format", choices=("auto", *FORMATS), default="auto", help=how)
    g.add_argument("--field", default="text", help="JSONL field holding the text (default: text)")
    g.add_argument("--column", default="text", help="CSV or Parquet column holding the text (default: text)")
    nested = "JSONL field holding each record's own id, a dotted path for nested fields such as meta.id"
    g.add_argument("--id-field", metavar="FIELD", help=nested + " (default: ids are path:line)")
    own = "CSV or Parquet column holding each record's own id (default: ids are path:line or path:row)"
    g.add_argument("--id-column", metavar="COLUMN", help=own)
    tab = "CSV delimiter, one character, \\t for a tab (default: ',' or a tab for .tsv)"
    g.add_argument("--delimiter", type=delimiter, default=None, help=tab)
    what = "text encoding of the files (default: utf-8)"
    g.add_argument("--encoding", type=encoding, default="utf-8", help=what)
    add_max_bytes(g, "documents", "; refused documents are reported and counted")
    links = "follow symbolic links in folders, if they stay inside the folder (default: report them)"
    g.add_argument("--follow-links", action="store_true", help=links)


def _add_output_options(p: argparse.ArgumentParser, what: str) -> None:
    g = p.add_argument_group("output")
    g.add_argument("--out", metavar="PATH", help=f"write {what} to PATH (.jsonl or .csv)")
    g.add_argument("--out-format", choices=OUT_FORMATS, help="format of --out (default: from its name)")
    g.add_argument("--problems", metavar="PATH", help="write every skipped input to PATH as JSONL")
    g.add_argument("--explain", action="store_true", help="print the chosen bands and rows and the S-curve")
    null = "end each path listed for .txt inputs with a NUL byte, not a newline (for xargs -0)"
    g.add_argument("--null", action="store_true", help=null)
    quiet = "no progress bars and no summary (problems are still reported)"
    g.add_argument("-q", "--quiet", action="store_true", help=quiet)


def _add_dedup_command(commands: argparse._SubParsersAction) -> None:
    about = "cluster near-duplicates in a set of files and pick one document to keep per cluster"
    heading = "Cluster near-duplicate documents and choose one keeper per cluster."
    p = add_command(commands, "dedup", about, heading, _DEDUP_EPILOG)
    _add_input_options(p)
    add_hash_options(p, from_index=False)
    g = p.add_argument_group("clusters")
    add_setting_options(g, ["keeper", "max_df"])
    workers = "workers for signing and verification (-1: all cores; default: 1)"
    g.add_argument("--jobs", type=jobs, default=1, metavar="N", help=workers)
    why = "add to each removed document the pair that tied it to its cluster"
    g.add_argument("--why", action="store_true", help=why)
    _add_output_options(p, "the clusters")
    g = p.add_argument_group(
        "deduplicated data (in the inputs' format: JSONL lines as read, CSV rows under "
        "the header, Parquet rows with the schema, paths for .txt files)"
    )
    g.add_argument("--keep-out", metavar="PATH", help="write the records kept (one per cluster) to PATH")
    g.add_argument("--removed-out", metavar="PATH", help="write the records removed as duplicates to PATH")
    p.set_defaults(run=run_dedup, parser=p)


_ACTIONS = {
    "build": "create a new index from a first batch (reports duplicates inside it)",
    "add": "report which new documents duplicate indexed ones or each other, then insert all",
    "query": "report duplicates in the index of some documents, without inserting them",
}


def _add_index_command(commands: argparse._SubParsersAction) -> None:
    about = "a saved index on disk for documents that arrive in batches"
    heading = "Keep a saved index of documents and check new batches against it."
    index = add_command(commands, "index", about, heading, _INDEX_EPILOG)
    actions = index.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, help_text in _ACTIONS.items():
        description = help_text[0].upper() + help_text[1:] + "."
        a = add_command(actions, name, help_text, description, _ACTION_EPILOGS[name])
        a.add_argument("index", metavar="INDEX", help="the index folder")
        _add_input_options(a)
        add_hash_options(a, from_index=name != "build")
        if name != "query":
            unique = "put this before every document id (to keep ids unique)"
            a.add_argument("--id-prefix", default="", metavar="PREFIX", help=unique)
        _add_output_options(a, "one record per document with its matches")
        new = "write the records that duplicate no earlier document to PATH, in the inputs' format"
        a.add_argument("--new-out", metavar="PATH", help=new)
        a.set_defaults(run=run_index, parser=a)
    about = "print an index's settings and size"
    info = add_command(actions, "info", about, "Print an index's settings and size.")
    info.add_argument("index", metavar="INDEX", help="the index folder")
    info.set_defaults(run=run_info)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``neardup-lab`` (exposed for documentation and tests).

    >>> build_parser().parse_args(["dedup", "news/"]).command
    'dedup'
    """
    parser = Parser(
        prog=PROG,
        description="Find near-duplicate documents in your own text files with MinHash and LSH.",
        epilog=_MAIN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_dedup_command(commands)
    add_explain_command(commands)
    _add_index_command(commands)
    return parser


def _show_warning(message: Warning | str, *_: object, **__: object) -> None:
    """Show a warning as a line of its own, not a line of the source."""
    Console(quiet=True).warn(f"warning: {message}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``neardup-lab`` with ``argv``; return the exit code (without ``argv``, set up the process).

    >>> main(["index", "info", "no-such-index"])
    2
    """
    if argv is None:
        for stream in (sys.stdout, sys.stderr):  # never fail on printing an odd file name
            if isinstance(stream, io.TextIOWrapper):
                stream.reconfigure(errors="backslashreplace")
        warnings.showwarning = _show_warning
    try:
        args = build_parser().parse_args(argv)
        if args.command == "dedup" or getattr(args, "action", None) == "build":  # settings of a new run
            try:
                args.settings = Settings(**given_settings(args))
            except (ValueError, TypeError) as err:
                args.parser.error(str(err))  # prints the command's usage and exits with 2
    except SystemExit as stop:  # --help, --version, or a usage error
        return int(stop.code) if isinstance(stop.code, int) else EXIT_ERROR
    # An output on stdout gets stdout to itself: the summary goes to stderr.
    console = Console(quiet=getattr(args, "quiet", False), out=sys.stderr if writes_to_stdout(args) else None)
    if IN_BROWSER:
        console.warn(
            "error: the command line runs on a computer, not in the browser's Python, which has no "
            "files of yours and no processes; in the page, call the Python API: "
            "neardup_lab.dedup(texts), neardup_lab.explain(a, b) or neardup_lab.index.SavedIndex()"
        )
        return EXIT_ERROR
    try:
        return args.run(args, console)
    except (UsageError, InputError, StoreError) as err:
        console.warn("; ".join([f"error: {err}", *getattr(err, "__notes__", [])]))
    except KeyboardInterrupt as stop:
        notes = getattr(stop, "__notes__", ["no file was left half-written"])
        console.warn("; ".join(["interrupted", *notes]))
    except MemoryError:
        console.warn("error: out of memory; lower --max-bytes, split the inputs, or use a larger machine")
    except BrokenPipeError:
        pass  # the reader of our output went away
    except OSError as err:
        console.warn(f"error: {err.strerror or err}: {err.filename or ''}".rstrip(": "))
    except Exception as err:  # a bug: still exit 2, never 1, and say so plainly
        if os.environ.get(DEBUG_ENV):
            traceback.print_exc(file=console.err)
        console.warn(
            f"internal error: {type(err).__name__}: {err}; please report this with the command you ran "
            f"(and the traceback {DEBUG_ENV}=1 prints)"
        )
    return EXIT_ERROR
