"""Ground truth and scores: exact all-pairs similarity, precision, recall."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence, Set

import numpy as np

from .hashing import hash_shingles
from .support.validate import number_between

__all__ = [
    "brute_force_pairs",
    "precision_recall",
    "recall_by_bucket",
    "pairs_from_clusters",
    "pairs_within_families",
]

Pair = tuple[int, int]


def brute_force_pairs(shingle_sets: Sequence[Set], threshold: float) -> dict[Pair, float]:
    """Every pair ``(i, j)``, ``i < j``, with exact Jaccard >= ``threshold``.

    Exact and exhaustive: the overlap of every pair of documents is counted
    with one sparse matrix product (pairs sharing no shingle have Jaccard 0
    and cannot reach a positive threshold). Two empty sets count as
    identical (Jaccard 1), matching :func:`~neardup_lab.text.jaccard`.

    >>> brute_force_pairs([{"a", "b"}, {"a", "b", "c"}, {"x"}], threshold=0.5)
    {(0, 1): 0.6666666666666666}
    """
    threshold = number_between(threshold, "threshold", 0, 1)
    if isinstance(shingle_sets, (str, bytes)) or any(not isinstance(s, Set) for s in shingle_sets):
        raise TypeError("brute_force_pairs needs a sequence of shingle sets, one per document")
    from scipy import sparse  # here: import neardup_lab stays free of scipy

    # Documents x distinct shingles, a 1 where the document has the shingle.
    ids = [hash_shingles(s) for s in shingle_sets]
    flat = np.concatenate(ids) if ids else np.empty(0, dtype=np.uint64)
    _, columns = np.unique(flat, return_inverse=True)
    rows = np.repeat(np.arange(len(ids)), [len(x) for x in ids])
    shape = (len(ids), int(columns.max(initial=-1)) + 1)
    matrix = sparse.csr_matrix((np.ones(len(flat), dtype=np.int32), (rows, columns.ravel())), shape=shape)
    sizes = np.asarray(matrix.sum(axis=1)).ravel()
    overlap = sparse.triu(matrix @ matrix.T, k=1).tocoo()
    i, j, inter = overlap.row, overlap.col, overlap.data.astype(float)
    sim = inter / (sizes[i] + sizes[j] - inter)
    keep = sim >= threshold
    result = {(int(a), int(b)): float(s) for a, b, s in zip(i[keep], j[keep], sim[keep])}
    empty = np.flatnonzero(sizes == 0)
    result.update({(int(a), int(b)): 1.0 for n, a in enumerate(empty) for b in empty[n + 1 :]})
    return dict(sorted(result.items()))


def _pair_set(pairs: Iterable[Pair], name: str) -> set[Pair]:
    out = set()
    for pair in pairs:
        i, j = (int(v) for v in pair)
        if i == j:
            raise ValueError(f"{name} contains a self-pair {pair!r}")
        out.add((i, j) if i < j else (j, i))
    return out


def precision_recall(found: Iterable[Pair], truth: Iterable[Pair]) -> tuple[float, float]:
    """Precision and recall of ``found`` pairs against ``truth`` pairs.

    Pairs are unordered. With nothing found precision is 1.0; with no true
    pairs recall is 1.0.

    >>> precision_recall({(0, 1), (2, 3)}, {(1, 0), (4, 5)})
    (0.5, 0.5)
    """
    found_set, truth_set = _pair_set(found, "found"), _pair_set(truth, "truth")
    hits = len(found_set & truth_set)
    precision = hits / len(found_set) if found_set else 1.0
    recall = hits / len(truth_set) if truth_set else 1.0
    return precision, recall


def recall_by_bucket(
    found: Collection[Pair],
    truth_with_similarity: Mapping[Pair, float],
    edges: Sequence[float],
) -> list[dict]:
    """Recall of true pairs grouped by similarity bucket ``[edges[k], edges[k+1])``.

    The last bucket includes its upper edge. Each row says the bucket, how
    many true pairs fall in it, how many were found, and the recall (None for
    an empty bucket).

    >>> truth = {(0, 1): 0.82, (0, 2): 0.91, (1, 2): 0.95}
    >>> [row["recall"] for row in recall_by_bucket({(0, 2), (1, 2)}, truth, [0.8, 0.9, 1.0])]
    [0.0, 1.0]
    """
    edges = [float(e) for e in edges]
    if len(edges) < 2 or any(b <= a for a, b in zip(edges, edges[1:])):
        raise ValueError(f"edges must be at least two increasing numbers, got {edges}")
    found_set = _pair_set(found, "found")
    rows = []
    for k, (low, high) in enumerate(zip(edges, edges[1:])):
        last = k == len(edges) - 2
        members = [p for p, s in truth_with_similarity.items() if low <= s < high or (last and s == high)]
        hits = sum(1 for p in members if tuple(sorted(p)) in found_set)
        recall = hits / len(members) if members else None
        rows.append({"low": low, "high": high, "pairs": len(members), "found": hits, "recall": recall})
    return rows


def pairs_from_clusters(clusters: Iterable[Sequence[int]]) -> set[Pair]:
    """All pairs ``(i, j)``, ``i < j``, that share a cluster.

    >>> sorted(pairs_from_clusters([[0, 2, 5], [1]]))
    [(0, 2), (0, 5), (2, 5)]
    """
    out: set[Pair] = set()
    for cluster in clusters:
        members = sorted(int(m) for m in cluster)
        out.update((a, b) for n, a in enumerate(members) for b in members[n + 1 :])
    return out


def pairs_within_families(origin: Sequence[int]) -> set[Pair]:
    """All pairs of documents copied from the same original.

    >>> sorted(pairs_within_families([0, 0, 2, 0, 2]))
    [(0, 1), (0, 3), (1, 3), (2, 4)]
    """
    families: dict[int, list[int]] = {}
    for doc, source in enumerate(origin):
        families.setdefault(int(source), []).append(doc)
    return pairs_from_clusters(families.values())
