"""Clusters from many pairs at once, as numpy passes (SciPy imported on first use)."""

from __future__ import annotations

import numpy as np

from ..support.spans import cut, sorted_runs, span_positions

__all__ = ["clusters_from_pair_array", "pair_tuples", "roots", "component_labels", "join_roots"]


def clusters_from_pair_array(n: int, pairs: np.ndarray) -> list[list[int]]:
    """``clusters_from_pairs`` for an ``(m, 2)`` array; IndexError when a pair names no document.

    >>> clusters_from_pair_array(5, np.array([[0, 2], [2, 4]]))
    [[0, 2, 4], [1], [3]]
    """
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    if len(pairs) and (pairs.min() < 0 or pairs.max() >= n):
        raise IndexError(f"pairs must index documents 0..{n - 1}")
    order, starts = sorted_runs(component_labels(n, pairs))  # members of each label, ascending
    sizes = np.diff(np.r_[starts, n])
    # In order of first member; one list cut by slicing (an array per cluster cost 5x as much).
    by_first = np.argsort(order[starts], kind="stable")
    starts, sizes = starts[by_first], sizes[by_first]
    return cut(order[span_positions(starts, sizes)].tolist(), sizes)


def pair_tuples(pairs: np.ndarray) -> list[tuple[int, int]]:
    """An ``(m, 2)`` array of pairs as a list of tuples of Python ints.

    >>> pair_tuples(np.array([[0, 2], [1, 3]]))
    [(0, 2), (1, 3)]
    """
    pairs = np.asarray(pairs).reshape(-1, 2)
    return list(zip(pairs[:, 0].tolist(), pairs[:, 1].tolist()))


def roots(parent: np.ndarray, members: np.ndarray) -> np.ndarray:
    """``UnionFind.find`` of many ``members`` in an array union-find, compressing their paths.

    >>> parent = np.array([0, 0, 1, 3])
    >>> roots(parent, np.array([2, 3])).tolist(), parent.tolist()
    ([0, 3], [0, 0, 0, 3])
    """
    members = np.asarray(members, dtype=np.int64)
    found = parent[members]
    while True:
        up = parent[found]
        if np.array_equal(up, found):
            break
        found = up
    parent[members] = found
    return found


def component_labels(n: int, pairs: np.ndarray) -> np.ndarray:
    """A component label for each of ``n`` nodes joined by the ``(m, 2)`` array ``pairs``.

    >>> component_labels(4, np.array([[0, 3]])).tolist()
    [0, 1, 2, 0]
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    graph = coo_matrix((np.ones(len(pairs), dtype=np.int8), (pairs[:, 0], pairs[:, 1])), shape=(n, n))
    return connected_components(graph, directed=False)[1]


def join_roots(parent: np.ndarray, pairs: np.ndarray) -> None:
    """``UnionFind.union`` of every pair, in place: each component points to its smallest root.

    >>> parent = np.arange(5)
    >>> join_roots(parent, np.array([[3, 4], [4, 1]]))
    >>> roots(parent, np.arange(5)).tolist()
    [0, 1, 2, 1, 1]
    """
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    if not len(pairs):
        return
    ends = roots(parent, pairs.ravel()).reshape(-1, 2)
    nodes, local = np.unique(ends, return_inverse=True)
    local = local.reshape(-1, 2)
    labels = component_labels(len(nodes), local)
    smallest = np.full(labels.max() + 1, len(parent), dtype=np.int64)
    np.minimum.at(smallest, labels, nodes)
    parent[nodes] = smallest[labels]
