"""Cross-check: optimal_params chooses what datasketch 2.0.0's MinHashLSH chooses."""

import math

import pytest
from datasketch import MinHashLSH
from datasketch.lsh import _optimal_param
from scipy.integrate import quad

from neardup_lab import optimal_params
from neardup_lab.lsh import error_areas

THRESHOLDS = [round(0.05 * i, 2) for i in range(1, 20)]


@pytest.mark.parametrize("num_perm", [16, 32, 64, 128, 256])
@pytest.mark.parametrize("threshold", THRESHOLDS)
def test_same_choice_as_datasketch(threshold, num_perm):
    ours = optimal_params(threshold, num_perm)
    assert ours == _optimal_param(threshold, num_perm, 0.5, 0.5)
    if ours[0] >= 2:
        lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
        assert ours == (lsh.b, lsh.r)
    else:  # datasketch's index refuses a single band; our LSHIndex accepts it
        with pytest.raises(ValueError, match="b < 2"):
            MinHashLSH(threshold=threshold, num_perm=num_perm)


@pytest.mark.parametrize(("weights"), [(0.9, 0.1), (0.1, 0.9), (0.3, 0.7)])
def test_same_choice_as_datasketch_with_weights(weights):
    lsh = MinHashLSH(threshold=0.75, num_perm=128, weights=weights)
    assert optimal_params(0.75, 128, *weights) == (lsh.b, lsh.r)


@pytest.mark.parametrize("weights", [(0.01, 0.99), (0.2, 0.8), (0.7, 0.3), (0.95, 0.05)])
@pytest.mark.parametrize("num_perm", [20, 128])
def test_same_weighted_choice_as_datasketch_at_every_threshold(weights, num_perm):
    thresholds = [round(0.02 * i, 2) for i in range(1, 50)]
    ours = {t: optimal_params(t, num_perm, *weights) for t in thresholds}
    differ = [t for t in thresholds if ours[t] != _optimal_param(t, num_perm, *weights)]
    assert not differ


def _tight_areas(threshold, bands, rows):
    # Relative accuracy only: the areas can be far smaller than quad's default absolute 1.5e-8.
    def area(f, low, high):
        return quad(f, low, high, epsabs=0.0, epsrel=1e-12, limit=500)[0]

    below = area(lambda s: -math.expm1(bands * math.log1p(-(s**rows))), 0.0, threshold)
    return below, area(lambda s: (1 - s**rows) ** bands, threshold, 1.0)


BANDINGS = [(1, 1), (1, 128), (128, 1), (9, 13), (18, 7), (2, 64), (64, 2), (5, 25), (1, 1024), (3, 2730)]


@pytest.mark.parametrize("threshold", [0.01, 0.2, 0.5, 0.8, 0.95, 0.999])  # 0.01**1024 underflows
def test_closed_form_areas_equal_numerical_integration(threshold):
    for bands, rows in BANDINGS:
        exact = error_areas(threshold, bands, rows)
        below, above = _tight_areas(threshold, bands, rows)
        assert exact.false_positive == pytest.approx(below, rel=1e-9, abs=1e-15)
        assert exact.false_negative == pytest.approx(above, rel=1e-9, abs=1e-15)


def test_misses_alone_still_find_the_smallest_area():
    # Weighing misses alone, the areas drop below datasketch's integration error, so its choice
    # is noise there; the closed form must still find the true minimum.
    num_perm = 16
    for threshold in (0.05, 0.3, 0.6, 0.93):
        options = [(b, r) for b in range(1, num_perm + 1) for r in range(1, num_perm // b + 1)]
        misses = {banding: _tight_areas(threshold, *banding)[1] for banding in options}
        chosen = optimal_params(threshold, num_perm, 0.0, 1.0)
        assert misses[chosen] <= min(misses.values()) * (1 + 1e-9)
        assert chosen == (16, 1)  # as many one-row bands as fit: each adds a chance to meet


def test_reference_choices():
    assert optimal_params(0.8, 128) == (9, 13)
    assert optimal_params(0.7, 128) == (14, 9)


@pytest.mark.parametrize("bad", [0, 1, 1.2, -0.5, float("nan")])
def test_threshold_checked(bad):
    with pytest.raises(ValueError, match=r"threshold must be in \(0, 1\)"):
        optimal_params(bad, 128)


@pytest.mark.parametrize("bad", ["0.8", None, True])
def test_threshold_of_another_type_is_a_type_error(bad):
    with pytest.raises(TypeError, match="threshold must be a number"):
        optimal_params(bad, 128)


def test_longest_signature_is_searched_quickly_and_longer_refused():
    bands, rows = optimal_params(0.8, 8192)
    assert bands * rows <= 8192 and 0.7 < (1 / bands) ** (1 / rows) < 0.9
    with pytest.raises(ValueError, match="at most 8192"):
        optimal_params(0.8, 8193)


def test_weights_checked():
    with pytest.raises(ValueError, match="weights"):
        optimal_params(0.5, 128, -1, 0.5)
    with pytest.raises(ValueError, match="weights"):
        optimal_params(0.5, 128, 0, 0)
