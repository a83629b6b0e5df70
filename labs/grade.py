"""Grade handed-in lab notebooks, unattended: run each one afresh, then score every check.

Usage (from a clone of the repository, with its environment)::

    python labs/grade.py --csv grades.csv submissions/*.ipynb
    python labs/grade.py --csv grades.csv --keep graded/ --check-timeout 60 submissions/*/*.ipynb

For each notebook:

1. A fresh kernel runs the code cells top to bottom in the notebook's folder, as the
   student handed it in. A failing cell does not stop the run. A cell that runs past
   ``--cell-timeout`` is interrupted; if it does not stop (a bare ``except:`` inside
   ``while True`` swallows the interrupt), the kernel is killed, a new one re-runs the
   cells that had finished, and the run goes on after the cell that hung. Printed
   output is kept up to ``--output-cap`` characters per cell.
2. The checks run in *this* process, which imported them before any student code ran;
   the student's functions stay in the kernel and are called through a local socket
   (``neardup_lab.checks.remote``), whose replies can hold data only. So nothing a
   notebook does (``checks.grade = lambda ...``, patching a check) changes its grade.
   The checks run in grading mode: with extra cases the notebook never showed
   (other seeds, another hidden corpus).
3. Each check has ``--check-timeout`` seconds. A check that runs past it scores 0, the
   kernel is killed and replaced, and the next check goes on. Each result is printed and
   appended to the log (``--log``, JSON lines) as soon as it is known, so an interrupted
   run keeps every finished check.
4. Points: each check is worth ``checks.POINTS[name]``, shared evenly among its cases
   (partial credit). An answer that *is* the package's reference function scores 0.

The whole notebook has ``--notebook-timeout`` seconds; past it the kernel is killed and
what is left scores 0. The CSV has one row per notebook and one column per check.
The written questions are not graded: their column is left for the teacher.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import queue
import re
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat
from jupyter_client.manager import start_new_kernel

from neardup_lab import checks
from neardup_lab.checks import remote

SERVE = (
    "from neardup_lab.checks.remote import serve as _grading_serve\n"
    "_grading_serve({port}, {token!r}, globals())"
)
PROBLEMS = ("timeout", "not run", "reference", "not defined")  # statuses the CSV names in its last column
INTERRUPT_GRACE = 5.0  # seconds a kernel gets to stop after an interrupt before it is killed


@dataclass
class CheckScore:
    """The grade of one check."""

    check: str
    status: str  # pass, fail, not implemented, not answered, not defined, timeout, not run, reference
    points: float
    max_points: float
    cases_passed: int = 0
    cases: int = 0
    failing_cases: list[str] = field(default_factory=list)
    report: str = ""
    seconds: float = 0.0


@dataclass
class NotebookGrade:
    """The grade of one notebook."""

    notebook: str
    lab: str
    scores: list[CheckScore] = field(default_factory=list)
    cell_problems: list[str] = field(default_factory=list)
    error: str = ""

    @property
    def points(self) -> float:
        return round(sum(s.points for s in self.scores), 2)

    @property
    def max_points(self) -> float:
        return float(sum(checks.POINTS[name] for name in checks.LABS.get(self.lab, {})))


def lab_of(nb: nbformat.NotebookNode | None, path: Path) -> str:
    """The lab id, ``"lab01"`` ..., from the notebook's metadata or its file name."""
    lab = nb.metadata.get("neardup_lab", {}).get("lab") if nb is not None else None
    if lab in checks.LABS:
        return lab
    match = re.search(r"lab[ _-]?0*(\d+)", path.name, re.IGNORECASE)
    if not match or f"lab{int(match.group(1)):02d}" not in checks.LABS:
        raise ValueError(f"{path}: cannot tell which lab this is (no metadata, no 'labNN' in the name)")
    return f"lab{int(match.group(1)):02d}"


# ------------------------------------------------------------ the kernel


class _Outputs:
    """A cell's outputs, with printed text cut at ``cap`` characters."""

    def __init__(self, cap: int) -> None:
        self.cap, self.kept, self.dropped, self.items = cap, 0, 0, []

    def add(self, msg: dict) -> None:
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream":
            text = content["text"]
            room = max(self.cap - self.kept, 0)
            self.kept += min(len(text), room)
            self.dropped += max(len(text) - room, 0)
            if room and self.items and self.items[-1].get("name") == content["name"]:
                self.items[-1]["text"] += text[:room]
            elif room:
                self.items.append(nbformat.v4.new_output("stream", name=content["name"], text=text[:room]))
        elif kind in ("execute_result", "display_data", "error"):
            size = len(json.dumps(content))
            if self.kept + size > self.cap:
                self.dropped += size
                return
            self.kept += size
            self.items.append(nbformat.v4.output_from_msg(msg))

    def finish(self) -> list:
        if self.dropped:
            note = f"\n[grading: {self.dropped:,} more characters of output were not kept]\n"
            self.items.append(nbformat.v4.new_output("stream", name="stderr", text=note))
        return self.items


class Kernel:
    """One Jupyter kernel running one notebook, with deadlines that end in a kill if need be."""

    def __init__(self, folder: Path, output_cap: int) -> None:
        self.folder, self.output_cap = folder, output_cap
        self.manager = self.client = None
        self.start()

    def start(self) -> None:
        self.manager, self.client = start_new_kernel(
            startup_timeout=60, kernel_name="python3", cwd=str(self.folder)
        )

    def kill(self) -> None:
        if self.client is not None:
            self.client.stop_channels()
        if self.manager is not None:
            with contextlib.suppress(Exception):
                self.manager.shutdown_kernel(now=True)
        self.manager = self.client = None

    def drain(self) -> None:
        """Read and drop the kernel's output (so that a chatty kernel cannot fill memory)."""
        if self.client is None:
            return
        with contextlib.suppress(queue.Empty):
            for _ in range(10_000):
                self.client.get_iopub_msg(timeout=0)

    def submit(self, source: str) -> str:
        return self.client.execute(source, store_history=True, allow_stdin=False)

    def run(self, source: str, timeout: float) -> tuple[str, list]:
        """Run one cell; return (``ok`` | ``error`` | ``interrupted`` | ``killed``, outputs)."""
        msg_id = self.submit(source)
        outputs = _Outputs(self.output_cap)
        deadline, interrupted, status = time.monotonic() + timeout, False, "ok"
        while True:
            if time.monotonic() > deadline:
                if interrupted:
                    self.kill()
                    return "killed", outputs.finish()
                self.manager.interrupt_kernel()
                interrupted, deadline = True, time.monotonic() + INTERRUPT_GRACE
            try:
                msg = self.client.get_iopub_msg(timeout=0.2)
            except queue.Empty:
                if not self.manager.is_alive():
                    self.kill()
                    return "killed", outputs.finish()
                continue
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                return ("interrupted" if interrupted else status), outputs.finish()
            if msg["msg_type"] == "error":
                status = "error"
            outputs.add(msg)


# ------------------------------------------------------------ one notebook


class Grader:
    """Runs one notebook in a kernel, then its lab's checks against it."""

    def __init__(self, path: Path, options: argparse.Namespace, log) -> None:
        self.path, self.options, self.log = path, options, log
        self.nb = nbformat.read(path, as_version=4)
        self.lab = lab_of(self.nb, path)
        self.grade = NotebookGrade(str(path), self.lab)
        self.deadline = time.monotonic() + options.notebook_timeout
        self.replay: list[str] = []  # cells that finished, to re-run in a new kernel
        self.kernel: Kernel | None = None

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def run(self) -> NotebookGrade:
        try:
            self.kernel = Kernel(self.path.parent.resolve(), self.options.output_cap)
            self.run_cells()
            self.run_checks()
        except Exception as exc:  # the kernel could not start, or died: report it, grade what we have
            self.grade.error = f"{type(exc).__name__}: {exc}".splitlines()[0]
        finally:
            if self.kernel is not None:
                self.kernel.kill()
        done = {s.check for s in self.grade.scores}
        why = self.grade.error or "the notebook's time was up"
        for name in checks.LABS[self.lab]:
            if name not in done:
                self.record(CheckScore(name, "not run", 0.0, checks.POINTS[name], report=f"not run: {why}"))
        return self.grade

    def run_cells(self) -> None:
        for number, cell in enumerate(self.nb.cells, start=1):
            if cell.cell_type != "code":
                continue
            cell.execution_count, cell.outputs = None, []
            if self.left() <= 0:
                self.grade.cell_problems.append(f"cell {number}: not run, the notebook's time was up")
                continue
            status, outputs = self.kernel.run(cell.source, min(self.options.cell_timeout, self.left()))
            cell.outputs = outputs
            if status in ("ok", "error"):
                self.replay.append(cell.source)
            else:
                self.grade.cell_problems.append(f"cell {number}: {status} after the time limit")
            if status == "killed":
                self.restart()

    def restart(self) -> None:
        """A new kernel that has run every cell that had finished (their outputs are not kept again)."""
        self.kernel.kill()
        self.kernel = Kernel(self.path.parent.resolve(), self.options.output_cap)
        for source in self.replay:
            if self.left() <= 0:
                return
            status, _ = self.kernel.run(source, min(self.options.cell_timeout, self.left()))
            if status == "killed":
                self.kernel = Kernel(self.path.parent.resolve(), self.options.output_cap)

    def connect(self) -> remote.Kernel:
        server, port, token = remote.Kernel.listen()
        try:
            self.kernel.submit(SERVE.format(port=port, token=token))
            deadline = time.monotonic() + min(30.0, max(self.left(), 0))
            return remote.Kernel.accept(server, token, deadline, wait=self.kernel.drain)
        finally:
            server.close()

    def run_checks(self) -> None:
        link = None
        with checks.grading_mode():
            for name, answer_name in checks.LABS[self.lab].items():
                if self.left() <= 0:
                    break
                started = time.monotonic()
                try:
                    if link is None:
                        if self.kernel.client is None:  # killed after the last check's timeout
                            self.restart()
                        link = self.connect()
                    link.deadline = time.monotonic() + min(self.options.check_timeout, self.left())
                    score = score_check(name, link.answer(answer_name))
                except (remote.DeadlineExceeded, remote.KernelGone, OSError) as exc:
                    score = CheckScore(
                        name, "timeout", 0.0, checks.POINTS[name], report=f"FAIL {name}: {exc}"
                    )
                    with contextlib.suppress(Exception):
                        link.sock.close()
                    link = None
                    self.kernel.kill()
                score.seconds = round(time.monotonic() - started, 2)
                self.record(score)
        if link is not None:
            link.close()

    def record(self, score: CheckScore) -> None:
        self.grade.scores.append(score)
        line = f"  {self.lab} {score.check}: {score.status}, {score.points:g} of {score.max_points:g} points"
        print(line, flush=True)
        if self.log is not None:
            entry = {"notebook": self.grade.notebook, "lab": self.lab, **asdict(score)}
            self.log.write(json.dumps(entry) + "\n")
            self.log.flush()

    def keep(self, folder: Path) -> None:
        """Save the executed notebook with every check's report in a last cell."""
        report = "\n\n".join(s.report for s in self.grade.scores)
        cell = nbformat.v4.new_code_cell("# grading reports (added by grade.py)")
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=report + "\n")]
        self.nb.cells.append(cell)
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(self.nb, folder / self.path.name)


def score_check(name: str, answer: object) -> CheckScore:
    """Run check ``name`` on ``answer`` (a proxy or a value); points shared by its cases."""
    points = checks.POINTS[name]
    if answer is remote.MISSING:
        return CheckScore(name, "not defined", 0.0, points, report=f"FAIL {name}: not defined")
    module = getattr(answer, "__module__", "") or ""
    if callable(answer) and module.split(".")[0] == "neardup_lab":
        note = f"FAIL {name}: the answer is the package's own {module}.{answer.__name__}, not code of yours"
        return CheckScore(name, "reference", 0.0, points, report=note)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        result = getattr(checks, name)(answer)
    passed = 0 if result.missing else result.cases - len(result.failures)
    status = result.status if not result.missing.startswith("not answered") else "not answered"
    share = round(points * passed / result.cases, 2) if result.cases else 0.0
    return CheckScore(
        name,
        status,
        share,
        points,
        passed,
        result.cases,
        [f.case for f in result.failures],
        printed.getvalue(),
    )


# ------------------------------------------------------------ the command


def write_csv(path: Path, grades: list[NotebookGrade]) -> None:
    """One row per notebook, one column of points per check of every lab graded."""
    names = [n for lab in checks.LABS for n in checks.LABS[lab] if any(g.lab == lab for g in grades)]
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["notebook", "lab", "points", "max_points", *names, "questions", "problems"])
        for g in grades:
            by_name = {s.check: s for s in g.scores}
            cells = [f"{by_name[n].points:g}" if n in by_name else "" for n in names]
            problems = "; ".join(
                [f"{s.check}: {s.status}" for s in g.scores if s.status in PROBLEMS]
                + g.cell_problems
                + ([g.error] if g.error else [])
            )
            writer.writerow([g.notebook, g.lab, f"{g.points:g}", f"{g.max_points:g}", *cells, "", problems])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run handed-in lab notebooks and grade their checks.")
    parser.add_argument("notebooks", nargs="+", type=Path, help="handed-in .ipynb files")
    parser.add_argument("--csv", type=Path, help="write the grades to this CSV file")
    parser.add_argument("--log", type=Path, help="append each check's result to this JSON-lines file")
    parser.add_argument("--keep", type=Path, help="save the executed notebooks in this folder")
    parser.add_argument("--cell-timeout", type=float, default=120, help="seconds per cell (default 120)")
    parser.add_argument("--check-timeout", type=float, default=120, help="seconds per check (default 120)")
    parser.add_argument(
        "--notebook-timeout", type=float, default=900, help="seconds per notebook, all in (default 900)"
    )
    parser.add_argument(
        "--output-cap", type=int, default=20_000, help="characters of output kept per cell (default 20000)"
    )
    args = parser.parse_args(argv)

    grades: list[NotebookGrade] = []
    log = args.log.open("a", encoding="utf-8") if args.log else None
    try:
        for path in args.notebooks:
            print(f"{path}:", flush=True)
            try:
                grader = Grader(path, args, log)
            except (OSError, ValueError, nbformat.ValidationError) as exc:
                with contextlib.suppress(ValueError):  # the file name may still say which lab
                    lab = "?"
                    lab = lab_of(None, path)
                grades.append(NotebookGrade(str(path), lab, error=str(exc).splitlines()[0]))
                print(f"  cannot grade: {grades[-1].error}")
            else:
                grade = grader.run()
                if args.keep:
                    grader.keep(args.keep)
                grades.append(grade)
                print(f"  {grade.lab}: {grade.points:g} of {grade.max_points:g} points", flush=True)
            if args.csv:
                write_csv(args.csv, grades)  # rewritten after every notebook: a stopped run keeps them
    finally:
        if log is not None:
            log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
