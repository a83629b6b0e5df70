"""Stable 64-bit hashing of shingles.

Python's ``hash()`` of a string is salted per process (PYTHONHASHSEED), so anything stored or
compared across processes needs a hash stable by construction: XXH3-64 (seed 0) of the UTF-8
bytes, published, fast and reproducible in any language. The package reaches XXH3 only through
``xxh3_64(data) -> int`` and ``xxh3_128_digest(data) -> bytes`` (16 bytes, high half first): the
compiled ``xxhash`` when it imports, else (in the browser) ``neardup_lab.support.xxh3``, plain
Python tested bit for bit against it.

>>> xxh3_64(b"heavy rain"), xxh3_128_digest(b"").hex()
(9622211232230591711, '99aa06d3014798d86001c324468d497f')
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from .support.validate import described, shown
from .text import require_shingle_size, windows, words

xxh3_64: Callable[[bytes | memoryview], int]
xxh3_128_digest: Callable[[bytes | memoryview], bytes]
try:
    from xxhash import xxh3_64_intdigest as xxh3_64
    from xxhash import xxh3_128_digest as xxh3_128_digest
except ImportError:  # the same bits in plain Python, 10-30x slower on a short input
    from .support.xxh3 import xxh3_64_intdigest as xxh3_64
    from .support.xxh3 import xxh3_128_digest as xxh3_128_digest


# Not in __all__: the API reference would render the compiled functions with their one-word
# docstrings; the module docstring describes them.
__all__ = ["stable_hash", "hash_shingles", "splitmix64", "absorb", "bytes_hash", "word_hash"]
__all__ += ["word_shingle_ids"]

_MASK64 = (1 << 64) - 1


def stable_hash(token: str) -> int:
    """Return a 64-bit hash of ``token`` that is the same in every process.

    >>> stable_hash("heavy rain")
    9622211232230591711
    >>> 0 <= stable_hash("") < 2**64
    True
    """
    if not isinstance(token, str):
        raise TypeError(f"stable_hash needs a str token, got {described(token)}")
    return xxh3_64(token.encode("utf-8", "surrogatepass"))


def hash_shingles(shingles: Iterable[str]) -> np.ndarray:
    """Hash each shingle with :func:`stable_hash`; return a uint64 array.

    The order follows the iteration order of ``shingles``.

    >>> hash_shingles(["heavy rain"]).dtype
    dtype('uint64')
    """
    if isinstance(shingles, (str, bytes, bytearray)):
        raise TypeError(
            f"expected a collection of shingles, got {type(shingles).__name__} "
            f"{shown(shingles)}; build one with word_shingles(text)"
        )
    try:
        return np.fromiter(
            (xxh3_64(token.encode("utf-8", "surrogatepass")) for token in shingles), dtype=np.uint64
        )
    except AttributeError:
        bad = next(t for t in shingles if not isinstance(t, str))
        raise TypeError(f"every shingle must be str, found {described(bad)}") from None


def splitmix64(values: np.ndarray) -> np.ndarray:
    """Mix uint64 ``values`` with the SplitMix64 finaliser (a bijection).

    Used to derive hash-function parameters from a seed without depending on
    any random-number generator's stream, so the same seed gives the same
    bits with any numpy version.

    >>> int(splitmix64(np.array([0], dtype=np.uint64))[0])
    16294208416658607535
    """
    z = np.asarray(values, dtype=np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


# --- Word-shingle ids straight from words ------------------------------------------------------
#
# Hashing the text of every shingle (``hash_shingles(word_shingles(text, k))``) hashes each word
# k times. The ids below hash each word once and combine k word hashes into a shingle's id, so
# the engine can compute them for a whole batch of texts in a few numpy passes
# (:func:`~neardup_lab.engine.tokenize.shingle_id_batch`, tested equal to this definition).
# They are other ids than hash_shingles', but again one id per distinct shingle.

#: Multiplier of the polynomial that combines the k word hashes of a shingle.
SHINGLE_POLY = 0x9E3779B97F4A7C15
#: Multiplier of a word's length, the starting state of its hash.
LENGTH_MIX = 0xD6E8FEB86659FD93


def _splitmix64_int(z: int) -> int:
    return int(splitmix64(np.array([z & _MASK64], dtype=np.uint64))[0])


def absorb(state: int, lane: int) -> int:
    """One step of :func:`word_hash`: the state after taking in one 8-byte ``lane``.

    SplitMix64 of ``state ^ lane``, xored with the lane again. A lane that leads from a given
    state to a chosen one would have to invert ``x -> splitmix64(x) ^ x``, which has no known
    shortcut: a word with the hash of a given word takes about 2**64 tries to find, and any two
    words with one hash about 2**32 (a sum of mixed lanes could be solved for a lane in a second).

    >>> absorb(0, 1) != absorb(1, 0)
    True
    """
    return _splitmix64_int(state ^ lane) ^ lane


#: A longer word is hashed in blocks of this many bytes, each hashed as a word of its own.
WORD_BLOCK = 512


def bytes_hash(data: bytes) -> int:
    """:func:`word_hash` of a word's UTF-8 ``data``: a state that starts at its length times
    ``LENGTH_MIX`` takes in its 8-byte little-endian lanes in order (the last padded with zeros),
    or, for more than ``WORD_BLOCK`` bytes, the hashes of its blocks of ``WORD_BLOCK`` bytes.

    >>> bytes_hash("rain".encode()) == word_hash("rain"), bytes_hash(bytes(600)) != bytes_hash(bytes(601))
    (True, True)
    """
    if len(data) <= WORD_BLOCK:
        parts = [int.from_bytes(data[at : at + 8], "little") for at in range(0, len(data), 8)]
    else:  # no real word: blocks keep the engine's passes few (and a block is as hard to solve)
        parts = [bytes_hash(data[at : at + WORD_BLOCK]) for at in range(0, len(data), WORD_BLOCK)]
    state = (len(data) * LENGTH_MIX) & _MASK64
    for part in parts:
        state = absorb(state, part)
    return state


def word_hash(word: str) -> int:
    """A 64-bit hash of one (normalised) word, the same in every process (:func:`bytes_hash`).

    >>> word_hash("rain") == word_hash("rain") != word_hash("rains")
    True
    """
    return bytes_hash(word.encode("utf-8", "surrogatepass"))


def word_shingle_ids(text: str, k: int = 5) -> np.ndarray:
    """The sorted distinct ids of the k-word shingles of ``text``: uint64.

    A shingle's id is SplitMix64 of the polynomial ``h1 * P^(k-1) + ... + hk`` of its words'
    :func:`word_hash` values (``P = SHINGLE_POLY``), plus ``k``. A text of fewer than ``k`` words
    has one shingle of all its words, as in :func:`~neardup_lab.text.word_shingles`.

    >>> ids = word_shingle_ids("the rain, the rain", k=2)
    >>> len(ids), len(word_shingle_ids("", k=2))  # "the rain" and "rain the"; no words, no shingle
    (2, 0)
    """
    ids = set()
    for window in windows([word_hash(w) for w in words(text)], require_shingle_size(k)):
        poly = 0
        for h in window:
            poly = (poly * SHINGLE_POLY + h) & _MASK64
        ids.add(_splitmix64_int(poly + len(window)))
    return np.array(sorted(ids), dtype=np.uint64)
