"""Small helpers the book's chapters share, so that no chapter copies another's code.

Timing: :func:`duration`, :func:`best_time`, :func:`speed_ratio`. Teaching views of a text:
:func:`article_body`, :func:`raw_word_shingles`, :func:`shingle_counts`. The costs every chapter
projects from, measured once per build by :func:`measured_costs` (chapters never call
:func:`pair_cost` or :func:`signing_cost` directly), and :func:`n_pairs`. A dedup run's statistics
as lines (:func:`stage_lines`); an estimate's error (:func:`rmse`) and id sets of a known similarity
(:func:`id_pairs`); a drawing of a Dask run (:func:`draw_partition_flow`) and tables whose header
has no empty cell (:func:`labelled_table`).

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
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from ..corpus import make_article, make_corpus
from ..text import jaccard, word_shingles, words

if TYPE_CHECKING:
    import matplotlib.axes
    import pandas as pd

__all__ = [
    "duration", "best_time", "article_body", "raw_word_shingles", "n_pairs", "PairCost", "pair_cost",
    "stage_lines", "signing_cost", "Costs", "COSTS_ENV", "costs_path", "measured_costs", "shingle_counts",
    "speed_ratio", "rmse", "IdPairs", "id_pairs", "draw_partition_flow", "LabelledTable", "labelled_table",
]

_UNITS = (
    ("years", 365.25 * 86400), ("days", 86400.0), ("hours", 3600.0), ("min", 60.0),
    ("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9),
)


def duration(seconds: float) -> str:
    """A time span as text with a unit: three significant digits, thousands separated.

    The book's output checker recognises this form as a measurement.

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
    """Measured seconds for one exact Jaccard comparison of two shingle sets: ``unrelated``
    for two different articles (few shared shingles), ``similar`` for an article and a
    near-copy (most shingles shared)."""

    unrelated: float
    similar: float

    def all_pairs_seconds(self, n: int) -> float:
        """Projected time to compare all pairs of ``n`` documents, almost all unrelated."""
        return n_pairs(n) * self.unrelated


def pair_cost(n_docs: int = 400, k: int = 5, seed: int = 0, repeat: int = 5) -> PairCost:
    """Measure one exact comparison on this machine: ``jaccard`` of two 300-word articles' sets.

    The sets are built first, so only the comparison is timed. Unrelated pairs are
    cheaper than similar ones: a set intersection looks up every element of the smaller
    set, but only a shared element is inserted into the result, and a near-copy shares
    almost all of them.

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
    """Pairs of random id sets with a known Jaccard similarity, flat as ``signatures_flat`` takes them.

    Rows ``2p`` and ``2p + 1`` of ``ids``/``lengths`` are pair ``p``.
    """

    ids: np.ndarray
    lengths: np.ndarray
    jaccard: float


def id_pairs(size: int, similarity: float, count: int, seed: int) -> IdPairs:
    """``count`` independent pairs of sets of ``size`` random 64-bit ids with Jaccard ``similarity``.

    Two sets of ``size`` ids sharing ``m`` have J = m / (2 size - m); ``m`` is rounded,
    so ``jaccard`` is the exact similarity the pairs have.

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
    """One line per stage of a ``DedupResult.stats``: its counts, then its time with a unit.

    A stage whose time is counted in the line above it (banding and verification run
    interleaved) says so instead of showing zero.

    >>> lines = stage_lines({"exact": {"documents": 3, "copies": 1, "seconds": 0.0012},
    ...                      "verified": {"pairs": 2, "seconds": 0.0}})
    >>> lines[0].split()
    ['exact', 'documents', '3,', 'copies', '1', '1.2', 'ms']
    >>> lines[1].split()[:3], lines[1].endswith("(in the line above)")
    (['verified', 'pairs', '2'], True)
    """
    lines = []
    for stage, values in stats.items():
        # The counts; candidates per document is the explosion warning's figure, not a count.
        counts = ", ".join(f"{name} {int(v):,}" for name, v in values.items() if name not in _NOT_COUNTS)
        took = duration(values["seconds"]) if values.get("seconds", 0.0) else "(in the line above)"
        lines.append(f"{stage:<11} {counts:<50} {took}")
    return lines


def draw_partition_flow(
    ax: matplotlib.axes.Axes, columns: list[tuple[str, str]], arrows: list[str], client: str, lanes: int = 3
) -> None:
    """Draw a distributed pipeline on ``ax``: columns of partitions, every lane to every lane.

    ``columns`` holds ``(label, kind)`` pairs, kind ``"data"`` (input partitions, blue,
    named P0, P1, ...) or ``"shuffle"`` (shuffle partitions, orange, S0, S1, ...);
    ``arrows`` labels the ``len(columns) - 1`` bundles between them; the last column
    sends everything to one ``client`` box (green).

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
    """A DataFrame shown on a page with one header row: the index's name labels the corner.

    pandas writes a named index as a second header row, empty but for the name, and leaves the
    corner cell empty; screen readers announce empty header cells. Here the index becomes the
    first columns of a single header row. As text it prints like the DataFrame itself.
    """

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

    Raises TypeError for anything but a DataFrame, and ValueError when an index level has
    no name (name it with ``rename_axis``, or drop a meaningless index with
    ``reset_index(drop=True)``) or when the columns have several levels.

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


def signing_cost(n_docs: int = 2000, seed: int = 0, repeat: int = 3) -> float:
    """Measure signing on this machine: seconds per 300-word article for the signing stage of
    :func:`~neardup_lab.engine.pipeline.dedup` with its default settings, on one core.

    The best of ``repeat`` runs, after a warm-up: the first call in a process builds lookup
    tables once, which a small sample would otherwise charge to every article.

    >>> signing_cost(n_docs=20, repeat=1) > 0
    True
    """
    from ..engine.pipeline import prepare_many
    from ..settings import Settings

    docs = [make_article(seed * 1_000_003 + i) for i in range(n_docs)]
    settings = Settings()
    prepare_many(docs[:10], settings, ids="raw")
    return best_time(lambda: prepare_many(docs, settings, ids="raw"), repeat) / n_docs


# --- the costs measured once per build ---------------------------------------------------

#: The environment variable that names the cost file, overriding :func:`costs_path`'s choice.
COSTS_ENV = "NEARDUP_LAB_COSTS"


class Costs(NamedTuple):
    """The book's measured costs: one exact comparison (:class:`PairCost`) and the signing
    of one 300-word article (seconds), as every chapter of one build projects from."""

    pair: PairCost
    signing: float


def costs_path(start: Path | None = None) -> Path:
    """Where this build keeps its measured costs: ``$NEARDUP_LAB_COSTS`` when set, else
    ``_build/costs.json`` in the book's root (the nearest folder above ``start``, by default
    the working directory, that holds ``_config.yml``), else ``_build/costs.json`` in ``start``.

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
        return Costs(pair, float(data["signing"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def measured_costs(path: Path | str | None = None) -> Costs:
    """The costs every chapter of one build uses: read from the cost file when it exists,
    otherwise measured once (:func:`pair_cost`, :func:`signing_cost`) and written there.

    Chapters run in parallel and in any order (nbval in CI), so the first to get here
    measures, under a file lock, while the others wait and then read the same figures; the
    file is written atomically (a temporary file renamed over it), so no chapter reads half
    of it. The file lives with the build's products (:func:`costs_path`); delete it to
    measure again (``make notebooks`` and ``make execute`` do, once per build).

    >>> path = Path(tempfile.mkdtemp()) / "costs.json"
    >>> _ = path.write_text('{"pair_unrelated": 1e-05, "pair_similar": 2e-05, "signing": 4e-05}')
    >>> costs = measured_costs(path)
    >>> duration(costs.pair.unrelated), duration(costs.signing)
    ('10 µs', '40 µs')
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
        # Another chapter may have measured while this one waited for the lock.
        if (found := _read_costs(path)) is not None:
            return found
        costs = Costs(pair_cost(), signing_cost())
        record = {
            "pair_unrelated": costs.pair.unrelated, "pair_similar": costs.pair.similar,
            "signing": costs.signing, "measured": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "python": sys.version.split()[0],
        }
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(record, out, indent=1)
        os.replace(temporary, path)
        return costs
