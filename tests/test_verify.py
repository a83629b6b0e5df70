"""The verification kernel against the teaching Jaccard, and union-find before verify."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from neardup_lab import jaccard
from neardup_lab.engine.banding import band_groups, candidate_pair_array
from neardup_lab.engine.verify import (
    jaccard_of_pairs,
    pack_id_sets,
    verified_edges,
)
from neardup_lab.support.spans import Ragged

id_sets = st.lists(st.sets(st.integers(0, 40)), min_size=1, max_size=8)


@given(id_sets, st.data())
def test_jaccard_of_pairs_equals_jaccard_of_sets(sets, data):
    ids = np.array([i for s in sets for i in s], dtype=np.uint64)
    packed = pack_id_sets(Ragged.from_counts(ids, np.array([len(s) for s in sets])))
    index = st.integers(0, len(sets) - 1)
    pairs = np.array(data.draw(st.lists(st.tuples(index, index), max_size=10)), dtype=np.int64)
    got = jaccard_of_pairs(packed, pairs.reshape(-1, 2))
    want = [jaccard(sets[a], sets[b]) for a, b in pairs.reshape(-1, 2).tolist()]
    assert got.tolist() == want
    # The same from unsorted lists with repeats, packed first.
    lists = [sorted(s, reverse=True) * 2 for s in sets]
    flat = np.array([i for lst in lists for i in lst], dtype=np.uint64)
    raw = pack_id_sets(Ragged.from_counts(flat, np.array(list(map(len, lists)))))
    assert jaccard_of_pairs(raw, pairs.reshape(-1, 2)).tolist() == want


@given(st.lists(st.lists(st.integers(0, 3), min_size=4, max_size=4), min_size=1, max_size=30), st.data())
def test_skipping_joined_pairs_gives_the_clusters_of_checking_all(rows, data):
    signatures = np.array(rows, dtype=np.uint32)
    n = len(rows)
    accepted = data.draw(st.sets(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))))

    def keep(pairs):
        return np.array([(a, b) in accepted or (b, a) in accepted for a, b in pairs.tolist()], dtype=bool)

    found = verified_edges(n, band_groups(signatures, 2, 2), keep)
    every = candidate_pair_array(signatures, 2, 2)
    every = every[keep(every)] if len(every) else every

    def components(edges):
        parent = list(range(n))

        def find(x):
            while parent[x] != x:
                x = parent[x]
            return x

        for a, b in edges.tolist():
            parent[find(a)] = find(b)
        return sorted(sorted(d for d in range(n) if find(d) == r) for r in {find(d) for d in range(n)})

    assert components(found.edges) == components(every)
    assert found.checked <= len(candidate_pair_array(signatures, 2, 2))


# Ids from a small range (many repeats), the top of the range (the padding value is a real
# id), or anywhere; documents of every length class from empty to 70 ids, in any order.
any_id = st.one_of(st.integers(0, 9), st.integers(2**64 - 3, 2**64 - 1), st.integers(0, 2**64 - 1))


@given(st.lists(st.lists(any_id, max_size=70), min_size=1, max_size=12))
def test_pack_id_sets_sorts_and_dedupes_each_document(docs):
    flat = np.array([x for d in docs for x in d], dtype=np.uint64)
    packed = pack_id_sets(Ragged.from_counts(flat, np.array(list(map(len, docs)))))
    assert packed.offsets[0] == 0 and len(packed.offsets) == len(docs) + 1
    for d, values in enumerate(docs):
        got = packed.of(d).tolist()
        assert got == sorted(set(values))
    assert packed.offsets[-1] == len(packed.values)
