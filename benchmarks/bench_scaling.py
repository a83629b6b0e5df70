"""What a second worker gives on this machine, side by side in one run: the ceiling and dedup.

Usage (from the repository root; Linux, it forks):
    .venv/bin/python benchmarks/bench_scaling.py [--docs 100000] [--rounds 5]

Three measurements, each a ratio of one worker's time to two workers' time, taken in
turns (one worker, then two, round after round) so that a drift in the machine's speed
falls on both alike:

1. the ceiling: the signing kernel (``prepare`` on every chunk of the corpus, as
   ``prepare_many`` cuts it) in this process, against the same chunks split between two
   forked processes that share nothing and send nothing back. No scheme of work sharing
   can beat this ratio for this work on this machine;
2. signing as dedup runs it: ``prepare_many(n_jobs=2)`` (threads) against ``n_jobs=1``;
3. the whole ``dedup``, ``n_jobs=2`` against ``n_jobs=1``.

Every measure runs once in each round; the medians of the rounds are reported, with the
lowest and highest ("top") ratio.
"""

from __future__ import annotations

import argparse
import os
import statistics
from collections.abc import Callable

import numpy as np
from common import best_time, machine_line

from neardup_lab import dedup, make_corpus
from neardup_lab.engine.pipeline import prepare, prepare_many
from neardup_lab.settings import Settings
from neardup_lab.support import limits
from neardup_lab.support.spans import chunk_bounds

SETTINGS = Settings(scheme="one-permutation")


def sign_chunks(docs: list[str], bounds: list[tuple[int, int]]) -> None:
    for start, stop in bounds:
        prepare(docs[start:stop], SETTINGS, ids="raw")


def sign_in_two_processes(docs: list[str], bounds: list[tuple[int, int]]) -> None:
    """Every other chunk in each of two forked processes; returns when both have ended."""
    children = []
    for share in (bounds[0::2], bounds[1::2]):
        pid = os.fork()
        if pid == 0:
            try:
                sign_chunks(docs, share)
            finally:
                os._exit(0)
        children.append(pid)
    for pid in children:
        _, status = os.waitpid(pid, 0)
        if status:
            raise RuntimeError(f"a signing process ended with status {status}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    docs = make_corpus(args.docs * 2 // 5, seed=2024, copies=(0, 3)).docs[: args.docs]
    lengths = np.fromiter(map(len, docs), dtype=np.int64, count=len(docs))
    bounds = list(chunk_bounds(lengths, limits.CHUNK_CHARS, limits.CHUNK_DOCS))
    print(machine_line())
    print(f"{len(docs):,} documents of make_corpus(seed=2024), {len(bounds)} chunks; {SETTINGS.scheme}\n")
    measures: dict[str, tuple[Callable[[], object], Callable[[], object]]] = {
        "ceiling: prepare in 1 process vs 2 forked": (
            lambda: sign_chunks(docs, bounds),
            lambda: sign_in_two_processes(docs, bounds),
        ),
        "prepare_many, n_jobs=1 vs 2 (threads)": (
            lambda: prepare_many(docs, SETTINGS, n_jobs=1, ids="raw"),
            lambda: prepare_many(docs, SETTINGS, n_jobs=2, ids="raw"),
        ),
        "dedup, n_jobs=1 vs 2": (
            lambda: dedup(docs, scheme=SETTINGS.scheme, n_jobs=1),
            lambda: dedup(docs, scheme=SETTINGS.scheme, n_jobs=2),
        ),
    }
    sign_chunks(docs, bounds[:2])  # tables and caches built before the first timing
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in measures}
    for _ in range(args.rounds):  # every measure in each round: a drift falls on all of them
        for name, (one, two) in measures.items():
            times[name].append((best_time(one, 1), best_time(two, 1)))
    header = f"{'1 worker s':>11s} {'2 workers s':>12s} {'ratio':>7s} {'lowest':>7s} {'top':>7s}"
    print(f"{'measure':44s} {header}")
    for name, pairs in times.items():
        ratios = [one / two for one, two in pairs]
        one_s, two_s = (statistics.median(column) for column in zip(*pairs))
        print(
            f"{name:44s} {one_s:11.2f} {two_s:12.2f} {statistics.median(ratios):6.2f}x "
            f"{min(ratios):6.2f}x {max(ratios):6.2f}x"
        )
    print(f"\nmedians of {args.rounds} rounds; ratio: one worker's time over two workers' time, per round")


if __name__ == "__main__":
    main()
