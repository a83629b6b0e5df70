"""Banding many signatures at once: ``candidate_pairs`` as numpy arrays."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import NamedTuple

import numpy as np

from ..lsh import band_hashes, check_signature_matrix
from ..support import limits
from ..support.spans import chunk_bounds, sorted_runs, span_positions
from .workers import ordered_map

__all__ = [
    "BandGroups",
    "BandKeys",
    "band_groups",
    "pairs_in_groups",
    "group_blocks",
    "pairs_to_check",
    "candidate_pair_array",
    "unique_pairs",
]


class BandGroups(NamedTuple):
    """One band's documents sorted so that equal band values are adjacent: ``order`` holds
    document indices, ``starts`` where each group (groups of one included) begins in ``order``."""

    order: np.ndarray
    starts: np.ndarray

    def sizes(self) -> np.ndarray:
        """How many documents each group holds.

        >>> BandGroups(np.array([4, 2, 7]), np.array([0, 1])).sizes().tolist()
        [1, 2]
        """
        return np.diff(np.r_[self.starts, len(self.order)])

    def keep(self, wanted: np.ndarray) -> BandGroups:
        """Only the groups where ``wanted`` (one bool per group) is true.

        >>> BandGroups(np.array([4, 2, 7]), np.array([0, 1])).keep(np.array([False, True])).order.tolist()
        [2, 7]
        """
        sizes = self.sizes()
        chosen = sizes[wanted]
        starts = (np.cumsum(chosen) - chosen).astype(np.int64)
        return BandGroups(self.order[np.repeat(wanted, sizes.astype(np.intp, copy=False))], starts)

    def shared(self) -> BandGroups:
        """Only the groups of two or more documents: the ones that propose pairs.

        >>> BandGroups(np.array([4, 2, 7]), np.array([0, 1])).shared().order.tolist()
        [2, 7]
        """
        return self.keep(self.sizes() > 1)


def band_groups(
    signatures: np.ndarray,
    bands: int,
    rows: int,
    threads: int = 1,
    among: np.ndarray | None = None,
    keys: BandKeys | None = None,
) -> Iterator[BandGroups]:
    """For each band, the groups of documents with identical band values (equal keys confirmed value by
    value). ``among``: only those rows; ``threads``: bands at once; ``keys``: their :class:`BandKeys`.

    >>> sigs = np.array([[1, 2, 3, 4], [1, 2, 0, 0], [5, 6, 3, 4]], dtype=np.uint32)
    >>> [g.starts.tolist() for g in band_groups(sigs, bands=2, rows=2)]  # groups of 2 and 1
    [[0, 2], [0, 2]]
    >>> among = np.array([0, 2])  # rows 0 and 2 share band 1 only
    >>> [(sorted(g.order.tolist()), len(g.starts)) for g in band_groups(sigs, 2, 2, among=among)]
    [([0, 2], 2), ([0, 2], 1)]
    """
    sigs = check_signature_matrix(signatures, bands, rows)
    keys = BandKeys.of(sigs, bands, rows, among) if keys is None else keys
    yield from ordered_map(partial(_group_band, sigs, keys.docs, keys.keys, rows), range(bands), threads)


class BandKeys(NamedTuple):
    """The ``band_hashes`` key of every band of the documents ``docs`` (sorted), one row each: what
    :func:`band_groups` sorts, and what :meth:`refine` splits a bucket too big to check by."""

    docs: np.ndarray
    keys: np.ndarray

    @classmethod
    def of(cls, signatures: np.ndarray, bands: int, rows: int, among: np.ndarray | None = None) -> BandKeys:
        """The keys of the rows ``among`` of ``signatures`` (default all), ``limits.KEY_BLOCK`` at a time.

        >>> BandKeys.of(np.zeros((3, 4), dtype=np.uint32), 2, 2).keys.shape
        (3, 2)
        """
        docs = np.arange(len(signatures)) if among is None else np.asarray(among, dtype=np.int64)
        keys = np.empty((len(docs), bands), dtype=np.uint64)
        for start in range(0, len(docs), limits.KEY_BLOCK):
            block = docs[start : start + limits.KEY_BLOCK]
            keys[start : start + len(block)] = band_hashes(signatures[block], bands, rows)
        return cls(docs, keys)

    def refine(self, members: np.ndarray, band: int) -> Iterator[BandGroups]:
        """A bucket of ``band`` split by each other band in turn, for buckets too big to check in full.

        >>> keys = BandKeys(np.arange(4), np.array([[1, 5], [1, 5], [1, 6], [1, 6]], dtype=np.uint64))
        >>> [g.starts.tolist() for g in keys.refine(np.arange(4), band=0)]
        [[0, 2]]
        """
        rows = np.searchsorted(self.docs, members)
        for other in range(self.keys.shape[1]):
            if other != band:
                order, starts = sorted_runs(self.keys[rows, other])
                yield BandGroups(members[order], starts)


def _group_band(sigs: np.ndarray, docs: np.ndarray, keys: np.ndarray, rows: int, band: int) -> BandGroups:
    values = sigs[:, band * rows : (band + 1) * rows]
    order = np.argsort(keys[:, band], kind="stable")
    sorted_key = keys[order, band]
    same_as_previous = sorted_key[1:] == sorted_key[:-1]
    members = docs[order]
    maybe = np.flatnonzero(same_as_previous)  # few: confirm these value by value
    same_as_previous[maybe] = (values[members[maybe + 1]] == values[members[maybe]]).all(axis=1)
    return BandGroups(members, np.flatnonzero(np.r_[True, ~same_as_previous]))


def pairs_in_groups(groups: BandGroups) -> np.ndarray:
    """Every pair ``(i, j)``, ``i < j``, within every group: an ``(m, 2)`` int64 array.

    >>> pairs_in_groups(BandGroups(np.array([2, 0, 1]), np.array([0, 2]))).tolist()
    [[0, 2]]
    """
    order, starts = groups
    n = len(order)
    sizes = np.diff(np.r_[starts, n]).astype(np.intp, copy=False)  # repeat counts must be np.intp
    size_of = np.repeat(sizes, sizes)  # for each sorted position, its group's size
    offset = np.arange(n) - np.repeat(starts, sizes)  # position within the group
    partners = (size_of - 1 - offset).astype(np.intp, copy=False)  # later members of the same group
    left = np.repeat(np.arange(n), partners)
    a, b = order[left], order[span_positions(np.arange(n) + 1, partners)]
    return np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1).astype(np.int64)


def group_blocks(groups: BandGroups, most_pairs: int) -> Iterator[BandGroups]:
    """Consecutive runs of ``groups`` with at most ``most_pairs`` pairs in all (a bigger group alone).

    >>> groups = BandGroups(np.arange(7), np.array([0, 2, 4]))  # sizes 2, 2 and 3: 1, 1, 3 pairs
    >>> [g.starts.tolist() for g in group_blocks(groups, 2)]
    [[0, 2], [0]]
    """
    sizes = groups.sizes()
    bounds = chunk_bounds(sizes * (sizes - 1) // 2, most_pairs, len(sizes))
    for first, stop in bounds:
        at = int(groups.starts[first])
        end = int(groups.starts[stop]) if stop < len(sizes) else len(groups.order)
        yield BandGroups(groups.order[at:end], groups.starts[first:stop] - at)


def pairs_to_check(groups: BandGroups, most: int, anchors: int) -> tuple[np.ndarray, BandGroups]:
    """The pairs within ``groups`` that verification checks, and the groups it caps: one of more than
    ``most`` documents pairs each member with its first ``anchors`` only (linear, not quadratic).

    >>> groups = BandGroups(np.arange(10, 17), np.array([0, 2]))  # a pair and a group of five
    >>> pairs, capped = pairs_to_check(groups, most=3, anchors=2)
    >>> pairs.tolist()  # 12 and 13 are the anchors: 14, 15 and 16 are never paired together
    [[10, 11], [12, 13], [12, 14], [12, 15], [12, 16], [13, 14], [13, 15], [13, 16]]
    >>> capped.order.tolist()
    [12, 13, 14, 15, 16]
    """
    big = groups.sizes() > most
    capped = groups.keep(big)
    found = [pairs_in_groups(groups.keep(~big))]
    for at, size in zip(capped.starts.tolist(), capped.sizes().tolist()):
        members = capped.order[at : at + size]
        for i, anchor in enumerate(members[:anchors].tolist()):  # each anchor with every later member
            later = members[i + 1 :]
            found.append(np.stack([np.minimum(later, anchor), np.maximum(later, anchor)], axis=1))
    return np.concatenate(found).astype(np.int64, copy=False), capped


def candidate_pair_array(signatures: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """The pairs of :func:`~neardup_lab.lsh.candidate_pairs` as a sorted ``(m, 2)`` int64 array.

    >>> sigs = np.array([[1, 2, 3, 4], [1, 2, 0, 0], [5, 6, 3, 4]], dtype=np.uint32)
    >>> candidate_pair_array(sigs, bands=2, rows=2).tolist()
    [[0, 1], [0, 2]]
    """
    found = [np.empty((0, 2), dtype=np.int64), *map(pairs_in_groups, band_groups(signatures, bands, rows))]
    return unique_pairs(np.concatenate(found))


def unique_pairs(pairs: np.ndarray) -> np.ndarray:
    """The sorted distinct rows of ``(m, 2)`` ints >= 0 (int64 codes: 2x as fast as ``np.unique(axis=0)``).

    >>> unique_pairs(np.array([[3, 4], [0, 2], [3, 4]])).tolist()
    [[0, 2], [3, 4]]
    """
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    width = int(pairs.max(initial=0)) + 1
    codes = np.unique(pairs[:, 0] * width + pairs[:, 1])
    return np.stack([codes // width, codes % width], axis=1)
