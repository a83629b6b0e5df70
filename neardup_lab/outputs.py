"""The files the ``neardup-lab`` command writes (``--out``, ``--problems``), and where it may write them.

An output may never overwrite an input, land inside an index folder, or be a
``.txt`` file in an input folder (a later run would read it as a document):
:func:`check_outputs` refuses such paths before anything is read, and
:func:`check_not_read` after reading, when the inputs reached through folders
and links are known. Every file is written by a :data:`Writer` under a
temporary name next to its path, and :func:`staged` moves them all into place
only when the whole run succeeded.

>>> import io
>>> f = io.StringIO()
>>> problems_writer([])(f)
>>> f.getvalue()
''
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO

from .console import posix
from .indexfile import LOCK_NAME, META_NAME, atomic_writer
from .pipeline import DedupResult
from .readers import Problem
from .store import Match

__all__ = [
    "OUT_FORMATS",
    "UsageError",
    "Writer",
    "check_outputs",
    "check_not_read",
    "staged",
    "clusters_writer",
    "matches_writer",
    "problems_writer",
]

OUT_FORMATS = ("jsonl", "csv")
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
        raise UsageError(
            f"cannot tell the format of --out {path} from its name; "
            "end it in .jsonl or .csv, or give --out-format"
        )
    return fmt


def _is_within(path: str, folder: str) -> bool:
    """True when the real path ``path`` is ``folder`` or lies below it."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _looks_like_index(folder: str) -> bool:
    """True when ``folder`` holds the files every saved index has."""
    return os.path.isfile(os.path.join(folder, META_NAME)) and os.path.lexists(
        os.path.join(folder, LOCK_NAME)
    )


def _check_output(option: str, path: str, args: argparse.Namespace) -> None:
    real = os.path.realpath(path)
    inputs = {os.path.realpath(p) for p in args.inputs}
    if real in inputs:
        raise UsageError(f"--{option} {path} is one of the inputs; write it elsewhere")
    index = getattr(args, "index", None)
    if index is not None and _is_within(real, os.path.realpath(index)):
        raise UsageError(
            f"--{option} {path} is inside the index folder {posix(index)}, where it could "
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


def check_outputs(args: argparse.Namespace) -> str | None:
    """Refuse ``--out``/``--problems`` able to overwrite an input or an index; return ``--out``'s format.

    Run before anything is read. Raises :class:`UsageError` naming the option.

    >>> check_outputs(argparse.Namespace(inputs=["news"], out="c.csv", out_format=None, problems=None))
    'csv'
    """
    fmt = _out_format(args.out, args.out_format)
    for option in ("out", "problems"):
        path = getattr(args, option)
        if path is not None:
            _check_output(option, path, args)
    if args.out and args.problems and os.path.realpath(args.out) == os.path.realpath(args.problems):
        raise UsageError("--out and --problems name the same file")
    return fmt


def check_not_read(args: argparse.Namespace, input_files: set[str]) -> None:
    """Refuse an output that is one of the files read (``input_files``, real paths) via a folder or a link.

    >>> check_not_read(argparse.Namespace(out="c.jsonl", problems=None), set())
    """
    for option in ("out", "problems"):
        path = getattr(args, option)
        if path is not None and os.path.realpath(path) in input_files:
            raise UsageError(f"--{option} {path} is one of the files read as input; write it elsewhere")


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


def clusters_writer(fmt: str, result: DedupResult, ids: list[str]) -> Writer:
    """Write ``result``'s clusters: one JSON line per cluster, or a CSV row per document.

    >>> import io
    >>> from neardup_lab.pipeline import dedup
    >>> f = io.StringIO()
    >>> clusters_writer("csv", dedup(["a b", "a b"], k=1), ["x", "y"])(f)
    >>> print(f.getvalue().strip())
    cluster,size,index,id,keep
    0,2,0,x,True
    0,2,1,y,False
    """
    nested, flat = [], []
    for number, (members, keeper) in enumerate(zip(result.clusters, result.keepers)):
        nested.append(
            {
                "cluster": number,
                "size": len(members),
                "keeper": ids[keeper],
                "keeper_index": keeper,
                "ids": [ids[i] for i in members],
                "indices": members,
            }
        )
        flat += [
            {"cluster": number, "size": len(members), "index": i, "id": ids[i], "keep": i == keeper}
            for i in members
        ]
    return _rows_writer(fmt, nested, flat, ["cluster", "size", "index", "id", "keep"])


def matches_writer(fmt: str, ids: list[str], found: list[list[Match]]) -> Writer:
    """Write each document's matches: one JSON line per document, or a CSV row per match.

    >>> import io
    >>> f = io.StringIO()
    >>> matches_writer("jsonl", ["a"], [[]])(f)
    >>> f.getvalue()
    '{"id": "a", "position": 0, "status": "new", "matches": []}\\n'
    """
    nested, flat = [], []
    for position, (doc_id, matches) in enumerate(zip(ids, found)):
        status = "duplicate" if matches else "new"
        nested.append(
            {"id": doc_id, "position": position, "status": status, "matches": [m.to_dict() for m in matches]}
        )
        flat += [
            {
                "id": doc_id,
                "position": position,
                "status": status,
                "match_id": m.id if m else "",
                "match_in": ("index" if m.in_index else "batch") if m else "",
                "jaccard": m.jaccard if m else "",
                "exact": m.exact if m else "",
            }
            for m in matches or [None]
        ]
    columns = ["id", "position", "status", "match_id", "match_in", "jaccard", "exact"]
    return _rows_writer(fmt, nested, flat, columns)


def problems_writer(problems: Sequence[Problem]) -> Writer:
    """Write every skipped input as a JSON line (the ``--problems`` file).

    >>> import io
    >>> f = io.StringIO()
    >>> problems_writer([Problem("a.txt", None, "binary", "NUL byte")])(f)
    >>> f.getvalue()
    '{"source": "a.txt", "line": null, "reason": "binary", "message": "NUL byte"}\\n'
    """

    def write(f: IO[str]) -> None:
        f.writelines(json.dumps(problem.to_dict(), ensure_ascii=False) + "\n" for problem in problems)

    return write
