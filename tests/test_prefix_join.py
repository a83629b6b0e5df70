"""The exact prefix-filter join finds exactly the pairs of brute force."""

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from neardup_lab import brute_force_pairs, make_corpus, word_shingles
from neardup_lab.prefix_join import prefix_candidates, prefix_join, prefix_length

# Small alphabets make overlaps, and so pairs near every threshold, common.
sets_of_tokens = st.lists(st.frozensets(st.sampled_from("abcdefghijklm"), max_size=9), max_size=14)
thresholds = st.sampled_from([0.1, 0.3, 0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.0]) | st.floats(0.01, 1.0)


@given(sets_of_tokens, thresholds)
def test_equals_brute_force_on_random_sets(sets, threshold):
    assert prefix_join(sets, threshold) == brute_force_pairs(sets, threshold)


@given(sets_of_tokens, thresholds)
def test_candidates_hold_every_pair(sets, threshold):
    truth = {p for p in brute_force_pairs(sets, threshold) if sets[p[0]]}
    assert truth <= prefix_candidates(sets, threshold)


def test_equals_brute_force_on_a_corpus():
    docs = make_corpus(300, seed=4, n_words=60).docs
    sets = [word_shingles(d, 3) for d in docs]
    for threshold in (0.5, 0.7, 0.8, 1.0):
        assert prefix_join(sets, threshold) == brute_force_pairs(sets, threshold)
    assert len(prefix_candidates(sets, 0.8)) < len(sets) * (len(sets) - 1) // 20


def test_edge_cases():
    assert prefix_join([], 0.5) == {}
    assert prefix_join([set()], 0.5) == {}
    # Two empty sets are identical; an empty and a non-empty one share nothing.
    assert prefix_join([set(), {"a"}, set()], 0.5) == {(0, 2): 1.0}
    # Duplicates: every pair of equal sets, at t = 1 as below it.
    same = [{"a", "b", "c"}] * 3 + [{"a", "b"}]
    expected = {pair: 1.0 for pair in itertools.combinations(range(3), 2)}
    assert prefix_join(same, 1.0) == expected
    assert prefix_join(same, 0.6) == {**expected, (0, 3): 2 / 3, (1, 3): 2 / 3, (2, 3): 2 / 3}
    assert prefix_length(3, 1.0) == 1


def test_errors_say_what_to_pass():
    with pytest.raises(ValueError, match="threshold"):
        prefix_join([{"a"}], 0)
    with pytest.raises(ValueError, match="threshold"):
        prefix_join([{"a"}], 1.5)
    with pytest.raises(TypeError, match="shingle sets"):
        prefix_join(["not a set"], 0.5)


@given(sets_of_tokens, thresholds)
def test_position_filtering_keeps_every_pair_and_drops_only_candidates(sets, threshold):
    with_positions = prefix_candidates(sets, threshold, positions=True)
    assert with_positions <= prefix_candidates(sets, threshold)
    assert {p for p in brute_force_pairs(sets, threshold) if sets[p[0]]} <= with_positions
    assert prefix_join(sets, threshold, positions=True) == brute_force_pairs(sets, threshold)


def test_position_filtering_drops_candidates_on_a_corpus():
    sets = [word_shingles(d, 3) for d in make_corpus(300, seed=4, n_words=60).docs]
    assert len(prefix_candidates(sets, 0.7, positions=True)) < len(prefix_candidates(sets, 0.7))
