"""One-permutation hashing (Li, Owen, Zhang 2012) with optimal densification (Shrivastava 2017).

Classic MinHash applies ``k`` hash functions to every shingle. One-permutation
hashing applies one: its value picks one of ``k`` bins and the rest of the
value competes for the bin's minimum. That is ``k`` times less hashing, but a
short document leaves some bins empty. Densification fills each empty bin by
copying a non-empty bin chosen by a probe sequence that depends only on the
bin and the seed, so two documents fill the same empty bin from the same
place, and the chance that a position agrees stays equal to their Jaccard.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .hashing import splitmix64
from .support import limits

__all__ = ["oph_signatures", "densify", "EMPTY"]

#: The value of a bin that no shingle reached (the largest uint32).
EMPTY = np.uint32(0xFFFFFFFF)
_MAX_PROBES = 4096


def _seed_offset(seed: int, salt: int) -> np.uint64:
    with np.errstate(over="ignore"):
        return splitmix64(np.array([seed], dtype=np.uint64) ^ np.uint64(salt))[0]


def _fast_range(h: np.ndarray, n: int) -> np.ndarray:
    """The high 32 bits of ``h`` scaled down to ``[0, n)`` (Lemire's fast range), as int64."""
    return (((h >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32)).astype(np.int64)


def _bins_and_values(ids: np.ndarray, num_perm: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    with np.errstate(over="ignore"):
        h = splitmix64(ids + _seed_offset(seed, 0x0E1))
    return _fast_range(h, num_perm), (h & np.uint64(0xFFFFFFFF)).astype(np.uint32)


def oph_signatures(
    ids: np.ndarray, lengths: np.ndarray, num_perm: int, seed: int, fill: bool = True
) -> np.ndarray:
    """Signatures of documents whose shingle ids are concatenated in ``ids``.

    ``lengths[d]`` ids belong to document ``d``. Bins that no shingle reaches
    hold :data:`EMPTY` unless ``fill`` is true, in which case they are
    densified. An empty document stays all :data:`EMPTY`.

    >>> ids = np.arange(1, 301, dtype=np.uint64)
    >>> sig = oph_signatures(ids, np.array([300]), num_perm=64, seed=1)
    >>> sig.shape, bool((sig != EMPTY).all())
    ((1, 64), True)
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    out = np.full((len(lengths), num_perm), EMPTY, dtype=np.uint32)
    if len(ids):
        bins, values = _bins_and_values(np.asarray(ids, dtype=np.uint64), num_perm, seed)
        owner = np.repeat(np.arange(len(lengths)), lengths.astype(np.intp, copy=False))
        np.minimum.at(out.reshape(-1), owner * num_perm + bins, values)
    return densify(out, seed) if fill else out


@lru_cache(maxsize=16)
def _probe_table(num_perm: int, seed: int, probes: int) -> np.ndarray:
    """``table[t, i]``: the bin that empty bin ``i`` copies from at attempt ``t``."""
    counters = np.arange(probes * num_perm, dtype=np.uint64)
    with np.errstate(over="ignore"):
        h = splitmix64(counters + _seed_offset(seed, 0xD15))
    table = _fast_range(h, num_perm).reshape(probes, num_perm)
    table.setflags(write=False)  # cached: shared by every caller
    return table


def densify(signatures: np.ndarray, seed: int) -> np.ndarray:
    """Fill the empty bins of one-permutation signatures (optimal densification).

    Empty bin ``i`` looks at bins ``table[0, i]``, ``table[1, i]``, ... (the
    same sequence for every document) and copies the first non-empty one. A
    document with very few shingles may leave a bin unfilled after many probes;
    such a bin then copies the next non-empty bin after its last probe, going
    round, which is again the same rule for every document, so memory stays
    bounded whatever the signature length.

    >>> sigs = np.array([[7, EMPTY, EMPTY, 3]], dtype=np.uint32)
    >>> filled = densify(sigs, seed=1)
    >>> bool(set(filled[0].tolist()) <= {7, 3})
    True
    """
    sigs = np.array(signatures, dtype=np.uint32, copy=True)
    original_empty = sigs == EMPTY
    rows = ~original_empty.all(axis=1)  # an empty document has nothing to copy
    need = original_empty & rows[:, None]
    if not need.any():
        return sigs
    num_perm = sigs.shape[1]
    most = max(64, min(_MAX_PROBES, limits.OPH_MAX_TABLE // num_perm))
    table = _probe_table(num_perm, seed, min(64, most))
    doc, bin_ = np.nonzero(need)
    source = sigs.copy()
    for attempt in range(most):
        if attempt == len(table):
            table = _probe_table(num_perm, seed, min(2 * len(table), most))
        picked = table[attempt, bin_]
        ok = ~original_empty[doc, picked]
        sigs[doc[ok], bin_[ok]] = source[doc[ok], picked[ok]]
        doc, bin_ = doc[~ok], bin_[~ok]
        if not len(doc):
            return sigs
    # Going round from the last probe: the first non-empty bin at or after it.
    start = table[most - 1, bin_]
    filled = ~original_empty[doc]  # (remaining, num_perm)
    offset = np.argmax(_rolled(filled, start), axis=1)
    sigs[doc, bin_] = source[doc, (start + offset) % num_perm]
    return sigs


def _rolled(rows: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Row ``r`` of ``rows`` rotated left by ``start[r]``."""
    columns = (np.arange(rows.shape[1])[None, :] + start[:, None]) % rows.shape[1]
    return np.take_along_axis(rows, columns, axis=1)
