"""Worker processes that share memory with this one, where the platform allows it.

On Linux a forked worker starts as a copy of its parent: the documents and any
array made before the fork are there without being sent, and an array made by
:func:`shared_empty` is one piece of memory both sides write. That saves what
sending costs: pickling every text out and every result back. Elsewhere
(Windows, macOS, where forking a process that has loaded numpy is unsafe)
:func:`fork_context` says no and callers send their data the portable way.

>>> shared_empty((2, 3), np.uint32).shape
(2, 3)
"""

from __future__ import annotations

import mmap
import multiprocessing
import sys
from multiprocessing.context import BaseContext

import numpy as np

__all__ = ["fork_context", "shared_empty", "release"]


def fork_context() -> BaseContext | None:
    """The ``fork`` start method where it is safe (Linux), else ``None``.

    >>> fork_context() is None or fork_context().get_start_method() == "fork"
    True
    """
    if sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return None


def shared_empty(shape: int | tuple[int, ...], dtype: type | np.dtype) -> np.ndarray:
    """An uninitialised array in anonymous shared memory: processes forked after it see its writes.

    Pages become resident only where something is written, so a generous size costs
    address space, not memory.

    >>> a = shared_empty(4, np.int64); a[:] = 7; a.tolist()
    [7, 7, 7, 7]
    """
    dtype = np.dtype(dtype)
    count = int(np.prod(shape))
    buffer = mmap.mmap(-1, max(count * dtype.itemsize, 1))  # MAP_SHARED | MAP_ANONYMOUS
    return np.frombuffer(buffer, dtype=dtype, count=count).reshape(shape)


def release(array: np.ndarray, start: int, stop: int) -> None:
    """Give back the memory pages that lie wholly inside ``array[start:stop]`` (an array from
    :func:`shared_empty`); their content is lost. Does nothing where it cannot.

    >>> a = shared_empty(4096, np.uint8); a[:] = 1; release(a, 0, 4096); int(a.sum())
    0
    """
    buffer = array.base
    while buffer is not None and not isinstance(buffer, mmap.mmap):
        buffer = getattr(buffer, "base", None) if not isinstance(buffer, memoryview) else buffer.obj
    if buffer is None or not hasattr(mmap, "MADV_REMOVE"):
        return
    origin = array.__array_interface__["data"][0] - _address(buffer)
    first = -(-(origin + start * array.itemsize) // mmap.PAGESIZE) * mmap.PAGESIZE
    last = (origin + stop * array.itemsize) // mmap.PAGESIZE * mmap.PAGESIZE
    if last > first:
        buffer.madvise(mmap.MADV_REMOVE, first, last - first)


def _address(buffer: mmap.mmap) -> int:
    return np.frombuffer(buffer, dtype=np.uint8, count=1).__array_interface__["data"][0]
