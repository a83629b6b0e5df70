"""Lab 6's reference answer: the editors' total cost at every threshold, and its grading cases."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from neardup_lab import jaccard, word_shingles
from neardup_lab.checks.harness import Case
from neardup_lab.checks.lab6_threshold import (
    EDITOR_COSTS,
    THRESHOLDS,
    candidate_counts,
    labelled_pairs,
    read_totals,
)


@lru_cache(maxsize=1)
def editors_totals() -> dict[float, float]:
    """The total cost of every threshold under ``EDITOR_COSTS``: misses, false alarms, candidates."""
    data, counts = labelled_pairs(), candidate_counts()
    sets = [word_shingles(d, 3) for d in data.docs]
    scores = [jaccard(sets[i], sets[j]) for i, j in data.pairs]
    totals = {}
    for t in THRESHOLDS:
        misses = sum(1 for s, label in zip(scores, data.labels) if label and s < t)
        alarms = sum(1 for s, label in zip(scores, data.labels) if not label and s >= t)
        totals[t] = (
            EDITOR_COSTS["miss"] * misses
            + EDITOR_COSTS["false_alarm"] * alarms
            + EDITOR_COSTS["per_candidate"] * counts[t]
        )
    return totals


def editors_choice() -> float:
    """The cheapest threshold (the highest among equally cheap ones)."""
    totals = editors_totals()
    return min(totals, key=lambda t: (totals[t], -t))


def totals_cases(totals: Any) -> list[Case]:
    """One case per threshold: the student's total equals the reference (no number is shown)."""
    want = editors_totals()

    def table() -> dict[float, float]:
        return read_totals(totals)

    def judge_at(t: float):
        def judge(got: dict[float, float]) -> str | None:
            if abs(got[t] - want[t]) <= 1e-6 * max(1.0, abs(want[t])):
                return None
            return (
                f"the total at {t} is not the misses, false alarms and candidates of that threshold, "
                "each at its price"
            )

        return judge

    cases = [
        Case(
            f"the total cost at {t}",
            f"threshold {t}, the editors' costs {EDITOR_COSTS}",
            table,
            shown_expected="misses x miss cost + false alarms x false-alarm cost + candidates x price",
            judge=judge_at(t),
            hint="A miss is a duplicate scored below the threshold; a false alarm a non-duplicate at or "
            "above it; the candidates are those of the banding tuned for the threshold.",
        )
        for t in THRESHOLDS
    ]
    best = editors_choice()
    cases.append(
        Case(
            "the cheapest threshold",
            "the table's least total",
            table,
            shown_expected="the editors' cheapest threshold has the least total in the table",
            judge=lambda got: None if min(got, key=lambda t: (got[t], -t)) == best else "another threshold",
            hint="The table decides the threshold: its cheapest entry must be the editors' choice.",
        )
    )
    return cases
