"""The command-line side of :mod:`neardup_lab.engine.explain`: ``explain A B`` and ``dedup --why``."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

from ..engine.explain import SHOWN_SHARED, explain, ties
from ..engine.pipeline import DedupResult
from ..readers import InputError, display, read_inputs
from ..settings import Settings
from ..support.validate import shown
from .console import Console, plural
from .options import EXIT_OK, add_command, add_hash_options, add_max_bytes, given_settings, whole
from .outputs import WHY_COLUMNS

__all__ = ["add_explain_command", "run_explain", "WHY_COLUMNS", "why_fields", "why_summary"]

_WHY_SHOWN = 20  # removed documents listed on the console; --out writes them all

_EXPLAIN_EPILOG = """\
examples:
  neardup-lab explain news/a.txt news/b.txt
  neardup-lab explain --text "Heavy rain closed the road" --text "heavy rain closed the bridge" -k 2
  neardup-lab explain a.txt b.txt --threshold 0.7 --bands 20 --rows 5 --shared 20

The settings are those of `neardup-lab dedup` and take the same options, so the
answer is what a dedup of the two texts would do with them.
"""


def add_explain_command(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``explain``, with dedup's settings options, to the subcommands ``commands``.

    >>> commands = argparse.ArgumentParser().add_subparsers(dest="command")
    >>> add_explain_command(commands).parse_args(["a.txt", "b.txt", "-k", "3"]).k
    3
    """
    about = "show why two texts are, or are not, paired by dedup: shingles, MinHash, bands, verification"
    heading = "Show the evidence dedup weighs for one pair of texts, step by step."
    p = add_command(commands, "explain", about, heading, _EXPLAIN_EPILOG)
    g = p.add_argument_group("input")
    g.add_argument("files", nargs="*", metavar="FILE", help="two text files, each read whole as one text")
    twice = "a text to compare; give it twice instead of files"
    g.add_argument("--text", action="append", metavar="TEXT", help=twice)
    g.add_argument("--encoding", default="utf-8", help="text encoding of the files (default: utf-8)")
    add_max_bytes(g, "a file")
    add_hash_options(p, from_index=False)
    g = p.add_argument_group("output")
    shown = f"list the first N shared shingles (default: {SHOWN_SHARED})"
    g.add_argument("--shared", type=whole, default=SHOWN_SHARED, metavar="N", help=shown)
    p.set_defaults(run=run_explain, parser=p)
    return p


def _read_file(path: str, args: argparse.Namespace) -> str:
    """The whole text of the file ``path``, read as ``dedup`` reads a .txt file."""
    if os.path.isdir(path):
        raise InputError(f"{display(path)} is a folder; explain compares two files")
    report = read_inputs([path], fmt="txt", encoding=args.encoding, max_bytes=args.max_bytes)
    if report.problems:
        raise InputError(f"cannot compare {report.problems[0]}")
    return report.documents[0].text


def _texts(args: argparse.Namespace) -> list[tuple[str, str]]:
    """The two texts to compare (two files, or two ``--text``), each with its label."""
    files, texts = args.files, args.text or []
    if files and texts:
        raise InputError("give two files or two --text options, not a mix of both")
    if len(files) + len(texts) != 2:
        got = f"{plural(len(files), 'file')}" if files else f"{len(texts)} --text"
        raise InputError(f"explain compares two texts: give two files, or --text twice; got {got}")
    if files:
        return [(display(path), _read_file(path, args)) for path in files]
    return [(f"--text {shown(text)}", text) for text in texts]


def run_explain(args: argparse.Namespace, console: Console) -> int:
    """``neardup-lab explain``: print the evidence for one pair of texts (bad input: ``InputError``).

    >>> from neardup_lab.cli.main import build_parser
    >>> args = build_parser().parse_args(["explain", "--text", "a b", "--text", "a c", "-k", "1"])
    >>> run_explain(args, Console(quiet=False))  # doctest: +ELLIPSIS
    a: --text 'a b'
    b: --text 'a c'
    words:            a 2, b 2 (after normalisation)
    1-word shingles:  a 2, b 2, shared 1, together 3
    exact Jaccard:    1 / 3 = 0.3333 (threshold 0.8)
    ...
    0
    """
    (label_a, a), (label_b, b) = _texts(args)
    try:
        settings = Settings(**given_settings(args))
    except (TypeError, ValueError) as err:
        raise InputError(str(err)) from None
    if args.shared < 0:
        raise InputError(f"--shared must be 0 or more, got {args.shared}")
    for line in [f"a: {label_a}", f"b: {label_b}", *explain(a, b, settings).lines(shown=args.shared)]:
        console.say(line)
    return EXIT_OK


def why_fields(result: DedupResult, docs: Sequence[str], ids: Sequence[str]) -> dict[int, dict[str, object]]:
    """For each document ``result`` removed, by index, the ``WHY_COLUMNS``: its pair closer to the keeper.

    >>> from neardup_lab.engine.pipeline import dedup
    >>> docs = ["a b c d e f g h", "a b c d e f g x", "A B C D E F G X"]
    >>> why_fields(dedup(docs, threshold=0.6, k=1), docs, ["x.txt", "y.txt", "z.txt"])[2]
    {'tied_to': 'y.txt', 'tied_to_index': 1, 'jaccard': 1.0, 'exact': True, 'steps': 2}
    """
    if len(ids) != len(docs):
        raise ValueError(f"got {len(ids)} ids for {len(docs)} documents; give one id per document")
    tied = list(ties(result, docs))
    values = [(ids[t.neighbour], t.neighbour, round(t.jaccard, 6), t.exact_copy, t.steps) for t in tied]
    return {t.document: dict(zip(WHY_COLUMNS, v)) for t, v in zip(tied, values)}


def why_summary(console: Console, why: dict[int, dict[str, object]], ids: Sequence[str]) -> None:
    """Print the first removed documents with the pair that tied each to its cluster.

    >>> why_summary(Console(quiet=False), {2: {"tied_to": "y.txt", "jaccard": 0.8, "exact": False,
    ...                                       "steps": 2}}, ["x.txt", "y.txt", "z.txt"])
    why removed (each document, the one it was paired with, and their exact Jaccard):
      z.txt ~ y.txt (Jaccard 0.800), 2 pairs from its keeper
    """
    if not why:
        return
    console.say("why removed (each document, the one it was paired with, and their exact Jaccard):")
    for doc, fields in list(why.items())[:_WHY_SHOWN]:
        how = "exact copy" if fields["exact"] else f"Jaccard {fields['jaccard']:.3f}"
        far = f", {fields['steps']} pairs from its keeper" if fields["steps"] != 1 else ""
        console.say(f"  {ids[doc]} ~ {fields['tied_to']} ({how}){far}")
    if len(why) > _WHY_SHOWN:
        console.say(f"  ... and {len(why) - _WHY_SHOWN} more; --out PATH writes them all")
