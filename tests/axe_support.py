"""axe-core, the accessibility engine, run on a page of the built book: what the browser tests share.

A page is checked once its scripts have run: the book's own repairs (``_static/a11y.js``),
MathJax, and the explorable widgets (class ``nd-explorable``: checked like any other content
once they have rendered, and their controls must be reachable with the keyboard). The
vendored axe-core (``tests/vendor/axe-core``) checks it against WCAG 2.0 and 2.1, levels A
and AA, and axe's best practices.

A page fails on any violation, naming the page, the rule and the elements, unless the
violation is moderate or minor and an entry of ``ALLOWED`` covers that element, with its
reason. Critical and serious violations are never allowed.

The pages of ``_toc.yml`` are checked by ``test_browser.py`` in the visit that checks
everything else on them (a page load is most of the cost); every other page of the site
(the API source pages, the index, search) by ``test_browser_axe.py``, which also fails
on an allowance that no page needed.

Speed: repeated text is thinned out before axe runs (``SHRINK_REPEATED_TEXT_JS``):
highlighted code has one ``<span>`` per token, some pages thousands. Whether text has
enough contrast depends only on its colour, font size and weight and on what lies
behind it, so of the text elements that agree in all of these (and in the classes of
their ancestors up to the first opaque background), axe checks the first in the
session: the first on its page, and only if no earlier page had one (the theme's
sidebar, say, is checked on the first page). Repeats that are bare
``<span class=...>`` -- no role, no meaning to assistive technology -- are unwrapped
into their text; other repeats are only skipped by the contrast rule. Every other rule
still sees all the text.

Use::

    problems = start_audit(tab)      # after the page has loaded; axe runs on in the page
    problems += page_problems(page_name, audit_result(tab))
"""

from __future__ import annotations

from collections import defaultdict
from typing import NamedTuple

from browser_support import ROOT, PlaywrightError

__all__ = [
    "ALLOWED",
    "ALLOWANCES_USED",
    "AXE",
    "PAGES_CHECKED",
    "Allowance",
    "audit_result",
    "page_problems",
    "start_audit",
]

AXE = ROOT / "tests" / "vendor" / "axe-core" / "axe.min.js"

#: What axe checks: WCAG 2.0 and 2.1, levels A and AA, and axe's best practices.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]

#: Impacts that always fail a page.
BLOCKING = {"critical", "serious"}

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

SHRINK_REPEATED_TEXT_JS = """
({attribute, checkedKeys}) => {
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
  // Elements with text of their own, split into those whose text looks like that of an
  // earlier one (on this page or an earlier page) and the rest, which axe must check.
  const keysHere = new Set();
  const lookalikes = () => {
    const seen = new Set(checkedKeys);
    const repeats = [];
    const firsts = [];
    for (const el of document.body.querySelectorAll('*')) {
      const ownText = Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.data.trim());
      if (!ownText) continue;
      const style = getComputedStyle(el);
      const placed = style.position !== 'static' && style.position !== 'relative';
      if (placed || el.closest('svg, .nd-explorable')) {
        firsts.push(el);
        continue;
      }
      const key = [style.color, style.fontSize, style.fontWeight, style.textShadow, backdrop(el)].join('|');
      if (seen.has(key)) repeats.push(el);
      else { seen.add(key); keysHere.add(key); firsts.push(el); }
    }
    return {repeats, firsts};
  };
  // 1. Unwrap repeated bare spans into their text. Each parent's children are rebuilt at
  // once: one DOM mutation per parent (the theme's icon script watches every mutation).
  const bare = (el) => el.tagName === 'SPAN' && el.childElementCount === 0
    && Array.from(el.attributes).every((a) => a.name === 'class');
  const unwrap = new Set(lookalikes().repeats.filter(bare));
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
  // 2. Their parents now have text of their own: mark the text the contrast rule checks.
  const {repeats, firsts} = lookalikes();
  firsts.forEach((el) => el.setAttribute(attribute, ''));
  return {unwrapped: unwrap.size, skipped: repeats.length, keys: Array.from(keysHere)};
}
"""

_START_AXE_JS = """
({tags, allowed, checked}) => {
  axe.configure({rules: [{id: 'color-contrast', selector: `[${checked}]`}]});
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

CHECK_CONTRAST = "data-axe-check-contrast"  # marks the text the contrast rule checks

#: index in ALLOWED -> pages on which that allowance was used (read by the last test).
ALLOWANCES_USED: dict[int, set[str]] = defaultdict(set)
#: Pages whose axe result ``page_problems`` has seen in this session.
PAGES_CHECKED: set[str] = set()
# Looks of text (colour, size, weight, backdrop) whose contrast a page has been given to
# check in this session: later pages skip text that looks the same.
_CONTRAST_KEYS: set[str] = set()


def start_audit(tab) -> list[str]:
    """Wait for the page's scripts, check its widgets' keyboard reach and start axe in it.

    Returns the problems found so far; axe runs on in the page until
    :func:`audit_result` collects it, so another tab can load meanwhile.
    Raises PlaywrightError if the page cannot be prepared.
    """
    problems = []
    if not tab.evaluate("() => typeof axe === 'object'"):
        tab.add_script_tag(path=str(AXE))
    tab.evaluate(_READY_JS)
    try:
        tab.wait_for_function(_EXPLORABLES_RENDERED_JS, timeout=10_000)
    except PlaywrightError:
        problems.append("an nd-explorable widget did not render within 10 s")
    for html in tab.evaluate(_KEYBOARD_JS):
        problems.append(f"explorable control not reachable with the keyboard: {html}")
    shrunk = tab.evaluate(
        SHRINK_REPEATED_TEXT_JS, {"attribute": CHECK_CONTRAST, "checkedKeys": sorted(_CONTRAST_KEYS)}
    )
    _CONTRAST_KEYS.update(shrunk["keys"])  # axe checks these on this page
    tab.evaluate(
        _START_AXE_JS,
        {
            "tags": AXE_TAGS,
            "allowed": [[allowance.rule, allowance.scope] for allowance in ALLOWED],
            "checked": CHECK_CONTRAST,
        },
    )
    return problems


def audit_result(tab) -> list[dict]:
    """The violations axe found in ``tab`` (waits for the run :func:`start_audit` began)."""
    return tab.evaluate(_AXE_RESULT_JS)


def page_problems(page_name: str, violations: list[dict]) -> list[str]:
    """One line per violation that no allowance covers; records the allowances used."""
    problems = []
    for violation in violations:
        nodes = violation["nodes"]
        if violation["impact"] not in BLOCKING:
            for node in nodes:
                if node["allowedBy"] >= 0:
                    ALLOWANCES_USED[node["allowedBy"]].add(page_name)
            nodes = [node for node in nodes if node["allowedBy"] < 0]
        if nodes:
            problems.append(_describe(violation, nodes))
    PAGES_CHECKED.add(page_name)
    return problems


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
