"""Every entry point before and after a change, side by side in one run.

The package as it was at an older commit (``--before``, default: the last commit
before the shared kernels) is unpacked into a temporary folder; each workload runs
in a fresh process against the old and the new package, alternately, and the best of
``--repeat`` runs is kept, with the most memory that run's process and its workers
held above the generated texts (sampled every second). Workloads (``--workloads``
picks some): ``dedup`` with one and two processes (classic and one-permutation), the
saved index (build, then query a second batch) and the command line on a JSONL file.

    python benchmarks/bench_before_after.py --docs 20000
    python benchmarks/bench_before_after.py --docs 1000000 --repeat 1 --workloads dedup-oph-2
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKLOADS = ("dedup-classic-1", "dedup-oph-1", "dedup-oph-2", "index-build-query", "cli-dedup")

CHILD = r"""
import gc, json, sys, time
workload, n_docs, folder = sys.argv[1], int(sys.argv[2]), sys.argv[3]
sys.path.insert(0, sys.argv[4])
from common import memory_peak_above_now
from neardup_lab import dedup, make_corpus
docs = make_corpus(n_docs * 2 // 5, seed=2024, copies=(0, 3)).docs[:n_docs]
half = len(docs) // 2
gc.collect()
memory = memory_peak_above_now(every=1.0)
above = memory.__enter__()
started = time.perf_counter()
if workload.startswith("dedup"):
    _, scheme, jobs = workload.split("-")
    result = dedup(docs, scheme="one-permutation" if scheme == "oph" else "multiply-shift",
                   n_jobs=int(jobs), progress=False)
    answer = len(result.clusters)
elif workload == "index-build-query":
    from neardup_lab.index.store import SavedIndex
    from neardup_lab import Settings  # every version exports it at the top
    index = SavedIndex(Settings())
    index.add([str(i) for i in range(half)], docs[:half])
    answer = sum(len(m) > 0 for m in index.query(docs[half:]))
else:
    from neardup_lab.cli.main import main
    main(["dedup", folder + "/docs.jsonl", "--out", folder + "/out.jsonl", "--quiet"])
    answer = sum(1 for _ in open(folder + "/out.jsonl"))
seconds = time.perf_counter() - started
memory.__exit__(None, None, None)
import neardup_lab
report = {"seconds": seconds, "peak_mb": above["peak_mb"], "answer": answer}
print(json.dumps({**report, "from": neardup_lab.__file__}))
"""


def unpack(rev: str, into: Path) -> Path:
    """The package at ``rev``, unpacked under ``into``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "neardup_lab"], check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def run(package_parent: Path, workload: str, n_docs: int, folder: str) -> dict:
    """One timed run of ``workload`` in a fresh process importing the package from ``package_parent``."""
    env = {**os.environ, "PYTHONPATH": str(package_parent)}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, workload, str(n_docs), folder, str(Path(__file__).parent)],
        check=True, capture_output=True, text=True, env=env, cwd=folder,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="b54d3f5", help="commit to compare against")
    parser.add_argument("--docs", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workloads", nargs="+", choices=WORKLOADS, default=list(WORKLOADS))
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).parent))
    from common import machine_line

    print(machine_line())
    print(f"{args.docs:,} documents, make_corpus(seed=2024); best of {args.repeat}; before: {args.before}")
    with tempfile.TemporaryDirectory() as tmp:
        old = unpack(args.before, Path(tmp) / "before")
        folder = Path(tmp) / "work"
        folder.mkdir()
        if "cli-dedup" in args.workloads:
            from neardup_lab import make_corpus

            docs = make_corpus(args.docs * 2 // 5, seed=2024, copies=(0, 3)).docs[: args.docs]
            with open(folder / "docs.jsonl", "w", encoding="utf-8") as f:
                f.writelines(json.dumps({"text": d}) + "\n" for d in docs)
            del docs
        header = f"{'workload':20s} {'before s':>9s} {'after s':>8s} {'after/before':>13s}"
        print(header, f"{'before MB':>10s} {'after MB':>9s}  answers (before, after)")
        for workload in args.workloads:
            best = {"before": float("inf"), "after": float("inf")}
            answers, peak = {}, {}
            for _ in range(args.repeat):
                for side, parent in (("before", old), ("after", ROOT)):
                    r = run(parent, workload, args.docs, str(folder))
                    if r["seconds"] < best[side]:
                        best[side], peak[side] = r["seconds"], r["peak_mb"]
                    answers[side] = r["answer"]
            ratio = best["after"] / best["before"]
            print(
                f"{workload:20s} {best['before']:9.2f} {best['after']:8.2f} {ratio:13.2f} "
                f"{peak['before']:10.0f} {peak['after']:9.0f}  {answers['before']}, {answers['after']}"
            )
        print("MB: the most memory the run's process and its workers held above the generated texts")


if __name__ == "__main__":
    main()
