"""Open every page of the built book in headless Chromium and check what a reader sees.

Run it after the book is built (``make book``)::

    pytest -m browser tests/test_browser.py

The built site is served from ``_build/html`` on 127.0.0.1. Every page listed in
``_toc.yml`` is opened in a fresh browser context (the next one loads while axe checks
this one), and every problem found on it is reported together, naming the page:

- a request to any host other than this machine (it is blocked: the book must work
  without a network),
- console errors, uncaught script errors, failed requests and HTTP errors,
- an image that did not load, or whose alt text is missing or only its file name,
- math that MathJax did not typeset, or raw TeX delimiters left in the text,
- previous/next links that do not follow the order of ``_toc.yml``,
- a chapter written as a notebook that does not offer its ``.ipynb`` for download,
- any accessibility violation axe-core finds (``axe_support.py``; the other pages of the
  site get the same check in ``test_browser_axe.py``).

A separate test checks that the search page finds the MinHash chapter. Screenshots
of the introduction, the first chapter and the first lab are written to
``_build/screenshots/``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from axe_support import AXE, audit_result, page_problems, start_audit
from browser_support import ROOT, SITE, PlaywrightError, Visit, fail_if, launch_chromium, serve_site

pytestmark = pytest.mark.browser

TOC = ROOT / "_toc.yml"
SCREENSHOTS = ROOT / "_build" / "screenshots"

SOURCE_SUFFIXES = (".ipynb", ".md", ".rst")

SEARCH_TERM = "MinHash"
SEARCH_PAGE = "book/04_minhash"


# --------------------------------------------------------------------------- the toc


def _docname(path: str) -> str:
    """``book/04_minhash.ipynb`` -> ``book/04_minhash`` (the page's name in the site)."""
    name = path.strip().removeprefix("./")
    for suffix in SOURCE_SUFFIXES:
        name = name.removesuffix(suffix)
    return name


def toc_pages(toc_path: Path = TOC) -> list[str]:
    """The pages of ``_toc.yml`` in reading order: root, then parts, chapters, sections."""
    toc = yaml.safe_load(toc_path.read_text(encoding="utf-8"))
    pages = [_docname(toc["root"])]

    def walk(entries: list[dict] | None) -> None:
        for entry in entries or []:
            if "glob" in entry:
                raise ValueError(
                    f"{toc_path.name}: 'glob: {entry['glob']}' is not supported by the "
                    "browser test; list the files one by one"
                )
            if "file" in entry:
                pages.append(_docname(entry["file"]))
            walk(entry.get("sections"))

    for part in toc.get("parts") or []:
        walk(part.get("chapters"))
    walk(toc.get("chapters"))
    return pages


def source_of(page: str) -> Path | None:
    """The source file a page is built from, or None if there is none."""
    for suffix in SOURCE_SUFFIXES:
        path = ROOT / f"{page}{suffix}"
        if path.is_file():
            return path
    return None


PAGES = toc_pages()


def _screenshot_names() -> dict[str, str]:
    """Which pages get a screenshot: the introduction, the first chapter, the first lab."""
    names = {PAGES[0]: "intro"}
    chapters = [p for p in PAGES[1:] if p.startswith("book/") and _is_notebook(p)]
    labs = [p for p in PAGES if p.startswith("labs/")]
    if chapters:
        names[chapters[0]] = "chapter-" + chapters[0].rsplit("/", 1)[-1]
    if labs:
        names[labs[0]] = "lab-" + labs[0].rsplit("/", 1)[-1]
    return names


def _is_notebook(page: str) -> bool:
    source = source_of(page)
    return source is not None and source.suffix == ".ipynb"


# ------------------------------------------------------------- math in the source

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*(.*?)\s*$")
_CODE_DIRECTIVE = re.compile(r"\{(code-cell|code-block|code|literalinclude)\}")
_INLINE_CODE = re.compile(r"(`+)[^`]+?\1")
_MATH = re.compile(
    r"\$\$"  # display math
    r"|\\\(|\\\["  # LaTeX delimiters
    r"|\\begin\{"  # amsmath environments
    r"|\{math\}"  # math role or directive
    r"|(?<![\\$\w])\$(?=\S)[^$\n]+?(?<=\S)\$(?![\w$])"  # inline $...$
)


def _strip_code(markdown: str) -> str:
    """Drop fenced code blocks and inline code; keep the bodies of other directives."""
    kept: list[str] = []
    code_fence: str | None = None
    directive_fences: list[str] = []
    for line in markdown.splitlines():
        match = _FENCE.match(line)
        if code_fence:
            if match and not match.group(2) and _closes(match.group(1), code_fence):
                code_fence = None
            continue
        if not match:
            kept.append(line)
            continue
        marker, info = match.groups()
        if not info and directive_fences and _closes(marker, directive_fences[-1]):
            directive_fences.pop()
        elif info.startswith("{") and not _CODE_DIRECTIVE.match(info):
            directive_fences.append(marker)
        else:
            code_fence = marker
    return _INLINE_CODE.sub("", "\n".join(kept))


def _closes(marker: str, opening: str) -> bool:
    """A fence closes an opening fence of the same character and at most its length."""
    return marker[0] == opening[0] and len(marker) >= len(opening)


def source_has_math(source: Path | None) -> bool:
    """Does the page's source (markdown, or a notebook's markdown and outputs) hold math?"""
    if source is None:
        return False
    text = source.read_text(encoding="utf-8")
    if source.suffix != ".ipynb":
        return bool(_MATH.search(_strip_code(text)))
    notebook = json.loads(text)
    for cell in notebook.get("cells", []):
        markdown = "".join(cell.get("source", [])) if cell.get("cell_type") == "markdown" else ""
        if _MATH.search(_strip_code(markdown)):
            return True
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "text/latex" in data:
                return True
            if _MATH.search(_strip_code("".join(data.get("text/markdown", [])))):
                return True
    return False


# ----------------------------------------------------------------- the fixtures


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """The built book served on an ephemeral port of 127.0.0.1; yields its base URL."""
    with serve_site() as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    """Debian's headless Chromium driven by Playwright."""
    with launch_chromium() as chromium:
        yield chromium


class Visits:
    """Opens the pages of ``test_page``; ``preload`` opens one ahead of its test.

    A page opened ahead loads in its own renderer process while axe checks the
    page before it in another. What its load reports (console errors, failed
    requests, a page that does not open at all) stays with it and is reported by
    its own test.
    """

    def __init__(self, browser, site: str) -> None:
        self.browser, self.site = browser, site
        self.ahead: dict[str, Visit | PlaywrightError] = {}

    def open(self, page_name: str) -> Visit:
        """The visit of ``page_name``, loaded (ahead or now); close it when done."""
        visit = self.ahead.pop(page_name, None) or self._load(page_name)
        if isinstance(visit, PlaywrightError):
            raise visit
        return visit

    def preload(self, page_name: str) -> None:
        if page_name not in self.ahead:
            try:
                self.ahead[page_name] = self._load(page_name)
            except PlaywrightError as error:
                self.ahead[page_name] = error

    def close(self) -> None:
        for visit in self.ahead.values():
            if isinstance(visit, Visit):
                visit.close()

    def _load(self, page_name: str) -> Visit:
        return Visit(self.browser, f"{self.site}{page_name}.html", init_script=AXE).__enter__()


@pytest.fixture(scope="module")
def visits(browser, site: str) -> Iterator[Visits]:
    opener = Visits(browser, site)
    try:
        yield opener
    finally:
        opener.close()


# ------------------------------------------------------------------ page checks

_IMAGES_JS = """
async () => {
  const images = Array.from(document.querySelectorAll('img'));
  await Promise.all(images.map((img) => {
    img.loading = 'eager';
    return img.decode().catch(() => null);
  }));
  return images.map((img) => ({
    src: img.getAttribute('src') || '',
    width: img.naturalWidth,
    alt: (img.getAttribute('alt') || '').trim(),
  }));
}
"""

_MATH_JS = """
() => {
  const elements = Array.from(document.querySelectorAll('span.math, div.math'));
  const raw = elements.filter((el) => !el.querySelector('mjx-container'));
  const skip = new Set(['SCRIPT', 'STYLE', 'PRE', 'CODE', 'TEXTAREA', 'NOSCRIPT', 'MJX-CONTAINER']);
  const root = document.querySelector('main') || document.body;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const texts = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    let hidden = false;
    for (let el = node.parentElement; el && el !== root; el = el.parentElement) {
      if (skip.has(el.tagName)) { hidden = true; break; }
    }
    if (!hidden) texts.push(node.textContent);
  }
  return {
    elements: elements.length,
    typeset: document.querySelectorAll('mjx-container').length,
    raw: raw.slice(0, 3).map((el) => el.textContent.trim().slice(0, 60)),
    rawCount: raw.length,
    text: texts.join(' '),
  };
}
"""

_MATHJAX_STARTED_JS = "() => window.MathJax && MathJax.startup && MathJax.startup.promise"

_RAW_TEX = ("$$", "\\(", "\\[")


def _check_images(visit: Visit) -> None:
    for image in visit.page.evaluate(_IMAGES_JS):
        if image["width"] == 0:
            visit.problems.append(f"image did not load: <img src={image['src']!r}>")
        alt, src = image["alt"], image["src"]
        if not alt:
            visit.problems.append(f"image has no alt text: <img src={src!r}>")
        elif alt in (src, src.rsplit("/", 1)[-1]):
            # Docutils falls back to the file name when a figure is given no alt text.
            visit.problems.append(f"image alt text is only its file name: <img src={src!r}>")


def _check_math(visit: Visit, source: Path | None) -> None:
    page = visit.page
    if page.locator("span.math, div.math").count():
        try:
            page.wait_for_function(_MATHJAX_STARTED_JS)
            page.evaluate("() => MathJax.startup.promise.then(() => true)")
        except PlaywrightError:
            visit.problems.append("page has math but MathJax did not start")
            return
    math = page.evaluate(_MATH_JS)
    if math["rawCount"]:
        visit.problems.append(
            f"{math['rawCount']} of {math['elements']} math elements not typeset, e.g. "
            + ", ".join(repr(text) for text in math["raw"])
        )
    if source_has_math(source) and not math["typeset"]:
        visit.problems.append(f"{source.relative_to(ROOT)} contains math but none is typeset")
    text = " ".join(math["text"].split())
    for delimiter in _RAW_TEX:
        if delimiter in text:
            at = text.index(delimiter)
            context = text[max(0, at - 30) : at + 30]
            visit.problems.append(f"raw {delimiter!r} in the visible text: ...{context}...")


def _check_prev_next(visit: Visit, site: str, index: int) -> None:
    links = visit.page.evaluate(
        """() => {
          const href = (s) => { const a = document.querySelector(s); return a ? a.href : null; };
          return {
            previous: href('.prev-next-area a.left-prev'),
            next: href('.prev-next-area a.right-next'),
          };
        }"""
    )
    expected = {
        "previous": f"{site}{PAGES[index - 1]}.html" if index > 0 else None,
        "next": f"{site}{PAGES[index + 1]}.html" if index + 1 < len(PAGES) else None,
    }
    for which, want in expected.items():
        got = links[which].split("#", 1)[0] if links[which] else None
        if got != want:
            got_page = got.removeprefix(site) if got else "no link"
            want_page = want.removeprefix(site) if want else "no link"
            visit.problems.append(f"{which} link goes to {got_page}, but _toc.yml says {want_page}")


def _check_notebook_download(visit: Visit, site: str, page_name: str) -> None:
    want = f"{site}_sources/{page_name}.ipynb"
    links = visit.page.eval_on_selector_all(
        ".dropdown-download-buttons a", "(links) => links.map((a) => a.href)"
    )
    if want not in links:
        offered = [link.removeprefix(site) for link in links]
        visit.problems.append(f"download menu has no _sources/{page_name}.ipynb: {offered}")
        return
    response = visit.page.request.get(want)
    if response.status != 200:
        visit.problems.append(f"notebook download returns HTTP {response.status}: {want}")
        return
    try:
        cells = json.loads(response.text()).get("cells")
    except (ValueError, AttributeError):
        cells = None
    if not isinstance(cells, list):
        visit.problems.append(f"notebook download is not a notebook: {want}")


# ------------------------------------------------------------------------ tests


@pytest.mark.parametrize("page_name", PAGES)
def test_page(page_name: str, site: str, visits: Visits) -> None:
    html = SITE / f"{page_name}.html"
    if not html.is_file():
        pytest.fail(
            f"{page_name} is listed in _toc.yml but {html.relative_to(ROOT)} was not built: "
            "run `make book` first",
            pytrace=False,
        )
    source = source_of(page_name)
    index = PAGES.index(page_name)
    visit = visits.open(page_name)
    try:
        _check_images(visit)
        _check_math(visit, source)
        _check_prev_next(visit, site, index)
        if source is not None and source.suffix == ".ipynb":
            _check_notebook_download(visit, site, page_name)
        shot = _screenshot_names().get(page_name)
        if shot:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            visit.page.screenshot(path=str(SCREENSHOTS / f"{shot}.png"), full_page=True)
        problems = list(visit.problems)
        # Last: axe thins out repeated text before it runs (axe_support.py).
        problems += start_audit(visit.page)
        if index + 1 < len(PAGES):
            visits.preload(PAGES[index + 1])  # while axe runs in this page
        violations = audit_result(visit.page)
        problems += [f"axe-core found {line}" for line in page_problems(f"{page_name}.html", violations)]
    finally:
        visit.close()
    fail_if(problems, f"{page_name}.html")


def test_index_opens_the_first_page(site: str, browser) -> None:
    """``_build/html/index.html`` is what readers open; it must land on the toc's root."""
    want = f"{site}{PAGES[0]}.html"
    with Visit(browser, f"{site}index.html") as visit:
        try:
            visit.page.wait_for_url(want, timeout=5_000)
        except PlaywrightError:
            visit.problems.append(
                f"index.html ends at {visit.page.url.removeprefix(site)}, not {PAGES[0]}.html"
            )
        problems = list(visit.problems)
    fail_if(problems, "index.html")


def test_search_finds_the_minhash_chapter(site: str, browser) -> None:
    if SEARCH_PAGE not in PAGES:
        pytest.skip(f"{SEARCH_PAGE} is not in _toc.yml yet, so there is no chapter to search for")
    with Visit(browser, f"{site}search.html?q={SEARCH_TERM}") as visit:
        visit.page.wait_for_function(
            "() => { const s = document.querySelector('#search-results .search-summary');"
            " return s && s.textContent.trim().length > 0; }"
        )
        hits = visit.page.eval_on_selector_all(
            "#search-results ul.search li > a", "(links) => links.map((a) => a.href)"
        )
        problems = list(visit.problems)
    pages = sorted({hit.split("#", 1)[0].removeprefix(site) for hit in hits})
    if f"{SEARCH_PAGE}.html" not in pages:
        problems.append(f"searching {SEARCH_TERM!r} does not list {SEARCH_PAGE}.html: {pages}")
    fail_if(problems, f"search.html?q={SEARCH_TERM}")
