"""Checks for Lab 4: deduplicating a corpus end to end."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from functools import lru_cache, partial
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
# The hidden corpus: the student never sees which documents are duplicates. Grading adds
# other corpora, so a choice tuned on the notebook's report is tested on fresh documents.
_HIDDEN_CORPUS = {"n_originals": 250, "seed": 4242, "n_words": 200}
_MORE_CORPORA = 5  # smaller corpora the notebook's check runs after the hidden one


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
    cases.append(precision_recall_case(func, 7))
    return run_check("check_precision_recall", func, cases)


def precision_recall_case(func: Callable[[Iterable, Iterable], tuple[float, float]], seed: int) -> Case:
    """A random case of :func:`check_precision_recall`: pairs in either order, some repeated.

    >>> precision_recall_case(precision_recall, 7).name
    'random pairs (seed 7)'
    """
    rng = random.Random(seed)
    n = 20 + seed % 40
    found = [_random_pair(rng, n) for _ in range(10 + seed % 50)]
    truth = [_random_pair(rng, n) for _ in range(5 + seed % 30)] + found[: len(found) // 2]
    found += found[:3]  # repeated pairs
    truth = [(pair[1], pair[0]) if rng.random() < 0.5 else pair for pair in truth]
    expected = precision_recall(found, truth)
    return Case(
        f"random pairs (seed {seed})",
        f"{len(found)} found pairs, {len(truth)} true pairs among {n} documents, in either order, some twice",
        call_on_copies(func, found, truth),
        expected,
        judge=precision_recall_judge(expected),
        hint="Pairs are unordered: (j, i) is the same pair as (i, j), so bring every pair to one form "
        "before comparing. Count each pair once.",
    )


def _random_pair(rng: random.Random, n: int) -> tuple[int, int]:
    a, b = rng.sample(range(n), 2)
    return a, b


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
    cases.append(clusters_case(func, 11))
    return run_check("check_clusters", func, cases)


def clusters_case(func: Callable[[int, Iterable[tuple[int, int]]], list[list[int]]], seed: int) -> Case:
    """A random case of :func:`check_clusters`: ``n`` documents and random pairs.

    >>> clusters_case(clusters_from_pairs, 11).input
    'n=300, 220 random pairs'
    """
    rng = random.Random(seed)
    n = 300 if seed == 11 else 20 + seed % 200
    pairs = [_random_pair(rng, n) for _ in range(220 if seed == 11 else n * 3 // 4)]
    expected = clusters_from_pairs(n, pairs)
    return Case(
        f"random pairs (seed {seed})",
        f"n={n}, {len(pairs)} random pairs",
        call_on_copies(func, n, pairs),
        shown_expected=f"{len(expected)} clusters, the largest of {max(map(len, expected))} documents",
        judge=_clusters_judge(expected, n),
        hint="Duplicates of duplicates are duplicates: when a pair links two existing groups, merge "
        "them (union-find: find each root, then point one root at the other).",
    )


def check_verify_pairs(func: Callable[[set, list[set]], set[tuple[int, int]]]) -> CheckResult:
    """Check a ``verify_pairs(candidates, shingle_sets) -> set``: the candidates with Jaccard >= 0.8.

    >>> def verify(candidates, sets):
    ...     return {(i, j) for i, j in candidates if jaccard(sets[i], sets[j]) >= 0.8}
    >>> check_verify_pairs(verify).passed
    PASS check_verify_pairs: all 6 cases pass
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
        (
            "same size, other words",
            {(0, 1), (0, 2)},
            [ten, {f"w{i}" for i in range(2, 12)}, {f"w{i}" for i in range(1, 11)}],
            {(0, 2)},
            "Two sets of the same size may still share few shingles: compare what they share "
            "with what either has, not their sizes.",
        ),
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
            judge=partial(_verified_judge, expected=expected),
            hint=hint,
        )
        for name, candidates, sets, expected, hint in hand
    ]
    return run_check("check_verify_pairs", func, cases)


def verify_case(func: Callable[[set, list[set]], set[tuple[int, int]]], seed: int) -> Case:
    """A random case of :func:`check_verify_pairs`: overlapping sets, none inside another.

    >>> verify_case(lambda c, s: set(), 3).name
    'random overlapping sets (seed 3)'
    """
    rng = random.Random(seed)
    sets = []
    for _ in range(12):
        size, shift = rng.randint(8, 40), rng.randint(0, 12)
        sets.append({f"w{i}" for i in range(shift, shift + size)} | {f"x{seed}-{rng.random():.6f}"})
    candidates = {tuple(sorted(rng.sample(range(len(sets)), 2))) for _ in range(25)}
    expected = {(i, j) for i, j in candidates if jaccard(sets[i], sets[j]) >= _DEDUP_THRESHOLD}
    return Case(
        f"random overlapping sets (seed {seed})",
        f"{len(candidates)} candidates among 12 sets of 9 to 41 shingles, each with one of its own",
        call_on_copies(func, candidates, sets),
        expected,
        judge=lambda got: _verified_judge(got, expected),
        hint="Keep a candidate when the exact Jaccard similarity of its two shingle sets is at least 0.8.",
    )


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


@lru_cache(maxsize=4)
def _corpus(n_originals: int, seed: int) -> tuple[tuple[str, ...], frozenset, tuple[frozenset, ...]]:
    """A corpus, its true pairs (closed under chains of pairs at or above the threshold), its shingles."""
    docs = make_corpus(n_originals, seed=seed, n_words=_HIDDEN_CORPUS["n_words"]).docs
    sets = [word_shingles(d, _DEDUP_K) for d in docs]
    linked = brute_force_pairs(sets, _DEDUP_THRESHOLD)
    truth = frozenset(pairs_from_clusters(clusters_from_pairs(len(docs), linked)))
    return tuple(docs), truth, tuple(frozenset(x) for x in sets)


def _run_parts(got: Any, n: int) -> tuple[list[list[int]], set[tuple[int, int]]]:
    """``(clusters, candidate pairs)`` of an answer, or ValueError saying what the answer should be."""
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        raise ValueError(f"return a pair (clusters, candidate pairs), not {show_value(got, 60)}")
    clusters, candidates = got
    pairs = set()
    for pair in as_set(candidates, "the candidate pairs as a set of (i, j) pairs"):
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise ValueError(f"{show_value(pair, 40)} is not a candidate pair (i, j)")
        i, j = sorted(int(v) for v in pair)
        if not 0 <= i < j < n:
            raise ValueError(f"{pair!r} is not a pair of two documents (there are {n})")
        pairs.add((i, j))
    return _canonical_clusters(clusters, n), pairs


def _run_judge(expected: list[list[int]], n: int) -> Callable[[Any], str | None]:
    want = sorted(sorted(c) for c in expected)

    def judge(got: Any) -> str | None:
        try:
            clusters, _ = _run_parts(got, n)
        except ValueError as exc:
            return str(exc)
        return None if clusters == want else "the clusters differ (order does not matter)"

    return judge


class _Run:
    """One run of a student's pipeline on a corpus, judged against the truth, with its notes."""

    def __init__(self, func: Callable, n_originals: int, seed: int) -> None:
        self.func, self.n_originals, self.seed = func, n_originals, seed
        self.docs, self.truth, self.sets = _corpus(n_originals, seed)
        self.budget = int(DEDUP_TARGETS["candidates_per_document"] * len(self.docs))
        self.answer: Any = None
        self.seconds = 0.0
        self.parts: tuple[list[list[int]], set[tuple[int, int]]] | None = None
        self.report: list[str] = []  # filled once the answer is read: the notes of the check's report

    def run(self) -> Any:
        start = time.perf_counter()
        self.answer = self.func(list(self.docs))
        self.seconds = time.perf_counter() - start
        return self.answer

    def judged(self) -> tuple[list[list[int]], set[tuple[int, int]]]:
        """The answer's parts; :class:`_Skip` when the run failed or its answer could not be read."""
        if self.parts is None:
            try:
                self.parts = _run_parts(self.answer, len(self.docs))
            except (TypeError, ValueError):
                raise _Skip from None
            self.report += self.notes()
        return self.parts

    def example(self, i: int, j: int) -> str:
        return f"documents {i} and {j} (Jaccard {jaccard(self.sets[i], self.sets[j]):.2f})"

    def partition(self, got: Any) -> str | None:
        try:
            _run_parts(got, len(self.docs))
        except ValueError as exc:
            return str(exc)
        return None

    def consistent(self, parts: tuple) -> str | None:
        clusters, candidates = parts
        verified = [(i, j) for i, j in candidates if jaccard(self.sets[i], self.sets[j]) >= _DEDUP_THRESHOLD]
        if sorted(sorted(c) for c in clusters_from_pairs(len(self.docs), verified)) == clusters:
            return None
        joined = {p for p in pairs_from_clusters(clusters)} - set(
            pairs_from_clusters(clusters_from_pairs(len(self.docs), verified))
        )
        if joined:
            return (
                f"{len(joined)} pairs in your clusters are not joined by any verified candidate, "
                f"e.g. {self.example(*sorted(joined)[0])}"
            )
        return "some verified candidates are not joined in your clusters"

    def precision(self, parts: tuple) -> str | None:
        found = pairs_from_clusters(parts[0])
        precision, _ = precision_recall(found, self.truth)
        if precision >= DEDUP_TARGETS["precision"]:
            return None
        wrong = sorted(found - self.truth)
        share = f"{len(wrong)} of {len(found)} pairs in your clusters"
        return f"{share} are not duplicates, e.g. {self.example(*wrong[0])}"

    def recall(self, parts: tuple) -> str | None:
        found = pairs_from_clusters(parts[0])
        _, recall = precision_recall(found, self.truth)
        if recall >= DEDUP_TARGETS["recall"]:
            return None
        missed = sorted(self.truth - found)
        return f"{len(missed)} of {len(self.truth)} true pairs are split, e.g. {self.example(*missed[0])}"

    def cost(self, parts: tuple) -> str | None:
        candidates = len(parts[1])
        if candidates <= self.budget:
            return None
        all_pairs = len(self.docs) * (len(self.docs) - 1) // 2
        share = f"{candidates / all_pairs:.1%} of all {all_pairs:,} pairs"
        return f"{candidates:,} candidate pairs verified ({share})"

    def notes(self) -> list[str]:
        assert self.parts is not None
        clusters, candidates = self.parts
        precision, recall = precision_recall(pairs_from_clusters(clusters), self.truth)
        return [
            f"hidden corpus: {len(self.docs)} documents; precision {precision:.3f}, recall {recall:.3f} "
            f"(targets {DEDUP_TARGETS['precision']} and {DEDUP_TARGETS['recall']})",
            f"cost: {len(candidates):,} candidate pairs verified (target at most {self.budget:,}), "
            f"in {duration(self.seconds)}",
        ]


_HINTS = {
    "partition": "Return a cluster for every document, including those without duplicates.",
    "consistent": "Return the candidate pairs your banding produced, all of them, and join only the "
    "candidates that pass verification: the check verifies them again and rebuilds your clusters.",
    "precision": "Pairs joined without a check are often not duplicates: what decides that two "
    "documents are duplicates, and does every joined pair pass that test?",
    "recall": "A true pair that never becomes a candidate is lost for good. Look at the S-curve of "
    "your banding at similarity 0.8: how often does such a pair share a band?",
    "cost": "Every candidate costs an exact Jaccard computation. Bands with very few rows (or no "
    "banding at all) make almost every pair a candidate: move the S-curve to the right "
    "until the cost fits, and watch the recall.",
}


def _run_cases(run: _Run) -> list[Case]:
    hidden_input = f"{len(run.docs)} news documents from a hidden corpus"
    per_doc = DEDUP_TARGETS["candidates_per_document"]
    expected = {
        "consistent": "clusters that the verified candidates join, and nothing else",
        "precision": f"precision >= {DEDUP_TARGETS['precision']}",
        "recall": f"recall >= {DEDUP_TARGETS['recall']}",
        "cost": f"at most {per_doc} candidate pairs per document: {run.budget:,}",
    }
    names = {"consistent": "the clusters come from the candidates"}
    cases = [
        Case(
            "hidden corpus: every document in one cluster",
            hidden_input,
            run.run,
            shown_expected="(clusters covering every document exactly once, candidate pairs)",
            judge=run.partition,
            hint=_HINTS["partition"],
        )
    ]
    for part, judge in (
        ("consistent", run.consistent),
        ("precision", run.precision),
        ("recall", run.recall),
        ("cost", run.cost),
    ):
        cases.append(
            Case(
                f"hidden corpus: {names.get(part, part)}",
                hidden_input,
                run.judged,
                shown_expected=expected[part],
                judge=judge,
                hint=_HINTS[part],
            )
        )
    return _skippable(cases)


def check_dedup(func: Callable[[list[str]], tuple[list[list[int]], set]]) -> CheckResult:
    """Check a ``deduplicate(docs) -> (clusters, candidates)`` on edge cases and on a hidden corpus.

    Two documents are duplicates when their 5-word shingles (of normalised
    text) have Jaccard similarity of at least 0.8, or when a chain of such
    pairs links them. The answer is the clusters, which must hold every document
    exactly once, and the set of candidate pairs ``(i, j)`` the pipeline verified:
    the check counts them, verifies them again and rebuilds the clusters from them.
    On the hidden corpus the pairs must reach the precision and recall of
    ``DEDUP_TARGETS``, verifying at most ``candidates_per_document`` candidates
    per document, and so on five smaller corpora after it (a banding that only just
    meets the targets on one corpus misses them on others); the report also gives the
    time the run on the hidden corpus took.

    >>> from neardup_lab import MinHasher, candidate_pairs
    >>> def reference(docs):
    ...     sets = [word_shingles(d, 5) for d in docs]
    ...     candidates = candidate_pairs(MinHasher(num_perm=128, seed=1).signatures(sets), 18, 7)
    ...     verified = [(i, j) for i, j in candidates if jaccard(sets[i], sets[j]) >= 0.8]
    ...     return clusters_from_pairs(len(docs), verified), candidates
    >>> check_dedup(reference).passed  # doctest: +ELLIPSIS
    PASS check_dedup: all 15 cases pass
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
            shown_expected=f"({show_value(expected)}, candidate pairs)",
            judge=_run_judge(expected, len(docs)),
            hint=hint,
        )
        for name, docs, expected, hint in hand
    ]
    run = _Run(func, _HIDDEN_CORPUS["n_originals"], _HIDDEN_CORPUS["seed"])
    cases += _run_cases(run)
    # Recall moves from corpus to corpus: a banding that only just meets it on the hidden corpus
    # misses it on others (grading runs more of them), so the notebook shows a few as well.
    cases += [dedup_case(func, seed) for seed in range(1, _MORE_CORPORA + 1)]
    return run_check("check_dedup", func, cases, run.report)


def dedup_case(func: Callable[[list[str]], tuple], seed: int) -> Case:
    """A random case of :func:`check_dedup`: one more corpus, judged on every target at once.

    >>> dedup_case(len, 1).input
    '166 news documents of another hidden corpus'
    """
    run = _Run(func, 70, 9000 + seed)
    parts = ("partition", "consistent", "precision", "recall", "cost")

    def judge(got: Any) -> str | None:
        problem = run.partition(got)
        if problem is not None:
            return problem
        judged = run.judged()
        for part in parts[1:]:
            problem = getattr(run, part)(judged)
            if problem is not None:
                return problem
        return None

    return Case(
        f"another hidden corpus (seed {seed})",
        f"{len(run.docs)} news documents of another hidden corpus",
        run.run,
        shown_expected="clusters from verified candidates, meeting the targets of precision, recall and cost",
        judge=judge,
        hint="Your pipeline must meet the targets on every corpus, not only on the one in the notebook.",
    )


class _Skip(Exception):
    """A case that cannot be judged because an earlier one failed: it fails without more detail."""


class _NotJudged:
    def __repr__(self) -> str:
        return "not judged"


_SKIPPED = _NotJudged()


def _unless_skipped(got: Any, judge: Callable[[Any], str | None]) -> str | None:
    if got is _SKIPPED:
        return "the run on this corpus failed or its answer could not be read: see the first case on it"
    return judge(got)


def _skippable(cases: list[Case]) -> list[Case]:
    """Let a case's call raise :class:`_Skip` to mean 'already reported': it then fails, briefly."""
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
                judge=partial(_unless_skipped, judge=judge),
                raises=case.raises,
                hint=case.hint,
                shown_expected=case.shown_expected,
            )
        )
    return out
