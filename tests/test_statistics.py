"""Statistical behaviour with fixed seeds: unbiased estimates, the right spread, the S-curve.

Bounds are 3-4 standard errors wide: a correct implementation passes them with the fixed
seeds used here, and the deliberately weak scheme is shown to fail the same check.
"""

import math

import numpy as np
import pytest

from neardup_lab import MinHasher, candidate_pair_array, estimate_jaccard, jaccard, s_curve

SEEDS = 400
K = 128


def _pair(n_shared: int, n_only: int) -> tuple[set[str], set[str]]:
    shared = {f"shared {i}" for i in range(n_shared)}
    return shared | {f"left {i}" for i in range(n_only)}, shared | {f"right {i}" for i in range(n_only)}


def _estimates(a: set[str], b: set[str], scheme: str) -> np.ndarray:
    return np.array(
        [
            estimate_jaccard(
                MinHasher(K, seed=s, scheme=scheme).signature(a),
                MinHasher(K, seed=s, scheme=scheme).signature(b),
            )
            for s in range(SEEDS)
        ]
    )


@pytest.mark.parametrize("scheme", ["multiply-shift", "mod-prime", "one-permutation"])
@pytest.mark.parametrize(("n_shared", "n_only"), [(186, 110), (100, 10), (30, 135), (20, 10)])
def test_estimator_unbiased_with_predicted_spread(scheme, n_shared, n_only):
    a, b = _pair(n_shared, n_only)
    true = jaccard(a, b)
    est = _estimates(a, b, scheme)
    predicted_sd = math.sqrt(true * (1 - true) / K)
    standard_error = predicted_sd / math.sqrt(SEEDS)
    assert abs(est.mean() - true) < 3 * standard_error, (est.mean(), true)
    assert abs(est.std(ddof=1) / predicted_sd - 1) < 0.20, (est.std(ddof=1), predicted_sd)


def test_the_check_catches_the_weak_scheme():
    # The same check applied to the deliberately weak hash fails, so it is not a check that cannot
    # fail. The weak hash favours the smallest inputs; for this pair several of them are shared,
    # so it overestimates (for other pairs the error goes the other way).
    a, b = _pair(150, 150)
    true = jaccard(a, b)
    est = _estimates(a, b, "small-affine")
    standard_error = math.sqrt(true * (1 - true) / K) / math.sqrt(SEEDS)
    assert abs(est.mean() - true) > 3 * standard_error


@pytest.mark.parametrize(
    ("similarity_pair", "bands", "rows"),
    [((50, 25), 20, 5), ((80, 10), 9, 13), ((80, 10), 16, 8), ((60, 20), 14, 9)],
)
def test_candidate_rate_follows_s_curve(similarity_pair, bands, rows):
    n_shared, n_only = similarity_pair
    a, b = _pair(n_shared, n_only)
    true = jaccard(a, b)
    trials = 600
    width = bands * rows
    # Independent trials: one hasher per trial, each with its own seed.
    hits = sum(
        len(candidate_pair_array(MinHasher(num_perm=width, seed=99 + t).signatures([a, b]), bands, rows))
        for t in range(trials)
    )
    expected = s_curve(true, bands, rows)
    sd = math.sqrt(expected * (1 - expected) / trials)
    assert abs(hits / trials - expected) <= 4 * sd + 1e-9, (hits / trials, expected)
