"""Shingle id sets from texts, and exact Jaccard of pairs straight from the texts.

:func:`unsorted_shingle_ids` is the one place a batch of texts becomes shingle
ids: :func:`~neardup_lab.engine.pipeline.prepare` signs them, and :func:`shingle_id_sets`
sorts them into the distinct ids that verification reads
(:class:`~neardup_lab.engine.verify.IdSets`).

Keeping every document's ids for verification costs 8 bytes a shingle: for a
million 300-word documents, 2.4 GB, more than the texts themselves. Only the
documents of candidate pairs are ever read, so :func:`jaccard_from_texts` derives
their ids again, a bounded slice of pairs at a time, instead of holding them all:
the same scores, for the time of deriving them (about as long as signing them).
:func:`~neardup_lab.engine.pipeline.dedup` keeps the ids of the first documents, up to
:data:`~neardup_lab.limits.IDS_BUDGET` bytes, and derives only the others'. It
keeps them in text order (:class:`ShingleIds`) and sorts, once banding is done,
only those of documents in a band group: the others are never read.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import limits
from ..hashing import hash_shingles
from ..spans import chunk_bounds, span_positions
from ..text import char_shingles
from ..workers import ordered_map
from .settings import Settings
from .tokenize import ngram_ids, tokenize_batch
from .verify import IdSets, jaccard_of_pairs, pack_id_sets

__all__ = ["unsorted_shingle_ids", "ShingleIds", "shingle_id_sets", "jaccard_from_texts"]


def unsorted_shingle_ids(
    docs: Sequence[str], settings: Settings, words: tuple[np.ndarray, np.ndarray] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``(ids, counts)``: each document's shingle ids in text order, repeats included, end to end.

    Word shingle ids come from :mod:`~neardup_lab.engine.tokenize`, char shingles from
    :func:`~neardup_lab.hashing.hash_shingles`. ``words`` passes the word hashes
    and counts of :func:`~neardup_lab.engine.tokenize.tokenize_batch` when the caller has
    them already. Enough to sign (a minimum ignores order and repeats);
    :func:`shingle_id_sets` sorts them for verification.

    >>> ids, counts = unsorted_shingle_ids(["rain rain today", "sun"], Settings(k=1))
    >>> counts.tolist(), bool(ids[0] == ids[1])
    ([3, 1], True)
    """
    if settings.shingle == "word":
        hashes, word_counts = tokenize_batch(docs) if words is None else words
        return ngram_ids(hashes, word_counts, settings.k)
    per_doc = [hash_shingles(char_shingles(doc, settings.k)) for doc in docs]
    counts = np.fromiter(map(len, per_doc), dtype=np.int64, count=len(per_doc))
    return (np.concatenate(per_doc) if per_doc else np.empty(0, dtype=np.uint64)), counts


class ShingleIds:
    """Each document's shingle ids in text order, repeats included, in the parts they were
    made in: part ``(ids, offsets)`` holds consecutive documents, the first of them owning
    ``ids[offsets[0] : offsets[1]]``; documents are numbered on from one part to the next.

    What signing reads, before the sorting verification needs.
    :func:`~neardup_lab.engine.pipeline.dedup` keeps its ids this way, one part per chunk of
    :func:`~neardup_lab.engine.pipeline.prepare_many` (not copied into one array), and sorts
    those of the documents in some band group only (:meth:`sets`): the others are
    never verified, and sorting is most of the cost of an id set.

    >>> raw = ShingleIds.of(np.array([7, 3, 7], dtype=np.uint64), np.array([0, 2, 3]))
    >>> joined = ShingleIds(raw.parts + raw.parts)
    >>> joined.documents, joined.offsets.tolist(), joined.ids.tolist()
    (4, [0, 2, 3, 5, 6], [7, 3, 7, 7, 3, 7])
    """

    def __init__(self, parts: Sequence[tuple[np.ndarray, np.ndarray]]) -> None:
        self.parts = tuple(parts)

    @classmethod
    def of(cls, ids: np.ndarray, offsets: np.ndarray) -> ShingleIds:
        """The ids of documents that own ``ids[offsets[d] : offsets[d + 1]]``, in one part."""
        return cls([(ids, offsets)])

    @property
    def documents(self) -> int:
        """How many documents the ids cover."""
        return sum(len(offsets) - 1 for _, offsets in self.parts)

    @property
    def ids(self) -> np.ndarray:
        """All the ids end to end (a copy, when there is more than one part)."""
        pieces = [ids[offsets[0] : offsets[-1]] for ids, offsets in self.parts]
        return pieces[0] if len(pieces) == 1 else np.concatenate([np.empty(0, np.uint64), *pieces])

    @property
    def offsets(self) -> np.ndarray:
        """Where each document's ids start in :attr:`ids`, and where the last one's end."""
        if len(self.parts) == 1 and self.parts[0][1][0] == 0:
            return self.parts[0][1]
        counts = [np.diff(offsets) for _, offsets in self.parts]
        return np.r_[0, np.cumsum(np.concatenate([np.empty(0, np.int64), *counts]))].astype(np.int64)

    def sets(self, wanted: np.ndarray, n_jobs: int = 1) -> IdSets:
        """The sorted distinct ids of the documents where ``wanted`` is true (one bool per
        document); the others get no ids. Sorted a few thousand documents at a time, on
        ``n_jobs`` threads (numpy sorts without the interpreter lock).

        >>> raw = ShingleIds.of(np.array([7, 3, 7, 5, 9, 9], dtype=np.uint64), np.array([0, 3, 4, 6]))
        >>> sets = raw.sets(np.array([True, False, True]))
        >>> sets.ids.tolist(), sets.offsets.tolist()
        ([3, 7, 9], [0, 2, 2, 3])
        """
        wanted = np.asarray(wanted, dtype=bool)
        if wanted.shape != (self.documents,):
            wants = f"one bool per document ({self.documents})"
            raise ValueError(f"wanted needs {wants}, got shape {wanted.shape}")
        pieces = []  # (the part's ids, starts, counts, document numbers) of each sort
        first_doc, most = 0, 0
        for ids, offsets in self.parts:
            n = len(offsets) - 1
            docs = np.flatnonzero(wanted[first_doc : first_doc + n])
            starts, counts = offsets[docs], np.diff(offsets)[docs]
            for low, high in chunk_bounds(counts, limits.SORT_IDS, limits.SORT_DOCS):
                pieces.append((ids, starts[low:high], counts[low:high], first_doc + docs[low:high]))
            first_doc, most = first_doc + n, most + int(counts.sum())

        def sort(piece: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]) -> IdSets:
            ids, starts, counts, _ = piece
            return pack_id_sets(ids[span_positions(starts, counts)], counts)

        out = np.empty(most, dtype=np.uint64)  # distinct ids are at most as many
        lengths, at = np.zeros(first_doc, dtype=np.int64), 0
        for (*_, docs), part in zip(pieces, ordered_map(sort, pieces, n_jobs)):
            out[at : at + len(part.ids)] = part.ids
            lengths[docs] = np.diff(part.offsets)
            at += len(part.ids)
        return IdSets(out[:at], np.r_[0, np.cumsum(lengths)].astype(np.int64))


def shingle_id_sets(docs: Sequence[str], settings: Settings) -> IdSets:
    """Each document's sorted distinct shingle ids (word or char ``settings.k``-shingles).

    >>> sets = shingle_id_sets(["rain rain today", "sun"], Settings(k=1))
    >>> sets.offsets.tolist()  # two distinct words, then one
    [0, 2, 3]
    """
    return pack_id_sets(*unsorted_shingle_ids(docs, settings))


def jaccard_from_texts(
    docs: Sequence[str],
    settings: Settings,
    pairs: np.ndarray,
    n_jobs: int = 1,
    kept: IdSets | None = None,
) -> np.ndarray:
    """Exact Jaccard of each pair ``(a, b)`` of ``docs``, from their texts.

    The pairs are scored in slices: each slice's documents get their id sets
    from :func:`shingle_id_sets`, and :func:`~neardup_lab.engine.verify.jaccard_of_pairs`
    scores the slice. A slice holds about two million characters of text, plus at
    most one long document that its first pairs share with the slice before
    (pairs with a long document are taken in order of it, so it is derived once
    per slice, not once per pair): memory holds a few slices' ids at a time,
    whatever the texts. ``kept`` holds the id sets of the first
    documents already (as :func:`~neardup_lab.engine.pipeline.prepare_many` keeps them
    within a budget); those are not derived again. Slices run on ``n_jobs``
    threads (deriving ids is numpy passes, which let another thread score
    meanwhile). The scores are those of
    ``jaccard_of_pairs(shingle_id_sets(docs, settings), pairs)``.

    >>> docs = ["a b c d", "a b c e", "x"]
    >>> jaccard_from_texts(docs, Settings(k=1), np.array([[0, 1], [1, 2]])).tolist()
    [0.6, 0.0]
    """
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    chars = np.fromiter((len(docs[i]) for i in pairs.ravel().tolist()), np.int64, 2 * len(pairs))
    chars = chars.reshape(-1, 2)
    rows, longer = np.arange(len(pairs)), (chars[:, 1] > chars[:, 0]).astype(np.int64)
    long_doc, short_doc = pairs[rows, longer], pairs[rows, 1 - longer]
    long_chars, short_chars = chars[rows, longer], chars[rows, 1 - longer]
    # Pairs of short documents stay in their order (the pairs of one band group are
    # neighbours and share documents); pairs with a long document follow, by that document.
    is_long = long_chars > limits.SLICE_CHARS // 16  # long documents: their pairs are grouped by them
    with_long = np.flatnonzero(is_long)
    with_long = with_long[np.lexsort((short_doc[with_long], long_doc[with_long]))]
    order = np.r_[np.flatnonzero(~is_long), with_long]
    # A slice counts a long document only where a run of pairs sharing it begins.
    long_doc = long_doc[order]
    run_starts = np.r_[True, long_doc[1:] != long_doc[:-1]] | ~is_long[order]
    cost = short_chars[order] + long_chars[order] * run_starts
    bounds = list(chunk_bounds(cost, limits.SLICE_CHARS, limits.SLICE_PAIRS))
    in_order = pairs[order]
    kept = kept or IdSets.empty()

    def score(bound: tuple[int, int]) -> np.ndarray:
        part = in_order[bound[0] : bound[1]]
        needed = np.unique(part)
        held = int(np.searchsorted(needed, kept.documents))  # needed[:held] are kept
        ids, starts, lengths = kept.spans(needed[:held])
        derived = shingle_id_sets([docs[i] for i in needed[held:].tolist()], settings)
        sets = IdSets(
            np.concatenate([ids[span_positions(starts, lengths)], derived.ids]),
            np.r_[0, np.cumsum(lengths), lengths.sum() + derived.offsets[1:]].astype(np.int64),
        )
        return jaccard_of_pairs(sets, np.searchsorted(needed, part))

    scores = np.empty(len(pairs))
    scores[order] = np.concatenate([np.empty(0), *ordered_map(score, bounds, n_jobs)])
    return scores
