"""Why two documents were paired or not (:func:`explain`), and what tied each removed one (:func:`ties`).

>>> e = explain("Heavy rain closed the coastal road on Monday morning.",
...             "heavy rain closed the coastal road on monday evening", Settings(k=2))
>>> e.shared_count, e.union_count, round(e.jaccard, 3), e.candidate, e.verified
(7, 9, 0.778, True, False)
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter
from typing import NamedTuple

import numpy as np

from ..settings import Settings
from ..support.validate import described, require_text
from ..text import char_shingles, containment, windows, word_shingles, words
from .banding import band_groups
from .idsets import jaccard_from_texts
from .pipeline import DedupResult, check_documents, keep_verified, prepare
from .verify import jaccard_of_pairs

__all__ = ["Explanation", "explain", "Tie", "ties"]

#: Shared shingles listed by ``str()``; all of them are in :attr:`Explanation.shared`.
SHOWN_SHARED = 8
#: Words of each text drawn by ``_repr_html_``; a longer text is cut there, and says so.
HTML_WORDS = 400
_BANDS_LISTED = 16  # matching bands named by str(); all are in Explanation.matching_bands


@dataclass(frozen=True, repr=False)
class Explanation:
    """The evidence for one pair of texts under ``settings``: ``shared`` shingles in order of first
    occurrence in ``a``; ``jaccard`` of the shingle ids; ``agreeing``: equal signature values (after
    b-bit truncation); ``matching_bands``: bands whose values all agree; ``verified``: kept."""

    settings: Settings
    words_a: tuple[str, ...]
    words_b: tuple[str, ...]
    shingles_a: frozenset[str]
    shingles_b: frozenset[str]
    shared: tuple[str, ...]
    jaccard: float
    contained_a_in_b: float
    contained_b_in_a: float
    exact_copy: bool
    agreeing: int
    estimate: float
    matching_bands: tuple[int, ...]
    verified: bool

    @property
    def shared_count(self) -> int:
        """Number of distinct shingles both texts have."""
        return len(self.shared)

    @property
    def union_count(self) -> int:
        """Number of distinct shingles either text has."""
        return len(self.shingles_a) + len(self.shingles_b) - len(self.shared)

    @property
    def candidate(self) -> bool:
        """True when at least one band matches, so banding proposes the pair."""
        return bool(self.matching_bands)

    @property
    def joined(self) -> bool:
        """True when dedup pairs these two directly, as exact copies or as a verified candidate."""
        return self.exact_copy or (self.candidate and self.verified)

    @property
    def verdict(self) -> str:
        """One sentence that says what dedup does with the pair, and which step decides it."""
        if self.exact_copy:
            return "exact copies: equal after normalisation, joined by the exact pass"
        if not (self.shingles_a and self.shingles_b):
            return "apart: a text with no shingle is compared with no other text"
        if self.candidate and self.verified:
            return "near-duplicates: a band matches and verification keeps the pair"
        if self.candidate:
            return "false candidate: a band matches but verification drops the pair"
        if self.verified:
            return "missed by banding: verification would keep the pair, but no band matches"
        return "not near-duplicates: no band matches, and verification would drop the pair"

    def _verification(self) -> str:
        s = self.settings
        if s.verify == "none":
            return "none: every candidate is kept"
        value, what = (self.jaccard, "exact Jaccard") if s.verify == "exact" else (self.estimate, "estimate")
        verb, sign = ("keeps", ">=") if self.verified else ("drops", "<")
        # as many digits as it takes for the printed value to hold the comparison printed
        texts = (f"{value:.{digits}f}" for digits in range(4, 18))
        shown = next((text for text in texts if (float(text) >= s.threshold) == self.verified), repr(value))
        return f"{verb}: {what} {shown} {sign} {s.threshold:g}"

    def _facts(self) -> list[tuple[str, str]]:
        """The numbers, as (label, value) pairs: the body of both ``str()`` and the HTML table."""
        s = self.settings
        if self.union_count:
            fraction = f"{self.shared_count} / {self.union_count} = {self.jaccard:.4f}"
        else:
            fraction = f"{self.jaccard:.4f}, as both texts have no shingles"
        matching = len(self.matching_bands)
        listed = ", ".join(map(str, self.matching_bands[:_BANDS_LISTED]))
        listed += ", ..." if matching > _BANDS_LISTED else ""
        which = f"{matching} match: band{'s' if matching > 1 else ''} {listed}" if matching else "none match"
        return [
            ("words", f"a {len(self.words_a)}, b {len(self.words_b)} (after normalisation)"),
            (
                f"{s.k}-{s.shingle} shingles",
                f"a {len(self.shingles_a)}, b {len(self.shingles_b)}, "
                f"shared {self.shared_count}, together {self.union_count}",
            ),
            ("exact Jaccard", f"{fraction} (threshold {s.threshold:g})"),
            ("containment", f"a in b {self.contained_a_in_b:.3f}, b in a {self.contained_b_in_a:.3f}"),
            ("MinHash", f"{self.agreeing} of {s.num_perm} values agree, estimate {self.estimate:.4f}"),
            ("banding", f"{s.bands} bands x {s.rows} rows; {which}"),
            ("verification", self._verification()),
            ("verdict", self.verdict),
        ]

    def lines(self, shown: int = SHOWN_SHARED) -> list[str]:
        """The explanation as lines of text, listing the first ``shown`` shared shingles.

        >>> print("\\n".join(explain("a b c d", "a b c e", Settings(k=2)).lines(shown=1)))
        words:            a 4, b 4 (after normalisation)
        2-word shingles:  a 3, b 3, shared 2, together 4
        exact Jaccard:    2 / 4 = 0.5000 (threshold 0.8)
        containment:      a in b 0.667, b in a 0.667
        MinHash:          52 of 128 values agree, estimate 0.4062
        banding:          18 bands x 7 rows; none match
        verification:     drops: exact Jaccard 0.5000 < 0.8
        verdict:          not near-duplicates: no band matches, and verification would drop the pair
        shared shingles:  1 of 2, in the order of a:
          'a b'
        """
        if isinstance(shown, bool) or not isinstance(shown, int):
            raise TypeError(f"shown must be an int, got {described(shown)}")
        if shown < 0:
            raise ValueError(f"shown must be >= 0, got {shown}")
        lines = [f"{label + ':':<18}{value}" for label, value in self._facts()]
        if self.shared and shown:
            first = min(shown, len(self.shared))
            lines.append(f"{'shared shingles:':<18}{first} of {len(self.shared)}, in the order of a:")
            lines += [f"  {shingle!r}" for shingle in self.shared[:first]]
        return lines

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def __repr__(self) -> str:  # the word lists and shingle sets can be long: only the findings
        return (
            f"Explanation(jaccard={self.jaccard:.4f}, estimate={self.estimate:.4f}, "
            f"matching_bands={self.matching_bands}, exact_copy={self.exact_copy}, "
            f"verified={self.verified}, joined={self.joined})"
        )

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><th style='text-align:left'>{html.escape(label)}</th>"
            f"<td style='text-align:left'>{html.escape(value)}</td></tr>"
            for label, value in self._facts()
        )
        shared = frozenset(self.shared)
        texts = "".join(
            f"<p><b>{name}</b> ({len(text_words)} words; words in shared shingles are marked):<br>"
            f"{_marked(text_words, shared, self.settings)}</p>"
            for name, text_words in (("a", self.words_a), ("b", self.words_b))
        )
        return f"<div class='neardup-explain'><table>{rows}</table>{texts}</div>"


def _units(text_words: Sequence[str], settings: Settings) -> tuple[Sequence[str], str, list[str]]:
    """The units shingles are cut from (words, or characters of the normalised text), their
    separator, and the shingle starting at each unit, in text order."""
    if settings.shingle == "word":
        units = list(text_words)
        return units, " ", [" ".join(run) for run in windows(units, settings.k)]
    text = " ".join(text_words)  # normalize(text) is its words joined by single spaces
    return text, "", windows(text, settings.k)


def _in_order(text_words: Sequence[str], shared: frozenset[str], settings: Settings) -> tuple[str, ...]:
    """The shared shingles in the order they first occur in the text."""
    return tuple(dict.fromkeys(w for w in _units(text_words, settings)[2] if w in shared))


def _marked(text_words: Sequence[str], shared: frozenset[str], settings: Settings) -> str:
    """The normalised text as HTML, units covered by a shared shingle inside ``<mark>``."""
    units, sep, shingles = _units(text_words[:HTML_WORDS], settings)
    k = min(settings.k, len(units))
    covered = np.zeros(len(units) + 1, dtype=np.int64)
    for start, window in enumerate(shingles):
        if window in shared:  # a running count: +1 where a shared window starts, -1 past its end
            covered[start] += 1
            covered[start + k] -= 1
    inside = (np.cumsum(covered[:-1]) > 0).tolist()
    runs = [
        (mark, sep.join(html.escape(u) for u, _ in run))
        for mark, run in groupby(zip(units, inside), itemgetter(1))
    ]
    parts = [f"<mark>{text}</mark>" if mark else text for mark, text in runs]
    more = len(text_words) - HTML_WORDS
    return sep.join(parts) + (f" … ({more} more words)" if more > 0 else "")


def _check_settings(settings: object) -> Settings:
    if settings is None:
        return Settings()
    if not isinstance(settings, Settings):
        raise TypeError(
            f"settings must be a Settings, got {type(settings).__name__}; "
            "build one with Settings(threshold=..., k=...)"
        )
    return settings


def explain(a: str, b: str, settings: Settings | None = None) -> Explanation:
    """The evidence for ``a``, ``b`` at every step of dedup: ``explain(a, b, s).joined`` exactly when
    ``dedup([a, b], **s.to_dict())`` clusters them. TypeError for a non-str or non-Settings.

    >>> e = explain("The river rose fast today", "the river rose FAST, today!")
    >>> e.exact_copy, e.jaccard, e.joined
    (True, 1.0, True)
    >>> e = explain("the river rose fast today", "the river rose slowly today", Settings(k=2))
    >>> e.shared, e.jaccard, e.candidate
    (('the river', 'river rose'), 0.3333333333333333, False)
    """
    a, b = require_text(a, "a"), require_text(b, "b")
    settings = _check_settings(settings)
    prepared = prepare([a, b], settings)
    signatures = settings.banded(prepared.signatures)
    prepared = prepared._replace(signatures=signatures)
    pair = np.array([[0, 1]])
    shingle = word_shingles if settings.shingle == "word" else char_shingles
    shingles_a, shingles_b = frozenset(shingle(a, settings.k)), frozenset(shingle(b, settings.k))
    words_a, words_b = tuple(words(a)), tuple(words(b))
    left, right = signatures
    bands = [
        band
        for band, groups in enumerate(band_groups(signatures, settings.bands, settings.rows))
        if len(groups.starts) == 1  # both documents in one group: the band's values agree
    ]
    if not (shingles_a and shingles_b):  # dedup bands no text without shingles
        bands = []
    return Explanation(
        settings=settings,
        words_a=words_a,
        words_b=words_b,
        shingles_a=shingles_a,
        shingles_b=shingles_b,
        shared=_in_order(words_a, shingles_a & shingles_b, settings),
        jaccard=float(jaccard_of_pairs(prepared.sets, pair)[0]),
        contained_a_in_b=containment(shingles_a, shingles_b),
        contained_b_in_a=containment(shingles_b, shingles_a),
        exact_copy=bool(words_a) and words_a == words_b,  # equal keys could be a crafted collision
        agreeing=int(np.count_nonzero(left == right)),
        estimate=float(settings.estimate(left, right)),
        matching_bands=tuple(bands),
        verified=bool(keep_verified(settings, prepared)(pair)[0]),
    )


class Tie(NamedTuple):
    """Why ``document`` is in its cluster: its pair with ``neighbour``, ``steps`` from the ``keeper``."""

    document: int
    neighbour: int
    jaccard: float
    exact_copy: bool
    keeper: int
    steps: int


def ties(result: DedupResult, docs: Sequence[str]) -> list[Tie]:
    """For each document ``result`` removed, the pair that tied it to its cluster on a breadth-first
    walk from the keeper. TypeError for a non-DedupResult, ValueError for ``docs`` of another size.

    >>> docs = ["a b c d e f g h", "a b c d e f g x", "a b c d e f y x", "z"]
    >>> from neardup_lab.engine.pipeline import dedup
    >>> result = dedup(docs, threshold=0.6, k=1)
    >>> [(t.document, t.neighbour, t.jaccard, t.steps) for t in ties(result, docs)]
    [(1, 0, 0.7777777777777778, 1), (2, 1, 0.7777777777777778, 2)]
    """
    if not isinstance(result, DedupResult):
        raise TypeError(f"result must be a DedupResult from dedup, got {type(result).__name__}")
    docs = check_documents(docs)
    n = sum(map(len, result.clusters))
    if len(docs) != n:
        raise ValueError(
            f"the result covers {n} documents but {len(docs)} were given; pass the documents dedup was given"
        )
    edges = np.array([*result.copies, *result.pairs], dtype=np.int64).reshape(-1, 2)
    keepers = [keeper for keeper, members in zip(result.keepers, result.clusters) if len(members) > 1]
    # One walk from an extra node n linked to every keeper reaches each cluster from its keeper.
    links = np.concatenate([edges, np.stack([np.full(len(keepers), n), keepers], axis=1).astype(np.int64)])
    from scipy.sparse import coo_matrix  # here: import neardup_lab stays free of scipy
    from scipy.sparse.csgraph import breadth_first_order

    graph = coo_matrix((np.ones(len(links), dtype=np.int8), (links[:, 0], links[:, 1])), shape=(n + 1, n + 1))
    order, parent = breadth_first_order(graph.tocsr(), n, directed=False, return_predecessors=True)
    steps = np.full(n + 1, -1, dtype=np.int64)  # the extra node is one step before the keepers
    for node in order[1:].tolist():
        steps[node] = steps[parent[node]] + 1
    removed = np.array(result.removed, dtype=np.int64)
    neighbours = parent[removed].astype(np.int64)
    keeper_of = np.empty(n, dtype=np.int64)
    for members, keeper in zip(result.clusters, result.keepers):
        keeper_of[members] = keeper
    copies = {(min(pair), max(pair)) for pair in result.copies}
    exact = np.array(
        [(min(d, m), max(d, m)) in copies for d, m in zip(removed.tolist(), neighbours.tolist())], dtype=bool
    )
    jaccards = np.ones(len(removed))  # exact copies have equal shingle sets
    near = np.flatnonzero(~exact)
    if len(near):
        pairs = np.stack([removed[near], neighbours[near]], axis=1)
        jaccards[near] = jaccard_from_texts(docs, result.settings, pairs)
    return [
        Tie(d, m, float(j), bool(x), int(r), int(steps[d]))
        for d, m, j, x, r in zip(
            removed.tolist(), neighbours.tolist(), jaccards, exact, keeper_of[removed].tolist()
        )
    ]
