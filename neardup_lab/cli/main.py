"""The ``neardup-lab`` command: deduplicate your own files, or keep a saved index for daily batches.

Two commands::

    neardup-lab dedup INPUT... [--out clusters.jsonl]
    neardup-lab index build|add|query|info INDEX [INPUT...]

Inputs are folders of ``.txt`` files, JSONL files (one JSON object per line,
text in ``--field``), CSV files (with a header row, text in ``--column``),
any of these compressed (``.gz``, ``.zst``), and Parquet files (text in
``--column``); records may carry their own ids (``--id-field``,
``--id-column``); see :mod:`neardup_lab.readers`. ``--keep-out`` writes the
deduplicated data itself, in the inputs' format. The saved index is described in
:mod:`neardup_lab.index.store`.

This module is the parsing: the argument tree, its help texts and the
checks of single values. The commands themselves are in
:mod:`neardup_lab.cli.commands`, what they print in :mod:`neardup_lab.cli.console`
and the files they write in :mod:`neardup_lab.cli.outputs`.

Exit codes: 0 when everything was read and done; 1 when the work was done
but some inputs were skipped (each one is reported on standard error with
its file and line, and counted in the summary); 2 for a usage error or a
fatal error, in which case nothing was written.

The same run from Python:

>>> from neardup_lab.cli.main import main
>>> main(["dedup", "--help"])  # doctest: +ELLIPSIS
usage: neardup-lab dedup ...
0
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import sys
from collections.abc import Sequence

from ..clusters import KEEPER_POLICIES
from ..engine.settings import SHINGLE_KINDS, Settings
from ..index.fileformat import StoreError
from ..minhash import SCHEMES
from ..readers import DEFAULT_MAX_BYTES, FORMATS, InputError
from .commands import EXIT_ERROR, EXIT_OK, EXIT_SKIPPED, given_settings, run_dedup, run_index, run_info
from .console import PROG, Console
from .explain import add_explain_command
from .outputs import OUT_FORMATS, UsageError

__all__ = ["main", "build_parser", "EXIT_OK", "EXIT_SKIPPED", "EXIT_ERROR"]

#: Schemes offered on the command line; "small-affine" is a deliberately weak hash for teaching.
CLI_SCHEMES = tuple(s for s in SCHEMES if s != "small-affine")
#: Most workers --jobs accepts (threads for signing, processes for verification).
MAX_JOBS = 256
_DEFAULTS = {f.name: f.default for f in dataclasses.fields(Settings)}

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


# ----- argument parsing ---------------------------------------------------------------


def _echo(text: str) -> str:
    """``text`` quoted for an error message, cut short when it is long."""
    return repr(text) if len(text) <= 40 else repr(text[:37]) + "..."


def _number(text: str, kind: type[float] | type[int] = float) -> float:
    """A number (``kind=int``: a whole one); its range is checked by :class:`~.settings.Settings`.

    >>> _number("0.7"), _number("128", int)
    (0.7, 128)
    """
    try:
        return kind(text)
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"expected {what}, got {_echo(text)}") from None


def _whole(text: str) -> int:
    """A whole number, as for :func:`_number`."""
    return int(_number(text, int))


def _jobs(text: str) -> int:
    """A number of workers: 1..MAX_JOBS, or -1 for all cores.

    >>> _jobs("-1")
    -1
    """
    value = _whole(text)
    if value == 0 or value < -1:
        raise argparse.ArgumentTypeError(
            f"must be a positive number of workers, or -1 for all cores; got {text}"
        )
    if value > MAX_JOBS:  # every worker is started up front: a typo must not start thousands
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
        help="folders of .txt files, .jsonl/.ndjson files, .csv/.tsv files (each also as .gz or .zst), "
        ".parquet files",
    )
    g.add_argument(
        "--format",
        choices=("auto", *FORMATS),
        default="auto",
        help="how to read files (default: from the file name)",
    )
    g.add_argument("--field", default="text", help="JSONL field holding the text (default: text)")
    g.add_argument("--column", default="text", help="CSV or Parquet column holding the text (default: text)")
    g.add_argument(
        "--id-field",
        metavar="FIELD",
        help="JSONL field holding each record's own id, a dotted path for nested fields such as meta.id "
        "(default: ids are path:line)",
    )
    g.add_argument(
        "--id-column",
        metavar="COLUMN",
        help="CSV or Parquet column holding each record's own id (default: ids are path:line or path:row)",
    )
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
    """Options named after the fields of :class:`~neardup_lab.engine.settings.Settings`, which checks them."""
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
    from .. import __version__

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
        "--jobs",
        type=_jobs,
        default=1,
        metavar="N",
        help="workers for signing and verification (-1: all cores; default: 1)",
    )
    g.add_argument(
        "--why", action="store_true", help="add to each removed document the pair that tied it to its cluster"
    )
    _add_output_options(p, "the clusters")
    g = p.add_argument_group(
        "deduplicated data (in the inputs' format: JSONL lines as read, CSV rows under "
        "the header, Parquet rows with the schema, paths for .txt files)"
    )
    g.add_argument("--keep-out", metavar="PATH", help="write the records kept (one per cluster) to PATH")
    g.add_argument("--removed-out", metavar="PATH", help="write the records removed as duplicates to PATH")
    p.set_defaults(run=run_dedup, parser=p)
    add_explain_command(commands)

    index = commands.add_parser(
        "index",
        help="a saved index on disk for documents that arrive in batches",
        description="Keep a saved index of documents and check new batches against it.",
        epilog=_INDEX_EPILOG,
        formatter_class=fmt,
    )
    actions = index.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, help_text in [
        ("build", "create a new index from a first batch (reports duplicates inside it)"),
        ("add", "report which new documents duplicate indexed ones or each other, then insert all"),
        ("query", "report duplicates in the index of some documents, without inserting them"),
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
        a.add_argument(
            "--new-out",
            metavar="PATH",
            help="write the records that duplicate no earlier document to PATH, in the inputs' format",
        )
        a.set_defaults(run=run_index, parser=a)
    info = actions.add_parser(
        "info", help="print an index's settings and size", description="Print an index's settings and size."
    )
    info.add_argument("index", metavar="INDEX", help="the index folder")
    info.set_defaults(run=run_info)
    return parser


def _new_settings(args: argparse.Namespace) -> Settings:
    """The settings of a dedup or a new index: the options given, defaults for the rest.

    A value :class:`~neardup_lab.engine.settings.Settings` refuses is a usage error (exit 2).
    """
    try:
        return Settings(**given_settings(args))
    except (ValueError, TypeError) as err:
        args.parser.error(str(err))  # prints the command's usage and exits with 2
        raise


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
    try:
        args = build_parser().parse_args(argv)
        if args.command == "dedup" or getattr(args, "action", None) == "build":
            args.settings = _new_settings(args)
    except SystemExit as stop:  # --help, --version, or a usage error (argparse says which)
        return int(stop.code) if isinstance(stop.code, int) else EXIT_ERROR
    console = Console(quiet=getattr(args, "quiet", False))
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
