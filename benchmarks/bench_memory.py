"""Peak memory of dedup on long documents: one 10 MB document per scheme, and 200 x 200k words.

Each case runs in a fresh process. Memory is the peak resident set during
``dedup`` minus the resident set just before it (the interpreter, numpy and the
texts themselves), read from the kernel's high-water mark, which is reset first.
The target is under 500 MB for each case, whatever the scheme.

    python benchmarks/bench_memory.py
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

CASES = [
    ("one 10 MB document", "multiply-shift", 1, 1_400_000),
    ("one 10 MB document", "mod-prime", 1, 1_400_000),
    ("one 10 MB document", "one-permutation", 1, 1_400_000),
    ("200 documents x 200k words", "multiply-shift", 200, 200_000),
]


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":"))


def run_case(scheme: str, n_docs: int, n_words: int) -> dict:
    """Make the texts, reset the high-water mark, dedup, and report the peak above the start."""
    import numpy as np

    from neardup_lab import dedup

    rng = np.random.default_rng(1)
    vocabulary = np.array([f"w{i}" for i in range(50_000)])
    texts = [" ".join(vocabulary[rng.integers(0, len(vocabulary), n_words)]) for _ in range(n_docs)]
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset VmHWM, the peak resident set
    before = _status_kb("VmRSS")
    started = time.perf_counter()
    dedup(texts, scheme=scheme, progress=False)
    return {
        "bytes": sum(len(t) for t in texts),
        "seconds": time.perf_counter() - started,
        "peak_mb": (_status_kb("VmHWM") - before) / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        scheme, n_docs, n_words = args.child
        print(json.dumps(run_case(scheme, int(n_docs), int(n_words))))
        return
    from common import machine_line

    print(machine_line())
    print(f"{'case':28s} {'scheme':16s} {'MB of text':>10s} {'seconds':>8s} {'peak MB above start':>20s}")
    for label, scheme, n_docs, n_words in CASES:
        out = subprocess.run(
            [sys.executable, __file__, "--child", scheme, str(n_docs), str(n_words)],
            check=True, capture_output=True, text=True,
        ).stdout
        r = json.loads(out)
        print(f"{label:28s} {scheme:16s} {r['bytes'] / 1e6:10.1f} {r['seconds']:8.1f} {r['peak_mb']:20.0f}")


if __name__ == "__main__":
    main()
