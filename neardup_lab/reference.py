"""The whole dedup written with core functions only, read top to bottom: the engine's test oracle.

Chapter 9's pipeline, one step after another: exact pass, sign, band, verify, union-find,
keepers. It holds Python sets of strings and checks every candidate pair, so it is slow;
:func:`~neardup_lab.engine.pipeline.dedup` must find the same clusters and keepers.

Word-shingle ids come from the core's :func:`~neardup_lab.hashing.word_shingle_ids` (one
hash per word, combined k at a time), the definition the engine computes in batches;
verification reads the core's sets of strings, whose Jaccard similarity the ids keep.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from .clusters import choose_keepers, clusters_from_pairs
from .docfreq import frequent_shingles
from .hashing import hash_shingles, word_shingle_ids
from .lsh import candidate_pairs
from .settings import Settings
from .text import char_shingles, jaccard, word_shingles, words

__all__ = ["Reference", "reference_dedup"]


class Reference(NamedTuple):
    """What :func:`reference_dedup` found: as :class:`~neardup_lab.engine.pipeline.DedupResult`,
    but ``pairs`` holds every verified candidate (dedup skips pairs already joined)."""

    clusters: list[list[int]]
    keepers: list[int]
    copies: list[tuple[int, int]]
    pairs: list[tuple[int, int]]


def reference_dedup(docs: Sequence[str], settings: Settings | None = None) -> Reference:
    """:func:`~neardup_lab.engine.pipeline.dedup` of ``docs`` with ``settings``, from core functions.

    >>> docs = ["the heavy rain closed schools in the coastal district today",
    ...         "The heavy rain closed schools in the coastal district today!",
    ...         "the heavy rain closed schools in the coastal district on monday",
    ...         "a new bridge opened over the river"]
    >>> found = reference_dedup(docs, Settings(threshold=0.5, k=3))
    >>> found.clusters, found.keepers, found.copies, found.pairs
    ([[0, 1, 2], [3]], [0, 3], [(0, 1)], [(0, 2)])
    """
    s = settings or Settings()
    # 1. Exact pass: the first document with the same words (after normalize) represents them;
    # a text with no words is nobody's copy.
    first: dict[tuple[str, ...], int] = {}
    group = [first.setdefault(text, i) if text else i for i, text in enumerate(tuple(words(d)) for d in docs)]
    reps = [i for i, g in enumerate(group) if g == i]
    copies = sorted((g, i) for i, g in enumerate(group) if g != i)
    # 2. Sign each representative's shingles, less those in more than max_df of all documents.
    shingles = char_shingles if s.shingle == "char" else word_shingles
    frequent = set() if s.max_df is None else frequent_shingles([shingles(d, s.k) for d in docs], s.max_df)
    sets = {i: shingles(docs[i], s.k) - frequent for i in reps}
    if s.shingle == "char" or frequent:  # a word shingle's id is that of the shingle's own text
        hashed = hash_shingles if s.shingle == "char" else lambda words: _word_ids(words, s.k)
        ids = [hashed(sets[i]) for i in reps]
    else:
        ids = [word_shingle_ids(docs[i], s.k) for i in reps]
    signatures = s.banded(s.hasher().signatures(ids))
    row = {doc: r for r, doc in enumerate(reps)}
    # 3. Band: pairs of representatives that agree on a whole band, of those that have shingles
    # (left, with max_df): a document without shingles joins only its exact copies.
    banded = [r for r, i in enumerate(reps) if sets[i]]
    pairs_of_rows = sorted(candidate_pairs(signatures[banded], s.bands, s.rows))
    candidates = [(reps[banded[a]], reps[banded[b]]) for a, b in pairs_of_rows]

    # 4. Verify: exact Jaccard, the signatures' estimate, or none.
    def similarity(a: int, b: int) -> float:
        if s.verify == "exact":
            return jaccard(sets[a], sets[b])
        if s.verify == "none":
            return 1.0
        return float(s.estimate(signatures[row[a]], signatures[row[b]]))

    pairs = [(a, b) for a, b in candidates if similarity(a, b) >= s.threshold]
    # 5. Union-find over copies and verified pairs; 6. one keeper per cluster.
    clusters = clusters_from_pairs(len(docs), copies + pairs)
    keepers = choose_keepers(clusters, s.keeper, lengths=[len(doc) for doc in docs])
    return Reference(clusters, keepers, copies, pairs)


def _word_ids(shingles: set[str], k: int) -> np.ndarray:
    """The ids :func:`~neardup_lab.hashing.word_shingle_ids` gives these word shingles."""
    ids = [word_shingle_ids(shingle, k) for shingle in sorted(shingles)]
    return np.unique(np.concatenate([np.empty(0, dtype=np.uint64), *ids]))
