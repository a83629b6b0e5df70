"""The book's in-browser Python (JupyterLite, Pyodide) gives the answers a laptop gives.

Run it after the book is built with its live parts (``make book``)::

    pytest -m browser -s tests/test_lite.py

The built site is served from ``_build/html`` on 127.0.0.1 and every request to another
host is blocked (``browser_support.Visit``): Python, its packages and the notebooks must
all come from the site. The checks, each against a native run of the same code:

- lab 1, opened from its page's "Open in your browser" link, with the reference answers of
  ``labs/solutions/`` typed into its exercise cells and every cell run: the same self-check
  verdicts (``PASS``/``FAIL`` lines and the summary);
- that notebook, handed in as the lab page says (*File -> Download*), graded by
  ``labs/grade.py``: full marks;
- the "Try it" console of the MinHash chapter: the same printed lines;
- a small ``dedup`` in the console: the same clusters and keepers, and the same MinHash
  signatures (digests of both).

It prints the time from opening the notebook to its first output, and the site's size.
The other labs, the file browser and the held-out probe are in ``test_lite_labs.py``,
``test_lite_site.py`` and ``test_lite_probe.py``.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import textwrap
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from browser_support import ROOT, SITE, Visit, launch_chromium
from lite_support import (
    LITE,
    START_MS,
    external,
    lite_site,
    menu,
    native,
    native_verdicts,
    python_error,
    run_all,
    verdicts,
    wait_outputs,
)

pytestmark = pytest.mark.browser

LAB = "lab01_shingles_jaccard"
SOLUTION = ROOT / "labs" / "solutions" / f"{LAB}.ipynb"
STUDENT = ROOT / "labs" / f"{LAB}.ipynb"
CHAPTER = "book/04_minhash"
DEDUP_CODE = textwrap.dedent(
    """\
    import hashlib, json
    from neardup_lab import MinHasher, dedup, make_article, replace_words, word_shingles
    originals = [make_article(seed=i, n_words=120) for i in range(40)]
    docs = originals + [replace_words(originals[i], 3, seed=100 + i) for i in range(0, 40, 3)]
    result = dedup(docs, threshold=0.8)
    signatures = MinHasher(num_perm=64, seed=5).signatures([word_shingles(doc) for doc in docs])
    digest = lambda data: hashlib.sha256(data).hexdigest()[:16]
    print("DEDUP", digest(json.dumps([result.clusters, result.keepers]).encode()),
          digest(signatures.tobytes()), len(result.clusters), "clusters")
    """
)
GRADE = ROOT / "labs" / "grade.py"


def _site_size() -> str:
    def size(path: Path) -> float:
        return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6

    pyodide = size(LITE / "static" / "pyodide")
    return (
        f"site {size(SITE):.0f} MB, of which JupyterLite {size(LITE):.0f} MB "
        f"(Pyodide and packages {pyodide:.0f} MB)"
    )


# ----------------------------------------------------------------- the fixtures


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with lite_site() as url:
        print(f"\n[lite] {_site_size()}")
        yield url


@pytest.fixture(scope="module")
def browser():
    with launch_chromium() as chromium:
        yield chromium


# ------------------------------------------------------------------------ lab 1


def _solution_cells() -> list[str]:
    """The solution's code cells, in the order of the student notebook's code cells."""
    solution = nbformat.read(SOLUTION, as_version=4)
    cells = [c for c in solution.cells if "solution-only" not in c.metadata.get("tags", [])]
    student = nbformat.read(STUDENT, as_version=4)
    assert len(cells) == len(student.cells), "student notebook out of date: run `make labs`"
    return [c.source for c in cells if c.cell_type == "code"]


@pytest.fixture(scope="module")
def lab1(site: str, browser) -> Iterator[tuple[Visit, list[str]]]:
    """Lab 1 opened from its page, the reference answers typed in, all run: the page and its outputs."""
    with Visit(browser, f"{site}labs/{LAB}.html") as visit:
        link = visit.page.locator("a.lite-open-link")
        assert link.count() == 1, "the lab page has no 'Open in your browser' link"
        started = time.monotonic()
        link.click()
        page = visit.page
        page.wait_for_selector(".jp-Notebook .jp-CodeCell .cm-content", timeout=START_MS)
        sources = _solution_cells()
        all_drawn = "(n) => document.querySelectorAll('.jp-Notebook .jp-CodeCell .cm-content').length >= n"
        page.wait_for_function(all_drawn, arg=len(sources))
        cells = page.locator(".jp-Notebook .jp-CodeCell")
        assert cells.count() == len(sources)
        for index, source in enumerate(sources):
            if "# BEGIN SOLUTION" not in source:
                continue
            editor = cells.nth(index).locator(".cm-content")
            editor.click()
            page.keyboard.press("Control+a")
            page.keyboard.insert_text(source)
        outputs = run_all(page)
        seconds = time.monotonic() - started
        print(f"\n[lite] lab 1: answers typed and every cell run {seconds:.1f} s after opening")
        yield visit, outputs


def test_lab1_runs_in_the_browser_with_the_native_verdicts(lab1) -> None:
    visit, outputs = lab1
    assert external(visit) == []
    assert python_error(outputs) is None, python_error(outputs)
    native_lines = native_verdicts(SOLUTION)
    assert native_lines, "the native run printed no verdict"
    assert verdicts("\n".join(outputs)) == native_lines


def test_lab1_handed_in_with_file_download_gets_full_marks(lab1, tmp_path: Path) -> None:
    """The hand-in path the lab page describes: save, File -> Download, the teacher grades the file."""
    visit, _ = lab1
    page = visit.page
    with page.expect_download(timeout=60_000) as download:
        menu(page, "File", "Download")
    handed_in = tmp_path / download.value.suggested_filename
    download.value.save_as(handed_in)
    # the browser names it after the notebook's path, "/" made "_": labs_lab01_....ipynb
    assert handed_in.name.endswith(f"{LAB}.ipynb"), handed_in.name
    nb = nbformat.read(handed_in, as_version=4)
    typed = [c.source for c in nb.cells if c.cell_type == "code" and "# BEGIN SOLUTION" in c.source]
    assert typed, "the downloaded notebook does not hold the answers typed in the page"
    report = tmp_path / "grades.csv"
    started = time.monotonic()
    graded = subprocess.run(
        [sys.executable, str(GRADE), "--csv", str(report), str(handed_in)],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )
    print(f"\n[lite] lab 1 downloaded from the page and graded in {time.monotonic() - started:.1f} s")
    assert graded.returncode == 0, graded.stdout[-2000:] + graded.stderr[-2000:]
    with report.open(encoding="utf-8", newline="") as grades:
        (row,) = list(csv.DictReader(grades))
    assert row["lab"] == "lab01" and row["problems"] == "", row
    assert float(row["points"]) == float(row["max_points"]) > 0, row


# ------------------------------------------------------------- a chapter's cell


def _replite_code(chapter: str) -> str:
    """The code of the chapter's ``{replite}`` cell, as its directive holds it."""
    nb = json.loads((ROOT / f"{chapter}.ipynb").read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown" and "```{replite}" in source:
            body = source.split("```{replite}", 1)[1].split("```", 1)[0]
            return body.split("\n\n", 1)[1]  # after the directive's options
    raise AssertionError(f"{chapter}.ipynb has no {{replite}} cell")


def test_chapter_try_it_cell_prints_the_native_lines(site: str, browser) -> None:
    code = _replite_code(CHAPTER)
    with Visit(browser, f"{site}{CHAPTER}.html") as visit:
        started = time.monotonic()
        visit.page.locator(".jupyterlite_sphinx_try_it_button").first.click()
        frame = visit.page.frame_locator("iframe.jupyterlite_sphinx_iframe").first
        frame.locator(".jp-OutputArea-output").first.wait_for(timeout=START_MS)
        handle = visit.page.locator("iframe.jupyterlite_sphinx_iframe").first.element_handle().content_frame()
        outputs = wait_outputs(handle, "true Jaccard")
        print(f"\n[lite] {CHAPTER} 'Try it': first output {time.monotonic() - started:.1f} s after the click")
        assert external(visit) == []
    assert python_error(outputs) is None, python_error(outputs)
    assert "\n".join(o.strip() for o in outputs).strip() == native(code).strip()


# ---------------------------------------------------------------------- dedup


def test_dedup_in_the_browser_equals_native(site: str, browser) -> None:
    query = urllib.parse.urlencode({"kernel": "python", "execute": "1", "code": DEDUP_CODE})
    with Visit(browser, f"{site}lite/repl/index.html?{query}") as visit:
        started = time.monotonic()
        outputs = wait_outputs(visit.page, "DEDUP")
        print(f"\n[lite] dedup in the console: {time.monotonic() - started:.1f} s after the page loaded")
        assert external(visit) == []
    assert python_error(outputs) is None, python_error(outputs)
    browser_line = next(line for o in outputs for line in o.splitlines() if line.startswith("DEDUP"))
    assert browser_line == native(DEDUP_CODE).strip()
