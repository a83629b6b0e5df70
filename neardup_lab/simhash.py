"""SimHash fingerprints (Charikar 2002) and Hamming-distance search.

Each feature's 64-bit hash votes +weight on bits that are 1 and -weight on
bits that are 0; the fingerprint keeps a 1 wherever the vote is positive.
Documents with similar feature sets get fingerprints a few bits apart.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .hashing import hash_shingles
from .support.validate import non_negative_int, positive_int, shown

__all__ = ["simhash", "hamming"]

Feature = str | tuple[str, float]


def _split_features(features: Iterable[Feature]) -> tuple[list[str], np.ndarray]:
    if isinstance(features, (str, bytes, bytearray)):
        raise TypeError(
            f"simhash needs a collection of features, got {type(features).__name__} "
            f"{shown(features)}; split the text first, e.g. words(text)"
        )
    names: list[str] = []
    weights: list[float] = []
    for feature in features:
        if isinstance(feature, tuple) and len(feature) == 2:
            name, weight = feature
            if isinstance(weight, bool) or not isinstance(weight, (int, float)):
                raise TypeError(f"feature weight must be a number, got {weight!r} for {name!r}")
        else:
            name, weight = feature, 1.0
        if not isinstance(name, str):
            raise TypeError(f"features must be str or (str, weight) pairs, got {shown(feature)}")
        names.append(name)
        weights.append(float(weight))
    return names, np.asarray(weights, dtype=float)


def simhash(features: Iterable[Feature], bits: int = 64) -> int:
    """Return the ``bits``-bit SimHash fingerprint of ``features``.

    ``features`` are strings (weight 1 each, repeats count again) or
    ``(string, weight)`` pairs. ``bits`` is at most 64: the fingerprint keeps
    the low ``bits`` of each feature's stable 64-bit hash.

    >>> a = simhash("the cabinet met on monday to discuss the budget".split())
    >>> b = simhash("the cabinet met on tuesday to discuss the budget".split())
    >>> hamming(a, b) < 16
    True
    """
    bits = positive_int(bits, "bits", maximum=64)
    names, weights = _split_features(features)
    if not names:
        raise ValueError("simhash of no features is undefined; check the document is not empty")
    ids = hash_shingles(names)
    bit_matrix = (ids[:, None] >> np.arange(bits, dtype=np.uint64)) & np.uint64(1)
    votes = weights @ np.where(bit_matrix == 1, 1.0, -1.0)
    return sum(1 << int(i) for i in np.flatnonzero(votes > 0))


def hamming(x: int, y: int) -> int:
    """Number of bit positions where ``x`` and ``y`` differ.

    >>> hamming(0b1011, 0b0010)
    2
    """
    return bin(non_negative_int(x, "x") ^ non_negative_int(y, "y")).count("1")
