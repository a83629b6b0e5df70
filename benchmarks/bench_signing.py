"""Sign the same documents with neardup_lab and with datasketch, side by side, in one run.

Usage: python benchmarks/bench_signing.py [--docs 10000] [--num-perm 128] [--repeat 3]

Both sides get the same word 5-shingle sets of news-like 300-word articles; shingling is
done once, before timing. neardup_lab signs all documents with one call to
MinHasher.signatures (hashing the shingle strings included); datasketch builds one MinHash
per document with update_batch (UTF-8 encoding of the shingles included, since it needs
bytes). The best of --repeat runs is reported for each.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from datasketch import MinHash

from neardup_lab import MinHasher, make_article, word_shingles


def best_time(func, repeat: int) -> float:
    """Best wall time of ``repeat`` calls of ``func``, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--num-perm", type=int, default=128)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    sets = [word_shingles(make_article(seed=i, n_words=300), 5) for i in range(args.docs)]
    shingles_per_doc = sum(map(len, sets)) / len(sets)
    hasher = MinHasher(num_perm=args.num_perm, seed=1)

    def ours() -> None:
        hasher.signatures(sets)

    def datasketch() -> None:
        for s in sets:
            m = MinHash(num_perm=args.num_perm, seed=1)
            m.update_batch([x.encode("utf-8") for x in s])

    t_ours = best_time(ours, args.repeat)
    t_ds = best_time(datasketch, args.repeat)
    per_doc = lambda t: t / args.docs * 1e6  # noqa: E731
    print(f"machine: {os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}")
    print(f"documents: {args.docs}, 300 words each, {shingles_per_doc:.0f} word 5-shingles per document, "
          f"{args.num_perm} permutations, best of {args.repeat}")
    print(f"{'method':42s} {'total s':>9s} {'us/doc':>9s}")
    print(f"{'neardup_lab MinHasher.signatures':42s} {t_ours:9.2f} {per_doc(t_ours):9.1f}")
    print(f"{'datasketch 2.0.0 MinHash.update_batch':42s} {t_ds:9.2f} {per_doc(t_ds):9.1f}")
    print(f"ratio: neardup_lab is {t_ds / t_ours:.1f}x faster than datasketch update_batch")


if __name__ == "__main__":
    main()
