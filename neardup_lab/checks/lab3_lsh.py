"""Checks for Lab 3: LSH banding."""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from ..corpus import make_corpus
from ..lsh import candidate_pairs, error_areas, optimal_params, s_curve
from ..minhash import MinHasher
from ..text import word_shingles
from .harness import Case, CheckResult, as_set, call_on_copies, run_check, same_set, show_value


def check_s_curve(func: Callable[[float, int, int], float]) -> CheckResult:
    """Check a ``candidate_probability(s, bands, rows) -> float``: ``1 - (1 - s**rows)**bands``.

    >>> check_s_curve(s_curve).passed
    PASS check_s_curve: all 8 cases pass
    True
    """
    formula = (
        "Build it in steps: the chance that one band of r rows matches, that it does not, that "
        "none of the b bands match, and finally that at least one does."
    )
    hand = [
        ("20 bands of 5 rows, s = 0.5", 0.5, 20, 5, formula),
        ("s = 0 never", 0.0, 4, 3, "Two signatures with nothing in common never match a band."),
        ("s = 1 always", 1.0, 4, 3, "Identical signatures match every band."),
        ("one band of one row", 0.8, 1, 1, "With one band of one row the probability is s itself."),
        (
            "many bands, few rows",
            0.6,
            10,
            2,
            "Which of bands and rows belongs to one band, and which counts the bands?",
        ),
        (
            "few bands, many rows",
            0.6,
            2,
            10,
            "Which of bands and rows belongs to one band, and which counts the bands?",
        ),
        ("9 bands of 13 rows, s = 0.9", 0.9, 9, 13, formula),
        ("50 bands of 2 rows, s = 0.3", 0.3, 50, 2, formula),
    ]
    cases = [
        Case(
            name,
            f"s={s}, bands={b}, rows={r}",
            call_on_copies(func, s, b, r),
            float(s_curve(s, b, r)),
            hint=hint,
        )
        for name, s, b, r, hint in hand
    ]
    return run_check("check_s_curve", func, cases)


def s_curve_case(func: Callable[[float, int, int], float], seed: int) -> Case:
    """A random case of :func:`check_s_curve`: ``s``, bands and rows drawn from the seed.

    >>> s_curve_case(s_curve, 1).input
    's=0.51, bands=30, rows=15'
    """
    rng = np.random.default_rng(seed)
    s, b, r = round(float(rng.uniform(0.05, 0.95)), 2), int(rng.integers(1, 40)), int(rng.integers(1, 16))
    return Case(
        f"s={s}, {b} bands of {r} rows",
        f"s={s}, bands={b}, rows={r}",
        call_on_copies(func, s, b, r),
        float(s_curve(s, b, r)),
        hint="Build it in steps: the chance that one band of r rows matches, that it does not, that "
        "none of the b bands match, and finally that at least one does.",
    )


def _pairs_judge(expected: set[tuple[int, int]]) -> Callable[[Any], str | None]:
    def judge(got: Any) -> str | None:
        try:
            found = as_set(got, "a set of (i, j) pairs")
        except ValueError as exc:
            return str(exc)
        pairs = set()
        for pair in found:
            if not isinstance(pair, tuple) or len(pair) != 2:
                return f"{pair!r} is not a pair (i, j): write each pair as a tuple of two indices"
            try:
                i, j = (int(v) for v in pair)
            except (TypeError, ValueError):
                return f"{pair!r} is not a pair of indices"
            if i >= j:
                return f"pair {pair!r}: write each pair once, as (i, j) with i < j"
            pairs.add((i, j))
        return same_set(pairs, expected)

    return judge


def check_candidate_pairs(func: Callable[[np.ndarray, int, int], set[tuple[int, int]]]) -> CheckResult:
    """Check a ``find_candidate_pairs(signatures, bands, rows) -> set[tuple[int, int]]``.

    Rows ``i < j`` of the ``(n, num_perm)`` array are a candidate pair when they
    agree on all ``rows`` values of at least one band; ``bands * rows`` may be
    less than ``num_perm`` (the last columns are unused) but not more.

    >>> check_candidate_pairs(candidate_pairs).passed
    PASS check_candidate_pairs: all 9 cases pass
    True
    """
    tables = (
        "Keep one hash table per band. The same values in band 0 of one row and band 1 of another "
        "are not a match: include the band number in the key, or use a separate dict per band."
    )
    groups = "Every two rows in the same bucket are a pair: a bucket of three rows gives three pairs."
    slicing = "Band i is the i-th run of `rows` consecutive columns: where do your bands start and end?"

    def arr(rows: list[list[int]]) -> np.ndarray:
        return np.array(rows, dtype=np.uint32).reshape(len(rows), -1) if rows else np.zeros((0, 4), np.uint32)

    hand = [
        ("one band matches", [[1, 2, 3, 4], [1, 2, 0, 0], [5, 6, 3, 4]], 2, 2, {(0, 1), (0, 2)}, slicing),
        (
            "all bands must not be required",
            [[1, 2, 3, 4], [1, 2, 7, 7]],
            2,
            2,
            {(0, 1)},
            "One matching band is enough: OR over bands, AND over the rows of a band.",
        ),
        ("equal values in different bands", [[1, 2, 3, 4], [3, 4, 1, 2]], 2, 2, set(), tables),
        (
            "three equal rows",
            [[9, 9, 1, 2], [9, 9, 3, 4], [9, 9, 5, 6]],
            2,
            2,
            {(0, 1), (0, 2), (1, 2)},
            groups,
        ),
        ("unused last columns", [[1, 2, 8], [1, 2, 9]], 1, 2, {(0, 1)}, slicing),
        (
            "rows differ in the last row of a band",
            [[1, 2, 3, 4, 5, 6], [1, 2, 0, 4, 5, 0]],
            2,
            3,
            set(),
            slicing,
        ),
        ("a single signature", [[1, 2, 3, 4]], 2, 2, set(), "One row has no partner."),
    ]
    cases = [
        Case(
            name,
            f"signatures=np.array({rows}), bands={b}, rows={r}",
            call_on_copies(func, arr(rows), b, r),
            expected,
            judge=_pairs_judge(expected),
            hint=hint,
        )
        for name, rows, b, r, expected, hint in hand
    ]
    cases.append(
        Case(
            "bands * rows > num_perm",
            "signatures of 4 values, bands=3, rows=2",
            call_on_copies(func, arr([[1, 2, 3, 4], [1, 2, 3, 4]]), 3, 2),
            raises=ValueError,
            hint="3 bands of 2 rows need 6 values and the signatures have 4: refuse such a request "
            "with ValueError.",
        )
    )
    cases.append(corpus_pairs_case(func, 5, 6, 5))
    return run_check("check_candidate_pairs", func, cases)


def corpus_pairs_case(
    func: Callable[[np.ndarray, int, int], set[tuple[int, int]]], seed: int, bands: int, rows: int
) -> Case:
    """A case of :func:`check_candidate_pairs`: signatures (32 values) of a small corpus.

    >>> corpus_pairs_case(candidate_pairs, 5, 6, 5).name
    'signatures of a small corpus (seed 5)'
    """
    docs = make_corpus(30, seed=seed, n_words=60).docs
    sigs = MinHasher(num_perm=32, seed=2).signatures([word_shingles(d, 3) for d in docs])
    expected = candidate_pairs(sigs, bands, rows)
    return Case(
        f"signatures of a small corpus (seed {seed})",
        f"MinHash signatures (32 values) of {len(docs)} news documents, bands={bands}, rows={rows}",
        call_on_copies(func, sigs, bands, rows),
        expected,
        judge=_pairs_judge(expected),
        hint="Keep one hash table per band. The same values in band 0 of one row and band 1 of another "
        "are not a match: include the band number in the key, or use a separate dict per band.",
    )


def candidate_pairs_case(func: Callable[[np.ndarray, int, int], set[tuple[int, int]]], seed: int) -> Case:
    """A random case of :func:`check_candidate_pairs`: another corpus, bands and rows.

    >>> candidate_pairs_case(candidate_pairs, 3).input.endswith("rows=5")
    True
    """
    rows = 2 + seed % 4
    return corpus_pairs_case(func, seed, 1 + (seed * 7) % (32 // rows), rows)


def _banding_error(threshold: float, bands: int, rows: int) -> float:
    return sum(error_areas(threshold, bands, rows))


def _int_pair(got: Any) -> tuple[int, int]:
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        raise TypeError(f"expected a pair (bands, rows), got {show_value(got)}")
    bands, rows = got
    for name, v in (("bands", bands), ("rows", rows)):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise TypeError(f"{name} must be an int, got {v!r}")
        if v < 1:
            raise TypeError(f"{name} must be at least 1, got {v}")
    return int(bands), int(rows)


def check_choose_bands_rows(func: Callable[[float, int], tuple[int, int]]) -> CheckResult:
    """Check a ``choose_bands_rows(threshold, num_perm) -> (bands, rows)``.

    The choice must have ``bands * rows <= num_perm`` and (nearly) the smallest
    sum of the false-positive area (under the S-curve, left of the threshold)
    and the false-negative area (above it, right of the threshold).

    >>> check_choose_bands_rows(optimal_params).passed
    PASS check_choose_bands_rows: all 7 cases pass
    True
    """
    settings = [(0.5, 16), (0.8, 128), (0.9, 64), (0.3, 32), (0.7, 100), (0.6, 50), (0.5, 1)]
    cases = [bands_rows_case(func, threshold, num_perm) for threshold, num_perm in settings]
    return run_check("check_choose_bands_rows", func, cases)


def choose_bands_rows_case(func: Callable[[float, int], tuple[int, int]], seed: int) -> Case:
    """A random case of :func:`check_choose_bands_rows`: a threshold and a number of hash functions.

    >>> choose_bands_rows_case(optimal_params, 2).input.startswith("threshold=")
    True
    """
    rng = np.random.default_rng(seed)
    return bands_rows_case(func, round(float(rng.uniform(0.2, 0.95)), 2), int(rng.integers(2, 130)))


def bands_rows_case(func: Callable[[float, int], tuple[int, int]], threshold: float, num_perm: int) -> Case:
    """A case of :func:`check_choose_bands_rows` at ``threshold`` with ``num_perm`` hash functions.

    >>> bands_rows_case(optimal_params, 0.5, 16).name
    'threshold 0.5, 16 hash functions'
    """
    best = optimal_params(threshold, num_perm)
    best_error = _banding_error(threshold, *best)

    def judge(
        got: Any, threshold: float = threshold, num_perm: int = num_perm, best_error: float = best_error
    ):
        try:
            bands, rows = _int_pair(got)
        except TypeError as exc:
            return str(exc)
        if bands * rows > num_perm:
            return f"bands * rows = {bands * rows} is more than num_perm = {num_perm}"
        error = _banding_error(threshold, bands, rows)
        if error <= best_error * (1 + 1e-3) + 1e-12:
            return None
        return f"false-positive + false-negative area is {error:.4f}; the best choice has {best_error:.4f}"

    return Case(
        f"threshold {threshold}, {num_perm} hash functions",
        f"threshold={threshold}, num_perm={num_perm}",
        call_on_copies(func, threshold, num_perm),
        shown_expected=f"{best} (or another pair with the same areas)",
        judge=judge,
        hint="Try every bands >= 1 and rows >= 1 with bands * rows <= num_perm (not only products "
        "equal to num_perm); integrate the S-curve numerically from 0 to the threshold (false "
        "positives) and 1 - S-curve from the threshold to 1 (false negatives), with about 1000 "
        "points each; keep the pair with the smallest sum.",
    )


def check_target_choice(chosen: Any) -> CheckResult:
    """Check the answer ``(bands, rows)`` to the lab's design question.

    With at most 100 hash functions, a pair of similarity 0.7 must become a
    candidate with probability at least 0.95, and a pair of similarity 0.3 with
    probability at most 0.05.

    >>> check_target_choice((20, 5)).passed
    PASS check_target_choice: all 3 cases pass
    True
    """

    def pair() -> tuple[int, int]:
        return _int_pair(chosen)

    def at_least(s: float, p_min: float) -> Callable[[Any], str | None]:
        def judge(got: tuple[int, int]) -> str | None:
            p = s_curve(s, *got)
            return None if p >= p_min else f"with {got[0]} bands of {got[1]} rows the probability is {p:.4f}"

        return judge

    def at_most(s: float, p_max: float) -> Callable[[Any], str | None]:
        def judge(got: tuple[int, int]) -> str | None:
            p = s_curve(s, *got)
            return None if p <= p_max else f"with {got[0]} bands of {got[1]} rows the probability is {p:.4f}"

        return judge

    shown = f"chosen={show_value(chosen)}"
    search = (
        "Loop over all (bands, rows) with bands * rows <= 100 and print those that meet both "
        "conditions, using your candidate_probability."
    )
    cases = [
        Case(
            "at most 100 hash functions",
            shown,
            pair,
            shown_expected="bands * rows <= 100",
            judge=lambda got: None if got[0] * got[1] <= 100 else f"bands * rows = {got[0] * got[1]}",
            hint="Each band uses rows values of the signature.",
        ),
        Case(
            "similarity 0.7 found with probability >= 0.95",
            shown,
            pair,
            shown_expected="candidate_probability(0.7, bands, rows) >= 0.95",
            judge=at_least(0.7, 0.95),
            hint="More bands (or fewer rows) raise the curve. " + search,
        ),
        Case(
            "similarity 0.3 found with probability <= 0.05",
            shown,
            pair,
            shown_expected="candidate_probability(0.3, bands, rows) <= 0.05",
            judge=at_most(0.3, 0.05),
            hint="More rows per band lower the curve for dissimilar pairs. " + search,
        ),
    ]
    return run_check("check_target_choice", chosen, cases)
