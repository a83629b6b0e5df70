"""The labs' solution notebooks, run in the page, print the verdicts they print on a laptop (labs
2, 4 and 7, whose parts differ in a page, run solved in ``test_labs_browser.py``, which compares
every printed output).

Run after ``make book``::

    pytest -m browser -s tests/test_lite_labs.py

The solution notebooks are not part of the site (students must not find them there), so
the test puts them in as a teacher puts a hand-in: uploaded through the file browser into
``labs/``, next to the student notebooks and the data lab 7 reads. Each is then opened in
the notebook app and run (*Run -> Run All Cells*) in a fresh kernel, and must print

- the same self-check verdicts (``PASS``/``FAIL`` lines and the summary) as the same
  notebook executed here by nbclient, and
- nothing on stderr (drawn red in the page): a clean start says nothing (matplotlib's font
  cache, say, is not rebuilt on every start), and no cell fails.

One browser context serves all seven, so Pyodide and its packages are fetched once; each
notebook still gets its own kernel. The native runs go on in a thread beside the browser
(two cores: the kernel's worker on one, nbclient's kernel on the other). Per lab it prints
the seconds from opening the notebook to the end of its last cell, and the native seconds.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest
from browser_support import ROOT, Visit, launch_chromium
from lite_support import (
    START_MS,
    STDERR_JS,
    external,
    lite_site,
    native_verdicts,
    python_error,
    run_all,
    verdicts,
)

pytestmark = pytest.mark.browser

#: Labs 2, 4 and 7 (parts that differ in a page) run solved in test_labs_browser.py, every printed
#: output compared there; these are the other four.
SOLUTIONS = sorted((ROOT / "labs" / "solutions").glob("lab*.ipynb"))
SOLVED_ELSEWHERE = ("lab02_minhash", "lab04_dedup_end_to_end", "lab07_real_text")
LABS = [path.stem for path in SOLUTIONS if path.stem not in SOLVED_ELSEWHERE]


def _uploaded_name(lab: str) -> str:
    return f"{lab}-solution.ipynb"


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with lite_site() as url:
        yield url


@pytest.fixture(scope="module")
def native() -> Iterator[dict[str, Future]]:
    """Each solution's native verdicts, computed one after another in a thread while the browser works."""

    def timed(path: Path) -> tuple[list[str], float]:
        started = time.monotonic()
        return native_verdicts(path), time.monotonic() - started

    with ThreadPoolExecutor(max_workers=1) as pool:
        yield {path.stem: pool.submit(timed, path) for path in SOLUTIONS if path.stem in LABS}


@pytest.fixture(scope="module")
def context(site: str, native: dict[str, Future]) -> Iterator[object]:
    """One browser context with the seven solution notebooks uploaded into ``labs/`` in the file browser."""
    assert len(SOLUTIONS) == 7, [path.name for path in SOLUTIONS]
    with launch_chromium() as browser:
        context = browser.new_context()
        try:
            with Visit(browser, f"{site}lite/tree/index.html", context=context) as visit:
                page = visit.page
                page.locator(".jp-DirListing-item", has_text="labs").dblclick()
                page.wait_for_selector(".jp-DirListing-item:has-text('lab01_')", timeout=START_MS)
                with page.expect_file_chooser() as chooser:
                    page.locator(".jp-id-upload").click()
                files = [
                    {"name": _uploaded_name(p.stem), "mimeType": "application/json", "buffer": p.read_bytes()}
                    for p in SOLUTIONS
                ]
                chooser.value.set_files(files=files)
                for path in SOLUTIONS:
                    item = page.locator(".jp-DirListing-item", has_text=_uploaded_name(path.stem))
                    item.wait_for(timeout=60_000)
                assert external(visit) == []
            yield context
        finally:
            context.close()


@pytest.mark.parametrize("lab", LABS)
def test_solution_in_the_page_prints_the_native_verdicts_and_nothing_red(
    lab: str, site: str, context, native: dict[str, Future]
) -> None:
    url = f"{site}lite/notebooks/index.html?path=labs/{_uploaded_name(lab)}"
    started = time.monotonic()
    with Visit(None, url, context=context) as visit:
        outputs = run_all(visit.page)
        seconds = time.monotonic() - started
        red = visit.page.evaluate(STDERR_JS)
        blocked = external(visit)
    native_lines, native_seconds = native[lab].result(timeout=900)
    print(f"\n[lite] {lab}: in the page {seconds:.1f} s (opening included), native {native_seconds:.1f} s")
    assert blocked == []
    assert python_error(outputs) is None, python_error(outputs)
    assert red == [], f"{lab} wrote to stderr in the page:\n" + "\n".join(text[-800:] for text in red)
    assert native_lines, f"{lab}: the native run printed no verdict"
    assert verdicts("\n".join(outputs)) == native_lines
