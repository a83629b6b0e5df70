"""Helpers the book's chapters share, so that no chapter copies another's code.

Timing (:func:`duration`, :func:`best_time`, :func:`speed_ratio`); views of a text
(:func:`article_body`, :func:`raw_word_shingles`, :func:`shingle_counts`); the costs every chapter
projects from, measured once per build under the same conditions (:func:`measured_costs`: a pair,
signing, the whole ``dedup``); small figures and tables.

>>> duration(0.0123)
'12.3 ms'
>>> n_pairs(4)
6
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ..corpus import make_article, make_corpus
from ..index.fileformat import atomic_writer
from ..text import jaccard, word_shingles, words

if TYPE_CHECKING:
    import matplotlib.axes
    import pandas as pd

__all__ = [
    "duration", "best_time", "article_body", "raw_word_shingles", "n_pairs", "PairCost", "pair_cost",
    "stage_lines", "cost_articles", "PipelineCost", "pipeline_cost", "Costs", "COSTS_ENV", "costs_path",
    "measured_costs", "shingle_counts",
    "speed_ratio", "rmse", "IdPairs", "id_pairs", "draw_partition_flow", "LabelledTable", "labelled_table",
]

_UNITS = (
    ("years", 365.25 * 86400), ("days", 86400.0), ("hours", 3600.0), ("min", 60.0),
    ("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9),
)


def duration(seconds: float) -> str:
    """A time span with a unit, three significant digits, thousands separated (the form the book's
    output checker takes for a measurement).

    >>> duration(0.0000123)
    '12.3 µs'
    >>> duration(3 * 86400)
    '3 days'
    >>> duration(1234 * 365.25 * 86400)
    '1,234 years'
    """
    unit, size = next((unit, size) for unit, size in _UNITS if seconds >= size or unit == "ns")
    value = seconds / size
    return f"{value:,.0f} {unit}" if value >= 100 else f"{value:.3g} {unit}"


def best_time(function: Callable[[], object], repeat: int = 3) -> float:
    """The fastest of ``repeat`` runs of ``function()``, in seconds (the least disturbed run).

    >>> best_time(lambda: sum(range(10)), repeat=2) > 0
    True
    """
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def article_body(seed: int, n_words: int = 300) -> str:
    """The body of the generated article ``seed``, without its headline.

    >>> article_body(1, n_words=40).count("\\n\\n")
    0
    """
    return make_article(seed, n_words=n_words).split("\n\n", 1)[1]


def raw_word_shingles(text: str, k: int) -> set[str]:
    """Word shingles WITHOUT normalisation: split on whitespace only (a teaching version).

    >>> sorted(raw_word_shingles("Rain, rain today", 2))
    ['Rain, rain', 'rain today']
    """
    tokens = text.split()
    return {" ".join(tokens[i : i + k]) for i in range(len(tokens) - k + 1)}


def n_pairs(n: int) -> int:
    """Number of unordered pairs of ``n`` documents, n(n-1)/2.

    >>> n_pairs(10_000_000)
    49999995000000
    """
    return n * (n - 1) // 2


class PairCost(NamedTuple):
    """Seconds for one exact Jaccard of two articles' shingle sets: ``unrelated`` ones, or an
    article and a ``similar`` near-copy."""

    unrelated: float
    similar: float

    def all_pairs_seconds(self, n: int) -> float:
        """Projected time to compare all pairs of ``n`` documents, almost all unrelated."""
        return n_pairs(n) * self.unrelated


def pair_cost(n_docs: int = 400, k: int = 5, seed: int = 0, repeat: int = 5) -> PairCost:
    """Seconds for one ``jaccard`` of two 300-word articles' shingle sets (built before the clock
    starts). A near-copy costs more than an unrelated article: only shared shingles are inserted.

    >>> cost = pair_cost(n_docs=40, repeat=1)
    >>> cost.similar > 0 and cost.unrelated > 0
    True
    """
    docs, origin, _ = make_corpus(n_docs // 2, seed=seed, copies=(1, 1), edit_kinds=("light-replace",))
    sets = [word_shingles(text, k) for text in docs]
    similar = [(sets[o], sets[i]) for i, o in enumerate(origin) if o != i]
    originals = [sets[i] for i, o in enumerate(origin) if o == i]
    unrelated = list(zip(originals, originals[1:]))

    def per_pair(pairs: list[tuple[set[str], set[str]]]) -> float:
        return best_time(lambda: [jaccard(a, b) for a, b in pairs], repeat) / len(pairs)

    return PairCost(unrelated=per_pair(unrelated), similar=per_pair(similar))


def shingle_counts(text: str, k: int = 3) -> Counter[str]:
    """Word ``k``-shingles of the normalised text, each with how often it occurs (SimHash weights).

    >>> shingle_counts("Rain, rain, rain", k=2)
    Counter({'rain rain': 2})
    """
    tokens = words(text)
    return Counter(" ".join(tokens[i : i + k]) for i in range(len(tokens) - k + 1))


def speed_ratio(slow: float, fast: float) -> str:
    """How much faster ``fast`` seconds are than ``slow`` seconds, as text: ``'3.2x faster'``.

    >>> speed_ratio(6.4, 2.0), speed_ratio(1.0, 2.0)
    ('3.2x faster', '2.0x slower')
    """
    if slow <= 0 or fast <= 0:
        raise ValueError(f"times must be positive, got slow={slow!r} and fast={fast!r}")
    return f"{slow / fast:.1f}x faster" if slow >= fast else f"{fast / slow:.1f}x slower"


def rmse(estimates: ArrayLike, exact: float) -> float:
    """Root-mean-square error of ``estimates`` around the ``exact`` value.

    >>> rmse([0.4, 0.6], 0.5)
    0.1
    """
    errors = np.asarray(estimates, dtype=float) - exact
    return round(float(np.sqrt(np.mean(errors**2))), 15)


class IdPairs(NamedTuple):
    """Pairs of random id sets of a known Jaccard, flat: sets ``2p`` and ``2p + 1`` are pair ``p``."""

    ids: np.ndarray
    lengths: np.ndarray
    jaccard: float


def id_pairs(size: int, similarity: float, count: int, seed: int) -> IdPairs:
    """``count`` pairs of sets of ``size`` random 64-bit ids with Jaccard ``similarity``, as near as
    a whole number of shared ids allows: ``jaccard`` is the exact value.

    >>> pairs = id_pairs(36, 0.5, 2, seed=0)
    >>> len(np.intersect1d(pairs.ids[:36], pairs.ids[36:72])), pairs.jaccard
    (24, 0.5)
    """
    if not 0 <= similarity <= 1:
        raise ValueError(f"similarity must be between 0 and 1, got {similarity!r}")
    shared = round(2 * size * similarity / (1 + similarity))
    pool = np.random.default_rng(seed).integers(0, 2**64, size=(count, 2 * size - shared), dtype=np.uint64)
    second = np.concatenate([pool[:, :shared], pool[:, size:]], axis=1)
    ids = np.stack([pool[:, :size], second], axis=1).reshape(-1)
    return IdPairs(ids, np.full(2 * count, size), shared / (2 * size - shared))


_NOT_COUNTS = ("seconds", "per_document")


def stage_lines(stats: dict[str, dict[str, float]]) -> list[str]:
    """One line per stage of a ``DedupResult.stats``: its counts, then its time (a stage timed with
    the one above it, as banding and verification are, says so instead of showing zero).

    >>> lines = stage_lines({"exact": {"documents": 3, "copies": 1, "seconds": 0.0012},
    ...                      "verified": {"pairs": 2, "seconds": 0.0}})
    >>> lines[0].split()
    ['exact', 'documents', '3,', 'copies', '1', '1.2', 'ms']
    >>> lines[1].split()[:3], lines[1].endswith("(in the line above)")
    (['verified', 'pairs', '2'], True)
    """
    lines = []
    for stage, values in stats.items():
        counts = ", ".join(f"{name} {int(v):,}" for name, v in values.items() if name not in _NOT_COUNTS)
        took = duration(values["seconds"]) if values.get("seconds", 0.0) else "(in the line above)"
        lines.append(f"{stage:<11} {counts:<50} {took}")
    return lines


def draw_partition_flow(
    ax: matplotlib.axes.Axes, columns: list[tuple[str, str]], arrows: list[str], client: str, lanes: int = 3
) -> None:
    """Draw a distributed pipeline on ``ax``: columns of ``(label, kind)``, ``"data"`` (input
    partitions P0, P1, ..., blue) or ``"shuffle"`` (S0, S1, ..., orange), every lane sending to every
    lane, ``arrows`` labelling the bundles between them; the last column sends to one ``client`` box.

    >>> from matplotlib.figure import Figure
    >>> ax = Figure().subplots()
    >>> draw_partition_flow(ax, [("sign", "data"), ("group", "shuffle")], ["by key"], "gather")
    >>> len(ax.patches)  # 2 columns x 3 boxes, 3 x 3 arrows, the client and its 3 arrows
    19
    """
    from matplotlib.patches import FancyArrowPatch, Rectangle

    if len(arrows) != len(columns) - 1:
        raise ValueError(f"need {len(columns) - 1} arrow labels for {len(columns)} columns, got {arrows!r}")
    colours = {"data": "#9ecae1", "shuffle": "#fdae6b"}
    box_w, box_h, gap, step = 0.9, 0.5, 1.85, 0.8
    top = (lanes - 1) * step + box_h

    def arrow(start: tuple[float, float], end: tuple[float, float]) -> None:
        ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=7, lw=0.6, color="0.4"))

    for c, (label, kind) in enumerate(columns):
        x = c * gap
        for r in range(lanes):
            ax.add_patch(Rectangle((x, r * step), box_w, box_h, color=colours[kind]))
            name = f"{'P' if kind == 'data' else 'S'}{r}"
            ax.text(x + box_w / 2, r * step + box_h / 2, name, ha="center", va="center", fontsize=9)
        ax.text(x + box_w / 2, top + 0.35, label, ha="center", va="bottom", fontsize=8.5)
        if c < len(arrows):
            for r in range(lanes):
                for s in range(lanes):
                    arrow((x + box_w, r * step + box_h / 2), (x + gap, s * step + box_h / 2))
            ax.text(x + box_w + (gap - box_w) / 2, -0.35, arrows[c], ha="center", fontsize=8, color="0.25")
    x = len(columns) * gap
    middle = (lanes - 1) * step / 2
    ax.add_patch(Rectangle((x, middle), box_w, box_h, color="#a1d99b"))
    ax.text(x + box_w / 2, middle + box_h / 2, "client", ha="center", va="center", fontsize=9)
    ax.text(x + box_w / 2, top + 0.35, client, ha="center", va="bottom", fontsize=8.5)
    for r in range(lanes):
        arrow((x - gap + box_w, r * step + box_h / 2), (x, middle + box_h / 2))
    ax.set_xlim(-0.2, x + box_w + 0.2)
    ax.set_ylim(-0.6, top + 1.3)
    ax.axis("off")


class LabelledTable:
    """A DataFrame shown with one header row, the index's name in the corner (pandas adds a second
    header row and leaves empty header cells, which screen readers announce); as text, the frame."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self.frame = frame

    def _repr_html_(self) -> str:
        flat = self.frame.reset_index()
        # A name on the columns would make pandas add a column of empty header cells.
        flat.columns.name = None
        return flat.to_html(index=False)

    def __repr__(self) -> str:
        return repr(self.frame)


def labelled_table(frame: pd.DataFrame) -> LabelledTable:
    """Show ``frame`` with its index name(s) as the corner label of a single header row.

    ValueError when an index level has no name, or the columns have several levels.

    >>> import pandas as pd
    >>> table = labelled_table(pd.DataFrame({"pairs": [3]}, index=pd.Index([5], name="k")))
    >>> html = table._repr_html_()
    >>> html.count("<tr"), "<th>k</th>" in html, "<th></th>" in html
    (2, True, False)
    >>> crossed = pd.crosstab(pd.Series(["a", "b"], name="kind"), pd.Series([1, 2], name="n"))
    >>> "<th></th>" in labelled_table(crossed)._repr_html_()
    False
    >>> labelled_table(pd.DataFrame({"pairs": [3]}))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: the table's index has no name: name it with rename_axis(...), or drop it ...
    """
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"labelled_table needs a pandas DataFrame, got {type(frame).__name__}")
    if any(name is None or name == "" for name in frame.index.names):
        raise ValueError(
            "the table's index has no name: name it with rename_axis(...), "
            "or drop it with reset_index(drop=True)"
        )
    if (levels := frame.columns.nlevels) > 1:
        raise ValueError(f"labelled_table shows one header row; the columns have {levels} levels")
    return LabelledTable(frame)


def cost_articles(n_originals: int = 1_200, seed: int = 8) -> list[str]:
    """The articles every shared cost of dedup is measured on: ``make_corpus`` news of 300 words,
    each story with up to three edited copies (so verification has work to do).

    >>> len(cost_articles(10)) >= 10
    True
    """
    return make_corpus(n_originals, seed=seed).docs


class PipelineCost(NamedTuple):
    """Seconds per article for ``dedup`` with its defaults on one core: its ``signing`` stage and
    the ``whole`` call, timed in the same runs (so the whole is never cheaper than its stage)."""

    signing: float
    whole: float


def pipeline_cost(n_originals: int = 1_200, seed: int = 8, repeat: int = 3) -> PipelineCost:
    """:class:`PipelineCost` on :func:`cost_articles`: the best of ``repeat`` runs of ``dedup``
    (``n_jobs=1``) and of the signing stage its ``stats`` report, after a warm-up call (the first
    call in a process builds lookup tables).

    >>> cost = pipeline_cost(n_originals=20, repeat=1)
    >>> 0 < cost.signing <= cost.whole
    True
    """
    from ..engine.pipeline import dedup

    docs = cost_articles(n_originals, seed)
    dedup(docs[:10], n_jobs=1)
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = dedup(docs, n_jobs=1)
        runs.append((result.stats["signatures"]["seconds"], time.perf_counter() - start))
    # Each run's whole holds its signing stage, so the best whole is at least the best stage.
    return PipelineCost(min(s for s, _ in runs) / len(docs), min(w for _, w in runs) / len(docs))


#: The environment variable naming the cost file, overriding :func:`costs_path`'s choice.
COSTS_ENV = "NEARDUP_LAB_COSTS"


class Costs(NamedTuple):
    """The costs every chapter of a build projects from, in seconds: :class:`PairCost`, and per
    article ``dedup``'s ``signing`` stage and the ``dedup`` call as a whole (:func:`pipeline_cost`)."""

    pair: PairCost
    signing: float
    dedup: float


def costs_path(start: Path | None = None) -> Path:
    """``$NEARDUP_LAB_COSTS`` when set, else ``_build/costs.json`` in the book's root (the nearest
    folder from ``start``, default the working directory, up that holds ``_config.yml``) or ``start``.

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> _ = (root / "_config.yml").write_text("title: a book")
    >>> (root / "book").mkdir()
    >>> costs_path(root / "book") == root / "_build" / "costs.json"
    True
    """
    if os.environ.get(COSTS_ENV):
        return Path(os.environ[COSTS_ENV])
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "_config.yml").is_file():
            return folder / "_build" / "costs.json"
    return here / "_build" / "costs.json"


def _read_costs(path: Path) -> Costs | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        pair = PairCost(float(data["pair_unrelated"]), float(data["pair_similar"]))
        return Costs(pair, float(data["signing"]), float(data["dedup"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def measured_costs(path: Path | str | None = None) -> Costs:
    """The costs of this build: read from :func:`costs_path`, else measured and written there.

    Chapters run in parallel, in any order: the first measures under a file lock while the others
    wait, then read what it wrote (atomically). Delete the file to measure again.

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "costs.json"
    >>> figures = {"pair_unrelated": 1e-05, "pair_similar": 2e-05, "signing": 4e-05, "dedup": 6e-05}
    >>> _ = path.write_text(json.dumps(figures))
    >>> costs = measured_costs(path)
    >>> duration(costs.pair.unrelated), duration(costs.signing), duration(costs.dedup)
    ('10 µs', '40 µs', '60 µs')
    >>> measured_costs(path) == costs
    True
    """
    path = Path(path) if path is not None else costs_path()
    if (found := _read_costs(path)) is not None:
        return found
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a+") as lock:  # closing it releases the lock
        with contextlib.suppress(ImportError):  # no POSIX locks (Windows): two chapters may measure at once
            import fcntl

            fcntl.flock(lock, fcntl.LOCK_EX)
        if (found := _read_costs(path)) is not None:
            return found
        pipeline = pipeline_cost()
        costs = Costs(pair_cost(), pipeline.signing, pipeline.whole)
        record = {
            "pair_unrelated": costs.pair.unrelated, "pair_similar": costs.pair.similar,
            "signing": costs.signing, "dedup": costs.dedup,
            "measured": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "python": sys.version.split()[0],
        }
        with atomic_writer(path) as out:
            json.dump(record, out, indent=1)
        return costs
