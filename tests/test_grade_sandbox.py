"""Grading is isolated: a hostile hand-in graded next to honest ones changes nothing but its own mark.

The hostile hand-ins of issue 42 (a student notebook with one more cell per attack): editing a
classmate's hand-in, deleting another, deleting the lab's data, writing ``../PWNED.txt``,
appending to ``labs/grade.py``, running the solution cells found through
``neardup_lab.__file__``, a detached process that rewrites the CSV after ``grade.py`` exits,
and a connection to the teacher's machine. They are graded in one run between honest hand-ins,
by a copy of the grader in a scratch clone (so that a broken sandbox harms only the copy).

Without bubblewrap these tests are skipped, with the reason; ``grade.py`` then refuses to run
unless told ``--unsafe-no-sandbox`` (tested here too).
"""

from __future__ import annotations

import csv
import hashlib
import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import nbformat
import pytest

from neardup_lab import checks

ROOT = Path(__file__).resolve().parents[1]
GRADE = ROOT / "labs" / "grade.py"
LAB1, LAB7 = "lab01_shingles_jaccard.ipynb", "lab07_real_text.ipynb"


def _load_grade():
    spec = importlib.util.spec_from_file_location("grade", GRADE)
    module = importlib.util.module_from_spec(spec)
    sys.modules["grade"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


grade = _load_grade()
PROBLEM = grade.bwrap_problem()
needs_bwrap = pytest.mark.skipif(bool(PROBLEM), reason=f"bubblewrap cannot sandbox here: {PROBLEM}")


def _full(lab: str) -> int:
    return sum(checks.POINTS[name] for name in checks.LABS[lab])


def _digest(path: Path) -> str:
    """A digest of a file, or of every file under a folder."""
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    digest = hashlib.sha256()
    for file in files:
        digest.update(str(file.relative_to(path) if path.is_dir() else file.name).encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()


def _hostile(target: Path, cells: list[str]) -> Path:
    """The student notebook of lab 1 with the attack's cells appended (each may fail on its own)."""
    nb = nbformat.read(ROOT / "labs" / LAB1, as_version=4)
    nb.cells.extend(nbformat.v4.new_code_cell(source) for source in cells)
    nbformat.write(nb, target)
    return target


def _alive(marker: str) -> list[str]:
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if marker.encode() in Path(f"/proc/{entry.name}/cmdline").read_bytes():
                    found.append(entry.name)
            except OSError:
                pass
    return found


@pytest.mark.slow
@needs_bwrap
def test_hostile_hand_ins_change_nothing_but_their_own_mark(tmp_path):
    clone = tmp_path / "clone"  # the grader's copy the attacks aim at
    (clone / "labs").mkdir(parents=True)
    shutil.copy(GRADE, clone / "labs" / "grade.py")
    shutil.copytree(ROOT / "labs" / "grading", clone / "labs" / "grading")
    shutil.copytree(ROOT / "labs" / "solutions", clone / "labs" / "solutions")
    shutil.copytree(ROOT / "book" / "data" / "licences", clone / "book" / "data" / "licences")
    grader, data, solutions = (
        clone / "labs" / "grade.py",
        clone / "book" / "data" / "licences",
        clone / "labs" / "solutions",
    )

    folder = tmp_path / "class"
    folder.mkdir()
    honest = {
        "alice-lab01.ipynb": LAB1,
        "bob-lab01.ipynb": LAB1,
        "dana-lab01.ipynb": LAB1,
        "carol-lab07.ipynb": LAB7,
    }
    for name, source in honest.items():
        shutil.copy(ROOT / "labs" / "solutions" / source, folder / name)
    bob, dana = folder / "bob-lab01.ipynb", folder / "dana-lab01.ipynb"
    report, log, kept = tmp_path / "grades.csv", tmp_path / "grades.jsonl", tmp_path / "kept"

    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    port = listener.getsockname()[1]
    marker = f"neardup-hostile-{uuid.uuid4().hex}"
    rewrite = (
        "import pathlib, sys, time\n"
        "for _ in range(600):\n"
        "    try:\n"
        f"        pathlib.Path({str(report)!r}).write_text('notebook,lab,points\\nme,lab01,9\\n')\n"
        "    except OSError:\n"
        "        pass\n"
        "    time.sleep(0.1)\n"
    )
    attacks = {
        "edit": [
            f"import json\nnb = json.load(open({str(bob)!r}))\nnb['cells'] = []\n"
            f"json.dump(nb, open({str(bob)!r}, 'w'))"
        ],
        "delete": [f"import os\nos.remove({str(dana)!r})"],
        "data": [
            f"import shutil\nshutil.rmtree({str(data)!r})",
            "import shutil\nshutil.rmtree('data/licences')",
        ],
        "pwned": [
            "open('../PWNED.txt', 'w').write('pwned')",
            f"open({str(folder.parent / 'PWNED.txt')!r}, 'w').write('pwned')",
            f"open({str(folder / 'PWNED.txt')!r}, 'w').write('pwned')",
        ],
        "grader": [f"open({str(grader)!r}, 'a').write('\\nraise SystemExit(\"pwned\")\\n')"],
        "solutions": [
            "import json, pathlib, neardup_lab\n"
            f"for folder in (pathlib.Path(neardup_lab.__file__).resolve().parents[1] / 'labs' / 'solutions',"
            f" pathlib.Path({str(solutions)!r})):\n"
            "    try:\n"
            f"        cells = json.load(open(folder / {LAB1!r}))['cells']\n"
            "    except OSError as exc:\n"
            "        print('not found:', exc)\n"
            "        continue\n"
            "    for cell in cells:\n"
            "        if cell['cell_type'] == 'code':\n"
            "            exec(''.join(cell['source']), globals())"
        ],
        "detached": [
            "import subprocess, sys\n"
            f"child = subprocess.Popen([sys.executable, '-c', {rewrite!r}, {marker!r}],"
            " start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,"
            " stderr=subprocess.DEVNULL)\n"
            "print('spawned', child.pid)"
        ],
        "network": [
            f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2).sendall(b'x')"
        ],
    }
    hostile = [_hostile(folder / f"mallory-{name}-lab01.ipynb", cells) for name, cells in attacks.items()]
    order = [folder / "alice-lab01.ipynb", *hostile, bob, dana, folder / "carol-lab07.ipynb"]
    before = {path: _digest(path) for path in [*order, grader, data, solutions]}

    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, str(grader), "--csv", str(report), "--log", str(log), "--keep", str(kept)]
        + [str(path) for path in order],
        capture_output=True,
        text=True,
        timeout=600,
    )
    elapsed = time.monotonic() - start
    assert done.returncode == 0, done.stderr
    assert not _alive(marker), "a process a hand-in started outlived grade.py"
    time.sleep(0.5)

    with report.open(encoding="utf-8", newline="") as grades:
        rows = {Path(row["notebook"]).name: row for row in csv.DictReader(grades)}
    assert len(rows) == len(order), rows
    for name, source in honest.items():
        lab = "lab07" if source == LAB7 else "lab01"
        assert rows[name]["points"] == str(_full(lab)), (name, rows[name], done.stdout)
    for path in hostile:
        assert rows[path.name]["points"] == "0", (path.name, rows[path.name])
    logged = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert sum(entry["points"] for entry in logged) == sum(float(row["points"]) for row in rows.values())

    changed = [str(path) for path, digest in before.items() if not path.exists() or _digest(path) != digest]
    assert not changed, f"changed by a hand-in: {changed}"
    assert not list(tmp_path.rglob("PWNED.txt")) and not (Path(tempfile.gettempdir()) / "PWNED.txt").exists()
    with pytest.raises(BlockingIOError):
        listener.accept()
    listener.close()
    assert "spawned" in (kept / "mallory-detached-lab01.ipynb").read_text(encoding="utf-8")
    assert "not found" in (kept / "mallory-solutions-lab01.ipynb").read_text(encoding="utf-8")
    # 12 hand-ins; 13 took 35 s before the sandbox: its start-up must add little
    assert elapsed < 120, f"took {elapsed:.0f} s"


@needs_bwrap
def test_the_kernel_sees_only_its_own_folder_and_the_environment(tmp_path):
    """The bwrap command: the clone, other hand-ins and the network are out of the sandbox."""
    space = grade.Workspace("kim-lab01.ipynb", b"{}")
    try:
        argv = grade.bwrap_argv(space)
        probe = (
            "import os, socket, sys, neardup_lab\n"
            "print(sorted(os.listdir(os.path.dirname(os.path.dirname(neardup_lab.__file__)))))\n"
            "print(sorted(os.listdir('.')), os.getuid())\n"
            "try:\n"
            "    socket.create_connection(('1.1.1.1', 53), timeout=2)\n"
            "except OSError:\n"
            "    print('no network')\n"
        )
        done = subprocess.run(
            [*argv, "--", sys.executable, "-c", probe], capture_output=True, text=True, timeout=60
        )
    finally:
        space.remove()
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "labs" not in lines[0] and "neardup_lab" in lines[0], lines[0]
    assert lines[1].startswith("['data', 'kim-lab01.ipynb']"), lines[1]
    assert lines[2] == "no network"
    assert not space.root.exists()


def test_without_bubblewrap_grading_refuses_unless_told(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(grade, "bwrap_problem", lambda: "bubblewrap (bwrap) is not installed")
    report = tmp_path / "grades.csv"
    missing = tmp_path / "kim-lab02.ipynb"
    assert grade.main(["--csv", str(report), str(missing)]) == 2
    err = capsys.readouterr().err
    assert "bubblewrap" in err and "--unsafe-no-sandbox" in err and not report.exists()

    assert grade.main(["--csv", str(report), "--unsafe-no-sandbox", str(missing)]) == 0
    assert "WARNING: grading without a sandbox" in capsys.readouterr().err
    with report.open(encoding="utf-8", newline="") as grades:
        (row,) = list(csv.DictReader(grades))
    assert row["problems"] == f"missing: no such file {missing}", row


@pytest.mark.slow
def test_without_the_sandbox_honest_hand_ins_are_still_graded(tmp_path):
    shutil.copy(ROOT / "labs" / "solutions" / LAB1, tmp_path / "kim-lab01.ipynb")
    report = tmp_path / "grades.csv"
    done = subprocess.run(
        [
            sys.executable,
            str(GRADE),
            "--csv",
            str(report),
            "--unsafe-no-sandbox",
            str(tmp_path / "kim-lab01.ipynb"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    with report.open(encoding="utf-8", newline="") as grades:
        (row,) = list(csv.DictReader(grades))
    assert row["points"] == str(_full("lab01")), row


def _replaced(source: str, target: Path, name: str, code: str) -> Path:
    """The solution notebook ``source`` with the cell that defines ``name`` replaced by ``code``."""
    nb = nbformat.read(ROOT / "labs" / "solutions" / source, as_version=4)
    (cell,) = [c for c in nb.cells if c.cell_type == "code" and f"def {name}(" in c.source]
    cell.source = code
    nbformat.write(nb, target)
    return target


LAB6 = "lab06_choosing_threshold.ipynb"
# hand-ins that hand in the package's own answer through a wrapper: check -> (notebook, name, code)
WRAPPERS = {
    "public": (
        "check_jaccard",
        LAB1,
        "my_jaccard",
        "import neardup_lab\n\ndef my_jaccard(a, b):\n    return neardup_lab.jaccard(a, b)",
    ),
    "private": (
        "check_cost_at",
        LAB6,
        "cost_at",
        "import neardup_lab.checks.lab6_threshold\n\n"
        "def cost_at(*args):\n    return neardup_lab.checks.lab6_threshold._cost_at(*args)",
    ),
    "renamed": (
        "check_best_threshold",
        LAB6,
        "best_threshold",
        "def best_threshold(*args):\n"
        "    from neardup_lab.checks.lab6_threshold import _best_threshold as mine\n"
        "    return mine(*args)",
    ),
    "reloaded": (
        "check_precision_recall_at",
        LAB6,
        "precision_recall_at",
        "import importlib\nimport neardup_lab.checks.lab6_threshold as module\n\n"
        "def precision_recall_at(*args):\n    return importlib.reload(module)._precision_recall_at(*args)",
    ),
    "lab 2 signer": (
        "check_minhash_signature",
        "lab02_minhash.ipynb",
        "minhash_signature",
        "from neardup_lab.checks import lab2_minhash\n\n"
        "def minhash_signature(shingles, params):\n    return lab2_minhash._lab_signature(shingles, params)",
    ),
    "subprocess": (
        "check_normalize",
        LAB1,
        "my_normalize",
        "import subprocess, sys\n\n"
        "PROGRAM = 'import sys, neardup_lab; sys.stdout.write(neardup_lab.normalize(sys.stdin.read()))'\n\n"
        "def my_normalize(text):\n"
        "    run = [sys.executable, '-c', PROGRAM]\n"
        "    done = subprocess.run(run, input=text, capture_output=True, text=True)\n"
        "    return done.stdout if done.returncode == 0 else done.stderr.strip().splitlines()[-1]",
    ),
}


@pytest.mark.slow
@needs_bwrap
def test_a_wrapper_around_the_package_answer_scores_0(tmp_path):
    """The kernel has the lab's reference answers only as functions that raise, however it reaches them."""
    honest = {"honest-lab01.ipynb": LAB1, "honest-lab06.ipynb": LAB6}
    for name, source in honest.items():
        shutil.copy(ROOT / "labs" / "solutions" / source, tmp_path / name)
    cheats = {
        attack: _replaced(source, tmp_path / f"mallory-{attack.replace(' ', '-')}-{source}", name, code)
        for attack, (_, source, name, code) in WRAPPERS.items()
    }
    cheats["measure signer"] = _replaced(
        "lab02_minhash.ipynb",
        tmp_path / "mallory-measure-signer-lab02_minhash.ipynb",
        "minhash_signature",
        "from neardup_lab.checks import lab2_minhash\n\n"
        "def minhash_signature(shingles, params):\n    return lab2_minhash.measure_signer(shingles, params)",
    )
    report, log = tmp_path / "grades.csv", tmp_path / "grades.jsonl"
    done = subprocess.run(
        [sys.executable, str(GRADE), "--csv", str(report), "--log", str(log)]
        + [str(tmp_path / name) for name in honest]
        + [str(path) for path in cheats.values()],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    with report.open(encoding="utf-8", newline="") as grades:
        rows = {Path(row["notebook"]).name: row for row in csv.DictReader(grades)}
    for name in honest:
        assert rows[name]["points"] == str(_full(rows[name]["lab"])), (name, rows[name], done.stdout)
    logged = {
        (Path(entry["notebook"]).name, entry["check"]): entry
        for entry in map(json.loads, log.read_text(encoding="utf-8").splitlines())
    }
    for attack, (check, *_) in WRAPPERS.items():
        name = cheats[attack].name
        assert rows[name][check] == "0", (attack, rows[name])
        assert "write your own" in logged[name, check]["report"], (attack, logged[name, check]["report"])
    # The signer lab 2's measure_error check hands out stays callable, but signs other values: only
    # the cases every signer agrees on (an empty set) pass, well under half of the check's points.
    wrapped = cheats["measure signer"].name
    got = float(rows[wrapped]["check_minhash_signature"])
    assert got < checks.POINTS["check_minhash_signature"] / 2, rows[wrapped]
