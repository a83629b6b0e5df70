"""Run axe-core, the accessibility engine, on every page of the built book.

Run it after the book is built (``make book``)::

    pytest -m browser tests/test_accessibility.py

Every ``.html`` page under ``_build/html`` (but those in ``NOT_PAGES``, each with its
reason) is opened in headless Chromium, all in one browser context, and checked once
its scripts have run: the book's own repairs (``_static/a11y.js``), MathJax, and the
explorable widgets (class ``nd-explorable``: checked like any other content once they
have rendered, and their controls must be reachable with the keyboard). The vendored
axe-core (``tests/vendor/axe-core``) checks each page against WCAG 2.0 and 2.1, levels
A and AA, and axe's best practices.

A page fails on any violation, naming the page, the rule and the elements, unless the
violation is moderate or minor and an entry of ``ALLOWED`` covers that element, with
its reason. Critical and serious violations are never allowed. An entry that no page
needs any more fails the last test, so the list can only shrink.

Speed: two tabs take turns, so one page
loads while axe checks the other. And repeated text is thinned out before axe runs
(``_SHRINK_REPEATED_TEXT_JS``): highlighted code has one ``<span>`` per token, some
pages thousands. Whether text has enough contrast depends only on its colour, font
size and weight and on what lies behind it, so of the text elements that agree in all
of these (and in the classes of their ancestors up to the first opaque background),
axe checks the first. Repeats that are bare ``<span class=...>`` -- no role, no
meaning to assistive technology -- are unwrapped into their text; other repeats are
only skipped by the contrast rule. Every other rule still sees all the text.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import pytest
from browser_support import ROOT, SITE, VIEWPORT, PlaywrightError, fail_if, launch_chromium, serve_site

pytestmark = pytest.mark.browser

AXE = ROOT / "tests" / "vendor" / "axe-core" / "axe.min.js"

#: What axe checks: WCAG 2.0 and 2.1, levels A and AA, and axe's best practices.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]

#: Impacts that always fail a page.
BLOCKING = {"critical", "serious"}

#: Files under _build/html that are not pages a reader sees, and why.
NOT_PAGES = {
    "index.html": "only redirects to the first page, which is checked itself "
    "(test_browser.py checks that the redirect lands there)",
}
#: Folders under _build/html holding no pages, and why.
NOT_PAGE_FOLDERS = {
    "_static": "the theme's assets; its .html files are Jinja macro templates, not pages",
}


class Allowance(NamedTuple):
    """A moderate or minor violation of ``rule`` that we accept on elements matching ``scope``."""

    rule: str
    scope: str  # CSS selector; the flagged element or one of its ancestors must match it
    reason: str


#: Moderate or minor violations we live with, each with its reason. An element outside
#: an allowance's scope still fails; critical and serious violations are never allowed.
ALLOWED = [
    Allowance(
        "empty-table-header",
        "th:has(mjx-container)",
        "A header that is only math, such as $h(x)$: MathJax draws the glyphs with CSS, so "
        "axe finds no text, but screen readers read the MathML MathJax adds beside them.",
    ),
]

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


# Listed at collection time; if the book is not built, one test says so.
PAGES = site_pages() or [_NOT_A_PAGE]


# ----------------------------------------------------------------- in the page

_READY_JS = """
async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  return true;
}
"""

_EXPLORABLES_RENDERED_JS = """
() => Array.from(document.querySelectorAll('.nd-explorable')).every((el) => el.children.length > 0)
"""

_SHRINK_REPEATED_TEXT_JS = """
(attribute) => {
  // The backdrop of an element: its tag, class, opacity, position and background, and
  // those of its ancestors up to the first with an opaque background. Memoised.
  const backdrops = new Map();
  const backdrop = (el) => {
    if (!el || el.nodeType !== 1) return 'root';
    if (backdrops.has(el)) return backdrops.get(el);
    const style = getComputedStyle(el);
    const own = [el.tagName, el.getAttribute('class') || '', style.opacity, style.position,
                 style.backgroundImage, style.backgroundColor].join(',');
    const opaque = style.backgroundImage === 'none' && /^rgb\\(/.test(style.backgroundColor);
    const value = opaque ? own : own + ' < ' + backdrop(el.parentElement);
    backdrops.set(el, value);
    return value;
  };
  // Elements with text of their own whose text looks like that of an earlier one.
  const repeats = () => {
    const seen = new Set();
    const out = [];
    for (const el of document.body.querySelectorAll('*')) {
      const ownText = Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.data.trim());
      if (!ownText || el.closest('svg, .nd-explorable')) continue;
      const style = getComputedStyle(el);
      if (style.position !== 'static' && style.position !== 'relative') continue;
      const key = [style.color, style.fontSize, style.fontWeight, style.textShadow, backdrop(el)].join('|');
      if (seen.has(key)) out.push(el); else seen.add(key);
    }
    return out;
  };
  // 1. Unwrap repeated bare spans into their text. Each parent's children are rebuilt at
  // once: one DOM mutation per parent (the theme's icon script watches every mutation).
  const bare = (el) => el.tagName === 'SPAN' && el.childElementCount === 0
    && Array.from(el.attributes).every((a) => a.name === 'class');
  const unwrap = new Set(repeats().filter(bare));
  for (const parent of new Set(Array.from(unwrap, (el) => el.parentNode))) {
    const children = [];
    for (const child of parent.childNodes) {
      const text = unwrap.has(child) ? child.textContent : child.nodeType === 3 ? child.data : null;
      if (text === null) children.push(child);
      else if (typeof children[children.length - 1] === 'string') children[children.length - 1] += text;
      else children.push(text);
    }
    parent.replaceChildren(...children);
  }
  // 2. Their parents now have text of their own: mark what still repeats, for the
  // contrast rule to skip.
  const marked = repeats();
  marked.forEach((el) => el.setAttribute(attribute, ''));
  return {unwrapped: unwrap.size, marked: marked.length};
}
"""

_START_AXE_JS = """
({tags, allowed, repeated}) => {
  axe.configure({rules: [{id: 'color-contrast', selector: `*:not([${repeated}])`}]});
  window.__ndAxe = axe.run(document, {
    runOnly: {type: 'tag', values: tags},
    resultTypes: ['violations'],
  }).then((results) => results.violations.map((v) => ({
    rule: v.id,
    impact: v.impact,
    help: v.help,
    nodes: v.nodes.map((n) => {
      let element = null;
      try { element = document.querySelector(n.target[n.target.length - 1]); } catch (e) {}
      const allowedBy = allowed.findIndex(([rule, scope]) =>
        rule === v.id && element !== null && element.closest(scope) !== null);
      return {target: n.target.join(' >>> '), html: n.html, summary: n.failureSummary || '', allowedBy};
    }),
  })));
  return true;
}
"""

_AXE_RESULT_JS = "() => window.__ndAxe"

_KEYBOARD_JS = """
() => {
  const controls = 'a[href], button, input, select, textarea, summary, [tabindex], [contenteditable]';
  const out = [];
  document.querySelectorAll('.nd-explorable').forEach((widget) => {
    widget.querySelectorAll(controls).forEach((el) => {
      if (el.disabled || el.type === 'hidden' || !el.getClientRects().length) return;
      if (el.tabIndex < 0) out.push(el.outerHTML.slice(0, 160));
    });
  });
  return out;
}
"""

REPEATED_TEXT = "data-axe-repeated-text"


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
        tab = check.tab
        try:
            tab.goto(f"{self.site}{page_name}", wait_until="load")
            tab.evaluate(_READY_JS)
            try:
                tab.wait_for_function(_EXPLORABLES_RENDERED_JS, timeout=10_000)
            except PlaywrightError:
                check.problems.append("an nd-explorable widget did not render within 10 s")
            for html in tab.evaluate(_KEYBOARD_JS):
                check.problems.append(f"explorable control not reachable with the keyboard: {html}")
            tab.evaluate(_SHRINK_REPEATED_TEXT_JS, REPEATED_TEXT)
            tab.evaluate(_START_AXE_JS, self._axe_options())  # returns at once; axe runs on
            check.axe_started = True
        except PlaywrightError as error:
            check.problems.append(f"could not open the page and start axe: {error}")

    def _finish(self, page_name: str) -> None:
        check = self.running.pop(page_name)
        violations: list[dict] = []
        if check.axe_started:
            try:
                violations = check.tab.evaluate(_AXE_RESULT_JS)
            except PlaywrightError as error:
                check.problems.append(f"axe-core did not finish: {error}")
        self.free.append(check.tab)
        self.done[page_name] = {"problems": check.problems, "violations": violations}

    @staticmethod
    def _axe_options() -> dict:
        return {
            "tags": AXE_TAGS,
            "allowed": [[allowance.rule, allowance.scope] for allowance in ALLOWED],
            "repeated": REPEATED_TEXT,
        }


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


#: index in ALLOWED -> pages on which that allowance was used (read by the last test).
_ALLOWANCES_USED: dict[int, set[str]] = defaultdict(set)
_PAGES_CHECKED: set[str] = set()


# ------------------------------------------------------------------------ tests


def _describe(violation: dict, nodes: list[dict]) -> str:
    shown = nodes[:5]
    lines = [f"{violation['rule']} ({violation['impact']}): {violation['help']}, {len(nodes)} element(s)"]
    for node in shown:
        html = " ".join(node["html"].split())[:160]
        summary = " ".join(node["summary"].split())[:220]
        lines.append(f"      at {node['target']}: {html}\n        {summary}")
    if len(nodes) > len(shown):
        lines.append(f"      ... and {len(nodes) - len(shown)} more")
    if violation["rule"] == "color-contrast":
        lines.append("      (text that looks the same elsewhere on the page was checked once, here)")
    return "\n".join(lines)


@pytest.mark.parametrize("page_name", PAGES)
def test_page_has_no_accessibility_violation(page_name: str, auditor: Auditor) -> None:
    if page_name == _NOT_A_PAGE:
        pytest.fail(f"{SITE.relative_to(ROOT)} has no pages: run `make book` first", pytrace=False)
    result = auditor.result(page_name)
    problems = list(result["problems"])
    for violation in result["violations"]:
        nodes = violation["nodes"]
        if violation["impact"] not in BLOCKING:
            for node in nodes:
                if node["allowedBy"] >= 0:
                    _ALLOWANCES_USED[node["allowedBy"]].add(page_name)
            nodes = [node for node in nodes if node["allowedBy"] < 0]
        if nodes:
            problems.append(_describe(violation, nodes))
    _PAGES_CHECKED.add(page_name)
    fail_if(problems, f"{page_name}: axe-core found")


def test_every_allowance_is_still_needed() -> None:
    """An allowance no page uses any more must be removed (runs after the page tests)."""
    if set(PAGES) - _PAGES_CHECKED:
        pytest.skip("not every page was checked in this run, so an unused allowance proves nothing")
    unused = [f"{a.rule} on {a.scope}" for i, a in enumerate(ALLOWED) if i not in _ALLOWANCES_USED]
    assert not unused, f"no page needs these ALLOWED entries any more; remove them: {unused}"
