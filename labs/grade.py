"""Grade handed-in lab notebooks, unattended: run each one afresh, then score every check.

Usage (from a clone of the repository, with its environment)::

    python labs/grade.py --csv grades.csv submissions/*.ipynb
    python labs/grade.py --csv grades.csv --keep graded/ --check-timeout 60 submissions/*/*.ipynb

For each notebook:

0. Every notebook is read first. Each then runs in a sandbox of its own (bubblewrap:
   see :func:`bwrap_argv`): a fresh temporary folder with a copy of the notebook and of
   the lab data, no network, nothing of the clone but the package, no other hand-in. The
   sandbox is killed, everything it started with it, before the next notebook. Without
   bubblewrap grading stops unless ``--unsafe-no-sandbox`` is given.
1. A fresh kernel runs the code cells top to bottom in that folder, as the
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
   (partial credit). An answer that *is* the package's reference function scores 0, and the
   kernel never has the lab's reference answers (``checks.REFERENCES``): it sees the package
   with their bodies replaced by one that raises (see :func:`withheld_sources`), so a
   hand-in that wraps one, by whatever name it reaches it, fails its cases.

The whole notebook has ``--notebook-timeout`` seconds; past it the kernel is killed and
what is left scores 0. The CSV has one row per notebook and one column per check; it is
written once, at the end (or when the run is stopped), from this process's records.
The written questions are not graded: their column is left for the teacher.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import csv
import importlib.util
import io
import json
import os
import queue
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager

from neardup_lab import checks
from neardup_lab.checks import remote

# The kernel's side of the link to the checks, over a Unix socket (a sandbox has no network):
# serve() connects with socket.create_connection, so it is handed one that opens the socket file.
SERVE = """
import socket as _grading_socket, types as _grading_types
from neardup_lab.checks import remote as _grading_remote
def _grading_connect(_address, _path={path!r}):
    _sock = _grading_socket.socket(_grading_socket.AF_UNIX)
    _sock.connect(_path)
    return _sock
_grading_remote.socket = _grading_types.SimpleNamespace(create_connection=_grading_connect)
_grading_remote.serve(0, {token!r}, globals())
"""
# statuses the CSV names in its last column
PROBLEMS = ("timeout", "not run", "reference", "not defined", "missing", "error")
HUNG = (remote.DeadlineExceeded, remote.KernelGone, ConnectionError, TimeoutError)  # -> "timeout"
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


# ------------------------------------------------------------ the sandbox

ROOT = Path(__file__).resolve().parents[1]
# neardup_lab/: the only folder of the clone a kernel sees
PACKAGE = Path(checks.__file__).resolve().parents[1]
# the data of the student zip (tools/make_labs.py), copied afresh for each hand-in
LAB_DATA = {"data/licences": ROOT / "book" / "data" / "licences"}
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64")
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/localtime", "/etc/fonts")
NAMESPACES = (
    *("--unshare-all", "--unshare-user", "--uid", "65534", "--gid", "65534", "--cap-drop", "ALL"),
    *("--die-with-parent", "--new-session"),
)


def bwrap_problem() -> str:
    """Why bubblewrap cannot sandbox a kernel on this machine, or ``""`` when it can.

    >>> isinstance(bwrap_problem(), str)
    True
    """
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed"
    try:
        done = subprocess.run(
            [bwrap, *NAMESPACES, "--ro-bind", "/", "/", "true"], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap does not run: {exc}"
    if done.returncode:
        return f"bwrap cannot make a sandbox here: {done.stderr.strip() or f'exit status {done.returncode}'}"
    return ""


class Workspace:
    """One hand-in's private temporary folder, removed after its kernel is dead.

    ``work`` (the kernel's working folder: a copy of the notebook and a fresh copy of the
    lab data), ``home`` and ``run`` (the kernel's sockets) are writable in the sandbox;
    ``connection`` is read-only there; ``spec`` and the kernel's log are not visible.
    ``withheld`` keeps the package's files with the lab's answers taken out (see
    :func:`withheld_sources`): in the sandbox each is mounted over the package's own file.
    With ``copy_package`` (no sandbox) the kernel imports, from ``python_path``, a copy of
    the package that has those files instead.

    >>> space = Workspace("kim-lab01.ipynb", b"{}", {Path("text.py"): "x = 1"})
    >>> sorted(p.name for p in space.work.iterdir()), [str(p) for p, _ in space.overlays()]
    (['data', 'kim-lab01.ipynb'], ['text.py'])
    >>> space.remove()
    """

    def __init__(
        self, name: str, content: bytes, withheld: dict[Path, str] | None = None, copy_package: bool = False
    ) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="grade-"))
        self.work, self.home, self.run, self.connection, self.spec, self.withheld = (
            self.root / part for part in ("work", "home", "run", "connection", "spec", "withheld")
        )
        for folder in (self.work, self.home, self.run, self.connection, self.spec, self.withheld):
            folder.mkdir()
        self.starts = 0
        (self.work / Path(name).name).write_bytes(content)
        for target, source in LAB_DATA.items():
            if source.is_dir():
                shutil.copytree(source, self.work / target)
        self.python_path = PACKAGE.parent
        folders = [self.withheld]
        if copy_package:
            self.python_path = self.root / "package"
            copy = shutil.ignore_patterns("__pycache__")
            shutil.copytree(PACKAGE, self.python_path / PACKAGE.name, ignore=copy)
            folders.append(self.python_path / PACKAGE.name)
        for relative, source in (withheld or {}).items():
            for folder in folders:
                (folder / relative).parent.mkdir(parents=True, exist_ok=True)
                (folder / relative).write_text(source, encoding="utf-8")

    def overlays(self) -> list[tuple[Path, Path]]:
        """Each withheld file: its path in the package, and where it is kept."""
        return sorted((path.relative_to(self.withheld), path) for path in self.withheld.rglob("*.py"))

    def log_tail(self) -> str:
        """The kernel's last line on stderr (why it did not start)."""
        log = self.root / "kernel.log"
        lines = log.read_text(encoding="utf-8", errors="replace").split("\n") if log.exists() else []
        return next((line.strip() for line in reversed(lines) if line.strip()), "")

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def python_folders() -> list[Path]:
    """The Python environment a kernel needs: the virtual environment and the Python it points to.

    >>> Path(sys.executable).resolve().parents[1] in python_folders()
    True
    """
    folders = {Path(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
    folders |= {folder.resolve() for folder in folders} | {Path(sys.executable).resolve().parents[1]}
    return sorted(folder for folder in folders if folder != Path("/"))


def kernel_env(space: Workspace) -> dict[str, str]:
    """The kernel's environment variables (in the sandbox, the only ones it has).

    >>> space = Workspace("kim-lab01.ipynb", b"{}")
    >>> kernel_env(space)["HOME"] == str(space.home)
    True
    >>> space.remove()
    """
    return {
        "HOME": str(space.home),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.defpath}",
        "PYTHONPATH": str(space.python_path),  # the grader's package (or its copy), whatever installed it
        "LANG": "C.UTF-8",
        "MPLCONFIGDIR": str(space.home / ".matplotlib"),
    }


def bwrap_argv(space: Workspace) -> list[str]:
    """The ``bwrap`` command a hand-in's kernel runs under, up to (not including) ``--``.

    Visible: the system's programs and libraries, the Python environment and the package's
    folder, all read-only; the hand-in's own folders. Not visible: the rest of the clone
    (solutions, the grader, the lab data), other hand-ins, the teacher's files. No network,
    no capability, its own PID namespace (killing it kills everything it started).
    """
    argv = [shutil.which("bwrap") or "bwrap", *NAMESPACES, "--clearenv"]
    for path in (*SYSTEM, *SYSTEM_FILES):
        argv += ["--ro-bind-try", path, path]
    argv += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    for folder in (*python_folders(), PACKAGE, space.connection):
        argv += ["--ro-bind", str(folder), str(folder)]
    for relative, kept in space.overlays():  # the lab's answers taken out, for every path to them
        argv += ["--ro-bind", str(kept), str(PACKAGE / relative)]
    for folder in (space.work, space.home, space.run):
        argv += ["--bind", str(folder), str(folder)]
    # JPY_PARENT_PID=1: no parent poller (--die-with-parent does that) and no console banner
    for name, value in {**kernel_env(space), "JPY_PARENT_PID": "1"}.items():
        argv += ["--setenv", name, value]
    return [*argv, "--chdir", str(space.work)]


def pid_namespaces(pid: int) -> set[str]:
    """The PID namespaces of the children of process ``pid`` that are not this process's own.

    >>> pid_namespaces(os.getpid())
    set()
    """
    own = os.readlink("/proc/self/ns/pid")
    found = set()
    with contextlib.suppress(OSError):
        for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
            with contextlib.suppress(OSError):
                found.add(os.readlink(f"/proc/{child}/ns/pid"))
    return found - {own}


def wait_until_empty(namespaces: set[str], timeout: float = 10.0) -> None:
    """Wait until no live process is left in ``namespaces``; raise if one outlives ``timeout`` seconds.

    A zombie (the sandbox's first process, until the system reaps it) runs nothing and is not waited for.
    """
    deadline = time.monotonic() + timeout
    while True:
        left = []
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{entry.name}/ns/pid") not in namespaces:
                        continue
                    state = Path(f"/proc/{entry.name}/stat").read_text().rsplit(")", 1)[1].split()[0]
                    if state not in ("Z", "X"):
                        left.append(entry.name)
        if not left:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"processes {', '.join(left)} of a killed sandbox are still running")
        time.sleep(0.05)


# ------------------------------------------------------------ the answers a kernel does not have

WITHHELD = "{name} is the answer of an exercise of this lab: it is not available in grading; write your own"
GRADED_OUTSIDE = "{name}: run by the grader, outside this notebook (its report is in the graded copy)"


def withheld_sources(lab: str) -> dict[Path, str]:
    """The package's files (paths relative to it) that a kernel grading ``lab`` sees instead of its own.

    In them each reference answer of the lab's checks (``checks.REFERENCES``: public
    functions and the checks' private ones) raises, and each check of the lab only says
    that the grader runs it. The package's other functions, which the lab uses, are as they
    were. Being the files themselves, they hold whichever way a hand-in reaches an answer:
    another name, an import inside a function, ``importlib.reload``, another Python process.

    >>> source = withheld_sources("lab06")[Path("checks/lab6_threshold.py")]
    >>> "write your own" in source.split("def _cost_at(")[1].split("\\ndef ")[0]
    True
    """
    bodies: dict[str, dict[str, str]] = {}
    for check in checks.LABS[lab]:
        for reference in checks.REFERENCES[check]:
            module, name = reference.split(":")
            message = WITHHELD.format(name=f"{module}.{name}")
            bodies.setdefault(module, {})[name] = f"raise RuntimeError({message!r})"
        home = getattr(checks, check).__module__
        bodies.setdefault(home, {})[check] = f"print({GRADED_OUTSIDE.format(name=check)!r})"
    files = {}
    for module, replaced in bodies.items():
        spec = importlib.util.find_spec(module)
        if spec is None or spec.origin is None:
            raise RuntimeError(f"checks.REFERENCES names {module}, which the package does not have")
        path = Path(spec.origin).resolve()
        files[path.relative_to(PACKAGE)] = replace_bodies(path.read_text(encoding="utf-8"), replaced)
    return files


def replace_bodies(source: str, bodies: dict[str, str]) -> str:
    """``source`` with the body of each top-level function or class named in ``bodies`` replaced.

    A function's body becomes the statement given; a class's, an ``__init__`` that runs it.

    >>> print(replace_bodies('@cache\\ndef f(x):\\n    "Doc."\\n    return x\\n', {"f": "raise KeyError"}))
    @cache
    def f(x):
        raise KeyError
    <BLANKLINE>
    """
    lines = source.splitlines(keepends=True)
    found = {
        node.name: node
        for node in ast.parse(source).body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in bodies
    }
    if set(found) != set(bodies):
        missing = ", ".join(sorted(set(bodies) - set(found)))
        raise ValueError(f"not defined at the top of the module: {missing}")
    for node in sorted(found.values(), key=lambda n: n.lineno, reverse=True):
        first = node.body[0]
        indent = lines[first.lineno - 1][: first.col_offset]
        if indent.strip():
            raise ValueError(f"{node.name}: its body does not start on a line of its own")
        statement = bodies[node.name]
        if isinstance(node, ast.ClassDef):
            statement = f"def __init__(self, *args, **kwargs):\n{indent}    {statement}"
        lines[first.lineno - 1 : node.end_lineno] = [f"{indent}{statement}\n"]
    return "".join(lines)


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
    """One Jupyter kernel running one notebook, with deadlines that end in a kill if need be.

    In a sandbox (see :func:`bwrap_argv`) the kernel is interrupted by a message, as a
    signal to ``bwrap`` would not reach it, and a kill takes down its whole PID namespace.
    """

    def __init__(self, space: Workspace, output_cap: int, sandbox: bool) -> None:
        self.space, self.output_cap, self.sandbox = space, output_cap, sandbox
        self.manager = self.client = None
        self.namespaces: set[str] = set()
        self.start()

    def start(self) -> None:
        space = self.space
        space.starts += 1
        command = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
        spec = {
            "argv": [*bwrap_argv(space), "--", *command] if self.sandbox else command,
            "display_name": "grading",
            "language": "python",
            "interrupt_mode": "message" if self.sandbox else "signal",
        }
        (space.spec / "grading").mkdir(parents=True, exist_ok=True)
        (space.spec / "grading" / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
        self.manager = KernelManager(
            kernel_name="grading",
            kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(space.spec)]),
            transport="ipc",  # sockets in a folder: they reach into a sandbox that has no network
            ip=str(space.run / "kernel"),
            connection_file=str(space.connection / f"kernel-{space.starts}.json"),
        )
        # bwrap itself gets a bare environment: its own (readable in the sandbox) must hold nothing
        env = {"PATH": os.defpath} if self.sandbox else {**os.environ, **kernel_env(space)}
        with (space.root / "kernel.log").open("ab") as log:
            self.manager.start_kernel(cwd=str(space.work), env=env, stdout=subprocess.DEVNULL, stderr=log)
        self.client = self.manager.client()
        self.client.start_channels()
        try:
            self.client.wait_for_ready(timeout=60)
        except RuntimeError as exc:
            self.kill()
            raise RuntimeError(f"the kernel did not start: {space.log_tail() or exc}") from None
        if self.sandbox:  # the namespace of bwrap's child, to wait for when the kernel is killed
            self.namespaces = pid_namespaces(self.manager.provisioner.pid)

    def kill(self) -> None:
        """Kill the kernel and, in a sandbox, wait until no process of its namespace is left."""
        if self.client is not None:
            self.client.stop_channels()
        if self.manager is not None:
            with contextlib.suppress(Exception):
                self.manager.shutdown_kernel(now=True)
        self.manager = self.client = None
        if self.namespaces:
            wait_until_empty(self.namespaces)
            self.namespaces = set()

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

    def __init__(
        self, path: Path, content: bytes, options: argparse.Namespace, log, sandbox: bool = True
    ) -> None:
        self.path, self.content, self.options, self.log, self.sandbox = path, content, options, log, sandbox
        self.nb = nbformat.reads(content.decode("utf-8"), as_version=4)
        self.lab = lab_of(self.nb, path)
        self.grade = NotebookGrade(str(path), self.lab)
        self.deadline = time.monotonic() + options.notebook_timeout
        self.replay: list[str] = []  # cells that finished, to re-run in a new kernel
        self.kernel: Kernel | None = None
        self.space: Workspace | None = None

    def new_kernel(self) -> Kernel:
        return Kernel(self.space, self.options.output_cap, self.sandbox)

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def run(self) -> NotebookGrade:
        try:
            withheld = withheld_sources(self.lab)
            self.space = Workspace(self.path.name, self.content, withheld, copy_package=not self.sandbox)
            self.kernel = self.new_kernel()
            self.run_cells()
            self.run_checks()
        except Exception as exc:  # the kernel could not start, or died: report it, grade what we have
            self.grade.error = f"{type(exc).__name__}: {exc}".splitlines()[0]
        finally:
            if self.kernel is not None:
                self.kernel.kill()  # in a sandbox: returns once every process it started is dead
            if self.space is not None:
                self.space.remove()
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
        self.kernel = self.new_kernel()
        for source in self.replay:
            if self.left() <= 0:
                return
            status, _ = self.kernel.run(source, min(self.options.cell_timeout, self.left()))
            if status == "killed":
                self.kernel = self.new_kernel()

    def connect(self) -> remote.Kernel:
        token = secrets.token_hex(16)
        path = self.space.run / f"checks-{token[:8]}.sock"
        server = socket.socket(socket.AF_UNIX)
        try:
            server.bind(str(path))
            server.listen(1)
            self.kernel.submit(SERVE.format(path=str(path), token=token))
            deadline = time.monotonic() + min(30.0, max(self.left(), 0))
            return remote.Kernel.accept(server, token, deadline, wait=self.kernel.drain)
        finally:
            server.close()
            path.unlink(missing_ok=True)

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
                except FileNotFoundError as exc:  # a file the check itself reads: missing, not a timeout
                    score = CheckScore(
                        name, "missing", 0.0, checks.POINTS[name], report=f"FAIL {name}: {exc}"
                    )
                except (remote.DeadlineExceeded, remote.KernelGone, OSError) as exc:
                    status = "timeout" if isinstance(exc, HUNG) else "error"
                    score = CheckScore(name, status, 0.0, checks.POINTS[name], report=f"FAIL {name}: {exc}")
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
    parser.add_argument(
        "--unsafe-no-sandbox",
        action="store_true",
        help="run the kernels without bubblewrap: only for notebooks you trust (see labs/README.md)",
    )
    args = parser.parse_args(argv)
    # The grader's cases and reference answers: here, never in the student wheel or a kernel.
    checks.load_grading(Path(__file__).resolve().parent / "grading")

    problem = "--unsafe-no-sandbox was given" if args.unsafe_no_sandbox else bwrap_problem()
    if problem and not args.unsafe_no_sandbox:
        print(
            f"grade.py: {problem}. Without a sandbox a hand-in can change other hand-ins, the grades and "
            "the grader, and read the solutions. Install bubblewrap (Debian, Ubuntu: apt-get install "
            "bubblewrap) or, for notebooks you trust only, pass --unsafe-no-sandbox.",
            file=sys.stderr,
        )
        return 2
    if problem:
        print(
            "WARNING: grading without a sandbox: each hand-in can reach the files and processes of "
            "whoever runs grade.py.",
            file=sys.stderr,
        )
    handed_in = read_all(args.notebooks)  # before any kernel runs: no hand-in can change another

    grades: list[NotebookGrade] = []
    log = args.log.open("a", encoding="utf-8") if args.log else None
    try:
        for path, content in handed_in.items():
            print(f"{path}:", flush=True)
            try:
                if isinstance(content, str):
                    raise OSError(content)
                grader = Grader(path, content, args, log, sandbox=not problem)
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
    finally:
        if log is not None:
            log.close()
        # only now, every kernel of the run dead, from this process's records (a stopped run keeps them)
        if args.csv:
            write_csv(args.csv, grades)
    return 0


def read_all(paths: list[Path]) -> dict[Path, bytes | str]:
    """Each hand-in's bytes, or why it cannot be read (``"missing: ..."`` for a file that is not there).

    >>> read_all([Path("no-such-lab01.ipynb")])
    {PosixPath('no-such-lab01.ipynb'): 'missing: no such file no-such-lab01.ipynb'}
    """
    found: dict[Path, bytes | str] = {}
    for path in paths:
        try:
            found[path] = path.read_bytes()
        except FileNotFoundError:
            found[path] = f"missing: no such file {path}"
        except OSError as exc:
            found[path] = f"cannot read {path}: {exc.strerror or exc}"
    return found


if __name__ == "__main__":
    sys.exit(main())
