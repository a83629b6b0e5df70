"""Shared helpers for the benchmark scripts: machine line, timing, tables."""

from __future__ import annotations

import os
import platform
import resource
import time
from collections.abc import Callable


def machine_line() -> str:
    """One line naming the core count and software, printed at the top of every run."""
    import numpy

    return (
        f"machine: {os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}, "
        f"numpy {numpy.__version__}"
    )


def best_time(func: Callable[[], object], repeat: int) -> float:
    """Best wall time of ``repeat`` calls of ``func``, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MB (Linux reports kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def print_table(rows: list[tuple[str, float]], n_docs: int, reference: str) -> None:
    """Print method, total seconds, microseconds per document and speed relative to ``reference``."""
    ref = dict(rows)[reference]
    print(f"{'method':48s} {'total s':>8s} {'us/doc':>8s} {'vs ' + reference[:24]:>30s}")
    for name, seconds in rows:
        print(f"{name:48s} {seconds:8.2f} {seconds / n_docs * 1e6:8.1f} {ref / seconds:29.1f}x")
