"""Task shuffles: senders cut rows (an array, or a NamedTuple of column arrays) into one piece per
receiver (:func:`route`); :func:`exchange` wires the pieces, :func:`gather` joins them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

if TYPE_CHECKING:  # Dask is optional: the routing itself is numpy
    from dask.delayed import Delayed

__all__ = ["Tally", "Routed", "nbytes", "sent", "route", "gather", "exchange", "partition_offsets", "home"]


class Tally(NamedTuple):
    """How much one task sent: rows, and bytes (an upper bound on what crosses the network)."""

    rows: int
    nbytes: int


class Routed(NamedTuple):
    """Rows cut into one piece per receiving partition: ``pieces[q]`` goes to partition ``q``."""

    pieces: list[Any]
    tally: Tally


def nbytes(data: object) -> int:
    """Bytes of the numpy arrays in ``data``, however deep in tuples and lists.

    >>> nbytes([np.zeros(3, np.int64), (np.zeros((2, 2), np.uint32), None)])
    40
    """
    if isinstance(data, np.ndarray):
        return data.nbytes
    if isinstance(data, (tuple, list)):
        return sum(nbytes(item) for item in data)
    return 0


def _take(rows: Any, index: np.ndarray) -> Any:
    if isinstance(rows, np.ndarray):
        return rows[index]
    return type(rows)(*(column[index] for column in rows))


def sent(pieces: list[Any], rows: int) -> Routed:
    """``pieces`` as a :class:`Routed`, with their bytes counted.

    >>> sent([np.zeros(2, np.int64), np.zeros(1, np.int64)], rows=3).tally
    Tally(rows=3, nbytes=24)
    """
    return Routed(pieces, Tally(rows, nbytes(pieces)))


def route(rows: Any, target: np.ndarray, receivers: int) -> Routed:
    """Cut ``rows`` into ``receivers`` pieces: row ``i`` goes to piece ``target[i]``, in row order.

    >>> routed = route(np.array([10, 11, 12, 13]), np.array([1, 0, 1, 1]), receivers=3)
    >>> [piece.tolist() for piece in routed.pieces], routed.tally.rows
    ([[11], [10, 12, 13], []], 4)
    """
    order = np.argsort(target, kind="stable")
    bounds = np.searchsorted(target[order], np.arange(receivers + 1))
    return sent([_take(rows, order[a:b]) for a, b in zip(bounds[:-1], bounds[1:])], len(target))


def gather(pieces: Sequence[Any]) -> Any:
    """The rows of all ``pieces`` (arrays, or NamedTuples of arrays) in one, in piece order.

    >>> class Rows(NamedTuple):
    ...     key: np.ndarray
    ...     doc: np.ndarray
    >>> gather([Rows(np.array([7]), np.array([0])), Rows(np.array([5, 7]), np.array([3, 4]))])
    Rows(key=array([7, 5, 7]), doc=array([0, 3, 4]))
    """
    if isinstance(pieces[0], np.ndarray):
        return np.concatenate(pieces)
    return type(pieces[0])(*(np.concatenate(columns) for columns in zip(*pieces)))


def exchange(senders: Sequence[Delayed], receivers: int) -> list[list[Delayed]]:
    """For each receiver ``q``, piece ``q`` of every delayed :class:`Routed` sender (for :func:`gather`).

    >>> import dask
    >>> from dask import delayed
    >>> senders = [delayed(route)(np.array([1, 2]), np.array([0, 1]), 2),
    ...            delayed(route)(np.array([3]), np.array([1]), 2)]
    >>> [gather(dask.compute(*wired, scheduler="sync")).tolist() for wired in exchange(senders, 2)]
    [[1], [2, 3]]
    """
    pieces = [sender.pieces for sender in senders]
    return [[piece[q] for piece in pieces] for q in range(receivers)]


def partition_offsets(sizes: Sequence[int]) -> np.ndarray:
    """Global id of the first document of each partition, and the total at the end.

    >>> partition_offsets([3, 0, 2]).tolist()
    [0, 3, 3, 5]
    """
    return np.concatenate(([0], np.cumsum(np.asarray(sizes, dtype=np.int64)))).astype(np.int64)


def home(offsets: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """The partition that holds each global document id (``offsets`` from :func:`partition_offsets`).

    >>> home(partition_offsets([3, 0, 2]), np.array([0, 2, 3, 4])).tolist()
    [0, 0, 2, 2]
    """
    return np.searchsorted(offsets, ids, side="right") - 1
