"""axe-core on every page of the built book that ``test_browser.py`` does not open.

Run it after the book is built (``make book``)::

    pytest -m browser tests/test_browser.py tests/test_browser_axe.py

``test_browser.py`` runs axe on each page of ``_toc.yml`` in the visit that checks the
rest of that page; this module runs it on every other ``.html`` page under
``_build/html`` (the API source pages, the general index, search; but those in
``NOT_PAGES``, each with its reason), and then fails on an allowance of
``axe_support.ALLOWED`` that no page needed. What is checked and how: ``axe_support.py``.

Speed: two tabs take turns, so one page loads while axe checks the other.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from axe_support import (
    ALLOWANCES_USED,
    ALLOWED,
    AXE,
    PAGES_CHECKED,
    audit_result,
    page_problems,
    start_audit,
)
from browser_support import ROOT, SITE, VIEWPORT, PlaywrightError, fail_if, launch_chromium, serve_site
from test_browser import toc_pages

pytestmark = pytest.mark.browser

#: Files under _build/html that are not pages a reader sees, and why.
NOT_PAGES = {
    "index.html": "only redirects to the first page, which is checked itself "
    "(test_browser.py checks that the redirect lands there)",
}
#: Folders under _build/html holding no pages, and why.
NOT_PAGE_FOLDERS = {
    "_static": "the theme's assets; its .html files are Jinja macro templates, not pages",
    "lite": "the JupyterLite app (in-browser Python), not the book's pages; test_lite.py drives it",
}

_NOT_A_PAGE = "_build/html is not built"


def site_pages(site: Path = SITE) -> list[str]:
    """Every page of the built site, as paths relative to it, in sorted order."""
    pages = []
    for path in sorted(site.rglob("*.html")):
        relative = path.relative_to(site).as_posix()
        if relative in NOT_PAGES or relative.split("/", 1)[0] in NOT_PAGE_FOLDERS:
            continue
        pages.append(relative)
    return pages


#: The pages of _toc.yml, which test_browser.py checks with axe in its own visit.
TOC_PAGES = {f"{name}.html" for name in toc_pages()}
# Listed at collection time; if the book is not built, one test says so.
ALL_PAGES = site_pages()
PAGES = [page for page in ALL_PAGES if page not in TOC_PAGES] or [_NOT_A_PAGE]


# --------------------------------------------------------------- the auditor


@dataclass
class _Check:
    """One page being checked in one tab."""

    tab: object
    problems: list[str] = field(default_factory=list)
    axe_started: bool = False


class Auditor:
    """Checks pages in ``tabs`` browser tabs at once, in the order they are asked for.

    While axe runs in one tab (in that tab's own renderer process) the next page loads
    in another. ``result(page)`` starts that page unless it is running, starts the pages
    that follow it in ``order`` in the free tabs, and waits for its result:
    ``{"problems": [...], "violations": [...]}``.
    """

    def __init__(self, context, site: str, order: list[str], tabs: int = 2) -> None:
        self.site = site
        self.order = order
        self.free = [context.new_page() for _ in range(tabs)]
        for tab in self.free:
            tab.set_default_timeout(30_000)
        self.running: dict[str, _Check] = {}
        self.done: dict[str, dict] = {}

    def result(self, page_name: str) -> dict:
        if page_name not in self.running and page_name not in self.done:
            self._start(page_name)
        at = self.order.index(page_name) if page_name in self.order else len(self.order)
        for upcoming in self.order[at + 1 :]:
            if not self.free:
                break
            if upcoming not in self.running and upcoming not in self.done:
                self._start(upcoming)
        if page_name in self.running:
            self._finish(page_name)
        return self.done.pop(page_name)

    def _start(self, page_name: str) -> None:
        if not self.free:  # every tab holds a page asked for out of order: finish one
            self._finish(next(iter(self.running)))
        check = self.running[page_name] = _Check(self.free.pop())
        try:
            check.tab.goto(f"{self.site}{page_name}", wait_until="load")
            check.problems += start_audit(check.tab)
            check.axe_started = True
        except PlaywrightError as error:
            check.problems.append(f"could not open the page and start axe: {error}")

    def _finish(self, page_name: str) -> None:
        check = self.running.pop(page_name)
        violations: list[dict] = []
        if check.axe_started:
            try:
                violations = audit_result(check.tab)
            except PlaywrightError as error:
                check.problems.append(f"axe-core did not finish: {error}")
        self.free.append(check.tab)
        self.done[page_name] = {"problems": check.problems, "violations": violations}


# ----------------------------------------------------------------- the fixtures


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve_site() as url:
        yield url


@pytest.fixture(scope="module")
def auditor(site: str) -> Iterator[Auditor]:
    """One browser context for every page; axe is injected into each page before its scripts run."""
    if not AXE.is_file():
        pytest.fail(f"{AXE.relative_to(ROOT)} is missing: see tests/vendor/axe-core/README.md")
    with launch_chromium() as chromium:
        context = chromium.new_context(viewport=VIEWPORT)
        context.add_init_script(path=str(AXE))
        try:
            yield Auditor(context, site, PAGES)
        finally:
            context.close()


# ------------------------------------------------------------------------ tests


@pytest.mark.parametrize("page_name", PAGES)
def test_page_has_no_accessibility_violation(page_name: str, auditor: Auditor) -> None:
    if page_name == _NOT_A_PAGE:
        pytest.fail(f"{SITE.relative_to(ROOT)} has no pages: run `make book` first", pytrace=False)
    result = auditor.result(page_name)
    problems = result["problems"] + page_problems(page_name, result["violations"])
    fail_if(problems, f"{page_name}: axe-core found")


def test_every_allowance_is_still_needed() -> None:
    """An allowance no page uses any more must be removed (runs after every page test)."""
    unchecked = set(ALL_PAGES) - PAGES_CHECKED
    if unchecked or not ALL_PAGES:
        pytest.skip(
            f"{len(unchecked)} page(s) were not checked in this run (test_browser.py checks the "
            "pages of _toc.yml), so an unused allowance proves nothing"
        )
    unused = [f"{a.rule} on {a.scope}" for i, a in enumerate(ALLOWED) if i not in ALLOWANCES_USED]
    assert not unused, f"no page needs these ALLOWED entries any more; remove them: {unused}"
