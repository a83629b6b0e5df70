"""Recall near the threshold: how much each banding keeps of pairs just above 0.8, and what it costs.

Every original gets one near-copy with a few words replaced, so that most planted pairs
sit between 0.80 and 0.86, where the S-curve is not yet 1. Each banding runs ``dedup``
on the same corpus (one-permutation, 128 values, exact verification) in one script run;
recall is the share of planted pairs with exact Jaccard >= 0.8 whose documents end in
one cluster.

    python benchmarks/bench_recall.py --originals 20000
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from common import machine_line

from neardup_lab import dedup, make_article, replace_words
from neardup_lab.engine.pipeline import prepare
from neardup_lab.engine.verify import jaccard_of_pairs
from neardup_lab.lsh import optimal_params
from neardup_lab.settings import Settings

THRESHOLD = 0.8
WEIGHTS = [(0.5, 0.5), (0.05, 0.95), (0.02, 0.98), (0.01, 0.99)]


def near_threshold_corpus(n: int) -> tuple[list[str], np.ndarray]:
    """``n`` originals and one copy of each with 4 to 7 words replaced; the planted pairs."""
    docs = [make_article(seed=i, n_words=300) for i in range(n)]
    docs += [replace_words(docs[i], 4 + i % 4, seed=i) for i in range(n)]
    return docs, np.stack([np.arange(n), np.arange(n) + n], axis=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--originals", type=int, default=20_000)
    args = parser.parse_args()
    print(machine_line())
    docs, planted = near_threshold_corpus(args.originals)
    similarity = jaccard_of_pairs(prepare(docs, Settings()).sets, planted)
    truth = planted[similarity >= THRESHOLD]
    print(
        f"{len(docs):,} documents; {len(truth):,} planted pairs at or above {THRESHOLD} "
        f"(median {np.median(similarity[similarity >= THRESHOLD]):.3f})"
    )
    print(f"{'weights (fp, fn)':>18s} {'bands x rows':>13s} {'seconds':>8s} {'checked':>8s} {'recall':>8s}")
    for weights in WEIGHTS:
        bands, rows = optimal_params(THRESHOLD, 128, *weights)
        started = time.perf_counter()
        result = dedup(docs, bands=bands, rows=rows, scheme="one-permutation", progress=False)
        seconds = time.perf_counter() - started
        cluster_of = np.empty(len(docs), dtype=np.int64)
        for label, members in enumerate(result.clusters):
            cluster_of[members] = label
        recall = float(np.mean(cluster_of[truth[:, 0]] == cluster_of[truth[:, 1]]))
        checked = result.stats["candidates"]["pairs"]
        print(f"{str(weights):>18s} {f'{bands} x {rows}':>13s} {seconds:8.2f} {checked:8,d} {recall:8.4f}")


if __name__ == "__main__":
    main()
