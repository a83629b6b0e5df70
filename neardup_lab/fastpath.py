"""Shingle ids straight from text, without building shingle strings.

The teaching path joins k words into a string and hashes the string. Here
each distinct word is hashed once (:func:`~neardup_lab.hashing.stable_hash`),
and the id of a k-word shingle is computed from the k word hashes with numpy
arithmetic: a polynomial in the word hashes modulo 2**64, mixed by
SplitMix64. Each distinct shingle gets one id, so Jaccard similarity over ids
equals Jaccard over :func:`~neardup_lab.text.word_shingles` (barring a 64-bit
collision); the ids themselves differ from ``hash_shingles(word_shingles(...))``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from .hashing import hash_shingles, splitmix64
from .text import _require_k, _require_text, _tokens

__all__ = ["tokenize_batch", "hash_token_lists", "ngram_ids", "shingle_ids", "shingle_id_batch"]

_BATCH = 2000  # documents tokenised together by shingle_id_batch
# Odd multiplier of the polynomial that combines word hashes (a 64-bit golden-ratio constant).
_POLY = np.uint64(0x9E3779B97F4A7C15)


def tokenize_batch(docs: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Normalise and split every document; return word hashes and words per document.

    Returns ``(word_hashes, counts)``: one uint64 stable hash per word, all
    documents concatenated, and the number of words in each document.

    >>> hashes, counts = tokenize_batch(["Heavy rain.", "", "rain, rain"])
    >>> counts.tolist(), bool(hashes[1] == hashes[2] == hashes[3])
    ([2, 0, 2], True)
    """
    return hash_token_lists([_tokens(_require_text(doc, f"document {i}")) for i, doc in enumerate(docs)])


def hash_token_lists(token_lists: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
    """Stable hashes of already-normalised words, hashing each distinct word once.

    Returns ``(word_hashes, counts)`` like :func:`tokenize_batch`.

    >>> hashes, counts = hash_token_lists([["rain", "again"], ["rain"]])
    >>> counts.tolist(), bool(hashes[0] == hashes[2])
    ([2, 1], True)
    """
    flat = list(itertools.chain.from_iterable(token_lists))
    first_seen: dict[str, int] = {}
    # setdefault keeps the first counter value seen for each word: codes are positions
    # of first occurrences, so equal words share a code.
    codes = np.fromiter(map(first_seen.setdefault, flat, itertools.count()), dtype=np.int64, count=len(flat))
    by_code = np.zeros(len(flat), dtype=np.uint64)
    positions = np.fromiter(first_seen.values(), dtype=np.int64, count=len(first_seen))
    by_code[positions] = hash_shingles(first_seen)
    counts = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
    return by_code[codes], counts


def ngram_ids(word_hashes: np.ndarray, counts: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Ids of every k-word window of every document (repeats included).

    A document with fewer than ``k`` words (but at least one) gets one id for
    all its words, like :func:`~neardup_lab.text.word_shingles`. Returns
    ``(ids, id_counts)``.

    >>> hashes, counts = tokenize_batch(["a b c a b c", "a b"])
    >>> ids, id_counts = ngram_ids(hashes, counts, 3)
    >>> id_counts.tolist(), len(set(ids[:4].tolist()))
    ([4, 1], 3)
    """
    k = _require_k(k)
    counts = np.asarray(counts, dtype=np.int64)
    hashes = np.asarray(word_hashes, dtype=np.uint64)
    n_words = len(hashes)
    ends = np.cumsum(counts)
    # Full k-word windows: the polynomial over k shifted slices of the concatenation.
    full = np.zeros(max(n_words - k + 1, 0), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(k):
            full *= _POLY
            full += hashes[j : j + len(full)]
        full += np.uint64(k)  # shingles of different lengths never share a polynomial
    remaining = np.repeat(ends, counts)[: len(full)] - np.arange(len(full))
    ids = full[remaining >= k]  # keep windows that stay inside one document
    id_counts = np.maximum(counts - k + 1, 0)
    short = np.flatnonzero((counts > 0) & (counts < k))
    if len(short):  # documents shorter than k: one shingle of all their words
        starts = ends - counts
        extra = np.zeros(len(short), dtype=np.uint64)
        with np.errstate(over="ignore"):
            for n, doc in enumerate(short):
                for h in hashes[starts[doc] : ends[doc]]:
                    extra[n] = extra[n] * _POLY + h
                extra[n] += np.uint64(counts[doc])
        id_counts[short] = 1
        insert_at = np.cumsum(np.maximum(counts - k + 1, 0))[short] - np.maximum(counts - k + 1, 0)[short]
        ids = np.insert(ids, insert_at, extra)
    return splitmix64(ids), id_counts


def shingle_id_batch(docs: Sequence[str], k: int = 5) -> list[np.ndarray]:
    """Sorted distinct word k-shingle ids of each document.

    >>> a, b = shingle_id_batch(["the river rose fast today", "the river rose slowly today"], k=2)
    >>> len(np.intersect1d(a, b)), len(np.union1d(a, b))
    (2, 6)
    """
    if isinstance(docs, (str, bytes)):
        raise TypeError("shingle_id_batch needs a sequence of documents; for one use shingle_ids")
    out: list[np.ndarray] = []
    for start in range(0, len(docs), _BATCH):  # bounded memory: one word list per batch
        hashes, counts = tokenize_batch(docs[start : start + _BATCH])
        ids, id_counts = ngram_ids(hashes, counts, k)
        out.extend(np.unique(part) for part in np.split(ids, np.cumsum(id_counts)[:-1]))
    return out


def shingle_ids(text: str, k: int = 5) -> np.ndarray:
    """Sorted distinct word k-shingle ids of one text (fast counterpart of ``word_shingles``).

    >>> from neardup_lab import word_shingles
    >>> text = "Rain, rain, go away; come again another day"
    >>> len(shingle_ids(text, 3)) == len(word_shingles(text, 3))
    True
    """
    return shingle_id_batch([_require_text(text)], k)[0]
