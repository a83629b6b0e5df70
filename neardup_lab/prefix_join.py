"""Exact similarity joins with prefix, length and position filtering, no hashing.

Every pair of sets with Jaccard similarity at least ``t``, without comparing every pair and
without missing one (Leskovec, Rajaraman and Ullman, *Mining of Massive Datasets*, 3.9). For a
pair ``x``, ``y`` with ``|y| <= |x|`` and ``J(x, y) >= t``:

- **length filter**: ``|y| >= t |x|`` (the intersection is at most ``|y|``, the union at least ``|x|``);
- **prefix filter**: they share at least ``ceil(t |x|)`` tokens, so with every set sorted by one
  global order (rarest first keeps the lists short), the first ``|x| - ceil(t |x|) + 1`` tokens of
  each, its *prefix*, share one (Chaudhuri, Ganti and Kaushik 2006; Bayardo, Ma and Srikant 2007);
- **position filter** (optional): they need ``ceil(t / (1 + t) (|x| + |y|))`` shared tokens, and
  when their prefixes meet at position ``i`` of ``x`` and ``j`` of ``y``, at most
  ``min(|x| - i, |y| - j) - 1`` more can follow (Xiao et al. 2008).

An inverted index on prefixes proposes candidates and an exact comparison verifies them: exactly
the pairs of :func:`~neardup_lab.evaluate.brute_force_pairs`.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence, Set
from itertools import chain

from .support.validate import number_between

__all__ = ["prefix_length", "prefix_candidates", "prefix_join"]

Pair = tuple[int, int]

# Filters must never drop a pair that the float check ``inter / union >= t`` accepts:
# shrinking t by a relative hair makes them a little generous instead of a little strict.
_SLACK = 1 - 1e-12


def prefix_length(size: int, threshold: float) -> int:
    """How many of a set's first tokens (in the global order) must be indexed and probed.

    A set of ``size`` tokens shares at least ``ceil(t * size)`` tokens with any set at
    least as small that reaches Jaccard ``t``, so ``size - ceil(t * size) + 1`` of its
    first tokens always include one of them.

    >>> prefix_length(10, 0.8), prefix_length(10, 1.0), prefix_length(0, 0.5)
    (3, 1, 0)
    """
    if size == 0:
        return 0
    return size - math.ceil(threshold * size * _SLACK) + 1


def prefix_candidates(shingle_sets: Sequence[Set], threshold: float, positions: bool = False) -> set[Pair]:
    """Pairs ``(i, j)``, ``i < j``, whose sizes and prefixes allow Jaccard >= ``threshold``.

    Tokens (all of one comparable type, such as str) are ordered rarest first, ties by
    value; sets are visited from the smallest up, each probing the inverted index of the
    prefixes visited before it. With ``positions``, a pair is also dropped as soon as the
    tokens its prefixes share so far, plus those left after the positions where they meet,
    cannot reach the overlap the threshold needs (position filtering).
    Every pair of non-empty sets that reaches the threshold is among the candidates.

    >>> sorted(prefix_candidates([{"a", "b"}, {"a", "b", "c"}, {"x", "y"}], 0.6))
    [(0, 1)]
    >>> sets = [{"b", "e", "h"}, {"e", "f", "h"}, {"c", "d", "e"}]  # prefixes meet at "h", second of 3
    >>> prefix_candidates(sets, 0.6), prefix_candidates(sets, 0.6, positions=True)  # 3 shared needed
    ({(0, 1)}, set())
    """
    threshold = number_between(threshold, "threshold", 0, 1)
    if isinstance(shingle_sets, (str, bytes)) or any(not isinstance(s, Set) for s in shingle_sets):
        raise TypeError("prefix_join needs a sequence of shingle sets, one per document")
    counts = Counter(chain.from_iterable(shingle_sets))
    # Ties broken by the token itself, not by set order, which varies between processes.
    by_rarity = sorted(counts, key=lambda token: (counts[token], token))
    rank: dict[Hashable, int] = {token: n for n, token in enumerate(by_rarity)}
    order = sorted(range(len(shingle_sets)), key=lambda d: (len(shingle_sets[d]), d))
    index: defaultdict[Hashable, list[tuple[int, int]]] = defaultdict(list)  # token -> (set, position)
    candidates: set[Pair] = set()
    for d in order:
        size = len(shingle_sets[d])
        prefix = sorted(shingle_sets[d], key=rank.__getitem__)[: prefix_length(size, threshold)]
        shortest = threshold * size * _SLACK  # length filter: smaller partners need this many
        shared: dict[int, int] = {}  # partner -> prefix tokens shared so far; -1 once ruled out
        for i, token in enumerate(prefix):
            for other, j in index[token]:
                other_size = len(shingle_sets[other])
                if other_size < shortest or shared.get(other, 0) < 0:
                    continue
                seen = shared.get(other, 0) + 1
                if positions:
                    needed = math.ceil(threshold / (1 + threshold) * (size + other_size) * _SLACK)
                    if seen + min(size - i, other_size - j) - 1 < needed:
                        seen = -1
                shared[other] = seen
            index[token].append((d, i))
        candidates.update((o, d) if o < d else (d, o) for o, seen in shared.items() if seen > 0)
    return candidates


def prefix_join(shingle_sets: Sequence[Set], threshold: float, positions: bool = False) -> dict[Pair, float]:
    """Every pair ``(i, j)``, ``i < j``, with exact Jaccard >= ``threshold``: an exact join.

    The candidates of :func:`prefix_candidates` (``positions``: with position filtering),
    verified exactly. The answer, values
    included, is that of :func:`~neardup_lab.evaluate.brute_force_pairs`; two empty
    sets count as identical (Jaccard 1), as there.

    >>> prefix_join([{"a", "b"}, {"a", "b", "c"}, {"x"}], threshold=0.5)
    {(0, 1): 0.6666666666666666}
    """
    found = {}
    for i, j in prefix_candidates(shingle_sets, threshold, positions):
        shared = len(shingle_sets[i] & shingle_sets[j])
        similarity = shared / (len(shingle_sets[i]) + len(shingle_sets[j]) - shared)
        if similarity >= threshold:
            found[i, j] = similarity
    empty = [d for d, s in enumerate(shingle_sets) if not s]
    found.update({(a, b): 1.0 for n, a in enumerate(empty) for b in empty[n + 1 :]})
    return dict(sorted(found.items()))
