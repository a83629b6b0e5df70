"""MinHash signatures: n hash functions, keep the minimum of each.

Two sets have the same minimum under a random hash function with a chance equal to their
Jaccard similarity, so the share of equal positions in two signatures estimates it. Schemes
(families of ``num_perm`` functions of the 64-bit stable hash ``x`` of every shingle):

``"multiply-shift"`` (default)
    top 32 bits of ``(a*x + c) mod 2**64`` with ``a`` odd. Values are uint32.
``"mod-prime"``
    the textbook ``(a*x + c) mod (2**61 - 1)``, ``a`` in [1, p), ``c`` in [0, p), exact. uint64.
``"one-permutation"``
    one hash function whose value picks one of ``num_perm`` bins; each bin keeps its minimum,
    empty bins are densified (:mod:`neardup_lab.oph`): ``num_perm`` times less hashing. uint32.
``"small-affine"``
    a deliberately weak hash kept for teaching: ``(a*x + c) mod (2**61 - 1)`` with ``x`` cut to
    32 bits and ``a``, ``c`` below 2**35. The products wrap around the prime only a few times,
    so the smallest inputs win the minimum far too often.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Set
from dataclasses import dataclass

import numpy as np

from .hashing import hash_shingles, splitmix64
from .oph import oph_signatures
from .support import limits
from .support.validate import described, positive_int, shown

__all__ = [
    "MinHasher",
    "SCHEMES",
    "estimate_jaccard",
    "merge_signatures",
    "empty_value",
    "bbit_signatures",
    "estimate_jaccard_bbit",
    "pack_bbit",
]

MERSENNE_61 = np.uint64((1 << 61) - 1)
SCHEMES = ("multiply-shift", "mod-prime", "small-affine", "one-permutation")
_SCHEME_DTYPES: dict[str, type[np.unsignedinteger]] = {
    "multiply-shift": np.uint32,
    "mod-prime": np.uint64,
    "small-affine": np.uint64,
    "one-permutation": np.uint32,
}
#: Longest signature accepted: 32 KiB per document, and choosing its banding still takes seconds.
MAX_NUM_PERM = 8192
# Index of the high 32-bit half inside a uint64 viewed as two uint32.
_HIGH_HALF = 1 if sys.byteorder == "little" else 0


def empty_value(scheme: str) -> int:
    """Return the value every position of the empty set's signature holds.

    It is the largest value of the scheme's dtype, so it is the identity of
    :func:`merge_signatures`.

    >>> empty_value("multiply-shift")
    4294967295
    """
    return int(np.iinfo(_SCHEME_DTYPES[_check_scheme(scheme)]).max)


def _check_scheme(scheme: object) -> str:
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r}; choose one of {', '.join(SCHEMES)}")
    return str(scheme)


def _mulmod61(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Exact (a * x) mod (2**61 - 1) for uint64 arrays with a, x < 2**61: both factors are split
    into 32-bit halves so no partial product overflows, then powers of two fold with 2**61 = 1 (mod p).
    """
    lo32 = np.uint64(0xFFFFFFFF)
    a_hi, a_lo = a >> np.uint64(32), a & lo32
    x_hi, x_lo = x >> np.uint64(32), x & lo32
    high = a_hi * x_hi  # < 2**58, weight 2**64 = 8 (mod p)
    mid = a_hi * x_lo + a_lo * x_hi  # < 2**62, weight 2**32
    low = a_lo * x_lo  # < 2**64
    total = (
        (high << np.uint64(3)) + (mid >> np.uint64(29)) + ((mid & np.uint64((1 << 29) - 1)) << np.uint64(32))
    )
    total += (low & MERSENNE_61) + (low >> np.uint64(61))
    return _reduce61(total)


def _reduce61(v: np.ndarray) -> np.ndarray:
    v = (v & MERSENNE_61) + (v >> np.uint64(61))
    v = (v & MERSENNE_61) + (v >> np.uint64(61))
    return np.where(v >= MERSENNE_61, v - MERSENNE_61, v)


@dataclass(frozen=True)
class _Params:
    a: np.ndarray
    b: np.ndarray


def _draw_params(scheme: str, num_perm: int, seed: int) -> _Params:
    # Counter-based draws: parameter i of seed s is a fixed function of (s, i).
    counters = np.arange(2 * num_perm, dtype=np.uint64)
    with np.errstate(over="ignore"):
        base = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15)
        raw = splitmix64(splitmix64(counters + base) ^ np.uint64(SCHEMES.index(scheme) + 1))
    a, b = raw[0::2], raw[1::2]  # function i uses counters 2i and 2i+1, whatever num_perm is
    if scheme == "multiply-shift":
        return _Params(a | np.uint64(1), b)
    if scheme == "mod-prime":
        return _Params(a % (MERSENNE_61 - np.uint64(1)) + np.uint64(1), b % MERSENNE_61)
    small = np.uint64(1 << 35)
    return _Params(a % (small - np.uint64(1)) + np.uint64(1), b % small)


class MinHasher:
    """A family of ``num_perm`` seeded hash functions that signs shingle sets.

    Signatures made by two hashers are comparable only when ``num_perm``,
    ``seed`` and ``scheme`` all agree; :attr:`params` holds them so they can
    be stored beside saved signatures.

    >>> hasher = MinHasher(num_perm=64, seed=7)
    >>> sig = hasher.signature({"heavy rain in", "rain in the"})
    >>> sig.shape, sig.dtype
    ((64,), dtype('uint32'))
    """

    def __init__(self, num_perm: int = 128, seed: int = 1, scheme: str = "multiply-shift") -> None:
        num_perm = positive_int(num_perm, "num_perm", MAX_NUM_PERM)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"seed must be an int, got {described(seed)}")
        if not 0 <= seed < 2**64:
            raise ValueError(f"seed must be in [0, 2**64), got {shown(seed)}")
        self.num_perm = num_perm
        self.seed = seed
        self.scheme = _check_scheme(scheme)
        self.dtype = np.dtype(_SCHEME_DTYPES[scheme])
        self._params = _draw_params(scheme, num_perm, seed)

    def __repr__(self) -> str:
        return f"MinHasher(num_perm={self.num_perm}, seed={self.seed}, scheme={self.scheme!r})"

    @property
    def params(self) -> dict:
        """The settings that make signatures comparable, as plain data.

        >>> MinHasher(16, seed=3).params
        {'num_perm': 16, 'seed': 3, 'scheme': 'multiply-shift'}
        """
        return {"num_perm": self.num_perm, "seed": self.seed, "scheme": self.scheme}

    @property
    def coefficients(self) -> tuple[np.ndarray, np.ndarray]:
        """Copies of the ``a`` and ``b`` of every hash function, to rebuild them by hand.

        (For ``"one-permutation"`` they are drawn but unused: its one hash is in :mod:`~neardup_lab.oph`.)

        >>> a, b = MinHasher(4, seed=2).coefficients
        >>> a.shape, bool((a % 2 == 1).all())  # multiply-shift multipliers are odd
        ((4,), True)
        """
        return self._params.a.copy(), self._params.b.copy()

    def hash_values(self, ids: np.ndarray) -> np.ndarray:
        """Apply every hash function to every id: shape ``(len(ids), num_perm)``.

        >>> MinHasher(4).hash_values(np.array([1, 2], dtype=np.uint64)).shape
        (2, 4)
        """
        return self.hash_columns(np.asarray(ids, dtype=np.uint64)).T.astype(self.dtype)

    def hash_columns(self, ids: np.ndarray) -> np.ndarray:
        """The values of :meth:`hash_values` laid out ``(num_perm, len(ids))``, one row per function.

        Signing at scale reduces along these rows. For multiply-shift, a uint32 view of the
        products' high halves: no shift, no copy.

        >>> MinHasher(4).hash_columns(np.array([1, 2], dtype=np.uint64)).shape
        (4, 2)
        """
        if self.scheme == "one-permutation":
            raise ValueError("the one-permutation scheme has a single hash function; use signatures()")
        x = ids[None, :]
        a, b = self._params.a[:, None], self._params.b[:, None]
        with np.errstate(over="ignore"):
            if self.scheme == "multiply-shift":
                full = np.multiply(a, x)
                full += b
                return full.view(np.uint32)[:, _HIGH_HALF::2]
            if self.scheme == "mod-prime":
                return _reduce61(_mulmod61(a, x % MERSENNE_61) + b)
            return _reduce61(_mulmod61(a, x & np.uint64(0xFFFFFFFF)) + b)

    def _ids(self, shingles: Set | np.ndarray) -> np.ndarray:
        if isinstance(shingles, np.ndarray):
            if shingles.ndim != 1 or shingles.dtype != np.uint64:
                raise TypeError(
                    f"an id array must be 1-D uint64, got shape {shingles.shape} "
                    f"dtype {shingles.dtype}; use hash_shingles(shingles)"
                )
            return shingles
        if not isinstance(shingles, (Set, list, tuple, frozenset)):
            raise TypeError(
                f"expected a set of str shingles or a uint64 id array, got {type(shingles).__name__} "
                f"{shown(shingles)}; build one with word_shingles(text)"
            )
        return hash_shingles(shingles)

    def signature(self, shingles: Set | np.ndarray) -> np.ndarray:
        """Return the MinHash signature of one shingle set, shape ``(num_perm,)``.

        ``shingles`` is a set of str, or a uint64 array of shingle ids from
        :func:`~neardup_lab.hashing.hash_shingles`. Each position is the smallest value one
        hash function gives the set; the empty set's signature holds :func:`empty_value`.

        >>> h = MinHasher(num_perm=32)
        >>> bool((h.signature({"a b c"}) == h.signature({"a b c"})).all())
        True
        """
        ids = self._ids(shingles)
        if self.scheme == "one-permutation":
            return oph_signatures(ids, np.array([len(ids)]), self.num_perm, self.seed)[0]
        signature = np.full(self.num_perm, empty_value(self.scheme), dtype=self.dtype)
        step = max(1, limits.SIGN_BLOCK_CELLS // self.num_perm)  # memory bounded for any size of set
        for start in range(0, len(ids), step):
            np.minimum(signature, self.hash_values(ids[start : start + step]).min(axis=0), out=signature)
        return signature

    def signatures(self, many: Iterable[Set | np.ndarray]) -> np.ndarray:
        """Sign many shingle sets, one :meth:`signature` each: shape ``(n, num_perm)``.

        >>> MinHasher(num_perm=8).signatures([{"a"}, {"b"}, set()]).shape
        (3, 8)
        """
        if isinstance(many, (str, bytes, Set)) or (isinstance(many, np.ndarray) and many.ndim == 1):
            raise TypeError("signatures() takes a list of shingle sets; for one set use signature()")
        rows = [self.signature(shingles) for shingles in many]
        return np.stack(rows) if rows else np.empty((0, self.num_perm), dtype=self.dtype)


def _check_pair(sig_a: np.ndarray, sig_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    sig_a, sig_b = np.asarray(sig_a), np.asarray(sig_b)
    if sig_a.shape != sig_b.shape:
        raise ValueError(
            f"signatures differ in shape: {sig_a.shape} vs {sig_b.shape}; "
            "they must come from MinHashers with the same num_perm"
        )
    if sig_a.dtype != sig_b.dtype:
        raise ValueError(
            f"signatures differ in dtype: {sig_a.dtype} vs {sig_b.dtype}; "
            "they come from different hash schemes and cannot be compared"
        )
    if sig_a.ndim not in (1, 2) or sig_a.shape[-1] == 0:
        raise ValueError(f"expected signatures of shape (num_perm,) or (n, num_perm), got {sig_a.shape}")
    return sig_a, sig_b


def estimate_jaccard(sig_a: np.ndarray, sig_b: np.ndarray) -> float | np.ndarray:
    """Estimate Jaccard similarity as the share of equal signature positions.

    Two ``(n, num_perm)`` arrays give ``n`` estimates, row by row.

    >>> h = MinHasher(num_perm=256)
    >>> a = {f"w{i}" for i in range(100)}
    >>> b = {f"w{i}" for i in range(50, 150)}
    >>> abs(estimate_jaccard(h.signature(a), h.signature(b)) - 1 / 3) < 0.1  # exact: 1/3
    True
    """
    sig_a, sig_b = _check_pair(sig_a, sig_b)
    equal = (sig_a == sig_b).mean(axis=-1)
    return float(equal) if sig_a.ndim == 1 else equal


def merge_signatures(sig_a: np.ndarray, sig_b: np.ndarray) -> np.ndarray:
    """Return the signature of the union of two sets: the element-wise minimum.

    >>> h = MinHasher(num_perm=16)
    >>> merged = merge_signatures(h.signature({"a", "b"}), h.signature({"c"}))
    >>> bool((merged == h.signature({"a", "b", "c"})).all())
    True
    """
    sig_a, sig_b = _check_pair(sig_a, sig_b)
    return np.minimum(sig_a, sig_b)


def _check_bits(bits: object) -> int:
    return positive_int(bits, "bits", 32)


def bbit_signatures(signatures: np.ndarray, bits: int) -> np.ndarray:
    """Keep the lowest ``bits`` bits of every value (b-bit MinHash, Li and König 2010).

    Values go into the smallest unsigned dtype that holds them; pack them
    with :func:`pack_bbit` for storage.

    >>> bbit_signatures(np.array([5, 6, 7], dtype=np.uint32), bits=1)
    array([1, 0, 1], dtype=uint8)
    """
    bits = _check_bits(bits)
    sigs = np.asarray(signatures)
    if sigs.dtype.kind != "u":
        raise TypeError(f"signatures must be unsigned integers, got {sigs.dtype}")
    dtype = np.uint8 if bits <= 8 else np.uint16 if bits <= 16 else np.uint32
    return (sigs & np.asarray((1 << bits) - 1, dtype=sigs.dtype)).astype(dtype)


def estimate_jaccard_bbit(sig_a: np.ndarray, sig_b: np.ndarray, bits: int) -> float | np.ndarray:
    """Estimate Jaccard from b-bit signatures, correcting for chance agreement.

    Two unrelated values agree on ``bits`` bits with probability ``2**-bits``,
    so agreement ``E`` estimates ``J + (1 - J) * 2**-bits``; solve for ``J``
    and clip to [0, 1]. (The approximation of Li and König for sets much
    smaller than the hash range.)

    >>> a = np.array([0, 1, 1, 0], dtype=np.uint8)
    >>> estimate_jaccard_bbit(a, a, bits=1)
    1.0
    """
    bits = _check_bits(bits)
    agree = estimate_jaccard(sig_a, sig_b)
    chance = 2.0**-bits
    corrected = (agree - chance) / (1 - chance)
    return np.clip(corrected, 0.0, 1.0) if isinstance(agree, np.ndarray) else min(1.0, max(0.0, corrected))


def pack_bbit(bbit: np.ndarray, bits: int) -> np.ndarray:
    """Pack b-bit values (``bits`` in 1, 2, 4, 8) into bytes: ``bits * num_perm / 8`` per row.

    >>> pack_bbit(np.array([[1, 0, 1, 1, 0, 0, 0, 1]], dtype=np.uint8), bits=1)
    array([[177]], dtype=uint8)
    """
    if bits not in (1, 2, 4, 8):
        raise ValueError(f"pack_bbit packs 1, 2, 4 or 8 bits per value, got {bits!r}")
    values = np.atleast_2d(np.asarray(bbit, dtype=np.uint8))
    per_byte = 8 // bits
    if values.shape[1] % per_byte:
        raise ValueError(f"num_perm = {values.shape[1]} must be a multiple of {per_byte} to pack {bits} bits")
    grouped = values.reshape(values.shape[0], -1, per_byte).astype(np.uint16)
    shifts = np.arange(per_byte - 1, -1, -1, dtype=np.uint16) * bits
    return (grouped << shifts).sum(axis=2).astype(np.uint8)
