"""Every lab works in the book's page (JupyterLite, Pyodide) as it works on a laptop.

Run it after the book is built with its live parts (``make book``)::

    pytest -m browser -s tests/test_labs_browser.py

Each lab is opened from its page's "Open in your browser" link, in headless Chromium with
every other host blocked, and run with the notebook's own *Run All Cells*:

- every student notebook as handed out: no Python error, every check says its exercise is
  not implemented (or answered) yet, and the summary counts none passing, as on a laptop
  (``tests/test_labs.py`` runs them there);
- labs 2, 4 and 7 with the reference answers typed in (the labs with parts that differ in a
  page: lab 2's process demo, lab 4's print of a text with line breaks, lab 7's data files):
  every printed output of every cell equal to the solution notebook's stored output (which
  nbval re-checks natively), timings masked by ``tests/sanitize.cfg``; lab 2's demo shows its
  note for the page in place of the lines it prints on a computer.
"""

from __future__ import annotations

import configparser
import re
import time
from collections.abc import Iterator

import nbformat
import pytest
from browser_support import ROOT, Visit, launch_chromium
from lite_support import lite_site
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from neardup_lab import checks

pytestmark = pytest.mark.browser

LABS = ROOT / "labs"
STUDENTS = sorted(LABS.glob("lab*.ipynb"))
#: Pyodide starting and loading numpy, scipy and matplotlib takes tens of seconds on two busy cores.
START_MS = 240_000
RUN_MS = 300_000
#: A Run All Cells the page lost (clicked while its kernel started) shows no queued cell by then.
QUEUED_MS = 60_000
VERDICT = re.compile(r"^(PASS|FAIL) \w+:.*$|^lab\d\d: \d+ of \d+ checks pass$", re.MULTILINE)
PYTHON_ERROR = re.compile(r"^\w*(Error|Exception): ", re.MULTILINE)
OUTPUTS_JS = "() => Array.from(document.querySelectorAll('.jp-OutputArea-output')).map((el) => el.innerText)"
#: Per code cell, the text of its printed output and results (no stderr, no figures).
CELL_TEXTS_JS = """
() => Array.from(document.querySelectorAll('.jp-Notebook .jp-CodeCell')).map((cell) =>
    Array.from(cell.querySelectorAll('.jp-OutputArea-output'))
        .filter((el) => ['application/vnd.jupyter.stdout', 'text/plain']
            .includes(el.getAttribute('data-mime-type')))
        .map((el) => el.innerText).join(''))
"""


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with lite_site() as url:  # a skip without the live parts, a failure under CI=true
        yield url


@pytest.fixture(scope="module")
def browser():
    with launch_chromium() as chromium:
        yield chromium


def _lab_id(path) -> str:
    return nbformat.read(path, as_version=4).metadata["neardup_lab"]["lab"]


def _solution_sources(student) -> list[str]:
    """The solution's code cells, in the order of the student notebook's code cells."""
    solution = nbformat.read(LABS / "solutions" / student.name, as_version=4)
    cells = [c for c in solution.cells if "solution-only" not in c.metadata.get("tags", [])]
    assert len(cells) == len(nbformat.read(student, as_version=4).cells), "run `make labs`"
    return [c.source for c in cells if c.cell_type == "code"]


def _stored_verdicts(student) -> list[str]:
    solution = nbformat.read(LABS / "solutions" / student.name, as_version=4)
    text = "\n".join(
        o.get("text", "")
        for c in solution.cells
        if c.cell_type == "code" and "solution-only" not in c.metadata.get("tags", [])
        for o in c.outputs
    )
    return [m.group(0) for m in VERDICT.finditer(text)]


def _sanitize(text: str) -> str:
    """``text`` with the run-to-run measurements masked as nbval masks them, lines right-stripped."""
    config = configparser.ConfigParser()
    config.read(ROOT / "tests" / "sanitize.cfg", encoding="utf-8")
    for section in config.sections():
        text = re.sub(config[section]["regex"], config[section]["replace"], text)
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def _stored_cell_texts(student) -> list[str]:
    """What the page shows per code cell, from the solution notebook's stored outputs."""
    solution = nbformat.read(LABS / "solutions" / student.name, as_version=4)
    texts = []
    for cell in solution.cells:
        if cell.cell_type != "code" or "solution-only" in cell.metadata.get("tags", []):
            continue
        parts = [
            o.text if o.output_type == "stream" else o.data.get("text/plain", "")
            for o in cell.outputs
            if (o.output_type == "stream" and o.name == "stdout") or o.output_type == "execute_result"
        ]
        texts.append("".join(parts))
    return texts


def _run_all_cells(page) -> None:
    """*Run -> Run All Cells*, clicked once more if no cell is queued or run a minute later."""
    queued = """() => document.querySelector('.jp-OutputArea-output') !== null || Array.from(
        document.querySelectorAll('.jp-InputPrompt')).some((el) => /\\[(\\*|\\d+)\\]/.test(el.innerText))"""
    for attempt in range(2):
        page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
        try:
            page.wait_for_function(queued, timeout=QUEUED_MS)
            return
        except PlaywrightTimeout:
            if attempt:
                raise


def _run_in_page(site: str, browser, student, solved: bool) -> tuple[list[str], list[str], list[str]]:
    """Open ``student`` from its lab page, type the answers in if ``solved``, run all cells.

    Returns the texts of the outputs, the printed text of each code cell, and the problems the
    page reported.
    """
    with Visit(browser, f"{site}labs/{student.stem}.html") as visit:
        page = visit.page
        page.locator("a.lite-open-link").click()
        page.wait_for_selector(".jp-Notebook .jp-CodeCell .cm-content", timeout=START_MS)
        sources = _solution_sources(student)
        drawn = "(n) => document.querySelectorAll('.jp-Notebook .jp-CodeCell .cm-content').length >= n"
        page.wait_for_function(drawn, arg=len(sources))
        cells = page.locator(".jp-Notebook .jp-CodeCell")
        assert cells.count() == len(sources)
        for index, source in enumerate(sources):
            if solved and "# BEGIN SOLUTION" in source:
                cells.nth(index).locator(".cm-content").click()
                page.keyboard.press("Control+a")
                page.keyboard.insert_text(source)
        started = time.monotonic()
        _run_all_cells(page)
        page.wait_for_function(
            """() => Array.from(document.querySelectorAll('.jp-OutputArea-output'))
                .some((el) => /checks pass|Traceback|Error: /.test(el.innerText))""",
            timeout=RUN_MS,
        )
        how = "solved" if solved else "as handed out"
        print(f"\n[labs] {student.stem} {how}: {time.monotonic() - started:.0f} s")
        outputs = page.evaluate(OUTPUTS_JS)
        cell_texts = page.evaluate(CELL_TEXTS_JS)
        problems = [p for p in visit.problems if "/lite/api/contents/" not in p]
    return outputs, cell_texts, problems


def _no_python_error(outputs: list[str]) -> None:
    errors = [text for text in outputs if PYTHON_ERROR.search(text) or "Traceback" in text]
    assert not errors, "Python error in the page:\n" + errors[0][-1500:]


@pytest.mark.parametrize("student", STUDENTS, ids=lambda p: p.stem)
def test_student_notebook_runs_in_the_page_as_handed_out(site: str, browser, student) -> None:
    outputs, _, problems = _run_in_page(site, browser, student, solved=False)
    assert not [p for p in problems if "external request" in p], problems
    _no_python_error(outputs)
    text = "\n".join(outputs)
    lab = _lab_id(student)
    for name in checks.LABS[lab]:
        line = re.search(rf"^FAIL {name}: (.*)$", text, re.MULTILINE)
        assert line, f"{name} reports nothing in the page"
        assert re.match(r"not (implemented|answered) yet", line.group(1)), line.group(0)
    assert f"{lab}: 0 of {len(checks.LABS[lab])} checks pass" in text
    assert "differs from the copy the lab came with" not in text


#: The labs with parts that differ in a page; test_lite_labs.py runs the other solutions there.
SOLVED_HERE = ["lab02_minhash", "lab04_dedup_end_to_end", "lab07_real_text"]


@pytest.mark.parametrize("name", SOLVED_HERE)
def test_solved_lab_prints_what_it_prints_natively(site: str, browser, name: str) -> None:
    student = LABS / f"{name}.ipynb"
    outputs, cell_texts, problems = _run_in_page(site, browser, student, solved=True)
    assert not [p for p in problems if "external request" in p], problems
    _no_python_error(outputs)
    text = "\n".join(outputs)
    assert [m.group(0) for m in VERDICT.finditer(text)] == _stored_verdicts(student)
    native = _stored_cell_texts(student)
    assert len(cell_texts) == len(native)
    for number, (page, stored) in enumerate(zip(cell_texts, native), start=1):
        if name == "lab02_minhash" and "same in both processes" in stored:
            first, _, rest = page.partition("\n")
            assert "This page cannot start Python processes" in first
            page = rest  # then the lines a computer prints, which must be the stored ones
        assert _sanitize(page) == _sanitize(stored), f"code cell {number} of {name}"
