"""Brute-force truth and scores."""

import itertools

import pytest

from neardup_lab import (
    brute_force_pairs,
    jaccard,
    make_corpus,
    pairs_from_clusters,
    pairs_within_families,
    precision_recall,
    recall_by_bucket,
    word_shingles,
)


def test_brute_force_equals_double_loop():
    docs, _, _ = make_corpus(40, seed=6)
    sets = [word_shingles(d, 3) for d in docs] + [set(), set()]
    for threshold in (0.05, 0.5, 0.8, 1.0):
        expected = {
            (i, j): jaccard(sets[i], sets[j])
            for i, j in itertools.combinations(range(len(sets)), 2)
            if jaccard(sets[i], sets[j]) >= threshold
        }
        got = brute_force_pairs(sets, threshold)
        assert got.keys() == expected.keys()
        assert all(got[p] == pytest.approx(expected[p]) for p in got)


def test_brute_force_errors():
    with pytest.raises(ValueError, match="threshold"):
        brute_force_pairs([{"a"}], 0)
    with pytest.raises(TypeError, match="shingle sets"):
        brute_force_pairs(["not a set"], 0.5)


def test_precision_recall():
    assert precision_recall([(1, 0)], [(0, 1), (2, 3)]) == (1.0, 0.5)
    assert precision_recall([], [(0, 1)]) == (1.0, 0.0)
    assert precision_recall([(0, 1)], []) == (0.0, 1.0)
    with pytest.raises(ValueError, match="self-pair"):
        precision_recall([(2, 2)], [])


def test_recall_by_bucket():
    truth = {(0, 1): 0.80, (0, 2): 0.84, (1, 2): 0.9, (3, 4): 1.0}
    rows = recall_by_bucket({(0, 1), (3, 4)}, truth, [0.8, 0.85, 1.0])
    assert [(r["pairs"], r["found"]) for r in rows] == [(2, 1), (2, 1)]
    assert rows[0]["recall"] == 0.5
    assert recall_by_bucket(set(), truth, [0.0, 0.5])[0]["recall"] is None
    with pytest.raises(ValueError, match="increasing"):
        recall_by_bucket(set(), truth, [0.9, 0.8])


def test_pairs_helpers():
    assert pairs_from_clusters([[3, 1], [2]]) == {(1, 3)}
    assert pairs_within_families([0, 1, 0, 1]) == {(0, 2), (1, 3)}
