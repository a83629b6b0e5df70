"""Shingle ids from texts, and exact Jaccard from ids derived again (past ``limits.IDS_BUDGET``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..hashing import hash_shingles
from ..settings import Settings
from ..support import limits
from ..support.spans import Ragged, chunk_bounds, lengths_of
from ..text import char_shingles
from .tokenize import ngram_ids, tokenize_batch
from .verify import jaccard_of_pairs, pack_id_sets
from .workers import ordered_map

__all__ = ["unsorted_shingle_ids", "sorted_sets", "shingle_id_sets", "jaccard_from_texts"]


def unsorted_shingle_ids(docs: Sequence[str], settings: Settings, words: Ragged | None = None) -> Ragged:
    """Each document's shingle ids in text order, repeats included. ``words``: ``tokenize_batch(docs)``.

    >>> ids = unsorted_shingle_ids(["rain rain today", "sun"], Settings(k=1))
    >>> ids.counts.tolist(), bool(ids.values[0] == ids.values[1])
    ([3, 1], True)
    """
    if settings.shingle == "word":
        return ngram_ids(tokenize_batch(docs) if words is None else words, settings.k)
    per_doc = [hash_shingles(char_shingles(doc, settings.k)) for doc in docs]
    return Ragged.from_counts(np.concatenate([np.empty(0, dtype=np.uint64), *per_doc]), lengths_of(per_doc))


def sorted_sets(parts: Sequence[Ragged], wanted: np.ndarray, n_jobs: int = 1) -> Ragged:
    """The sorted distinct ids of the documents ``wanted`` (a bool each, else ValueError) from their ids
    in text order in ``parts``; the others get none. A few thousand at a time, on ``n_jobs`` threads.

    >>> raw = Ragged.from_counts(np.array([7, 3, 7, 5, 9, 9], dtype=np.uint64), np.array([3, 1, 2]))
    >>> sets = sorted_sets([raw], np.array([True, False, True]))
    >>> sets.values.tolist(), sets.offsets.tolist()
    ([3, 7, 9], [0, 2, 2, 3])
    """
    wanted = np.asarray(wanted, dtype=bool)
    documents = sum(part.lists for part in parts)
    if wanted.shape != (documents,):
        raise ValueError(f"wanted needs one bool per document ({documents}), got shape {wanted.shape}")
    pieces = []  # (the part, its documents to sort, their numbers)
    first_doc, most = 0, 0
    for part in parts:
        docs = np.flatnonzero(wanted[first_doc : first_doc + part.lists])
        counts = part.counts[docs]
        for low, high in chunk_bounds(counts, limits.SORT_IDS, limits.SORT_DOCS):
            pieces.append((part, docs[low:high], first_doc + docs[low:high]))
        first_doc, most = first_doc + part.lists, most + int(counts.sum())

    def sort(piece: tuple[Ragged, np.ndarray, np.ndarray]) -> Ragged:
        return pack_id_sets(piece[0].take(piece[1]))

    out = np.empty(most, dtype=np.uint64)  # distinct ids are at most as many
    lengths, at = np.zeros(first_doc, dtype=np.int64), 0
    for (*_, numbers), sets in zip(pieces, ordered_map(sort, pieces, n_jobs)):
        out[at : at + len(sets.values)] = sets.values
        lengths[numbers] = sets.counts
        at += len(sets.values)
    return Ragged.from_counts(out[:at], lengths)


def shingle_id_sets(docs: Sequence[str], settings: Settings) -> Ragged:
    """Each document's sorted distinct shingle ids (word or char ``settings.k``-shingles).

    >>> sets = shingle_id_sets(["rain rain today", "sun"], Settings(k=1))
    >>> sets.offsets.tolist()  # two distinct words, then one
    [0, 2, 3]
    """
    return pack_id_sets(unsorted_shingle_ids(docs, settings))


def jaccard_from_texts(
    docs: Sequence[str],
    settings: Settings,
    pairs: np.ndarray,
    n_jobs: int = 1,
    kept: Ragged | None = None,
) -> np.ndarray:
    """Exact Jaccard of each pair of ``docs``, ids derived by slices (``kept``: the first ones' sets).

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
    # Short documents' pairs keep their order (a group's pairs share documents); long ones' follow.
    is_long = long_chars > limits.SLICE_CHARS // 16
    with_long = np.flatnonzero(is_long)
    with_long = with_long[np.lexsort((short_doc[with_long], long_doc[with_long]))]
    order = np.r_[np.flatnonzero(~is_long), with_long]
    # A slice counts a long document only where a run of pairs sharing it begins.
    long_doc = long_doc[order]
    run_starts = np.r_[True, long_doc[1:] != long_doc[:-1]] | ~is_long[order]
    cost = short_chars[order] + long_chars[order] * run_starts
    bounds = list(chunk_bounds(cost, limits.SLICE_CHARS, limits.SLICE_PAIRS))
    in_order = pairs[order]
    kept = kept or Ragged.empty()

    def score(bound: tuple[int, int]) -> np.ndarray:
        part = in_order[bound[0] : bound[1]]
        needed = np.unique(part)
        held = int(np.searchsorted(needed, kept.lists))  # needed[:held] are kept
        derived = shingle_id_sets([docs[i] for i in needed[held:].tolist()], settings)
        sets = Ragged.join([kept.take(needed[:held]), derived])
        return jaccard_of_pairs(sets, np.searchsorted(needed, part))

    scores = np.empty(len(pairs))
    scores[order] = np.concatenate([np.empty(0), *ordered_map(score, bounds, n_jobs)])
    return scores
