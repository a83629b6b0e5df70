"""``MinHasher.signature`` of many documents at once, ``limits.SIGN_BLOCK_CELLS`` values per call."""

from __future__ import annotations

import numpy as np

from ..minhash import MinHasher, empty_value
from ..oph import oph_signatures
from ..support import limits

__all__ = ["sign_flat"]


def sign_flat(hasher: MinHasher, ids: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Sign documents whose shingle ids are concatenated, ``lengths[d]`` ids each: ``(n, num_perm)``.
    TypeError unless ``ids`` is 1-D uint64, ValueError unless ``lengths`` sum to ``len(ids)``.

    >>> h = MinHasher(num_perm=8)
    >>> ids = np.array([5, 6, 7], dtype=np.uint64)
    >>> sigs = sign_flat(h, ids, np.array([2, 0, 1]))
    >>> sigs.shape, bool((sigs[0] == h.signature(ids[:2])).all())
    ((3, 8), True)
    """
    ids = np.asarray(ids)
    lengths = np.asarray(lengths, dtype=np.int64)
    if ids.dtype != np.uint64 or ids.ndim != 1:
        raise TypeError(f"ids must be a 1-D uint64 array, got {ids.dtype} with shape {ids.shape}")
    if lengths.ndim != 1 or (lengths < 0).any() or lengths.sum() != len(ids):
        raise ValueError(
            f"lengths must be non-negative and sum to len(ids) = {len(ids)}, "
            f"got a sum of {int(lengths.sum())}"
        )
    out = np.full((len(lengths), hasher.num_perm), empty_value(hasher.scheme), dtype=hasher.dtype)
    cells = limits.SIGN_BLOCK_CELLS
    if hasher.scheme in ("mod-prime", "small-affine"):
        cells = min(cells, limits.SIGN_BLOCK_CELLS_MOD_PRIME)
    per_block = 1 << 18 if hasher.scheme == "one-permutation" else max(1, cells // hasher.num_perm)
    ends = np.cumsum(lengths)
    start_doc = 0
    while start_doc < len(lengths):
        first_id = ends[start_doc] - lengths[start_doc]
        stop_doc = max(int(np.searchsorted(ends, first_id + per_block, side="right")), start_doc + 1)
        # One-permutation hashing makes one value per id: its memory is linear already.
        if lengths[start_doc] > per_block and hasher.scheme != "one-permutation":
            _sign_long(hasher, ids[first_id : ends[start_doc]], per_block, out[start_doc])
        else:
            block = ids[first_id : ends[stop_doc - 1]]
            _sign_block(hasher, block, lengths[start_doc:stop_doc], out[start_doc:stop_doc])
        start_doc = stop_doc
    return out


def _sign_long(hasher: MinHasher, ids: np.ndarray, per_block: int, out: np.ndarray) -> None:
    block = np.empty((1, hasher.num_perm), dtype=hasher.dtype)
    for start in range(0, len(ids), per_block):
        part = ids[start : start + per_block]
        _sign_block(hasher, part, np.array([len(part)]), block)
        np.minimum(out, block[0], out=out)


def _sign_block(hasher: MinHasher, ids: np.ndarray, lengths: np.ndarray, out: np.ndarray) -> None:
    if hasher.scheme == "one-permutation":
        out[:] = oph_signatures(ids, lengths, hasher.num_perm, hasher.seed)
        return
    nonempty = lengths > 0
    if not nonempty.any():
        return
    values = hasher.hash_columns(ids)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))[nonempty]
    out[nonempty] = np.minimum.reduceat(values, starts.astype(np.intp, copy=False), axis=1).T
