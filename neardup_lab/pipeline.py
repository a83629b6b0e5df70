"""The whole dedup: exact pass, sign, band, verify, cluster, keep one per cluster."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import repeat

import numpy as np
import xxhash
from tqdm import tqdm

from .clusters import KEEPER_POLICIES, choose_keepers, clusters_from_pair_array
from .fastpath import hash_token_lists, ngram_ids
from .hashing import hash_shingles
from .lsh import _check_banding, candidate_pair_array, optimal_params
from .minhash import MinHasher, _check_bits, bbit_signatures, estimate_jaccard, estimate_jaccard_bbit
from .text import _separator_table, _tokens, char_shingles, normalize

__all__ = ["DedupResult", "dedup", "exact_groups", "RECALL_WEIGHTS"]

SHINGLE_KINDS = ("word", "char")
VERIFIERS = ("exact", "estimate", "none")
_CHUNK = 2000  # documents per unit of work
#: Default (false positive, false negative) weights for choosing bands and rows. Every
#: candidate is verified, so a false positive costs only a check while a false negative
#: loses a duplicate for good: the default bends the S-curve below the threshold.
RECALL_WEIGHTS = (0.05, 0.95)


@dataclass
class DedupResult:
    """What :func:`dedup` found.

    ``pairs``: verified near-duplicate pairs ``(i, j)``, ``i < j``; an exact
    copy appears as the pair (first copy, this copy).
    ``clusters``: sorted lists of indices, every document in exactly one.
    ``keepers``: one index per cluster, in cluster order.
    ``stats``: per stage, counts and seconds.
    ``params``: every setting that shaped the result.
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


def _exact_key(normalized: str) -> bytes:
    return xxhash.xxh3_128_digest(normalized.encode("utf-8", "surrogatepass"))


def exact_groups(docs: Sequence[str]) -> list[int]:
    """For each document, the index of the first document with the same normalised text.

    >>> exact_groups(["Rain today.", "rain   TODAY", "Sun"])
    [0, 0, 2]
    """
    first: dict[bytes, int] = {}
    return [first.setdefault(_exact_key(normalize(d)), i) for i, d in enumerate(docs)]


@dataclass
class _Prepared:
    """Per-document results of the parallel stage, for one chunk of documents."""

    keys: list[bytes]
    ids: np.ndarray  # shingle ids, all documents concatenated (repeats possible)
    counts: np.ndarray  # ids per document
    signatures: np.ndarray


def _prepare(docs: Sequence[str], k: int, shingle: str, hasher_params: dict) -> _Prepared:
    """Exact keys, shingle ids and signatures of a chunk of documents."""
    hasher = MinHasher(**hasher_params)
    tokens = [_tokens(d) for d in docs]
    keys = [_exact_key(" ".join(t)) for t in tokens]
    if shingle == "word":
        ids, id_counts = ngram_ids(*hash_token_lists(tokens), k)
    else:
        per_doc = [hash_shingles(char_shingles(" ".join(t), k)) for t in tokens]
        id_counts = np.fromiter(map(len, per_doc), dtype=np.int64, count=len(per_doc))
        ids = np.concatenate(per_doc) if per_doc else np.empty(0, dtype=np.uint64)
    return _Prepared(keys, ids, id_counts, hasher.signatures_flat(ids, id_counts))


def _prepare_all(
    docs: Sequence[str], k: int, shingle: str, hasher: MinHasher, n_jobs: int, progress: bool
) -> _Prepared:
    chunks = [docs[i : i + _CHUNK] for i in range(0, len(docs), _CHUNK)]
    bar = tqdm(total=len(docs), desc="signing", unit="doc", disable=not progress)
    parts: list[_Prepared] = []
    _separator_table()  # build the Unicode table once here, so forked workers inherit it
    if n_jobs == 1 or len(chunks) <= 1:
        for chunk in chunks:
            parts.append(_prepare(chunk, k, shingle, hasher.params))
            bar.update(len(chunk))
    else:
        with ProcessPoolExecutor(max_workers=n_jobs) as pool:
            results = pool.map(_prepare, chunks, repeat(k), repeat(shingle), repeat(hasher.params))
            for chunk, part in zip(chunks, results):
                parts.append(part)
                bar.update(len(chunk))
    bar.close()
    return _join(parts, hasher)


def _join(parts: list[_Prepared], hasher: MinHasher) -> _Prepared:
    """Concatenate chunk results, releasing each chunk once copied (peak: total + one chunk)."""
    n_docs = sum(len(p.keys) for p in parts)
    joined = _Prepared(
        keys=[],
        ids=np.empty(sum(len(p.ids) for p in parts), dtype=np.uint64),
        counts=np.empty(n_docs, dtype=np.int64),
        signatures=np.empty((n_docs, hasher.num_perm), dtype=hasher.dtype),
    )
    at_id = at_doc = 0
    parts.reverse()  # pop from the end: the original order, without shifting the list
    while parts:
        part = parts.pop()
        joined.keys.extend(part.keys)
        joined.ids[at_id : at_id + len(part.ids)] = part.ids
        joined.counts[at_doc : at_doc + len(part.keys)] = part.counts
        joined.signatures[at_doc : at_doc + len(part.keys)] = part.signatures
        at_id, at_doc = at_id + len(part.ids), at_doc + len(part.keys)
    return joined


def _exact_jaccard(pairs: np.ndarray, ids: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Exact Jaccard of each pair of documents, from their (repeated) shingle ids."""
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    distinct: dict[int, np.ndarray] = {}

    def shingles_of(doc: int) -> np.ndarray:
        if doc not in distinct:
            distinct[doc] = np.unique(ids[starts[doc] : starts[doc] + counts[doc]])
        return distinct[doc]

    out = np.empty(len(pairs))
    for n, (a, b) in enumerate(pairs.tolist()):
        sa, sb = shingles_of(a), shingles_of(b)
        found = np.searchsorted(sa, sb)  # both sorted and distinct
        inter = int(np.count_nonzero(sa[np.minimum(found, len(sa) - 1)] == sb)) if len(sa) else 0
        union = len(sa) + len(sb) - inter
        out[n] = inter / union if union else 1.0
    return out


def _check_docs(docs: Sequence[str]) -> None:
    if isinstance(docs, (str, bytes)):
        raise TypeError(
            f"dedup needs a sequence of documents, got a single {type(docs).__name__}; wrap it in a list"
        )
    for i, doc in enumerate(docs):
        if not isinstance(doc, str):
            raise TypeError(f"document {i} is {type(doc).__name__}, not str: {doc!r:.60}")


def _check_jobs(n_jobs: object) -> int:
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs must be a positive int or -1 (all cores), got {n_jobs!r}")
    return os.cpu_count() or 1 if n_jobs == -1 else n_jobs


class _Clock:
    def __init__(self) -> None:
        self.stats: dict[str, dict[str, float]] = {}
        self._start = time.perf_counter()

    def lap(self, stage: str, **counts: float) -> None:
        now = time.perf_counter()
        self.stats[stage] = {**counts, "seconds": now - self._start}
        self._start = now


def check_settings(
    threshold: float,
    num_perm: int,
    shingle: str,
    bands: int | None,
    rows: int | None,
    scheme: str,
    seed: int,
    verify: str,
    keeper: str,
    bbits: int | None,
) -> tuple[MinHasher, int, int]:
    """Validate :func:`dedup`'s settings; return the hasher and the banding to use.

    Shared by every implementation of the pipeline so they refuse the same
    settings with the same messages and choose the same default banding.

    >>> hasher, bands, rows = check_settings(0.8, 128, "word", None, None, "multiply-shift", 1,
    ...                                      "exact", "first", None)
    >>> (bands, rows)
    (16, 8)
    """
    if not isinstance(threshold, (int, float)) or not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")
    if shingle not in SHINGLE_KINDS:
        raise ValueError(f"shingle must be one of {SHINGLE_KINDS}, got {shingle!r}")
    if verify not in VERIFIERS:
        raise ValueError(f"verify must be one of {VERIFIERS}, got {verify!r}")
    if keeper not in KEEPER_POLICIES:
        raise ValueError(f"unknown keeper policy {keeper!r}; choose one of {KEEPER_POLICIES}")
    hasher = MinHasher(num_perm=num_perm, seed=seed, scheme=scheme)
    if bands is None and rows is None:
        bands, rows = optimal_params(min(threshold, 0.99), num_perm, *RECALL_WEIGHTS)
    elif bands is None or rows is None:
        raise ValueError("give both bands and rows, or neither to use optimal_params")
    bands, rows = _check_banding(bands, rows, num_perm)
    if bbits is not None and _check_bits(bbits) < 8:
        raise ValueError(
            f"bbits={bbits} is too few for banding: with {rows} rows a band of unrelated documents "
            f"matches by chance with probability 2**-{bbits * rows}; use bbits >= 8"
        )
    return hasher, bands, rows


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
    n_jobs: int = 1,
    progress: bool | None = None,
    bbits: int | None = None,
) -> DedupResult:
    """Find near-duplicate documents and keep one per cluster.

    Stages: every document is normalised, given an exact-copy key, shingled
    (word or char ``k``-shingles, as ids) and signed, in ``n_jobs`` processes
    (-1: all cores; the answer does not depend on it). Documents equal after
    :func:`~neardup_lab.text.normalize` are grouped by their key and one representative of each
    group goes on; banding proposes candidate pairs; ``verify="exact"`` keeps
    candidates whose exact Jaccard is at least ``threshold`` (``"estimate"``
    uses the signatures, ``"none"`` keeps every candidate); connected
    components of the pairs are the clusters. ``bands``/``rows`` default to
    :func:`~neardup_lab.lsh.optimal_params` weighted by :data:`RECALL_WEIGHTS`
    (for 0.8 and 128 permutations: 16 bands of 8 rows). ``progress`` shows a bar (default: only when
    standard error is a terminal). ``bbits`` keeps only that many low bits of
    each signature value (b-bit MinHash) for banding and estimates.

    >>> docs = ["the heavy rain closed schools in the coastal district today",
    ...         "The heavy rain closed schools in the coastal district today!",
    ...         "the heavy rain closed schools in the coastal district on monday",
    ...         "a new bridge opened over the river"]
    >>> result = dedup(docs, threshold=0.5, k=3)
    >>> result.clusters, result.keepers
    ([[0, 1, 2], [3]], [0, 3])
    """
    _check_docs(docs)
    jobs = _check_jobs(n_jobs)
    hasher, bands, rows = check_settings(
        threshold, num_perm, shingle, bands, rows, scheme, seed, verify, keeper, bbits
    )
    show = sys.stderr.isatty() if progress is None else progress
    # Signing runs first (it also computes the exact-copy keys) but is reported after the
    # exact pass, in the order the stages are taught.
    started = time.perf_counter()
    prepared = _prepare_all(docs, k, shingle, hasher, jobs, show)
    signing = {"signed": len(docs), "seconds": time.perf_counter() - started}
    clock = _Clock()

    first: dict[bytes, int] = {}
    group_of = np.fromiter(
        (first.setdefault(key, i) for i, key in enumerate(prepared.keys)), dtype=np.int64, count=len(docs)
    )
    reps = np.flatnonzero(group_of == np.arange(len(docs)))
    clock.lap("exact", documents=len(docs), unique=len(reps), copies=len(docs) - len(reps))
    clock.stats["signatures"] = signing

    if bbits is not None:
        prepared.signatures = bbit_signatures(prepared.signatures, bbits)
    candidates = reps[candidate_pair_array(prepared.signatures[reps], bands, rows)]
    clock.lap("candidates", pairs=len(candidates))

    if verify == "exact":
        keep = _exact_jaccard(candidates, prepared.ids, prepared.counts) >= threshold
    elif verify == "estimate":
        sigs = prepared.signatures
        left, right = sigs[candidates[:, 0]], sigs[candidates[:, 1]]
        estimates = (
            estimate_jaccard(left, right) if bbits is None else estimate_jaccard_bbit(left, right, bbits)
        )
        keep = estimates >= threshold
    else:
        keep = np.ones(len(candidates), dtype=bool)
    verified = candidates[np.asarray(keep, dtype=bool)] if len(candidates) else candidates
    clock.lap("verified", pairs=len(verified))

    copies = np.flatnonzero(group_of != np.arange(len(docs)))
    all_pairs = np.concatenate([np.stack([group_of[copies], copies], axis=1), verified]).astype(np.int64)
    all_pairs = all_pairs[np.lexsort((all_pairs[:, 1], all_pairs[:, 0]))]
    clusters = clusters_from_pair_array(len(docs), all_pairs)
    keepers = choose_keepers(
        clusters, keeper, lengths=[len(d) for d in docs] if keeper == "longest" else None
    )
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
        "bbits": bbits,
        **hasher.params,
    }
    return DedupResult(
        pairs=[(int(a), int(b)) for a, b in all_pairs.tolist()],
        clusters=clusters,
        keepers=keepers,
        stats=clock.stats,
        params=params,
    )
