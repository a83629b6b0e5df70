"""The classroom labs: student notebooks are generated, run as handed out, and explain what is missing.

The solution notebooks themselves are re-executed and compared by nbval
(``make notebooks``); here we check what nbval cannot:

- every committed student notebook is exactly what ``tools/make_labs.py`` makes
  from its solution, and holds no solution;
- a student notebook, copied alone into an empty folder and run top to bottom as
  handed out, finishes without an error and ends with every check failing with
  its explanation, and the summary "0 of M checks pass";
- the stored outputs of each solution notebook show every check passing;
- the grading script scores a handed-out notebook 0 and a solution full marks;
- the teachers' README lists every lab.
"""

from __future__ import annotations

import ast
import csv
import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from neardup_lab import checks

ROOT = Path(__file__).resolve().parents[1]
LABS = ROOT / "labs"
SOLUTIONS = LABS / "solutions"
SOLUTION_PATHS = sorted(SOLUTIONS.glob("*.ipynb"))
STUDENT_PATHS = sorted(LABS.glob("*.ipynb"))
TIMEOUT = 300  # seconds per cell


def _load_tool(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


make_labs = _load_tool("make_labs")


def _lab_id(path: Path) -> str:
    return nbformat.read(path, as_version=4).metadata["neardup_lab"]["lab"]


def _text_outputs(nb: nbformat.NotebookNode) -> str:
    parts = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output.output_type == "stream":
                parts.append(output.text)
            elif output.output_type in ("execute_result", "display_data"):
                parts.append(output.get("data", {}).get("text/plain", ""))
            elif output.output_type == "error":
                parts.append(f"{output.ename}: {output.evalue}")
    return "\n".join(parts)


def test_every_lab_has_a_solution_a_student_notebook_and_checks():
    assert len(SOLUTION_PATHS) >= 6
    assert [p.name for p in STUDENT_PATHS] == [p.name for p in SOLUTION_PATHS]
    assert sorted(_lab_id(p) for p in SOLUTION_PATHS) == sorted(checks.LABS)


def test_committed_student_notebooks_equal_generated(tmp_path):
    written = make_labs.generate(SOLUTIONS, tmp_path)
    assert [p.name for p in written] == [p.name for p in STUDENT_PATHS]
    for path in written:
        committed = (LABS / path.name).read_bytes()
        assert committed == path.read_bytes(), f"labs/{path.name} is out of date: run `make labs`"
    assert make_labs.stale() == []


@pytest.mark.parametrize("path", STUDENT_PATHS, ids=lambda p: p.stem)
def test_student_notebook_holds_no_solution(path):
    nb = nbformat.read(path, as_version=4)
    assert nb.metadata.kernelspec.name == "python3"
    titles = [
        line
        for cell in nb.cells
        if cell.cell_type == "markdown"
        for line in cell.source.splitlines()
        if line.startswith("# ")
    ]
    assert len(titles) == 1 and nb.cells[0].source.startswith("# "), "one H1 title, in the first cell"
    for part in ("**Learning goals.**", "**Before this lab**", "**Time.**"):
        assert part in nb.cells[0].source, f"the first cell says nothing under {part}"
    for cell in nb.cells:
        assert "solution-only" not in cell.metadata.get("tags", [])
        assert "BEGIN SOLUTION" not in cell.source and "END SOLUTION" not in cell.source
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
    stubs = sum(cell.source.count("NotImplementedError(") for cell in nb.cells if cell.cell_type == "code")
    assert stubs >= len(checks.LABS[_lab_id(path)]) - 1  # a value exercise has `...` instead


@pytest.mark.parametrize("path", SOLUTION_PATHS, ids=lambda p: p.stem)
def test_solution_outputs_show_every_check_passing(path):
    nb = nbformat.read(path, as_version=4)
    text = _text_outputs(nb)
    lab = _lab_id(path)
    total = len(checks.LABS[lab])
    for name in checks.LABS[lab]:
        assert re.search(rf"^PASS {name}: all \d+ cases pass$", text, re.M), f"{name} does not pass"
    assert "FAIL" not in text
    assert f"{lab}: {total} of {total} checks pass" in text
    assert not any(o.output_type == "error" for c in nb.cells for o in c.get("outputs", []))
    assert not any(
        o.output_type == "stream" and o.name == "stderr" for c in nb.cells for o in c.get("outputs", [])
    )


def _execute_alone(path: Path, folder: Path) -> nbformat.NotebookNode:
    """Run a notebook copied alone into an empty folder, as a student who downloaded it would."""
    copy = folder / path.name
    shutil.copy(path, copy)
    nb = nbformat.read(copy, as_version=4)
    NotebookClient(
        nb, timeout=TIMEOUT, kernel_name="python3", resources={"metadata": {"path": str(folder)}}
    ).execute()
    return nb


@pytest.mark.parametrize("path", STUDENT_PATHS, ids=lambda p: p.stem)
def test_student_notebook_runs_and_every_check_explains_its_failure(path, tmp_path):
    nb = _execute_alone(path, tmp_path)  # raises CellExecutionError if any cell fails
    text = _text_outputs(nb)
    lab = _lab_id(path)
    for name, answer in checks.LABS[lab].items():
        line = re.search(rf"^FAIL {name}: (.*)$", text, re.M)
        assert line, f"{name} reports no failure"
        assert re.match(r"not (implemented|answered) yet", line.group(1)), line.group(0)
        assert answer in line.group(1) or "used by" in line.group(1), line.group(0)
    assert "hint:" in text
    assert f"{lab}: 0 of {len(checks.LABS[lab])} checks pass" in text
    assert "Traceback" not in text


def test_grading_script_scores_handed_out_and_solved_notebooks(tmp_path):
    student = LABS / "lab01_shingles_jaccard.ipynb"
    solution = SOLUTIONS / "lab01_shingles_jaccard.ipynb"
    (tmp_path / "alice").mkdir()
    shutil.copy(solution, tmp_path / "alice" / "lab01.ipynb")
    shutil.copy(student, tmp_path / "bob-lab1.ipynb")
    report = tmp_path / "grades.csv"
    done = subprocess.run(
        [
            sys.executable,
            str(LABS / "grade.py"),
            "--csv",
            str(report),
            str(tmp_path / "alice" / "lab01.ipynb"),
            str(tmp_path / "bob-lab1.ipynb"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    with report.open(encoding="utf-8", newline="") as grades:
        rows = list(csv.DictReader(grades))
    names = list(checks.LABS["lab01"])
    assert list(rows[0]) == ["notebook", "lab", "points", "max_points", *names, "questions", "problems"]
    by_name = {Path(row["notebook"]).name: row for row in rows}
    full = sum(checks.POINTS[name] for name in names)
    alice, bob = by_name["lab01.ipynb"], by_name["bob-lab1.ipynb"]
    assert (alice["lab"], alice["points"], alice["max_points"]) == ("lab01", str(full), str(full)), alice
    assert [alice[name] for name in names] == [str(checks.POINTS[name]) for name in names]
    assert (bob["points"], bob["max_points"]) == ("0", str(full))
    assert all(bob[name] == "0" for name in names)
    assert f"0 of {full} points" in done.stdout


def test_readme_lists_every_lab_and_the_commands():
    readme = (LABS / "README.md").read_text(encoding="utf-8")
    for path in STUDENT_PATHS:
        assert path.name in readme, f"labs/README.md does not mention {path.name}"
    for command in ("make labs-bundle", "make labs ", "grade.py"):
        assert command in readme, command
    assert "3.10" not in readme, "the pinned requirements need Python 3.11"
    for path in SOLUTION_PATHS:
        assert f"teachers/{path.stem}.md" in readme or "teachers/" in readme


def test_student_notebooks_need_nothing_from_the_repository():
    for path in STUDENT_PATHS:
        source = json.dumps([c.source for c in nbformat.read(path, as_version=4).cells])
        for forbidden in ("labs/", "solutions/", "../", "sys.path", "tools/", "open("):
            assert forbidden not in source, f"{path.name} refers to {forbidden!r}"


#: For each lab, the package's own answers to its exercises: an exercise notebook must not
#: import them (``my_simhash = simhash`` would pass the check otherwise).
REFERENCE_ANSWERS = {
    "lab01": {"normalize", "words", "word_shingles", "char_shingles", "jaccard"},
    "lab02": {"estimate_jaccard", "merge_signatures"},
    "lab03": {"s_curve", "candidate_pairs", "candidate_pair_array", "optimal_params", "LSHIndex"},
    "lab04": {"precision_recall", "clusters_from_pairs", "clusters_from_pair_array", "UnionFind", "dedup"},
    "lab05": {"hamming", "simhash", "BlockIndex", "hamming_distances", "hamming_brute_force"},
    "lab06": {"precision_recall"},
}


def _imported_names(source: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("neardup_lab"):
            names |= {alias.name for alias in node.names}
            if node.module != "neardup_lab":
                names.add(node.module)
        elif isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names if alias.name.startswith("neardup_lab.")}
    return names


@pytest.mark.parametrize("path", STUDENT_PATHS, ids=lambda p: p.stem)
def test_exercise_notebook_does_not_import_the_reference_answers(path):
    nb = nbformat.read(path, as_version=4)
    forbidden = REFERENCE_ANSWERS.get(_lab_id(path), set())
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        imported = _imported_names(cell.source)
        assert not imported & forbidden, f"{path.name} imports {sorted(imported & forbidden)}"
        assert not any(name.startswith("neardup_lab.") and name != "neardup_lab.checks" for name in imported)
        assert "import neardup_lab\n" not in cell.source + "\n" and "import neardup_lab as" not in cell.source


def test_reference_table_names_real_package_functions():
    import neardup_lab
    from neardup_lab import clusters, simhash_index
    from neardup_lab.engine import components

    public = set(neardup_lab.__all__) | set(clusters.__all__) | set(simhash_index.__all__)
    public |= set(components.__all__)
    for names in REFERENCE_ANSWERS.values():
        assert names <= public, names - public


def test_generator_replaces_marked_blocks_keeping_indentation():
    source = "\n".join(
        [
            "class Index:",
            "    def add(self, key):",
            '        """Doc."""',
            "        # BEGIN SOLUTION",
            "        self.keys.append(key)",
            "        # END SOLUTION",
            "",
            "def f(x):",
            "    # BEGIN SOLUTION",
            "    return x",
            "    # END SOLUTION",
            "",
            "# BEGIN SOLUTION value",
            "answer = (20, 5)",
            "low: int = 3",
            "# END SOLUTION",
            "print(answer)",
        ]
    )
    stripped, count = make_labs.strip_solutions(source)
    assert count == 3
    assert stripped.splitlines() == [
        "class Index:",
        "    def add(self, key):",
        '        """Doc."""',
        '        raise NotImplementedError("Index.add: write your code here")',
        "",
        "def f(x):",
        '    raise NotImplementedError("f: write your code here")',
        "",
        "answer = ...  # your answer",
        "low = ...  # your answer",
        "print(answer)",
    ]


@pytest.mark.parametrize(
    "source, problem",
    [
        ("# BEGIN SOLUTION\nx = 1", "without END SOLUTION"),
        ("x = 1\n# END SOLUTION", "without BEGIN SOLUTION"),
        ("# BEGIN SOLUTION\n# BEGIN SOLUTION\n# END SOLUTION", "without END SOLUTION"),
        ("# BEGIN SOLUTION value\nprint(1)\n# END SOLUTION", "only hold assignments"),
    ],
)
def test_generator_rejects_broken_markers(source, problem):
    with pytest.raises(make_labs.MarkerError, match=problem):
        make_labs.strip_solutions(source)


def test_generator_drops_solution_only_cells_and_outputs():
    nb = nbformat.v4.new_notebook()
    answer = nbformat.v4.new_markdown_cell("**Answer.** 42")
    answer.metadata["tags"] = ["solution-only"]
    cell = nbformat.v4.new_code_cell("def f():\n    # BEGIN SOLUTION\n    return 1\n    # END SOLUTION\nf()")
    cell.outputs = [nbformat.v4.new_output("execute_result", data={"text/plain": "1"}, execution_count=1)]
    cell.execution_count = 1
    nb.cells = [nbformat.v4.new_markdown_cell("# Title"), cell, answer]
    nb.metadata["language_info"] = {"name": "python", "version": "3.11.7"}
    student = make_labs.student_notebook(nb)
    assert [c.cell_type for c in student.cells] == ["markdown", "code"]
    assert student.cells[1].outputs == [] and student.cells[1].execution_count is None
    assert student.metadata["language_info"] == {"name": "python"}
    assert nb.cells[1].outputs and len(nb.cells) == 3  # the solution is not changed
    nb.cells = [nb.cells[0]]
    with pytest.raises(make_labs.MarkerError, match="nothing for the student"):
        make_labs.student_notebook(nb)


# ------------------------------------------------------- in a browser page

#: Calls a browser page's Python (Pyodide, ``sys.platform == "emscripten"``) cannot make.
NATIVE_ONLY = re.compile(
    r"\b(subprocess|multiprocessing|threading|concurrent\.futures|fcntl|os\.fork)\b|n_jobs\s*=\s*(?!1\b)"
)


@pytest.mark.parametrize("path", SOLUTION_PATHS + STUDENT_PATHS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_native_only_code_has_a_browser_branch(path):
    """A cell that starts processes or threads says what it does on a computer when run in a page."""
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type != "code" or cell.source.lstrip().startswith(("import", "from")):
            continue
        if NATIVE_ONLY.search(cell.source):
            assert 'sys.platform == "emscripten"' in cell.source, cell.source


def test_lab2_hash_demo_in_a_page_shows_what_it_prints_on_a_computer(capsys):
    import os
    import types

    nb = nbformat.read(SOLUTIONS / "lab02_minhash.ipynb", as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code" and "def value_in_new_process" in c.source)
    native = "".join(o.text for o in cell.outputs if o.output_type == "stream")

    def no_processes(*args, **kwargs):
        raise OSError("a page cannot start processes")

    page = {
        "os": os,
        "sys": types.SimpleNamespace(platform="emscripten", executable=""),
        "subprocess": types.SimpleNamespace(run=no_processes),
    }
    exec(cell.source, page)
    first, *rest = capsys.readouterr().out.splitlines()
    assert "cannot start Python processes" in first
    assert rest == native.splitlines()  # the lines a computer printed, which nbval re-checks


def test_lab7_with_a_changed_data_file_runs_and_every_check_says_what_to_put_back(tmp_path):
    data = tmp_path / "data" / "licences"
    shutil.copytree(ROOT / "book" / "data" / "licences", data)
    changed = data / "files" / "attrs" / "licenses" / "LICENSE.txt"
    changed.write_text(changed.read_text(encoding="utf-8") + "\nedited\n", encoding="utf-8")
    nb = _execute_alone(SOLUTIONS / "lab07_real_text.ipynb", tmp_path)  # raises if a cell fails
    text = _text_outputs(nb)
    stderr = "".join(o.text for c in nb.cells for o in c.get("outputs", []) if o.get("name") == "stderr")
    assert "1 licence file differs from the copy the lab came with: attrs/licenses/LICENSE.txt" in stderr
    for name in checks.LABS["lab07"]:
        assert f"FAIL {name}: 1 of 1 cases fail" in text, name
    assert text.count('case "the lab\'s licence files"') == len(checks.LABS["lab07"])
    assert "copy the folder data/licences again" in text.lower()
