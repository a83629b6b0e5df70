"""The student bundle: what ``make labs-bundle`` writes, and that it works on its own.

The zip must hold the student notebooks exactly as committed, the data lab 7 reads, the
package as a wheel, a requirements file pinned to requirements.txt, and a README that
states the Python version once and gives commands for Linux, macOS and Windows; and no
solution. Then, in a fresh virtual environment with only the bundle's requirements
installed (from the package registry; the test is skipped, saying so, when the registry
cannot be reached), lab 1 runs as a student gets it (every check reports "not
implemented yet"), its solution passes every check, and so does lab 7's, on the data
the bundle ships.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import venv
import zipfile
from pathlib import Path

import nbformat
import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
FOLDER = "neardup-lab-labs"


def _load_make_labs():
    spec = importlib.util.spec_from_file_location("make_labs", ROOT / "tools" / "make_labs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


make_labs = _load_make_labs()


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    """The bundle, built once and unpacked; returns its folder."""
    out = tmp_path_factory.mktemp("bundle")
    archive = make_labs.bundle(out / "labs.zip")
    with zipfile.ZipFile(archive) as zipped:
        names = zipped.namelist()
        assert all(name.startswith(f"{FOLDER}/") for name in names)
        zipped.extractall(out)
    return out / FOLDER


def test_makefile_target_builds_the_bundle():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    target = re.search(r"^labs-bundle:.*\n\t(.+)$", makefile, re.M)
    assert target and "tools/make_labs.py --bundle" in target.group(1)
    assert "labs-bundle" in re.search(r"^\.PHONY:.*$", makefile, re.M).group(0)
    assert make_labs.BUNDLE.is_relative_to(ROOT / "_build"), "the bundle stays out of git"


def test_bundle_holds_the_student_notebooks_and_no_solution(bundle):
    notebooks = sorted(p.name for p in bundle.glob("*.ipynb"))
    assert notebooks == sorted(p.name for p in (ROOT / "labs").glob("*.ipynb"))
    for name in notebooks:
        assert (bundle / name).read_bytes() == (ROOT / "labs" / name).read_bytes()
    every_file = [p for p in bundle.rglob("*") if p.is_file()]
    assert not any("solution" in p.name.lower() for p in every_file)
    for path in bundle.glob("*.ipynb"):
        for cell in nbformat.read(path, as_version=4).cells:
            assert "solution-only" not in cell.metadata.get("tags", [])
            assert "BEGIN SOLUTION" not in cell.source and not cell.source.startswith("**Answer.**")


def test_bundle_ships_the_data_lab_7_reads(bundle):
    manifest = json.loads((bundle / "data" / "licences" / "manifest.json").read_text(encoding="utf-8"))
    for entry in manifest["files"]:
        shipped = bundle / "data" / "licences" / entry["file"]
        assert shipped.is_file() and shipped.stat().st_size == entry["bytes"], entry["file"]


def test_bundle_carries_both_licences(bundle):
    for name in ("LICENSE", "LICENSE-CONTENT"):
        assert (bundle / name).read_bytes() == (ROOT / name).read_bytes(), name
    readme = (bundle / "README.md").read_text(encoding="utf-8")
    assert "## Licence" in readme and "CC BY 4.0" in readme and "MIT" in readme
    (wheel,) = bundle.glob("neardup_lab-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        in_wheel = {Path(n).name for n in archive.namelist() if ".dist-info/" in n}
    assert {"LICENSE", "LICENSE-CONTENT"} <= in_wheel, sorted(in_wheel)


def test_requirements_are_minimal_and_pinned_like_the_book(bundle):
    lines = (bundle / "requirements.txt").read_text(encoding="utf-8").split()
    book = dict(
        line.split("==")
        for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").split()
        if "==" in line
    )
    names = [line.split("==")[0] for line in lines if "==" in line]
    assert set(names) >= {"numpy", "scipy", "xxhash", "matplotlib", "tqdm", "jupyterlab"}
    assert len(lines) <= 9, "only what the labs need"
    for line in lines:
        if "==" in line:
            name, version = line.split("==")
            assert name == "jupyterlab" or book[name] == version, line
    wheel = [line for line in lines if line.endswith(".whl")]
    assert len(wheel) == 1 and (bundle / wheel[0]).is_file()


def test_readme_states_the_python_version_once_and_every_system(bundle):
    readme = (bundle / "README.md").read_text(encoding="utf-8")
    versions = re.findall(r"Python (3\.\d+)", readme)
    assert versions == ["3.11"], versions
    assert re.search(r'requires-python = ">=3\.11"', (ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "**Linux and macOS**" in readme and "**Windows**" in readme
    assert ".venv/bin/python -m pip install -r requirements.txt" in readme
    assert r".venv\Scripts\python -m pip install -r requirements.txt" in readme
    assert "solution" not in readme.lower()


def _registry_reachable(python: Path, folder: Path) -> str:
    """An empty string when a small pinned wheel can be fetched, else why not."""
    pin = next(
        line for line in (folder / "requirements.txt").read_text().split() if line.startswith("tqdm==")
    )
    probe = subprocess.run(
        [str(python), "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(folder / ".probe"), pin],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return "" if probe.returncode == 0 else " ".join(probe.stderr.strip().splitlines()[-1:]) or "pip failed"


def _execute(environment: Path, notebook: Path) -> str:
    """Run a notebook with the environment's own Jupyter; return its text outputs."""
    scripts = environment / ("Scripts" if os.name == "nt" else "bin")
    env = {**os.environ, "PATH": f"{scripts}{os.pathsep}{os.environ['PATH']}"}
    env.pop("PYTHONPATH", None)
    done = subprocess.run(
        [str(scripts / "jupyter"), "nbconvert", "--to", "notebook", "--execute", "--inplace", notebook.name],
        cwd=notebook.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    nb = nbformat.read(notebook, as_version=4)
    return "\n".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", []))


def test_labs_run_in_a_fresh_environment_with_only_the_bundle(bundle, tmp_path):
    environment = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(environment)
    python = environment / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    why = _registry_reachable(python, bundle)
    if why:
        pytest.skip(f"the package registry cannot be reached, so the bundle cannot be installed: {why}")
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "-r", "requirements.txt"],
        cwd=bundle,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    where = subprocess.run(
        [str(python), "-c", "import neardup_lab; print(neardup_lab.__file__)"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    assert Path(where.stdout.strip()).is_relative_to(environment), where.stdout

    student = _execute(environment, bundle / "lab01_shingles_jaccard.ipynb")
    assert "lab01: 0 of 4 checks pass" in student
    assert "FAIL check_jaccard: not implemented yet: my_jaccard" in student

    solution = bundle / "lab01_solved.ipynb"
    shutil.copy(ROOT / "labs" / "solutions" / "lab01_shingles_jaccard.ipynb", solution)
    solved = _execute(environment, solution)
    assert "lab01: 4 of 4 checks pass" in solved
    assert "FAIL" not in solved

    # Lab 7 reads the licence files the bundle ships in data/licences (there is no repository here).
    real_text = bundle / "lab07_solved.ipynb"
    shutil.copy(ROOT / "labs" / "solutions" / "lab07_real_text.ipynb", real_text)
    assert "lab07: 3 of 3 checks pass" in _execute(environment, real_text)
