"""From raw text to sets: normalisation, shingles, Jaccard and containment.

Shingle sets are plain ``set[str]`` so that a reader can print them and see
what is being compared.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Set
from typing import TypeVar

from .support.validate import positive_int, require_set, require_text

__all__ = [
    "normalize",
    "separates_words",
    "words",
    "windows",
    "word_shingles",
    "char_shingles",
    "jaccard",
    "containment",
]


#: What :func:`windows` cuts: words, a text, or hashes; each run is of the same kind.
Seq = TypeVar("Seq", list[str], str, list[int])

#: Longest shingle accepted, in words or characters: building ids costs a pass over the text per unit.
MAX_SHINGLE_SIZE = 100


def require_shingle_size(k: object) -> int:
    """``k`` as a shingle size in ``[1, MAX_SHINGLE_SIZE]``, or a TypeError/ValueError naming it.

    >>> require_shingle_size(5)
    5
    """
    return positive_int(k, "k", MAX_SHINGLE_SIZE)


def separates_words(char: str) -> bool:
    """True when ``char`` separates words: punctuation (P*), a symbol (S*) or whitespace.

    >>> [separates_words(c) for c in "a,b c—d"]
    [False, True, False, True, False, True, False]
    """
    return unicodedata.category(char)[0] in "PS" or char.isspace()


# NFKC leaves ASCII text as it is, and casefold equals lower there: such a text only needs
# its separators turned into spaces, one translate call (about 20 times faster than the
# loop over characters below).
_ASCII_SEPARATORS = {code: " " for code in range(128) if separates_words(chr(code))}


def normalize(text: str) -> str:
    """Return ``text`` in a canonical form for comparison.

    NFKC-normalise, casefold, turn every Unicode punctuation or symbol
    character into a space, and collapse runs of whitespace to one space.

    >>> normalize("  Heavy RAIN — in “Mangaluru”!  ")
    'heavy rain in mangaluru'
    """
    return " ".join(_tokens(text))


def _tokens(text: object) -> list[str]:
    text = require_text(text)
    if text.isascii():
        return text.lower().translate(_ASCII_SEPARATORS).split()
    folded = unicodedata.normalize("NFKC", text).casefold()
    return "".join(" " if separates_words(c) else c for c in folded).split()


def words(text: str) -> list[str]:
    """Split normalised ``text`` into words.

    >>> words("It's raining, again.")
    ['it', 's', 'raining', 'again']
    """
    return _tokens(text)


def windows(items: Seq, k: int) -> list[Seq]:
    """Every run of ``k`` consecutive items: the shingles of a sequence.

    Fewer than ``k`` items make one run of them all, so a short text still has a shingle;
    no items make none.

    >>> windows("abcd", 3), windows("ab", 3), windows("", 3)
    (['abc', 'bcd'], ['ab'], [])
    """
    if len(items) < k:
        return [items] if len(items) else []
    return [items[i : i + k] for i in range(len(items) - k + 1)]


def word_shingles(text: str, k: int = 5) -> set[str]:
    """Return the set of k-word shingles of normalised ``text``.

    A text with fewer than ``k`` words gives one shingle made of all its
    words; an empty text gives an empty set.

    >>> sorted(word_shingles("Rain, rain, go away", k=3))
    ['rain go away', 'rain rain go']
    >>> word_shingles("Short text", k=5)
    {'short text'}
    """
    return {" ".join(run) for run in windows(_tokens(text), require_shingle_size(k))}


def char_shingles(text: str, k: int = 5) -> set[str]:
    """Return the set of k-character shingles of normalised ``text``.

    Spaces count as characters. Use this for short texts and for languages
    written without spaces between words.

    >>> sorted(char_shingles("東京の天気", k=2))
    ['の天', '京の', '天気', '東京']
    """
    return set(windows(normalize(text), require_shingle_size(k)))


def jaccard(a: Set, b: Set) -> float:
    """Return the Jaccard similarity ``|a ∩ b| / |a ∪ b|`` of two sets.

    Two empty sets are identical, so their similarity is 1.0.

    >>> jaccard({"a", "b", "c"}, {"b", "c", "d"})
    0.5
    >>> jaccard(set(), set())
    1.0
    """
    a, b = require_set(a, "a"), require_set(b, "b")
    if not a and not b:
        return 1.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


def containment(a: Set, b: Set) -> float:
    """Return how much of ``a`` lies inside ``b``: ``|a ∩ b| / |a|``.

    Not symmetric: an excerpt is fully contained in the article it came
    from, but not the other way round. An empty ``a`` is contained in
    anything (1.0).

    >>> containment({"a", "b"}, {"a", "b", "c", "d"})
    1.0
    >>> containment({"a", "b", "c", "d"}, {"a", "b"})
    0.5
    """
    a, b = require_set(a, "a"), require_set(b, "b")
    if not a:
        return 1.0
    return len(a & b) / len(a)
