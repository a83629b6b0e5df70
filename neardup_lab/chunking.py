"""Excerpts inside long documents: overlapping word chunks, and containment from Jaccard.

A short excerpt of a long article has a small Jaccard similarity with it,
because the article's other shingles all count in the union. Two ways
around that:

* compare the excerpt with *chunks* of the article, windows of ``size``
  words that start every ``step`` words, so that one chunk is about as long
  as the excerpt (:func:`chunk_words`, :func:`best_chunk_similarity`);
* turn a Jaccard value and the two set sizes into a containment value
  (:func:`containment_estimate`), which also works with a Jaccard
  *estimate* from MinHash signatures.
"""

from __future__ import annotations

import math
from collections.abc import Set
from numbers import Integral, Real

from .support.validate import described, shown
from .text import jaccard, word_shingles, words

__all__ = ["chunk_spans", "chunk_words", "best_chunk_similarity", "containment_estimate"]


def _positive_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be a positive int, got {type(value).__name__} {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    return int(value)


def _count(value: object, name: str, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an int (a number of {what}), got {described(value)}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0 (a number of {what}), got {value}")
    return int(value)


def chunk_spans(n_words: int, size: int = 200, step: int = 100) -> list[tuple[int, int]]:
    """Word positions ``(start, end)`` of the chunks of a text of ``n_words`` words.

    Chunks hold ``size`` words and start every ``step`` words. The last
    chunk is moved back so that it ends at the last word: every chunk has
    ``size`` words and every word is in some chunk. A text of at most
    ``size`` words is one chunk; a text of no words has none.

    >>> chunk_spans(10, size=4, step=3)
    [(0, 4), (3, 7), (6, 10)]
    >>> chunk_spans(11, size=4, step=3)  # the last chunk ends at the last word
    [(0, 4), (3, 7), (6, 10), (7, 11)]
    >>> chunk_spans(3, size=4, step=3), chunk_spans(0, size=4, step=3)
    ([(0, 3)], [])
    """
    size, step = _positive_int(size, "size"), _positive_int(step, "step")
    if step > size:
        raise ValueError(
            f"step = {step} is larger than size = {size}, so the words between chunks "
            "would belong to no chunk; use step <= size"
        )
    n_words = _count(n_words, "n_words", "words")
    if n_words == 0:
        return []
    if n_words <= size:
        return [(0, n_words)]
    spans = [(start, start + size) for start in range(0, n_words - size + 1, step)]
    if spans[-1][1] < n_words:
        spans.append((n_words - size, n_words))
    return spans


def chunk_words(text: str, size: int = 200, step: int = 100) -> list[str]:
    """Cut normalised ``text`` into overlapping chunks of ``size`` words, one every ``step`` words.

    Words are those of :func:`~neardup_lab.text.words` (normalised), joined
    by single spaces; :func:`chunk_spans` says where each chunk starts and
    ends. An empty text gives no chunks.

    >>> chunk_words("One two three four five six seven", size=4, step=2)
    ['one two three four', 'three four five six', 'four five six seven']
    >>> chunk_words("Short text.", size=200, step=100)
    ['short text']
    """
    tokens = words(text)
    return [" ".join(tokens[start:end]) for start, end in chunk_spans(len(tokens), size, step)]


def best_chunk_similarity(
    excerpt_shingles: Set[str], long_text: str, k: int = 5, size: int = 200, step: int = 100
) -> tuple[float, int]:
    """Highest Jaccard similarity between an excerpt and any chunk of a long text.

    ``excerpt_shingles`` are the excerpt's word shingles, made with the same
    ``k`` (``word_shingles(excerpt, k)``). The long text is cut with
    :func:`chunk_words` and each chunk is shingled with ``k``. Returns
    ``(best_jaccard, chunk_index)``; on ties the first chunk wins.

    >>> article = "a b c d e f g h i j"
    >>> best_chunk_similarity(word_shingles("e f g", k=2), article, k=2, size=4, step=2)
    (0.6666666666666666, 2)
    """
    if not isinstance(excerpt_shingles, Set):
        raise TypeError(
            f"excerpt_shingles must be a set of shingles, got {type(excerpt_shingles).__name__} "
            f"{shown(excerpt_shingles)}; build it with word_shingles(excerpt, k)"
        )
    chunks = chunk_words(long_text, size, step)
    if not chunks:
        raise ValueError(f"long_text has no words, so there is no chunk to compare: {shown(long_text)}")
    similarities = [jaccard(excerpt_shingles, word_shingles(chunk, k)) for chunk in chunks]
    best = max(similarities)
    return best, similarities.index(best)  # the first chunk on ties


def containment_estimate(jaccard_value: float, size_a: int, size_b: int) -> float:
    """Containment of ``A`` in ``B``, ``|A ∩ B| / |A|``, from their Jaccard similarity and sizes.

    With ``J = |A ∩ B| / |A ∪ B|`` and ``|A ∪ B| = |A| + |B| - |A ∩ B|``,
    the intersection is ``J (|A| + |B|) / (1 + J)``, so

    ``C = J (|A| + |B|) / (|A| (1 + J))``.

    ``jaccard_value`` may be an estimate (from MinHash signatures); the
    result is then clipped to what is possible, at most ``min(1, |B|/|A|)``.
    An empty ``A`` is contained in anything (1.0), as in
    :func:`~neardup_lab.text.containment`.

    >>> containment_estimate(0.25, size_a=20, size_b=80)  # 20 shared: A is inside B
    1.0
    >>> containment_estimate(0.2, size_a=10, size_b=10)  # 10/3 shared of 10
    0.3333333333333333
    """
    if isinstance(jaccard_value, bool) or not isinstance(jaccard_value, Real):
        raise TypeError(f"jaccard_value must be a number, got {described(jaccard_value)}")
    j = float(jaccard_value)
    if math.isnan(j) or not 0.0 <= j <= 1.0:
        raise ValueError(f"jaccard_value must lie in [0, 1], got {jaccard_value!r}")
    size_a, size_b = _count(size_a, "size_a", "shingles"), _count(size_b, "size_b", "shingles")
    if size_a == 0:
        return 1.0
    estimate = j * (size_a + size_b) / (size_a * (1.0 + j))
    return min(estimate, 1.0, size_b / size_a)
