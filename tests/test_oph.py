"""One-permutation hashing with densification, and the flat signing path."""

import numpy as np
import pytest

from neardup_lab import MinHasher, estimate_jaccard, hash_shingles, jaccard
from neardup_lab.engine.signing import sign_flat
from neardup_lab.oph import EMPTY, densify, oph_signatures


def test_deterministic_across_hashers():
    s = {f"w{i}" for i in range(50)}
    a = MinHasher(64, seed=3, scheme="one-permutation").signature(s)
    b = MinHasher(64, seed=3, scheme="one-permutation").signature(s)
    c = MinHasher(64, seed=4, scheme="one-permutation").signature(s)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


@pytest.mark.parametrize("size", [1, 3, 20, 127, 128, 1000])
def test_densification_leaves_no_empty_bin(size):
    sig = MinHasher(128, seed=1, scheme="one-permutation").signature({f"x{i}" for i in range(size)})
    assert (sig != EMPTY).all()
    raw = oph_signatures(hash_shingles([f"x{i}" for i in range(size)]), np.array([size]), 128, 1, fill=False)
    if size < 128:
        assert (raw == EMPTY).any()  # so the check above is about densification doing its job
    # every filled value is copied from a bin that had a value
    assert set(sig.tolist()) <= set(raw[raw != EMPTY].tolist())


def test_empty_document_stays_empty():
    sig = MinHasher(32, scheme="one-permutation").signature(set())
    assert (sig == EMPTY).all()


def test_one_shingle_fills_every_bin_with_its_value():
    sig = MinHasher(16, scheme="one-permutation").signature({"only"})
    assert len(set(sig.tolist())) == 1


def test_densify_copies_only_from_originally_filled_bins():
    sigs = np.full((2, 8), EMPTY, dtype=np.uint32)
    sigs[0, 2], sigs[1, 5] = 11, 22
    out = densify(sigs, seed=7)
    assert (out[0] == 11).all() and (out[1] == 22).all()


def test_same_empty_bin_filled_from_same_source_in_both_documents():
    # The probe sequence depends only on the bin: identical sets densify identically,
    # and two sets sharing all filled bins agree everywhere.
    a = np.full((1, 32), EMPTY, dtype=np.uint32)
    a[0, [1, 7, 20]] = [5, 6, 7]
    assert np.array_equal(densify(a, 2), densify(a.copy(), 2))


def test_unbiased_on_small_sets_where_most_bins_start_empty():
    a = {f"s{i}" for i in range(12)} | {"a1", "a2", "a3", "a4"}
    b = {f"s{i}" for i in range(12)} | {"b1", "b2", "b3", "b4"}
    true = jaccard(a, b)
    est = np.array(
        [
            estimate_jaccard(
                MinHasher(128, seed=s, scheme="one-permutation").signature(a),
                MinHasher(128, seed=s, scheme="one-permutation").signature(b),
            )
            for s in range(400)
        ]
    )
    # With 20 elements in 128 bins the densified positions are correlated, so the spread is
    # wider than sqrt(J(1-J)/k); the mean must still be right (4 standard errors).
    assert abs(est.mean() - true) < 4 * est.std(ddof=1) / np.sqrt(len(est))


def test_flat_signing_matches_list_signing():
    sets = [{"a", "b"}, set(), {f"w{i}" for i in range(300)}, {"z"}]
    ids = [hash_shingles(sorted(s)) for s in sets]
    flat, lengths = np.concatenate(ids), np.array([len(x) for x in ids])
    for scheme in ("multiply-shift", "mod-prime", "one-permutation"):
        hasher = MinHasher(64, seed=5, scheme=scheme)
        assert np.array_equal(sign_flat(hasher, flat, lengths), hasher.signatures(sets))


def test_flat_signing_checks_lengths():
    with pytest.raises(ValueError, match="sum to len"):
        sign_flat(MinHasher(8), np.zeros(3, dtype=np.uint64), np.array([1, 1]))
    with pytest.raises(TypeError, match="uint64"):
        sign_flat(MinHasher(8), np.zeros(3, dtype=np.int64), np.array([3]))


def test_the_cached_probe_table_cannot_be_changed_by_a_caller() -> None:
    from neardup_lab.oph import _probe_table

    table = _probe_table(16, 1, 4)
    with pytest.raises(ValueError, match="read-only"):
        table[0, 0] = 3
