"""Work side by side: threads for numpy passes, forked processes for Python loops.

A numpy pass over a large array (a sort, a comparison, arithmetic, a gather)
runs without holding the interpreter lock, so threads that spend their time in
such passes use every core, and they read the documents and write results where
they already are: :func:`ordered_map`. Signing and band grouping run this way.

A loop that runs Python per item (verification's one search per pair) holds the
lock; it needs processes. On Linux a forked worker starts as a copy of its
parent, so the arrays it reads are there without being sent
(:func:`fork_context`). It must not read the texts, though: reading a ``str``
writes its reference count, which gives the worker its own copy of that memory
page. Elsewhere (Windows, macOS, where forking a process that has loaded numpy
is unsafe) :func:`fork_context` says no and callers stay in one process.
"""

from __future__ import annotations

import multiprocessing
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from multiprocessing.context import BaseContext
from typing import TypeVar

__all__ = ["fork_context", "ordered_map"]

Item = TypeVar("Item")
Result = TypeVar("Result")


def fork_context() -> BaseContext | None:
    """The ``fork`` start method where it is safe (Linux, in a process that may have children),
    else ``None``.

    >>> fork_context() is None or fork_context().get_start_method() == "fork"
    True
    """
    if multiprocessing.current_process().daemon:  # a Pool's or Dask's worker may not have any
        return None
    if sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return None


def ordered_map(func: Callable[[Item], Result], items: Iterable[Item], threads: int = 1) -> Iterator[Result]:
    """``map(func, items)`` over ``threads`` threads: results in the order of ``items``.

    At most two items per thread are started ahead of the result the caller is
    waiting for, so results that finish early do not pile up in memory (as they
    would with ``ThreadPoolExecutor.map``, which starts every item at once).
    With ``threads`` of 1 it is plain ``map``. An exception in ``func`` is raised
    here, at that item's place.

    >>> list(ordered_map(lambda x: x * x, range(5), threads=2))
    [0, 1, 4, 9, 16]
    """
    if threads <= 1:
        yield from map(func, items)
        return
    with ThreadPoolExecutor(threads) as pool:
        running: deque[Future[Result]] = deque()
        for item in items:
            running.append(pool.submit(func, item))
            if len(running) >= 2 * threads:
                yield running.popleft().result()
        while running:
            yield running.popleft().result()
