"""The package's own tests, run in the browser's Python: Pyodide under Node.js, offline.

The page runs ``neardup_lab`` on Pyodide 0.27.7 (32-bit WebAssembly, its own numpy 2.0.2, no
threads, no processes). This runs the test suite there, on the very files the site ships:
the Pyodide and the package wheel that ``tools/lite_site.py prepare`` staged, pytest and
hypothesis from the wheels pinned (with their sums) in ``tools/lite-requirements.txt``.
Test modules and tests that need what the page lacks are skipped with their reason
(``tests/conftest.py``: ``NATIVE_ONLY``, the ``native`` marker); the counts and every reason are
printed. A failure in Pyodide fails the run.

Usage (``make pyodide`` does both steps)::

    python tools/lite_site.py prepare
    python tools/pyodide_tests.py [PYTEST ARGS ...]

``--stage`` first copies the staged files (and does nothing else), ``--staged`` runs on the copy:
``make test`` runs the tests beside the book build and its browser pass, which stage anew.

Needs Node.js (Debian's ``nodejs``) and the staged Pyodide; without either the run is skipped
with a message, except under ``CI=true``, where that fails.
"""

from __future__ import annotations

import collections
import json
import os
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lite_site  # noqa: E402 (a sibling script, not a package)

ROOT = lite_site.ROOT
PYODIDE = lite_site.LITE_SRC / "static" / "pyodide"
WORK = ROOT / "_build" / "pyodide-tests"
STAGED = WORK / "pyodide"
RUNNER = ROOT / "tools" / "pyodide_tests.js"
#: The pinned wheels (of tools/lite-requirements.txt) that pytest needs in Pyodide.
TEST_WHEELS = ("pytest", "pluggy", "iniconfig", "hypothesis", "attrs", "sortedcontainers")
#: pytest's arguments inside Pyodide (the checkout is mounted at /repo), for each of two runs:
#: the test modules, then the package's doctests (the wheel the page installs), each with a report.
#: The doctests load tests/conftest.py as a plugin for its list of what runs natively only.
COMMON_ARGS = ["-q", "-p", "no:cacheprovider", "--capture=sys"]
COMMON_ARGS += ["--rootdir=/repo", "-c", "/repo/pyproject.toml"]
RUNS = {
    "tests": ["-m", "not browser", "-rfE", "/repo/tests"],
    "doctests": ["-p", "conftest", "--doctest-modules", "--pyargs", "neardup_lab"],
}


def unpack_test_wheels(dest: Path) -> list[str]:
    """Unzip the pinned test wheels into ``dest`` (a folder for ``sys.path``); their file names."""
    wheels = lite_site.fetch()
    chosen = [path for pin, path in wheels.items() if pin.split("==")[0] in TEST_WHEELS]
    if len(chosen) != len(TEST_WHEELS):
        pinned = lite_site.REQUIREMENTS.name
        raise SystemExit(f"pyodide_tests: {pinned} must pin each of {', '.join(TEST_WHEELS)}")
    shutil.rmtree(dest, ignore_errors=True)
    for wheel in chosen:
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(dest)
    return sorted(path.name for path in chosen)


def summary(report: Path) -> tuple[collections.Counter, collections.Counter]:
    """Counts of outcomes (passed, failed, error, skipped) and of skip reasons in a junit report."""
    outcomes: collections.Counter = collections.Counter()
    reasons: collections.Counter = collections.Counter()
    for case in ET.parse(report).getroot().iter("testcase"):
        children = {child.tag: child for child in case}
        if "skipped" in children:
            outcomes["skipped"] += 1
            reasons[children["skipped"].get("message", "").removeprefix("Skipped: ")] += 1
        elif "failure" in children:
            outcomes["failed"] += 1
        elif "error" in children:
            outcomes["error"] += 1
        else:
            outcomes["passed"] += 1
    return outcomes, reasons


def stage() -> list[str]:
    """Copy the staged Pyodide into WORK (the book build stages it anew meanwhile) and unpack the
    test wheels; the wheels' names."""
    shutil.rmtree(STAGED, ignore_errors=True)
    shutil.copytree(PYODIDE, STAGED)
    return unpack_test_wheels(WORK / "site")


def main(argv: list[str]) -> int:
    """``--stage``: only copy the files; ``--staged``: only run (on files copied before); else both.
    Other arguments go to pytest."""
    mode = argv[0] if argv[:1] in (["--stage"], ["--staged"]) else None
    argv = argv[1:] if mode else argv
    node = shutil.which("node") or shutil.which("nodejs")
    missing = None
    if node is None:
        missing = "Node.js not found (apt-get install nodejs)"
    elif not ((STAGED if mode == "--staged" else PYODIDE) / "pyodide-lock.json").is_file():
        missing = "no Pyodide staged (`python tools/lite_site.py prepare` could not fetch it)"
    if missing:
        print(f"pyodide_tests: {missing}; the Pyodide run is SKIPPED", file=sys.stderr)
        return 1 if os.environ.get("CI", "").lower() == "true" else 0
    if mode != "--staged":
        wheels = stage()
        print(f"pyodide_tests: Pyodide {lite_site.PYODIDE_VERSION} staged, with {', '.join(wheels)}")
    if mode == "--stage":
        return 0
    started, exit_codes = time.monotonic(), []
    outcomes: collections.Counter = collections.Counter()
    reasons: collections.Counter = collections.Counter()
    for name, args in RUNS.items():
        report = WORK / f"{name}.xml"
        report.unlink(missing_ok=True)
        pytest_args = [*COMMON_ARGS, f"--junitxml=/repo/{report.relative_to(ROOT).as_posix()}", *args, *argv]
        command = [node, str(RUNNER), str(STAGED), str(ROOT), str(WORK / "site"), json.dumps(pytest_args)]
        run = subprocess.run(command)
        exit_codes.append(run.returncode)
        if not report.is_file():
            print(f"pyodide_tests: the {name} run wrote no report (exit {run.returncode})", file=sys.stderr)
            return run.returncode or 1
        counts, why = summary(report)
        outcomes.update(counts)
        reasons.update(why)
    counts = ", ".join(f"{outcomes[key]} {key}" for key in ("passed", "failed", "error", "skipped"))
    print(f"\npyodide_tests: in Pyodide, {counts} in {time.monotonic() - started:.0f} s; skipped, by reason:")
    for reason, count in sorted(reasons.items(), key=lambda item: (-item[1], item[0])):
        print(f"  {count:4d}  {reason}")
    return max(exit_codes)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
