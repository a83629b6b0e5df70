"""Shared helpers for the benchmark scripts: machine line, timing, tables."""

from __future__ import annotations

import contextlib
import os
import platform
import resource
import threading
import time
from collections.abc import Callable, Iterator


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


def available_mb() -> float:
    """Memory the machine can still give out (MemAvailable of /proc/meminfo), in MB."""
    with open("/proc/meminfo", encoding="ascii") as meminfo:
        for line in meminfo:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("/proc/meminfo has no MemAvailable line (Linux 3.14 or newer needed)")


@contextlib.contextmanager
def machine_memory_used(every: float = 0.02) -> Iterator[dict[str, float]]:
    """The most memory the whole machine used above its level at entry, in MB, sampled
    every ``every`` seconds: worker processes and shared memory included.

    Yields a dict whose ``"peak_mb"`` is filled in on exit. Read it on an otherwise idle
    machine: other programs' memory counts too.
    """
    found = {"peak_mb": 0.0}
    start, lowest, done = available_mb(), [available_mb()], threading.Event()

    def sample() -> None:
        while not done.wait(every):
            lowest[0] = min(lowest[0], available_mb())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        yield found
    finally:
        done.set()
        sampler.join()
        found["peak_mb"] = start - min(lowest[0], available_mb())


def print_table(rows: list[tuple[str, float]], n_docs: int, reference: str) -> None:
    """Print method, total seconds, microseconds per document and speed relative to ``reference``."""
    ref = dict(rows)[reference]
    print(f"{'method':48s} {'total s':>8s} {'us/doc':>8s} {'vs ' + reference[:24]:>30s}")
    for name, seconds in rows:
        print(f"{name:48s} {seconds:8.2f} {seconds / n_docs * 1e6:8.1f} {ref / seconds:29.1f}x")
