"""The whole dedup: exact pass, sign, band, verify, cluster, keep one per cluster."""

from __future__ import annotations

import os
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any, NamedTuple

import numpy as np

from .. import hashing
from ..clusters import choose_keepers
from ..docfreq import max_count
from ..minhash import empty_value
from ..settings import RECALL_WEIGHTS, Settings
from ..support import limits
from ..support.spans import Ragged, chunk_bounds, cut, lengths_of, sorted_runs
from ..support.validate import first_not_text, shown
from ..text import words
from .banding import BandKeys, band_groups
from .components import clusters_from_pair_array, pair_tuples
from .idsets import jaccard_from_texts, sorted_sets, unsorted_shingle_ids
from .signing import sign_flat
from .tokenize import tokenize_batch
from .verify import jaccard_of_pairs, pack_id_sets, verified_edges
from .workers import IN_BROWSER, ordered_map, progress_bar

__all__ = [
    "DedupResult",
    "dedup",
    "prepare",
    "prepare_many",
    "Prepared",
    "exact_keys",
    "exact_groups",
    "first_occurrences",
    "equal_texts",
    "Frequent",
    "NO_WORDS_KEY",
    "copy_pairs",
    "check_documents",
    "keep_verified",
    "looks_unspaced",
    "frequent_ids",
    "frequent_shingle_ids",
    "candidates_warning",
    "RECALL_WEIGHTS",
]


@dataclass
class DedupResult:
    """What :func:`dedup` found: ``clusters`` (sorted index lists), their ``keepers``, ``copies``
    ``(first, copy)`` equal after normalisation, and verified ``pairs`` ``(i, j)``, ``i < j``, which
    with the copies join every cluster (a pair already joined is not checked)."""

    pairs: list[tuple[int, int]]
    clusters: list[list[int]]
    keepers: list[int]
    copies: list[tuple[int, int]] = field(default_factory=list)
    settings: Settings = field(default_factory=Settings)
    stats: dict[str, dict[str, float]] = field(default_factory=dict, compare=False)

    @property
    def removed(self) -> list[int]:
        """Indices of documents that are not keepers, sorted."""
        keep = set(self.keepers)
        return sorted(i for c in self.clusters for i in c if i not in keep)

    @property
    def params(self) -> dict:
        """The settings as a plain dict (see :attr:`settings`)."""
        return self.settings.to_dict()


def exact_keys(words: Ragged) -> list[bytes]:
    """The exact-copy key of each document: XXH3-128 of its word hashes (from ``tokenize_batch``).

    >>> keys = exact_keys(tokenize_batch(["Rain today.", "rain   TODAY", "today rain"]))
    >>> keys[0] == keys[1], keys[0] == keys[2]
    (True, False)
    """
    # Little-endian: the same keys on every machine. Slices of a memoryview copy nothing.
    raw = np.ascontiguousarray(words.values, dtype="<u8").view(np.uint8).data
    return list(map(hashing.xxh3_128_digest, cut(raw, 8 * words.counts)))


#: The exact-copy key of a text with no words, which is nobody's copy.
NO_WORDS_KEY = hashing.xxh3_128_digest(b"")


def first_occurrences(keys: Sequence[bytes], start: int = 0) -> np.ndarray:
    """For each key, the position of its first occurrence (plus ``start``): its exact-copy group.
    A text with no words (:data:`NO_WORDS_KEY`) is a group of its own.

    >>> first_occurrences([b"rain", b"sun", b"rain", NO_WORDS_KEY, NO_WORDS_KEY]).tolist()
    [0, 1, 0, 3, 4]
    """
    first: dict[bytes, int] = {}
    found = (first.setdefault(key, i) if key != NO_WORDS_KEY else i for i, key in enumerate(keys, start))
    return np.fromiter(found, np.int64, len(keys))


def equal_texts(group_of: np.ndarray, docs: Sequence[str]) -> np.ndarray:
    """``group_of`` (of :func:`first_occurrences`) with each group split by normalised text: equal
    keys could come from crafted word-hash collisions, and an exact copy must be an equal text.
    Only a copy whose text differs from its group's first as written is normalised again.

    >>> equal_texts(np.array([0, 0, 0, 0]), ["Rain.", "Rain.", "rain", "snow"]).tolist()
    [0, 0, 0, 3]
    """
    out = group_of.copy()
    by_text: dict[tuple[int, str], int] = {}
    for copy in np.flatnonzero(group_of != np.arange(len(group_of))).tolist():
        first = int(group_of[copy])
        if docs[copy] != docs[first]:
            if (first, "") not in by_text:  # the first's words, once per group
                by_text[first, ""] = by_text[first, " ".join(words(docs[first]))] = first
            out[copy] = by_text.setdefault((first, " ".join(words(docs[copy]))), copy)
    return out


def copy_pairs(group_of: np.ndarray) -> np.ndarray:
    """The ``(first, copy)`` pairs of a grouping by :func:`first_occurrences`, sorted: ``(m, 2)``.

    >>> copy_pairs(np.array([0, 1, 0, 1, 0])).tolist()
    [[0, 2], [0, 4], [1, 3]]
    """
    copies = np.flatnonzero(group_of != np.arange(len(group_of)))
    pairs = np.stack([group_of[copies], copies], axis=1)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def exact_groups(docs: Sequence[str]) -> list[int]:
    """For each document, the index of the first document with the same normalised text.

    >>> exact_groups(["Rain today.", "rain   TODAY", "Sun"])
    [0, 0, 2]
    """
    return equal_texts(first_occurrences(exact_keys(tokenize_batch(docs))), docs).tolist()


class Prepared(NamedTuple):
    """Documents ready to band and verify: ``sets`` (sorted distinct ids) or ``raw`` (in text order);
    an exact copy shares its first's ``signatures`` row."""

    keys: list[bytes]
    sets: Ragged
    signatures: np.ndarray
    raw: tuple[Ragged, ...] = ()


def prepare(
    docs: Sequence[str], settings: Settings, ids: str = "sets", drop: np.ndarray | None = None
) -> Prepared:
    """Normalise, key, shingle and sign a batch (each normalised text once). ``ids``: ``"sets"``,
    ``"raw"`` or ``"none"``; ``drop``: sorted ids to leave out, required with ``max_df`` (ValueError).

    >>> p = prepare(["Rain today.", "rain   TODAY", "Sun"], Settings(num_perm=8, k=1))
    >>> p.keys[0] == p.keys[1], p.sets.offsets.tolist()
    (True, [0, 2, 4, 5])
    >>> prepare(["rain rain rain"], Settings(num_perm=8, k=1)).sets.offsets.tolist()  # distinct ids
    [0, 1]
    >>> prepare(["rain rain rain"], Settings(num_perm=8, k=1), ids="raw").raw[0].offsets.tolist()
    [0, 3]
    """
    _check_id_form(ids)
    if settings.max_df is not None and drop is None:
        raise ValueError(
            f"max_df={settings.max_df!r} needs the document frequencies of the whole corpus, which only "
            "dedup computes; leave max_df unset here (the saved index and dedup_dask do not support it)"
        )
    words = tokenize_batch(docs)
    keys = exact_keys(words)
    shingles = unsorted_shingle_ids(docs, settings, words)
    if drop is not None and len(drop) and len(shingles.values):
        kept = _absent(shingles.values, drop)
        counts = np.bincount(shingles.owners()[kept].astype(np.intp, copy=False), minlength=shingles.lists)
        shingles = Ragged.from_counts(shingles.values[kept], counts)
    first_of = equal_texts(first_occurrences(keys), docs)
    signed = first_of == np.arange(len(keys))
    hasher = settings.hasher()
    signatures = np.empty((len(docs), hasher.num_perm), dtype=hasher.dtype)
    to_sign = shingles if signed.all() else shingles.take(np.flatnonzero(signed))
    signatures[signed] = sign_flat(hasher, to_sign.values, to_sign.counts)
    signatures[~signed] = signatures[first_of[~signed]]  # an exact copy has its first's signature
    if ids == "none":
        return Prepared(keys, Ragged.empty(), signatures)
    if ids == "raw":
        return Prepared(keys, Ragged.empty(), signatures, (shingles,))
    return Prepared(keys, pack_id_sets(shingles), signatures)


def _absent(ids: np.ndarray, drop: np.ndarray) -> np.ndarray:
    """Whether each of ``ids`` is missing from the sorted array ``drop``."""
    at = np.minimum(np.searchsorted(drop, ids), len(drop) - 1)
    return drop[at] != ids


class Frequent(NamedTuple):
    """The sorted ``ids`` to ignore under ``max_df``; of the ``held`` (document, shingle) pairs,
    the ``ignored`` ones."""

    ids: np.ndarray
    held: int
    ignored: int


def frequent_ids(
    counted: Sequence[tuple[np.ndarray, np.ndarray]], max_df: float | int, n_documents: int
) -> Frequent:
    """The sorted ids in more than ``max_df`` of ``n_documents``, from parts ``(ids, documents)``.

    >>> part = (np.array([3, 5, 9], dtype=np.uint64), np.array([2, 1, 1]))
    >>> found = frequent_ids([part, part], 0.5, 4)  # id 3 is in 4 of 4 documents, 5 and 9 in 2
    >>> found.ids.tolist(), found.held, found.ignored
    ([3], 8, 4)
    """
    limit = max_count(max_df, n_documents)
    ids = np.concatenate([np.empty(0, np.uint64)] + [np.asarray(i, dtype=np.uint64) for i, _ in counted])
    if not len(ids):  # no document has a shingle
        return Frequent(ids, 0, 0)
    counts = np.concatenate([np.asarray(c, dtype=np.int64) for _, c in counted])
    order, starts = sorted_runs(ids)
    totals = np.add.reduceat(counts[order], starts.astype(np.intp, copy=False))
    frequent = totals > limit
    return Frequent(ids[order[starts]][frequent], int(totals.sum()), int(totals[frequent].sum()))


def frequent_shingle_ids(docs: Sequence[str], settings: Settings, n_jobs: int = 1) -> Frequent:
    """The sorted shingle ids found in more than ``settings.max_df`` of ``docs``.

    >>> docs = ["menu rain", "menu sun", "menu wind", "storm"]
    >>> frequent_shingle_ids(docs, Settings(k=1, max_df=0.5)).ignored  # "menu" is in 3 of 4
    3
    """
    if settings.max_df is None:
        return Frequent(np.empty(0, dtype=np.uint64), 0, 0)

    def count(bound: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        sets = pack_id_sets(unsorted_shingle_ids(docs[bound[0] : bound[1]], settings))
        return np.unique(sets.values, return_counts=True)  # an id once per document holding it

    return frequent_ids(list(ordered_map(count, _chunks(docs), n_jobs)), settings.max_df, len(docs))


def _chunks(docs: Sequence[str]) -> list[tuple[int, int]]:
    """Bounds of the chunks :func:`prepare_many` cuts ``docs`` into."""
    return list(chunk_bounds(lengths_of(docs), limits.CHUNK_CHARS, limits.CHUNK_DOCS))


def _check_id_form(ids: object) -> None:
    if ids not in ("sets", "raw", "none"):
        raise ValueError(f"ids must be one of 'sets', 'raw', 'none', got {ids!r}")


def prepare_many(
    docs: Sequence[str],
    settings: Settings,
    n_jobs: int = 1,
    progress: bool = False,
    ids_budget: int | None = None,
    ids: str = "sets",
    drop: np.ndarray | None = None,
) -> Prepared:
    """:func:`prepare` in chunks on ``n_jobs`` threads, keeping at most ``ids_budget`` bytes of ids.

    >>> docs, settings = ["Rain today.", "rain   TODAY", "Sun"], Settings(num_perm=8, k=1)
    >>> bool((prepare_many(docs, settings, n_jobs=2).signatures == prepare(docs, settings).signatures).all())
    True
    >>> prepare_many(docs, settings, ids_budget=16).sets.offsets.tolist()  # the first 2 ids fit
    [0, 2]
    """
    _check_id_form(ids)
    bounds = _chunks(docs)
    collected = _Collected(len(docs), settings, ids_budget)
    with progress_bar(total=len(docs), desc="signing", unit="doc", disable=not progress) as bar:
        # Once the budget is full, chunks that start later skip sorting ids no one keeps.
        def prepare_chunk(bound: tuple[int, int]) -> Prepared:
            return prepare(docs[bound[0] : bound[1]], settings, "none" if collected.full else ids, drop)

        parts = ordered_map(prepare_chunk, bounds, n_jobs)
        for (start, stop), part in zip(bounds, parts):
            collected.add(part)
            bar.update(stop - start)
    return collected.result(ids)


class _Collected:
    """Chunk results as they arrive: signatures in one array, ids up to ``ids_budget``."""

    def __init__(self, n: int, settings: Settings, ids_budget: int | None) -> None:
        hasher = settings.hasher()
        self.room = sys.maxsize if ids_budget is None else ids_budget // 8  # ids that may still be kept
        self.parts: list[Ragged] = []
        self.kept = 0  # documents whose ids are kept
        self.signatures = np.empty((n, hasher.num_perm), dtype=hasher.dtype)
        self.keys: list[bytes] = []

    def add(self, part: Prepared) -> None:
        if not self.full:
            sets = part.raw[0] if part.raw else part.sets
            fit = int(np.searchsorted(sets.offsets, self.room, side="right")) - 1  # offsets start at 0
            offsets = sets.offsets
            self.parts.append(Ragged(sets.values[: offsets[fit]], offsets[: fit + 1]))
            self.room -= int(offsets[fit])
            self.kept += fit
        self.signatures[len(self.keys) : len(self.keys) + len(part.keys)] = part.signatures
        self.keys.extend(part.keys)

    @property
    def full(self) -> bool:
        """Whether some document's ids were left out: no more are kept."""
        return self.kept < len(self.keys)

    def result(self, ids: str) -> Prepared:
        if ids == "raw":
            return Prepared(self.keys, Ragged.empty(), self.signatures, tuple(self.parts))
        return Prepared(self.keys, Ragged.join(self.parts), self.signatures)


def check_documents(docs: object) -> Sequence[str]:
    """``docs`` if it is a sequence of str; otherwise a TypeError that says what to pass.

    >>> check_documents({"a": 1})
    Traceback (most recent call last):
        ...
    TypeError: documents must be a list (or other sequence) of str, got dict; for a dict use list(d.values())
    """
    if isinstance(docs, (str, bytes)):
        raise TypeError(
            f"dedup needs a sequence of documents, got a single {type(docs).__name__}; wrap it in a list"
        )
    if not isinstance(docs, Sequence):
        hint = "for a dict use list(d.values())" if isinstance(docs, dict) else "pass list(docs)"
        got = type(docs).__name__
        raise TypeError(f"documents must be a list (or other sequence) of str, got {got}; {hint}")
    bad = first_not_text(docs)
    if bad is None:
        return docs
    raise TypeError(f"document {bad} is {type(docs[bad]).__name__}, not str: {shown(docs[bad])}")


def check_jobs(n_jobs: object) -> int:
    """The threads ``n_jobs`` asks for (-1: one per core); 1 in the browser, with a warning.

    >>> check_jobs(1), check_jobs(-1) >= 1
    (1, True)
    >>> check_jobs(10_000)
    Traceback (most recent call last):
        ...
    ValueError: n_jobs=10000 is more workers than this machine can use: ...
    """
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, int):
        kind = type(n_jobs).__name__
        raise TypeError(f"n_jobs must be a positive int or -1 (all cores), got {kind} {n_jobs!r}")
    if n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs must be a positive int or -1 (all cores), got {n_jobs!r}")
    most = limits.most_workers()
    if n_jobs > most:
        raise ValueError(
            f"n_jobs={n_jobs} is more workers than this machine can use: at most {most} "
            f"(four per core, at most {limits.MAX_JOBS}); pass n_jobs=-1 for one per core, "
            f"or a number up to {most}"
        )
    jobs = os.cpu_count() or 1 if n_jobs == -1 else n_jobs
    if jobs > 1 and IN_BROWSER:
        warnings.warn(
            f"n_jobs={n_jobs}: the browser's Python cannot start threads, so this runs on one "
            "thread (same answer, no faster); pass n_jobs=1 to say so",
            RuntimeWarning,
            stacklevel=3,
        )
        return 1
    return jobs


class _Clock:
    """Seconds per stage; a stage entered inside another pauses it (verification runs in banding)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._running: list[str] = []
        self._since = time.perf_counter()

    def _switch(self) -> None:
        now = time.perf_counter()
        if self._running:
            stage = self._running[-1]
            self.seconds[stage] = self.seconds.get(stage, 0.0) + now - self._since
        self._since = now

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        self._switch()
        self._running.append(name)
        try:
            yield
        finally:
            self._switch()
            self._running.pop()

    def timed(
        self, name: str, func: Callable[[np.ndarray], np.ndarray]
    ) -> Callable[[np.ndarray], np.ndarray]:
        def run(arg: np.ndarray) -> np.ndarray:
            with self.stage(name):
                return func(arg)

        return run


def looks_unspaced(docs: Sequence[str], settings: Settings) -> bool:
    """True when word shingles meet documents mostly one "word" long (text written without spaces).

    >>> looks_unspaced(["今日は雨が降っています。", "明日は晴れるでしょう。"], Settings())
    True
    """
    if settings.shingle != "word" or not docs:
        return False
    sample = docs[:: max(1, len(docs) // 200)]
    # The start of a document tells: normalising all of it would be the tokenizer's work twice.
    head = limits.SPACES_SAMPLE_CHARS
    single = [d for d in sample if len(d) >= 8 and len(words(d[:head])) <= 1]
    return 2 * len(single) > len(sample)


def _has_shingles(signatures: np.ndarray, settings: Settings) -> np.ndarray:
    """Whether each signature is not the empty set's (a document left with no shingle)."""
    empty = empty_value(settings.scheme)
    out = signatures[:, 0] != empty
    maybe = np.flatnonzero(~out)  # a full row is compared only where the first value says "empty"
    out[maybe] = (signatures[maybe] != empty).any(axis=1)
    return out


def candidates_warning(result: DedupResult) -> str | None:
    """The warning, with its remedy, when candidate pairs exploded and nine in ten failed; else None.

    >>> candidates_warning(dedup(["rain today in the city", "sun"], k=1)) is None
    True
    """
    stats = result.stats.get("candidates", {})
    n = max(result.stats.get("exact", {}).get("documents", 0), 1)
    proposed, checked = stats.get("proposed", 0), stats.get("pairs", 0)
    verified = result.stats.get("verified", {}).get("pairs", 0)
    if proposed / n <= limits.CANDIDATES_PER_DOCUMENT or verified * 10 >= checked:
        return None
    return (
        f"the bands proposed {int(proposed)} candidate pairs, {proposed / n:.0f} per document, and "
        f"{int(checked - verified)} of the {int(checked)} checked were not near-duplicates: many "
        "documents share text that is not theirs (a template, menus, licences), and the pairs grow "
        "with the square of their number; ignore shingles most documents share with max_df=0.5 "
        "(--max-df 0.5), or raise the threshold"
    )


def max_df_warning(settings: Settings, ignored: dict[str, float], n: int) -> str | None:
    """What to say when ``max_df`` ignores most of the documents' shingles, or leaves most
    documents with none (``ignored``: the ``max_df`` stats of :func:`dedup`); else None.

    >>> print(max_df_warning(Settings(max_df=1), {"shingles": 9, "share": 0.9, "left_empty": 5}, 10))
    ... # doctest: +ELLIPSIS
    max_df=1 ignores 90% of the documents' shingles (9 shingles in more than 1 document) and ...
    """
    share, empty, many = ignored["share"], int(ignored["left_empty"]), int(ignored["shingles"])
    if share <= 0.5 and 2 * empty <= n:
        return None
    limit = max_count(settings.max_df, n)
    return (
        f"max_df={settings.max_df!r} ignores {share:.0%} of the documents' shingles ({many} "
        f"shingles in more than {limit:g} document{'' if limit == 1 else 's'}) and leaves {empty} of {n} "
        "documents with none, compared with nothing; an int max_df counts documents, a float is a share "
        "of them: for example max_df=0.5"
    )


def keep_verified(
    settings: Settings, prepared: Prepared, score: Callable[[np.ndarray], np.ndarray] | None = None
) -> Callable[[np.ndarray], np.ndarray]:
    """The test candidate pairs ``(m, 2)`` must pass; exact verification needs the sets or ``score``.

    >>> p = prepare(["a b c d", "a b c e"], Settings(num_perm=8, k=1))
    >>> keep_verified(Settings(threshold=0.6, k=1), p)(np.array([[0, 1]])).tolist()
    [True]
    """
    if settings.verify == "exact":
        if score is None and prepared.raw:
            raise ValueError("exact verification reads sorted id sets: prepare with ids='sets'")
        if score is None and prepared.sets.lists < len(prepared.keys):
            raise ValueError("exact verification needs every document's id set, or a score function")
        exact = score or partial(jaccard_of_pairs, prepared.sets)
        return lambda pairs: exact(pairs) >= settings.threshold
    if settings.verify == "none":
        return lambda pairs: np.ones(len(pairs), dtype=bool)
    sigs, threshold = prepared.signatures, settings.threshold
    return lambda pairs: np.asarray(settings.estimate(sigs[pairs[:, 0]], sigs[pairs[:, 1]])) >= threshold


def dedup(
    docs: Sequence[str],
    threshold: float = 0.8,
    num_perm: int = 128,
    k: int = 5,
    *,
    n_jobs: int = 1,
    progress: bool = False,
    **options: Any,
) -> DedupResult:
    """Find near-duplicate documents and keep one per cluster.

    Exact copies are joined, one copy of each text signed and banded, and each candidate pair not
    yet joined verified; clusters are connected components. ``n_jobs``: threads (-1: all cores);
    other keywords are :class:`~neardup_lab.settings.Settings` fields. ``progress``: a bar.

    >>> docs = ["the heavy rain closed schools in the coastal district today",
    ...         "The heavy rain closed schools in the coastal district today!",
    ...         "the heavy rain closed schools in the coastal district on monday",
    ...         "a new bridge opened over the river"]
    >>> result = dedup(docs, threshold=0.5, k=3)
    >>> result.clusters, result.keepers, result.copies, result.pairs
    ([[0, 1, 2], [3]], [0, 3], [(0, 1)], [(0, 2)])
    """
    settings = Settings(threshold=threshold, num_perm=num_perm, k=k, **options)
    check_documents(docs)
    jobs = check_jobs(n_jobs)
    if looks_unspaced(docs, settings):
        warnings.warn(
            "most documents are a single word: text written without spaces needs "
            "shingle='char' (word shingles would miss its near-duplicates)",
            UserWarning,
            stacklevel=2,
        )
    clock, exact, n = _Clock(), settings.verify == "exact", len(docs)
    with clock.stage("signatures"):  # the exact-copy keys are computed here too
        frequent = None if settings.max_df is None else frequent_shingle_ids(docs, settings, jobs)
        drop = None if frequent is None else frequent.ids
        # With max_df every document's ids are kept: ids derived again would hold frequent ones.
        budget = limits.IDS_BUDGET if exact and drop is None else None if exact else 0
        prepared = prepare_many(docs, settings, jobs, bool(progress), budget, ids="raw", drop=drop)

    with clock.stage("exact"):
        group_of = equal_texts(first_occurrences(prepared.keys), docs)
        reps = np.flatnonzero(group_of == np.arange(n))
        banded = reps[_has_shingles(prepared.signatures[reps], settings)]  # no shingle, no partner
        with_words = 0 if drop is None else sum(prepared.keys[i] != NO_WORDS_KEY for i in reps.tolist())
        copies = copy_pairs(group_of)

    with clock.stage("candidates"):
        signatures = settings.banded(prepared.signatures)
        prepared = prepared._replace(signatures=signatures)
        keys = BandKeys.of(signatures, settings.bands, settings.rows, banded)
        banding = band_groups(signatures, settings.bands, settings.rows, jobs, keys=keys)
        groups = [band.shared() for band in banding]
        del signatures
        if settings.verify != "estimate":  # banding was the signatures' last use: free them
            empty = np.empty((0, settings.num_perm), prepared.signatures.dtype)
            prepared = prepared._replace(signatures=empty)

    with clock.stage("verified"):
        if exact:  # only documents in a band group are ever verified: sort only their ids
            in_groups = np.zeros(n, dtype=bool)
            for band in groups:
                in_groups[band.order] = True
            kept = in_groups[: sum(part.lists for part in prepared.raw)]
            prepared = prepared._replace(sets=sorted_sets(prepared.raw, kept, jobs), raw=())
        score = None
        if exact and prepared.sets.lists < n:  # ids past the budget are derived again
            score = partial(jaccard_from_texts, docs, settings, n_jobs=jobs, kept=prepared.sets)
        keep = clock.timed("verified", keep_verified(settings, prepared, score))

    with clock.stage("candidates"):  # proposing pairs and skipping those joined; the checks are "verified"
        found = verified_edges(n, groups, keep, joined=copies, refine=keys.refine)
        del prepared, groups, keep  # the clusters need only the pairs
        verified = found.edges[np.lexsort((found.edges[:, 1], found.edges[:, 0]))]

    with clock.stage("clusters"):
        clusters = clusters_from_pair_array(n, np.concatenate([copies, verified]))
        lengths = [len(d) for d in docs] if settings.keeper == "longest" else None
        keepers = choose_keepers(clusters, settings.keeper, lengths=lengths)

    counts: dict[str, dict[str, float]] = {  # the stages in the order they are taught
        "exact": {"documents": n, "unique": len(reps), "copies": len(copies)},
        "signatures": {"signed": n},
        "candidates": {
            "pairs": found.checked,
            "per_document": found.checked / max(n, 1),
            "proposed": found.proposed,
            "capped_buckets": found.capped,
            "not_checked": found.unchecked,
        },
        "verified": {"pairs": len(verified)},
        "clusters": {"clusters": len(clusters), "kept": len(keepers), "removed": n - len(keepers)},
    }
    stats = {stage: {**c, "seconds": clock.seconds.get(stage, 0.0)} for stage, c in counts.items()}
    if frequent is not None:  # what max_df ignored: not a stage, so no seconds
        ignored = {
            "shingles": len(frequent.ids),
            "share": frequent.ignored / max(frequent.held, 1),
            "left_empty": with_words - len(banded),  # texts with words left with no shingle
        }
        stats["max_df"] = {**ignored}
        if warning := max_df_warning(settings, ignored, n):
            warnings.warn(warning, UserWarning, stacklevel=2)
    return DedupResult(
        pairs=pair_tuples(verified),
        clusters=clusters,
        keepers=keepers,
        copies=pair_tuples(copies),
        settings=settings,
        stats=stats,
    )
