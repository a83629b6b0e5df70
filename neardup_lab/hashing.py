"""Stable 64-bit hashing of shingles.

Python's built-in ``hash()`` of a string is salted per process (see
PYTHONHASHSEED), so anything stored or compared across processes must use a
hash that is stable by construction. We use XXH3-64 (seed 0) of the UTF-8
bytes: a published, fast, non-cryptographic hash that any language can
reproduce.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import xxhash

__all__ = ["stable_hash", "hash_shingles", "splitmix64"]

_MASK64 = (1 << 64) - 1


def stable_hash(token: str) -> int:
    """Return a 64-bit hash of ``token`` that is the same in every process.

    >>> stable_hash("heavy rain")
    9622211232230591711
    >>> 0 <= stable_hash("") < 2**64
    True
    """
    if not isinstance(token, str):
        raise TypeError(f"stable_hash needs a str token, got {type(token).__name__} {token!r:.60}")
    return xxhash.xxh3_64_intdigest(token.encode("utf-8", "surrogatepass"))


def hash_shingles(shingles: Iterable[str]) -> np.ndarray:
    """Hash each shingle with :func:`stable_hash`; return a uint64 array.

    The order follows the iteration order of ``shingles``.

    >>> hash_shingles(["heavy rain"]).dtype
    dtype('uint64')
    """
    if isinstance(shingles, (str, bytes, bytearray)):
        raise TypeError(
            f"expected a collection of shingles, got {type(shingles).__name__} "
            f"{shingles!r:.40}; build one with word_shingles(text)"
        )
    xxh3 = xxhash.xxh3_64_intdigest
    try:
        return np.fromiter(
            (xxh3(token.encode("utf-8", "surrogatepass")) for token in shingles), dtype=np.uint64
        )
    except AttributeError:
        bad = next(t for t in shingles if not isinstance(t, str))
        raise TypeError(f"every shingle must be str, found {type(bad).__name__} {bad!r:.60}") from None


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
