"""Memory that numpy frees, kept for the next chunk instead of given back to the system.

Signing runs the same numpy passes chunk after chunk; each pass makes arrays
of about a megabyte and frees them. By default glibc's ``malloc`` (Linux) gives
blocks of that size back to the kernel as soon as they are freed, and so the
next chunk's arrays are fresh memory again: the kernel zeroes and maps each of
their 4 KB pages at its first write, one page fault at a time. Measured on a
2-core machine, signing the same 550 articles again and again: about 2,000 page
faults a round with glibc's own limits, none with these. A ``dedup`` of 100,000
articles in a fresh process (one thread): 370,000 page faults and 0.8-0.9 s in the
kernel before, 110,000 and 0.3-0.5 s after, in a run of 3-4 s.

:func:`keep_freed_memory` raises two of ``malloc``'s limits once per process:
blocks up to :data:`HEAP_BLOCK` bytes come from its heap, and up to
:data:`KEPT_FREE` bytes of free heap are kept for reuse. After the first
chunk, the same pages serve every chunk (almost no faults). The cost is that
a process may hold up to :data:`KEPT_FREE` bytes it no longer uses, which it
reuses for its next arrays.

Only glibc has these limits. The process's own choice wins: where the
environment sets ``MALLOC_MMAP_THRESHOLD_`` or ``MALLOC_TRIM_THRESHOLD_``, or
``malloc`` tunables in ``GLIBC_TUNABLES`` (Dask's nanny sets the trim threshold
for its workers, to give memory back promptly), nothing is changed. That is
also how to opt out: set the limits you want (glibc starts from
``MALLOC_TRIM_THRESHOLD_=131072``, and once set it no longer adapts them).
"""

from __future__ import annotations

import ctypes
import os
import threading

__all__ = ["keep_freed_memory", "HEAP_BLOCK", "KEPT_FREE"]

#: Largest block ``malloc`` takes from its heap (larger ones are mapped and unmapped whole).
#: The same as the most glibc's own adaptive limit reaches, so big arrays still go back at once.
HEAP_BLOCK = 32 << 20
#: Free heap memory kept for reuse before ``malloc`` gives it back to the system.
KEPT_FREE = 64 << 20
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's malloc.h
_USER_SETTINGS = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")

_lock = threading.Lock()
_done: bool | None = None  # None: not tried yet; then whether the limits were raised


def keep_freed_memory() -> bool:
    """Raise glibc ``malloc``'s limits so freed arrays are reused (once per process; see above).

    Returns whether the limits are raised: ``False`` where the C library is not
    glibc or the environment sets them. Safe to call from any thread, any number of times.

    >>> raised = keep_freed_memory()  # True on Linux with glibc, unless MALLOC_... is set
    """
    global _done
    if _done is not None:
        return _done
    with _lock:
        if _done is None:
            _done = _raise_limits()
    return _done


def _raise_limits() -> bool:
    chosen = any(name in os.environ for name in _USER_SETTINGS)
    if chosen or "glibc.malloc." in os.environ.get("GLIBC_TUNABLES", "") or not _is_glibc():
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    # Both, in this order: setting either one turns off glibc's adaptive limits.
    return bool(mallopt(_M_MMAP_THRESHOLD, HEAP_BLOCK)) and bool(mallopt(_M_TRIM_THRESHOLD, KEPT_FREE))


def _is_glibc() -> bool:
    try:
        return (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc")
    except (AttributeError, ValueError, OSError):  # no confstr, or no such name here
        return False
