"""The whole dedup: exact pass, sign, band, verify, cluster, keep one per cluster."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import xxhash

from .clusters import KEEPER_POLICIES, UnionFind, choose_keepers
from .lsh import _check_banding, candidate_pair_array, optimal_params
from .minhash import MinHasher, estimate_jaccard
from .text import char_shingles, jaccard, normalize, word_shingles

__all__ = ["DedupResult", "dedup", "exact_groups"]

SHINGLERS = {"word": word_shingles, "char": char_shingles}
VERIFIERS = ("exact", "estimate", "none")


@dataclass
class DedupResult:
    """What :func:`dedup` found.

    ``pairs``: verified near-duplicate pairs ``(i, j)``, ``i < j``; an exact
    copy appears as the pair (first copy, this copy).
    ``clusters``: sorted lists of indices, every document in exactly one.
    ``keepers``: one index per cluster, in cluster order.
    ``stats``: per stage, counts and seconds.
    """

    pairs: list[tuple[int, int]]
    clusters: list[list[int]]
    keepers: list[int]
    stats: dict[str, dict[str, float]] = field(default_factory=dict)
    params: dict = field(default_factory=dict)

    @property
    def removed(self) -> list[int]:
        """Indices of documents that are not keepers, sorted."""
        keep = set(self.keepers)
        return sorted(i for c in self.clusters for i in c if i not in keep)


def exact_groups(docs: Sequence[str]) -> list[int]:
    """For each document, the index of the first document with the same normalised text.

    >>> exact_groups(["Rain today.", "rain   TODAY", "Sun"])
    [0, 0, 2]
    """
    first: dict[bytes, int] = {}
    return [
        first.setdefault(xxhash.xxh3_128_digest(normalize(d).encode("utf-8", "surrogatepass")), i)
        for i, d in enumerate(docs)
    ]


def _check_docs(docs: Sequence[str]) -> None:
    if isinstance(docs, (str, bytes)):
        raise TypeError(
            f"dedup needs a sequence of documents, got a single {type(docs).__name__}; wrap it in a list"
        )
    for i, doc in enumerate(docs):
        if not isinstance(doc, str):
            raise TypeError(f"document {i} is {type(doc).__name__}, not str: {doc!r:.60}")


class _Clock:
    def __init__(self) -> None:
        self.stats: dict[str, dict[str, float]] = {}
        self._start = time.perf_counter()

    def lap(self, stage: str, **counts: float) -> None:
        now = time.perf_counter()
        self.stats[stage] = {**counts, "seconds": now - self._start}
        self._start = now


def dedup(
    docs: Sequence[str],
    threshold: float = 0.8,
    num_perm: int = 128,
    k: int = 5,
    *,
    shingle: str = "word",
    bands: int | None = None,
    rows: int | None = None,
    scheme: str = "multiply-shift",
    seed: int = 1,
    verify: str = "exact",
    keeper: str = "first",
) -> DedupResult:
    """Find near-duplicate documents and keep one per cluster.

    Stages: documents equal after :func:`normalize` are grouped by an exact
    hash; one representative of each group is shingled and signed; banding
    proposes candidate pairs; ``verify="exact"`` keeps candidates whose exact
    Jaccard is at least ``threshold`` (``"estimate"`` uses the signatures,
    ``"none"`` keeps every candidate); union-find joins pairs into clusters.
    ``bands``/``rows`` default to :func:`optimal_params` for the threshold.

    >>> docs = ["the heavy rain closed schools in the coastal district today",
    ...         "The heavy rain closed schools in the coastal district today!",
    ...         "the heavy rain closed schools in the coastal district on monday",
    ...         "a new bridge opened over the river"]
    >>> result = dedup(docs, threshold=0.5, k=3)
    >>> result.clusters, result.keepers
    ([[0, 1, 2], [3]], [0, 3])
    """
    _check_docs(docs)
    if not isinstance(threshold, (int, float)) or not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")
    if shingle not in SHINGLERS:
        raise ValueError(f"shingle must be one of {sorted(SHINGLERS)}, got {shingle!r}")
    if verify not in VERIFIERS:
        raise ValueError(f"verify must be one of {VERIFIERS}, got {verify!r}")
    hasher = MinHasher(num_perm=num_perm, seed=seed, scheme=scheme)
    if bands is None and rows is None:
        bands, rows = optimal_params(min(threshold, 0.99), num_perm)
    elif bands is None or rows is None:
        raise ValueError("give both bands and rows, or neither to use optimal_params")
    bands, rows = _check_banding(bands, rows, num_perm)
    if keeper not in KEEPER_POLICIES:
        raise ValueError(f"unknown keeper policy {keeper!r}; choose one of {KEEPER_POLICIES}")
    clock = _Clock()

    first = exact_groups(docs)
    reps = [i for i, f in enumerate(first) if f == i]
    clock.lap("exact", documents=len(docs), unique=len(reps), copies=len(docs) - len(reps))

    shingler = SHINGLERS[shingle]
    sets = [shingler(docs[i], k) for i in reps]
    signatures = hasher.signatures(sets)
    clock.lap("signatures", signed=len(reps))

    candidates = candidate_pair_array(signatures, bands, rows)
    clock.lap("candidates", pairs=len(candidates))

    if verify == "exact":
        keep = np.array([jaccard(sets[a], sets[b]) >= threshold for a, b in candidates], dtype=bool)
    elif verify == "estimate":
        keep = (
            (estimate_jaccard(signatures[candidates[:, 0]], signatures[candidates[:, 1]]) >= threshold)
            if len(candidates)
            else np.zeros(0, dtype=bool)
        )
    else:
        keep = np.ones(len(candidates), dtype=bool)
    rep_index = np.asarray(reps, dtype=np.int64)
    verified = rep_index[candidates[keep]] if len(candidates) else np.empty((0, 2), dtype=np.int64)
    clock.lap("verified", pairs=len(verified))

    copy_pairs = [(f, i) for i, f in enumerate(first) if f != i]
    pairs = sorted(copy_pairs + [(int(a), int(b)) for a, b in verified])
    uf = UnionFind(len(docs))
    for a, b in pairs:
        uf.union(a, b)
    clusters = uf.groups()
    keepers = choose_keepers(clusters, keeper, lengths=[len(d) for d in docs])
    clock.lap("clusters", clusters=len(clusters), kept=len(keepers), removed=len(docs) - len(keepers))

    params = {
        "threshold": threshold,
        "num_perm": num_perm,
        "k": k,
        "shingle": shingle,
        "bands": bands,
        "rows": rows,
        "verify": verify,
        "keeper": keeper,
        **hasher.params,
    }
    return DedupResult(pairs=pairs, clusters=clusters, keepers=keepers, stats=clock.stats, params=params)
