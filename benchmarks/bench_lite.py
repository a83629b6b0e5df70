"""dedup in the page's Python (JupyterLite, Pyodide, in headless Chromium) beside the same run natively.

Usage (from the repository root, after ``make book`` built the site with its live parts)::

    .venv/bin/python benchmarks/bench_lite.py                # 10^4 documents, 3 rounds each
    .venv/bin/python benchmarks/bench_lite.py --docs 2000 --rounds 1

The same code runs twice: here, in a fresh Python process, then in the site's console
(``lite/repl``), served from ``_build/html`` on 127.0.0.1 with every other host blocked.
The two runs do not overlap, so each has the machine to itself (the page's Python runs on
one thread in a web worker; native ``dedup`` runs with ``n_jobs=1`` too). Each side makes
the corpus once and times ``dedup`` ``--rounds`` times; the table gives the medians and the
ratio, and both sides must find the same clusters (a digest of them is compared).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from common import machine_line  # noqa: E402

CODE = """
import hashlib, json, time
from neardup_lab import dedup, make_corpus
docs, origin, edits = make_corpus({docs}, seed={seed})
for _ in range({rounds}):
    start = time.perf_counter()
    result = dedup(docs)
    seconds = time.perf_counter() - start
    clusters = hashlib.sha256(json.dumps(result.clusters).encode()).hexdigest()[:16]
    print("BENCH", len(docs), round(seconds, 4), clusters)
print("BENCH-DONE")
"""


def parse(lines: list[str]) -> tuple[int, list[float], set[str]]:
    """Documents, seconds per round, and cluster digests from the ``BENCH`` lines."""
    rows = [line.split() for line in lines if line.startswith("BENCH ")]
    return int(rows[0][1]), [float(row[2]) for row in rows], {row[3] for row in rows}


def run_native(code: str) -> list[str]:
    """The lines ``code`` prints in a fresh Python process here."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    return done.stdout.splitlines()


def run_in_page(code: str, timeout_ms: int) -> tuple[list[str], float]:
    """The lines ``code`` prints in the site's console, and the seconds to its first line."""
    from browser_support import SITE, Visit, launch_chromium, serve_site

    if not (SITE / "lite" / "jupyter-lite.json").is_file():
        sys.exit("bench_lite: _build/html/lite is missing: run `make book` first")
    query = urllib.parse.urlencode({"kernel": "python", "execute": "1", "code": code})
    outputs = "() => Array.from(document.querySelectorAll('.jp-OutputArea-output')).map((el) => el.innerText)"
    with (
        serve_site() as url,
        launch_chromium() as browser,
        Visit(browser, f"{url}lite/repl/index.html?{query}") as visit,
    ):
        started = time.monotonic()
        visit.page.wait_for_selector(".jp-OutputArea-output", timeout=timeout_ms)
        first = time.monotonic() - started
        visit.page.wait_for_function(
            """() => Array.from(document.querySelectorAll('.jp-OutputArea-output'))
                .some((el) => /BENCH-DONE|Error:/.test(el.innerText))""",
            timeout=timeout_ms,
        )
        texts = visit.page.evaluate(outputs)
        blocked = [p for p in visit.problems if "external request" in p]
    if blocked:
        sys.exit(f"bench_lite: the page asked other hosts: {blocked}")
    lines = [line for text in texts for line in text.splitlines()]
    if not any(line.startswith("BENCH ") for line in lines):
        sys.exit("bench_lite: the page printed no timing:\n" + "\n".join(texts)[-3000:])
    return lines, first


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=10_000, help="make_corpus size (default 10,000)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=3, help="timed dedup runs on each side")
    parser.add_argument("--timeout", type=float, default=900, help="seconds the page may take")
    args = parser.parse_args(argv)
    code = CODE.format(docs=args.docs, seed=args.seed, rounds=args.rounds)
    print(machine_line())
    native_docs, native_times, native_clusters = parse(run_native(code))
    page_lines, first = run_in_page(code, int(args.timeout * 1000))
    page_docs, page_times, page_clusters = parse(page_lines)
    if (native_docs, native_clusters) != (page_docs, page_clusters):
        sys.exit(f"bench_lite: different answers: native {native_clusters}, in the page {page_clusters}")
    native_median, page_median = statistics.median(native_times), statistics.median(page_times)
    print(f"make_corpus({args.docs:_}, seed={args.seed}): {native_docs:,} documents, same clusters")
    print(f"in the page, the first round ended {first:.1f} s after it loaded (Pyodide starting, make_corpus)")
    print(f"| where | dedup seconds (median of {args.rounds}) | rounds |")
    print("|---|---:|---|")
    print(f"| native (n_jobs=1) | {native_median:.2f} | {', '.join(f'{t:.2f}' for t in native_times)} |")
    print(f"| in the page (Pyodide) | {page_median:.2f} | {', '.join(f'{t:.2f}' for t in page_times)} |")
    print(f"in the page / native: {page_median / native_median:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
