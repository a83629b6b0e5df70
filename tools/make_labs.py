"""Make the student notebooks of the labs from the solution notebooks.

Each lab has one source: its solution notebook in ``labs/solutions/``. Inside
its code cells the solution is marked::

    def my_jaccard(a, b):
        # BEGIN SOLUTION
        ...the solution...
        # END SOLUTION

The student notebook ``labs/<same name>.ipynb`` gets, in place of each marked
block and at the marker's indentation, ``raise NotImplementedError("<name>:
...")`` where ``<name>`` is the enclosing function (``Class.method`` inside a
class). A block opened with ``# BEGIN SOLUTION value`` holds assignments, and
becomes ``<target> = ...`` for each of them: the student fills in a value.
Cells tagged ``solution-only`` are left out, and every output and execution
count is cleared, so the student notebook is the same whoever runs this.

It also packs the **student bundle** (``--bundle``, behind ``make labs-bundle``): a zip
with the student notebooks, the data lab 7 reads, the package as a wheel, a
requirements file with only what the labs need (pinned to the versions of
``requirements.txt``), a README for students and the two licence files (``LICENSE``
for the code, ``LICENSE-CONTENT`` for the notebooks' text, CC BY 4.0). No solution goes
in, and no grading case: those live in ``labs/grading/``, outside the package the wheel
is built from.

Usage::

    python tools/make_labs.py            # write labs/*.ipynb from labs/solutions/*.ipynb
    python tools/make_labs.py --check    # exit 1 if a committed student notebook is out of date
    python tools/make_labs.py --execute  # first re-run the solutions in place (nbclient), then write
    python tools/make_labs.py --bundle   # write _build/neardup-lab-labs.zip for students
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
LABS = ROOT / "labs"
SOLUTIONS = LABS / "solutions"

BEGIN = re.compile(r"^(?P<indent>[ \t]*)# BEGIN SOLUTION(?P<value> value)?[ \t]*$")
END = re.compile(r"^[ \t]*# END SOLUTION[ \t]*$")
DEF = re.compile(r"^(?P<indent>[ \t]*)(?:async[ \t]+)?(?P<kind>def|class)[ \t]+(?P<name>\w+)")
SOLUTION_ONLY = "solution-only"
BUNDLE = ROOT / "_build" / "neardup-lab-labs.zip"
BUNDLE_FOLDER = "neardup-lab-labs"
#: What a student's laptop needs for the labs, beside the package itself: pinned to the
#: versions of requirements.txt (jupyterlab is not in it: the book needs no editor).
LAB_REQUIREMENTS = ("numpy", "scipy", "xxhash", "matplotlib", "tqdm", "ipykernel")
JUPYTERLAB_PIN = "jupyterlab==4.6.6"
LAB_DATA = {"data/licences": ROOT / "book" / "data" / "licences"}  # bundle folder: source
LICENCE_FILES = ("LICENSE", "LICENSE-CONTENT")  # code (MIT) and text (CC BY 4.0), in the zip and the wheel
STUDENT_LANGUAGE_INFO = {"name": "python"}


class MarkerError(ValueError):
    """A solution marker is missing, unmatched or misplaced."""


def _enclosing_name(lines: list[str], index: int, indent: str) -> str:
    """``Class.method`` or ``function`` around line ``index``, found by indentation."""
    names: list[str] = []
    depth = len(indent)
    for line in reversed(lines[:index]):
        match = DEF.match(line)
        if match and len(match["indent"]) < depth:
            names.append(match["name"])
            depth = len(match["indent"])
            if depth == 0:
                break
    return ".".join(reversed(names))


def _value_stub(block: list[str], indent: str, where: str) -> list[str]:
    """``target = ...`` for every assignment in ``block``."""
    source = "\n".join(line[len(indent) :] if line.startswith(indent) else line for line in block)
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise MarkerError(f"{where}: the value block does not parse: {exc}") from exc
    targets: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets += [ast.unparse(t) for t in node.targets]
        elif isinstance(node, ast.AnnAssign):
            targets.append(ast.unparse(node.target))
        else:
            raise MarkerError(f"{where}: a `# BEGIN SOLUTION value` block may only hold assignments")
    if not targets:
        raise MarkerError(f"{where}: the value block assigns nothing")
    return [f"{indent}{target} = ...  # your answer" for target in targets]


def strip_solutions(source: str, where: str = "cell") -> tuple[str, int]:
    """Replace each marked block of ``source`` by its stub; return the new source and the count.

    >>> code = "def f(x):\\n    # BEGIN SOLUTION\\n    return x\\n    # END SOLUTION"
    >>> print(strip_solutions(code)[0])
    def f(x):
        raise NotImplementedError("f: write your code here")
    """
    lines = source.split("\n")
    out: list[str] = []
    count, i = 0, 0
    while i < len(lines):
        begin = BEGIN.match(lines[i])
        if END.match(lines[i]):
            raise MarkerError(f"{where}, line {i + 1}: END SOLUTION without BEGIN SOLUTION")
        if not begin:
            out.append(lines[i])
            i += 1
            continue
        end = next(
            (j for j in range(i + 1, len(lines)) if END.match(lines[j]) or BEGIN.match(lines[j])), None
        )
        if end is None or BEGIN.match(lines[end]):
            raise MarkerError(f"{where}, line {i + 1}: BEGIN SOLUTION without END SOLUTION")
        indent, block = begin["indent"], lines[i + 1 : end]
        if begin["value"]:
            out += _value_stub(block, indent, f"{where}, line {i + 1}")
        else:
            name = _enclosing_name(lines, i, indent)
            message = f"{name}: write your code here" if name else "write your code here"
            out.append(f'{indent}raise NotImplementedError("{message}")')
        count += 1
        i = end + 1
    return "\n".join(out), count


def student_notebook(solution: nbformat.NotebookNode, name: str = "notebook") -> nbformat.NotebookNode:
    """The student version of a solution notebook (a new object; the input is not changed)."""
    nb = nbformat.from_dict(solution)
    cells, stubs = [], 0
    for number, cell in enumerate(nb.cells, start=1):
        tags = cell.get("metadata", {}).get("tags", [])
        if SOLUTION_ONLY in tags:
            continue
        where = f"{name}, cell {number}"
        if cell.cell_type == "code":
            cell.source, count = strip_solutions(cell.source, where)
            stubs += count
            cell.outputs = []
            cell.execution_count = None
            cell.metadata.pop("execution", None)
        elif BEGIN.search(cell.source) or "# END SOLUTION" in cell.source:
            raise MarkerError(f"{where}: solution markers belong in code cells; tag the cell solution-only")
        cells.append(cell)
    if stubs == 0:
        raise MarkerError(f"{name}: no `# BEGIN SOLUTION` block: nothing for the student to write")
    nb.cells = cells
    nb.metadata["language_info"] = dict(STUDENT_LANGUAGE_INFO)
    return nb


def render(nb: nbformat.NotebookNode) -> str:
    """The notebook as the exact text ``nbformat.write`` stores."""
    text = nbformat.writes(nb)
    return text if text.endswith("\n") else text + "\n"


def generate(solutions: Path = SOLUTIONS, out_dir: Path = LABS) -> list[Path]:
    """Write the student version of every ``solutions/*.ipynb`` into ``out_dir``; return the paths."""
    paths = []
    for path in sorted(solutions.glob("*.ipynb")):
        nb = student_notebook(nbformat.read(path, as_version=4), path.name)
        target = out_dir / path.name
        target.write_text(render(nb), encoding="utf-8")
        paths.append(target)
    if not paths:
        raise FileNotFoundError(f"no solution notebooks in {solutions}")
    return paths


def stale(solutions: Path = SOLUTIONS, out_dir: Path = LABS) -> list[str]:
    """Names of student notebooks that are missing or differ from what :func:`generate` writes."""
    problems = []
    for path in sorted(solutions.glob("*.ipynb")):
        want = render(student_notebook(nbformat.read(path, as_version=4), path.name))
        target = out_dir / path.name
        if not target.is_file():
            problems.append(f"{target.name}: missing")
        elif target.read_text(encoding="utf-8") != want:
            problems.append(f"{target.name}: differs from its solution notebook")
    known = {p.name for p in solutions.glob("*.ipynb")}
    problems += [
        f"{p.name}: has no solution notebook" for p in sorted(out_dir.glob("*.ipynb")) if p.name not in known
    ]
    return problems


def execute_solutions(solutions: Path = SOLUTIONS, timeout: int = 300) -> None:
    """Re-run every solution notebook in place, so its stored outputs are current."""
    from nbclient import NotebookClient

    for path in sorted(solutions.glob("*.ipynb")):
        print(f"executing {path.relative_to(ROOT)}")
        nb = nbformat.read(path, as_version=4)
        client = NotebookClient(
            nb,
            timeout=timeout,
            kernel_name="python3",
            record_timing=False,
            resources={"metadata": {"path": str(path.parent)}},
        )
        client.execute()
        nbformat.write(nb, path)


def lab_requirements(requirements: Path = ROOT / "requirements.txt") -> list[str]:
    """The pinned lines of ``requirements.txt`` for :data:`LAB_REQUIREMENTS`, plus JupyterLab."""
    pins = {}
    for line in requirements.read_text(encoding="utf-8").splitlines():
        name, sep, version = line.partition("==")
        if sep:
            pins[re.sub(r"[-_.]+", "-", name.strip().lower())] = line.strip()
    missing = [name for name in LAB_REQUIREMENTS if name not in pins]
    if missing:
        raise ValueError(f"requirements.txt pins no version of {', '.join(missing)}")
    return [pins[name] for name in LAB_REQUIREMENTS] + [JUPYTERLAB_PIN]


def build_wheel(out_dir: Path) -> Path:
    """Build the package's wheel into ``out_dir`` from a copy of its sources (the tree stays clean)."""
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "src"
        source.mkdir()
        for name in ("pyproject.toml", "README.md", *LICENCE_FILES):
            shutil.copy(ROOT / name, source / name)
        shutil.copytree(
            ROOT / "neardup_lab", source / "neardup_lab", ignore=shutil.ignore_patterns("__pycache__")
        )
        command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation"]
        subprocess.run([*command, str(source), "-w", str(out_dir)], check=True)
    wheels = sorted(out_dir.glob("neardup_lab-*.whl"))
    if len(wheels) != 1:
        raise RuntimeError(f"expected one wheel, got {[w.name for w in wheels]}")
    check_student_wheel(wheels[0])
    return wheels[0]


def check_student_wheel(wheel: Path) -> None:
    """Refuse a wheel that holds more than the package: grading cases and references stay with the grader.

    The grader's cases and the reference answers of the labs' questions live in
    ``labs/grading/``, outside the package, so the wheel never has them; this says so if
    that ever changes.
    """
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    stray = [n for n in names if not n.startswith("neardup_lab/") and ".dist-info/" not in n]
    grading = [
        n for n in names if "grading" in Path(n).parts or Path(n).stem.startswith("neardup_lab_grading")
    ]
    if stray or grading:
        raise RuntimeError(
            f"the student wheel holds files that are not the package's: {(stray + grading)[:5]}"
        )


def bundle(target: Path = BUNDLE) -> Path:
    """Write the student bundle (see the module docstring) to ``target``; return it."""
    problems = stale()
    if problems:
        raise RuntimeError("student notebooks out of date, run `make labs` first: " + "; ".join(problems))
    with tempfile.TemporaryDirectory() as tmp:
        wheel = build_wheel(Path(tmp))
        files: dict[str, Path | str] = {
            "README.md": LABS / "bundle" / "README.md",
            "requirements.txt": "\n".join([*lab_requirements(), f"./{wheel.name}"]) + "\n",
            wheel.name: wheel,
        }
        for name in LICENCE_FILES:
            files[name] = ROOT / name
        for notebook in sorted(LABS.glob("*.ipynb")):
            files[notebook.name] = notebook
        for folder, source in LAB_DATA.items():
            if not (source / "manifest.json").is_file():
                raise FileNotFoundError(f"{source}: lab 7's data is missing (tools/collect_licences.py)")
            for path in sorted(source.rglob("*")):
                if path.is_file():
                    files[f"{folder}/{path.relative_to(source).as_posix()}"] = path
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".part")
        with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for name, content in files.items():
                info = zipfile.ZipInfo(f"{BUNDLE_FOLDER}/{name}", date_time=(2026, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                data = content.encode("utf-8") if isinstance(content, str) else content.read_bytes()
                archive.writestr(info, data)
        partial.replace(target)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--check", action="store_true", help="only report out-of-date student notebooks")
    group.add_argument("--execute", action="store_true", help="re-run the solutions before generating")
    group.add_argument("--bundle", action="store_true", help=f"write the student bundle {BUNDLE.name}")
    args = parser.parse_args(argv)
    if args.bundle:
        print(f"wrote {bundle().relative_to(ROOT)}")
        return 0
    if args.check:
        problems = stale()
        for problem in problems:
            print(f"labs/{problem}; run `make labs`", file=sys.stderr)
        return 1 if problems else 0
    if args.execute:
        execute_solutions()
    for path in generate():
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
