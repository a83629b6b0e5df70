"""Grade handed-in lab notebooks: run each one afresh, then run every check of its lab.

Usage (from a clone of the repository, with its environment)::

    python labs/grade.py submissions/*.ipynb
    python labs/grade.py --csv grades.csv --keep executed/ submissions/*/*.ipynb

Each notebook is executed top to bottom in its own folder, with a fresh kernel,
as the student handed it in; a cell that fails does not stop the run. Then one
more cell calls ``neardup_lab.checks.grade(lab, globals())``, which runs every
check of the lab on the student's functions (found by name), whatever the
notebook's own outputs said. The lab is read from the notebook's metadata, or
else from a file name such as ``lab03...``.

The notebook files are not changed; ``--keep DIR`` saves the executed copies
(with the checks' reports at the end) for reading.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

MARKER = "NEARDUP-LAB-GRADE "
GRADING_CELL = """\
import json as _grading_json
from neardup_lab import checks as _grading_checks
print({marker!r} + _grading_json.dumps(_grading_checks.grade({lab!r}, globals()).as_dict()))
"""


def lab_of(nb: nbformat.NotebookNode, path: Path) -> str:
    """The lab id, ``"lab01"`` ..., from the notebook's metadata or its file name."""
    lab = nb.metadata.get("neardup_lab", {}).get("lab")
    if lab:
        return lab
    match = re.search(r"lab[ _-]?0*(\d+)", path.name, re.IGNORECASE)
    if not match:
        raise ValueError(f"{path}: cannot tell which lab this is (no metadata, no 'labNN' in the name)")
    return f"lab{int(match.group(1)):02d}"


def grade_notebook(path: Path, timeout: int = 600, keep: Path | None = None) -> dict:
    """Execute one notebook plus the grading cell; return the grading result as plain data."""
    nb = nbformat.read(path, as_version=4)
    lab = lab_of(nb, path)
    nb.cells.append(nbformat.v4.new_code_cell(GRADING_CELL.format(marker=MARKER, lab=lab)))
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        allow_errors=True,
        interrupt_on_timeout=True,
        resources={"metadata": {"path": str(path.parent.resolve())}},
    )
    result = {"notebook": str(path), "lab": lab, "passed": 0, "total": 0, "checks": {}, "error": ""}
    try:
        client.execute()
    except Exception as exc:  # the kernel died or could not start: report, keep going
        result["error"] = f"{type(exc).__name__}: {exc}".splitlines()[0]
    for output in nb.cells[-1].get("outputs", []):
        if output.output_type == "stream":
            for line in output.text.splitlines():
                if line.startswith(MARKER):
                    result.update(json.loads(line[len(MARKER) :]))
        elif output.output_type == "error" and not result["error"]:
            result["error"] = f"grading failed: {output.ename}: {output.evalue}"
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, keep / path.name)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run handed-in lab notebooks and their checks.")
    parser.add_argument("notebooks", nargs="+", type=Path, help="handed-in .ipynb files")
    parser.add_argument("--csv", type=Path, help="also write the grades to this CSV file")
    parser.add_argument("--keep", type=Path, help="save the executed notebooks in this folder")
    parser.add_argument("--timeout", type=int, default=600, help="seconds allowed per cell (default 600)")
    args = parser.parse_args(argv)

    results = []
    for path in args.notebooks:
        result = grade_notebook(path, args.timeout, args.keep)
        failing = [name for name, ok in result["checks"].items() if not ok]
        line = f"{path}: {result['lab']}, {result['passed']} of {result['total']} checks pass"
        if failing:
            line += f"; failing: {', '.join(failing)}"
        if result["error"]:
            line += f" [{result['error']}]"
        print(line)
        results.append({**result, "failing": " ".join(failing)})

    if args.csv:
        with args.csv.open("w", newline="", encoding="utf-8") as out:
            writer = csv.writer(out)
            writer.writerow(["notebook", "lab", "passed", "total", "failing", "error"])
            for r in results:
                writer.writerow([r["notebook"], r["lab"], r["passed"], r["total"], r["failing"], r["error"]])
    return 0


if __name__ == "__main__":
    sys.exit(main())
