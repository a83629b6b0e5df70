"""Big clusters and shared templates, side by side: dedup, the command line, the saved index,
and the datasketch and rensa pipelines of ``bench_peers.py`` on the same corpora.

Corpora (seeded; ``neardup_lab.corpus``): ``near_copies(n, 1)``, one 60-word story syndicated
n times with one word of it replaced in each copy; ``near_copies(n, 2)``, two words replaced;
``shared_template(n)``, 140 template words and 40 words of each page's own (no two pages are
near-duplicates). Each system runs in a fresh child process, timed from the texts in memory
(read from a JSONL file) to clusters; "MB" is the child's peak resident memory above what it
held once the texts were read. A run that takes more than ``--timeout`` seconds is stopped.
Where brute force is feasible (``--truth-up-to`` documents) every system is scored against
the pairs whose exact Jaccard of word 5-shingles is at least 0.8: pair recall, and removed
documents without any partner (dropped by mistake).

    .venv/bin/python benchmarks/bench_clusters.py
    .venv/bin/python benchmarks/bench_clusters.py --corpora copies1:5000 --systems dedup
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

THRESHOLD = 0.8
DEFAULT_CORPORA = [
    "copies1:5000", "copies1:20000", "copies1:50000",
    "copies2:5000", "copies2:20000", "template:5000", "template:20000",
]  # fmt: skip
SYSTEMS = ("dedup", "cli", "index build", "datasketch", "rensa")


def make(corpus: str, n: int) -> list[str]:
    from neardup_lab.corpus import near_copies, shared_template

    if corpus == "template":
        return shared_template(n, seed=1)
    return near_copies(n, replaced=int(corpus[-1]), seed=1)


def _vm(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1]) / 1024
    return 0.0


def child(system: str, corpus: Path, out: Path) -> None:
    """Run one system on the texts of ``corpus``; write seconds, memory, labels and counts to ``out``."""
    texts = [json.loads(line)["text"] for line in corpus.open(encoding="utf-8")]
    base = _vm("VmRSS:")
    counts: dict[str, float] = {}
    started = time.perf_counter()
    if system == "dedup":
        from neardup_lab import dedup

        result = dedup(texts, threshold=THRESHOLD)
        clusters = result.clusters
        counts = {
            k: result.stats["candidates"][k] for k in ("proposed", "pairs", "capped_buckets", "not_checked")
        }
        counts["verified"] = result.stats["verified"]["pairs"]
    elif system == "cli":
        from neardup_lab.cli.main import main

        clusters_out = corpus.with_suffix(".clusters.jsonl")
        status = main(
            ["dedup", str(corpus), "--out", str(clusters_out), "--threshold", str(THRESHOLD), "--quiet"]
        )
        if status:
            raise SystemExit(f"the command line exited with {status}")
        lines = clusters_out.open(encoding="utf-8")
        clusters = [[int(i.rsplit(":", 1)[1]) - 1 for i in json.loads(line)["ids"]] for line in lines]
        clustered = {doc for members in clusters for doc in members}
        clusters += [[doc] for doc in range(len(texts)) if doc not in clustered]
    elif system == "index build":
        from neardup_lab.index.store import SavedIndex
        from neardup_lab.settings import Settings

        index = SavedIndex(Settings(threshold=THRESHOLD))
        found = index.add([str(i) for i in range(len(texts))], texts)
        pairs = [(i, int(m.id)) for i, matches in enumerate(found) for m in matches]
        clusters = _clusters(len(texts), pairs)
        counts = {"capped_buckets": index.capped, "not_checked": index.not_checked, "verified": len(pairs)}
    else:
        from bench_peers import run_datasketch, run_rensa

        labels = (run_datasketch if system == "datasketch" else run_rensa)(texts)
        clusters = _clusters_from_labels(labels)
    seconds = time.perf_counter() - started
    out.write_text(
        json.dumps({"seconds": seconds, "mb": _vm("VmHWM:") - base, "clusters": clusters, **counts})
    )


def _clusters(n: int, pairs: list[tuple[int, int]]) -> list[list[int]]:
    from neardup_lab import clusters_from_pairs

    return clusters_from_pairs(n, pairs)


def _clusters_from_labels(labels: list[int]) -> list[list[int]]:
    groups: dict[int, list[int]] = {}
    for doc, label in enumerate(labels):
        groups.setdefault(label, []).append(doc)
    return list(groups.values())


def score(clusters: list[list[int]], truth: set[tuple[int, int]]) -> dict[str, float]:
    """Pair recall against ``truth`` and removed documents with no true partner."""
    label = {doc: c for c, members in enumerate(clusters) for doc in members}
    partnered = {d for pair in truth for d in pair}
    removed = [doc for members in clusters for doc in sorted(members)[1:]]
    found = sum(label[a] == label[b] for a, b in truth)
    return {
        "recall": found / len(truth) if truth else 1.0,
        "no_partner": sum(d not in partnered for d in removed),
    }


def run(system: str, corpus: Path, timeout: float) -> dict | None:
    out = corpus.with_suffix(".out.json")
    command = [sys.executable, __file__, "--child", system, str(corpus), str(out)]
    try:
        done = subprocess.run(
            command, capture_output=True, timeout=timeout, env={**os.environ, "PYTHONPATH": str(ROOT)}
        )
    except subprocess.TimeoutExpired:
        return {"timeout": timeout}
    if done.returncode:
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-2:]
        return {"failed": " | ".join(tail)}
    return json.loads(out.read_text())


def cell(value: object) -> str:
    if value is None or value == "":
        return ""
    return f"{value:,.0f}" if isinstance(value, (int, float)) else str(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpora", nargs="+", default=DEFAULT_CORPORA, help="NAME:SIZE, NAME in copies1, copies2, template"
    )
    parser.add_argument("--systems", nargs="+", default=list(SYSTEMS), choices=SYSTEMS)
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--truth-up-to", type=int, default=5000, help="largest corpus scored by brute force")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]), Path(args.child[2]))
        return
    from common import machine_line

    from neardup_lab import brute_force_pairs, word_shingles

    print(machine_line(), flush=True)
    columns = "corpus, documents, system, seconds, MB, proposed, checked, verified, clusters, capped buckets"
    header = "| " + " | ".join([*columns.split(", "), "not checked", "recall", "no partner"]) + " |"
    rows = [header, "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    with tempfile.TemporaryDirectory() as tmp:
        for spec in args.corpora:
            name, size = spec.split(":")
            texts = make(name, int(size))
            path = Path(tmp) / f"{name}-{size}.jsonl"
            with path.open("w", encoding="utf-8") as f:
                for text in texts:
                    f.write(json.dumps({"text": text}) + "\n")
            truth = None
            if len(texts) <= args.truth_up_to:
                truth = set(brute_force_pairs([word_shingles(t) for t in texts], THRESHOLD))
            for system in args.systems:
                found = run(system, path, args.timeout)
                if "timeout" in found or "failed" in found:
                    what = (
                        f"stopped after {args.timeout:.0f} s"
                        if "timeout" in found
                        else f"failed: {found['failed']}"
                    )
                    print(f"{spec:16} {system:12} {what}", flush=True)
                    rows.append(f"| {name} | {int(size):,} | {system} | {what} | | | | | | | | | |")
                    continue
                scores = score(found["clusters"], truth) if truth is not None else {}
                clusters = sum(1 for c in found["clusters"] if len(c) > 1)
                line = [name, f"{int(size):,}", system, f"{found['seconds']:.1f}", cell(found["mb"])]
                line += [cell(found.get(k)) for k in ("proposed", "pairs", "verified")]
                line += [cell(clusters), cell(found.get("capped_buckets")), cell(found.get("not_checked"))]
                line += [f"{scores['recall']:.3f}" if scores else "", cell(scores.get("no_partner", ""))]
                print(" ".join(line), flush=True)
                rows.append("| " + " | ".join(line) + " |")
    print("\n" + "\n".join(rows))


if __name__ == "__main__":
    main()
