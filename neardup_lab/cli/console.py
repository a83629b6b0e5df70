"""What ``neardup-lab`` prints: the summary on stdout (``--quiet`` silences it), problems on stderr."""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import IO, Any, cast

from ..engine.pipeline import DedupResult, candidates_warning
from ..engine.workers import progress_bar
from ..index.store import Match
from ..lsh import approx_threshold, s_curve, steepest_similarity
from ..readers import REASONS, ReadReport
from ..settings import RECALL_WEIGHTS, Settings
from ..support import limits
from ..text import normalize

__all__ = ["PROG", "Console", "printable", "plural", "warn_skipped", "read_summary", "explain"]
__all__ += ["dedup_summary", "match_summary"]

PROG = "neardup-lab"
_SHOWN = 20  # skipped inputs and matches listed; the files written hold them all
_SIMILARITIES = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
# What a terminal would act on rather than show: C0 and C1 controls (ESC, or 0x9b, starts sequences
# that retitle a window or clear the screen), DEL, line separators, bidirectional marks.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escaped(match: re.Match) -> str:
    char = match.group()
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def printable(text: str) -> str:
    """``text`` safe to print on a terminal: controls, line breaks and bidi overrides as escapes.

    >>> print(printable("a\\x1b]0;owned\\x07.txt"), printable("x\\nnotes.txt"), printable("é\\u202eb"))
    a\\x1b]0;owned\\x07.txt x\\nnotes.txt é\\u202eb
    """
    return _UNPRINTABLE.sub(_escaped, text)


def plural(n: int, word: str, many: str | None = None) -> str:
    """``n`` and ``word``, made plural unless ``n`` is 1.

    >>> plural(1, "document"), plural(3, "exact copy", "exact copies")
    ('1 document', '3 exact copies')
    """
    return f"{n} {word if n == 1 else many or word + 's'}"


class _Nowhere(io.StringIO):
    """Where lines go when both standard streams are closed (``>&- 2>&-``)."""

    def write(self, text: str) -> int:
        return len(text)


class Console:
    """The summary to ``out`` (stdout), problems and errors to ``err`` (stderr), progress bars.

    >>> Console(quiet=True).say("not printed")
    """

    def __init__(self, quiet: bool, out: IO[str] | None = None, err: IO[str] | None = None) -> None:
        self.quiet = quiet
        self.out: IO[str] = out or sys.stdout or sys.stderr or _Nowhere()
        self.err: IO[str] = err or sys.stderr or self.out
        try:
            self.bars = not quiet and self.err.isatty()
        except (AttributeError, ValueError):  # a closed stream
            self.bars = False

    def say(self, line: str = "") -> None:
        """Print a summary line, unless quiet."""
        if not self.quiet:
            print(printable(line), file=self.out)

    def warn(self, line: str) -> None:
        """Print a problem or an error, named after the command, even when quiet."""
        print(f"{PROG}: {printable(line)}", file=self.err)

    def times(self, stages: Sequence[tuple[str, float]]) -> None:
        """Print the last summary line: seconds per stage.

        >>> Console(quiet=False, out=sys.stdout).times([("read", 0.5), ("write", 0.25)])
        time: read 0.50 s, write 0.25 s
        """
        self.say("time: " + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in stages))

    def progress(self, desc: str, unit: str) -> Callable[[Iterable[Any]], Iterable[Any]] | None:
        """A wrapper drawing a ``tqdm`` bar on ``err`` as items pass; None without bars."""
        if not self.bars:
            return None
        options = {"file": self.err, "leave": False, "desc": desc, "unit": unit}
        return lambda items: cast(Iterable[Any], progress_bar(iterable=items, **options))


def warn_skipped(console: Console, report: ReadReport, problems_path: str | None) -> None:
    """Report the first skipped inputs on standard error, and how to see them all.

    >>> from neardup_lab.readers import Problem
    >>> warn_skipped(Console(quiet=True, err=sys.stdout), ReadReport(problems=[
    ...     Problem("a.txt", None, "binary", "NUL byte")]), None)
    neardup-lab: skipped a.txt: binary file: NUL byte
    """
    for problem in report.problems[:_SHOWN]:
        console.warn(f"skipped {problem}")
    hidden = len(report.problems) - _SHOWN
    if hidden > 0:
        hint = f"all are in {problems_path}" if problems_path else "--problems PATH writes them all"
        console.warn(f"... and {plural(hidden, 'more skipped input')}; {hint}")


def _empty(text: str) -> bool:
    # ASCII letters and digits survive normalising: most texts need no normalize().
    return not any(c.isascii() and c.isalnum() for c in text[:200]) and not normalize(text)


def read_summary(console: Console, report: ReadReport, n_inputs: int) -> None:
    """Print what was read, skipped (by reason) and passed over.

    >>> read_summary(Console(quiet=False), ReadReport(), 1)
    documents read: 0 (from 1 input)
    skipped inputs: 0
    """
    docs = report.documents
    console.say(f"documents read: {len(docs)} (from {plural(n_inputs, 'input')})")
    empty = [d for d in docs if _empty(d.text)]
    for doc in empty[:_SHOWN]:
        where = doc.source if doc.line is None else f"{doc.source}:{doc.line}"
        console.warn(f"{where}: no words after normalisation; kept, compared with no other document")
    if empty:
        console.say(f"  empty after normalisation: {len(empty)} (kept; an empty text is nobody's copy)")
    counts = report.skipped
    parts = ", ".join(f"{label}: {counts[r]}" for r, label in REASONS.items() if counts[r])
    console.say(f"skipped inputs: {len(report.problems)}" + (f" ({parts})" if report.problems else ""))
    if report.blank_lines:
        console.say(f"blank lines passed over: {report.blank_lines}")
    if report.other_files:
        console.say(f"files in folders not ending in .txt, passed over: {report.other_files}")


def explain(console: Console, settings: Settings, origin: str) -> None:
    """Print the banding and its S-curve, even when quiet. ``origin``: "chosen", "given" or "index".

    >>> explain(Console(quiet=True), Settings(threshold=0.8), "chosen")  # doctest: +ELLIPSIS
    banding: 18 bands x 7 rows = 126 of 128 signature values, chosen by optimal_params ...
    ...
      0.80: 0.9855  <- threshold
    ...
    """
    b, r, t = settings.bands, settings.rows, settings.threshold

    def say(line: str) -> None:  # asked for, so printed even with --quiet
        print(printable(line), file=console.out)

    fp, fn = RECALL_WEIGHTS
    how = {
        "chosen": f"chosen by optimal_params for threshold {t:g}, weighing missed pairs {fn:g} "
        f"and false candidates {fp:g}",
        "given": "as given by --bands and --rows",
        "index": "as stored in the index",
    }[origin]
    say(f"banding: {b} bands x {r} rows = {b * r} of {settings.num_perm} signature values, {how}")
    bend, steepest = approx_threshold(b, r), steepest_similarity(b, r)
    say(f"one band is expected to match at similarity {bend:.3f} = (1/{b})^(1/{r}), the bend;")
    say(f"the S-curve climbs fastest a little below, at {steepest:.3f} = (({r}-1)/({r}*{b}-1))^(1/{r})")
    say("chance that a pair of documents becomes a candidate, by Jaccard similarity:")
    for s in sorted({*_SIMILARITIES, t}):
        mark = "  <- threshold" if s == t else ""
        say(f"  {s:.2f}: {s_curve(s, b, r):.4f}{mark}")
    say(f"candidates are then checked with their exact Jaccard similarity; pairs below {t:g} are dropped")


def dedup_summary(console: Console, result: DedupResult, settings: Settings) -> None:
    """Print the clusters and settings of a dedup; warn when candidates exploded.

    >>> from neardup_lab.engine.pipeline import dedup
    >>> dedup_summary(Console(quiet=False), dedup(["a b c", "a b c"], k=1), Settings(k=1))
    exact copies: 1
    clusters: 1 (1 with more than one document)
    kept: 1 (policy: first)
    removed: 1
    settings: threshold 0.8, 1-word shingles, 128 permutations, 18 bands x 7 rows
    """
    multi = sum(1 for c in result.clusters if len(c) > 1)
    console.say(f"exact copies: {int(result.stats['exact']['copies'])}")
    console.say(f"clusters: {len(result.clusters)} ({multi} with more than one document)")
    console.say(f"kept: {len(result.keepers)} (policy: {settings.keeper})")
    console.say(f"removed: {len(result.removed)}")
    df = settings.max_df
    share = f"{df:.0%} of the documents" if isinstance(df, float) else plural(df or 0, "document")
    frequent = "" if df is None else f"; shingles in more than {share} ignored"
    console.say(
        f"settings: threshold {settings.threshold:g}, {settings.k}-{settings.shingle} shingles, "
        f"{settings.num_perm} permutations, {settings.bands} bands x {settings.rows} rows{frequent}"
    )
    if ignored := result.stats.get("max_df"):
        console.say(
            f"max_df: {int(ignored['shingles'])} shingles ignored, {ignored['share']:.0%} of the documents' "
            f"shingles; documents left with none: {int(ignored['left_empty'])}"
        )
    warning = candidates_warning(result)
    if warning:
        console.warn(f"warning: {warning}")
    candidates = result.stats.get("candidates", {})
    budget_note(console, int(candidates.get("capped_buckets", 0)), int(candidates.get("not_checked", 0)))


def budget_note(console: Console, capped: int, not_checked: int) -> None:
    """Say if buckets too big to check in full were checked against anchors and split by other bands.

    >>> budget_note(Console(quiet=False), 2, 950)
    note: 2 band buckets of more than 100 documents were checked against their first 8 and within
      the groups their members share on other bands: 950 candidate pairs in them
      were left unchecked (near-duplicates among those may be missed)
    """
    if capped:
        bucket, anchors = limits.BUCKET_SIZE, limits.BUCKET_ANCHORS
        console.say(
            f"note: {plural(capped, 'band bucket')} of more than {bucket} documents were checked "
            f"against their first {anchors} and within"
        )
        console.say(f"  the groups their members share on other bands: {not_checked} candidate pairs in them")
        console.say("  were left unchecked (near-duplicates among those may be missed)")


def _describe(m: Match) -> str:
    where = "" if m.in_index else ", same batch"
    what = "exact copy" if m.exact else f"Jaccard {m.jaccard:.3f}"
    return f"{m.id} ({what}{where})"


def match_summary(
    console: Console, ids: list[str], found: list[list[Match]], *, index: bool, batch: bool
) -> None:
    """Print how many documents duplicate the index (``index``) or their batch (``batch``); list the first.

    >>> from neardup_lab.index.store import SavedIndex
    >>> store = SavedIndex()
    >>> found = store.add(["a", "b"], ["heavy rain in the city", "heavy rain in the city"])
    >>> match_summary(Console(quiet=False), ["a", "b"], found, index=False, batch=True)
    duplicates of earlier documents in this batch only: 1
    new (no duplicate found): 1
      b duplicates a (exact copy, same batch)
    """
    if index:
        dup_index = sum(1 for ms in found if any(m.in_index for m in ms))
        exact_index = sum(1 for ms in found if any(m.in_index and m.exact for m in ms))
        exact = plural(exact_index, "exact copy", "exact copies")
        console.say(f"duplicates of indexed documents: {dup_index} ({exact})")
    if batch:
        dup_batch = sum(1 for ms in found if ms and not any(m.in_index for m in ms))
        console.say(f"duplicates of earlier documents in this batch only: {dup_batch}")
    console.say(f"new (no duplicate found): {sum(1 for ms in found if not ms)}")
    duplicates = [(doc_id, ms) for doc_id, ms in zip(ids, found) if ms]
    for doc_id, ms in duplicates[:_SHOWN]:
        more = f" and {plural(len(ms) - 1, 'more match', 'more matches')}" if len(ms) > 1 else ""
        console.say(f"  {doc_id} duplicates {_describe(ms[0])}{more}")
    if len(duplicates) > _SHOWN:
        console.say(f"  ... and {len(duplicates) - _SHOWN} more; --out PATH writes every match")
