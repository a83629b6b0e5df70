"""Checks for Lab 4: deduplicating a corpus end to end."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

from ..clusters import clusters_from_pairs
from ..corpus import make_article, make_corpus
from ..evaluate import brute_force_pairs, pairs_from_clusters, precision_recall
from ..text import jaccard, word_shingles
from ._core import CheckResult, _call, _Case, _equal, _run, _same_float, _show

#: Targets for the hidden corpus of :func:`check_dedup`.
DEDUP_TARGETS = {"precision": 0.95, "recall": 0.95}
_DEDUP_THRESHOLD = 0.8
_DEDUP_K = 5
# The hidden corpus: the student never sees which documents are duplicates.
_HIDDEN_CORPUS = {"n_originals": 250, "seed": 4242, "n_words": 200}


def _pr_judge(expected: tuple[float, float]) -> Callable[[Any], str | None]:
    def judge(got: Any) -> str | None:
        if not isinstance(got, (tuple, list)) or len(got) != 2:
            return "return a pair (precision, recall)"
        for label, value, want in zip(("precision", "recall"), got, expected):
            problem = _same_float(value, want)
            if problem is not None:
                return f"{label} is wrong {problem}".strip()
        return None

    return judge


def check_precision_recall(func: Callable[[Iterable, Iterable], tuple[float, float]]) -> CheckResult:
    """Check a ``precision_recall(found, truth) -> (precision, recall)`` over unordered pairs.

    With nothing found, precision is 1.0; with no true pairs, recall is 1.0.

    >>> check_precision_recall(precision_recall).passed
    PASS check_precision_recall: all 7 cases pass
    True
    """
    unordered = "Pairs are unordered: turn (j, i) into (i, j) before comparing, e.g. tuple(sorted(pair))."
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
        _Case(
            name,
            f"found={found}, truth={truth}",
            _call(func, found, truth),
            expected,
            judge=_pr_judge(expected),
            hint=hint,
        )
        for name, found, truth, expected, hint in hand
    ]
    rng = random.Random(7)
    found = sorted({tuple(sorted(rng.sample(range(40), 2))) for _ in range(60)})
    truth = sorted({tuple(sorted(rng.sample(range(40), 2))) for _ in range(50)} | set(found[:30]))
    expected = precision_recall(found, truth)
    cases.append(
        _Case(
            "random pairs",
            f"{len(found)} found pairs, {len(truth)} true pairs among 40 documents",
            _call(func, found, truth),
            expected,
            judge=_pr_judge(expected),
            hint=unordered,
        )
    )
    return _run("check_precision_recall", func, cases)


def _canonical_clusters(got: Any, n: int) -> list[list[int]]:
    """Sorted clusters of ints; raises ValueError if they are not a partition of 0 .. n-1."""
    if isinstance(got, (str, bytes)) or not isinstance(got, Iterable):
        raise ValueError(f"expected a list of clusters (lists of indices), got {type(got).__name__}")
    clusters = []
    for cluster in got:
        if isinstance(cluster, (str, bytes)) or not isinstance(cluster, Iterable):
            raise ValueError(f"each cluster must be a list of indices, found {_show(cluster, 60)}")
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
        _Case(
            name,
            f"n={n}, pairs={pairs}",
            _call(func, n, pairs),
            shown_expected=_show(expected),
            judge=_clusters_judge(expected, n),
            hint=hint,
        )
        for name, n, pairs, expected, hint in hand
    ]
    rng = random.Random(11)
    pairs = [tuple(rng.sample(range(300), 2)) for _ in range(220)]
    expected = clusters_from_pairs(300, pairs)
    cases.append(
        _Case(
            "random pairs",
            "n=300, 220 random pairs",
            _call(func, 300, pairs),
            shown_expected=f"{len(expected)} clusters, the largest of {max(map(len, expected))} documents",
            judge=_clusters_judge(expected, 300),
            hint=chain,
        )
    )
    return _run("check_clusters", func, cases)


@lru_cache(maxsize=1)
def _hidden_corpus() -> tuple[tuple[str, ...], frozenset]:
    """The hidden corpus and its true pairs (closed under chains of pairs at or above the threshold)."""
    docs = make_corpus(**_HIDDEN_CORPUS).docs
    sets = [word_shingles(d, _DEDUP_K) for d in docs]
    linked = brute_force_pairs(sets, _DEDUP_THRESHOLD)
    truth = frozenset(pairs_from_clusters(clusters_from_pairs(len(docs), linked)))
    return tuple(docs), truth


def check_dedup(func: Callable[[list[str]], list[list[int]]]) -> CheckResult:
    """Check a ``deduplicate(docs) -> list[list[int]]`` on edge cases and on a hidden corpus.

    Two documents are duplicates when their 5-word shingles (of normalised
    text) have Jaccard similarity of at least 0.8, or when a chain of such
    pairs links them. The answer must put every document in exactly one
    cluster; on the hidden corpus its pairs must reach the precision and recall
    of ``DEDUP_TARGETS``.

    >>> from neardup_lab import dedup
    >>> def reference(docs):
    ...     return dedup(docs, threshold=0.8, bands=18, rows=7).clusters
    >>> check_dedup(reference).passed  # doctest: +ELLIPSIS
    PASS check_dedup: all 8 cases pass
      hidden corpus: ... documents; precision 1.000, recall 1.000 (targets 0.95 and 0.95)
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
        _Case(
            name,
            f"docs={_show(docs, 120)}",
            _call(func, docs),
            shown_expected=_show(expected),
            judge=_clusters_judge(expected, len(docs)),
            hint=hint,
        )
        for name, docs, expected, hint in hand
    ]

    docs, truth = _hidden_corpus()
    notes: list[str] = []
    state: dict[str, Any] = {}
    hidden_input = f"{len(docs)} news documents from a hidden corpus"

    def run_hidden() -> Any:
        state["answer"] = func(list(docs))
        return state["answer"]

    def partition(got: Any) -> str | None:
        try:
            _canonical_clusters(got, len(docs))
        except ValueError as exc:
            return str(exc)
        return None

    def scores() -> tuple[float, float, set]:
        if "scores" not in state:
            try:
                clusters = _canonical_clusters(state["answer"], len(docs))
            except (KeyError, ValueError):
                raise _Skip from None  # reported by the case before
            found = pairs_from_clusters(clusters)
            precision, recall = precision_recall(found, truth)
            state["scores"] = (precision, recall, found)
            notes.append(
                f"hidden corpus: {len(docs)} documents; precision {precision:.3f}, recall {recall:.3f} "
                f"(targets {DEDUP_TARGETS['precision']} and {DEDUP_TARGETS['recall']})"
            )
        return state["scores"]

    def example(i: int, j: int) -> str:
        sim = jaccard(word_shingles(docs[i], _DEDUP_K), word_shingles(docs[j], _DEDUP_K))
        return f"documents {i} and {j} (Jaccard {sim:.2f})"

    def judge_precision(got: Any) -> str | None:
        precision, _, found = got
        if precision >= DEDUP_TARGETS["precision"]:
            return None
        wrong = sorted(found - truth)
        share = f"{len(wrong)} of {len(found)} pairs in your clusters"
        return f"{share} are not duplicates, e.g. {example(*wrong[0])}"

    def judge_recall(got: Any) -> str | None:
        _, recall, found = got
        if recall >= DEDUP_TARGETS["recall"]:
            return None
        missed = sorted(truth - found)
        return f"{len(missed)} of {len(truth)} true pairs are split, e.g. {example(*missed[0])}"

    cases += _skippable(
        [
            _Case(
                "hidden corpus: every document in one cluster",
                hidden_input,
                run_hidden,
                shown_expected="a list of clusters covering every document exactly once",
                judge=partition,
                hint="Return a cluster for every document, including those without duplicates.",
            ),
            _Case(
                "hidden corpus: precision",
                hidden_input,
                scores,
                shown_expected=f"precision >= {DEDUP_TARGETS['precision']}",
                judge=judge_precision,
                hint="Verify every candidate pair with the exact Jaccard of its shingle sets (>= 0.8) before "
                "joining it, instead of trusting the bands.",
            ),
            _Case(
                "hidden corpus: recall",
                hidden_input,
                scores,
                shown_expected=f"recall >= {DEDUP_TARGETS['recall']}",
                judge=judge_recall,
                hint="Pairs just above 0.8 slip through bands tuned for 0.8: choose bands and rows for a "
                "lower threshold (say 0.6), then verify candidates at 0.8.",
            ),
        ]
    )
    return _run("check_dedup", func, cases, notes)


class _Skip(Exception):
    """A case that cannot be judged because an earlier one failed; it is left out."""


def _skippable(cases: list[_Case]) -> list[_Case]:
    """Let a case's call raise :class:`_Skip` to mean 'already reported': it then passes silently."""
    out = []
    for case in cases:

        def call(case: _Case = case) -> Any:
            try:
                return case.call()
            except _Skip:
                return _SKIPPED

        judge = case.judge or _equal(case.expected)
        out.append(
            _Case(
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
