"""From raw text to sets: normalisation, shingles, Jaccard and containment.

Shingle sets are plain ``set[str]`` so that a reader can print them and see
what is being compared.
"""

from __future__ import annotations

import sys
import threading
import unicodedata
from collections.abc import Set

import numpy as np

from .validate import positive_int, require_set, require_text

__all__ = ["normalize", "words", "word_shingles", "char_shingles", "jaccard", "containment"]


#: Longest shingle accepted, in words or characters: building ids costs a pass over the text per unit.
MAX_SHINGLE_SIZE = 100


def require_shingle_size(k: object) -> int:
    """``k`` as a shingle size in ``[1, MAX_SHINGLE_SIZE]``, or a TypeError/ValueError naming it.

    >>> require_shingle_size(5)
    5
    """
    return positive_int(k, "k", MAX_SHINGLE_SIZE)


class _SeparatorMarks:
    """For every code point, True when it separates words: punctuation (P*), a symbol (S*) or
    whitespace (as ``str.split`` sees it). Filled 256 code points at a time, when a text first
    needs them (the whole table takes about 0.3 s, and a corpus meets few of its 4,352 blocks);
    threads that need a block at once wait for one filling.
    """

    BLOCK_BITS = 8

    def __init__(self) -> None:
        self._marks = np.zeros(sys.maxunicode + 1, dtype=bool)
        self._filled = np.zeros((sys.maxunicode >> self.BLOCK_BITS) + 1, dtype=bool)
        self._lock = threading.Lock()
        self.blocks_filled = 0

    def __call__(self, codes: np.ndarray) -> np.ndarray:
        blocks = codes >> self.BLOCK_BITS
        missing = ~self._filled[blocks]
        if missing.any():
            self._fill(np.unique(blocks[missing]).tolist())
        return self._marks[codes]

    def _fill(self, blocks: list[int]) -> None:
        size = 1 << self.BLOCK_BITS
        with self._lock:
            for block in blocks:
                if self._filled[block]:  # another thread filled it while this one waited
                    continue
                first = block * size
                chars = map(chr, range(first, first + size))
                marks = [unicodedata.category(c)[0] in "PS" or c.isspace() for c in chars]
                self._marks[first : first + size] = marks
                self._filled[block] = True  # after the marks: readers check this flag without the lock
                self.blocks_filled += 1


_MARKS = _SeparatorMarks()


def separator_marks(codes: np.ndarray) -> np.ndarray:
    """For each code point in ``codes``, True when it separates words (punctuation, a symbol or
    whitespace); the test :func:`normalize` applies to every character.

    >>> separator_marks(np.array([ord(c) for c in "a,b c—d"])).tolist()
    [False, True, False, True, False, True, False]
    """
    return _MARKS(codes)


# ASCII text takes a byte-level shortcut with the same result: NFKC leaves it alone,
# casefold equals lower, and the punctuation/symbol table restricted to ASCII is this one.
_ASCII_SEPARATORS = bytes(
    ord(" ") if unicodedata.category(chr(b))[0] in "PS" else b for b in range(128)
) + bytes(range(128, 256))


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
        return text.lower().encode("ascii").translate(_ASCII_SEPARATORS).decode("ascii").split()
    folded = unicodedata.normalize("NFKC", text).casefold()
    # Punctuation and symbols to spaces, one numpy pass over the code points.
    codes = np.frombuffer(folded.encode("utf-32-le", "surrogatepass"), dtype="<u4").copy()
    codes[separator_marks(codes)] = ord(" ")
    return codes.tobytes().decode("utf-32-le", "surrogatepass").split()


def words(text: str) -> list[str]:
    """Split normalised ``text`` into words.

    >>> words("It's raining, again.")
    ['it', 's', 'raining', 'again']
    """
    return _tokens(text)


def word_shingles(text: str, k: int = 5) -> set[str]:
    """Return the set of k-word shingles of normalised ``text``.

    A text with fewer than ``k`` words gives one shingle made of all its
    words; an empty text gives an empty set.

    >>> sorted(word_shingles("Rain, rain, go away", k=3))
    ['rain go away', 'rain rain go']
    >>> word_shingles("Short text", k=5)
    {'short text'}
    """
    k = require_shingle_size(k)
    tokens = _tokens(text)
    if len(tokens) < k:
        return {" ".join(tokens)} if tokens else set()
    return {" ".join(tokens[i : i + k]) for i in range(len(tokens) - k + 1)}


def char_shingles(text: str, k: int = 5) -> set[str]:
    """Return the set of k-character shingles of normalised ``text``.

    Spaces count as characters. Use this for short texts and for languages
    written without spaces between words.

    >>> sorted(char_shingles("東京の天気", k=2))
    ['の天', '京の', '天気', '東京']
    """
    k = require_shingle_size(k)
    norm = normalize(text)
    if len(norm) < k:
        return {norm} if norm else set()
    return {norm[i : i + k] for i in range(len(norm) - k + 1)}


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
