"""Checks for Lab 6: choosing a threshold from labelled pairs.

The lab's data is :func:`labelled_pairs`: a news corpus whose editors marked, for a
sample of document pairs, whether the two are the same story. Among the pairs that are
*not* are articles that share a long newsletter footer, so a low threshold pays in
false alarms, a high one in missed copies, and the best threshold depends on what each
mistake costs.
"""

from __future__ import annotations

import math
import numbers
import random
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from ..corpus import make_article, make_corpus
from ..lsh import candidate_pairs, optimal_params
from ..minhash import MinHasher
from ..text import jaccard, word_shingles
from .harness import (
    Case,
    CheckResult,
    call_on_copies,
    grading,
    precision_recall_judge,
    run_check,
    show_value,
)

#: The thresholds the lab tries, and the costs the editors state for exercise 4.
THRESHOLDS = tuple(round(0.2 + 0.05 * i, 2) for i in range(16))
EDITOR_COSTS = {"miss": 1.0, "false_alarm": 5.0, "per_candidate": 0.4}
_K = 3  # words per shingle for the scores
_NUM_PERM = 128


class LabelledPairs(NamedTuple):
    """Documents, pairs of their indices, and whether the editors call each pair the same story."""

    docs: list[str]
    pairs: list[tuple[int, int]]
    labels: list[bool]


@lru_cache(maxsize=2)
def labelled_pairs(seed: int = 6) -> LabelledPairs:
    """The lab's labelled pairs: every same-story pair, every pair of footer articles, random others.

    >>> data = labelled_pairs()
    >>> len(data.pairs) == len(data.labels), sum(data.labels) > 0
    (True, True)
    """
    docs, origin, _ = make_corpus(120, seed=seed, n_words=120, edits_per_copy=2)
    docs, origin = list(docs), list(origin)
    rng = random.Random(seed)
    footer = make_article(seed=600 + seed, n_words=200).split()
    first_footer = len(docs)
    for i in range(40):
        body = make_article(seed=1000 * seed + i, n_words=rng.randint(60, 120))
        docs.append(body + "\n\n" + " ".join(footer[: rng.randint(20, 160)]))
        origin.append(len(origin))
    n = len(docs)
    same = [(i, j) for i in range(n) for j in range(i + 1, n) if origin[i] == origin[j]]
    footers = [(i, j) for i in range(first_footer, n) for j in range(i + 1, n)]
    others: set[tuple[int, int]] = set()
    while len(others) < 800:
        i, j = sorted(rng.sample(range(n), 2))
        if origin[i] != origin[j]:
            others.add((i, j))
    pairs = same + footers + sorted(others - set(footers))
    return LabelledPairs(docs, pairs, [origin[i] == origin[j] for i, j in pairs])


def _scores(data: LabelledPairs) -> list[float]:
    sets = [word_shingles(d, _K) for d in data.docs]
    return [jaccard(sets[i], sets[j]) for i, j in data.pairs]


# ------------------------------------------------------------ reference answers


def _precision_recall_at(scores: Sequence[float], labels: Sequence[bool], threshold: float) -> tuple:
    flagged = [bool(label) for score, label in zip(scores, labels) if score >= threshold]
    hits, positives = sum(flagged), sum(bool(label) for label in labels)
    return (hits / len(flagged) if flagged else 1.0, hits / positives if positives else 1.0)


def _cost_at(
    scores: Sequence[float], labels: Sequence[bool], threshold: float, miss_cost: float, alarm_cost: float
) -> float:
    misses = sum(1 for s, label in zip(scores, labels) if label and s < threshold)
    alarms = sum(1 for s, label in zip(scores, labels) if not label and s >= threshold)
    return miss_cost * misses + alarm_cost * alarms


def _best_threshold(
    scores: Sequence[float],
    labels: Sequence[bool],
    thresholds: Sequence[float],
    miss_cost: float,
    alarm_cost: float,
) -> float:
    return min(thresholds, key=lambda t: (_cost_at(scores, labels, t, miss_cost, alarm_cost), -t))


@lru_cache(maxsize=2)
def candidate_counts(seed: int = 6) -> dict[float, int]:
    """Candidate pairs to verify when banding for each of ``THRESHOLDS`` (128 hash functions).

    >>> counts = candidate_counts()
    >>> counts[0.2] > counts[0.95]
    True
    """
    data = labelled_pairs(seed)
    signatures = MinHasher(num_perm=_NUM_PERM, seed=1).signatures([word_shingles(d, _K) for d in data.docs])
    return {t: len(candidate_pairs(signatures, *optimal_params(t, _NUM_PERM))) for t in THRESHOLDS}


def editors_choice(seed: int = 6) -> tuple[float, dict[float, float]]:
    """The threshold with the least total cost under :data:`EDITOR_COSTS`, and every threshold's cost.

    >>> best, costs = editors_choice()
    >>> costs[best] == min(costs.values())
    True
    """
    data = labelled_pairs(seed)
    scores, counts = _scores(data), candidate_counts(seed)
    costs = {
        t: _cost_at(scores, data.labels, t, EDITOR_COSTS["miss"], EDITOR_COSTS["false_alarm"])
        + EDITOR_COSTS["per_candidate"] * counts[t]
        for t in THRESHOLDS
    }
    return min(costs, key=lambda t: (costs[t], -t)), costs


# ------------------------------------------------------------------- the checks


def _random_data(seed: int, n: int = 300) -> tuple[list[float], list[bool]]:
    rng = random.Random(seed)
    labels = [rng.random() < 0.3 for _ in range(n)]
    scores = [min(1.0, max(0.0, rng.gauss(0.7 if label else 0.3, 0.18))) for label in labels]
    return [round(s, 2) for s in scores], labels


def check_precision_recall_at(func: Callable[[Sequence, Sequence, float], tuple]) -> CheckResult:
    """Check a ``precision_recall_at(scores, labels, threshold) -> (precision, recall)``.

    A pair is flagged when its score is at least ``threshold``. Precision is the share of
    flagged pairs labelled duplicate (1.0 when nothing is flagged); recall the share of
    duplicates flagged (1.0 when there are none).

    >>> check_precision_recall_at(_precision_recall_at).passed
    PASS check_precision_recall_at: all 7 cases pass
    True
    """
    share = "Precision counts among the flagged pairs, recall among the pairs labelled duplicate."
    hand = [
        ("half and half", [0.9, 0.8, 0.2, 0.1], [True, False, True, False], 0.5, (0.5, 0.5), share),
        (
            "a score equal to the threshold",
            [0.5, 0.4],
            [True, False],
            0.5,
            (1.0, 1.0),
            "A pair scored exactly at the threshold is flagged: 'at least'.",
        ),
        (
            "nothing flagged",
            [0.1, 0.2],
            [True, False],
            0.9,
            (1.0, 0.0),
            "Nothing flagged means no false alarm: precision 1.0, and no division by zero.",
        ),
        (
            "no duplicates at all",
            [0.9, 0.1],
            [False, False],
            0.5,
            (0.0, 1.0),
            "With no duplicate to find, none is missed: recall 1.0.",
        ),
        (
            "numpy arrays, labels as 0 and 1",
            np.array([0.95, 0.7, 0.6, 0.3]),
            np.array([1, 1, 0, 1]),
            0.65,
            (1.0, 2 / 3),
            "Labels may come as 1 and 0 (or True and False), scores as a numpy array.",
        ),
    ]
    cases = [
        Case(
            name,
            f"scores={show_value(scores)}, labels={show_value(labels)}, threshold={t}",
            call_on_copies(func, scores, labels, t),
            expected,
            judge=precision_recall_judge(expected),
            hint=hint,
        )
        for name, scores, labels, t, expected, hint in hand
    ]
    for seed, t in ((1, 0.5), (2, 0.35)) + (((101, 0.45), (102, 0.6)) if grading() else ()):
        scores, labels = _random_data(seed)
        expected = _precision_recall_at(scores, labels, t)
        cases.append(
            Case(
                f"300 random pairs (seed {seed}), threshold {t}",
                f"300 scores rounded to 0.01, labels True for about 30 %, threshold={t}",
                call_on_copies(func, scores, labels, t),
                expected,
                judge=precision_recall_judge(expected),
                hint=share,
            )
        )
    return run_check("check_precision_recall_at", func, cases)


def check_cost_at(func: Callable[..., float]) -> CheckResult:
    """Check a ``cost_at(scores, labels, threshold, miss_cost, alarm_cost) -> float``.

    The cost of deciding at ``threshold``: ``miss_cost`` for every duplicate scored below
    it, ``alarm_cost`` for every other pair scored at or above it.

    >>> check_cost_at(_cost_at).passed
    PASS check_cost_at: all 6 cases pass
    True
    """
    which = "A miss is a duplicate left unflagged; a false alarm is a flagged pair that is not one."
    scores, labels = [0.9, 0.6, 0.5, 0.3], [True, False, True, True]
    hand = [
        ("one of each", scores, labels, 0.55, 1.0, 1.0, 3.0, which),
        ("misses cost more", scores, labels, 0.55, 10.0, 1.0, 21.0, which),
        ("false alarms cost more", scores, labels, 0.55, 1.0, 10.0, 12.0, which),
        (
            "a score equal to the threshold",
            scores,
            labels,
            0.5,
            1.0,
            1.0,
            2.0,
            "A pair scored exactly at the threshold is flagged, as in exercise 1.",
        ),
        ("free mistakes", scores, labels, 0.55, 0.0, 0.0, 0.0, "With both costs 0 nothing costs anything."),
    ]
    cases = [
        Case(
            name,
            f"scores={scores}, labels={labels}, threshold={t}, miss_cost={m}, alarm_cost={a}",
            call_on_copies(func, scores, labels, t, m, a),
            expected,
            hint=hint,
        )
        for name, scores, labels, t, m, a, expected, hint in hand
    ]
    for seed in (3, 103) if grading() else (3,):
        scores, labels = _random_data(seed)
        cases.append(
            Case(
                f"300 random pairs (seed {seed})",
                "300 random scores and labels, threshold=0.5, miss_cost=2, alarm_cost=3",
                call_on_copies(func, scores, labels, 0.5, 2, 3),
                float(_cost_at(scores, labels, 0.5, 2, 3)),
                hint=which,
            )
        )
    return run_check("check_cost_at", func, cases)


def check_best_threshold(func: Callable[..., float]) -> CheckResult:
    """Check a ``best_threshold(scores, labels, thresholds, miss_cost, alarm_cost) -> float``.

    It returns the threshold of ``thresholds`` with the least ``cost_at``; among
    equally cheap thresholds, the highest (it verifies the fewest candidates).

    >>> check_best_threshold(_best_threshold).passed
    PASS check_best_threshold: all 5 cases pass
    True
    """
    least = "Compute the cost at every threshold in the list and keep the cheapest."
    scores, labels = [0.9, 0.6, 0.5, 0.3], [True, False, True, True]
    hand = [
        ("equal costs", scores, labels, [0.2, 0.4, 0.55, 0.7], 1.0, 1.0, 0.2, least),
        ("false alarms expensive", scores, labels, [0.2, 0.4, 0.55, 0.7], 1.0, 10.0, 0.7, least),
        (
            "a tie goes to the highest threshold",
            [0.9, 0.1],
            [True, False],
            [0.3, 0.5, 0.8],
            1.0,
            1.0,
            0.8,
            "Several thresholds cost the same: the highest one verifies the fewest candidates.",
        ),
        (
            "thresholds in any order",
            scores,
            labels,
            [0.7, 0.2, 0.55, 0.4],
            1.0,
            10.0,
            0.7,
            "Do not assume the thresholds come sorted.",
        ),
    ]
    cases = [
        Case(
            name,
            f"scores={scores}, labels={labels}, thresholds={ts}, miss_cost={m}, alarm_cost={a}",
            call_on_copies(func, scores, labels, ts, m, a),
            expected,
            hint=hint,
        )
        for name, scores, labels, ts, m, a, expected, hint in hand
    ]
    for seed in (4, 104) if grading() else (4,):
        scores, labels = _random_data(seed)
        expected = _best_threshold(scores, labels, THRESHOLDS, 1.0, 3.0)
        cases.append(
            Case(
                f"300 random pairs (seed {seed})",
                "300 random scores and labels, thresholds=THRESHOLDS, miss_cost=1, alarm_cost=3",
                call_on_copies(func, scores, labels, list(THRESHOLDS), 1.0, 3.0),
                expected,
                hint=least,
            )
        )
    return run_check("check_best_threshold", func, cases)


def check_chosen_threshold(value: Any) -> CheckResult:
    """Check the answer to exercise 4: the threshold with the least total cost for the editors.

    The total cost of a threshold adds, over the labelled pairs, ``EDITOR_COSTS["miss"]``
    per missed duplicate and ``EDITOR_COSTS["false_alarm"]`` per false alarm, plus
    ``EDITOR_COSTS["per_candidate"]`` per candidate pair verified with banding tuned for
    the threshold (:func:`candidate_counts`).

    >>> check_chosen_threshold(editors_choice()[0]).passed
    PASS check_chosen_threshold: all 1 cases pass
    True
    """
    best, costs = editors_choice()

    def judge(got: Any) -> str | None:
        if isinstance(got, bool) or not isinstance(got, numbers.Real):
            return "the answer is a threshold: a number such as 0.6"
        nearest = min(THRESHOLDS, key=lambda t: abs(t - got))
        if not math.isclose(nearest, got, abs_tol=1e-9):
            return f"choose one of the thresholds the lab tries: {', '.join(map(str, THRESHOLDS))}"
        if nearest == best:
            return None
        return f"at {nearest} the total cost is {costs[nearest]:.2f}; one threshold costs less"

    case = Case(
        "least total cost for the editors",
        f"costs {EDITOR_COSTS}, the lab's labelled pairs and candidate counts",
        lambda: value,
        shown_expected="the threshold with the least total cost",
        judge=judge,
        hint="Add the three parts for every threshold: misses, false alarms and candidates, each "
        "times its cost. Candidates matter: they are verified whether or not they are duplicates.",
    )
    return run_check("check_chosen_threshold", value, [case])
