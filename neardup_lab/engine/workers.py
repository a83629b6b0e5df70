"""Threads for numpy passes, which release the interpreter lock (a Python loop per item does not)."""

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
    """``map(func, items)`` on ``threads`` threads, in order, at most two items per thread ahead.

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
    """A ``tqdm`` bar; in the browser, without tqdm's monitor thread (which cannot start there).

    >>> with progress_bar(total=3, disable=True) as bar:
    ...     bar.update(3)
    """
    from tqdm import tqdm  # here: import neardup_lab loads numpy and nothing heavier

    kind = type("tqdm", (tqdm,), {"monitor_interval": 0}) if IN_BROWSER else tqdm
    return kind(**options)
