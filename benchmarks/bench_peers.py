"""End to end against the peers, side by side: texts in memory to clusters, cluster recall.

Usage (from the repository root; `make bench-peers` sets up the peers' environment first):
    .venv/bin/python benchmarks/bench_peers.py --peers-python benchmarks/.peers/bin/python

One corpus for everyone: 300-word news-like articles, 80 % originals and 20 % planted
near-copies (one edit each, `neardup_lab.corpus.apply_edit`), written once to a JSONL file.
Each system runs in a fresh child process that reads the file and is timed from the list of
texts in memory to a cluster label per document, so peak memory is its own. datatrove and
text-dedup run with the peers' interpreter (their dependencies stay out of the project's
requirements); the rest with this one.

"peak MB" is the peak resident memory of the process that runs the system; worker
processes it starts are not counted (neardup_lab's and text-dedup's share its pages,
datatrove's run their own stages).

With ``--rounds N`` every system runs N times, the rounds interleaved (every system once,
then every system again), so that a busy spell of the host falls on all of them alike; the
table gives each system's median time and, in brackets, its fastest and slowest, and the
ratios are of medians. Scores are those of the first round (the labels of every round are
compared with it, and a difference is reported).

Scores, all against the same truth (pairs of one family whose exact Jaccard of normalised
word 5-shingles is at least 0.8):
    recall      share of true pairs whose two documents end in one cluster
    removed     documents a system would drop (all but one per cluster)
    no partner  removed documents that have no partner at 0.8 at all: dropped by mistake
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

THRESHOLD, NUM_PERM, K = 0.8, 128, 5
HERE = Path(__file__).resolve().parent
README = HERE / "README.md"
BEGIN, END = "<!-- bench-peers: begin -->", "<!-- bench-peers: end -->"

#: name -> (runs with the peers' interpreter?, what it is)
SYSTEMS = {
    "neardup_lab one-permutation, n_jobs=1": (False, "dedup(scheme='one-permutation', n_jobs=1)"),
    "neardup_lab one-permutation, n_jobs=2": (False, "dedup(scheme='one-permutation', n_jobs=2)"),
    "neardup_lab multiply-shift, n_jobs=2": (False, "dedup(scheme='multiply-shift', n_jobs=2)"),
    "rensa": (False, "Python word 5-shingles, RMinHash, RMinHashLSH 16 bands, union of candidates"),
    "datasketch": (False, "Python word 5-shingles, MinHash.bulk, MinHashLSH (its 9 x 13), union"),
    "text-dedup": (True, "its embed_func over 2 processes, its 9 x 13 buckets and union-find"),
    "datatrove": (True, "MinhashDedupSignature/Buckets/Cluster, 14 x 8, 2 tasks"),
}


# --- the corpus and its truth (project interpreter) ------------------------------------------


def write_corpus(n_docs: int, path: Path) -> list[list[int]]:
    """Write ``n_docs`` texts as JSONL; return the families (lists of document numbers)."""
    import numpy as np

    from neardup_lab import make_corpus
    from neardup_lab.corpus import EDIT_KINDS, apply_edit

    n_copies = n_docs // 5
    originals = make_corpus(n_docs - n_copies, seed=2026, copies=(0, 0)).docs
    rng = np.random.default_rng(2026)
    sources = rng.integers(0, len(originals), size=n_copies)
    kinds = rng.integers(0, len(EDIT_KINDS), size=n_copies)
    texts = list(originals)
    family: dict[int, list[int]] = {}
    for n, (source, kind) in enumerate(zip(sources.tolist(), kinds.tolist())):
        texts.append(apply_edit(originals[source], EDIT_KINDS[kind], seed=n))
        family.setdefault(source, [source]).append(len(texts) - 1)
    with path.open("w", encoding="utf-8") as out:
        for text in texts:
            out.write(json.dumps({"text": text}) + "\n")
    return list(family.values())


def true_pairs(texts: list[str], families: list[list[int]]) -> list[tuple[int, int]]:
    """Pairs within a family whose exact Jaccard (normalised word 5-shingles) is at least 0.8."""
    from neardup_lab import jaccard, word_shingles

    found = []
    for members in families:
        sets = {d: word_shingles(texts[d], K) for d in members}
        found += [
            (a, b)
            for i, a in enumerate(members)
            for b in members[i + 1 :]
            if jaccard(sets[a], sets[b]) >= THRESHOLD
        ]
    return found


# --- the systems (each in its own child process) --------------------------------------------


def _union_labels(n: int, pairs) -> list[int]:
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    return [find(x) for x in range(n)]


def run_neardup(texts: list[str], scheme: str, n_jobs: int) -> list[int]:
    from neardup_lab import dedup

    result = dedup(texts, threshold=THRESHOLD, num_perm=NUM_PERM, k=K, scheme=scheme, n_jobs=n_jobs)
    labels = [0] * len(texts)
    for label, members in enumerate(result.clusters):
        for doc in members:
            labels[doc] = label
    return labels


def _python_shingles(text: str) -> list[str]:
    from neardup_lab import word_shingles

    return list(word_shingles(text, K))


def _lsh_union(n: int, insert, query) -> list[int]:
    for doc in range(n):
        insert(doc)
    return _union_labels(n, ((doc, other) for doc in range(n) for other in query(doc) if other != doc))


def run_rensa(texts: list[str]) -> list[int]:
    from rensa import RMinHash, RMinHashLSH

    sketches = []
    for text in texts:
        sketch = RMinHash(num_perm=NUM_PERM, seed=42)
        sketch.update(_python_shingles(text))
        sketches.append(sketch)
    lsh = RMinHashLSH(threshold=THRESHOLD, num_perm=NUM_PERM, num_bands=16)
    return _lsh_union(len(texts), lambda d: lsh.insert(d, sketches[d]), lambda d: lsh.query(sketches[d]))


def run_datasketch(texts: list[str]) -> list[int]:
    from datasketch import MinHash, MinHashLSH

    sets = [[s.encode("utf-8") for s in _python_shingles(text)] for text in texts]
    sketches = MinHash.bulk(sets, num_perm=NUM_PERM)
    lsh = MinHashLSH(threshold=THRESHOLD, num_perm=NUM_PERM)
    return _lsh_union(len(texts), lambda d: lsh.insert(d, sketches[d]), lambda d: lsh.query(sketches[d]))


def _text_dedup_embed(args: tuple[int, list[str], dict]) -> list[tuple[int, list[bytes]]]:
    from text_dedup.minhash import SIGNATURE_COLUMN, embed_func

    start, texts, options = args
    return [(start + i, embed_func(t, start + i, **options)[SIGNATURE_COLUMN]) for i, t in enumerate(texts)]


def run_text_dedup(texts: list[str]) -> list[int]:
    """text-dedup's MinHash script, driven in memory: its defaults (SHA-1, 64-bit config,
    5-grams, minimum 5 tokens) with 128 permutations and threshold 0.8."""
    from collections import defaultdict
    from multiprocessing import get_context

    import numpy as np
    from text_dedup.minhash import RNG
    from text_dedup.utils import optimal_param

    dtype, max_hash, prime = np.uint64, np.uint32((1 << 32) - 1), np.uint64((1 << 61) - 1)
    bands, rows = optimal_param(THRESHOLD, NUM_PERM, false_positive_weight=0.5, false_negative_weight=0.5)
    options = {
        "num_perm": NUM_PERM,
        "ngram_size": K,
        "min_length": 5,
        "hashranges": [(i * rows, (i + 1) * rows) for i in range(bands)],
        "permutations": (
            RNG.randint(1, prime, size=(NUM_PERM,), dtype=dtype),
            RNG.randint(0, prime, size=(NUM_PERM,), dtype=dtype),
        ),
        "hash_func": _sha1_32,
        "dtype": dtype,
        "max_hash": max_hash,
        "modulo_prime": prime,
    }
    step = 2000
    jobs = [(s, texts[s : s + step], options) for s in range(0, len(texts), step)]
    tables: list[dict[bytes, list[int]]] = [defaultdict(list) for _ in range(bands)]
    with get_context("fork").Pool(2) as pool:
        for part in pool.imap(_text_dedup_embed, jobs):
            for doc, keys in part:
                for band, key in enumerate(keys):
                    tables[band][key].append(doc)
    edges = (
        (doc, min(group)) for table in tables for group in table.values() if len(group) > 1 for doc in group
    )
    return _union_labels(len(texts), edges)


def _sha1_32(data: bytes) -> int:
    from text_dedup.utils import sha1_hash

    return sha1_hash(data, d=32)


def run_datatrove(texts: list[str], work: Path) -> list[int]:
    """datatrove's three MinHash stages on a local executor, 2 tasks, its default 14 x 8."""
    import struct

    from datatrove.data import Document
    from datatrove.executor.local import LocalPipelineExecutor
    from datatrove.pipeline.dedup.minhash import (
        MinhashConfig,
        MinhashDedupBuckets,
        MinhashDedupCluster,
        MinhashDedupSignature,
    )

    tasks = 2
    config = MinhashConfig()

    def reader(data, rank: int = 0, world_size: int = 1):
        for doc in range(rank, len(texts), world_size):
            yield Document(text=texts[doc], id=str(doc))

    stages = [
        ([reader, MinhashDedupSignature(output_folder=str(work / "sigs"), config=config)], tasks),
        ([MinhashDedupBuckets(str(work / "sigs"), str(work / "buckets"), config=config)], config.num_buckets),
        (
            [
                MinhashDedupCluster(
                    str(work / "buckets"), str(work / "clusters"), config=config, save_cluster_id=True
                )
            ],
            1,
        ),
    ]
    for number, (pipeline, n_tasks) in enumerate(stages):
        LocalPipelineExecutor(
            pipeline,
            tasks=n_tasks,
            workers=tasks,
            logging_dir=str(work / f"logs{number}"),
            start_method="fork",
        ).run()
    labels = list(range(len(texts)))
    for rank in range(tasks):
        path = work / "clusters" / f"{rank:06d}.clusters"
        if path.exists():
            data = path.read_bytes()
            for doc, cluster in struct.iter_unpack("<II", data):
                labels[rank + doc * tasks] = len(texts) + cluster
    return labels


def child(system: str, corpus: Path, out: Path) -> None:
    texts = [json.loads(line)["text"] for line in corpus.open(encoding="utf-8")]
    started = time.perf_counter()
    if system.startswith("neardup_lab"):
        labels = run_neardup(texts, system.split()[1].rstrip(","), int(system[-1]))
    elif system == "rensa":
        labels = run_rensa(texts)
    elif system == "datasketch":
        labels = run_datasketch(texts)
    elif system == "text-dedup":
        labels = run_text_dedup(texts)
    elif system == "datatrove":
        with tempfile.TemporaryDirectory() as work:
            labels = run_datatrove(texts, Path(work))
    else:
        raise SystemExit(f"unknown system {system!r}; choose from {sorted(SYSTEMS)}")
    seconds = time.perf_counter() - started
    peak = _peak_mb()
    out.write_text(json.dumps({"seconds": seconds, "labels": labels, "peak_mb": peak}))


def _peak_mb() -> float:
    """Peak resident memory of this process, in MB. Read from /proc where it exists: the
    resource module's figure survives exec, so it would include the parent that started us."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# --- the parent: run everything, score, print, update the README ----------------------------


def score(labels: list[int], truth: list[tuple[int, int]]) -> dict:
    from collections import Counter

    sizes = Counter(labels)
    partnered = {d for pair in truth for d in pair}
    seen: set[int] = set()
    removed = no_partner = 0
    for doc, label in enumerate(labels):
        if label in seen:
            removed += 1
            no_partner += doc not in partnered
        seen.add(label)
    found = sum(labels[a] == labels[b] for a, b in truth)
    return {
        "recall": found / len(truth) if truth else 1.0,
        "removed": removed,
        "no_partner": no_partner,
        "clusters": sum(1 for s in sizes.values() if s > 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20_000, 100_000])
    parser.add_argument("--peers-python", help="interpreter with datatrove and text-dedup installed")
    parser.add_argument("--systems", nargs="+", default=list(SYSTEMS))
    parser.add_argument("--rounds", type=int, default=1, help="runs of every system, interleaved")
    parser.add_argument("--update-readme", action="store_true", help="write the table into README.md")
    parser.add_argument("--child", nargs=3, metavar=("SYSTEM", "CORPUS", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]), Path(args.child[2]))
        return

    sys.path.insert(0, str(HERE))
    from common import machine_line

    print(machine_line())
    rows: dict[str, dict[int, dict]] = {name: {} for name in args.systems}
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            corpus = Path(tmp) / f"corpus{size}.jsonl"
            families = write_corpus(size, corpus)
            texts = [json.loads(line)["text"] for line in corpus.open(encoding="utf-8")]
            truth = true_pairs(texts, families)
            print(f"\n{size:,} documents, {len(truth):,} true pairs at >= {THRESHOLD}", flush=True)
            for round_ in range(1, args.rounds + 1):
                for name in args.systems:
                    result = _run_system(name, corpus, Path(tmp) / "out.json", args.peers_python)
                    if result is not None:
                        _record(rows[name], size, result, truth, f"round {round_}  {name}")
    for by_size in rows.values():
        for r in by_size.values():
            r["seconds"], r["labels"] = statistics.median(r["all"]), None
    table = markdown_table(rows, args.sizes, args.rounds)
    print("\n" + table)
    if args.update_readme:
        text = README.read_text(encoding="utf-8")
        head, rest = text.split(BEGIN, 1)
        README.write_text(head + BEGIN + "\n" + table + "\n" + END + rest.split(END, 1)[1], encoding="utf-8")
        print(f"\nupdated {README.name}")


def _run_system(name: str, corpus: Path, out: Path, peers_python: str | None) -> dict | None:
    """One run of one system in a child process: its result, or None (said why) if it did not run."""
    peer, _ = SYSTEMS[name]
    python = peers_python if peer else sys.executable
    if python is None:
        print(f"  {name:40s} skipped: no --peers-python given")
        return None
    run = subprocess.run([python, __file__, "--child", name, str(corpus), str(out)], capture_output=True)
    if run.returncode:
        tail = run.stderr.decode(errors="replace").strip().splitlines()[-3:]
        print(f"  {name:40s} FAILED: {' | '.join(tail)}")
        return None
    return json.loads(out.read_text())


def _record(by_size: dict[int, dict], size: int, result: dict, truth: list, label: str) -> None:
    """Add one run to a system's row: its time; its scores if it is the first run."""
    if size not in by_size:
        by_size[size] = {**score(result["labels"], truth), **result, "all": []}
    r = by_size[size]
    if result["labels"] != r["labels"]:
        print(f"  {label}: other clusters than in the first round")
    r["all"].append(result["seconds"])
    r["peak_mb"] = max(r["peak_mb"], result["peak_mb"])
    print(
        f"  {label:50s} {result['seconds']:7.1f} s  peak {result['peak_mb']:6.0f} MB  "
        f"recall {r['recall']:.3f}  removed {r['removed']:,} (no partner: {r['no_partner']:,})",
        flush=True,
    )


def _seconds(r: dict) -> str:
    """The median time, with the fastest and slowest run when there were several."""
    if len(r["all"]) == 1:
        return f"{r['seconds']:.1f}"
    return f"{r['seconds']:.1f} ({min(r['all']):.1f}-{max(r['all']):.1f})"


def markdown_table(rows: dict[str, dict[int, dict]], sizes: list[int], rounds: int = 1) -> str:
    from common import machine_line

    big = max(sizes)
    head = " | ".join(f"{s:,} docs s" for s in sizes)
    runs = (
        "each system in a fresh process"
        if rounds == 1
        else f"each system {rounds} times, rounds interleaved, each run in a fresh process; "
        "median seconds (fastest-slowest), ratios of medians"
    )
    lines = [
        f"{machine_line()}; {time.strftime('%Y-%m-%d')}; {runs}.",
        "",
        f"| system | {head} | vs neardup_lab n_jobs=1 ({big:,}) | peak MB ({big:,}) "
        f"| cluster recall ({big:,}) | removed without a partner ({big:,}) | what it runs |",
        "|---|" + "---:|" * (len(sizes) + 4) + "---|",
    ]
    reference = rows.get("neardup_lab one-permutation, n_jobs=1", {}).get(big, {}).get("seconds")
    for name, by_size in rows.items():
        if big not in by_size:
            continue
        r = by_size[big]
        times = " | ".join(_seconds(by_size[s]) if s in by_size else "-" for s in sizes)
        ratio = f"{r['seconds'] / reference:.1f}x the time" if reference else "-"
        lines.append(
            f"| {name} | {times} | {ratio} | {r['peak_mb']:.0f} | {r['recall']:.4f} | {r['no_partner']:,} "
            f"| {SYSTEMS[name][1]} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    main()
