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

import numpy as np
from scipy.integrate import quad

from .hashing import splitmix64

__all__ = [
    "s_curve",
    "approx_threshold",
    "optimal_params",
    "LSHIndex",
    "candidate_pairs",
    "candidate_pair_array",
]


def _positive_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be a positive int, got {type(value).__name__} {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    return int(value)


def _check_banding(bands: object, rows: object, num_perm: int | None = None) -> tuple[int, int]:
    bands, rows = _positive_int(bands, "bands"), _positive_int(rows, "rows")
    if num_perm is not None and bands * rows > num_perm:
        raise ValueError(
            f"bands * rows = {bands} * {rows} = {bands * rows} exceeds num_perm = "
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
    bands, rows = _check_banding(bands, rows)
    arr = np.asarray(s, dtype=float)
    if np.any((arr < 0) | (arr > 1)) or np.any(np.isnan(arr)):
        raise ValueError(f"similarities must lie in [0, 1], got {s!r:.80}")
    p = 1.0 - (1.0 - arr**rows) ** bands
    return float(p) if np.ndim(s) == 0 else p


def approx_threshold(bands: int, rows: int) -> float:
    """Similarity where the S-curve rises most steeply, about ``(1/bands)**(1/rows)``.

    >>> round(approx_threshold(20, 5), 3)
    0.549
    """
    bands, rows = _check_banding(bands, rows)
    return (1.0 / bands) ** (1.0 / rows)


def _false_positive_area(threshold: float, bands: int, rows: int) -> float:
    area, _ = quad(lambda s: 1 - (1 - s ** float(rows)) ** float(bands), 0.0, threshold)
    return area


def _false_negative_area(threshold: float, bands: int, rows: int) -> float:
    area, _ = quad(lambda s: 1 - (1 - (1 - s ** float(rows)) ** float(bands)), threshold, 1.0)
    return area


@lru_cache(maxsize=512)
def _optimal(threshold: float, num_perm: int, fp_weight: float, fn_weight: float) -> tuple[int, int]:
    best, best_error = (0, 0), float("inf")
    for bands in range(1, num_perm + 1):
        for rows in range(1, num_perm // bands + 1):
            error = fp_weight * _false_positive_area(
                threshold, bands, rows
            ) + fn_weight * _false_negative_area(threshold, bands, rows)
            if error < best_error:  # strict: the first (bands, rows) wins ties
                best, best_error = (bands, rows), error
    return best


def optimal_params(
    threshold: float,
    num_perm: int,
    false_positive_weight: float = 0.5,
    false_negative_weight: float = 0.5,
) -> tuple[int, int]:
    """Choose ``(bands, rows)`` with ``bands * rows <= num_perm`` for a threshold.

    Minimises the weighted sum of the area under the S-curve below the
    threshold (false positives) and the area above it missing from 1 (false
    negatives), searching bands first, then rows, as datasketch does, so the
    answer is the one datasketch's ``MinHashLSH`` picks.

    >>> optimal_params(0.8, 128)
    (9, 13)
    """
    if not isinstance(threshold, (int, float)) or not 0.0 < threshold < 1.0:
        raise ValueError(f"threshold must be a number strictly between 0 and 1, got {threshold!r}")
    num_perm = _positive_int(num_perm, "num_perm")
    weights = (false_positive_weight, false_negative_weight)
    if any(not isinstance(w, (int, float)) or w < 0 for w in weights) or sum(weights) == 0:
        raise ValueError(f"weights must be non-negative numbers, not both zero; got {weights}")
    return _optimal(float(threshold), num_perm, float(weights[0]), float(weights[1]))


class LSHIndex:
    """Band tables for query and insert of signatures, one table per band.

    >>> from neardup_lab import MinHasher
    >>> h = MinHasher(num_perm=16)
    >>> index = LSHIndex(bands=4, rows=4)
    >>> index.insert("rain-1", h.signature({"heavy rain", "in the city"}))
    >>> index.query(h.signature({"heavy rain", "in the city"}))
    {'rain-1'}
    """

    def __init__(self, bands: int, rows: int) -> None:
        self.bands, self.rows = _check_banding(bands, rows)
        self._tables: list[dict[bytes, list[Hashable]]] = [defaultdict(list) for _ in range(self.bands)]
        self._keys: set[Hashable] = set()
        self._shape: tuple[int, ...] | None = None
        self._dtype: np.dtype | None = None

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def _band_keys(self, signature: np.ndarray) -> list[bytes]:
        sig = np.asarray(signature)
        if sig.ndim != 1:
            raise ValueError(f"expected one signature of shape (num_perm,), got shape {sig.shape}")
        _check_banding(self.bands, self.rows, sig.shape[0])
        if self._shape is not None and (sig.shape != self._shape or sig.dtype != self._dtype):
            raise ValueError(
                f"signature of shape {sig.shape} and dtype {sig.dtype} does not match "
                f"the index's {self._shape} {self._dtype}; sign with the same MinHasher"
            )
        r = self.rows
        return [sig[i * r : (i + 1) * r].tobytes() for i in range(self.bands)]

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


def _check_signature_matrix(signatures: np.ndarray, bands: int, rows: int) -> np.ndarray:
    sigs = np.asarray(signatures)
    if sigs.ndim != 2:
        raise ValueError(f"signatures must be an (n, num_perm) array, got shape {sigs.shape}")
    _check_banding(bands, rows, sigs.shape[1])
    return sigs


def candidate_pair_array(signatures: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """All candidate pairs as a sorted ``(m, 2)`` int64 array with ``i < j``.

    Rows whose band values are identical are grouped by sorting, band by
    band, so equal values in different bands never collide.

    >>> sigs = np.array([[1, 2, 3, 4], [1, 2, 0, 0], [5, 6, 3, 4]], dtype=np.uint32)
    >>> candidate_pair_array(sigs, bands=2, rows=2).tolist()
    [[0, 1], [0, 2]]
    """
    sigs = _check_signature_matrix(signatures, bands, rows)
    n = sigs.shape[0]
    bands_slices = (sigs[:, band * rows : (band + 1) * rows] for band in range(bands))
    codes = np.unique(np.concatenate([_pairs_in_groups(_band_groups(block)) for block in bands_slices]))
    width = max(n, 1)
    return np.stack([codes // width, codes % width], axis=1).astype(np.int64)


def _band_groups(block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sort rows of one band so equal rows are adjacent; return (order, group starts).

    Rows are sorted by a 64-bit hash of their values, then adjacent rows are
    compared value by value, so a group holds only truly equal rows.
    """
    key = np.zeros(block.shape[0], dtype=np.uint64)
    with np.errstate(over="ignore"):
        for column in block.T:
            key *= np.uint64(0x9E3779B97F4A7C15)
            key += column
    key = splitmix64(key)
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    same_as_previous = sorted_key[1:] == sorted_key[:-1]
    maybe = np.flatnonzero(same_as_previous)  # few: confirm these value by value
    same_as_previous[maybe] = (block[order[maybe + 1]] == block[order[maybe]]).all(axis=1)
    starts = np.flatnonzero(np.r_[True, ~same_as_previous])
    return order, starts


def _pairs_in_groups(groups: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Every pair within every group, encoded as ``i * n + j`` with ``i < j``."""
    order, starts = groups
    n = len(order)
    sizes = np.diff(np.r_[starts, n])
    size_of = np.repeat(sizes, sizes)  # for each sorted position, its group's size
    offset = np.arange(n) - np.repeat(starts, sizes)  # position within the group
    partners = size_of - 1 - offset  # later members of the same group
    left = np.repeat(np.arange(n), partners)
    step = np.arange(len(left)) - np.repeat(np.cumsum(partners) - partners, partners)
    a, b = order[left], order[left + 1 + step]
    return np.minimum(a, b).astype(np.int64) * n + np.maximum(a, b)


def candidate_pairs(signatures: np.ndarray, bands: int, rows: int) -> set[tuple[int, int]]:
    """All pairs ``(i, j)``, ``i < j``, of rows that agree on at least one band.

    >>> sigs = np.array([[1, 2, 3, 4], [1, 2, 0, 0], [5, 6, 3, 4]], dtype=np.uint32)
    >>> sorted(candidate_pairs(sigs, bands=2, rows=2))
    [(0, 1), (0, 2)]
    """
    return {(int(i), int(j)) for i, j in candidate_pair_array(signatures, bands, rows)}
