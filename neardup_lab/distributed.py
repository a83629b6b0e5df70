"""The same dedup on a Dask cluster: map, shuffle, reduce.

:func:`dedup_dask` gives exactly the answer of :func:`~neardup_lab.pipeline.dedup`
(same pairs, clusters and keepers for the same parameters) on a corpus that is cut
into partitions: a dask bag, the partitions of a dask dataframe, or a list of files.
Every stage is a set of Dask tasks, one per input partition or per shuffle partition
(the ``Q`` groups a shuffle sorts its rows into; not to be confused with LSH buckets):

1. **sign** (map): each partition gets its exact-copy keys, shingle ids and
   signatures, computed by the same code as ``dedup``. They stay on the worker
   that computed them.
2. **exact** (shuffle by exact key): ``(key, id)`` rows go to shuffle
   partition ``key mod Q``; in each, the lowest id of a key is its representative,
   and each ``(representative, copy)`` pair goes back to the partition that
   holds the copy.
3. **candidates** (shuffle by band key): for each representative and band, a
   ``(band, band values, id)`` row goes to the shuffle partition of a hash of the band and
   its values; rows with equal values in the same band give candidate edges,
   which go to the partition holding their lower id, where repeats (the same
   pair found in several bands) are dropped.
4. **verified** (join, two shuffles): the partition of the lower id attaches
   that document's distinct shingle ids (``verify="exact"``, the default, as in
   ``dedup``) or its signature (``verify="estimate"``) and sends the edge to the
   partition of the higher id, which computes the similarity and keeps the edge
   when it reaches the threshold.
5. **clusters** (gather): the copy pairs and the verified edges, far fewer than
   the documents' shingles, are gathered on the client, which finds connected
   components with scipy and picks keepers exactly as ``dedup`` does.

No stage brings texts, shingles or signatures to the client. The client does
receive the result itself, which lists every document index once.

Global document ids are positions: partition offsets are counted after
signing, so document ``i`` is the ``i``-th document in partition order.

The shuffles are task shuffles written in Dask's task graph: each map task splits
its rows into ``Q`` pieces, each reduce task concatenates one piece from every map
task. That needs ``partitions * Q`` small tasks, fine for hundreds of
partitions; for many thousands a staged shuffle (dask dataframe's) would be needed.
"""

from __future__ import annotations

import os
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import dask
import dask.bag
import numpy as np
from dask.delayed import Delayed, delayed

from .clusters import choose_keepers, clusters_from_pair_array
from .lsh import band_hashes, candidate_pair_array
from .minhash import bbit_signatures, estimate_jaccard, estimate_jaccard_bbit
from .pipeline import DedupResult, prepare
from .readers import (
    DEFAULT_MAX_BYTES,
    Document,
    InputError,
    Problem,
    _check_inputs,
    detect_format,
    iter_records,
)
from .settings import Settings
from .verify import IdSets, distinct, jaccard_of_pairs

__all__ = ["dedup_dask", "read_bag", "band_partitions", "partition_offsets"]

_NO_EDGES = np.empty((0, 2), dtype=np.int64)


# ---------------------------------------------------------------------------
# Stage 1: read and sign one partition (runs on a worker)
# ---------------------------------------------------------------------------


@dataclass
class _Signed:
    """One partition after signing; it stays on the worker that made it."""

    keys: np.ndarray  # (n, 2) uint64: the 128-bit exact-copy key of each document
    sets: IdSets  # sorted distinct shingle ids of each document
    signatures: np.ndarray  # (n, num_perm), b-bit values when bbits is set
    lengths: np.ndarray  # (n,) characters per document, for keeper="longest"
    problems: int  # records the readers skipped (file inputs only)

    def __len__(self) -> int:
        return len(self.lengths)

    def distinct_ids(self, local: int) -> np.ndarray:
        """Sorted distinct shingle ids of the document at position ``local`` in this partition."""
        return self.sets.ids[self.sets.offsets[local] : self.sets.offsets[local + 1]]


def _texts(partition: Any, number: int, text_column: str) -> tuple[list[str], int]:
    """The texts of one partition (a list, a pandas Series or DataFrame), and skipped records."""
    if hasattr(partition, "columns"):  # a pandas DataFrame partition
        if text_column not in partition.columns:
            raise KeyError(
                f"partition {number} has no column {text_column!r} (columns: {list(partition.columns)}); "
                "pass text_column="
            )
        partition = partition[text_column]
    if hasattr(partition, "tolist"):  # a pandas Series partition
        partition = partition.tolist()
    texts: list[str] = []
    problems = 0
    for position, item in enumerate(partition):
        if isinstance(item, str):
            texts.append(item)
        elif isinstance(item, Document):
            texts.append(item.text)
        elif isinstance(item, Problem):
            problems += 1
        else:
            raise TypeError(
                f"document {position} of partition {number} is {type(item).__name__}, not str: {item!r:.60}"
            )
    return texts, problems


def _sign(partition: Any, number: int, text_column: str, settings: Settings) -> _Signed:
    texts, problems = _texts(partition, number, text_column)
    prepared = prepare(texts, settings)  # the code dedup runs on each chunk
    keys = np.frombuffer(b"".join(prepared.keys), dtype=np.uint64).reshape(-1, 2).copy()
    signatures = prepared.signatures
    if settings.bbits is not None:
        signatures = bbit_signatures(signatures, settings.bbits)
    return _Signed(
        keys=keys,
        sets=distinct(prepared.sets, np.arange(len(texts))),
        signatures=signatures,
        lengths=np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)),
        problems=problems,
    )


def _sizes(signed: _Signed) -> tuple[int, int]:
    return len(signed), signed.problems


# ---------------------------------------------------------------------------
# Shuffle plumbing: split rows into pieces, find the partition that holds an id
# ---------------------------------------------------------------------------


def _route(n_targets: int, target: np.ndarray, *columns: np.ndarray) -> list[tuple[np.ndarray, ...]]:
    """Split the rows of ``columns`` into ``n_targets`` groups by ``target``, keeping row order."""
    order = np.argsort(target, kind="stable")
    bounds = np.searchsorted(target[order], np.arange(n_targets + 1))
    return [tuple(col[order[a:b]] for col in columns) for a, b in zip(bounds[:-1], bounds[1:])]


def _home(offsets: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Index of the partition that holds each global document id."""
    return np.searchsorted(offsets, ids, side="right") - 1


def _nbytes(pieces: Sequence[tuple[np.ndarray, ...]]) -> int:
    return int(sum(col.nbytes for piece in pieces for col in piece))


def partition_offsets(sizes: Sequence[int]) -> np.ndarray:
    """Global id of the first document of each partition, and the total at the end.

    Document ``j`` of partition ``p`` gets the global id ``offsets[p] + j``.

    >>> partition_offsets([3, 0, 2]).tolist()
    [0, 3, 3, 5]
    """
    return np.concatenate(([0], np.cumsum(np.asarray(sizes, dtype=np.int64)))).astype(np.int64)


# ---------------------------------------------------------------------------
# Stage 2: exact copies, shuffled by exact key
# ---------------------------------------------------------------------------


def _exact_split(signed: _Signed, offset: int, targets: int) -> tuple:
    ids = offset + np.arange(len(signed), dtype=np.int64)
    target = (signed.keys[:, 0] % np.uint64(targets)).astype(np.int64)
    pieces = _route(targets, target, signed.keys, ids)
    return (*pieces, {"bytes": _nbytes(pieces), "rows": len(ids)})


def _exact_reduce(offsets: np.ndarray, *pieces: tuple[np.ndarray, np.ndarray]) -> tuple:
    """Lowest id per exact key; ``(representative, copy)`` pairs sent to each copy's partition."""
    keys = np.concatenate([p[0] for p in pieces])
    ids = np.concatenate([p[1] for p in pieces])
    order = np.lexsort((ids, keys[:, 1], keys[:, 0]))
    keys, ids = keys[order], ids[order]
    first = np.ones(len(ids), dtype=bool)
    first[1:] = (keys[1:] != keys[:-1]).any(axis=1)
    representative = ids[first][np.cumsum(first) - 1]
    pairs = np.stack([representative[~first], ids[~first]], axis=1)
    back = _route(len(offsets) - 1, _home(offsets, pairs[:, 1]), pairs)
    return (*[b[0] for b in back], {"bytes": _nbytes(back), "rows": len(pairs)})


# ---------------------------------------------------------------------------
# Stage 3: candidate edges, shuffled by band key
# ---------------------------------------------------------------------------


def band_partitions(signatures: np.ndarray, bands: int, rows: int, partitions: int) -> np.ndarray:
    """Shuffle partition of every (document, band): shape ``(n, bands)``, values ``0 .. partitions-1``.

    A document's row for band ``b`` goes to the shuffle partition given by its
    band key (:func:`~neardup_lab.lsh.band_hashes`), so equal band keys always
    meet in one partition and different keys spread evenly. Stable across
    processes and machines (no built-in ``hash()``).

    >>> sigs = np.array([[1, 2, 3, 4], [1, 2, 9, 9], [1, 2, 3, 4]], dtype=np.uint32)
    >>> where = band_partitions(sigs, bands=2, rows=2, partitions=8)
    >>> bool(where[0, 0] == where[1, 0] == where[2, 0]), bool(where[0, 1] == where[2, 1])
    (True, True)
    """
    return (band_hashes(signatures, bands, rows) % np.uint64(partitions)).astype(np.int64)


def _band_split(
    signed: _Signed, offset: int, targets: int, bands: int, rows: int, *copy_pieces: np.ndarray
) -> tuple:
    copies = np.concatenate(copy_pieces)
    copies = copies[np.argsort(copies[:, 1], kind="stable")]
    is_representative = np.ones(len(signed), dtype=bool)
    is_representative[copies[:, 1] - offset] = False
    local = np.flatnonzero(is_representative)
    signatures = signed.signatures[local]
    target = band_partitions(signatures, bands, rows, targets).T.ravel()  # band by band
    band_ids = np.repeat(np.arange(bands, dtype=np.int32), len(local))
    blocks = np.concatenate([signatures[:, b * rows : (b + 1) * rows] for b in range(bands)])
    docs = np.tile(local + offset, bands)
    pieces = _route(targets, target, band_ids, blocks, docs)
    return (*pieces, copies, {"bytes": _nbytes(pieces), "rows": len(docs), "copies": len(copies)})


def _band_reduce(offsets: np.ndarray, rows: int, *pieces: tuple[np.ndarray, ...]) -> tuple:
    """Documents with equal values in a band make candidate edges; route each to its lower id."""
    band = np.concatenate([p[0] for p in pieces])
    values = np.concatenate([p[1] for p in pieces])
    docs = np.concatenate([p[2] for p in pieces])
    found = [_NO_EDGES]
    for b in np.unique(band):
        members = band == b
        local = candidate_pair_array(values[members], 1, rows)  # the grouping dedup uses
        found.append(np.sort(docs[members][local], axis=1))
    edges = np.unique(np.concatenate(found), axis=0)
    out = _route(len(offsets) - 1, _home(offsets, edges[:, 0]), edges)
    return (*[o[0] for o in out], {"bytes": _nbytes(out), "rows": len(edges)})


# ---------------------------------------------------------------------------
# Stage 4: verification, a join of each edge with both documents' data
# ---------------------------------------------------------------------------


def _verify_left(
    signed: _Signed, offset: int, offsets: np.ndarray, verify: str, *edge_pieces: np.ndarray
) -> tuple:
    """Deduplicate the edges whose lower id lives here; attach that document's data; send on."""
    edges = np.unique(np.concatenate([_NO_EDGES, *edge_pieces]), axis=0)
    packets = []
    for (group,) in _route(len(offsets) - 1, _home(offsets, edges[:, 1]), edges):
        left = np.unique(group[:, 0])  # each left document travels once per target partition
        if verify == "exact":
            sets = [signed.distinct_ids(i) for i in (left - offset).tolist()]
            flat = np.concatenate(sets) if sets else np.empty(0, dtype=np.uint64)
            sizes = np.fromiter(map(len, sets), dtype=np.int64, count=len(sets))
            packets.append((group, left, flat, sizes))
        elif verify == "estimate":
            packets.append((group, left, signed.signatures[left - offset]))
        else:
            packets.append((group,))
    return (*packets, {"bytes": _nbytes(packets), "rows": len(edges)})


def _verify_right(
    signed: _Signed,
    offset: int,
    verify: str,
    threshold: float,
    bbits: int | None,
    *packets: tuple[np.ndarray, ...],
) -> np.ndarray:
    """Similarity of each edge whose higher id lives here; keep those at or above the threshold."""
    kept = [_NO_EDGES]
    for packet in packets:
        edges = packet[0]
        if not len(edges) or verify == "none":
            kept.append(edges)
            continue
        where = np.searchsorted(packet[1], edges[:, 0])
        if verify == "exact":  # the left documents' sets, then this partition's, in one IdSets
            flat, sizes = packet[2], packet[3]
            both = IdSets(
                np.concatenate([flat, signed.sets.ids]),
                np.concatenate([[0], np.cumsum(sizes), signed.sets.offsets[1:] + len(flat)]).astype(np.int64),
            )
            local_pairs = np.stack([where, edges[:, 1] - offset + len(sizes)], axis=1)
            scores = jaccard_of_pairs(both, local_pairs)
        else:
            left, right = packet[2][where], signed.signatures[edges[:, 1] - offset]
            scores = (
                estimate_jaccard(left, right) if bbits is None else estimate_jaccard_bbit(left, right, bbits)
            )
        kept.append(edges[np.asarray(scores >= threshold, dtype=bool)])
    return np.concatenate(kept)


def _lengths_at(signed: _Signed, offset: int, wanted: np.ndarray) -> np.ndarray:
    return signed.lengths[wanted - offset]


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------


def _read_path(path: str, options: dict) -> list[Document | Problem]:
    return list(iter_records(path, **options))


def _read_options(read_options: dict | None) -> dict:
    allowed = {"fmt", "field", "column", "encoding", "max_bytes", "delimiter"}
    options = {"max_bytes": DEFAULT_MAX_BYTES, **(read_options or {})}
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise TypeError(f"unknown read_options {unknown}; use some of {sorted(allowed)}")
    return options


def _check_paths(paths: Sequence[str | os.PathLike], options: dict) -> list[str]:
    missing = [os.fspath(p) for p in paths if not os.path.lexists(p)]
    if missing:
        raise InputError(
            f"no such file or folder: {missing[0]}. A list of str is read as file paths; "
            "for texts in memory pass dask.bag.from_sequence(texts, npartitions=...)"
        )
    checked = _check_inputs(paths)
    real: dict[str, str] = {}
    for path in checked:
        detect_format(path, options.get("fmt", "auto"))
        first = real.setdefault(os.path.realpath(path), path)
        if first != path:  # each partition is read on its own, so a repeat would be read twice
            raise InputError(f"{path} and {first} are the same file or folder; give it once")
    return checked


def read_bag(paths: Sequence[str | os.PathLike], **read_options: Any) -> dask.bag.Bag:
    """A dask bag of :class:`~neardup_lab.readers.Document` and :class:`~neardup_lab.readers.Problem`, one
    partition per input path.

    Files are read on the workers with :func:`~neardup_lab.readers.iter_records`
    (``read_options`` are its keyword arguments), in the order given, so
    ``dedup_dask(paths)`` numbers documents as ``read_bag(paths)`` lists them.
    Use it to see document ids and skipped records.

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "day1.jsonl")
    ...     with open(path, "w", encoding="utf-8") as f:
    ...         _ = f.write('{"text": "heavy rain"}\\n{"body": "x"}\\n')
    ...     records = read_bag([path]).compute(scheduler="sync")
    >>> [type(r).__name__ for r in records]
    ['Document', 'Problem']
    """
    options = _read_options(read_options)
    checked = _check_paths(paths, options)
    return dask.bag.from_delayed([delayed(_read_path)(p, options) for p in checked])


def _is_dask_dataframe(obj: object) -> bool:
    return type(obj).__module__.startswith("dask.dataframe") and hasattr(obj, "to_delayed")


def _partitions(texts: object, read_options: dict | None) -> tuple[list[Delayed], str]:
    """The input as a list of delayed partitions, and what kind of input it was."""
    if isinstance(texts, dask.bag.Bag):
        return list(texts.to_delayed()), "bag"
    if _is_dask_dataframe(texts):
        return list(texts.to_delayed()), "dataframe"
    if isinstance(texts, (str, bytes, os.PathLike)):
        raise TypeError(
            f"dedup_dask needs a dask bag, a dask dataframe, a list of delayed partitions or a list of "
            f"file paths, got a single {type(texts).__name__}; wrap a path in a list"
        )
    if isinstance(texts, Sequence) and texts and all(isinstance(t, Delayed) for t in texts):
        return list(texts), "delayed"
    if isinstance(texts, Sequence) and texts and all(isinstance(t, (str, os.PathLike)) for t in texts):
        options = _read_options(read_options)
        return [delayed(_read_path)(p, options) for p in _check_paths(texts, options)], "paths"
    raise TypeError(
        "dedup_dask needs a dask bag of str, a dask dataframe (see text_column), a non-empty list of "
        f"delayed partitions or a non-empty list of file paths; got {type(texts).__name__} {texts!r:.60}"
    )


# ---------------------------------------------------------------------------
# Running the stages
# ---------------------------------------------------------------------------


def _current_client() -> Any:
    """The default dask.distributed client, or None (then Dask's local scheduler runs the tasks)."""
    try:
        from distributed import default_client

        return default_client()
    except (ImportError, ValueError):
        return None


class _Runner:
    """Persist a stage on the workers and wait for it (a barrier, so each stage can be timed)."""

    def __init__(self, client: Any) -> None:
        self.client = client if client is not None else _current_client()
        self._start = time.perf_counter()

    def persist(self, *groups: list[Delayed]) -> list[list[Delayed]]:
        flat = [d for group in groups for d in group]
        if self.client is None:
            done = list(dask.persist(*flat))
        else:
            from distributed import futures_of, wait

            done = self.client.persist(flat)
            wait(futures_of(done))
        out, start = [], 0
        for group in groups:
            out.append(done[start : start + len(group)])
            start += len(group)
        return out

    def compute(self, items: list[Delayed]) -> list:
        if self.client is None:
            return list(dask.compute(*items))
        return list(self.client.compute(items, sync=True))

    def lap(self) -> float:
        now = time.perf_counter()
        seconds, self._start = now - self._start, now
        return seconds

    def workers(self) -> int:
        return len(self.client.scheduler_info()["workers"]) if self.client is not None else 0


def dedup_dask(
    texts: dask.bag.Bag | Sequence[str | os.PathLike] | Sequence[Delayed] | Any,
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
    bbits: int | None = None,
    client: Any = None,
    text_column: str = "text",
    shuffle_partitions: int | None = None,
    read_options: dict | None = None,
) -> DedupResult:
    """:func:`~neardup_lab.pipeline.dedup` on a Dask cluster, with the same answer.

    ``texts`` is a dask bag of str; a dask dataframe (its ``text_column``) or
    series; a list of ``dask.delayed`` partitions, each a list of str or a
    pandas Series or DataFrame; or a list of file paths (``.txt`` files,
    folders of them, ``.jsonl``, ``.csv``), one partition per path, read on the
    workers by :func:`~neardup_lab.readers.iter_records` with ``read_options``
    (its keyword arguments). Records the readers skip are counted in
    ``stats["read"]``; :func:`read_bag` lists them.

    The parameters before ``client`` mean what they mean for ``dedup`` and give
    the same pairs, clusters and keepers. ``verify="exact"`` (the default)
    joins the shingle ids of both documents of each candidate edge;
    ``"estimate"`` joins their signatures instead (less data moves, and the
    answer is ``dedup(..., verify="estimate")``); ``"none"`` keeps every
    candidate. ``client`` is a ``dask.distributed.Client``; without one, the
    default client is used if there is one, else Dask's local scheduler.
    ``shuffle_partitions`` is the number of partitions of the exact and band
    shuffles (default: the number of input partitions).

    Document ids are global positions in partition order. The result's
    ``stats`` time each stage and add ``"shuffle"`` (bytes each shuffle
    produced, an upper bound on what crosses the network, and bytes
    gathered on the client) and ``"dask"`` (input and shuffle partitions, workers).

    Signing is numpy-heavy. Dask's nanny starts workers with
    ``MALLOC_TRIM_THRESHOLD_=65536``, which with glibc makes each large temporary
    array fresh memory and slowed signing about twofold in our measurements; unset
    it before starting a cluster with
    ``dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None})``.

    >>> import dask.bag as db
    >>> docs = ["the heavy rain closed schools in the coastal district today",
    ...         "The heavy rain closed schools in the coastal district today!",
    ...         "the heavy rain closed schools in the coastal district on monday",
    ...         "a new bridge opened over the river"]
    >>> result = dedup_dask(db.from_sequence(docs, npartitions=2), threshold=0.5, k=3)
    >>> result.clusters, result.keepers
    ([[0, 1, 2], [3]], [0, 3])

    On a cluster (here two local worker processes):

    >>> from dask.distributed import Client, LocalCluster
    >>> with LocalCluster(n_workers=2, dashboard_address=None) as cluster:  # doctest: +SKIP
    ...     with Client(cluster) as client:
    ...         result = dedup_dask(["day1.jsonl", "day2.jsonl"], client=client)
    """
    settings = Settings(threshold, num_perm, k, shingle, scheme, seed, bands, rows, verify, keeper, bbits)
    bands, rows = settings.bands, settings.rows
    if shuffle_partitions is not None and (
        isinstance(shuffle_partitions, bool)
        or not isinstance(shuffle_partitions, int)
        or shuffle_partitions < 1
    ):
        raise ValueError(f"shuffle_partitions must be a positive int, got {shuffle_partitions!r}")
    parts, kind = _partitions(texts, read_options)
    run = _Runner(client)
    P = len(parts)
    Q = shuffle_partitions or P

    # 1. sign (map): one task per input partition; the results stay on the workers.
    signed = [
        delayed(_sign)(part, p, text_column, settings) for p, part in enumerate(parts)
    ]
    signed, sizes = run.persist(signed, [delayed(_sizes)(s) for s in signed])
    counts = run.compute(sizes)
    offsets = partition_offsets([c[0] for c in counts])
    n = int(offsets[-1])
    signing = {"signed": n, "seconds": run.lap()}

    # 2. exact copies: shuffle (key, id) by key; lowest id per key; pairs back to the copy's partition.
    split = [delayed(_exact_split, nout=Q + 1)(s, int(offsets[p]), Q) for p, s in enumerate(signed)]
    reduced = [
        delayed(_exact_reduce, nout=P + 1)(offsets, *[split[m][q] for m in range(P)]) for q in range(Q)
    ]
    back, exact_info = run.persist(
        [reduced[q][p] for p in range(P) for q in range(Q)],  # grouped by the copy's partition
        [split[m][Q] for m in range(P)] + [reduced[q][P] for q in range(Q)],
    )
    exact_info = run.compute(exact_info)
    del split, reduced
    copies = sum(info["rows"] for info in exact_info[P:])
    exact = {"documents": n, "unique": n - copies, "copies": copies, "seconds": run.lap()}

    # 3. candidates: shuffle (band, values, id) by band key; pairs per group; to the lower id's partition.
    band_split = [
        delayed(_band_split, nout=Q + 2)(
            signed[p], int(offsets[p]), Q, bands, rows, *back[p * Q : (p + 1) * Q]
        )
        for p in range(P)
    ]
    band_reduced = [
        delayed(_band_reduce, nout=P + 1)(offsets, rows, *[band_split[m][q] for m in range(P)])
        for q in range(Q)
    ]
    left = [
        delayed(_verify_left, nout=P + 1)(
            signed[p], int(offsets[p]), offsets, verify, *[band_reduced[q][p] for q in range(Q)]
        )
        for p in range(P)
    ]
    packets, copy_pairs, band_info = run.persist(
        [left[m][p] for p in range(P) for m in range(P)],  # grouped by the higher id's partition
        [band_split[p][Q] for p in range(P)],
        [band_split[p][Q + 1] for p in range(P)]
        + [band_reduced[q][P] for q in range(Q)]
        + [left[p][P] for p in range(P)],
    )
    band_info = run.compute(band_info)
    del back, band_split, band_reduced, left  # free the shuffled rows on the workers
    candidates = sum(info["rows"] for info in band_info[P + Q :])
    candidate_stats = {"pairs": candidates, "seconds": run.lap()}

    # 4. verified: the packets of each right-hand partition meet its shingle ids (or signatures).
    right = [
        delayed(_verify_right)(
            signed[p], int(offsets[p]), verify, threshold, bbits, *packets[p * P : (p + 1) * P]
        )
        for p in range(P)
    ]
    gathered = run.compute(right + copy_pairs)
    verified_parts, copy_parts = gathered[:P], gathered[P:]
    del packets, right, copy_pairs
    verified = np.concatenate([_NO_EDGES, *verified_parts])
    verified_stats = {"pairs": len(verified), "seconds": run.lap()}

    # 5. clusters: on the client, from the gathered edges only.
    copies_array = np.concatenate([_NO_EDGES, *copy_parts])
    copies_array = copies_array[np.lexsort((copies_array[:, 1], copies_array[:, 0]))]
    verified = verified[np.lexsort((verified[:, 1], verified[:, 0]))]
    all_pairs = np.concatenate([copies_array, verified]).astype(np.int64)
    clusters = clusters_from_pair_array(n, all_pairs)
    lengths = None
    if keeper == "longest":  # only documents in a cluster of two or more need their length
        wanted = np.unique(all_pairs)
        by_partition = _route(P, _home(offsets, wanted), wanted)
        found = run.compute(
            [delayed(_lengths_at)(signed[p], int(offsets[p]), by_partition[p][0]) for p in range(P)]
        )
        lengths = defaultdict(
            int, zip(wanted.tolist(), np.concatenate([np.empty(0, np.int64), *found]).tolist())
        )
    keepers = choose_keepers(clusters, keeper, lengths=lengths)
    cluster_stats = {
        "clusters": len(clusters),
        "kept": len(keepers),
        "removed": n - len(keepers),
        "seconds": run.lap(),
    }

    stats: dict[str, dict[str, float]] = {
        "exact": exact,
        "signatures": signing,
        "candidates": candidate_stats,
        "verified": verified_stats,
        "clusters": cluster_stats,
        "shuffle": {
            "exact_bytes": sum(info["bytes"] for info in exact_info[:P]),
            "copies_back_bytes": sum(info["bytes"] for info in exact_info[P:]),
            "band_bytes": sum(info["bytes"] for info in band_info[:P]),
            "edges_bytes": sum(info["bytes"] for info in band_info[P : P + Q]),
            "join_bytes": sum(info["bytes"] for info in band_info[P + Q :]),
            "gathered_bytes": int(copies_array.nbytes + verified.nbytes),
        },
        "dask": {"partitions": P, "shuffle_partitions": Q, "workers": run.workers()},
    }
    if kind == "paths":
        stats["read"] = {"documents": n, "problems": sum(c[1] for c in counts)}
    return DedupResult(
        pairs=[(int(a), int(b)) for a, b in verified.tolist()],
        clusters=clusters,
        keepers=keepers,
        copies=[(int(a), int(b)) for a, b in copies_array.tolist()],
        settings=settings,
        stats=stats,
    )
