"""Checks for Lab 4: deduplicating a corpus end to end."""

from __future__ import annotations

import numbers
import random
import time
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from ..clusters import clusters_from_pairs
from ..corpus import make_article, make_corpus
from ..evaluate import brute_force_pairs, pairs_from_clusters, precision_recall
from ..notebook.helpers import duration
from ..text import jaccard, word_shingles
from .harness import (
    Case,
    CheckResult,
    as_sequence,
    as_set,
    call_on_copies,
    grading,
    judge_equal,
    precision_recall_judge,
    run_check,
    show_value,
)

#: Targets for the hidden corpus of :func:`check_dedup`: precision and recall of the pairs,
#: and the cost, as candidate pairs verified per document.
DEDUP_TARGETS = {"precision": 0.95, "recall": 0.95, "candidates_per_document": 1.5}
_DEDUP_THRESHOLD = 0.8
_DEDUP_K = 5
# The hidden corpus: the student never sees which documents are duplicates. Grading uses
# another seed, so a choice tuned on the notebook's report is tested on fresh documents.
_HIDDEN_CORPUS = {"n_originals": 250, "seed": 4242, "n_words": 200}
_GRADING_SEED = 5151


def check_precision_recall(func: Callable[[Iterable, Iterable], tuple[float, float]]) -> CheckResult:
    """Check a ``precision_recall(found, truth) -> (precision, recall)`` over unordered pairs.

    With nothing found, precision is 1.0; with no true pairs, recall is 1.0.

    >>> check_precision_recall(precision_recall).passed
    PASS check_precision_recall: all 7 cases pass
    True
    """
    unordered = (
        "Pairs are unordered: (j, i) is the same pair as (i, j), so bring every pair to one form "
        "before comparing."
    )
    hand = [
        (
            "half right, half found",
            [(0, 1), (2, 3)],
            [(0, 1), (4, 5)],
            (0.5, 0.5),
            "precision = hits / found, recall = hits / true pairs.",
        ),
        ("pairs in either order", [(1, 0), (3, 2)], [(0, 1), (2, 3)], (1.0, 1.0), unordered),
        (
            "the same pair twice",
            [(0, 1), (1, 0), (2, 3)],
            [(0, 1)],
            (0.5, 1.0),
            unordered + " Count each pair once.",
        ),
        (
            "nothing found",
            [],
            [(0, 1)],
            (1.0, 0.0),
            "With nothing found, nothing found is wrong: precision 1.0.",
        ),
        ("no true pairs", [(0, 1)], [], (0.0, 1.0), "With no true pairs, none is missed: recall 1.0."),
        ("both empty", [], [], (1.0, 1.0), "Nothing found and nothing to find: (1.0, 1.0)."),
    ]
    cases = [
        Case(
            name,
            f"found={found}, truth={truth}",
            call_on_copies(func, found, truth),
            expected,
            judge=precision_recall_judge(expected),
            hint=hint,
        )
        for name, found, truth, expected, hint in hand
    ]
    rng = random.Random(7)
    found = sorted({tuple(sorted(rng.sample(range(40), 2))) for _ in range(60)})
    truth = sorted({tuple(sorted(rng.sample(range(40), 2))) for _ in range(50)} | set(found[:30]))
    expected = precision_recall(found, truth)
    cases.append(
        Case(
            "random pairs",
            f"{len(found)} found pairs, {len(truth)} true pairs among 40 documents",
            call_on_copies(func, found, truth),
            expected,
            judge=precision_recall_judge(expected),
            hint=unordered,
        )
    )
    return run_check("check_precision_recall", func, cases)


def _canonical_clusters(got: Any, n: int) -> list[list[int]]:
    """Sorted clusters of ints; raises ValueError if they are not a partition of 0 .. n-1."""
    clusters = []
    for cluster in as_sequence(got, "a list of clusters"):
        if not isinstance(cluster, (list, tuple, set, frozenset)):
            raise ValueError(f"each cluster must be a list of indices, found {show_value(cluster, 60)}")
        clusters.append(sorted(int(i) for i in cluster))
    seen: dict[int, int] = {}
    for number, cluster in enumerate(clusters):
        if not cluster:
            raise ValueError("an empty cluster")
        for i in cluster:
            if not 0 <= i < n:
                raise ValueError(f"index {i} is not a document (there are {n}: 0 .. {n - 1})")
            if i in seen:
                raise ValueError(f"document {i} is in two clusters")
            seen[i] = number
    lost = [i for i in range(n) if i not in seen]
    if lost:
        raise ValueError(
            f"{len(lost)} documents are in no cluster, e.g. {lost[:5]}: every document must be in "
            "exactly one cluster (a document with no duplicate is a cluster of one)"
        )
    return sorted(clusters)


def _clusters_judge(expected: list[list[int]], n: int) -> Callable[[Any], str | None]:
    want = sorted(sorted(c) for c in expected)

    def judge(got: Any) -> str | None:
        try:
            clusters = _canonical_clusters(got, n)
        except ValueError as exc:
            return str(exc)
        return None if clusters == want else "the clusters differ (order does not matter)"

    return judge


def check_clusters(func: Callable[[int, Iterable[tuple[int, int]]], list[list[int]]]) -> CheckResult:
    """Check a ``group_pairs(n, pairs) -> list[list[int]]``: clusters joined transitively.

    Every document ``0 .. n-1`` must be in exactly one cluster; the order of the
    clusters and of their members does not matter.

    >>> check_clusters(clusters_from_pairs).passed
    PASS check_clusters: all 7 cases pass
    True
    """
    chain = (
        "Duplicates of duplicates are duplicates: when a pair links two existing groups, merge "
        "them (union-find: find each root, then point one root at the other)."
    )
    hand = [
        ("a chain", 5, [(0, 2), (2, 4)], [[0, 2, 4], [1], [3]], chain),
        ("no pairs", 4, [], [[0], [1], [2], [3]], "A document with no pair is a cluster of its own."),
        ("no documents", 0, [], [], "Zero documents give no clusters."),
        ("pair that joins two groups", 6, [(5, 0), (3, 4), (4, 5)], [[0, 3, 4, 5], [1], [2]], chain),
        ("repeated and reversed pairs", 3, [(0, 1), (1, 0), (0, 1)], [[0, 1], [2]], "Pairs may repeat."),
        ("one big cluster", 4, [(3, 2), (1, 0), (2, 1)], [[0, 1, 2, 3]], chain),
    ]
    cases = [
        Case(
            name,
            f"n={n}, pairs={pairs}",
            call_on_copies(func, n, pairs),
            shown_expected=show_value(expected),
            judge=_clusters_judge(expected, n),
            hint=hint,
        )
        for name, n, pairs, expected, hint in hand
    ]
    rng = random.Random(11)
    pairs = [tuple(rng.sample(range(300), 2)) for _ in range(220)]
    expected = clusters_from_pairs(300, pairs)
    cases.append(
        Case(
            "random pairs",
            "n=300, 220 random pairs",
            call_on_copies(func, 300, pairs),
            shown_expected=f"{len(expected)} clusters, the largest of {max(map(len, expected))} documents",
            judge=_clusters_judge(expected, 300),
            hint=chain,
        )
    )
    return run_check("check_clusters", func, cases)


def check_verify_pairs(func: Callable[[set, list[set]], set[tuple[int, int]]]) -> CheckResult:
    """Check a ``verify_pairs(candidates, shingle_sets) -> set``: the candidates with Jaccard >= 0.8.

    >>> def verify(candidates, sets):
    ...     return {(i, j) for i, j in candidates if jaccard(sets[i], sets[j]) >= 0.8}
    >>> check_verify_pairs(verify).passed
    PASS check_verify_pairs: all 5 cases pass
    True
    """
    ten = {f"w{i}" for i in range(10)}
    eight = {f"w{i}" for i in range(8)}
    nineteen, fifteen = {f"w{i}" for i in range(19)}, {f"w{i}" for i in range(15)}  # 15 / 19 = 0.789
    other = {"a", "b", "c"}
    verify = "Keep a candidate when the exact Jaccard similarity of its two shingle sets is at least 0.8."
    hand = [
        (
            "a pair exactly at the threshold",
            {(0, 1)},
            [ten, eight],
            {(0, 1)},
            "'At least 0.8' includes 0.8 itself: look at how you compare with the threshold.",
        ),
        ("a pair just below the threshold", {(0, 1)}, [nineteen, fifteen], set(), verify),
        ("no candidates", set(), [ten, eight], set(), "No candidates: nothing to verify, return set()."),
        (
            "only the candidates are verified",
            {(0, 2)},
            [ten, eight, ten],
            {(0, 2)},
            "Verify the pairs you are given; do not compare every pair of documents.",
        ),
        ("mixed", {(0, 1), (0, 2), (1, 2), (2, 3)}, [ten, eight, other, other], {(0, 1), (2, 3)}, verify),
    ]

    def described(sets: list[set]) -> str:
        return "[" + ", ".join(f"{len(x)} shingles" for x in sets) + "]"

    cases = [
        Case(
            name,
            f"candidates={show_value(candidates)}, shingle_sets={described(sets)} "
            f"(sizes of the sets; Jaccard(0, 1) = {jaccard(sets[0], sets[1]):.3f})",
            call_on_copies(func, candidates, sets),
            expected,
            judge=lambda got, expected=expected: _verified_judge(got, expected),
            hint=hint,
        )
        for name, candidates, sets, expected, hint in hand
    ]
    return run_check("check_verify_pairs", func, cases)


def _verified_judge(got: Any, expected: set) -> str | None:
    try:
        pairs = as_set(got, "a set of (i, j) pairs")
    except ValueError as exc:
        return str(exc)
    return None if pairs == expected else _diff(pairs, expected)


def _diff(got: set, expected: set) -> str:
    parts = []
    if expected - got:
        parts.append(f"missing {show_value(expected - got, 120)}")
    if got - expected:
        parts.append(f"unexpected {show_value(got - expected, 120)}")
    return "; ".join(parts)


@lru_cache(maxsize=2)
def _hidden_corpus(seed: int = _HIDDEN_CORPUS["seed"]) -> tuple[tuple[str, ...], frozenset]:
    """The hidden corpus and its true pairs (closed under chains of pairs at or above the threshold)."""
    docs = make_corpus(**{**_HIDDEN_CORPUS, "seed": seed}).docs
    sets = [word_shingles(d, _DEDUP_K) for d in docs]
    linked = brute_force_pairs(sets, _DEDUP_THRESHOLD)
    truth = frozenset(pairs_from_clusters(clusters_from_pairs(len(docs), linked)))
    return tuple(docs), truth


def _run_parts(got: Any) -> tuple[Any, int]:
    """``(clusters, candidates)`` from an answer, or ValueError saying what the answer should be."""
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        raise ValueError(
            f"return a pair (clusters, number of candidate pairs verified), not {show_value(got, 60)}"
        )
    clusters, candidates = got
    if isinstance(candidates, bool) or not isinstance(candidates, numbers.Integral) or candidates < 0:
        raise ValueError(f"the number of candidate pairs is a count, got {show_value(candidates, 60)}")
    return clusters, int(candidates)


def _run_judge(expected: list[list[int]], n: int) -> Callable[[Any], str | None]:
    clusters_judge = _clusters_judge(expected, n)

    def judge(got: Any) -> str | None:
        try:
            clusters, _ = _run_parts(got)
        except ValueError as exc:
            return str(exc)
        return clusters_judge(clusters)

    return judge


def check_dedup(func: Callable[[list[str]], tuple[list[list[int]], int]]) -> CheckResult:
    """Check a ``deduplicate(docs) -> (clusters, candidates)`` on edge cases and on a hidden corpus.

    Two documents are duplicates when their 5-word shingles (of normalised
    text) have Jaccard similarity of at least 0.8, or when a chain of such
    pairs links them. The answer is the clusters, which must hold every document
    exactly once, and the number of candidate pairs the pipeline verified. On the
    hidden corpus the pairs must reach the precision and recall of
    ``DEDUP_TARGETS``, verifying at most ``candidates_per_document`` candidates
    per document; the report also gives the time the run took.

    >>> from neardup_lab import dedup
    >>> def reference(docs):
    ...     result = dedup(docs, threshold=0.8, bands=18, rows=7)
    ...     return result.clusters, result.stats["candidates"]["pairs"]
    >>> check_dedup(reference).passed  # doctest: +ELLIPSIS
    PASS check_dedup: all 9 cases pass
      hidden corpus: ... documents; precision 1.000, recall 1.000 (targets 0.95 and 0.95)
      cost: ... candidate pairs verified (target at most ...), ...
    True
    """
    article = make_article(seed=61, n_words=80)
    other = make_article(seed=62, n_words=80)
    hand = [
        ("no documents", [], [], "An empty list of documents has no clusters: return []."),
        ("one document", ["The council met on Monday."], [[0]], "One document is one cluster."),
        (
            "an empty document",
            ["", "The council met on Monday to discuss the budget."],
            [[0], [1]],
            "An empty document is still a document: it gets a cluster of its own.",
        ),
        (
            "case and spacing copy",
            [article, "  " + article.upper().replace(" ", "   "), other],
            [[0, 1], [2]],
            "Normalise before shingling, so that case and spacing do not matter.",
        ),
        (
            "documents shorter than k words",
            ["Rain today", "rain, TODAY!", "Sun tomorrow"],
            [[0, 1], [2]],
            "A text with fewer than 5 words is one shingle: word_shingles handles it.",
        ),
    ]
    cases = [
        Case(
            name,
            f"docs={show_value(docs, 120)}",
            call_on_copies(func, docs),
            shown_expected=f"({show_value(expected)}, number of candidates)",
            judge=_run_judge(expected, len(docs)),
            hint=hint,
        )
        for name, docs, expected, hint in hand
    ]

    docs, truth = _hidden_corpus(_GRADING_SEED if grading() else _HIDDEN_CORPUS["seed"])
    notes: list[str] = []
    state: dict[str, Any] = {}
    hidden_input = f"{len(docs)} news documents from a hidden corpus"
    budget = int(DEDUP_TARGETS["candidates_per_document"] * len(docs))

    def run_hidden() -> Any:
        start = time.perf_counter()
        state["answer"] = func(list(docs))
        state["seconds"] = time.perf_counter() - start
        return state["answer"]

    def partition(got: Any) -> str | None:
        try:
            _canonical_clusters(_run_parts(got)[0], len(docs))
        except ValueError as exc:
            return str(exc)
        return None

    def scores() -> tuple[float, float, set, int]:
        if "scores" not in state:
            try:
                clusters, candidates = _run_parts(state["answer"])
                clusters = _canonical_clusters(clusters, len(docs))
            except (KeyError, ValueError):
                raise _Skip from None  # reported by the case before
            found = pairs_from_clusters(clusters)
            precision, recall = precision_recall(found, truth)
            state["scores"] = (precision, recall, found, candidates)
            notes.append(
                f"hidden corpus: {len(docs)} documents; precision {precision:.3f}, recall {recall:.3f} "
                f"(targets {DEDUP_TARGETS['precision']} and {DEDUP_TARGETS['recall']})"
            )
            notes.append(
                f"cost: {candidates:,} candidate pairs verified (target at most {budget:,}), "
                f"in {duration(state['seconds'])}"
            )
        return state["scores"]

    def example(i: int, j: int) -> str:
        sim = jaccard(word_shingles(docs[i], _DEDUP_K), word_shingles(docs[j], _DEDUP_K))
        return f"documents {i} and {j} (Jaccard {sim:.2f})"

    def judge_precision(got: Any) -> str | None:
        precision, _, found, _ = got
        if precision >= DEDUP_TARGETS["precision"]:
            return None
        wrong = sorted(found - truth)
        share = f"{len(wrong)} of {len(found)} pairs in your clusters"
        return f"{share} are not duplicates, e.g. {example(*wrong[0])}"

    def judge_recall(got: Any) -> str | None:
        _, recall, found, _ = got
        if recall >= DEDUP_TARGETS["recall"]:
            return None
        missed = sorted(truth - found)
        return f"{len(missed)} of {len(truth)} true pairs are split, e.g. {example(*missed[0])}"

    def judge_cost(got: Any) -> str | None:
        candidates = got[3]
        if candidates <= budget:
            return None
        all_pairs = len(docs) * (len(docs) - 1) // 2
        share = f"{candidates / all_pairs:.1%} of all {all_pairs:,} pairs"
        return f"{candidates:,} candidate pairs verified ({share})"

    cases += _skippable(
        [
            Case(
                "hidden corpus: every document in one cluster",
                hidden_input,
                run_hidden,
                shown_expected="(clusters covering every document exactly once, number of candidates)",
                judge=partition,
                hint="Return a cluster for every document, including those without duplicates.",
            ),
            Case(
                "hidden corpus: precision",
                hidden_input,
                scores,
                shown_expected=f"precision >= {DEDUP_TARGETS['precision']}",
                judge=judge_precision,
                hint="Pairs joined without a check are often not duplicates: what decides that two "
                "documents are duplicates, and does every joined pair pass that test?",
            ),
            Case(
                "hidden corpus: recall",
                hidden_input,
                scores,
                shown_expected=f"recall >= {DEDUP_TARGETS['recall']}",
                judge=judge_recall,
                hint="A true pair that never becomes a candidate is lost for good. Look at the S-curve of "
                "your banding at similarity 0.8: how often does such a pair share a band?",
            ),
            Case(
                "hidden corpus: cost",
                hidden_input,
                scores,
                shown_expected=f"at most {DEDUP_TARGETS['candidates_per_document']} candidate pairs per "
                f"document: {budget:,}",
                judge=judge_cost,
                hint="Every candidate costs an exact Jaccard computation. Bands with very few rows (or no "
                "banding at all) make almost every pair a candidate: move the S-curve to the right "
                "until the cost fits, and watch the recall.",
            ),
        ]
    )
    return run_check("check_dedup", func, cases, notes)


class _Skip(Exception):
    """A case that cannot be judged because an earlier one failed; it is left out."""


def _skippable(cases: list[Case]) -> list[Case]:
    """Let a case's call raise :class:`_Skip` to mean 'already reported': it then passes silently."""
    out = []
    for case in cases:

        def call(case: Case = case) -> Any:
            try:
                return case.call()
            except _Skip:
                return _SKIPPED

        judge = case.judge or judge_equal(case.expected)
        out.append(
            Case(
                case.name,
                case.input,
                call,
                case.expected,
                judge=lambda got, judge=judge: None if got is _SKIPPED else judge(got),
                raises=case.raises,
                hint=case.hint,
                shown_expected=case.shown_expected,
            )
        )
    return out


_SKIPPED = object()
