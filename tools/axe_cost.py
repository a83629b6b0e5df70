"""Measure what the accessibility check adds to the browser stage of ``make test``.

Runs, in turns, the browser tests that carry axe-core (``tests/test_browser.py`` and
``tests/test_browser_axe.py``) and ``tests/test_browser.py`` alone with axe switched off
(its page checks unchanged), and prints each wall time and the difference. Needs the
built book (``make book``). Usage::

    .venv/bin/python tools/axe_cost.py            # two runs of each
    .venv/bin/python tools/axe_cost.py --runs 3

The switch is a pytest plugin written to a temporary folder for the run: it replaces
the two axe calls of ``test_browser.py`` by ones that find nothing and keeps axe-core
out of its pages. Nothing in the tests themselves can turn axe off.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_PLUGIN = '''
import pytest

@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    import test_browser
    test_browser.AXE = None  # no axe-core loaded into the pages either
    test_browser.start_audit = lambda tab: []
    test_browser.audit_result = lambda tab: []
'''


def _timed(args: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "browser", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"pytest {' '.join(args)} failed:\n{done.stdout[-3000:]}{done.stderr[-2000:]}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2, help="runs of each, taken in turns (default 2)")
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "axe_off_plugin.py").write_text(_PLUGIN, encoding="utf-8")
        path = os.pathsep.join(filter(None, [folder, os.environ.get("PYTHONPATH")]))
        off_env = {**os.environ, "PYTHONPATH": path}
        with_axe, without = [], []
        for run in range(runs):
            with_axe.append(_timed(["tests/test_browser.py", "tests/test_browser_axe.py"], dict(os.environ)))
            without.append(_timed(["-p", "axe_off_plugin", "tests/test_browser.py"], off_env))
            print(f"run {run + 1}: with axe {with_axe[-1]:.1f} s, without {without[-1]:.1f} s", flush=True)
    added = [a - b for a, b in zip(with_axe, without)]
    print(
        f"axe-core adds {statistics.median(added):.1f} s (median of {runs}; "
        f"range {min(added):.1f}-{max(added):.1f} s) on {os.cpu_count()} cores"
    )


if __name__ == "__main__":
    main()
