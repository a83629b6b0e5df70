"""Drive the explorables (``_static/explorables.js``) in headless Chromium.

Every widget is set through its controls, the numbers it shows are read back
(each ``<output>`` keeps its full-precision value in ``data-value``), and they are
compared with what ``neardup_lab`` computes here, in Python:

- ``s-curve``: the curve, P(candidate) at the threshold, the bend and both error
  areas to 1e-9; the best (bands, rows) exactly equal to ``optimal_params`` over a
  grid of thresholds, weights and signature lengths;
- ``minhash-error``: the measured spread of the simulated estimates within four
  standard errors of sqrt(J(1-J)/k), the same draws for the same seed;
- ``block-table``: the block layout of ``BlockIndex``, and the random candidates per
  query and the chance a neighbour is seen as chapter 13 computes them;
- ``shingle-overlap``: Jaccard equal to ``jaccard(word_shingles(...))``.

The widgets run on a small test page that loads only the two static files, and on
the book's own pages when the book has been built with them. No page may log a
console error or ask for anything off this machine, every control has a label and is
reached with the Tab key, and nothing overflows a 360-pixel-wide screen.
"""

from __future__ import annotations

import itertools
import json
import math
import shutil
from collections.abc import Callable, Iterator

import numpy as np
import pytest
from browser_support import ROOT, SITE, Visit, fail_if, launch_chromium, serve_site

from neardup_lab import BlockIndex, jaccard, word_shingles
from neardup_lab.lsh import (
    approx_threshold,
    error_areas,
    optimal_params,
    s_curve,
)

pytestmark = pytest.mark.browser

STATIC = ROOT / "_static"
ASSETS = ("explorables.js", "explorables.css")

#: Each explorable and the chapter that places it.
CHAPTERS = {
    "shingle-overlap": "book/02_shingles_jaccard",
    "minhash-error": "book/04_minhash",
    "s-curve": "book/08_choosing_b_r",
    "block-table": "book/13_hamming_search",
}

TEST_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Explorables</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="explorables.css">
<script src="explorables.js"></script>
</head>
<body>
<main>
{placeholders}
<div class="nd-explorable" data-explorable="no-such-widget"></div>
</main>
</body>
</html>
"""


def placeholder(name: str) -> str:
    """The markup a chapter writes where the widget goes."""
    return f'<div class="nd-explorable" data-explorable="{name}"></div>'


# --------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def browser():
    with launch_chromium() as chromium:
        yield chromium


@pytest.fixture(scope="module")
def test_page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A page with the four placeholders (and an unknown one) next to copies of the static files."""
    folder = tmp_path_factory.mktemp("explorables")
    for name in ASSETS:
        shutil.copy(STATIC / name, folder / name)
    page = TEST_PAGE.replace("{placeholders}", "\n".join(placeholder(name) for name in CHAPTERS))
    (folder / "index.html").write_text(page, encoding="utf-8")
    with serve_site(folder) as url:
        yield url + "index.html"


class Widgets:
    """The explorables of one visited page: set their controls, read their numbers."""

    def __init__(self, visit: Visit) -> None:
        self.visit = visit
        self.page = visit.page
        self.page.wait_for_function(
            "() => Array.from(document.querySelectorAll('.nd-explorable')).every((e) => e.dataset.ready)"
        )

    @property
    def problems(self) -> list[str]:
        return self.visit.problems

    @staticmethod
    def selector(widget: str, key: str) -> str:
        return f'.nd-explorable[data-explorable="{widget}"] [data-key="{key}"]'

    def set(self, widget: str, key: str, value: object) -> None:
        """Put ``value`` into a control as a reader would (input, then change), and check it was taken."""
        taken = self.page.eval_on_selector(
            self.selector(widget, key),
            """(e, value) => {
                e.value = value;
                e.dispatchEvent(new Event('input', {bubbles: true}));
                e.dispatchEvent(new Event('change', {bubbles: true}));
                return e.value;
            }""",
            str(value),
        )
        same = float(taken) == value if isinstance(value, (int, float)) else taken == value
        assert same, f"{widget}: control {key} took {taken!r}, not {value!r}"

    def get(self, widget: str, key: str) -> str:
        """The current value of a control."""
        return self.page.input_value(self.selector(widget, key))

    def value(self, widget: str, key: str) -> object:
        """The full-precision value behind a displayed number."""
        raw = self.page.get_attribute(self.selector(widget, key), "data-value")
        assert raw is not None, f"{widget}: {key} shows no value ({self.text(widget, key)!r})"
        return json.loads(raw)

    def text(self, widget: str, key: str) -> str:
        return self.page.text_content(self.selector(widget, key)) or ""

    def status(self, widget: str) -> str:
        return self.page.eval_on_selector(
            f'.nd-explorable[data-explorable="{widget}"] .nd-status',
            "(e) => e.hidden ? '' : e.textContent",
        )


@pytest.fixture(scope="module")
def page(browser, test_page: str) -> Iterator[Widgets]:
    """The test page, loaded once (a load costs seconds on a busy machine): every test sets
    the controls it reads, and the last test on it checks that nothing went wrong."""
    with Visit(browser, test_page) as visit:
        yield Widgets(visit)


# ------------------------------------------------------------------ the page itself


def test_every_placeholder_is_rendered_with_labelled_controls(page: Widgets) -> None:
    report = page.page.evaluate(
        """() => Array.from(document.querySelectorAll('.nd-explorable')).map((root) => ({
            name: root.dataset.explorable,
            ready: root.dataset.ready,
            text: root.textContent,
            controls: Array.from(root.querySelectorAll('input, textarea, select')).map((c) => ({
                id: c.id,
                label: c.id && document.querySelector(`label[for="${c.id}"]`)
                    ? document.querySelector(`label[for="${c.id}"]`).textContent.trim() : '',
            })),
            live: root.querySelectorAll('output[aria-live="polite"]').length,
            charts: Array.from(root.querySelectorAll('svg')).map((svg) => ({
                role: svg.getAttribute('role'),
                title: (svg.querySelector('title') || {}).textContent || '',
                desc: (svg.querySelector('desc') || {}).textContent || '',
            })),
        }))"""
    )
    widgets = {item["name"]: item for item in report}
    assert set(widgets) == set(CHAPTERS) | {"no-such-widget"}
    assert widgets["no-such-widget"]["ready"] == "unknown"
    assert 'Unknown explorable "no-such-widget"' in widgets["no-such-widget"]["text"]
    for name in CHAPTERS:
        widget = widgets[name]
        assert widget["ready"] == "true", name
        assert widget["controls"], f"{name} has no controls"
        ids = [c["id"] for c in widget["controls"]]
        assert len(set(ids)) == len(ids), f"{name}: duplicate ids {ids}"
        unlabelled = [c["id"] for c in widget["controls"] if not c["label"]]
        assert not unlabelled, f"{name}: controls without a <label for>: {unlabelled}"
        assert widget["live"] >= 3, f"{name}: results are not announced (aria-live outputs)"
        for chart in widget["charts"]:
            assert chart["role"] == "img" and chart["title"].strip() and len(chart["desc"]) > 40, (
                name,
                chart,
            )
    all_ids = [c["id"] for item in report for c in item["controls"]]
    assert len(set(all_ids)) == len(all_ids), "two widgets share an id"


def test_every_control_is_reached_with_the_tab_key(page: Widgets) -> None:
    controls = page.page.eval_on_selector_all(
        ".nd-explorable input, .nd-explorable textarea, .nd-explorable button",
        "(list) => list.map((c) => c.id || c.textContent)",
    )
    reached = []
    for _ in range(len(controls) + 5):
        page.page.keyboard.press("Tab")
        reached.append(
            page.page.evaluate("() => document.activeElement.id || document.activeElement.textContent")
        )
    missing = [c for c in controls if c not in reached]
    assert not missing, f"not reached with Tab: {missing}"


def test_a_slider_moves_with_the_arrow_keys(page: Widgets) -> None:
    page.page.focus(page.selector("s-curve", "threshold"))
    before = page.value("s-curve", "p-threshold")
    page.page.keyboard.press("ArrowRight")
    page.page.keyboard.press("ArrowRight")
    threshold = float(page.page.input_value(page.selector("s-curve", "threshold")))
    bands, rows = (int(page.page.input_value(page.selector("s-curve", key))) for key in ("bands", "rows"))
    assert threshold == pytest.approx(0.82)
    assert page.value("s-curve", "p-threshold") != before
    assert page.value("s-curve", "p-threshold") == pytest.approx(s_curve(threshold, bands, rows), abs=1e-9)


def test_nothing_overflows_a_phone_width_screen(browser, test_page: str) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 800})
    try:
        with Visit(browser, test_page, context=context) as visit:
            Widgets(visit)
            widths = visit.page.evaluate(
                """() => ({
                    page: document.documentElement.scrollWidth,
                    widgets: Array.from(document.querySelectorAll('.nd-explorable')).map(
                        (e) => [e.dataset.explorable, e.scrollWidth, e.clientWidth]),
                })"""
            )
            problems = list(visit.problems)
    finally:
        context.close()
    assert widths["page"] <= 360, widths
    for name, scroll, client in widths["widgets"]:
        assert scroll <= client, f"{name} overflows at 360 px: {scroll} > {client}"
    fail_if(problems, "test page at 360 px")


# ---------------------------------------------------------------------- the S-curve


@pytest.mark.parametrize(
    ("bands", "rows", "threshold"), [(20, 5, 0.8), (9, 13, 0.5), (1, 1, 0.3), (64, 2, 0.95)]
)
def test_s_curve_numbers_match_the_package(page: Widgets, bands: int, rows: int, threshold: float) -> None:
    page.set("s-curve", "num-perm", 128)
    page.set("s-curve", "bands", bands)
    page.set("s-curve", "rows", rows)
    page.set("s-curve", "threshold", threshold)
    assert (int(page.get("s-curve", "bands")), int(page.get("s-curve", "rows"))) == (bands, rows)
    curve = json.loads(page.page.get_attribute(page.selector("s-curve", "curve"), "data-curve"))
    np.testing.assert_allclose(curve, s_curve(np.arange(101) / 100, bands, rows), rtol=0, atol=1e-9)
    assert page.value("s-curve", "p-threshold") == pytest.approx(s_curve(threshold, bands, rows), abs=1e-9)
    assert page.value("s-curve", "bend") == pytest.approx(approx_threshold(bands, rows), abs=1e-9)
    areas = error_areas(threshold, bands, rows)
    assert page.value("s-curve", "fp-area") == pytest.approx(areas.false_positive, abs=1e-9)
    assert page.value("s-curve", "fn-area") == pytest.approx(areas.false_negative, abs=1e-9)
    assert f"{bands} × {rows}" in page.text("s-curve", "fit")


WEIGHTS = [(0.5, 0.5), (0.01, 0.99), (0.9, 0.1), (0.0, 1.0)]


def test_best_bands_and_rows_equal_optimal_params(page: Widgets) -> None:
    differ = []
    for num_perm, (fp_weight, fn_weight), threshold in itertools.product(
        (16, 64, 128), WEIGHTS, (0.2, 0.5, 0.7, 0.85, 0.95)
    ):
        page.set("s-curve", "num-perm", num_perm)
        page.set("s-curve", "fp-weight", fp_weight)
        page.set("s-curve", "fn-weight", fn_weight)
        page.set("s-curve", "threshold", threshold)
        shown = tuple(page.value("s-curve", "best"))
        expected = optimal_params(threshold, num_perm, fp_weight, fn_weight)
        if shown != expected:
            differ.append(
                f"t={threshold} n={num_perm} weights=({fp_weight}, {fn_weight}): {shown} != {expected}"
            )
    assert not differ, "\n".join(differ)


def test_bands_and_rows_follow_the_best_choice_while_ticked(page: Widgets) -> None:
    page.set("s-curve", "bands", 3)  # moving bands yourself unticks the box
    assert not page.page.is_checked(page.selector("s-curve", "follow"))
    page.page.check(page.selector("s-curve", "follow"))
    for fn_weight in (0.5, 0.7, 0.9, 0.99):
        page.set("s-curve", "num-perm", 256)
        page.set("s-curve", "threshold", 0.8)
        page.set("s-curve", "fp-weight", round(1 - fn_weight, 2))
        page.set("s-curve", "fn-weight", fn_weight)
        bands, rows = int(page.get("s-curve", "bands")), int(page.get("s-curve", "rows"))
        assert (bands, rows) == optimal_params(0.8, 256, round(1 - fn_weight, 2), fn_weight)
        p = page.value("s-curve", "p-threshold")
        assert p == pytest.approx(s_curve(0.8, bands, rows), abs=1e-9)
        areas = error_areas(0.8, bands, rows)
        weighted = (1 - fn_weight) * areas.false_positive + fn_weight * areas.false_negative
        assert page.value("s-curve", "error") == pytest.approx(weighted, abs=1e-9)
        assert page.value("s-curve", "best-error") == page.value("s-curve", "error")


def test_the_search_waits_for_the_slider_to_be_let_go(page: Widgets) -> None:
    page.set("s-curve", "num-perm", 200)
    page.set("s-curve", "fp-weight", 0.5)
    page.set("s-curve", "fn-weight", 0.5)
    slider = page.selector("s-curve", "threshold")
    page.page.eval_on_selector(slider, "(e) => { e.value = '0.63'; e.dispatchEvent(new Event('input')); }")
    assert "let go" in page.text("s-curve", "best")
    bands, rows = int(page.get("s-curve", "bands")), int(page.get("s-curve", "rows"))
    assert page.value("s-curve", "p-threshold") == pytest.approx(s_curve(0.63, bands, rows), abs=1e-9)
    page.page.eval_on_selector(slider, "(e) => e.dispatchEvent(new Event('change'))")
    assert tuple(page.value("s-curve", "best")) == optimal_params(0.63, 200)


def test_zero_weights_ask_for_a_weight(page: Widgets) -> None:
    page.set("s-curve", "fp-weight", 0)
    page.set("s-curve", "fn-weight", 0)
    assert "weight above 0" in page.text("s-curve", "best")
    with pytest.raises(ValueError):
        optimal_params(0.8, 128, 0, 0)


# ------------------------------------------------------------------ MinHash error


def spread_standard_error(j: float, k: int, draws: int) -> float:
    """Standard error of the sample standard deviation of ``draws`` estimates ``Binomial(k, j) / k``.

    ``sqrt(mu4 - sigma**4) / (2 * sigma * sqrt(draws))``, with the binomial's fourth
    central moment ``mu4 = sigma**4 * (3 + (1 - 6pq) / (kpq))``.
    """
    pq = j * (1 - j)
    sigma = math.sqrt(pq / k)
    return sigma * math.sqrt(2 + (1 - 6 * pq) / (k * pq)) / (2 * math.sqrt(draws))


@pytest.mark.parametrize(("j", "k"), [(0.5, 128), (0.2, 16), (0.9, 256), (0.05, 64), (0.7, 1)])
def test_simulated_spread_matches_the_formula(page: Widgets, j: float, k: int) -> None:
    draws = 4000
    page.set("minhash-error", "j", j)
    page.set("minhash-error", "k", k)
    page.set("minhash-error", "draws", draws)
    page.set("minhash-error", "seed", 17)
    formula = math.sqrt(j * (1 - j) / k)
    tolerance = 4 * spread_standard_error(j, k, draws)  # the bound the widget states
    measured = page.value("minhash-error", "measured-sd")
    assert page.value("minhash-error", "formula-sd") == pytest.approx(formula, rel=1e-12)
    assert abs(measured - formula) <= tolerance, (
        f"measured {measured:.5f}, formula {formula:.5f} ± {tolerance:.5f}"
    )
    assert page.value("minhash-error", "tolerance") == pytest.approx(
        [formula - tolerance, formula + tolerance]
    )
    assert abs(page.value("minhash-error", "mean") - j) <= 4 * formula / math.sqrt(draws)
    counts = json.loads(page.page.get_attribute(page.selector("minhash-error", "histogram"), "data-counts"))
    assert sum(counts) == draws


def test_the_seed_fixes_the_draws(page: Widgets) -> None:
    page.set("minhash-error", "j", 0.4)
    page.set("minhash-error", "k", 64)
    page.set("minhash-error", "seed", 5)
    first = page.value("minhash-error", "measured-sd"), page.value("minhash-error", "mean")
    page.set("minhash-error", "seed", 6)
    other = page.value("minhash-error", "measured-sd"), page.value("minhash-error", "mean")
    page.page.get_by_role("button", name="Draw again (next seed)").click()  # seed 7
    page.set("minhash-error", "seed", 5)
    again = page.value("minhash-error", "measured-sd"), page.value("minhash-error", "mean")
    assert first == again
    assert first != other


@pytest.mark.parametrize("j", [0.0, 1.0])
def test_certain_agreement_has_no_spread(page: Widgets, j: float) -> None:
    page.set("minhash-error", "j", j)
    assert page.value("minhash-error", "measured-sd") == 0.0
    assert page.value("minhash-error", "mean") == j


def test_a_bad_signature_length_is_reported(page: Widgets) -> None:
    page.set("minhash-error", "k", 0)
    assert "k must be a whole number from 1 to 1024" in page.status("minhash-error")
    page.set("minhash-error", "k", 32)
    assert page.status("minhash-error") == ""


# ------------------------------------------------------------------- block tables
# The widget may use fewer tables than a BlockIndex builds, which the package's
# BlockLayout does not model; for any subset of tables the test counts on its own, as
# chapter 13 does, and for all of them it also holds the widget to the package.


def random_candidates(widths: tuple[int, ...], keys: list[tuple[int, ...]], n: int) -> float:
    """Expected random fingerprints sharing some table's key with a query (chapter 13)."""
    return sum((n - 1) / 2 ** sum(widths[b] for b in key) for key in keys)


def chance_seen(bits: int, widths: tuple[int, ...], keys: list[tuple[int, ...]], flipped: int) -> float:
    """Exact chance that a fingerprint ``flipped`` bits away is a candidate (chapter 13)."""
    if flipped == 0:
        return 1.0
    block_of_bit = np.repeat(np.arange(len(widths)), widths)[::-1]
    combos = np.fromiter(
        itertools.chain.from_iterable(itertools.combinations(range(bits), flipped)), dtype=np.int64
    ).reshape(-1, flipped)
    touched = np.bitwise_or.reduce(1 << block_of_bit[combos], axis=1)
    key_masks = np.array([sum(1 << b for b in key) for key in keys])
    return float(((touched[:, None] & key_masks[None, :]) == 0).any(axis=1).mean())


@pytest.mark.parametrize(
    ("bits", "k", "blocks", "tables", "n", "farthest"),
    [
        (64, 3, 4, 4, 2**20, 4),  # chapter 13's pigeonhole index
        (64, 3, 6, 20, 2**20, 4),  # and its 20 permuted tables
        (64, 3, 6, 20, 2**33, 4),  # eight billion fingerprints
        (32, 2, 5, 10, 1000, 4),
        (24, 4, 8, 70, 5000, 6),
        (24, 4, 8, 13, 99, 6),  # fewer tables than the guarantee needs
        (16, 1, 4, 4, 10, 3),
        (20, 0, 1, 1, 5, 2),
    ],
)
def test_block_table_numbers_match_chapter_13(
    page: Widgets, bits: int, k: int, blocks: int, tables: int, n: int, farthest: int
) -> None:
    for key, value in [("bits", bits), ("max-distance", k), ("blocks", blocks), ("tables", tables), ("n", n)]:
        page.set("block-table", key, value)
    index = BlockIndex(
        np.zeros(1, dtype=np.uint64), max_distance=k, scheme="permuted", blocks=blocks, bits=bits
    )
    keys = list(index.table_blocks[:tables])
    assert page.value("block-table", "widths") == list(index.block_widths)
    assert page.value("block-table", "all-tables") == index.n_tables
    assert page.value("block-table", "key-bits") == [sum(index.block_widths[b] for b in key) for key in keys]
    assert page.value("block-table", "candidates") == pytest.approx(
        random_candidates(index.block_widths, keys, n), rel=1e-12
    )
    assert page.value("block-table", "brute") == n
    seen = page.value("block-table", "seen")
    assert len(seen) == min(bits, k + 2) + 1
    for d in range(min(farthest, len(seen) - 1) + 1):  # the enumeration grows as C(bits, d)
        assert seen[d] == pytest.approx(chance_seen(bits, index.block_widths, keys, d), abs=1e-12), f"d={d}"
    if tables == index.n_tables:
        assert seen[: k + 1] == [1.0] * (k + 1)  # the pigeonhole guarantee
        layout = index.layout
        assert page.value("block-table", "candidates") == pytest.approx(
            layout.expected_random_candidates(n), rel=1e-12
        )
        for d, chance in enumerate(seen):
            assert chance == pytest.approx(layout.chance_seen(d), abs=1e-12), f"d={d}"


def test_block_table_memory_is_the_index_size(page: Widgets) -> None:
    fingerprints = np.arange(3000, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    for key, value in [
        ("bits", 64),
        ("max-distance", 3),
        ("blocks", 6),
        ("tables", 20),
        ("n", len(fingerprints)),
    ]:
        page.set("block-table", key, value)
    assert (
        page.value("block-table", "memory")
        == BlockIndex(fingerprints, max_distance=3, scheme="permuted").nbytes
    )


def test_block_table_refuses_what_block_index_refuses(page: Widgets) -> None:
    for key, value in [("bits", 64), ("max-distance", 3), ("blocks", 20)]:
        page.set("block-table", key, value)
    assert "C(20, 3) = 1,140 tables" in page.status("block-table")
    with pytest.raises(ValueError, match="1,140 tables"):
        BlockIndex(np.zeros(1, dtype=np.uint64), max_distance=3, scheme="permuted", blocks=20)


# ---------------------------------------------------------------- shingle overlap

ASCII_PAIRS = [
    (
        "Heavy rain closed the coastal road on Monday, officials said.",
        "Officials said heavy rain closed the coastal road on Monday night.",
    ),
    ("It's raining -- again!! (said_the man) $5 + 3% off", "its RAINING again said the man 5 3 off"),
    ("Rain, rain, go away", "rain rain go away come again another day"),
    ("one two", "one two three four five six"),
    ("", ""),
    ("", "something"),
    ("a\tb\nc\x1cd\x1fe\x0bf", "A B C D E F G"),
]

UNICODE_PAIRS = [
    ("  Heavy RAIN — in “Mangaluru”!  ", "heavy rain in mangaluru today"),
    ("Die STRASSE ist naß und glatt", "die Straße ist nass und glatt"),
    ("ΟΔΟΣ ΚΛΕΙΣΤΗ ΣΗΜΕΡΑ", "οδός κλειστή σήμερα"),
]


@pytest.mark.parametrize(("a", "b"), ASCII_PAIRS + UNICODE_PAIRS)
@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_overlap_jaccard_equals_the_package(page: Widgets, a: str, b: str, k: int) -> None:
    page.set("shingle-overlap", "a", a)
    page.set("shingle-overlap", "b", b)
    page.set("shingle-overlap", "k", k)
    left, right = word_shingles(a, k), word_shingles(b, k)
    assert page.value("shingle-overlap", "jaccard") == jaccard(left, right)
    assert page.value("shingle-overlap", "shingles") == [len(left), len(right)]
    assert page.value("shingle-overlap", "shared") == len(left & right)
    marked = page.page.eval_on_selector_all(
        page.selector("shingle-overlap", "list-a") + " li",
        "(items) => items.map((li) => [li.dataset.shared === 'true', li.textContent.replace(/^✓ /, '')])",
    )
    assert {text for _, text in marked} == left
    assert {text for shared, text in marked if shared} == left & right


def test_no_console_error_and_no_request_off_this_machine(page: Widgets) -> None:
    """Runs after every test above has driven the widgets on the shared page."""
    fail_if(page.problems, "test page")


# ------------------------------------------------------------- the book's own pages


def _check_shingles(w: Widgets) -> None:
    k = int(w.get("shingle-overlap", "k"))
    a, b = w.get("shingle-overlap", "a"), w.get("shingle-overlap", "b")
    assert w.value("shingle-overlap", "jaccard") == jaccard(word_shingles(a, k), word_shingles(b, k))


def _check_minhash(w: Widgets) -> None:
    j, k = float(w.get("minhash-error", "j")), int(w.get("minhash-error", "k"))
    assert w.value("minhash-error", "formula-sd") == pytest.approx(math.sqrt(j * (1 - j) / k), rel=1e-12)


def _check_s_curve(w: Widgets) -> None:
    threshold, num_perm = float(w.get("s-curve", "threshold")), int(w.get("s-curve", "num-perm"))
    weights = float(w.get("s-curve", "fp-weight")), float(w.get("s-curve", "fn-weight"))
    assert tuple(w.value("s-curve", "best")) == optimal_params(threshold, num_perm, *weights)


def _check_block_table(w: Widgets) -> None:
    bits, k, blocks, tables, n = (
        int(w.get("block-table", key)) for key in ("bits", "max-distance", "blocks", "tables", "n")
    )
    index = BlockIndex(
        np.zeros(1, dtype=np.uint64), max_distance=k, scheme="permuted", blocks=blocks, bits=bits
    )
    expected = random_candidates(index.block_widths, list(index.table_blocks[:tables]), n)
    assert w.value("block-table", "candidates") == pytest.approx(expected, rel=1e-12)


CHECKS: dict[str, Callable[[Widgets], None]] = {
    "shingle-overlap": _check_shingles,
    "minhash-error": _check_minhash,
    "s-curve": _check_s_curve,
    "block-table": _check_block_table,
}


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    if not (SITE / "index.html").is_file():
        pytest.skip("the book is not built (_build/html); `make book` builds it")
    with serve_site() as url:
        yield url


@pytest.mark.parametrize("name", list(CHAPTERS))
def test_the_chapter_renders_its_explorable(browser, site: str, name: str) -> None:
    chapter = CHAPTERS[name]
    notebook = json.loads((ROOT / f"{chapter}.ipynb").read_text(encoding="utf-8"))
    sources = ["".join(cell.get("source", [])) for cell in notebook["cells"]]
    assert any(placeholder(name) in source for source in sources), (
        f"{chapter}.ipynb has lost its {name} explorable: no cell holds {placeholder(name)}"
    )
    built = SITE / f"{chapter}.html"
    assert built.is_file() and placeholder(name) in built.read_text(encoding="utf-8"), (
        f"{chapter}.html was built before its {name} placeholder: rebuild the book"
    )
    with Visit(browser, f"{site}{chapter}.html") as visit:
        widgets = Widgets(visit)
        root = visit.page.locator(f'.nd-explorable[data-explorable="{name}"]')
        assert root.get_attribute("data-ready") == "true"
        box = root.bounding_box()
        assert box and box["width"] > 200 and box["height"] > 100, box
        CHECKS[name](widgets)
        problems = list(visit.problems)
    fail_if(problems, f"{chapter}.html")
