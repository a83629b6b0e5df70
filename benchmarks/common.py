"""Shared helpers for the benchmark scripts: machine line, timing, tables."""

from __future__ import annotations

import contextlib
import os
import platform
import resource
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path


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


def _children(pid: int) -> list[int]:
    """Processes whose parent is ``pid`` (read from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text(encoding="ascii", errors="replace").rsplit(")", 1)[1].split()
        except OSError:  # the process ended while we looked
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _memory_mb(pid: int) -> float:
    """The anonymous and shared memory of one process, shared pages divided among their
    users (Pss_Anon + Pss_Shmem of /proc/PID/smaps_rollup), in MB; 0 if it has ended."""
    try:
        lines = Path(f"/proc/{pid}/smaps_rollup").read_text(encoding="ascii").splitlines()
    except OSError:
        return 0.0
    return sum(int(line.split()[1]) for line in lines if line.startswith(("Pss_Anon:", "Pss_Shmem:"))) / 1024


def tree_memory_mb() -> float:
    """Memory held by this process and its children (worker processes), in MB; pages they
    share are counted once (Linux 4.14 or newer: smaps_rollup)."""
    return sum(_memory_mb(pid) for pid in [os.getpid(), *_children(os.getpid())])


@contextlib.contextmanager
def memory_peak_above_now(every: float = 0.25) -> Iterator[dict[str, float]]:
    """The most memory this process and its workers held above what this process holds at
    entry, in MB, sampled every ``every`` seconds (each sample walks the processes' page
    tables: sampled every 50 ms, a 10^6-document dedup took 59 s, against 43-48 s unsampled).

    Yields a dict whose ``"peak_mb"`` is filled in on exit.
    """
    found = {"peak_mb": 0.0}
    start, highest, done = tree_memory_mb(), [0.0], threading.Event()

    def sample() -> None:
        while not done.wait(every):
            highest[0] = max(highest[0], tree_memory_mb())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        yield found
    finally:
        done.set()
        sampler.join()
        found["peak_mb"] = max(highest[0], tree_memory_mb()) - start


def print_table(rows: list[tuple[str, float]], n_docs: int, reference: str) -> None:
    """Print method, total seconds, microseconds per document and speed relative to ``reference``."""
    ref = dict(rows)[reference]
    print(f"{'method':48s} {'total s':>8s} {'us/doc':>8s} {'vs ' + reference[:24]:>30s}")
    for name, seconds in rows:
        print(f"{name:48s} {seconds:8.2f} {seconds / n_docs * 1e6:8.1f} {ref / seconds:29.1f}x")
