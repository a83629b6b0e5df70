"""Clusters from pairs: union-find, and which member of a cluster to keep."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .support.validate import non_negative_int

__all__ = [
    "UnionFind",
    "clusters_from_pairs",
    "choose_keepers",
    "KEEPER_POLICIES",
]

KEEPER_POLICIES = ("first", "longest")


class UnionFind:
    """Disjoint sets over ``0 .. n-1`` with path halving and union by size.

    >>> uf = UnionFind(4)
    >>> uf.union(0, 1), uf.union(1, 0)
    (True, False)
    >>> uf.find(1) == uf.find(0), uf.find(2) == uf.find(0)
    (True, False)
    """

    def __init__(self, n: int) -> None:
        n = non_negative_int(n, "n")
        self.parent = list(range(n))
        self.size = [1] * n

    def __len__(self) -> int:
        return len(self.parent)

    def find(self, x: int) -> int:
        """Return the representative of ``x``'s set.

        >>> UnionFind(3).find(2)
        2
        """
        parent = self.parent
        if not 0 <= x < len(parent):
            raise IndexError(f"element {x} is outside 0..{len(parent) - 1}")
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(self, x: int, y: int) -> bool:
        """Merge the sets of ``x`` and ``y``; True when they were apart.

        >>> uf = UnionFind(2)
        >>> uf.union(0, 1)
        True
        """
        rx, ry = self.find(x), self.find(y)
        if rx == ry:
            return False
        if self.size[rx] < self.size[ry]:
            rx, ry = ry, rx
        self.parent[ry] = rx
        self.size[rx] += self.size[ry]
        return True

    def groups(self) -> list[list[int]]:
        """All sets as sorted lists, ordered by their smallest member.

        >>> uf = UnionFind(4); _ = uf.union(3, 1)
        >>> uf.groups()
        [[0], [1, 3], [2]]
        """
        by_root: dict[int, list[int]] = {}
        for x in range(len(self.parent)):
            by_root.setdefault(self.find(x), []).append(x)
        return sorted(by_root.values(), key=lambda members: members[0])


def clusters_from_pairs(n: int, pairs: Iterable[tuple[int, int]]) -> list[list[int]]:
    """Group ``0 .. n-1`` into clusters joined by ``pairs`` (transitively).

    Every document is in exactly one cluster; singletons are clusters too.

    >>> clusters_from_pairs(5, [(0, 2), (2, 4)])
    [[0, 2, 4], [1], [3]]
    """
    uf = UnionFind(n)
    for i, j in pairs:
        uf.union(int(i), int(j))
    return uf.groups()


def choose_keepers(
    clusters: Sequence[Sequence[int]],
    policy: str = "first",
    lengths: Sequence[int] | None = None,
) -> list[int]:
    """Pick one document per cluster to keep.

    ``"first"`` keeps the lowest index (the earliest seen); ``"longest"``
    keeps the document with the largest ``lengths[i]``, ties to the earliest.

    >>> choose_keepers([[0, 3], [1, 2]], "longest", lengths=[5, 9, 9, 7])
    [3, 1]
    """
    if policy not in KEEPER_POLICIES:
        raise ValueError(f"unknown keeper policy {policy!r}; choose one of {KEEPER_POLICIES}")
    if policy == "first":
        return [min(c) for c in clusters]
    if lengths is None:
        raise ValueError("the 'longest' policy needs lengths, one per document")
    return [min(c, key=lambda i: (-lengths[i], i)) for c in clusters]
