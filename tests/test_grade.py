"""Grading a teacher can trust: labs/grade.py and the link to a student's kernel.

The first tests drive ``neardup_lab.checks.remote`` in one process (the kernel's side in a
thread): replies are data only, exceptions keep their class, a changed argument is seen,
a generator stays a generator-shaped thing no check accepts, a hang meets its deadline.

The slow tests run ``labs/grade.py`` on hostile hand-ins (a union-find that loops, a bare
``except:`` inside ``while True``, a notebook that replaces the checks, 30 MB of output)
and require a finished, correct grade within a minute each.
"""

from __future__ import annotations

import copy
import csv
import importlib
import importlib.util
import json
import pickle
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import nbformat
import numpy as np
import pytest

from neardup_lab import checks, jaccard
from neardup_lab.checks import remote

ROOT = Path(__file__).resolve().parents[1]
GRADE = ROOT / "labs" / "grade.py"
SOLUTIONS = ROOT / "labs" / "solutions"


# ------------------------------------------------------------ the link, in one process


@pytest.fixture
def link():
    """A grading-side link to a namespace served by a thread, as a kernel would serve it."""
    namespaces: dict = {}

    def connect(namespace: dict) -> remote.Kernel:
        server, port, token = remote.Kernel.listen()
        thread = threading.Thread(target=remote.serve, args=(port, token, namespace), daemon=True)
        thread.start()
        kernel = remote.Kernel.accept(server, token, time.monotonic() + 10)
        server.close()
        kernel.deadline = time.monotonic() + 10
        namespaces[id(kernel)] = kernel
        return kernel

    yield connect
    for kernel in namespaces.values():
        kernel.close()


def test_plain_data_round_trip():
    value = {"a": [1, 2.5, None, True], "b": (frozenset({"x"}), {3, 4}), "c": b"raw", "d": ...}
    assert remote.restore(remote.decode(pickle.dumps(remote.plain(value)))) == value
    array = np.arange(6, dtype=np.uint64).reshape(2, 3)
    back = remote.restore(remote.decode(pickle.dumps(remote.plain(array))))
    assert back.dtype == np.uint64 and back.shape == (2, 3) and (back == array).all()
    assert remote.restore(remote.plain(np.int64(7))) == 7


def test_a_reply_cannot_carry_code():
    class Evil:
        def __reduce__(self):
            return (print, ("this must never run in the grader",))

    with pytest.raises(pickle.UnpicklingError, match="data only"):
        remote.decode(pickle.dumps(Evil()))
    with pytest.raises(pickle.UnpicklingError):
        remote.decode(pickle.dumps(complex(1, 2)))


def test_answers_through_the_link(link):
    class Index:
        def __init__(self, size):
            self.size, self.keys = size, []

        def add(self, key):
            self.keys.append(key)

        def found(self):
            return set(self.keys)

    def grows(items):
        items.add("extra")
        return len(items)

    namespace = {
        "my_jaccard": lambda a, b: len(a & b) / len(a | b),
        "lazy": lambda n: (i for i in range(n)),
        "picky": lambda k: (_ for _ in ()).throw(ValueError(f"bad k {k}")),
        "todo": lambda: (_ for _ in ()).throw(NotImplementedError("todo: write your code here")),
        "grows": grows,
        "Index": Index,
        "answer": (20, 5),
        "reference": jaccard,
    }
    kernel = link(namespace)
    my_jaccard = kernel.answer("my_jaccard")
    assert my_jaccard({"a", "b"}, {"b"}) == 0.5 and my_jaccard.__name__ == "<lambda>"
    assert kernel.answer("answer") == (20, 5)
    assert kernel.answer("nothing") is remote.MISSING
    assert kernel.answer("reference").__module__ == "neardup_lab.text"

    got = kernel.answer("lazy")(3)
    assert isinstance(got, remote.Opaque) and got.type_name == "generator"
    with pytest.raises(ValueError, match="bad k 0"):
        kernel.answer("picky")(0)
    with pytest.raises(NotImplementedError, match="todo"):
        kernel.answer("todo")()

    given = {"a"}
    assert kernel.answer("grows")(given) == 2
    assert given == {"a", "extra"}, "a change in the kernel shows on the grading side"

    index = kernel.answer("Index")(3)
    index.add("k1")
    index.add("k2")
    assert index.found() == {"k1", "k2"} and index.size == 3


def test_a_hang_meets_its_deadline(link):
    kernel = link({"stuck": lambda: time.sleep(30)})
    stuck = kernel.answer("stuck")
    kernel.deadline = time.monotonic() + 0.5
    start = time.monotonic()
    with pytest.raises(remote.DeadlineExceeded):
        stuck()
    assert time.monotonic() - start < 3


def test_checks_see_the_same_answers_through_the_link(link, capsys):
    def generator_signature(shingles, params):
        return (min([(a * 1 + b) % checks.MINHASH_PRIME for _ in shingles], default=0) for a, b in params)

    def mutating_jaccard(a, b):
        a |= b
        return len(a & b) / len(a) if a else 1.0

    kernel = link({"sig": generator_signature, "jac": mutating_jaccard, "ok": jaccard})
    assert not checks.check_minhash_signature(kernel.answer("sig")).passed
    result = checks.check_jaccard(kernel.answer("jac"))
    assert not result.passed and "changed its input" in capsys.readouterr().out
    assert checks.check_jaccard(kernel.answer("ok")).passed


# ------------------------------------------------------------ grade.py end to end


def _load_grade():
    spec = importlib.util.spec_from_file_location("grade", GRADE)
    module = importlib.util.module_from_spec(spec)
    sys.modules["grade"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _with_cells(source: Path, target: Path, replace: dict[str, str] = (), insert: dict[str, str] = ()):
    """A copy of a notebook with the cell that defines a name replaced, or a cell inserted after it."""
    nb = nbformat.read(source, as_version=4)
    cells = []
    for cell in nb.cells:
        defines = next(
            (name for name in {**dict(replace), **dict(insert)} if f"def {name}(" in cell.source), None
        )
        if cell.cell_type == "code" and defines in dict(replace):
            cell = copy.deepcopy(cell)
            cell.source = dict(replace)[defines]
        cells.append(cell)
        if cell.cell_type == "code" and defines in dict(insert):
            cells.append(nbformat.v4.new_code_cell(dict(insert)[defines]))
    nb.cells = cells
    nbformat.write(nb, target)
    return target


def _grade(
    tmp_path: Path, notebook: Path, cell: int = 8, check: int = 10
) -> tuple[dict, float, subprocess.CompletedProcess]:
    report, log = tmp_path / "grades.csv", tmp_path / "grades.jsonl"
    start = time.monotonic()
    done = subprocess.run(
        [
            sys.executable,
            str(GRADE),
            "--csv",
            str(report),
            "--log",
            str(log),
            "--keep",
            str(tmp_path / "kept"),
            "--cell-timeout",
            str(cell),
            "--check-timeout",
            str(check),
            "--notebook-timeout",
            "55",
            str(notebook),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    elapsed = time.monotonic() - start
    assert done.returncode == 0, done.stderr
    with report.open(encoding="utf-8", newline="") as grades:
        rows = list(csv.DictReader(grades))
    assert len(rows) == 1
    logged = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [entry["check"] for entry in logged] == list(checks.LABS[rows[0]["lab"]])
    return rows[0], elapsed, done


LAB1 = SOLUTIONS / "lab01_shingles_jaccard.ipynb"
LAB1_POINTS = sum(checks.POINTS[name] for name in checks.LABS["lab01"])


@pytest.mark.slow
def test_bare_except_in_while_true_is_killed_and_the_rest_graded(tmp_path):
    swallow = "\n".join(
        [
            "import time",
            "while True:",
            "    try:",
            "        time.sleep(1)",
            "    except:  # noqa: E722",
            "        pass",
        ]
    )

    notebook = _with_cells(LAB1, tmp_path / "lab01_hang.ipynb", insert={"my_normalize": swallow})
    row, elapsed, done = _grade(tmp_path, notebook)
    assert elapsed < 60, f"took {elapsed:.0f} s"
    assert float(row["points"]) == LAB1_POINTS, row
    assert "killed" in row["problems"]


@pytest.mark.slow
def test_a_check_that_hangs_loses_only_that_check(tmp_path):
    looping = (
        "import time\n\n"
        "def my_jaccard(a, b):\n"
        '    """Loops forever and swallows every interrupt."""\n'
        "    while True:\n"
        "        try:\n"
        "            time.sleep(1)\n"
        "        except:  # noqa: E722\n"
        "            pass"
    )
    notebook = _with_cells(LAB1, tmp_path / "lab01_loop.ipynb", replace={"my_jaccard": looping})
    row, elapsed, _ = _grade(tmp_path, notebook)
    assert elapsed < 60, f"took {elapsed:.0f} s"
    assert row["check_jaccard"] == "0" and "check_jaccard: timeout" in row["problems"]
    assert float(row["points"]) == LAB1_POINTS - checks.POINTS["check_jaccard"]


@pytest.mark.slow
def test_a_notebook_cannot_replace_the_checks(tmp_path):
    tamper = "\n".join(
        [
            "from neardup_lab import checks, jaccard",
            "import neardup_lab.checks.harness as core",
            "checks.grade = lambda lab, ns: core.Summary(lab, list(core.LABS[lab]), {}, [])",
            "for name in checks.__all__:",
            "    if name.startswith('check_'):",
            "        setattr(checks, name, lambda answer: core.CheckResult('x', passed=True))",
            "core.run_check = lambda name, target, cases, notes=None: core.CheckResult(name, passed=True)",
            "my_jaccard = jaccard",
        ]
    )
    student = ROOT / "labs" / "lab01_shingles_jaccard.ipynb"
    nb = nbformat.read(student, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(tamper))
    notebook = tmp_path / "lab01_tamper.ipynb"
    nbformat.write(nb, notebook)
    row, elapsed, _ = _grade(tmp_path, notebook)
    assert elapsed < 60
    assert row["points"] == "0", row
    assert "check_jaccard: reference" in row["problems"]


@pytest.mark.slow
def test_huge_output_is_capped(tmp_path):
    flood = "for _ in range(300):\n    print('x' * 100_000)"
    notebook = _with_cells(LAB1, tmp_path / "lab01_flood.ipynb", insert={"my_jaccard": flood})
    row, elapsed, _ = _grade(tmp_path, notebook)
    assert elapsed < 60
    assert float(row["points"]) == LAB1_POINTS
    kept = tmp_path / "kept" / notebook.name
    assert kept.stat().st_size < 1_000_000, "30 MB of output must not be kept"
    assert "more characters of output were not kept" in kept.read_text(encoding="utf-8")


@pytest.mark.slow
def test_partial_credit_per_case(tmp_path):
    regex = (
        "import re\n\n"
        "def my_normalize(text):\n"
        "    text = unicodedata.normalize('NFKC', text).casefold()\n"
        "    return ' '.join(re.sub(r'[^\\w\\s]', ' ', text).split())"
    )
    notebook = _with_cells(LAB1, tmp_path / "lab01_regex.ipynb", replace={"my_normalize": regex})
    row, _, _ = _grade(tmp_path, notebook)
    normalize = float(row["check_normalize"])
    assert 0 < normalize < checks.POINTS["check_normalize"], row
    assert row["check_jaccard"] == str(checks.POINTS["check_jaccard"])


@pytest.mark.slow
def test_a_union_find_that_loops(tmp_path):
    looping = (
        "def group_pairs(n, pairs):\n"
        "    parent = list(range(n))\n"
        "    for a, b in pairs:\n"
        "        parent[a], parent[b] = b, a  # a cycle: find() below never ends\n"
        "    def find(x):\n"
        "        while parent[x] != x:\n"
        "            x = parent[x]\n"
        "        return x\n"
        "    clusters = {}\n"
        "    for x in range(n):\n"
        "        clusters.setdefault(find(x), []).append(x)\n"
        "    return list(clusters.values())"
    )
    source = SOLUTIONS / "lab04_dedup_end_to_end.ipynb"
    notebook = _with_cells(source, tmp_path / "lab04_loop.ipynb", replace={"group_pairs": looping})
    row, elapsed, done = _grade(tmp_path, notebook, cell=4, check=6)
    assert elapsed < 60, f"took {elapsed:.0f} s\n{done.stdout}"
    assert row["check_precision_recall"] == str(checks.POINTS["check_precision_recall"]), row
    assert row["check_verify_pairs"] == str(checks.POINTS["check_verify_pairs"]), row
    assert row["check_clusters"] == "0" and "check_clusters: timeout" in row["problems"]
    expected = checks.POINTS["check_precision_recall"] + checks.POINTS["check_verify_pairs"]
    assert float(row["points"]) == expected


def test_lab_is_read_from_metadata_or_name():
    grade = _load_grade()
    nb = nbformat.v4.new_notebook()
    assert grade.lab_of(nb, Path("kim-Lab_3.ipynb")) == "lab03"
    nb.metadata["neardup_lab"] = {"lab": "lab02"}
    assert grade.lab_of(nb, Path("anything.ipynb")) == "lab02"
    with pytest.raises(ValueError, match="which lab"):
        grade.lab_of(nbformat.v4.new_notebook(), Path("homework.ipynb"))


@pytest.mark.slow
def test_every_solution_gets_full_marks_and_every_handout_none(tmp_path):
    """With the grading-only cases too: a correct solution passes them all."""
    for path in sorted(SOLUTIONS.glob("*.ipynb")):
        shutil.copy(path, tmp_path / f"solved-{path.name}")
        shutil.copy(ROOT / "labs" / path.name, tmp_path / f"handout-{path.name}")
    report = tmp_path / "grades.csv"
    notebooks = sorted(str(p) for p in tmp_path.glob("*.ipynb"))
    done = subprocess.run(
        [sys.executable, str(GRADE), "--csv", str(report), *notebooks],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    with report.open(encoding="utf-8", newline="") as grades:
        rows = {Path(row["notebook"]).name: row for row in csv.DictReader(grades)}
    assert len(rows) == 2 * len(checks.LABS)
    for name, row in rows.items():
        full = sum(checks.POINTS[check] for check in checks.LABS[row["lab"]])
        assert row["max_points"] == str(full)
        if name.startswith("solved-"):
            assert row["points"] == str(full), (name, row)
        else:
            assert row["points"] == "0" and row["problems"] == "", (name, row)
    assert done.stdout.count(": not implemented,") + done.stdout.count(": not answered,") == sum(
        len(lab) for lab in checks.LABS.values()
    )


def test_an_unreadable_notebook_gets_a_row_that_names_the_problem(tmp_path, capsys):
    grade = _load_grade()
    broken = tmp_path / "kim-lab02.ipynb"
    broken.write_text('{"cells": [', encoding="utf-8")
    report = tmp_path / "grades.csv"
    assert grade.main(["--csv", str(report), str(broken)]) == 0
    with report.open(encoding="utf-8", newline="") as grades:
        (row,) = list(csv.DictReader(grades))
    full = sum(checks.POINTS[name] for name in checks.LABS["lab02"])
    assert (row["lab"], row["points"], row["max_points"]) == ("lab02", "0", str(full))
    assert "JSON" in row["problems"] and "cannot grade" in capsys.readouterr().out


def test_every_reference_answer_is_withheld_from_the_kernel():
    """checks.REFERENCES names real answers, covers the names no exercise notebook may import, and each
    lab's kernel gets them (and the lab's checks) only as stand-ins."""
    grade = _load_grade()
    spec = importlib.util.spec_from_file_location("lab_tests", ROOT / "tests" / "test_labs.py")
    lab_tests = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lab_tests)
    assert set(checks.REFERENCES) == set(checks.POINTS)
    for lab, names in checks.LABS.items():
        withheld = {ref.split(":")[1] for check in names for ref in checks.REFERENCES[check]}
        assert lab_tests.REFERENCE_ANSWERS.get(lab, set()) <= withheld, lab
        files = grade.withheld_sources(lab)
        for check in names:
            for reference in checks.REFERENCES[check]:
                module, name = reference.split(":")
                original = getattr(importlib.import_module(module), name)
                assert original.__module__ == module, f"{reference} is imported there, not defined"
                source = files[Path(*module.split(".")[1:]).with_suffix(".py")]
                body = re.split(rf"\n(?:def|class) {name}\b", source)[1]
                assert "write your own" in body.split("\ndef ")[0].split("\nclass ")[0], reference
            home = Path(*getattr(checks, check).__module__.split(".")[1:]).with_suffix(".py")
            assert "run by the grader" in files[home].split(f"def {check}(")[1].split("\ndef ")[0]
        for path, source in files.items():
            compile(source, str(path), "exec")
