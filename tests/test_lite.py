"""The book's in-browser Python (JupyterLite, Pyodide) gives the answers a laptop gives.

Run it after the book is built with its live parts (``make book``)::

    pytest -m browser -s tests/test_lite.py

The built site is served from ``_build/html`` on 127.0.0.1 and every request to another
host is blocked (``browser_support.Visit``): Python, its packages and the notebooks must
all come from the site. Three checks, each against a native run of the same code:

- lab 1, opened from its page's "Open in your browser" link, with the reference answers of
  ``labs/solutions/`` typed into its exercise cells and every cell run: the same self-check
  verdicts (``PASS``/``FAIL`` lines and the summary);
- the "Try it" console of the MinHash chapter: the same printed lines;
- a small ``dedup`` in the console: the same clusters and keepers, and the same MinHash
  signatures (digests of both).

It prints the time from opening the notebook to its first output, and the site's size.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from browser_support import ROOT, SITE, Visit, launch_chromium, serve_site

pytestmark = pytest.mark.browser

LITE = SITE / "lite"
LAB = "lab01_shingles_jaccard"
SOLUTION = ROOT / "labs" / "solutions" / f"{LAB}.ipynb"
STUDENT = ROOT / "labs" / f"{LAB}.ipynb"
CHAPTER = "book/04_minhash"
#: Pyodide starting and loading numpy and scipy takes tens of seconds on two busy cores.
START_MS = 240_000
VERDICT = re.compile(r"^(PASS|FAIL) \w+:.*$|^lab\d\d: \d+ of \d+ checks pass$", re.MULTILINE)
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
OUTPUTS_JS = """
(root) => Array.from((root || document).querySelectorAll('.jp-OutputArea-output'))
    .map((el) => el.innerText)
"""


def _native(code: str) -> str:
    """What ``code`` prints in this Python (the laptop's answer)."""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    return run.stdout


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
    if not (LITE / "jupyter-lite.json").is_file():
        message = "_build/html/lite not built: `make book` could not fetch the pinned Pyodide files"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    print(f"\n[lite] {_site_size()}")
    with serve_site() as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with launch_chromium() as chromium:
        yield chromium


def _external(visit: Visit) -> list[str]:
    """The requests to other hosts (blocked); other problems of the JupyterLite app are printed.

    The kernel's file system asks the site for files that do not exist (HTTP 404 under
    ``lite/api/contents/``) while Python looks for modules: that is how it works, not a fault.
    """
    others = [p for p in visit.problems if "external request" not in p and "/lite/api/contents/" not in p]
    if others:
        print("[lite] other console messages:\n  " + "\n  ".join(others[:10]))
    return [p for p in visit.problems if "external request" in p]


def _wait_outputs(frame, pattern: str, timeout: int = START_MS) -> list[str]:
    """The output texts of the page (or frame), once one of them matches ``pattern`` or shows an error."""
    frame.wait_for_function(
        f"""() => Array.from(document.querySelectorAll('.jp-OutputArea-output'))
            .some((el) => /{pattern}|Error:/.test(el.innerText))""",
        timeout=timeout,
    )
    return frame.evaluate(OUTPUTS_JS)


def _python_error(outputs: list[str]) -> str | None:
    errors = [text for text in outputs if re.search(r"^\w*Error: ", text, re.MULTILINE)]
    return "Python error in the browser:\n" + errors[0][-1500:] if errors else None


# ------------------------------------------------------------------------ lab 1


def _solution_cells() -> list[str]:
    """The solution's code cells, in the order of the student notebook's code cells."""
    solution = nbformat.read(SOLUTION, as_version=4)
    cells = [c for c in solution.cells if "solution-only" not in c.metadata.get("tags", [])]
    student = nbformat.read(STUDENT, as_version=4)
    assert len(cells) == len(student.cells), "student notebook out of date: run `make labs`"
    return [c.source for c in cells if c.cell_type == "code"]


def _native_verdicts() -> list[str]:
    """The self-check verdicts of the solution notebook run here, in a Jupyter kernel."""
    from nbclient import NotebookClient

    nb = nbformat.read(SOLUTION, as_version=4)
    resources = {"metadata": {"path": str(SOLUTION.parent)}}
    NotebookClient(nb, timeout=300, kernel_name="python3", resources=resources).execute()
    text = "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    return [m.group(0) for m in VERDICT.finditer(text)]


def test_lab1_runs_in_the_browser_with_the_native_verdicts(site: str, browser) -> None:
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
        page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
        page.wait_for_function(
            "() => document.querySelectorAll('.jp-OutputArea-output').length > 0", timeout=START_MS
        )
        first = time.monotonic() - started
        outputs = _wait_outputs(page, r"checks pass")
        total = time.monotonic() - started
        print(f"\n[lite] lab 1: first output {first:.1f} s after opening, all cells {total:.1f} s")
        browser_verdicts = [m.group(0) for m in VERDICT.finditer("\n".join(outputs))]
        assert _external(visit) == []
    assert _python_error(outputs) is None, _python_error(outputs)
    native = _native_verdicts()
    assert native, "the native run printed no verdict"
    assert browser_verdicts == native


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
        outputs = _wait_outputs(handle, "true Jaccard")
        print(f"\n[lite] {CHAPTER} 'Try it': first output {time.monotonic() - started:.1f} s after the click")
        assert _external(visit) == []
    assert _python_error(outputs) is None, _python_error(outputs)
    assert "\n".join(o.strip() for o in outputs).strip() == _native(code).strip()


# ---------------------------------------------------------------------- dedup


def test_dedup_in_the_browser_equals_native(site: str, browser) -> None:
    query = urllib.parse.urlencode({"kernel": "python", "execute": "1", "code": DEDUP_CODE})
    with Visit(browser, f"{site}lite/repl/index.html?{query}") as visit:
        started = time.monotonic()
        outputs = _wait_outputs(visit.page, "DEDUP")
        print(f"\n[lite] dedup in the console: {time.monotonic() - started:.1f} s after the page loaded")
        assert _external(visit) == []
    assert _python_error(outputs) is None, _python_error(outputs)
    browser_line = next(line for o in outputs for line in o.splitlines() if line.startswith("DEDUP"))
    assert browser_line == _native(DEDUP_CODE).strip()
