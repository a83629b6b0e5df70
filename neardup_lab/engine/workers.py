"""Work side by side: threads for numpy passes.

A numpy pass over a large array (a sort, a comparison, arithmetic, a gather)
runs without holding the interpreter lock, so threads that spend their time in
such passes use every core, and they read the documents and write results where
they already are: :func:`ordered_map`. Signing, band grouping, sorting id sets
and deriving ids for verification run this way. A loop that runs Python per item
holds the lock, and threads do not speed it up.
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from tqdm import tqdm

__all__ = ["IN_BROWSER", "ordered_map", "progress_bar"]

#: Whether this is the browser's Python (Pyodide), which can start neither threads nor processes.
IN_BROWSER = sys.platform == "emscripten"

Item = TypeVar("Item")
Result = TypeVar("Result")


def ordered_map(func: Callable[[Item], Result], items: Iterable[Item], threads: int = 1) -> Iterator[Result]:
    """``map(func, items)`` over ``threads`` threads: results in the order of ``items``.

    At most two items per thread are started ahead of the result the caller is
    waiting for, so results that finish early do not pile up in memory (as they
    would with ``ThreadPoolExecutor.map``, which starts every item at once).
    With ``threads`` of 1, or in the browser, it is plain ``map``. An exception in ``func`` is raised
    here, at that item's place.

    >>> list(ordered_map(lambda x: x * x, range(5), threads=2))
    [0, 1, 4, 9, 16]
    """
    if threads <= 1 or IN_BROWSER:
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


def progress_bar(**options: Any) -> tqdm:
    """A ``tqdm`` progress bar made with ``options``; in the browser, without the monitor thread
    tqdm would try to start there (and warn that it could not).

    >>> with progress_bar(total=3, disable=True) as bar:
    ...     bar.update(3)
    """
    from tqdm import tqdm  # here: import neardup_lab loads numpy and nothing heavier

    kind = type("tqdm", (tqdm,), {"monitor_interval": 0}) if IN_BROWSER else tqdm
    return kind(**options)
