"""Cross-check: optimal_params chooses what datasketch 2.0.0's MinHashLSH chooses."""

import pytest
from datasketch import MinHashLSH
from datasketch.lsh import _optimal_param

from neardup_lab import optimal_params

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


def test_reference_choices():
    assert optimal_params(0.8, 128) == (9, 13)
    assert optimal_params(0.7, 128) == (14, 9)


@pytest.mark.parametrize("bad", [0, 1, 1.2, -0.5, "0.8"])
def test_threshold_checked(bad):
    with pytest.raises(ValueError, match="threshold"):
        optimal_params(bad, 128)


def test_weights_checked():
    with pytest.raises(ValueError, match="weights"):
        optimal_params(0.5, 128, -1, 0.5)
    with pytest.raises(ValueError, match="weights"):
        optimal_params(0.5, 128, 0, 0)
