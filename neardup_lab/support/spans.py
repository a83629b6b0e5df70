"""Many variable-length lists in one array (:class:`Ragged`), gathered by :func:`span_positions`.

>>> ids = np.array([10, 11, 12, 20, 30, 31])  # three lists: starts 0, 3, 4; sizes 3, 1, 2
>>> ids[span_positions(np.array([4, 0]), np.array([2, 3]))].tolist()  # the third, then the first
[30, 31, 10, 11, 12]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence, Sized
from typing import NamedTuple, TypeVar

import numpy as np

__all__ = ["Ragged", "span_positions", "chunk_bounds", "cut", "lengths_of", "sorted_runs"]

Sliceable = TypeVar("Sliceable", list, memoryview)


def span_positions(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The positions ``starts[i], ..., starts[i] + sizes[i] - 1`` for every ``i``, in turn.

    >>> span_positions(np.array([5, 0]), np.array([2, 3])).tolist()
    [5, 6, 0, 1, 2]
    >>> span_positions(np.array([], dtype=np.int64), np.array([], dtype=np.int64)).tolist()
    []
    """
    starts = np.asarray(starts, dtype=np.int64)
    sizes = np.asarray(sizes, dtype=np.int64)
    ends = np.cumsum(sizes)
    repeats = sizes.astype(np.intp, copy=False)  # np.repeat needs np.intp counts on a 32-bit numpy
    return np.repeat(starts - ends + sizes, repeats) + np.arange(int(ends[-1]) if len(ends) else 0)


def cut(items: Sliceable, sizes: np.ndarray) -> list[Sliceable]:
    """``items`` (a list or memoryview) cut into consecutive pieces of ``sizes[i]`` items each.

    >>> cut([5, 6, 7, 8], np.array([1, 0, 3]))
    [[5], [], [6, 7, 8]]
    """
    ends = np.cumsum(np.asarray(sizes, dtype=np.int64))
    return list(map(items.__getitem__, map(slice, (ends - sizes).tolist(), ends.tolist())))


def lengths_of(items: Sequence[Sized]) -> np.ndarray:
    """``len`` of each item as int64, in one ``map`` (a loop in C).

    >>> lengths_of(["ab", "", "c"]).tolist()
    [2, 0, 1]
    """
    return np.fromiter(map(len, items), dtype=np.int64, count=len(items))


def sorted_runs(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The stable order that sorts ``keys``, and where each run of equal keys starts in it.

    >>> [part.tolist() for part in sorted_runs(np.array([7, 3, 7]))]
    [[1, 0, 2], [0, 1]]
    """
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    return order, np.flatnonzero(np.r_[len(keys) > 0, ordered[1:] != ordered[:-1]])


def chunk_bounds(sizes: np.ndarray, most_size: int, most_items: int) -> Iterator[tuple[int, int]]:
    """Bounds of runs of at most ``most_items`` lists, sizes summing to ``most_size`` (a bigger alone).

    >>> list(chunk_bounds(np.array([3, 3, 9, 1, 1, 1]), most_size=6, most_items=2))
    [(0, 2), (2, 3), (3, 5), (5, 6)]
    """
    ends = np.cumsum(np.asarray(sizes, dtype=np.int64))
    start = 0
    while start < len(ends):
        before = ends[start - 1] if start else 0
        stop = int(np.searchsorted(ends, before + most_size, side="right"))
        stop = min(max(stop, start + 1), start + most_items)
        yield start, stop
        start = stop


class Ragged(NamedTuple):
    """Many lists end to end: list ``i`` is ``values[offsets[i] : offsets[i + 1]]``.

    >>> words = Ragged.from_counts(np.array([10, 11, 12, 20]), np.array([3, 0, 1]))
    >>> words.offsets.tolist(), words.lists, words.of(2).tolist(), words.counts.tolist()
    ([0, 3, 3, 4], 3, [20], [3, 0, 1])
    >>> words.take(np.array([2, 0])).values.tolist()
    [20, 10, 11, 12]
    """

    values: np.ndarray
    offsets: np.ndarray

    @classmethod
    def from_counts(cls, values: np.ndarray, counts: np.ndarray) -> Ragged:
        """The lists of ``counts[i]`` consecutive values each."""
        return cls(values, np.r_[0, np.cumsum(counts, dtype=np.int64)].astype(np.int64, copy=False))

    @classmethod
    def empty(cls, dtype: type = np.uint64) -> Ragged:
        """No list at all.

        >>> Ragged.empty().lists
        0
        """
        return cls(np.empty(0, dtype=dtype), np.zeros(1, dtype=np.int64))

    @classmethod
    def join(cls, parts: Sequence[Ragged]) -> Ragged:
        """The lists of ``parts`` one after the other (the first part itself when it is the only one).

        >>> one = Ragged.from_counts(np.array([7, 8, 9]), np.array([2, 1]))
        >>> Ragged.join([one, one]).offsets.tolist()
        [0, 2, 3, 5, 6]
        """
        if len(parts) == 1:
            return parts[0]
        if not parts:
            return cls.empty()
        values = np.concatenate([p.values for p in parts])
        return cls.from_counts(values, np.concatenate([p.counts for p in parts]))

    @property
    def lists(self) -> int:
        """How many lists there are."""
        return len(self.offsets) - 1

    @property
    def counts(self) -> np.ndarray:
        """The length of each list."""
        return np.diff(self.offsets)

    def of(self, i: int) -> np.ndarray:
        """List ``i``."""
        return self.values[self.offsets[i] : self.offsets[i + 1]]

    def spans(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(starts, sizes)`` of the lists ``rows``, for :func:`span_positions`."""
        starts = self.offsets[rows]
        return starts, self.offsets[np.asarray(rows) + 1] - starts

    def take(self, rows: np.ndarray) -> Ragged:
        """The lists ``rows``, in that order."""
        starts, sizes = self.spans(rows)
        return Ragged.from_counts(self.values[span_positions(starts, sizes)], sizes)

    def owners(self) -> np.ndarray:
        """For each value, the list it is in."""
        return np.repeat(np.arange(self.lists), self.counts.astype(np.intp, copy=False))
