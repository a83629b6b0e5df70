"""The commands of ``neardup-lab``: each takes the parsed arguments and a console; returns the exit code."""

from __future__ import annotations

import argparse
import os
import signal
import time
from collections.abc import Callable

from ..engine.pipeline import dedup
from ..index.store import SavedIndex
from ..readers import ReadReport, display, read_inputs
from ..settings import Settings
from . import outputs
from .console import (
    Console,
    budget_note,
    dedup_summary,
    explain,
    match_summary,
    plural,
    read_summary,
    warn_skipped,
)
from .explain import why_fields, why_summary
from .options import EXIT_OK, EXIT_SKIPPED, given_settings
from .outputs import UsageError, Writer, signals_handled

__all__ = ["run_dedup", "run_index", "run_info"]

_READ_OPTIONS = (
    "field", "column", "encoding", "max_bytes", "delimiter", "id_field", "id_column", "follow_links",
)


def _read(args: argparse.Namespace, console: Console, kind: str | None) -> tuple[ReadReport, float]:
    """Read the inputs (fingerprinted when records of ``kind`` are copied); report what was skipped."""
    started = time.perf_counter()
    options = {name: getattr(args, name) for name in _READ_OPTIONS}
    progress = console.progress("reading", "record")
    whole = kind not in (None, "txt")
    report = read_inputs(args.inputs, fmt=args.format, progress=progress, fingerprints=whole, **options)
    seconds = time.perf_counter() - started
    outputs.check_not_read(args, report.input_files)
    warn_skipped(console, report, args.problems)
    if not report.documents:
        console.warn("warning: no documents were read from the inputs")
    return report, seconds


def _explain(args: argparse.Namespace, console: Console, settings: Settings, stored: bool = False) -> None:
    """With ``--explain``, print the banding (``stored`` in the index, or chosen or given)."""
    if args.explain:
        explain(console, settings, "index" if stored else "chosen" if args.bands is None else "given")


def _outputs(
    args: argparse.Namespace,
    report: ReadReport,
    out: Writer | None,
    records: dict[str, list[int]],
    kind: str | None,
) -> list[tuple[str, Writer]]:
    """The files asked for, as (path, writer); ``records``: the documents of each record option."""
    files = [(args.problems, outputs.problems_writer(report.problems))] if args.problems else []
    for option, chosen in records.items():
        path = getattr(args, option)
        if path and kind:
            files.append((path, outputs.records_writer(kind, path, report, chosen, args)))
    return files + ([(args.out, out)] if out else [])


def _summarised(
    console: Console,
    args: argparse.Namespace,
    report: ReadReport,
    what: str,
    times: list[tuple[str, float]],
    summary: Callable[[], None],
) -> int:
    """Print the summary once the outputs are committed (a stdout that fails is said on stderr)."""
    try:
        read_summary(console, report, len(args.inputs))
        summary()
        if args.out:
            console.say(f"{what} written to {display(args.out)}")
        for option, records in [("keep_out", "kept"), ("removed_out", "removed"), ("new_out", "new")]:
            path = getattr(args, option, None)
            if path:
                console.say(f"{records} records written to {display(path)}")
        console.times(times)
        console.out.flush()
    except OSError as err:
        if not isinstance(err, BrokenPipeError):  # a reader that went away (| head)
            why = err.strerror or err
            console.warn(f"warning: the summary could not be printed ({why}); the outputs were written")
    return EXIT_SKIPPED if report.problems else EXIT_OK


def _stop(signum: int, frame: object) -> None:
    """Around a command, SIGTERM stops it as Ctrl-C does (nothing left behind)."""
    raise KeyboardInterrupt


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
    with signals_handled(_stop, signal.SIGTERM):
        fmt = outputs.check_outputs(args)
        kind = outputs.records_format(args)
        report, read_seconds = _read(args, console, kind)
        settings = args.settings
        _explain(args, console, settings)
        texts, ids = [d.text for d in report.documents], [d.id for d in report.documents]
        try:
            result = dedup(texts, **settings.to_dict(), n_jobs=args.jobs, progress=console.bars)
        except ValueError as err:  # a setting the pipeline refuses
            raise UsageError(str(err)) from None
        why = why_fields(result, texts, ids) if args.why else None
        started = time.perf_counter()
        out = outputs.clusters_writer(fmt, result, ids, why) if fmt else None
        records = {"keep_out": result.keepers, "removed_out": result.removed}
        with outputs.staged(_outputs(args, report, out, records, kind)):
            pass  # nothing else must succeed first
        stages = [(name, stats["seconds"]) for name, stats in result.stats.items() if "seconds" in stats]
        times = [("read", read_seconds), *stages, ("write", time.perf_counter() - started)]

        def summary() -> None:
            dedup_summary(console, result, settings)
            if why is not None:
                why_summary(console, why, ids)

        return _summarised(console, args, report, "clusters", times, summary)


def run_index(args: argparse.Namespace, console: Console) -> int:
    """``neardup-lab index build|add|query``: match the inputs against a saved index, ``add`` them.

    >>> import tempfile, pathlib
    >>> from neardup_lab.cli.main import build_parser
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = pathlib.Path(tmp, "a.txt").write_text("heavy rain in the city")
    ...     args = build_parser().parse_args(["index", "build", f"{tmp}/idx", f"{tmp}/a.txt", "--quiet"])
    ...     args.settings = Settings()
    ...     run_index(args, Console(quiet=True))
    0
    """
    with signals_handled(_stop, signal.SIGTERM):
        fmt = outputs.check_outputs(args)
        kind = outputs.records_format(args)
        if args.action == "build":
            if os.path.lexists(args.index):
                raise UsageError(
                    f"{display(args.index)} already exists; add to it with `index add`, or choose a new path"
                )
            index = SavedIndex(args.settings)
        else:  # the options given are checks: each must equal the index's setting
            index = SavedIndex.open(args.index, expect=given_settings(args))
        before = len(index)
        report, read_seconds = _read(args, console, kind)
        _explain(args, console, index.settings, stored=args.action != "build")
        started = time.perf_counter()
        texts = [d.text for d in report.documents]
        if args.action == "query":
            ids = [d.id for d in report.documents]
            found = index.query(texts, progress=console.bars)
        else:
            ids = [args.id_prefix + d.id for d in report.documents]
            try:
                sources = dict.fromkeys(d.source for d in report.documents)
                files = [report.sources[s].path if s in report.sources else s for s in sources]
                again = bool(args.id_prefix)  # new ids: these documents are added again on purpose
                found = index.add(ids, texts, progress=console.bars, files=files, repeat_files=again)
            except ValueError as err:
                raise UsageError(f"{err} (for example with --id-prefix)") from None
        times = [("read", read_seconds), ("match", time.perf_counter() - started)]
        started = time.perf_counter()
        new = {"new_out": [i for i, matches in enumerate(found) if not matches]}
        out = outputs.matches_writer(fmt, ids, found) if fmt else None
        with outputs.staged(_outputs(args, report, out, new, kind)):
            if args.action != "query":
                _save(index, args.index)  # after the outputs are written, before they are moved
                times.append(("save", time.perf_counter() - started))

        def summary() -> None:
            where, size = display(args.index), plural(len(index), "document")
            done = {"build": f"created: {where} with {size}", "add": f"updated: {where}, {before} -> {size}"}
            console.say("index " + done.get(args.action, f"searched: {where} ({size}, not changed)"))
            match_summary(console, ids, found, index=args.action != "build", batch=args.action != "query")
            budget_note(console, index.capped, index.not_checked)

        return _summarised(console, args, report, "matches", times, summary)


def _save(index: SavedIndex, path: str) -> None:
    """Save ``index`` to ``path``; a failure to write is a UsageError naming the index."""
    try:
        index.save(path)
    except OSError as err:
        where = display(err.filename) if err.filename else display(path)
        raise UsageError(
            f"cannot save the index {display(path)}: {err.strerror or err} ({where}); the index was left "
            "as it was and nothing was written (free some space, then run again)"
        ) from None


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
    console.say(f"index: {display(args.index)}")
    console.say(f"format version: {info['format_version']}")
    console.say(f"documents: {info['documents']} ({info['distinct_texts']} distinct texts)")
    console.say(f"threshold: {s.threshold:g}")
    console.say(f"shingles: {s.k}-{s.shingle}")
    console.say(f"signatures: {s.num_perm} values, scheme {s.scheme}, seed {s.seed}")
    console.say(f"banding: {s.bands} bands x {s.rows} rows")
    console.say(f"normalisation: {info['normalization']}")
    return EXIT_OK
