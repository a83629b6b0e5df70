"""Property-based tests (hypothesis). Under CI=true the runs are derandomised (see conftest.py)."""

import functools
import unicodedata

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from neardup_lab import (
    MinHasher,
    UnionFind,
    candidate_pairs,
    clusters_from_pairs,
    jaccard,
    merge_signatures,
    normalize,
    word_shingles,
)

shingle_sets = st.sets(st.text(min_size=0, max_size=12), max_size=40)
HASHER = MinHasher(num_perm=32, seed=3)
HASHER_PRIME = MinHasher(num_perm=16, seed=3, scheme="mod-prime")


@given(shingle_sets, shingle_sets)
def test_jaccard_symmetric_and_bounded(a, b):
    value = jaccard(a, b)
    assert value == jaccard(b, a)
    assert 0.0 <= value <= 1.0
    assert (value == 1.0) == (a == b)


@given(shingle_sets)
def test_identical_sets_identical_signatures(a):
    copy = set(sorted(a, reverse=True))  # same elements, built in another order
    assert np.array_equal(HASHER.signature(a), HASHER.signature(copy))
    assert np.array_equal(HASHER_PRIME.signature(a), HASHER_PRIME.signature(copy))


@given(shingle_sets, shingle_sets)
def test_merge_equals_signature_of_union(a, b):
    for hasher in (HASHER, HASHER_PRIME):
        merged = merge_signatures(hasher.signature(a), hasher.signature(b))
        assert np.array_equal(merged, hasher.signature(a | b))


@given(shingle_sets, shingle_sets)
def test_signature_agreement_at_least_shared_min(a, b):
    # Equal sets agree everywhere; a subset's signature is never below the superset's.
    sa, sab = HASHER.signature(a), HASHER.signature(a | b)
    assert np.all(sab <= sa)


@given(
    st.integers(min_value=0, max_value=40),
    st.lists(st.tuples(st.integers(0, 39), st.integers(0, 39)), max_size=60),
)
def test_union_find_yields_a_partition(n, raw_pairs):
    pairs = [(i, j) for i, j in raw_pairs if i < n and j < n]
    clusters = clusters_from_pairs(n, pairs)
    members = [m for c in clusters for m in c]
    assert sorted(members) == list(range(n))  # every element exactly once
    assert all(c == sorted(c) for c in clusters)
    where = {m: k for k, c in enumerate(clusters) for m in c}
    assert all(where[i] == where[j] for i, j in pairs)  # joined elements share a cluster
    uf = UnionFind(n)
    for i, j in pairs:
        uf.union(i, j)
    assert len({uf.find(x) for x in range(n)}) == len(clusters)


@given(st.integers(2, 25), st.integers(1, 4), st.integers(1, 3), st.integers(0, 2**32 - 1))
def test_candidate_pairs_no_self_pairs_no_duplicates(n, bands, rows, seed):
    rng = np.random.default_rng(seed)
    sigs = rng.integers(0, 3, size=(n, bands * rows)).astype(np.uint32)
    pairs = candidate_pairs(sigs, bands, rows)
    assert all(0 <= i < j < n for i, j in pairs)
    assert len(pairs) == len(set(pairs))


@given(st.text(max_size=200))
def test_normalize_idempotent_and_clean(text):
    once = normalize(text)
    assert normalize(once) == once
    assert once == once.strip() and "  " not in once


@given(st.text(max_size=200), st.integers(1, 6))
def test_word_shingles_have_k_words_or_all(text, k):
    tokens = normalize(text).split()
    for shingle in word_shingles(text, k):
        assert len(shingle.split()) == min(k, len(tokens))


@functools.lru_cache(maxsize=1)
def _separator_dict() -> dict[int, str]:
    """The plain definition: every punctuation or symbol code point maps to a space."""
    return {cp: " " for cp in range(0x110000) if unicodedata.category(chr(cp))[0] in "PS"}


def _plain_normalize(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().translate(_separator_dict()).split())


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=200))
def test_ascii_shortcut_equals_unicode_path(text):
    assert normalize(text) == _plain_normalize(text)


@given(st.text(max_size=200))
def test_numpy_separator_pass_equals_the_plain_definition(text):
    assert normalize(text) == _plain_normalize(text)
