"""What every browser test needs: the built site on a local server, headless Chromium, a page visit.

The browser tests open ``_build/html`` (built by ``make book``) in Debian's Chromium,
driven by Playwright, with no network: a request to any host other than this machine is
blocked and reported. A test module makes its fixtures from the two context managers::

    from browser_support import launch_chromium, serve_site

    @pytest.fixture(scope="module")
    def site():
        with serve_site() as url:
            yield url

    @pytest.fixture(scope="module")
    def browser():
        with launch_chromium() as chromium:
            yield chromium

and opens a page with :class:`Visit`, which records console errors, script errors, failed
requests, HTTP errors and blocked external requests in ``visit.problems``; ``fail_if``
fails the test with all of them at once.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

try:
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright
except ImportError:  # reported by launch_chromium, so that test modules still import
    sync_playwright = None
    PlaywrightError = Exception

__all__ = [
    "CHROMIUM",
    "CHROMIUM_ARGS",
    "LOCAL_HOSTS",
    "PlaywrightError",
    "ROOT",
    "SITE",
    "TIMEOUT_MS",
    "VIEWPORT",
    "Visit",
    "fail_if",
    "launch_chromium",
    "serve_site",
]

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "_build" / "html"

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
LOCAL_HOSTS = {"localhost", "127.0.0.1"}
# Requests to any other host. Only these are routed through Python: routing every
# request there costs a round trip each (a page of the book makes dozens).
_LOCAL = "|".join(re.escape(host) for host in sorted(LOCAL_HOSTS))
_NOT_LOCAL = re.compile(rf"^https?://(?!(?:{_LOCAL})(?::\d+)?(?:[/?#]|$))")
TIMEOUT_MS = 30_000
VIEWPORT = {"width": 1280, "height": 900}


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def serve_site(directory: Path = SITE) -> Iterator[str]:
    """Serve ``directory`` on an ephemeral port of 127.0.0.1; yield its base URL (ends in ``/``).

    Fails the test (not an error in the test code) when the book has not been built.
    """
    if not (directory / "index.html").is_file():
        shown = directory.relative_to(ROOT) if directory.is_relative_to(ROOT) else directory
        pytest.fail(f"{shown}/index.html not found: run `make book` first", pytrace=False)
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextlib.contextmanager
def launch_chromium() -> Iterator[object]:
    """Debian's headless Chromium driven by Playwright; yields the Playwright ``Browser``.

    Without playwright or Chromium the test is skipped on a workstation and fails in CI
    (``CI=true``), so that CI can never pass by skipping the browser.
    """
    missing = None
    if sync_playwright is None:
        missing = "the Python package playwright is not installed"
    elif not CHROMIUM.is_file():
        missing = f"{CHROMIUM} is not installed (apt-get install chromium)"
    if missing:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"browser tests cannot run in CI: {missing}")
        pytest.skip(f"browser tests skipped: {missing}")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


class Visit:
    """One page opened in the browser, recording everything that went wrong in ``problems``.

    By default the page gets a fresh browser context of its own, closed on exit. Pass
    ``context`` to open the page in an existing context instead (faster when many pages
    are visited); then only the page is closed on exit. ``init_script``, a JavaScript
    file, runs in a fresh context's pages before their own scripts (while the page
    loads, so it costs about nothing).
    """

    def __init__(self, browser, url: str, context=None, init_script: Path | None = None) -> None:
        self.url = url
        self.problems: list[str] = []
        self._blocked: set[str] = set()
        self._own_context = context is None
        if context is None:
            context = browser.new_context(viewport=VIEWPORT)
            if init_script is not None:
                context.add_init_script(path=str(init_script))
        self.context = context
        self.page = self.context.new_page()
        self.page.set_default_timeout(TIMEOUT_MS)
        self.page.route(_NOT_LOCAL, self._block)
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.problems.append(f"script error: {error}"))
        self.page.on("requestfailed", self._request_failed)
        self.page.on("response", self._response)

    def __enter__(self) -> Visit:
        try:
            self.page.goto(self.url, wait_until="load")
            self.page.wait_for_load_state("networkidle")
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the page, and the context too if this visit made it."""
        if self._own_context:
            self.context.close()
        else:
            self.page.close()

    def _block(self, route) -> None:
        url = route.request.url
        self._blocked.add(url)
        self.problems.append(f"external request attempted (blocked): {url}")
        route.abort("blockedbyclient")

    def _console(self, message) -> None:
        if message.type == "error":
            where = message.location.get("url", "")
            suffix = f" [{where}]" if where else ""
            self.problems.append(f"console error: {message.text}{suffix}")

    def _request_failed(self, request) -> None:
        if request.url not in self._blocked:
            self.problems.append(f"request failed ({request.failure}): {request.url}")

    def _response(self, response) -> None:
        if response.status >= 400:
            self.problems.append(f"HTTP {response.status}: {response.url}")


def fail_if(problems: list[str], what: str) -> None:
    """Fail the test listing every problem found on ``what`` (a page name), if there are any."""
    if problems:
        lines = "\n".join(f"  - {problem}" for problem in problems)
        pytest.fail(f"{what}: {len(problems)} problem(s)\n{lines}", pytrace=False)
