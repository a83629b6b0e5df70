"""Many variable-length lists in one array: the positions of their items.

Every batched step of the package keeps many lists (the words of many documents,
the shingle ids of many documents, the members of many groups) end to end in
one array, list ``i`` occupying ``sizes[i]`` consecutive places from
``starts[i]``. Gathering some of those lists is one fancy index with the
positions :func:`span_positions` gives.

>>> ids = np.array([10, 11, 12, 20, 30, 31])  # three lists: starts 0, 3, 4; sizes 3, 1, 2
>>> ids[span_positions(np.array([4, 0]), np.array([2, 3]))].tolist()  # the third, then the first
[30, 31, 10, 11, 12]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

__all__ = ["span_positions", "chunk_bounds", "cut"]


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


def cut(items: Sequence[object], sizes: np.ndarray) -> list[Sequence[object]]:
    """``items`` cut into consecutive pieces of ``sizes[i]`` items each, by slicing: for a list or
    a memoryview, in C, one slice per piece.

    >>> cut([5, 6, 7, 8], np.array([1, 0, 3]))
    [[5], [], [6, 7, 8]]
    """
    ends = np.cumsum(np.asarray(sizes, dtype=np.int64))
    return list(map(items.__getitem__, map(slice, (ends - sizes).tolist(), ends.tolist())))


def chunk_bounds(sizes: np.ndarray, most_size: int, most_items: int) -> Iterator[tuple[int, int]]:
    """Bounds ``(start, stop)`` of consecutive runs of lists, each of at most ``most_items`` lists
    whose sizes add up to at most ``most_size`` (a list larger than that alone).

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
