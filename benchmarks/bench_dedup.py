"""dedup on generated news corpora of growing size: time, memory, candidates, recall, precision.

Usage (from the repository root):
    .venv/bin/python benchmarks/bench_dedup.py                 # 10^4 and 10^5 documents
    .venv/bin/python benchmarks/bench_dedup.py --million       # also 10^6 (minutes, several GB)

Each size runs in its own child process so that its peak memory is its own. Truth is
planted: every pair of documents copied from the same original whose exact Jaccard
(word 5-shingles) is at least the threshold must end in one cluster (recall); every
verified pair must really be at least the threshold (precision); and a large random
sample of pairs from different families must never share a cluster. "peak MB" is the peak
resident memory of the process holding the corpus and running dedup, measured right after
dedup returns (before the scoring, which needs memory of its own). Memory is also read for
the process and its workers together, shared pages counted once (/proc smaps_rollup,
sampled every 250 ms): what generating the texts took, and the most dedup held above that.
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import subprocess
import sys
import time

import numpy as np

THRESHOLD = 0.8


def run_one(target_docs: int, n_jobs: int, scheme: str) -> dict:
    """Generate about ``target_docs`` documents, dedup them, score against planted truth."""
    from common import memory_peak_above_now, tree_memory_mb

    from neardup_lab import dedup, make_corpus
    from neardup_lab.engine.tokenize import shingle_id_batch
    from neardup_lab.engine.verify import jaccard_of_pairs
    from neardup_lab.support.spans import Ragged

    before = tree_memory_mb()
    started = time.perf_counter()
    docs, origin, _ = make_corpus(target_docs * 2 // 5, seed=2024, copies=(0, 3))
    generate_s = time.perf_counter() - started
    gc.collect()
    texts_mb = tree_memory_mb() - before

    started = time.perf_counter()
    with memory_peak_above_now() as above_texts:
        result = dedup(docs, threshold=THRESHOLD, scheme=scheme, n_jobs=n_jobs, progress=False)
    dedup_s = time.perf_counter() - started
    # Peak memory up to here: the corpus plus dedup (this process), and dedup's worker processes
    # (verification; a forked worker's resident pages include those it shares with this process).
    peak_main = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    peak_worker = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024

    cluster_of = np.empty(len(docs), dtype=np.int64)
    for label, members in enumerate(result.clusters):
        cluster_of[members] = label
    families: dict[int, list[int]] = {}
    for doc, source in enumerate(origin):
        families.setdefault(source, []).append(doc)
    multi = [members for members in families.values() if len(members) > 1]
    # Shingle ids of every document the scoring needs, computed once each, in the kernel's layout.
    needed = np.array(sorted({d for m in multi for d in m} | {d for pair in result.pairs for d in pair}))
    id_lists = shingle_id_batch([docs[d] for d in needed], 5)
    sets = Ragged.from_counts(np.concatenate(id_lists), np.array([len(x) for x in id_lists]))

    def similar(pairs: list[tuple[int, int]]) -> np.ndarray:
        local = np.searchsorted(needed, np.asarray(pairs, dtype=np.int64).reshape(-1, 2))
        return jaccard_of_pairs(sets, local) >= THRESHOLD

    family_pairs = [(a, b) for m in multi for i, a in enumerate(m) for b in m[i + 1 :]]
    truth = [pair for pair, ok in zip(family_pairs, similar(family_pairs)) if ok]
    missed = [pair for pair in truth if cluster_of[pair[0]] != cluster_of[pair[1]]]
    found = len(truth) - len(missed)
    missed_local = np.searchsorted(needed, np.asarray(missed, dtype=np.int64).reshape(-1, 2))
    missed_j = jaccard_of_pairs(sets, missed_local)
    verified_ok = int(similar(result.pairs).sum())

    rng = np.random.default_rng(7)
    left, right = rng.integers(0, len(docs), size=(2, 1_000_000))
    origin_arr = np.asarray(origin)
    cross = origin_arr[left] != origin_arr[right]
    merged_across = int((cluster_of[left[cross]] == cluster_of[right[cross]]).sum())
    mixed = sum(len({origin[d] for d in c}) > 1 for c in result.clusters)

    return {
        "documents": len(docs),
        "generate_s": generate_s,
        "dedup_s": dedup_s,
        "stages": {name: round(stage["seconds"], 2) for name, stage in result.stats.items()},
        "candidates": int(result.stats["candidates"]["pairs"]),
        "verified": int(result.stats["verified"]["pairs"]),
        "exact_copies": int(result.stats["exact"]["copies"]),
        "truth_pairs": len(truth),
        "missed": len(missed),
        "missed_max_jaccard": float(missed_j.max()) if len(missed) else None,
        "capped_buckets": int(result.stats["verified"].get("capped_buckets", 0)),
        "not_checked": int(result.stats["verified"].get("not_checked", 0)),
        "recall": found / len(truth) if truth else 1.0,
        "precision": verified_ok / len(result.pairs) if result.pairs else 1.0,
        "cross_family_sampled": int(cross.sum()),
        "cross_family_merged": merged_across,
        "clusters_mixing_families": mixed,
        "bands_rows": [result.params["bands"], result.params["rows"]],
        "peak_rss_mb": peak_main,
        "texts_mb": texts_mb,
        "above_texts_mb": above_texts["peak_mb"],
        "peak_worker_mb": peak_worker,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--million", action="store_true", help="also run 1,000,000 documents")
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--scheme", default="one-permutation")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_one(args.child, args.n_jobs, args.scheme)))
        return

    from common import machine_line

    sizes = args.sizes + ([1_000_000] if args.million else [])
    print(machine_line())
    print(
        f"dedup(threshold={THRESHOLD}, num_perm=128, k=5, scheme={args.scheme!r}, n_jobs={args.n_jobs}); "
        "documents from make_corpus(seed=2024)\n"
    )
    header = (
        f"{'docs':>9s} {'gen s':>7s} {'dedup s':>8s} {'peak MB':>8s} {'cands':>9s} {'verified':>9s} "
        f"{'truth':>9s} {'recall':>7s} {'precision':>9s} {'x-family merged':>16s}"
    )
    print(header)
    for size in sizes:
        child = subprocess.run(
            [
                sys.executable,
                __file__,
                "--child",
                str(size),
                "--n-jobs",
                str(args.n_jobs),
                "--scheme",
                args.scheme,
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        r = json.loads(child.stdout)
        peak = r["peak_rss_mb"]
        print(
            f"{r['documents']:9d} {r['generate_s']:7.1f} {r['dedup_s']:8.1f} {peak:8.0f} "
            f"{r['candidates']:9d} "
            f"{r['verified']:9d} {r['truth_pairs']:9d} {r['recall']:7.4f} {r['precision']:9.4f} "
            f"{r['cross_family_merged']:>7d} of {r['cross_family_sampled']}"
        )
        print(
            f"{'':9s} stages (s): {r['stages']}; bands x rows {r['bands_rows']}; "
            f"clusters mixing families: {r['clusters_mixing_families']}; "
            f"peak resident MB of a worker process (shared pages included): {r['peak_worker_mb']:.0f}"
        )
        print(
            f"{'':9s} memory of this process and its workers: the generated texts {r['texts_mb']:.0f} MB; "
            f"dedup at its peak {r['above_texts_mb']:.0f} MB above them"
        )
        print(
            f"{'':9s} true pairs missed: {r['missed']} (recall {r['recall']:.6f}; the most similar missed "
            f"pair: {r['missed_max_jaccard']}); buckets capped: {r['capped_buckets']}, "
            f"pairs not checked: {r['not_checked']}"
        )


if __name__ == "__main__":
    main()
