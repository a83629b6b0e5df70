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


# ------------------------------------------------------------------- the checks


def _random_data(seed: int, n: int = 300) -> tuple[list[float], list[bool]]:
    rng = random.Random(seed)
    labels = [rng.random() < 0.3 for _ in range(n)]
    scores = [min(1.0, max(0.0, rng.gauss(0.7 if label else 0.3, 0.18))) for label in labels]
    return [round(s, 2) for s in scores], labels


def random_pairs(seed: int) -> tuple[Any, Any, str]:
    """Random scores and labels in one of the shapes the lab allows, and how a report shows them.

    Lists of floats and bools; numpy arrays with numpy bool labels; numpy arrays with labels 0 and 1.

    >>> scores, labels, shown = random_pairs(2)
    >>> labels.dtype, shown
    (dtype('bool'), '300 scores rounded to 0.01 (numpy array), labels True for about 30 % (numpy bool array)')
    """
    scores, labels = _random_data(seed)
    shape = seed % 3
    if shape == 0:
        return scores, labels, "300 scores rounded to 0.01, labels True for about 30 %"
    if shape == 2:
        return (
            np.array(scores),
            np.array(labels),
            "300 scores rounded to 0.01 (numpy array), labels True for about 30 % (numpy bool array)",
        )
    return (
        np.array(scores),
        np.array(labels, dtype=np.int64),
        "300 scores rounded to 0.01 (numpy array), labels 1 for about 30 % and 0 otherwise",
    )


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
    cases += [precision_recall_at_case(func, seed) for seed in (1, 3)]
    return run_check("check_precision_recall_at", func, cases)


def precision_recall_at_case(func: Callable[[Sequence, Sequence, float], tuple], seed: int) -> Case:
    """A random case of :func:`check_precision_recall_at` (see :func:`random_pairs` for the shapes).

    >>> precision_recall_at_case(_precision_recall_at, 1).input.endswith("threshold=0.45")
    True
    """
    scores, labels, shown = random_pairs(seed)
    t = THRESHOLDS[(seed * 5) % len(THRESHOLDS)]
    expected = _precision_recall_at(scores, labels, t)
    return Case(
        f"300 random pairs (seed {seed}), threshold {t}",
        f"{shown}, threshold={t}",
        call_on_copies(func, scores, labels, t),
        expected,
        judge=precision_recall_judge(expected),
        hint="Precision counts among the flagged pairs, recall among the pairs labelled duplicate.",
    )


def check_cost_at(func: Callable[..., float]) -> CheckResult:
    """Check a ``cost_at(scores, labels, threshold, miss_cost, alarm_cost) -> float``.

    The cost of deciding at ``threshold``: ``miss_cost`` for every duplicate scored below
    it, ``alarm_cost`` for every other pair scored at or above it.

    >>> check_cost_at(_cost_at).passed
    PASS check_cost_at: all 7 cases pass
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
        (
            "numpy arrays, numpy bool labels",
            np.array(scores),
            np.array(labels),
            0.55,
            1.0,
            1.0,
            3.0,
            "Labels may come as numpy booleans, or as 1 and 0: use their truth, do not compare them "
            "with True or False by identity.",
        ),
    ]
    cases = [
        Case(
            name,
            f"scores={show_value(scores)}, labels={show_value(labels)}, threshold={t}, "
            f"miss_cost={m}, alarm_cost={a}",
            call_on_copies(func, scores, labels, t, m, a),
            expected,
            hint=hint,
        )
        for name, scores, labels, t, m, a, expected, hint in hand
    ]
    cases.append(cost_at_case(func, 3))
    return run_check("check_cost_at", func, cases)


def cost_at_case(func: Callable[..., float], seed: int) -> Case:
    """A random case of :func:`check_cost_at`: random pairs (see :func:`random_pairs`) and costs.

    >>> cost_at_case(_cost_at, 3).input.endswith("threshold=0.5, miss_cost=2, alarm_cost=3")
    True
    """
    scores, labels, shown = random_pairs(seed)
    rng = random.Random(seed)
    t, m, a = (0.5, 2, 3) if seed == 3 else (rng.choice(THRESHOLDS), rng.randint(1, 9), rng.randint(1, 9))
    return Case(
        f"300 random pairs (seed {seed})",
        f"{shown}, threshold={t}, miss_cost={m}, alarm_cost={a}",
        call_on_copies(func, scores, labels, t, m, a),
        float(_cost_at(scores, labels, t, m, a)),
        hint="A miss is a duplicate left unflagged; a false alarm is a flagged pair that is not one.",
    )


def check_best_threshold(func: Callable[..., float]) -> CheckResult:
    """Check a ``best_threshold(scores, labels, thresholds, miss_cost, alarm_cost) -> float``.

    It returns the threshold of ``thresholds`` with the least ``cost_at``; among
    equally cheap thresholds, the highest (it verifies the fewest candidates).

    >>> check_best_threshold(_best_threshold).passed
    PASS check_best_threshold: all 6 cases pass
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
            [0.3, 0.8, 0.5],
            1.0,
            1.0,
            0.8,
            "Several thresholds cost the same: the highest one verifies the fewest candidates, "
            "wherever it stands in the list.",
        ),
        (
            "a tie, highest first",
            [0.9, 0.1],
            [True, False],
            [0.8, 0.3, 0.5],
            1.0,
            1.0,
            0.8,
            "Several thresholds cost the same: the highest one verifies the fewest candidates, "
            "wherever it stands in the list.",
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
    cases.append(best_threshold_case(func, 4))
    return run_check("check_best_threshold", func, cases)


def best_threshold_case(func: Callable[..., float], seed: int) -> Case:
    """A random case of :func:`check_best_threshold`: thresholds shuffled, with ties among them.

    >>> best_threshold_case(_best_threshold, 4).name
    '300 random pairs (seed 4)'
    """
    scores, labels, shown = random_pairs(seed)
    rng = random.Random(seed)
    # Thresholds between two neighbouring scores cost the same: ties, in no particular order.
    thresholds = [*THRESHOLDS, *(round(t + 0.001 * i, 3) for t in THRESHOLDS[::3] for i in (1, 2, 3))]
    rng.shuffle(thresholds)
    miss, alarm = (1.0, 3.0) if seed == 4 else (float(rng.randint(1, 5)), float(rng.randint(1, 9)))
    return Case(
        f"300 random pairs (seed {seed})",
        f"{shown}, {len(thresholds)} thresholds in random order, some a hair apart (they tie), "
        f"miss_cost={miss:g}, alarm_cost={alarm:g}",
        call_on_copies(func, scores, labels, thresholds, miss, alarm),
        _best_threshold(scores, labels, thresholds, miss, alarm),
        hint="Compute the cost at every threshold in the list and keep the cheapest; among equally "
        "cheap ones the highest, whatever the order of the list.",
    )


def _threshold_of(key: Any) -> float | None:
    """The lab's threshold a key stands for (within 1e-9), or None."""
    if isinstance(key, bool) or not isinstance(key, numbers.Real):
        return None
    nearest = min(THRESHOLDS, key=lambda t: abs(t - float(key)))
    return nearest if math.isclose(nearest, float(key), abs_tol=1e-9) else None


def read_totals(got: Any) -> dict[float, float]:
    """The table ``{threshold: total cost}`` of exercise 4, or ValueError saying what is wrong with it.

    >>> read_totals({t: 1.0 for t in THRESHOLDS})[0.2]
    1.0
    >>> read_totals([1.0])
    Traceback (most recent call last):
    ...
    ValueError: totals is a dict {threshold: total cost}, not a list
    """
    if not isinstance(got, dict):
        raise ValueError(f"totals is a dict {{threshold: total cost}}, not a {type(got).__name__}")
    table = {}
    for key, value in got.items():
        t = _threshold_of(key)
        if t is None:
            raise ValueError(f"{key!r} is not one of the lab's thresholds: {', '.join(map(str, THRESHOLDS))}")
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
            raise ValueError(f"the total at {t} is not a number: {show_value(value, 40)}")
        table[t] = float(value)
    missing = [t for t in THRESHOLDS if t not in table]
    if missing:
        raise ValueError(f"no total for the thresholds {', '.join(map(str, missing))}")
    return table


def check_chosen_threshold(totals: Any) -> CheckResult:
    """Check the table of exercise 4: ``totals``, the editors' total cost at every threshold.

    The total cost of a threshold adds, over the labelled pairs, ``EDITOR_COSTS["miss"]``
    per missed duplicate and ``EDITOR_COSTS["false_alarm"]`` per false alarm, plus
    ``EDITOR_COSTS["per_candidate"]`` per candidate pair verified with banding tuned for
    the threshold (:func:`candidate_counts`). The notebook checks the table's shape and its
    parts; grading compares every total with the grader's own.

    >>> counts = candidate_counts()
    >>> check_chosen_threshold({t: 0.4 * counts[t] + 3 for t in THRESHOLDS}).passed
    PASS check_chosen_threshold: all 3 cases pass
    True
    """
    counts = candidate_counts()
    data = labelled_pairs()
    positives = sum(data.labels)
    worst = EDITOR_COSTS["miss"] * positives + EDITOR_COSTS["false_alarm"] * (len(data.labels) - positives)

    def table() -> dict[float, float]:
        return read_totals(totals)

    def rest(t: float, table: dict[float, float]) -> float:
        return table[t] - EDITOR_COSTS["per_candidate"] * counts[t]

    def priced(table: dict[float, float]) -> str | None:
        low = [t for t in THRESHOLDS if rest(t, table) < -1e-6]
        if low:
            return f"at {low[0]} the total is less than the cost of its candidates alone"
        return None

    def whole(table: dict[float, float]) -> str | None:
        for t in THRESHOLDS:
            mistakes = rest(t, table)
            if abs(mistakes - round(mistakes)) > 1e-6 or mistakes > worst + 1e-6:
                return (
                    f"at {t}, the total minus the candidates' cost is not a whole number of misses and "
                    "false alarms at their prices"
                )
        return None

    def shape(got: Any) -> str | None:
        try:
            read_totals(got)
        except ValueError as exc:
            return str(exc)
        return None

    shown = f"costs {EDITOR_COSTS}, the lab's labelled pairs and candidate counts"
    cases = [
        Case(
            "a total for every threshold",
            shown,
            lambda: totals,
            shown_expected="a dict {threshold: total cost} over checks.THRESHOLDS",
            judge=shape,
            hint="Make a dict with one entry per threshold of checks.THRESHOLDS.",
        ),
        Case(
            "candidates are priced",
            shown,
            table,
            shown_expected="every total includes the price of its candidate pairs",
            judge=priced,
            hint="Candidates are verified whether or not they are duplicates: each one costs "
            "EDITOR_COSTS['per_candidate'], at every threshold.",
        ),
        Case(
            "misses and false alarms are priced",
            shown,
            table,
            shown_expected="every total is the candidates' price plus whole mistakes at their prices",
            judge=whole,
            hint="Add the three parts for every threshold: misses, false alarms and candidates, each "
            "times its cost.",
        ),
    ]
    return run_check("check_chosen_threshold", totals, cases)
