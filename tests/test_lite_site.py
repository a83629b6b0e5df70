"""The in-browser site as a student and a teacher move around it: pages, menus, the file browser.

Run after ``make book``::

    pytest -m browser -s tests/test_lite_site.py

- every page of ``lite/`` (the apps and the pages that only send the reader on) lands on an
  app that was built, without looping and without a missing file;
- a notebook's menus offer *File -> Download* and nothing that leads to an app the site lacks;
  *File -> Open…* and the Jupyter logo open the file browser;
- a notebook uploaded in the file browser (a hand-in a teacher received, or work a student
  carries from another computer) is listed there and opens with its cells and outputs.

Downloading a lab and grading it is in ``test_lite.py``; every lab run in the page is in
``test_lite_labs.py``.
"""

from __future__ import annotations

import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from browser_support import Visit, launch_chromium
from lite_support import LITE, START_MS, external, lite_site, menu_labels

pytestmark = pytest.mark.browser

STUDENT = "labs/lab01_shingles_jaccard.ipynb"
#: Folders of the built JupyterLite that hold the apps' code and data, not pages to visit.
NOT_PAGES = {"build", "static", "extensions", "api", "files"}
APP_DRAWN = "() => document.querySelector('.jp-LabShell, #main, .jp-NotebookShell, .lm-Widget') !== null"


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with lite_site() as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with launch_chromium() as chromium:
        yield chromium


def _pages() -> list[str]:
    """Every HTML page of ``lite/`` outside the apps' code and data, as paths under the site."""
    pages = []
    for page in sorted(LITE.rglob("*.html")):
        relative = page.relative_to(LITE)
        if relative.parts[0] not in NOT_PAGES:
            pages.append("lite/" + relative.as_posix())
    return pages


def _shipped(site: str, url: str) -> bool:
    """Is ``url`` (on the site) a page that exists in the build, directly or as a folder's index?"""
    path = url.removeprefix(site).split("?")[0].split("#")[0]
    target = LITE.parent / path
    return target.is_file() or (target / "index.html").is_file()


def _landing(browser, url: str) -> tuple[str, list[str], list[str]]:
    """Where a visit to ``url`` ends, the page loads after it settled, and the files not found."""
    with Visit(browser, url) as visit:
        navigations: list[str] = []
        main = visit.page.main_frame
        visit.page.on("framenavigated", lambda frame: frame == main and navigations.append(frame.url))
        visit.page.wait_for_function(APP_DRAWN, timeout=START_MS)
        time.sleep(2)  # a page that reloads itself forever shows up as navigations here
        missing = [p for p in visit.problems if p.startswith("HTTP 404") and "/api/contents/" not in p]
        return visit.page.url, navigations, missing


def test_every_page_lands_on_an_app_that_was_built(site: str, browser) -> None:
    pages = _pages()
    assert "lite/index.html" in pages and "lite/tree/index.html" in pages, pages
    for page in pages:
        final, navigations, missing = _landing(browser, f"{site}{page}")
        assert _shipped(site, final), f"{page} ends at {final}, which the build does not have"
        assert not missing, f"{page}: {missing}"
        assert len(navigations) <= 1, f"{page} keeps navigating: {navigations}"
        print(f"\n[lite] {page} -> {final.removeprefix(site)}")


def test_notebook_menus_offer_download_and_open_only_what_is_built(site: str, browser) -> None:
    with Visit(browser, f"{site}lite/notebooks/index.html?path={STUDENT}") as visit:
        page = visit.page
        page.wait_for_selector(".jp-Notebook .jp-CodeCell .cm-content", timeout=START_MS)
        file_menu = menu_labels(page, "File")
        view_menu = menu_labels(page, "View")
        assert "Download" in file_menu, file_menu
        assert "Save and Export Notebook As" not in file_menu, "an export submenu with nothing in it"
        assert "Open JupyterLab" not in view_menu, "the JupyterLab app is not built"
        with page.expect_popup() as opened:
            page.locator(".lm-MenuBar-itemLabel", has_text="File").click()
            page.locator(".lm-Menu-itemLabel", has_text="Open…").click()
        tree = opened.value
        tree.wait_for_selector(".jp-DirListing-item", timeout=START_MS)
        assert _shipped(site, tree.url), f"File -> Open… opens {tree.url}"
        listed = tree.locator(".jp-DirListing-itemText").all_inner_texts()
        assert "labs" in listed, listed
        logo = page.locator("#jp-NotebookLogo").get_attribute("href")
        assert logo and _shipped(site, logo.rstrip("/") + "/"), f"the Jupyter logo leads to {logo}"
        assert external(visit) == []


def test_an_uploaded_notebook_is_listed_and_opens(site: str, browser, tmp_path: Path) -> None:
    """A teacher uploads a hand-in (with its outputs) in the file browser and opens it."""
    marker = f"handed in at {time.time_ns()}"
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("print('handed in')")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=marker + "\n")]
    nb.cells = [nbformat.v4.new_markdown_cell("# A hand-in"), cell]
    nb.metadata["kernelspec"] = {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}
    handin = tmp_path / "kim-lab01.ipynb"
    nbformat.write(nb, handin)
    with Visit(browser, f"{site}lite/tree/index.html") as visit:
        page = visit.page
        page.locator(".jp-DirListing-item", has_text="labs").dblclick()
        page.wait_for_selector(".jp-DirListing-item:has-text('lab01_shingles_jaccard')", timeout=START_MS)
        with page.expect_file_chooser() as chooser:
            page.locator(".jp-id-upload").click()
        chooser.value.set_files(str(handin))
        item = page.locator(".jp-DirListing-item", has_text=handin.name)
        item.wait_for(timeout=60_000)
        with page.expect_popup() as opened:
            item.dblclick()
        notebook = opened.value
        notebook.wait_for_selector(".jp-Notebook .jp-CodeCell .cm-content", timeout=START_MS)
        assert urllib.parse.parse_qs(urllib.parse.urlsplit(notebook.url).query)["path"] == [
            f"labs/{handin.name}"
        ], notebook.url
        notebook.wait_for_selector(f".jp-OutputArea-output:has-text('{marker}')", timeout=60_000)
        assert notebook.locator(".jp-CodeCell .cm-content").first.inner_text() == "print('handed in')"
        assert external(visit) == []
