"""The API reference reads on a phone: nothing on ``book/api.html`` is wider than a 375 px screen.

Long signatures, type hints and inline code are runs Sphinx marks unbreakable; the book's
CSS (``_static/a11y.css``) lets them wrap, and tables scroll inside their own box. Needs the
built book (``make book``) and Chromium, like the other browser tests.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from browser_support import SITE, Visit, fail_if, launch_chromium, serve_site

pytestmark = pytest.mark.browser

PHONE = {"width": 375, "height": 812}
#: The page built from book/api.md (its place in _toc.yml).
API_PAGE = "book/api.html"

#: The outermost elements that reach past the right edge of the screen and are not inside a
#: box that scrolls on its own: what to fix when the page is too wide.
STICKING_OUT = """() => {
    const width = document.documentElement.clientWidth;
    const found = new Set();
    const shown = [];
    for (const element of document.querySelectorAll('.bd-article *')) {
        const box = element.getBoundingClientRect();
        if (box.width === 0 || box.right <= width + 0.5) continue;
        let parent = element.parentElement, inside = false;
        for (; parent && parent !== document.body; parent = parent.parentElement) {
            if (found.has(parent)) { inside = true; break; }
            const scrolls = getComputedStyle(parent).overflowX !== 'visible';
            if (scrolls && parent.getBoundingClientRect().right <= width + 0.5) { inside = true; break; }
        }
        if (inside) continue;
        found.add(element);
        const text = element.textContent.replace(/\\s+/g, ' ').trim().slice(0, 60);
        shown.push(`<${element.tagName.toLowerCase()} class="${element.className}"> ends at ` +
                   `${Math.round(box.right)} px: ${text}`);
    }
    return shown.slice(0, 10);
}"""


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with serve_site() as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with launch_chromium() as chromium:
        yield chromium


def test_the_api_page_fits_a_phone_screen(browser, site: str) -> None:
    if not (SITE / API_PAGE).is_file():
        pytest.fail(f"{API_PAGE} is not in the built book: is book/api still in _toc.yml?", pytrace=False)
    context = browser.new_context(viewport=PHONE)
    try:
        with Visit(browser, f"{site}{API_PAGE}", context=context) as visit:
            page = visit.page
            signatures = page.locator("dl.py > dt.sig").count()
            scroll_width = page.evaluate("() => document.documentElement.scrollWidth")
            sticking_out = page.evaluate(STICKING_OUT) if scroll_width > PHONE["width"] else []
            problems = list(visit.problems)
    finally:
        context.close()
    assert signatures > 0, f"{API_PAGE} documents no function or class: could autodoc import the package?"
    assert scroll_width <= PHONE["width"], (
        f"{API_PAGE} is {scroll_width} px wide on a {PHONE['width']} px screen; sticking out:\n  "
        + "\n  ".join(sticking_out)
    )
    fail_if(problems, f"{API_PAGE} at {PHONE['width']} px")
