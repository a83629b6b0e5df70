"""Locality-sensitive hashing by banding MinHash signatures.

Cut each signature into ``bands`` bands of ``rows`` values. Two documents
become a *candidate pair* when they agree on every value of at least one
band. A pair with Jaccard similarity ``s`` becomes a candidate with
probability ``1 - (1 - s**rows)**bands``: the S-curve.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable
from functools import lru_cache
from itertools import combinations
from typing import NamedTuple

import numpy as np

from .hashing import splitmix64
from .minhash import MAX_NUM_PERM
from .support.validate import number_between, positive_int, shown

__all__ = [
    "s_curve",
    "approx_threshold",
    "steepest_similarity",
    "ErrorAreas",
    "error_areas",
    "optimal_params",
    "LSHIndex",
    "candidate_pairs",
    "check_banding",
    "check_signature_matrix",
    "band_hashes",
]


def check_banding(bands: object, rows: object, num_perm: int | None = None) -> tuple[int, int]:
    """``(bands, rows)`` as positive ints whose product fits in ``num_perm``, or an error.

    >>> check_banding(16, 8, 128)
    (16, 8)
    """
    bands, rows = positive_int(bands, "bands"), positive_int(rows, "rows")
    if num_perm is not None and bands * rows > num_perm:
        raise ValueError(
            f"bands * rows = {shown(bands)} * {shown(rows)} = {shown(bands * rows)} exceeds num_perm = "
            f"{num_perm}; use fewer bands or rows, or longer signatures"
        )
    return bands, rows


def s_curve(s: float | np.ndarray, bands: int, rows: int) -> float | np.ndarray:
    """Probability that a pair of similarity ``s`` becomes a candidate.

    ``1 - (1 - s**rows)**bands``, element-wise over an array ``s``.

    >>> round(s_curve(0.5, bands=20, rows=5), 3)
    0.47
    >>> s_curve(np.array([0.0, 1.0]), 20, 5)
    array([0., 1.])
    """
    bands, rows = check_banding(bands, rows)
    arr = np.asarray(s, dtype=float)
    if np.any((arr < 0) | (arr > 1)) or np.any(np.isnan(arr)):
        raise ValueError(f"similarities must lie in [0, 1], got {shown(s)}")
    p = 1.0 - (1.0 - arr**rows) ** bands
    return float(p) if np.ndim(s) == 0 else p


def approx_threshold(bands: int, rows: int) -> float:
    """The bend of the S-curve, ``(1/bands)**(1/rows)``: the similarity at which one band is
    expected to match. The curve is steepest a little below it (:func:`steepest_similarity`).

    >>> round(approx_threshold(20, 5), 3)
    0.549
    """
    bands, rows = check_banding(bands, rows)
    return (1.0 / bands) ** (1.0 / rows)


def steepest_similarity(bands: int, rows: int) -> float:
    """Where the S-curve climbs fastest (its inflection point), ``((rows-1)/(rows*bands-1))**(1/rows)``.

    >>> round(steepest_similarity(20, 5), 3), round(steepest_similarity(18, 7), 3)
    (0.526, 0.648)
    """
    bands, rows = check_banding(bands, rows)
    return ((rows - 1) / (rows * bands - 1)) ** (1.0 / rows)


class ErrorAreas(NamedTuple):
    """The two errors of a banding, as areas :func:`optimal_params` weighs."""

    false_positive: float  #: area under the S-curve below the threshold
    false_negative: float  #: area above the S-curve, up to 1, above the threshold


def _areas(threshold: float, bands: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # With u = s**r, the integral of (1 - s**r)**b from 0 to t is an incomplete beta function:
    # (1/r) * B(t**r; 1/r, b + 1). One closed form, exact to rounding, for every banding at once.
    from scipy.special import beta, betainc, betaincc  # here: scipy.special takes 0.07 s to load

    a, b = 1.0 / rows, bands + 1.0
    whole = a * beta(a, b)  # the integral over [0, 1]
    x = threshold**rows
    # Where t**r underflows, (1 - s**r)**b is 1 to rounding all over [0, t], so the integral
    # there is t itself; betainc, seeing x = 0, would say 0.
    vanished = x < np.finfo(float).tiny
    missed_below = np.where(vanished, threshold, whole * betainc(a, b, x))
    return threshold - missed_below, np.where(vanished, whole - threshold, whole * betaincc(a, b, x))


def error_areas(threshold: float, bands: int, rows: int) -> ErrorAreas:
    """How much of the S-curve falls on the wrong side of ``threshold``.

    Integrals of the S-curve in closed form, through the regularised incomplete beta
    function (they agree with ``scipy.integrate.quad`` to about 1e-15).

    >>> areas = error_areas(0.8, 9, 13)
    >>> round(areas.false_positive, 4), round(areas.false_negative, 4)
    (0.0253, 0.0333)
    """
    bands, rows = check_banding(bands, rows)
    below, above = _areas(float(threshold), np.array(float(bands)), np.array(float(rows)))
    return ErrorAreas(float(below), float(above))


def _every_banding(num_perm: int) -> tuple[np.ndarray, np.ndarray]:
    """All ``(bands, rows)`` with ``bands * rows <= num_perm``, bands first, then rows."""
    bands = np.arange(1, num_perm + 1)
    per_band = (num_perm // bands).astype(np.intp, copy=False)
    first_row = np.cumsum(per_band) - per_band
    every = np.repeat(bands, per_band)
    return every, np.arange(len(every)) - np.repeat(first_row, per_band) + 1


@lru_cache(maxsize=512)
def _optimal(threshold: float, num_perm: int, fp_weight: float, fn_weight: float) -> tuple[int, int]:
    bands, rows = _every_banding(num_perm)
    false_positive, false_negative = _areas(threshold, bands.astype(float), rows.astype(float))
    best = int(np.argmin(fp_weight * false_positive + fn_weight * false_negative))  # first wins ties
    return int(bands[best]), int(rows[best])


def optimal_params(
    threshold: float,
    num_perm: int,
    false_positive_weight: float = 0.5,
    false_negative_weight: float = 0.5,
) -> tuple[int, int]:
    """Choose ``(bands, rows)`` with ``bands * rows <= num_perm`` for a threshold.

    Minimises the weighted sum of the two :func:`error_areas`, searching bands first, then
    rows, as datasketch does, so the answer is the one datasketch's ``MinHashLSH`` picks.
    (datasketch integrates numerically, to about 1e-8. Only when a weight is 0 can every
    error weighed be smaller than that; then the closed form used here finds the true best
    for misses alone, and both choices are rounding noise for false positives alone.)

    >>> optimal_params(0.8, 128)
    (9, 13)
    """
    threshold = number_between(threshold, "threshold", 0, 1, high_in=False)
    num_perm = positive_int(num_perm, "num_perm", MAX_NUM_PERM)
    weights = (false_positive_weight, false_negative_weight)
    if any(not isinstance(w, (int, float)) or w < 0 for w in weights) or sum(weights) == 0:
        raise ValueError(f"weights must be non-negative numbers, not both zero; got {weights}")
    return _optimal(float(threshold), num_perm, float(weights[0]), float(weights[1]))


class LSHIndex:
    """Band tables for query and insert of signatures, one table per band.

    Tables are keyed by :func:`band_hashes`: two different bands share a key
    with chance 2**-64, and every candidate is verified anyway.

    >>> from neardup_lab import MinHasher
    >>> h = MinHasher(num_perm=16)
    >>> index = LSHIndex(bands=4, rows=4)
    >>> index.insert("rain-1", h.signature({"heavy rain", "in the city"}))
    >>> index.query(h.signature({"heavy rain", "in the city"}))
    {'rain-1'}
    """

    def __init__(self, bands: int, rows: int) -> None:
        self.bands, self.rows = check_banding(bands, rows)
        self._tables: list[dict[int, list[Hashable]]] = [defaultdict(list) for _ in range(self.bands)]
        self._keys: set[Hashable] = set()
        self._shape: tuple[int, ...] | None = None
        self._dtype: np.dtype | None = None

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def _band_keys(self, signature: np.ndarray) -> list[int]:
        sig = np.asarray(signature)
        if sig.ndim != 1:
            raise ValueError(f"expected one signature of shape (num_perm,), got shape {sig.shape}")
        check_banding(self.bands, self.rows, sig.shape[0])
        if self._shape is not None and (sig.shape != self._shape or sig.dtype != self._dtype):
            raise ValueError(
                f"signature of shape {sig.shape} and dtype {sig.dtype} does not match "
                f"the index's {self._shape} {self._dtype}; sign with the same MinHasher"
            )
        return band_hashes(sig[None, :], self.bands, self.rows)[0].tolist()

    def insert(self, key: Hashable, signature: np.ndarray) -> None:
        """Add ``signature`` under ``key``; a key may be inserted once.

        >>> index = LSHIndex(2, 2)
        >>> index.insert(0, np.arange(4, dtype=np.uint32))
        >>> len(index)
        1
        """
        if key in self._keys:
            raise ValueError(f"key {key!r} is already in the index; keys must be unique")
        band_keys = self._band_keys(signature)
        self._shape, self._dtype = np.shape(signature), np.asarray(signature).dtype
        for table, band_key in zip(self._tables, band_keys):
            table[band_key].append(key)
        self._keys.add(key)

    def query(self, signature: np.ndarray) -> set[Hashable]:
        """Return the keys that share at least one band with ``signature``.

        >>> index = LSHIndex(2, 2)
        >>> index.insert("a", np.array([1, 2, 3, 4], dtype=np.uint32))
        >>> index.query(np.array([1, 2, 9, 9], dtype=np.uint32))
        {'a'}
        """
        found: set[Hashable] = set()
        for table, band_key in zip(self._tables, self._band_keys(signature)):
            found.update(table.get(band_key, ()))
        return found


def check_signature_matrix(signatures: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """``signatures`` as an ``(n, num_perm)`` array wide enough for ``bands * rows``, or an error.

    >>> check_signature_matrix(np.zeros((3, 8), dtype=np.uint32), 2, 4).shape
    (3, 8)
    """
    sigs = np.asarray(signatures)
    if sigs.ndim != 2:
        raise ValueError(f"signatures must be an (n, num_perm) array, got shape {sigs.shape}")
    check_banding(bands, rows, sigs.shape[1])
    return sigs


def band_hashes(signatures: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """One 64-bit key per document and band: shape ``(n, bands)``, uint64.

    The ``rows`` values of a band are folded into a hash seeded by the band number, so
    equal values in different bands give different keys. Every banded structure keys its
    tables by these; equal keys are confirmed value by value where exactness matters.

    >>> sigs = np.array([[1, 2, 3, 4], [1, 2, 0, 0]], dtype=np.uint32)
    >>> keys = band_hashes(sigs, bands=2, rows=2)
    >>> bool(keys[0, 0] == keys[1, 0]), bool(keys[0, 1] == keys[1, 1])
    (True, False)
    """
    sigs = check_signature_matrix(signatures, bands, rows)
    grouped = sigs[:, : bands * rows].reshape(sigs.shape[0], bands, rows)
    key = np.broadcast_to(np.arange(bands, dtype=np.uint64), (sigs.shape[0], bands)).copy()
    with np.errstate(over="ignore"):
        for row in range(rows):  # all bands at once, one row of each at a time
            key *= np.uint64(0x9E3779B97F4A7C15)
            key += grouped[:, :, row]
    return splitmix64(key)


def candidate_pairs(signatures: np.ndarray, bands: int, rows: int) -> set[tuple[int, int]]:
    """All pairs ``(i, j)``, ``i < j``, of rows that agree on at least one band.

    Each band's documents are grouped by the values they hold there; every two documents of
    a group are a pair.

    >>> sigs = np.array([[1, 2, 3, 4], [1, 2, 0, 0], [5, 6, 3, 4]], dtype=np.uint32)
    >>> sorted(candidate_pairs(sigs, bands=2, rows=2))
    [(0, 1), (0, 2)]
    """
    sigs = check_signature_matrix(signatures, bands, rows)
    pairs: set[tuple[int, int]] = set()
    for band in range(bands):
        groups: dict[bytes, list[int]] = defaultdict(list)
        for doc, values in enumerate(sigs[:, band * rows : (band + 1) * rows]):
            groups[values.tobytes()].append(doc)
        for members in groups.values():
            pairs.update(combinations(members, 2))
    return pairs
