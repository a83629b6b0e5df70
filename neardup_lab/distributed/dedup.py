"""The same dedup on a Dask cluster: one task per input partition (``P``) or shuffle partition (``Q``).

1. **sign** (map): keys, shingle ids and signatures of each partition, by ``dedup``'s code; they stay
   on the workers. A document's global id is its position in partition order.
2. **exact shuffle**: ``(key, id)`` rows meet by key; ``(lowest id, copy)`` pairs go to the copy's partition.
3. **band shuffle**: the representatives' ``(band, values, id)`` rows meet by band key; equal values
   make candidate edges, sent to the lower id's partition, which drops repeats.
4. **verify** (join): the lower document's shingle ids (or signature) go with the edge to the higher
   id's partition, which keeps it if similar enough.
5. **big buckets**: a bucket of more than :data:`~neardup_lab.support.limits.BUCKET_SIZE` documents
   makes no edges in stage 3; its members' band keys and shingle ids go to its shuffle partition,
   which checks it on dedup's budget (:func:`~neardup_lab.engine.verify.verified_edges`).
6. **cluster**: the client gathers the copy pairs and verified edges only.

The shuffles are task shuffles (:mod:`~neardup_lab.distributed.shuffle`): ``P * Q`` pieces each.
"""

from __future__ import annotations

import contextlib
import math
import os
import time
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from ..clusters import choose_keepers
from ..engine.banding import BandGroups, BandKeys, band_groups, pairs_in_groups
from ..engine.components import clusters_from_pair_array, pair_tuples
from ..engine.pipeline import NO_WORDS_KEY, DedupResult, check_documents, prepare
from ..engine.verify import jaccard_of_pairs, verified_edges
from ..lsh import band_hashes
from ..readers import Document, InputError, Problem, check_inputs, detect_format, iter_records
from ..settings import Settings
from ..support import limits
from ..support.spans import Ragged
from ..support.validate import described, positive_int, shown
from .shuffle import Routed, Tally, exchange, gather, home, partition_offsets, route, sent

try:
    import dask
    import dask.bag
    from dask.delayed import Delayed, delayed
except ImportError as missing:
    raise ImportError(
        "neardup_lab.distributed needs Dask, which is not installed; pip install 'neardup-lab[dask]'"
    ) from missing

__all__ = ["dedup_dask", "read_bag", "band_partitions", "partition_offsets"]

_NO_EDGES = np.empty((0, 2), dtype=np.int64)


def _read_path(path: str, options: dict) -> list[Document | Problem]:
    return list(iter_records(path, **options))


def read_bag(paths: Sequence[str | os.PathLike], **read_options: Any) -> dask.bag.Bag:
    """Files as a dask bag of :class:`~neardup_lab.readers.Document` and ``Problem``, a partition per
    path, read on the workers by :func:`~neardup_lab.readers.iter_records` with ``read_options``
    (``fmt``, ``field``, ``column``, ``encoding``, ``max_bytes``, ``delimiter``, ``follow_links``).

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "day1.jsonl")
    ...     with open(path, "w", encoding="utf-8") as f:
    ...         _ = f.write('{"text": "heavy rain"}\\n{"body": "x"}\\n')
    ...     records = read_bag([path]).compute(scheduler="sync")
    >>> [type(r).__name__ for r in records]
    ['Document', 'Problem']
    """
    allowed = {"fmt", "field", "column", "encoding", "max_bytes", "delimiter", "follow_links"}
    if unknown := sorted(set(read_options) - allowed):
        raise TypeError(f"unknown read_options {unknown}; use some of {sorted(allowed)}")
    options = {"max_bytes": limits.DEFAULT_MAX_BYTES, **read_options}
    if isinstance(paths, (str, bytes, os.PathLike)):
        raise TypeError(
            f"read_bag needs a list of paths, got a single {type(paths).__name__}; wrap it in a list"
        )
    checked = check_inputs(paths)
    real: dict[str, str] = {}
    for path in checked:
        detect_format(path, options.get("fmt", "auto"))
        first = real.setdefault(os.path.realpath(path), path)
        if first != path:  # each partition is read on its own, so a repeat would be read twice
            raise InputError(f"{path} and {first} are the same file or folder; give it once")
    return dask.bag.from_delayed([delayed(_read_path)(p, options) for p in checked])


def _partitions(texts: object, npartitions: int | None) -> list[Any]:
    """The input as a list of partitions (delayed, or lists of texts cut here)."""
    to_delayed = getattr(texts, "to_delayed", None)
    collection = isinstance(texts, dask.bag.Bag) or type(texts).__module__.startswith("dask.dataframe")
    if collection and callable(to_delayed):
        return list(to_delayed())
    if isinstance(texts, (str, bytes, os.PathLike)):
        raise TypeError(
            f"dedup_dask needs many documents, got a single {type(texts).__name__}; "
            "wrap a text in a list, or read files with read_bag([path])"
        )
    if isinstance(texts, Sequence) and texts and all(isinstance(t, Delayed) for t in texts):
        return list(texts)
    if isinstance(texts, Sequence):
        check_documents(texts)
        parts = npartitions or max(1, math.ceil(len(texts) / limits.TEXTS_PER_PARTITION))
        cuts = np.linspace(0, len(texts), parts + 1).round().astype(int).tolist()
        return [list(texts[a:b]) for a, b in zip(cuts[:-1], cuts[1:])]
    raise TypeError(
        "dedup_dask needs a list of str, a dask bag of str, a dask dataframe or series (see text_column) "
        f"or a non-empty list of delayed partitions; got {described(texts)}"
    )


def _items(partition: Any, number: int, text_column: str) -> list:
    if hasattr(partition, "columns"):
        if text_column not in partition.columns:
            raise KeyError(
                f"partition {number} has no column {text_column!r} (columns: {list(partition.columns)}); "
                "pass text_column="
            )
        partition = partition[text_column]
    return partition.tolist() if hasattr(partition, "tolist") else list(partition)


class _PartitionCounts(NamedTuple):
    """What one partition held: documents signed, items from a reader (``read_bag``), records skipped."""

    documents: int
    records: int
    problems: int


class _Signed(NamedTuple):
    """One partition after signing."""

    keys: np.ndarray  # (n, 2) uint64: the 128-bit exact-copy key of each document
    sets: Ragged  # sorted distinct shingle ids of each document
    signatures: np.ndarray  # (n, num_perm), b-bit values when bbits is set
    lengths: np.ndarray  # (n,) characters per document, for keeper="longest"
    counts: _PartitionCounts


def _sign(partition: Any, number: int, text_column: str, settings: Settings) -> _Signed:
    texts: list[str] = []
    records = problems = 0
    for position, item in enumerate(_items(partition, number, text_column)):
        if isinstance(item, str):
            texts.append(item)
        elif isinstance(item, Document):
            texts.append(item.text)
            records += 1
        elif isinstance(item, Problem):
            records += 1
            problems += 1
        else:
            kind = type(item).__name__
            raise TypeError(f"document {position} of partition {number} is {kind}, not str: {shown(item)}")
    prepared = prepare(texts, settings)  # the code dedup runs on each chunk
    signatures = settings.banded(prepared.signatures)
    keys = np.frombuffer(b"".join(prepared.keys), dtype=np.uint64).reshape(-1, 2).copy()
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    return _Signed(keys, prepared.sets, signatures, lengths, _PartitionCounts(len(texts), records, problems))


_NO_WORDS_KEY = np.frombuffer(NO_WORDS_KEY, dtype=np.uint64)


class _ExactRows(NamedTuple):
    """The exact shuffle's rows: a document's exact-copy key and its global id."""

    key: np.ndarray  # (m, 2) uint64
    doc: np.ndarray  # (m,) int64


def _exact_rows(signed: _Signed, offset: int, receivers: int) -> Routed:
    """One ``(key, id)`` row per document with words (a text without is nobody's copy), routed by key."""
    with_words = np.flatnonzero((signed.keys != _NO_WORDS_KEY).any(axis=1))
    doc = offset + with_words
    target = (signed.keys[with_words, 0] % np.uint64(receivers)).astype(np.int64)
    return route(_ExactRows(signed.keys[with_words], doc), target, receivers)


def _exact_copies(offsets: np.ndarray, pieces: list[_ExactRows]) -> Routed:
    """Lowest id per exact key; ``(representative, copy)`` pairs routed to each copy's partition."""
    key, doc = gather(pieces)
    order = np.lexsort((doc, key[:, 1], key[:, 0]))
    key, doc = key[order], doc[order]
    first = np.ones(len(doc), dtype=bool)
    first[1:] = (key[1:] != key[:-1]).any(axis=1)
    representative = doc[first][np.cumsum(first) - 1]
    pairs = np.stack([representative[~first], doc[~first]], axis=1)
    return route(pairs, home(offsets, pairs[:, 1]), len(offsets) - 1)


def band_partitions(signatures: np.ndarray, bands: int, rows: int, partitions: int) -> np.ndarray:
    """Shuffle partition of every (document, band): shape ``(n, bands)``, values ``0 .. partitions-1``.

    Chosen by the band key (:func:`~neardup_lab.lsh.band_hashes`): equal band keys meet in one
    partition, in every process and on every machine.

    >>> sigs = np.array([[1, 2, 3, 4], [1, 2, 9, 9], [1, 2, 3, 4]], dtype=np.uint32)
    >>> where = band_partitions(sigs, bands=2, rows=2, partitions=8)
    >>> bool(where[0, 0] == where[1, 0] == where[2, 0]), bool(where[0, 1] == where[2, 1])
    (True, True)
    """
    return (band_hashes(signatures, bands, rows) % np.uint64(partitions)).astype(np.int64)


class _BandRows(NamedTuple):
    """The band shuffle's rows: band number, the document's values in that band, its global id."""

    band: np.ndarray  # (m,) int32
    values: np.ndarray  # (m, rows)
    doc: np.ndarray  # (m,) int64


def _band_rows(
    signed: _Signed, offset: int, receivers: int, banding: tuple[int, int], copy_pieces: list[np.ndarray]
) -> Routed:
    """The band rows of this partition's representatives (not its copies), routed by band key."""
    representative = signed.sets.counts > 0  # a text without shingles is nobody's candidate
    representative[gather(copy_pieces)[:, 1] - offset] = False
    local = np.flatnonzero(representative)
    signatures, (bands, rows) = signed.signatures[local], banding
    band_rows = _BandRows(
        band=np.repeat(np.arange(bands, dtype=np.int32), len(local)),
        values=np.concatenate([signatures[:, b * rows : (b + 1) * rows] for b in range(bands)]),
        doc=np.tile(local + offset, bands),
    )
    target = band_partitions(signatures, bands, rows, receivers).T.ravel()  # band by band, as the rows
    return route(band_rows, target, receivers)


class _Proposed(NamedTuple):
    """What a band shuffle partition proposes: candidate edges routed to their lower ids (as a
    :class:`~neardup_lab.distributed.shuffle.Routed`), and its buckets too big to check in full."""

    pieces: list[np.ndarray]
    tally: Tally
    big: list[tuple[int, BandGroups]]  # (band, its big buckets: global ids, each bucket in id order)


def _candidates(offsets: np.ndarray, rows: int, pieces: list[_BandRows]) -> _Proposed:
    """Candidate edges (equal values in a band), routed to their lower ids; a bucket of more than
    ``limits.BUCKET_SIZE`` documents gives none and comes back whole for :func:`_check_big`."""
    band, values, doc = gather(pieces)
    found, big = [_NO_EDGES], []
    for b in np.unique(band).tolist():
        members = np.flatnonzero(band == b)
        (groups,) = band_groups(values[members], 1, rows)  # the grouping dedup uses
        groups = groups.shared()
        large = groups.sizes() > limits.BUCKET_SIZE
        found.append(np.sort(doc[members][pairs_in_groups(groups.keep(~large))], axis=1))
        if large.any():
            capped = groups.keep(large)
            which = np.repeat(np.arange(len(capped.starts)), capped.sizes().astype(np.intp, copy=False))
            ids = doc[members][capped.order]
            big.append((b, BandGroups(ids[np.lexsort((ids, which))], capped.starts)))
    edges = np.unique(np.concatenate(found), axis=0)
    return _Proposed(*route(edges, home(offsets, edges[:, 0]), len(offsets) - 1), big)


class _Members(NamedTuple):
    """Members of big buckets: global ids, band keys, and shingle ids (verify="exact") or
    signatures ("estimate") or nothing ("none")."""

    docs: np.ndarray
    keys: np.ndarray
    data: Ragged | np.ndarray | None


def _member_data(
    signed: _Signed, offset: int, banding: tuple[int, int], verify: str, wanted: list[np.ndarray]
) -> Routed:
    """For each shuffle partition, the :class:`_Members` of its big buckets that live here."""
    pieces = []
    for docs in wanted:
        local = docs - offset
        keys = band_hashes(signed.signatures[local], *banding)
        data = (
            None
            if verify == "none"
            else signed.sets.take(local)
            if verify == "exact"
            else signed.signatures[local]
        )
        pieces.append(_Members(docs, keys, data))
    return sent(pieces, sum(len(docs) for docs in wanted))


class _BigChecked(NamedTuple):
    """What :func:`_check_big` found (the counts of :class:`~neardup_lab.engine.verify.Verified`)."""

    edges: np.ndarray
    checked: int
    capped: int
    unchecked: int


def _check_big(
    n: int, settings: Settings, big: list[tuple[int, BandGroups]], joined: np.ndarray, pieces: list[_Members]
) -> _BigChecked:
    """This partition's big buckets checked as dedup checks them (``joined``: the pairs joined so far)."""
    docs = np.concatenate([m.docs for m in pieces])
    order = np.argsort(docs)
    docs, keys = docs[order], np.concatenate([m.keys for m in pieces])[order]
    data: Any = None
    if settings.verify == "exact":
        data = Ragged.join([m.data for m in pieces if isinstance(m.data, Ragged)]).take(order)
    elif settings.verify == "estimate":
        data = np.concatenate([m.data for m in pieces])[order]

    def keep(pairs: np.ndarray) -> np.ndarray:
        at = np.searchsorted(docs, pairs)
        if data is None:
            return np.ones(len(pairs), dtype=bool)
        if isinstance(data, Ragged):
            return jaccard_of_pairs(data, at) >= settings.threshold
        return np.asarray(settings.estimate(data[at[:, 0]], data[at[:, 1]])) >= settings.threshold

    bands = [BandGroups(_NO_EDGES[:, 0], _NO_EDGES[:, 0]) for _ in range(settings.bands)]
    for b, groups in big:
        bands[b] = groups
    found = verified_edges(n, bands, keep, joined, BandKeys(docs, keys).refine)
    return _BigChecked(found.edges, found.checked, found.capped, found.unchecked)


def _budgeted(
    run: _Runner,
    signed: list[Delayed],
    offsets: np.ndarray,
    settings: Settings,
    big: list[list[tuple[int, BandGroups]]],
    joined: np.ndarray,
) -> list[_BigChecked]:
    """Stage 5: the big buckets of each shuffle partition (``big``) checked there, on dedup's budget."""
    busy = [q for q, found in enumerate(big) if found]
    if not busy:
        return []
    P, first = len(offsets) - 1, offsets[:-1].tolist()
    members = [np.unique(np.concatenate([groups.order for _, groups in big[q]])) for q in busy]
    wanted = [[docs[home(offsets, docs) == p] for docs in members] for p in range(P)]
    banding = (settings.bands, settings.rows)
    data = [delayed(_member_data)(signed[p], first[p], banding, settings.verify, wanted[p]) for p in range(P)]
    n = int(offsets[-1])
    checks = [
        delayed(_check_big)(n, settings, big[q], joined, pieces)
        for q, pieces in zip(busy, exchange(data, len(busy)))
    ]
    return run.compute(checks)


class _Packet(NamedTuple):
    """Edges going to their higher ids' partition, with their lower ids' shingle ids (verify="exact")
    or signatures ("estimate"), or nothing ("none")."""

    edges: np.ndarray  # (m, 2) int64, lower id first
    lower: np.ndarray  # the distinct lower ids, sorted: ``data``'s order
    data: Ragged | np.ndarray | None


def _join(
    signed: _Signed, offset: int, offsets: np.ndarray, verify: str, edge_pieces: list[np.ndarray]
) -> Routed:
    """The edges whose lower id lives here, once each, with its data, routed to their higher ids."""
    edges = np.unique(gather([_NO_EDGES, *edge_pieces]), axis=0)
    packets = []
    for group in route(edges, home(offsets, edges[:, 1]), len(offsets) - 1).pieces:
        if verify == "none":
            packets.append(_Packet(group, _NO_EDGES[:, 0], None))
        else:  # each lower document travels once per receiving partition
            lower = np.unique(group[:, 0])
            local = lower - offset
            data = signed.sets.take(local) if verify == "exact" else signed.signatures[local]
            packets.append(_Packet(group, lower, data))
    return sent(packets, len(edges))


def _verify(signed: _Signed, offset: int, settings: Settings, packets: list[_Packet]) -> np.ndarray:
    """The edges whose higher id lives here and whose similarity reaches the threshold."""
    kept = [_NO_EDGES]
    for edges, lower_ids, data in packets:
        if data is None or not len(edges):
            kept.append(edges)
            continue
        lower, higher = np.searchsorted(lower_ids, edges[:, 0]), edges[:, 1] - offset
        if isinstance(data, Ragged):  # the lower documents' sets, then this partition's, in one Ragged
            both = Ragged.join([data, signed.sets])
            scores = jaccard_of_pairs(both, np.stack([lower, higher + len(lower_ids)], axis=1))
        else:
            scores = np.asarray(settings.estimate(data[lower], signed.signatures[higher]))
        kept.append(edges[scores >= settings.threshold])
    return np.concatenate(kept)


class _Runner:
    """Runs a stage on the workers and waits for it (a barrier, so that each stage is timed)."""

    def __init__(self, client: Any) -> None:
        if client is None:  # the default dask.distributed client, else Dask's local scheduler
            with contextlib.suppress(ImportError, ValueError):
                from distributed import default_client

                client = default_client()
        self.client = client
        self._start = time.perf_counter()

    def persist(
        self, keep: list[Delayed], **shuffles: list[Delayed]
    ) -> tuple[list[Delayed], dict[str, Tally]]:
        """Run ``keep`` and the named shuffles it uses (so they run once), leaving the results on the
        workers; return those and each shuffle's summed tallies."""
        totals = [delayed(_total)([routed.tally for routed in group]) for group in shuffles.values()]
        if self.client is None:
            done = list(dask.persist(*keep, *totals))
        else:
            from distributed import futures_of, wait

            done = self.client.persist([*keep, *totals])
            wait(futures_of(done))
        return done[: len(keep)], dict(zip(shuffles, self.compute(done[len(keep) :])))

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


def _total(tallies: list[Tally]) -> Tally:
    return Tally(sum(t.rows for t in tallies), sum(t.nbytes for t in tallies))


def _sorted_pairs(parts: list[np.ndarray]) -> np.ndarray:
    pairs = np.concatenate([_NO_EDGES, *parts])
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def dedup_dask(
    texts: Sequence[str] | dask.bag.Bag | Sequence[Delayed] | Any,
    threshold: float = 0.8,
    num_perm: int = 128,
    k: int = 5,
    *,
    client: Any = None,
    text_column: str = "text",
    npartitions: int | None = None,
    shuffle_partitions: int | None = None,
    **options: Any,
) -> DedupResult:
    """:func:`~neardup_lab.engine.pipeline.dedup` on a Dask cluster, with the same answer.

    ``texts`` is a list (or other sequence) of str, cut into ``npartitions`` partitions (default:
    one per :data:`~neardup_lab.support.limits.TEXTS_PER_PARTITION` texts); a dask bag of str; a dask
    dataframe (its ``text_column``) or series; or a list of ``dask.delayed`` partitions, each a list
    of str or a pandas Series or DataFrame. ``dedup_dask(read_bag(paths))`` counts the records the
    readers skip in ``stats["read"]``.

    ``threshold``, ``num_perm``, ``k`` and ``options`` are ``dedup``'s settings (not ``max_df``).
    ``client``: default, the default client, else Dask's local scheduler. ``shuffle_partitions``:
    default, as many as the input. ``stats`` add ``"shuffle"`` (bytes moved) and ``"dask"``.

    Dask's nanny starts workers with ``MALLOC_TRIM_THRESHOLD_=65536``, which with glibc halves the
    speed of signing: set ``"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_"`` to None.

    >>> docs = ["the heavy rain closed schools in the coastal district today",
    ...         "The heavy rain closed schools in the coastal district today!",
    ...         "the heavy rain closed schools in the coastal district on monday",
    ...         "a new bridge opened over the river"]
    >>> result = dedup_dask(docs, threshold=0.5, k=3, npartitions=2)
    >>> result.clusters, result.keepers
    ([[0, 1, 2], [3]], [0, 3])
    """
    settings = Settings(threshold=threshold, num_perm=num_perm, k=k, **options)
    banding = (settings.bands, settings.rows)
    for name, value in (("npartitions", npartitions), ("shuffle_partitions", shuffle_partitions)):
        if value is not None:
            positive_int(value, name)
    parts = _partitions(texts, npartitions)
    run = _Runner(client)
    P = len(parts)
    Q = shuffle_partitions or P

    # 1. sign
    signed, _ = run.persist([delayed(_sign)(part, p, text_column, settings) for p, part in enumerate(parts)])
    counts = run.compute([s.counts for s in signed])
    offsets = partition_offsets([c.documents for c in counts])
    first = offsets[:-1].tolist()
    n = int(offsets[-1])
    signing = {"signed": n, "seconds": run.lap()}

    # 2. exact shuffle
    exact_rows = [delayed(_exact_rows)(s, first[p], Q) for p, s in enumerate(signed)]
    copies_back = [delayed(_exact_copies)(offsets, pieces) for pieces in exchange(exact_rows, Q)]
    copies_back, tallies = run.persist(copies_back, exact=exact_rows, copies_back=copies_back)
    copies = _sorted_pairs(run.compute([delayed(gather)(c.pieces) for c in copies_back]))
    exact = {"documents": n, "unique": n - len(copies), "copies": len(copies), "seconds": run.lap()}

    # 3. band shuffle, and the join of stage 4
    banded = [
        delayed(_band_rows)(signed[p], first[p], Q, banding, pieces)
        for p, pieces in enumerate(exchange(copies_back, P))
    ]
    edges = [delayed(_candidates)(offsets, settings.rows, pieces) for pieces in exchange(banded, Q)]
    joins = [
        delayed(_join)(signed[p], first[p], offsets, settings.verify, pieces)
        for p, pieces in enumerate(exchange(edges, P))
    ]
    joins, sent_by_join = run.persist([*joins, *(e.big for e in edges)], band=banded, edges=edges, join=joins)
    joins, big = joins[:P], run.compute(joins[P:])
    tallies.update(sent_by_join)
    del copies_back, banded, edges  # free the shuffled rows on the workers
    candidates = {"pairs": tallies["join"].rows, "seconds": run.lap()}

    # 4. verify
    verified_parts = [
        delayed(_verify)(signed[p], first[p], settings, pieces) for p, pieces in enumerate(exchange(joins, P))
    ]
    verified = _sorted_pairs(run.compute(verified_parts))
    del joins

    # 5. big buckets, on dedup's budget
    checked_big = _budgeted(run, signed, offsets, settings, big, np.concatenate([copies, verified]))
    if checked_big:
        verified = np.unique(np.concatenate([verified, *(c.edges for c in checked_big)]), axis=0)
    candidates["pairs"] += sum(c.checked for c in checked_big)
    candidates["capped_buckets"] = sum(c.capped for c in checked_big)
    candidates["not_checked"] = sum(c.unchecked for c in checked_big)
    verified_stats = {"pairs": len(verified), "seconds": run.lap()}

    # 6. cluster, on the client
    all_pairs = np.concatenate([copies, verified])
    clusters = clusters_from_pair_array(n, all_pairs)
    lengths = None
    if settings.keeper == "longest":  # only documents in a cluster of two or more need their length
        wanted = np.unique(all_pairs)
        by_home = route(wanted, home(offsets, wanted), P).pieces
        found = run.compute([signed[p].lengths[by_home[p] - first[p]] for p in range(P)])
        lengths = [0] * n
        for doc, length in zip(wanted.tolist(), np.concatenate([_NO_EDGES[:, 0], *found]).tolist()):
            lengths[doc] = length
    keepers = choose_keepers(clusters, settings.keeper, lengths=lengths)
    cluster_stats = {"clusters": len(clusters), "kept": len(keepers), "removed": n - len(keepers)}

    shuffle = {f"{name}_bytes": tally.nbytes for name, tally in tallies.items()}
    stats: dict[str, dict[str, float]] = {
        "exact": exact,
        "signatures": signing,
        "candidates": candidates,
        "verified": verified_stats,
        "clusters": {**cluster_stats, "seconds": run.lap()},
        "shuffle": {**shuffle, "gathered_bytes": int(copies.nbytes + verified.nbytes)},
        "dask": {"partitions": P, "shuffle_partitions": Q, "workers": run.workers()},
    }
    if sum(c.records for c in counts):
        stats["read"] = {"documents": n, "problems": sum(c.problems for c in counts)}
    return DedupResult(
        pairs=pair_tuples(verified),
        clusters=clusters,
        keepers=keepers,
        copies=pair_tuples(copies),
        settings=settings,
        stats=stats,
    )
