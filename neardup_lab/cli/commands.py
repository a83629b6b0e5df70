"""The commands of ``neardup-lab``: each takes the parsed arguments and a console and returns the exit code.

:func:`run_dedup` is ``neardup-lab dedup``, :func:`run_index` is ``index
build``, ``add`` and ``query``, and :func:`run_info` is ``index info``. They
read the inputs with :func:`~neardup_lab.readers.read_inputs`, do the work with
:func:`~neardup_lab.engine.pipeline.dedup` or :class:`~neardup_lab.index.store.SavedIndex`,
write the files of :mod:`neardup_lab.cli.outputs` and print the summaries of
:mod:`neardup_lab.cli.console`. The arguments come from
:func:`neardup_lab.cli.main.build_parser`, with ``args.settings`` set by
:func:`neardup_lab.cli.main.main` for ``dedup`` and ``index build``.

>>> from neardup_lab.cli.main import main
>>> main(["index", "info", "no-such-index"])
2
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import time

from ..engine.pipeline import dedup
from ..engine.settings import Settings
from ..index.store import SavedIndex
from ..readers import ReadReport, read_inputs
from .console import Console, dedup_summary, explain, match_summary, plural, posix, read_summary, warn_skipped
from .explain import why_fields, why_summary
from .outputs import (
    UsageError,
    Writer,
    check_not_read,
    check_outputs,
    clusters_writer,
    matches_writer,
    problems_writer,
    records_format,
    records_writer,
    staged,
)

__all__ = ["EXIT_OK", "EXIT_SKIPPED", "EXIT_ERROR", "given_settings", "run_dedup", "run_index", "run_info"]

EXIT_OK, EXIT_SKIPPED, EXIT_ERROR = 0, 1, 2
_SETTING_NAMES = [f.name for f in dataclasses.fields(Settings)]


def given_settings(args: argparse.Namespace) -> dict[str, object]:
    """The settings typed on the command line, by their names in :class:`~.settings.Settings`.

    >>> given_settings(argparse.Namespace(threshold=0.7, k=None))
    {'threshold': 0.7}
    """
    return {name: getattr(args, name) for name in _SETTING_NAMES if getattr(args, name, None) is not None}


def _read(args: argparse.Namespace, console: Console) -> tuple[ReadReport, float]:
    """Read the inputs, refuse an output among the files read, and report what was skipped."""
    started = time.perf_counter()
    bar = console.progress()
    report = read_inputs(
        args.inputs,
        fmt=args.format,
        field=args.field,
        column=args.column,
        encoding=args.encoding,
        max_bytes=args.max_bytes,
        delimiter=args.delimiter,
        id_field=args.id_field,
        id_column=args.id_column,
        progress=(lambda items: bar(items, desc="reading", unit="record")) if bar else None,
    )
    seconds = time.perf_counter() - started
    check_not_read(args, report.input_files)
    warn_skipped(console, report, args.problems)
    if not report.documents:
        console.warn("warning: no documents were read from the inputs")
    return report, seconds


def _explain(args: argparse.Namespace, console: Console, settings: Settings, stored: bool = False) -> None:
    """With ``--explain``, print the banding: ``stored`` in the index, or chosen or given for this run."""
    if args.explain:
        explain(console, settings, "index" if stored else "chosen" if args.bands is None else "given")


def _outputs(
    args: argparse.Namespace,
    report: ReadReport,
    out: Writer | None,
    records: dict[str, list[int]],
    kind: str | None,
) -> list[tuple[str, Writer]]:
    """The files asked for, as (path, writer) pairs for :func:`~neardup_lab.cli.outputs.staged`.

    ``records`` holds, for each record option (``keep_out``...), the documents it writes.
    """
    outputs = [(args.problems, problems_writer(report.problems))] if args.problems else []
    for option, chosen in records.items():
        path = getattr(args, option)
        if path and kind:
            outputs.append((path, records_writer(kind, path, report, chosen, args)))
    return outputs + ([(args.out, out)] if out else [])


def _finish(
    console: Console, report: ReadReport, args: argparse.Namespace, what: str, times: list[tuple[str, float]]
) -> int:
    """Print where ``what`` was written and the time per stage; return the exit code."""
    if args.out:
        console.say(f"{what} written to {posix(args.out)}")
    for option, what in [("keep_out", "kept"), ("removed_out", "removed"), ("new_out", "new")]:
        path = getattr(args, option, None)
        if path:
            console.say(f"{what} records written to {posix(path)}")
    console.times(times)
    return EXIT_SKIPPED if report.problems else EXIT_OK


def run_dedup(args: argparse.Namespace, console: Console) -> int:
    """``neardup-lab dedup``: cluster the inputs' documents, write the clusters, print a summary.

    >>> import tempfile, pathlib
    >>> from neardup_lab.cli.main import build_parser
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = pathlib.Path(tmp, "a.txt").write_text("heavy rain in the city")
    ...     args = build_parser().parse_args(["dedup", tmp, "--quiet"])
    ...     args.settings = Settings()
    ...     run_dedup(args, Console(quiet=True))
    0
    """
    fmt = check_outputs(args)
    kind = records_format(args)
    report, read_seconds = _read(args, console)
    settings = args.settings
    _explain(args, console, settings)
    try:
        result = dedup(
            [d.text for d in report.documents], **settings.to_dict(), n_jobs=args.jobs, progress=console.bars
        )
    except ValueError as err:  # a setting the pipeline refuses is the user's to change
        raise UsageError(str(err)) from None
    ids = [d.id for d in report.documents]
    why = why_fields(result, [d.text for d in report.documents], ids) if args.why else None
    started = time.perf_counter()
    records = {"keep_out": result.keepers, "removed_out": result.removed}
    with staged(
        _outputs(args, report, clusters_writer(fmt, result, ids, why) if fmt else None, records, kind)
    ):
        pass  # nothing else must succeed first: move the files into place now
    write_seconds = time.perf_counter() - started
    read_summary(console, report, len(args.inputs))
    dedup_summary(console, result, settings)
    if why is not None:
        why_summary(console, why, ids)
    stages = [("read", read_seconds), *((name, s["seconds"]) for name, s in result.stats.items())]
    return _finish(console, report, args, "clusters", [*stages, ("write", write_seconds)])


def run_index(args: argparse.Namespace, console: Console) -> int:
    """``neardup-lab index build|add|query`` (``args.action``): match the inputs against a saved index.

    ``build`` creates the index, ``add`` inserts the documents after matching
    them, ``query`` only matches. The index is saved before the output files
    are moved into place, so a failed save leaves neither behind.

    >>> import tempfile, pathlib
    >>> from neardup_lab.cli.main import build_parser
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = pathlib.Path(tmp, "a.txt").write_text("heavy rain in the city")
    ...     args = build_parser().parse_args(["index", "build", f"{tmp}/idx", f"{tmp}/a.txt", "--quiet"])
    ...     args.settings = Settings()
    ...     run_index(args, Console(quiet=True))
    0
    """
    fmt = check_outputs(args)
    kind = records_format(args)
    if args.action == "build":
        if os.path.lexists(args.index):
            raise UsageError(
                f"{posix(args.index)} already exists; add to it with `index add`, or choose a new path"
            )
        index = SavedIndex(args.settings)
    else:  # the options given are checks: each must equal the index's setting
        index = SavedIndex.open(args.index, expect=given_settings(args))
    before = len(index)
    report, read_seconds = _read(args, console)
    _explain(args, console, index.settings, stored=args.action != "build")
    started = time.perf_counter()
    texts = [d.text for d in report.documents]
    if args.action == "query":
        ids = [d.id for d in report.documents]
        found = index.query(texts, progress=console.bars)
    else:
        ids = [args.id_prefix + d.id for d in report.documents]
        try:
            found = index.add(ids, texts, progress=console.bars)
        except ValueError as err:
            raise UsageError(f"{err} (for example with --id-prefix)") from None
    times = [("read", read_seconds), ("match", time.perf_counter() - started)]
    started = time.perf_counter()
    new = {"new_out": [i for i, matches in enumerate(found) if not matches]}
    with staged(_outputs(args, report, matches_writer(fmt, ids, found) if fmt else None, new, kind)):
        if args.action != "query":
            index.save(args.index)
            times.append(("save", time.perf_counter() - started))
    read_summary(console, report, len(args.inputs))
    size = plural(len(index), "document")
    console.say(
        {
            "build": f"index created: {posix(args.index)} with {size}",
            "add": f"index updated: {posix(args.index)}, {before} -> {size}",
            "query": f"index searched: {posix(args.index)} ({size}, not changed)",
        }[args.action]
    )
    match_summary(console, ids, found, index=args.action != "build", batch=args.action != "query")
    return _finish(console, report, args, "matches", times)


def run_info(args: argparse.Namespace, console: Console) -> int:
    """``neardup-lab index info``: print a saved index's settings and size.

    >>> from neardup_lab.cli.main import build_parser
    >>> run_info(build_parser().parse_args(["index", "info", "no-such-index"]), Console(quiet=False))
    Traceback (most recent call last):
        ...
    neardup_lab.index.fileformat.StoreError: no index at no-such-index; build one first (...)
    """
    index = SavedIndex.open(args.index)
    info = index.info()
    s = index.settings
    console.say(f"index: {posix(args.index)}")
    console.say(f"format version: {info['format_version']}")
    console.say(f"documents: {info['documents']} ({info['distinct_texts']} distinct texts)")
    console.say(f"threshold: {s.threshold:g}")
    console.say(f"shingles: {s.k}-{s.shingle}")
    console.say(f"signatures: {s.num_perm} values, scheme {s.scheme}, seed {s.seed}")
    console.say(f"banding: {s.bands} bands x {s.rows} rows")
    console.say(f"normalisation: {info['normalization']}")
    return EXIT_OK
