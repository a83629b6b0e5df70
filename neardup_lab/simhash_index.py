"""Find fingerprints a few bits apart: block tables (Manku, Jain and Das Sarma 2007).

Cut every ``f``-bit fingerprint (``bits``) into ``b`` blocks (``blocks``). Two fingerprints at most
``d_max`` bits apart (``max_distance``) differ in at most ``d_max`` blocks, so ``b - d_max`` blocks
are equal: a table keyed on ``b - d_max`` blocks finds every neighbour whose differing bits avoid
them, and one table per choice (``C(b, d_max)`` tables) finds them all. Two schemes:

``"pigeonhole"``
    ``b = d_max + 1`` blocks, one table per block: the fewest tables, but short keys, so a lookup
    returns many fingerprints to check.
``"permuted"``
    ``b`` blocks (default ``2 d_max``), a table per choice of ``b - d_max``: more tables, longer
    keys, so a lookup returns hardly more than the true neighbours (``d_max = 3``, 64 bits: blocks
    of 11, 11, 11, 11, 10 and 10 bits, 20 tables, as in the paper).

A table is one uint64 array: the fingerprints with their bits rearranged so that the key blocks
come first, sorted. ``np.searchsorted`` finds the entries whose key equals the query's, checked
with a population count; rearranging bits keeps Hamming distances, and no Python object is
made per fingerprint.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from itertools import combinations
from typing import NamedTuple

import numpy as np

from .support import limits
from .support.spans import span_positions
from .support.validate import described, positive_int

__all__ = [
    "BLOCK_SCHEMES",
    "BlockLayout",
    "block_layout",
    "BlockIndex",
    "QueryStats",
    "hamming_brute_force",
    "hamming_distances",
]

#: The table layouts :class:`BlockIndex` can build.
BLOCK_SCHEMES = ("pigeonhole", "permuted")

#: Refuse layouts with more tables than this: they cost more than a brute-force scan.
MAX_TABLES = 1024


class QueryStats(NamedTuple):
    """What one :meth:`BlockIndex.query_stats` lookup found and what it cost."""

    #: Positions of the fingerprints within ``max_distance``, ascending.
    matches: np.ndarray
    #: Distinct fingerprints that shared a key with the query in at least one table.
    candidates: int
    #: Table entries compared with the query (a fingerprint found by several tables counts once per table).
    checked: int
    #: Tables looked up.
    tables: int


def _check_bits(bits: object) -> int:
    return positive_int(bits, "bits", 64)


def _as_fingerprints(fingerprints: object, bits: int = 64) -> np.ndarray:
    """Fingerprints as a 1-D uint64 array, every value checked to fit in ``bits`` bits."""
    if isinstance(fingerprints, (str, bytes, bytearray)):
        raise TypeError(f"fingerprints must be integers, got {described(fingerprints)}")
    if not isinstance(fingerprints, np.ndarray):
        if not isinstance(fingerprints, Iterable):
            raise TypeError(
                f"fingerprints must be a uint64 array or a sequence of ints, got {described(fingerprints)}"
            )
        values = list(fingerprints)
        for value in values:
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise TypeError(f"every fingerprint must be an int, found {described(value)}")
            if not 0 <= value < 2**64:
                raise ValueError(f"fingerprints must lie in [0, 2**64), found {value}")
        fingerprints = np.array(values, dtype=np.uint64)
    if fingerprints.dtype.kind not in "ui":
        raise TypeError(
            f"fingerprints must be an array of unsigned integers, got dtype {fingerprints.dtype}; "
            "store SimHash fingerprints as np.uint64"
        )
    if fingerprints.dtype.kind == "i" and fingerprints.size and int(fingerprints.min()) < 0:
        raise ValueError(
            f"fingerprints must be non-negative, found {int(fingerprints.min())}; "
            "a 64-bit fingerprint does not fit in int64, use np.uint64"
        )
    arr = fingerprints.astype(np.uint64, copy=False)
    if arr.ndim != 1:
        raise ValueError(f"fingerprints must be a 1-D array, got shape {arr.shape}")
    if bits < 64 and arr.size and int(arr.max()) >> bits:
        raise ValueError(f"fingerprint {int(arr.max())} does not fit in bits={bits}")
    return arr


def _as_query(fp: object, bits: int = 64) -> int:
    if isinstance(fp, bool) or not isinstance(fp, (int, np.integer)):
        raise TypeError(f"a query fingerprint must be an int, got {described(fp)}")
    if not 0 <= fp < 2**bits:
        raise ValueError(f"a query fingerprint must lie in [0, 2**{bits}), got {fp}")
    return int(fp)


def _check_distance(max_distance: object) -> int:
    if isinstance(max_distance, bool) or not isinstance(max_distance, (int, np.integer)):
        raise TypeError(f"max_distance must be an int, got {described(max_distance)}")
    if max_distance < 0:
        raise ValueError(f"max_distance must be >= 0, got {max_distance}")
    return int(max_distance)


def hamming_distances(fingerprints: np.ndarray | Iterable[int], fp: int) -> np.ndarray:
    """Hamming distance from ``fp`` to every fingerprint: XOR, then count the 1 bits.

    >>> hamming_distances(np.array([0b1011, 0b0010, 0b1111], dtype=np.uint64), 0b0011)
    array([1, 1, 2], dtype=uint8)
    """
    fps = _as_fingerprints(fingerprints)
    return np.bitwise_count(fps ^ np.uint64(_as_query(fp)))


def hamming_brute_force(fingerprints: np.ndarray | Iterable[int], fp: int, max_distance: int) -> np.ndarray:
    """Positions of all fingerprints within ``max_distance`` bits of ``fp``, ascending.

    Compares ``fp`` with every fingerprint: exact, and the reference that
    :class:`BlockIndex` is tested against.

    >>> fps = np.array([0b0000, 0b0111, 0b1111, 0b0001], dtype=np.uint64)
    >>> hamming_brute_force(fps, 0b0011, max_distance=1)
    array([1, 3])
    """
    k = _check_distance(max_distance)
    return np.flatnonzero(hamming_distances(fingerprints, fp) <= k)


def _block_widths(bits: int, blocks: int) -> tuple[int, ...]:
    """Split ``bits`` into ``blocks`` widths as equal as possible, the wider ones first."""
    base, extra = divmod(bits, blocks)
    return tuple(base + 1 if i < extra else base for i in range(blocks))


class BlockLayout(NamedTuple):
    """The blocks and tables of a :class:`BlockIndex`, and what they cost and find.

    ``block_widths``: bits per block, block 0 the highest. ``table_blocks``: the
    blocks each table is keyed on, every choice of ``blocks - max_distance``.
    """

    bits: int
    max_distance: int
    block_widths: tuple[int, ...]
    table_blocks: tuple[tuple[int, ...], ...]

    def expected_random_candidates(self, n: int) -> float:
        """Expected candidates per query from ``n`` fingerprints (the query among them) that
        are random with respect to it: each table returns those whose key bits all match.

        >>> round(block_layout(3, "pigeonhole").expected_random_candidates(2**20), 3)
        64.0
        """
        return sum((n - 1) / 2 ** sum(self.block_widths[b] for b in key) for key in self.table_blocks)

    def chance_seen(self, distance: int) -> float:
        """Exact probability that a fingerprint ``distance`` bits from the query, the bits
        chosen at random, shares a key with it: at most ``max_distance`` blocks touched.

        >>> layout = block_layout(3, "permuted")
        >>> layout.chance_seen(3), round(layout.chance_seen(4), 4)
        (1.0, 0.6951)
        """
        d = _check_distance(distance)
        if d > self.bits:
            return 0.0
        # ways[j][t]: choices of t flipped bits among the blocks so far that touch j blocks
        ways = [[0] * (d + 1) for _ in range(len(self.block_widths) + 1)]
        ways[0][0] = 1
        for width in self.block_widths:
            ahead = [[0] * (d + 1) for _ in ways]
            for j, row in enumerate(ways):
                for t, count in enumerate(row):
                    if count:
                        for inside in range(min(width, d - t) + 1):
                            ahead[j + (inside > 0)][t + inside] += count * math.comb(width, inside)
            ways = ahead
        seen = sum(ways[j][d] for j in range(min(self.max_distance, len(ways) - 1) + 1))
        return seen / math.comb(self.bits, d)


def block_layout(
    max_distance: int = 3, scheme: str = "pigeonhole", blocks: int | None = None, bits: int = 64
) -> BlockLayout:
    """The layout :class:`BlockIndex` builds for these settings, checked, without building it.

    >>> block_layout(3, "permuted").block_widths
    (11, 11, 11, 11, 10, 10)
    >>> len(block_layout(3, "permuted").table_blocks)
    20
    """
    bits = _check_bits(bits)
    k = _check_distance(max_distance)
    if scheme not in BLOCK_SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r}; choose one of {', '.join(BLOCK_SCHEMES)}")
    if scheme == "pigeonhole":
        if blocks is not None and blocks != k + 1:
            raise ValueError(
                f"the pigeonhole scheme uses max_distance + 1 = {k + 1} blocks, got blocks={blocks}; "
                "for another number of blocks use scheme='permuted'"
            )
        blocks = k + 1
    elif blocks is None:
        blocks = max(k + 1, 2 * k)
    if isinstance(blocks, bool) or not isinstance(blocks, (int, np.integer)):
        raise TypeError(f"blocks must be an int, got {type(blocks).__name__} {blocks!r}")
    blocks = int(blocks)
    if not k < blocks <= bits:
        raise ValueError(
            f"need max_distance < blocks <= bits, got max_distance={k}, blocks={blocks}, "
            f"bits={bits}; with k differing bits only blocks - k blocks are sure to agree"
        )
    n_tables = math.comb(blocks, k)
    if n_tables > MAX_TABLES:
        raise ValueError(
            f"{blocks} blocks with max_distance={k} need C({blocks}, {k}) = {n_tables:,} tables "
            f"(limit {MAX_TABLES}); use fewer blocks"
        )
    tables = tuple(combinations(range(blocks), blocks - k))
    return BlockLayout(bits, k, _block_widths(bits, blocks), tables)


class _Table(NamedTuple):
    key_blocks: tuple[int, ...]
    key_bits: int
    moves: tuple[tuple[int, int, int], ...]  # (source shift, mask, target shift) per block
    values: np.ndarray  # rearranged fingerprints, sorted by key
    ids: np.ndarray  # position of each sorted value in the input


class BlockIndex:
    """Block tables that return every fingerprint within ``max_distance`` bits of a query.

    ``fingerprints`` is a 1-D array of uint64 (or a sequence of ints); answers
    are positions in it. The settings are those of :func:`block_layout` (the
    schemes are described at the top of the module); they are kept as the
    attributes ``max_distance``, ``scheme``, ``bits``, ``block_widths`` (block 0
    holds the highest bits) and ``layout``.

    >>> rng = np.random.default_rng(0)
    >>> fps = rng.integers(0, 2**64, size=1000, dtype=np.uint64)
    >>> index = BlockIndex(fps, max_distance=3)
    >>> query = int(fps[42]) ^ 0b1011  # 3 bits away from fingerprint 42
    >>> index.query(query).tolist()
    [42]
    >>> BlockIndex(fps, max_distance=3, scheme="permuted").n_tables
    20
    """

    def __init__(
        self,
        fingerprints: np.ndarray | Iterable[int],
        max_distance: int = 3,
        scheme: str = "pigeonhole",
        blocks: int | None = None,
        bits: int = 64,
    ) -> None:
        layout = block_layout(max_distance, scheme, blocks, bits)
        self.bits, self.max_distance, self.scheme = layout.bits, layout.max_distance, scheme
        self.block_widths = layout.block_widths
        self.layout = layout
        fps = _as_fingerprints(fingerprints, self.bits)
        id_dtype = np.uint32 if len(fps) < 2**32 else np.int64
        tops = np.cumsum((0,) + self.block_widths)  # block b holds bits [bits - tops[b+1], bits - tops[b])
        self._tables: list[_Table] = []
        n_blocks = len(self.block_widths)
        for key in layout.table_blocks:
            others = tuple(b for b in range(n_blocks) if b not in key)
            steps, target = [], self.bits
            for b in key + others:  # key blocks first, so they end up highest
                width = self.block_widths[b]
                target -= width
                steps.append((self.bits - int(tops[b + 1]), (1 << width) - 1, target))
            key_bits = sum(self.block_widths[b] for b in key)
            moves = _merge_moves(steps)
            moved = _rearrange(fps, moves)
            order = _order_by_key(moved, self.bits - key_bits)
            self._tables.append(_Table(key, key_bits, moves, moved[order], order.astype(id_dtype)))
        self._n = len(fps)

    def __len__(self) -> int:
        return self._n

    def __repr__(self) -> str:
        return (
            f"BlockIndex({self._n} fingerprints, max_distance={self.max_distance}, "
            f"scheme={self.scheme!r}, blocks={self.block_widths}, tables={self.n_tables})"
        )

    @property
    def n_tables(self) -> int:
        """How many tables the index holds, ``C(blocks, max_distance)``.

        >>> BlockIndex(np.zeros(1, dtype=np.uint64), max_distance=3).n_tables
        4
        """
        return len(self._tables)

    @property
    def table_blocks(self) -> tuple[tuple[int, ...], ...]:
        """The blocks each table is keyed on; block 0 holds the highest bits.

        >>> BlockIndex(np.zeros(1, dtype=np.uint64), max_distance=1, scheme="permuted", blocks=3).table_blocks
        ((0, 1), (0, 2), (1, 2))
        """
        return tuple(t.key_blocks for t in self._tables)

    @property
    def nbytes(self) -> int:
        """Bytes held by the tables (sorted values and positions).

        >>> BlockIndex(np.zeros(10, dtype=np.uint64), max_distance=3).nbytes  # 4 tables x 10 x (8 + 4)
        480
        """
        return sum(t.values.nbytes + t.ids.nbytes for t in self._tables)

    def _lookup(self, fp: int, count: bool) -> tuple[np.ndarray, int, int]:
        """The matches of ``fp``; with ``count``, also the distinct candidates and the entries checked."""
        fp = _as_query(fp, self.bits)
        found, seen, checked = [], [], 0
        for table in self._tables:
            moved = 0  # the query rearranged as the table's values are
            for shift, mask, target in table.moves:
                moved |= ((fp >> shift) & mask) << target
            rest = self.bits - table.key_bits
            low = (moved >> rest) << rest  # the run of entries sharing the query's key
            start = int(table.values.searchsorted(np.uint64(low), "left"))
            stop = int(table.values.searchsorted(np.uint64(low | ((1 << rest) - 1)), "right"))
            if stop == start:
                continue
            ids = table.ids[start:stop]
            close = np.bitwise_count(table.values[start:stop] ^ np.uint64(moved)) <= self.max_distance
            if close.any():
                found.append(ids[close])
            if count:
                checked += stop - start
                seen.append(ids)
        matches = np.unique(np.concatenate(found)).astype(np.int64) if found else np.empty(0, dtype=np.int64)
        candidates = len(np.unique(np.concatenate(seen))) if seen else 0
        return matches, candidates, checked

    def query_stats(self, fp: int) -> QueryStats:
        """Look up ``fp`` and report the matches and how many entries were checked.

        >>> fps = np.array([0b1111, 0b1110, 0b0000], dtype=np.uint64)
        >>> stats = BlockIndex(fps, max_distance=1, bits=4).query_stats(0b1111)
        >>> stats.matches.tolist(), stats.candidates, stats.checked, stats.tables
        ([0, 1], 2, 3, 2)
        """
        matches, candidates, checked = self._lookup(fp, count=True)
        return QueryStats(matches, candidates, checked, self.n_tables)

    def query(self, fp: int) -> np.ndarray:
        """Positions of every indexed fingerprint within ``max_distance`` bits of ``fp``, ascending.

        >>> fps = np.array([0b1111, 0b1110, 0b0000], dtype=np.uint64)
        >>> BlockIndex(fps, max_distance=1, bits=4).query(0b0111).tolist()
        [0]
        """
        return self._lookup(fp, count=False)[0]

    def query_many(self, fps: np.ndarray | Iterable[int]) -> np.ndarray:
        """Look up many fingerprints at once: an ``(m, 2)`` array of ``[query, position]`` rows.

        Row ``[q, i]`` says indexed fingerprint ``i`` is within ``max_distance``
        bits of ``fps[q]``. Rows are sorted and unique. Querying an index with
        its own fingerprints finds all close pairs (keep the rows with ``q < i``).

        >>> fps = np.array([0b1111, 0b1110, 0b0000], dtype=np.uint64)
        >>> BlockIndex(fps, max_distance=1, bits=4).query_many(fps).tolist()
        [[0, 0], [0, 1], [1, 0], [1, 1], [2, 2]]
        """
        queries = _as_fingerprints(fps, self.bits)
        found = [np.empty((0, 2), dtype=np.int64)]
        step = limits.QUERY_BATCH
        for first in range(0, len(queries), step):
            batch = queries[first : first + step]
            for table in self._tables:
                moved = _rearrange(batch, table.moves)
                rest = np.uint64(self.bits - table.key_bits)
                low = (moved >> rest) << rest
                starts = table.values.searchsorted(low, "left")
                stops = table.values.searchsorted(low | ((np.uint64(1) << rest) - np.uint64(1)), "right")
                counts = stops - starts
                which = np.repeat(np.arange(len(batch)), counts.astype(np.intp, copy=False))
                entries = span_positions(starts, counts)  # each candidate's place in the table
                close = np.bitwise_count(table.values[entries] ^ moved[which]) <= self.max_distance
                found.append(
                    np.stack([which[close] + first, table.ids[entries[close]].astype(np.int64)], axis=1)
                )
        return np.unique(np.concatenate(found), axis=0)


def _order_by_key(moved: np.ndarray, rest: int) -> np.ndarray:
    """Positions that sort ``moved`` by its key, the bits above the lowest ``rest`` (within a key,
    in any order). Sorting ``key << id_bits | position`` packed in 64 bits is about twice as fast
    as an argsort, when they fit."""
    id_bits = max(1, (len(moved) - 1).bit_length())
    if 64 - rest + id_bits > 64:
        return np.argsort(moved)
    packed = (moved >> np.uint64(rest)) << np.uint64(id_bits)
    packed |= np.arange(len(moved), dtype=np.uint64)
    packed.sort()
    return (packed & np.uint64((1 << id_bits) - 1)).astype(np.int64)


def _merge_moves(moves: list[tuple[int, int, int]]) -> tuple[tuple[int, int, int], ...]:
    """Join neighbouring blocks that move together (targets are consecutive by construction,
    so two moves join when their sources are too) into one (shift, mask, target) move."""
    merged: list[tuple[int, int, int]] = []
    for shift, mask, target in moves:
        if merged and merged[-1][0] - shift == mask.bit_length():
            previous_mask = merged[-1][1]
            merged[-1] = (shift, (previous_mask << mask.bit_length()) | mask, target)
        else:
            merged.append((shift, mask, target))
    return tuple(merged)


def _rearrange(fps: np.ndarray, moves: Iterable[tuple[int, int, int]]) -> np.ndarray:
    """Move each block of bits from its source shift to its target shift."""
    out = np.zeros_like(fps)
    part = np.empty_like(fps)
    for shift, mask, target in moves:
        np.right_shift(fps, np.uint64(shift), out=part)
        np.bitwise_and(part, np.uint64(mask), out=part)
        np.left_shift(part, np.uint64(target), out=part)
        np.bitwise_or(out, part, out=out)
    return out
