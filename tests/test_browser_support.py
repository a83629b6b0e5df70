"""The browser tests' own tools: which requests count as leaving the machine, and that a
visit blocks and reports them."""

from __future__ import annotations

import pytest
from browser_support import _NOT_LOCAL, Visit, launch_chromium, serve_site


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/book/04_minhash.html",
        "http://127.0.0.1/",
        "http://localhost:5000/_static/a11y.js?v=1",
        "http://localhost",
        "data:image/png;base64,AAAA",
        "blob:http://127.0.0.1:8000/0f1e",
    ],
)
def test_local_requests_are_not_routed(url: str) -> None:
    assert not _NOT_LOCAL.search(url)


@pytest.mark.parametrize(
    "url",
    [
        "https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-chtml.js",
        "http://127.0.0.1.example.com/x.js",
        "http://localhost.example.com:8000/",
        "https://example.org/?next=http://127.0.0.1/",
    ],
)
def test_other_hosts_are_routed(url: str) -> None:
    assert _NOT_LOCAL.search(url)


@pytest.mark.browser
def test_a_visit_blocks_and_reports_requests_to_other_hosts(tmp_path) -> None:
    (tmp_path / "index.html").write_text("<p>page</p>", encoding="utf-8")
    (tmp_path / "local.png").write_bytes(b"")
    (tmp_path / "page.html").write_text(
        "<!doctype html><title>t</title>"
        '<img alt="local" src="local.png">'
        '<img alt="far" src="https://images.example.org/far.png">',
        encoding="utf-8",
    )
    with (
        serve_site(tmp_path) as url,
        launch_chromium() as chromium,
        Visit(chromium, f"{url}page.html") as visit,
    ):
        problems = list(visit.problems)
    assert "external request attempted (blocked): https://images.example.org/far.png" in problems
    # The browser also logs the blocked load; nothing is said about the local image.
    assert not [problem for problem in problems if "local.png" in problem], problems
