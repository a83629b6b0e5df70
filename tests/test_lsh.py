"""S-curve, thresholds, the band index and candidate pairs."""

import itertools

import numpy as np
import pytest

from neardup_lab import LSHIndex, MinHasher, approx_threshold, candidate_pair_array, candidate_pairs, s_curve
from neardup_lab.engine.banding import band_groups


def test_s_curve_values_from_mining_massive_datasets():
    # Leskovec, Rajaraman, Ullman, MMDS ch. 3, 20 bands of 5 rows.
    assert s_curve(0.5, 20, 5) == pytest.approx(0.470, abs=5e-4)
    assert s_curve(0.8, 20, 5) == pytest.approx(0.99964, abs=5e-5)
    assert s_curve(0.8, 16, 8) == pytest.approx(1 - (1 - 0.8**8) ** 16)
    assert s_curve(0.0, 4, 4) == 0.0 and s_curve(1.0, 4, 4) == 1.0


def test_s_curve_vectorised_and_monotone():
    s = np.linspace(0, 1, 101)
    p = s_curve(s, 9, 13)
    assert p.shape == s.shape
    assert np.all(np.diff(p) >= 0)


@pytest.mark.parametrize("bad", [-0.1, 1.5, float("nan")])
def test_s_curve_rejects_bad_similarity(bad):
    with pytest.raises(ValueError, match="similarities"):
        s_curve(bad, 2, 2)


@pytest.mark.parametrize(
    ("bands", "rows", "error"), [(0, 5, ValueError), (5, -1, ValueError), (2.5, 2, TypeError)]
)
def test_banding_parameters_checked(bands, rows, error):
    with pytest.raises(error, match="bands|rows"):
        s_curve(0.5, bands, rows)
    with pytest.raises(error, match="bands|rows"):
        LSHIndex(bands, rows)


def test_approx_threshold():
    assert approx_threshold(20, 5) == pytest.approx((1 / 20) ** (1 / 5))
    assert approx_threshold(1, 1) == 1.0


def test_index_insert_query():
    hasher = MinHasher(64, seed=2)
    index = LSHIndex(16, 4)
    base = {f"w{i}" for i in range(100)}
    index.insert("base", hasher.signature(base))
    index.insert("other", hasher.signature({f"z{i}" for i in range(100)}))
    assert index.query(hasher.signature(base)) == {"base"}
    near = base - {"w1"} | {"new"}
    assert "base" in index.query(hasher.signature(near))
    assert len(index) == 2 and "base" in index


def test_index_rejects_duplicate_keys_and_mismatched_signatures():
    index = LSHIndex(4, 4)
    index.insert(1, MinHasher(16).signature({"a"}))
    with pytest.raises(ValueError, match="already"):
        index.insert(1, MinHasher(16).signature({"b"}))
    with pytest.raises(ValueError, match="does not match"):
        index.query(MinHasher(20).signature({"a"}))
    with pytest.raises(ValueError, match="does not match"):
        index.query(MinHasher(16, scheme="mod-prime").signature({"a"}))
    with pytest.raises(ValueError, match=r"bands \* rows"):
        LSHIndex(8, 4).insert(0, MinHasher(16).signature({"a"}))
    with pytest.raises(ValueError, match="one signature"):
        index.query(np.zeros((2, 16), dtype=np.uint32))


def test_equal_values_in_different_bands_do_not_collide():
    # Row 0 has values (1, 2) in band 0; row 1 has (1, 2) in band 1 only.
    sigs = np.array([[1, 2, 3, 4], [5, 6, 1, 2]], dtype=np.uint32)
    assert candidate_pairs(sigs, 2, 2) == set()
    index = LSHIndex(2, 2)
    index.insert("a", sigs[0])
    assert index.query(sigs[1]) == set()


def _brute_candidates(sigs, bands, rows):
    out = set()
    for i, j in itertools.combinations(range(len(sigs)), 2):
        if any(
            np.array_equal(sigs[i, b * rows : (b + 1) * rows], sigs[j, b * rows : (b + 1) * rows])
            for b in range(bands)
        ):
            out.add((i, j))
    return out


def test_candidate_pairs_match_definition_and_index():
    rng = np.random.default_rng(0)
    sigs = rng.integers(0, 3, size=(60, 12)).astype(np.uint32)  # small alphabet: many collisions
    expected = _brute_candidates(sigs, 4, 3)
    assert len(expected) > 50
    assert candidate_pairs(sigs, 4, 3) == expected
    index = LSHIndex(4, 3)
    via_index = set()
    for j, sig in enumerate(sigs):
        via_index |= {(i, j) for i in index.query(sig)}
        index.insert(j, sig)
    assert via_index == expected


def test_candidate_pair_array_sorted_unique():
    sigs = np.zeros((5, 8), dtype=np.uint64)  # everyone collides in every band
    arr = candidate_pair_array(sigs, 4, 2)
    assert arr.tolist() == [list(p) for p in itertools.combinations(range(5), 2)]
    assert candidate_pair_array(sigs[:1], 4, 2).shape == (0, 2)


def test_candidate_pairs_checks_shapes():
    with pytest.raises(ValueError, match=r"\(n, num_perm\)"):
        candidate_pairs(np.zeros(8, dtype=np.uint32), 2, 2)
    with pytest.raises(ValueError, match="exceeds num_perm"):
        candidate_pairs(np.zeros((3, 8), dtype=np.uint32), 3, 3)


def test_band_groups_in_threads_are_the_groups_of_one_thread():
    rng = np.random.default_rng(11)
    sigs = rng.integers(0, 4, size=(3_000, 24), dtype=np.uint32)  # few values: many equal bands
    alone = list(band_groups(sigs, bands=6, rows=4))
    threaded = list(band_groups(sigs, bands=6, rows=4, threads=3))
    assert len(threaded) == len(alone) == 6
    for one, many in zip(alone, threaded):
        assert np.array_equal(one.order, many.order) and np.array_equal(one.starts, many.starts)
    assert any(len(g.shared().order) for g in alone)  # some groups have two or more members


def test_band_groups_among_some_rows_are_the_groups_of_those_rows(monkeypatch):
    from neardup_lab.support import limits

    monkeypatch.setattr(limits, "KEY_BLOCK", 64)  # band keys in many blocks
    rng = np.random.default_rng(12)
    sigs = rng.integers(0, 3, size=(1_000, 12), dtype=np.uint32)
    among = np.sort(rng.choice(1_000, size=600, replace=False))
    subset = list(band_groups(sigs[among], bands=4, rows=3))
    inside = list(band_groups(sigs, bands=4, rows=3, among=among))
    for copied, viewed in zip(subset, inside, strict=True):
        assert np.array_equal(among[copied.order], viewed.order)
        assert np.array_equal(copied.starts, viewed.starts)
    assert not set(np.concatenate([g.order for g in inside]).tolist()) - set(among.tolist())
