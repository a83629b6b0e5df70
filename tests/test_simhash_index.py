"""Block-table Hamming search agrees exactly with brute force."""

import math
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from neardup_lab import (
    BlockIndex,
    hamming,
    hamming_distances,
    simhash,
    word_shingles,
)
from neardup_lab.simhash_index import MAX_TABLES, hamming_brute_force

CI = os.environ.get("CI", "").lower() == "true"
SCHEMES = [("pigeonhole", None), ("permuted", None), ("permuted", 5)]


def _flip(fp: int, n_bits: int, rng: np.random.Generator, width: int = 64) -> int:
    """``fp`` with exactly ``n_bits`` distinct bits flipped."""
    for bit in rng.choice(width, size=n_bits, replace=False):
        fp ^= 1 << int(bit)
    return fp


def _clustered(rng: np.random.Generator, n: int, width: int = 64) -> np.ndarray:
    """Random fingerprints, half of them copies of others with 0 to 6 bits flipped."""
    base = rng.integers(0, 2**width, size=n // 2 + 1, dtype=np.uint64)
    near = [
        _flip(int(base[i]), int(d), rng, width)
        for i, d in zip(rng.integers(0, len(base), n // 2), rng.integers(0, 7, n // 2))
    ]
    return np.concatenate([base, np.array(near, dtype=np.uint64)])[:n]


def test_distances_match_hamming():
    rng = np.random.default_rng(1)
    fps = rng.integers(0, 2**64, size=200, dtype=np.uint64)
    q = int(rng.integers(0, 2**64, dtype=np.uint64))
    assert hamming_distances(fps, q).tolist() == [hamming(int(f), q) for f in fps]
    assert hamming_distances([0, 2**64 - 1], 0).tolist() == [0, 64]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(("scheme", "blocks"), SCHEMES)
@pytest.mark.parametrize("k", [0, 1, 2, 3, 4])
def test_query_equals_brute_force_fixed_seeds(seed, scheme, blocks, k):
    if blocks is not None and blocks <= k:
        pytest.skip("needs more blocks than max_distance")
    rng = np.random.default_rng([seed, k])
    fps = _clustered(rng, 3000)
    index = BlockIndex(fps, max_distance=k, scheme=scheme, blocks=blocks)
    queries = [int(fps[i]) for i in rng.integers(0, len(fps), 40)]
    queries += [_flip(q, int(rng.integers(0, 8)), rng) for q in queries]
    for q in queries:
        expected = hamming_brute_force(fps, q, k)
        assert np.array_equal(index.query(q), expected), (scheme, k, q)
    rows = index.query_many(np.array(queries, dtype=np.uint64))
    for position, q in enumerate(queries):
        assert np.array_equal(rows[rows[:, 0] == position, 1], hamming_brute_force(fps, q, k))


@settings(deadline=None, max_examples=60, derandomize=CI, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(0, 300),
    k=st.integers(0, 5),
    extra_blocks=st.integers(1, 4),
    bits=st.sampled_from([8, 16, 33, 64]),
)
def test_query_equals_brute_force_property(seed, n, k, extra_blocks, bits):
    rng = np.random.default_rng(seed)
    fps = _clustered(rng, n, bits) if n else np.empty(0, dtype=np.uint64)
    queries = [_flip(int(f), int(rng.integers(0, k + 2)), rng, bits) for f in fps[:10]]
    queries.append(int(rng.integers(0, 2**bits, dtype=np.uint64)))
    layouts = [("pigeonhole", None)]
    if k + extra_blocks <= bits and math.comb(k + extra_blocks, k) <= MAX_TABLES:
        layouts.append(("permuted", k + extra_blocks))
    for scheme, blocks in layouts:
        if k + 1 > bits:
            continue
        index = BlockIndex(fps, max_distance=k, scheme=scheme, blocks=blocks, bits=bits)
        for q in queries:
            assert np.array_equal(index.query(q), hamming_brute_force(fps, q, k))
        rows = index.query_many(np.array(queries, dtype=np.uint64))
        expected = [(p, int(i)) for p, q in enumerate(queries) for i in hamming_brute_force(fps, q, k)]
        assert [tuple(r) for r in rows.tolist()] == expected


@pytest.mark.parametrize(("scheme", "blocks"), SCHEMES)
def test_planted_neighbours_found_and_one_bit_further_never(scheme, blocks):
    rng = np.random.default_rng(7)
    fps = rng.integers(0, 2**64, size=20_000, dtype=np.uint64)
    k = 3
    index = BlockIndex(fps, max_distance=k, scheme=scheme, blocks=blocks)
    targets = rng.integers(0, len(fps), size=200)
    for distance in range(k + 2):
        for target in targets:
            q = _flip(int(fps[target]), distance, rng)
            found = index.query(q)
            if distance <= k:
                assert target in found, (scheme, distance)
            else:
                assert target not in found, (scheme, distance)
            assert all(hamming(int(fps[i]), q) <= k for i in found)


def test_duplicates_and_python_ints():
    fps = [5, 5, 2**64 - 1, 0]
    index = BlockIndex(fps, max_distance=1)
    assert index.query(5).tolist() == [0, 1]
    assert index.query(2**64 - 2).tolist() == [2]
    assert index.query_many([4, 0]).tolist() == [[0, 0], [0, 1], [0, 3], [1, 3]]
    assert len(index) == 4


def test_self_join_finds_all_close_pairs():
    rng = np.random.default_rng(3)
    fps = _clustered(rng, 500)
    index = BlockIndex(fps, max_distance=3, scheme="permuted")
    rows = index.query_many(fps)
    pairs = {(int(q), int(i)) for q, i in rows if q < i}
    expected = {
        (i, j) for i in range(len(fps)) for j in hamming_brute_force(fps, int(fps[i]), 3).tolist() if i < j
    }
    assert pairs == expected and len(expected) > 50


def test_stats_count_candidates_and_checks():
    rng = np.random.default_rng(11)
    fps = rng.integers(0, 2**64, size=2**16, dtype=np.uint64)
    pigeon = BlockIndex(fps, max_distance=3)
    permuted = BlockIndex(fps, max_distance=3, scheme="permuted")
    q = int(fps[0])
    a, b = pigeon.query_stats(q), permuted.query_stats(q)
    assert a.tables == 4 and b.tables == 20
    assert a.matches.tolist() == b.matches.tolist() == [0]
    # 16-bit keys over 2**16 random fingerprints: about one random hit per table, plus
    # fingerprint 0 itself, found by every table.
    assert a.checked >= 4 and a.candidates <= a.checked
    assert b.checked == 20 and b.candidates == 1
    mean_checked = np.mean([pigeon.query_stats(int(f) ^ 1).checked for f in fps[:300]])
    assert 4 + 2 < mean_checked < 4 + 6  # about 3 untouched blocks find the planted one + 4 random hits
    assert pigeon.nbytes == 4 * len(fps) * 12 and permuted.nbytes == 20 * len(fps) * 12


def test_table_layout_matches_the_paper():
    index = BlockIndex(np.zeros(1, dtype=np.uint64), max_distance=3, scheme="permuted")
    assert index.block_widths == (11, 11, 11, 11, 10, 10)
    assert index.n_tables == 20 and len(set(index.table_blocks)) == 20
    assert all(len(key) == 3 for key in index.table_blocks)
    pigeon = BlockIndex(np.zeros(1, dtype=np.uint64), max_distance=3)
    assert pigeon.block_widths == (16, 16, 16, 16) and pigeon.table_blocks == ((0,), (1,), (2,), (3,))
    assert "tables=20" in repr(index)


def test_empty_index():
    index = BlockIndex(np.empty(0, dtype=np.uint64))
    assert index.query(12345).tolist() == []
    assert index.query_stats(1).candidates == 0
    assert index.query_many([1, 2]).shape == (0, 2)


def test_works_with_simhash_fingerprints():
    texts = [
        "the river rose overnight and the bridge was closed",
        "the river rose overnight and the bridge was shut",
    ]
    fps = [simhash(word_shingles(t, 1)) for t in texts]
    index = BlockIndex(fps, max_distance=64 // 4 - 1, scheme="pigeonhole")
    assert 0 in index.query(fps[0])


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"fingerprints": np.array([1.5])}, TypeError, "unsigned integers"),
        ({"fingerprints": np.array([-1])}, ValueError, "non-negative"),
        ({"fingerprints": [1, -2]}, ValueError, r"\[0, 2\*\*64\)"),
        ({"fingerprints": [1, 2**64]}, ValueError, r"\[0, 2\*\*64\)"),
        ({"fingerprints": ["a"]}, TypeError, "must be an int"),
        ({"fingerprints": [True]}, TypeError, "must be an int"),
        ({"fingerprints": "abc"}, TypeError, "integers"),
        ({"fingerprints": 7}, TypeError, "sequence of ints"),
        ({"fingerprints": np.zeros((2, 2), dtype=np.uint64)}, ValueError, "1-D"),
        ({"fingerprints": [300], "bits": 8}, ValueError, "bits=8"),
        ({"max_distance": -1}, ValueError, "max_distance"),
        ({"max_distance": 1.5}, TypeError, "max_distance"),
        ({"scheme": "buckets"}, ValueError, "pigeonhole, permuted"),
        ({"scheme": "pigeonhole", "blocks": 6}, ValueError, "scheme='permuted'"),
        ({"scheme": "permuted", "blocks": 3}, ValueError, "max_distance < blocks"),
        ({"scheme": "permuted", "blocks": 65}, ValueError, "blocks <= bits"),
        ({"scheme": "permuted", "blocks": 2.0}, TypeError, "blocks must be an int"),
        ({"max_distance": 10, "scheme": "permuted", "blocks": 40}, ValueError, "tables"),
        ({"bits": 0}, ValueError, "bits"),
        ({"bits": 65}, ValueError, "bits"),
        ({"max_distance": 8, "bits": 8}, ValueError, "max_distance < blocks"),
    ],
)
def test_errors(kwargs, error, message):
    arguments = {"fingerprints": np.arange(4, dtype=np.uint64)} | kwargs
    with pytest.raises(error, match=message):
        BlockIndex(**arguments)


def test_query_errors():
    index = BlockIndex(np.arange(4, dtype=np.uint64), max_distance=1, bits=8)
    with pytest.raises(ValueError, match=r"\[0, 2\*\*8\)"):
        index.query(256)
    with pytest.raises(TypeError, match="must be an int"):
        index.query("5")
    with pytest.raises(TypeError, match="must be an int"):
        index.query_stats(True)
    with pytest.raises(ValueError, match="max_distance"):
        hamming_brute_force([1, 2], 1, max_distance=-1)
    with pytest.raises(ValueError, match=r"\[0, 2\*\*64\)"):
        hamming_distances([1], -3)


@pytest.mark.parametrize(
    ("max_distance", "scheme", "blocks"), [(3, "pigeonhole", None), (3, "permuted", 6), (2, "permuted", 5)]
)
def test_block_layout_chance_seen_counts_every_choice_of_flipped_bits(max_distance, scheme, blocks):
    from itertools import combinations

    from neardup_lab.simhash_index import block_layout

    layout = block_layout(max_distance, scheme, blocks, bits=16)  # 16 bits: every choice can be listed
    block_of_bit = np.repeat(np.arange(len(layout.block_widths)), layout.block_widths)
    for distance in range(6):
        seen = total = 0
        for flipped in combinations(range(16), distance):
            touched = {int(block_of_bit[b]) for b in flipped}
            seen += any(not touched & set(key) for key in layout.table_blocks)
            total += 1
        assert layout.chance_seen(distance) == pytest.approx(seen / total, abs=1e-15)


def test_block_layout_is_the_index_layout():
    from neardup_lab.simhash_index import block_layout

    index = BlockIndex(np.arange(5, dtype=np.uint64), max_distance=2, scheme="permuted", blocks=5)
    assert index.layout == block_layout(2, "permuted", 5)
    assert index.table_blocks == index.layout.table_blocks
    # Pigeonhole at distance 1: two tables keyed on 32 bits each.
    halves = BlockIndex(np.arange(5, dtype=np.uint64), max_distance=1, scheme="pigeonhole").layout
    assert halves.expected_random_candidates(1001) == pytest.approx(2 * 1000 / 2**32)
