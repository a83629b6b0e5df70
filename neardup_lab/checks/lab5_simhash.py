"""Checks for Lab 5: SimHash and Hamming search with block tables."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from itertools import accumulate
from typing import Any

from ..hashing import stable_hash
from ..simhash import hamming, simhash
from ..simhash_index import BlockIndex, block_layout
from ..text import words
from .harness import Case, CheckResult, as_set, call_on_copies, run_check, sample_article


def check_hamming(func: Callable[[int, int], int]) -> CheckResult:
    """Check a ``hamming(x, y) -> int``: the number of bit positions where ``x`` and ``y`` differ.

    >>> check_hamming(hamming).passed
    PASS check_hamming: all 7 cases pass
    True
    """
    xor = "The bits that differ are the 1 bits of the two numbers' XOR: count those."
    hand = [
        ("equal numbers", 0b1011, 0b1011, 0, xor),
        ("two bits differ", 0b1011, 0b0010, 2, xor),
        ("both zero", 0, 0, 0, xor),
        ("all 64 bits differ", 2**64 - 1, 0, 64, "Count all 64 bits, not only the low 32."),
        ("only the top bit differs", 2**63, 0, 1, "Count all 64 bits, not only the low 32."),
        (
            "bits set in both do not count",
            0b1100,
            0b0110,
            2,
            "Bits that are 1 in both agree: use XOR, not OR.",
        ),
    ]
    cases = [
        Case(name, f"x={x:#b}, y={y:#b}", call_on_copies(func, x, y), expected, hint=hint)
        for name, x, y, expected, hint in hand
    ]
    x, y = stable_hash("storm"), stable_hash("flood")
    cases.append(
        Case("two 64-bit hashes", f"x={x:#x}, y={y:#x}", call_on_copies(func, x, y), hamming(x, y), hint=xor)
    )
    return run_check("check_hamming", func, cases)


def hamming_case(func: Callable[[int, int], int], seed: int) -> Case:
    """A random case of :func:`check_hamming`: two random numbers of up to 64 bits.

    >>> hamming_case(hamming, 1).expected == hamming(*hamming_case(hamming, 1).call.args)
    True
    """
    rng = random.Random(seed)
    bits = rng.choice((8, 16, 32, 64))
    x, y = rng.getrandbits(bits), rng.getrandbits(bits)
    return Case(
        f"two random {bits}-bit numbers (seed {seed})",
        f"x={x:#x}, y={y:#x}",
        call_on_copies(func, x, y),
        hamming(x, y),
        hint="The bits that differ are the 1 bits of the two numbers' XOR: count those.",
    )


def check_simhash(func: Callable[..., int]) -> CheckResult:
    """Check a ``simhash(features, bits=64) -> int`` built on ``stable_hash``.

    Each feature's hash votes +1 on its 1 bits and -1 on its 0 bits (repeats
    vote again); bit ``i`` of the fingerprint is 1 where the vote is positive.
    A tie gives 0. No features is an error.

    >>> check_simhash(simhash).passed
    PASS check_simhash: all 9 cases pass
    True
    """
    rain, sun = stable_hash("rain"), stable_hash("sun")
    votes = (
        "For bit i, add +1 for each feature whose hash has bit i set and -1 otherwise; "
        "set bit i if the sum is > 0."
    )
    stable = (
        "Hash features with stable_hash(feature), never the built-in hash(), which changes every process."
    )
    hand = [
        (
            "one feature",
            ["rain"],
            {},
            rain,
            "With one feature every vote is its own bit: the fingerprint is its hash. " + stable,
        ),
        (
            "repeats vote again",
            ["rain", "rain", "sun"],
            {},
            rain,
            "'rain' twice outvotes 'sun' once on every bit: do not turn the features into a set.",
        ),
        (
            "a tie gives 0",
            ["rain", "sun"],
            {},
            rain & sun,
            "Where the two hashes disagree the vote is 0: only a positive vote sets the bit.",
        ),
        (
            "16 bits",
            ["rain"],
            {"bits": 16},
            rain & 0xFFFF,
            "With bits=16 the fingerprint has 16 bits: vote on bit positions 0 to bits - 1 only.",
        ),
    ]
    cases = [
        Case(
            name,
            f"features={features!r}" + "".join(f", {k}={v}" for k, v in kw.items()),
            call_on_copies(func, features, **kw),
            expected,
            hint=hint,
        )
        for name, features, kw, expected, hint in hand
    ]
    for seed, bits in ((71, 64), (72, 64), (73, 8)):
        feats = words(sample_article(seed, 50))
        cases.append(
            Case(
                f"words of an article, {bits} bits",
                f"features=words(make_article(seed={seed}, n_words=50)), bits={bits}",
                call_on_copies(func, feats, bits=bits),
                simhash(feats, bits=bits),
                hint=votes,
            )
        )
    cases.append(
        Case(
            "a single repeated word",
            "features=['flood'] * 3",
            call_on_copies(func, ["flood"] * 3),
            stable_hash("flood"),
            hint=votes,
        )
    )
    cases.append(
        Case(
            "no features",
            "features=[]",
            call_on_copies(func, []),
            raises=ValueError,
            hint="A fingerprint of nothing means nothing: raise ValueError.",
        )
    )
    return run_check("check_simhash", func, cases)


def simhash_case(func: Callable[..., int], seed: int) -> Case:
    """A random case of :func:`check_simhash`: the words of another article, 8 to 64 bits.

    >>> simhash_case(simhash, 3).name
    'words of an article (seed 3), 32 bits'
    """
    bits = (8, 16, 24, 32, 64)[seed % 5]
    feats = words(sample_article(seed, 20 + seed % 60))
    return Case(
        f"words of an article (seed {seed}), {bits} bits",
        f"features=words(make_article(seed={seed}, n_words={20 + seed % 60})), bits={bits}",
        call_on_copies(func, feats, bits=bits),
        simhash(feats, bits=bits),
        hint="For each bit position, add 1 when a feature's hash has the bit set and subtract 1 "
        "otherwise; the fingerprint has a 1 where the total is positive.",
    )


def _flip(fingerprint: int, positions: Iterable[int]) -> int:
    for p in positions:
        fingerprint ^= 1 << p
    return fingerprint


def _layouts(bits: int, max_distance: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """``(first bit, width)`` of each block of :class:`~neardup_lab.simhash_index.BlockIndex`'s
    pigeonhole layout (wider blocks highest), and of its mirror image (wider blocks lowest)."""
    widths = block_layout(max_distance, bits=bits).block_widths
    low = list(zip(accumulate(widths, initial=0), widths))
    return [(bits - start - width, width) for start, width in low], low


def _near(fingerprint: int, bits: int, max_distance: int, rng: random.Random) -> list[tuple[int, int]]:
    """Planted neighbours of ``fingerprint``: ``(distance, fingerprint)`` up to ``max_distance + 2``.

    Among them, for every block, one at exactly ``max_distance`` that agrees with
    ``fingerprint`` in that block only (one flipped bit in each other block).
    """
    out = []
    for distance in range(max_distance + 3):
        for _ in range(3):
            out.append((distance, _flip(fingerprint, rng.sample(range(bits), distance))))
    spans = _layouts(bits, max_distance)[1]
    for keep in range(len(spans)):
        flips = [start + rng.randrange(width) for b, (start, width) in enumerate(spans) if b != keep]
        out.append((len(flips), _flip(fingerprint, flips)))
    # Many flips inside one block: every other block matches, so it is a candidate, but too far.
    start, width = spans[0]
    if width > max_distance + 1:
        out.append(
            (max_distance + 1, _flip(fingerprint, rng.sample(range(start, start + width), max_distance + 1)))
        )
    return out


def _index_case(
    cls: type, max_distance: int, bits: int, n_random: int, n_queries: int, seed: int, keys: str = "int"
) -> Callable[[], Any]:
    """Build an index, query it; return (wrong answers, candidate counts, n) for the judge."""

    def run() -> tuple[list[str], list[int], int]:
        rng = random.Random(seed)
        stored: dict[Any, int] = {}
        queries = [rng.getrandbits(bits) for _ in range(n_queries)]
        for fp in queries:
            for _, near in _near(fp, bits, max_distance, rng):
                stored[len(stored)] = near
        for _ in range(n_random):
            stored[len(stored)] = rng.getrandbits(bits)
        if keys == "str":
            stored = {f"doc-{k}": v for k, v in stored.items()}
        index = cls(max_distance, bits=bits) if bits != 64 else cls(max_distance)
        for key, fp in stored.items():
            index.add(key, fp)
        problems, counts = [], []
        truth = _BlockTables(stored, _layouts(bits, max_distance))
        for fp in queries:
            want = {k for k, v in stored.items() if bin(fp ^ v).count("1") <= max_distance}
            try:
                got = as_set(index.query(fp), "a set of keys from query()")
                cands = as_set(index.candidates(fp), "a set of keys from candidates()")
            except ValueError as exc:
                return [str(exc)], [], len(stored)
            counts.append(len(cands))
            wrong = cands - truth.keys(fp)
            if wrong:
                k = sorted(wrong, key=str)[0]
                problems.append(
                    f"candidates({fp:#x}) returns {len(wrong)} keys that agree with it on no whole block, "
                    f"e.g. key {k!r} ({stored[k]:#x})"
                )
            if got != want:
                missed, extra = want - got, got - want
                if missed:
                    k = sorted(missed, key=str)[0]
                    problems.append(
                        f"query {fp:#x} missed {len(missed)} within distance {max_distance}, e.g. key {k!r} "
                        f"at distance {bin(fp ^ stored[k]).count('1')}"
                    )
                if extra:
                    k = sorted(extra, key=str)[0]
                    problems.append(
                        f"query {fp:#x} returned {len(extra)} farther than {max_distance}, e.g. key {k!r} at "
                        f"distance {bin(fp ^ stored[k]).count('1')}"
                    )
            elif not want <= cands:
                problems.append(f"query {fp:#x}: query() finds keys that candidates() does not return")
        return problems, counts, len(stored)

    return run


class _BlockTables:
    """Which stored keys agree with a fingerprint on a whole block of one of ``layouts``
    (a student's wider blocks may come first or last, so the check allows both)."""

    def __init__(self, stored: dict, layouts: Iterable[list[tuple[int, int]]]) -> None:
        self.masks = [(start, (1 << width) - 1) for layout in layouts for start, width in layout]
        self.tables: list[dict[int, set]] = [{} for _ in self.masks]
        for key, value in stored.items():
            for table, (start, mask) in zip(self.tables, self.masks):
                table.setdefault((value >> start) & mask, set()).add(key)

    def keys(self, fingerprint: int) -> set:
        found: set = set()
        for table, (start, mask) in zip(self.tables, self.masks):
            found |= table.get((fingerprint >> start) & mask, set())
        return found


def _index_judge(max_fraction: float | None = None) -> Callable[[Any], str | None]:
    def judge(got: Any) -> str | None:
        problems, counts, n = got
        if problems:
            return "; ".join(problems[:2]) + (f" (and {len(problems) - 2} more)" if len(problems) > 2 else "")
        if max_fraction is not None:
            mean = sum(counts) / len(counts)
            if mean > max_fraction * n:
                return (
                    f"candidates() returns {mean:.0f} keys per query on average out of {n}: that is close "
                    "to checking every key"
                )
        return None

    return judge


def check_block_index(cls: type) -> CheckResult:
    """Check a ``BlockIndex`` class for Hamming search with block tables.

    ``BlockIndex(max_distance, bits=64)`` splits fingerprints into
    ``max_distance + 1`` blocks; ``add(key, fingerprint)`` stores one;
    ``candidates(fingerprint)`` returns the keys that agree with it on at least
    one whole block; ``query(fingerprint)`` returns the keys within
    ``max_distance``. The answers are compared with a brute-force search.

    >>> check_block_index(_ReferenceBlockIndex).passed
    PASS check_block_index: all 7 cases pass
    True
    """
    pigeonhole = (
        "Split the bits into max_distance + 1 blocks and keep one table per block, and look up every "
        "block: d differing bits can spoil at most d blocks, so a neighbour within d agrees with the "
        "query on at least one whole block."
    )
    verify = (
        "Candidates share a block but may still be far away: keep only those with hamming <= max_distance."
    )

    def empty() -> Any:
        index = cls(3)
        return (set(index.query(12345)), set(index.candidates(12345)))

    offset = 0

    def other_block() -> Any:
        index = cls(1, bits=8)
        index.add("x", 0b0011_0000)
        return (set(index.candidates(0b0000_0011)), set(index.query(0b0000_0011)))

    cases = [
        Case(
            "a block value in another block is no match",
            "BlockIndex(1, bits=8); add('x', 0b0011_0000); candidates(0b0000_0011) and query(...)",
            other_block,
            shown_expected="(set(), set())",
            judge=lambda got: None if got == (set(), set()) else "",
            hint="The high block of 'x' holds the value the query has in its low block. A value counts "
            "only in its own block: how many tables do you keep, and which one does each block use?",
        ),
        Case(
            "an empty index",
            "BlockIndex(3); query(12345) with nothing added",
            empty,
            shown_expected="(set(), set())",
            judge=lambda got: None if got == (set(), set()) else "",
            hint="With nothing added, nothing can be found.",
        ),
        Case(
            "max_distance = 3",
            "BlockIndex(3): 300 random 64-bit fingerprints and 20 queries, each with "
            "planted neighbours at distances 0 to 5",
            _index_case(cls, 3, 64, 300, 20, seed=offset + 1),
            shown_expected="query() equal to a brute-force search",
            judge=_index_judge(),
            hint=pigeonhole,
        ),
        Case(
            "max_distance = 0 (exact match)",
            "BlockIndex(0): 200 random fingerprints and 10 queries",
            _index_case(cls, 0, 64, 200, 10, seed=offset + 2),
            shown_expected="query() equal to a brute-force search",
            judge=_index_judge(),
            hint="With max_distance 0 there is one block: the whole fingerprint.",
        ),
        Case(
            "16-bit fingerprints, max_distance = 2",
            "BlockIndex(2, bits=16): 100 random fingerprints, 10 queries",
            _index_case(cls, 2, 16, 100, 10, seed=offset + 3),
            shown_expected="query() equal to a brute-force search",
            judge=_index_judge(),
            hint="Use self.bits, not 64, when splitting.",
        ),
        Case(
            "string keys, max_distance = 5",
            "BlockIndex(5) with keys like 'doc-7'",
            _index_case(cls, 5, 64, 100, 10, seed=offset + 4, keys="str"),
            shown_expected="query() equal to a brute-force search",
            judge=_index_judge(),
            hint=verify,
        ),
        Case(
            "few candidates",
            "BlockIndex(3): 4000 random fingerprints, 30 random queries",
            _index_case(cls, 3, 64, 4000, 30, seed=offset + 5),
            shown_expected="on average under 5% of the keys as candidates per query",
            judge=_index_judge(0.05),
            hint="candidates() must only look up the query's own block values in the tables, not scan "
            "every stored key.",
        ),
    ]
    return run_check("check_block_index", cls, cases)


def block_index_case(cls: type, seed: int) -> Case:
    """A random case of :func:`check_block_index`: a distance, a width and random fingerprints.

    >>> block_index_case(_ReferenceBlockIndex, 2).name
    'BlockIndex(2, bits=64), seed 2'
    """
    max_distance, bits = seed % 6, (16, 32, 64)[seed % 3]
    return Case(
        f"BlockIndex({max_distance}, bits={bits}), seed {seed}",
        f"BlockIndex({max_distance}, bits={bits}): 150 random fingerprints, 8 queries with neighbours",
        _index_case(cls, max_distance, bits, 150, 8, seed=1000 + seed, keys=("int", "str")[seed % 2]),
        shown_expected="query() equal to a brute-force search",
        judge=_index_judge(),
        hint="Split the bits into max_distance + 1 blocks and keep one table per block, and look up every "
        "block; keep only the candidates within max_distance.",
    )


class _ReferenceBlockIndex:
    """The reference answer for :func:`check_block_index`: the package's
    :class:`~neardup_lab.simhash_index.BlockIndex` behind the lab's interface, built at the first lookup."""

    def __init__(self, max_distance: int, bits: int = 64) -> None:
        self.max_distance, self.bits = max_distance, bits
        self.fingerprints: dict[Any, int] = {}
        self._built: tuple[list, BlockIndex, _BlockTables] | None = None

    def add(self, key: Any, fingerprint: int) -> None:
        self.fingerprints[key], self._built = fingerprint, None

    def _lookup(self) -> tuple[list, BlockIndex, _BlockTables]:
        if self._built is None:
            index = BlockIndex(list(self.fingerprints.values()), self.max_distance, bits=self.bits)
            blocks = _BlockTables(self.fingerprints, _layouts(self.bits, self.max_distance)[:1])
            self._built = (list(self.fingerprints), index, blocks)
        return self._built

    def candidates(self, fingerprint: int) -> set:
        return self._lookup()[2].keys(fingerprint)

    def query(self, fingerprint: int) -> set:
        keys, index, _ = self._lookup()
        return {keys[i] for i in index.query(fingerprint).tolist()}
