"""Union-find, clusters and keepers."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from neardup_lab import UnionFind, choose_keepers, clusters_from_pairs


def test_union_find_basics():
    uf = UnionFind(6)
    assert uf.union(0, 1) and uf.union(2, 3) and uf.union(1, 3)
    assert not uf.union(0, 2)
    assert uf.find(0) == uf.find(3) != uf.find(4)
    assert uf.groups() == [[0, 1, 2, 3], [4], [5]]
    assert len(uf) == 6


def test_union_find_errors():
    with pytest.raises(ValueError, match="-2"):
        UnionFind(-2)
    with pytest.raises(IndexError, match="7"):
        UnionFind(3).find(7)


def test_chains_merge_transitively():
    # 0~1 and 1~2 are near-duplicates; 0 and 2 may not be, but they end in one cluster.
    assert clusters_from_pairs(4, [(0, 1), (1, 2)]) == [[0, 1, 2], [3]]


def test_clusters_cover_everything_even_without_pairs():
    assert clusters_from_pairs(3, []) == [[0], [1], [2]]
    assert clusters_from_pairs(0, []) == []


def test_keepers():
    clusters = [[0, 2], [1, 3, 4]]
    assert choose_keepers(clusters, "first") == [0, 1]
    assert choose_keepers(clusters, "longest", lengths=[1, 5, 9, 5, 2]) == [2, 1]
    with pytest.raises(ValueError, match="lengths"):
        choose_keepers(clusters, "longest")
    with pytest.raises(ValueError, match="'newest'"):
        choose_keepers(clusters, "newest")


def test_pair_array_version_agrees():
    import numpy as np

    from neardup_lab import clusters_from_pairs
    from neardup_lab.engine.components import clusters_from_pair_array

    rng = np.random.default_rng(3)
    for n in (0, 1, 7, 50):
        pairs = rng.integers(0, max(n, 1), size=(n // 2, 2)) if n else np.empty((0, 2), dtype=np.int64)
        pairs = pairs[pairs[:, 0] != pairs[:, 1]] if len(pairs) else pairs
        assert clusters_from_pair_array(n, pairs) == clusters_from_pairs(
            n, [tuple(p) for p in pairs.tolist()]
        )
    with pytest.raises(IndexError, match="0..2"):
        clusters_from_pair_array(3, np.array([[0, 5]]))


@given(
    st.integers(0, 40).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(
                st.tuples(st.integers(0, max(n - 1, 0)), st.integers(0, max(n - 1, 0))),
                max_size=60 if n else 0,
            ),
        )
    )
)
def test_pair_array_clusters_match_union_find_on_any_graph(case):
    # Self-loops, repeated pairs and pairs in either order included; members are Python ints.
    from neardup_lab.engine.components import clusters_from_pair_array, pair_tuples

    n, pairs = case
    array = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    found = clusters_from_pair_array(n, array)
    assert found == clusters_from_pairs(n, pairs)
    assert all(type(member) is int for cluster in found for member in cluster)
    assert pair_tuples(array) == [tuple(p) for p in pairs]
    assert all(type(a) is int and type(b) is int for a, b in pair_tuples(array))
