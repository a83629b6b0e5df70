"""SimHash fingerprints and Hamming distance."""

import numpy as np
import pytest

from neardup_lab import hamming, make_article, replace_words, simhash, stable_hash, word_shingles, words


def test_simhash_by_definition():
    features = ["flood", "warning", "river", "flood"]
    votes = np.zeros(64)
    for f in features:
        h = stable_hash(f)
        votes += [1 if (h >> i) & 1 else -1 for i in range(64)]
    expected = sum(1 << i for i in range(64) if votes[i] > 0)
    assert simhash(features) == expected


def test_weights_equal_repetition():
    assert simhash([("rain", 3), ("sun", 1)]) == simhash(["rain", "rain", "rain", "sun"])
    assert simhash([("rain", 2.5)]) == simhash(["rain"])


def test_bits_parameter_truncates():
    fp = simhash(words("the budget debate lasted three days"), bits=16)
    assert 0 <= fp < 2**16
    assert fp == simhash(words("the budget debate lasted three days")) & 0xFFFF


def test_near_documents_are_close_unrelated_far():
    close, far = [], []
    for seed in range(10):
        a = simhash(word_shingles(make_article(seed=seed), 3))
        near = simhash(word_shingles(replace_words(make_article(seed=seed), 1, seed=seed + 100), 3))
        other = simhash(word_shingles(make_article(seed=seed + 1000), 3))
        close.append(hamming(a, near))
        far.append(hamming(a, other))
    assert max(close) < min(far)
    assert sum(close) / 10 < 8 and sum(far) / 10 > 24  # unrelated: about 32 of 64 bits differ


def test_single_word_features_are_dominated_by_common_words():
    # With unweighted single words, frequent function words outvote the rest, so even
    # unrelated articles get close fingerprints: a reason the book uses shingles as features.
    a, b = make_article(seed=1), make_article(seed=2)
    assert hamming(simhash(words(a)), simhash(words(b))) < hamming(
        simhash(word_shingles(a, 3)), simhash(word_shingles(b, 3))
    )


def test_hamming():
    assert hamming(0, 0) == 0
    assert hamming(0, 2**64 - 1) == 64
    assert hamming(0b1010, 0b0110) == 2
    with pytest.raises(ValueError, match="-1"):
        hamming(-1, 3)
    with pytest.raises(TypeError, match="str"):
        hamming("3", 3)


@pytest.mark.parametrize(
    ("bad", "error"),
    [("a text", TypeError), ([1, 2], TypeError), ([("x", "heavy")], TypeError), ([], ValueError)],
)
def test_simhash_errors(bad, error):
    with pytest.raises(error):
        simhash(bad)


@pytest.mark.parametrize(
    ("bits", "error"), [(0, ValueError), (65, ValueError), (1.5, TypeError), ("64", TypeError)]
)
def test_simhash_bits_checked(bits, error):
    with pytest.raises(error, match="bits"):
        simhash(["a"], bits=bits)
