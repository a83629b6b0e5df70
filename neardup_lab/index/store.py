"""A saved near-duplicate index for documents that arrive in batches; its folder's format is
:mod:`~neardup_lab.index.fileformat`. Band tables are rebuilt from the signatures, not saved.

>>> import tempfile, os
>>> with tempfile.TemporaryDirectory() as tmp:
...     index = SavedIndex(Settings(threshold=0.5, k=2))
...     _ = index.add(["a"], ["heavy rain in the city today"])
...     index.save(os.path.join(tmp, "idx"))
...     again = SavedIndex.open(os.path.join(tmp, "idx"))
...     [m.id for m in again.query(["heavy rain in the city"])[0]]
['a']
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..engine.banding import BandGroups, BandKeys, unique_pairs
from ..engine.pipeline import Prepared, check_documents, first_occurrences, prepare_many
from ..engine.verify import jaccard_of_pairs, verified_edges
from ..lsh import band_hashes
from ..settings import Settings
from ..support import limits
from ..support.spans import Ragged, span_positions
from ..support.validate import shown
from .fileformat import (
    FORMAT_VERSION,
    NORMALIZATION,
    SHINGLE_HASH,
    CorruptIndexError,
    IndexBusyError,
    IndexExistsError,
    IndexVersionError,
    OnDisk,
    SettingsMismatchError,
    StoreError,
    check_index_settings,
    pack_strings,
    read_index,
    write_new,
    write_update,
)
from .sources import FileIdentity, identify

# The errors of the file format are raised through SavedIndex, so they are importable from here too.
__all__ = ["Match", "SavedIndex", "StoreError", "CorruptIndexError", "IndexVersionError"]
__all__ += ["SettingsMismatchError", "IndexBusyError", "IndexExistsError", "FileAddedError"]


class FileAddedError(StoreError):
    """An input file was added to the index before (under this or another path)."""


@dataclass(frozen=True)
class Match:
    """A verified near-duplicate of a queried document: ``position`` counts documents in the index
    (``in_index``) or in the batch; ``exact``: the normalised texts are equal."""

    id: str
    position: int
    jaccard: float
    exact: bool
    in_index: bool

    def to_dict(self) -> dict:
        """The match as plain data.

        >>> Match("a", 0, 1.0, True, True).to_dict()["in"]
        'index'
        """
        where = "index" if self.in_index else "batch"
        return {"id": self.id, "jaccard": self.jaccard, "exact": self.exact, "in": where}


class _BandTable(NamedTuple):
    """Per band (a row each): some documents' band keys, sorted, and those documents."""

    keys: np.ndarray
    docs: np.ndarray


def _band_keys(signatures: np.ndarray, settings: Settings) -> np.ndarray:
    return band_hashes(signatures, settings.bands, settings.rows)


def _band_table(keys: np.ndarray, docs: np.ndarray) -> _BandTable:
    order = np.argsort(keys, axis=0, kind="stable")
    return _BandTable(np.take_along_axis(keys, order, axis=0).T, docs[order].T)


class _Shared(NamedTuple):
    """Pairs ``(query, doc)`` sharing a band, and the buckets the budget kept out of them."""

    pairs: np.ndarray
    big: list[np.ndarray]  # per band, the keys looked up whose buckets hold more than limits.BUCKET_SIZE
    met: np.ndarray  # per query, whether it looked up such a bucket


def _sharing_a_band(table: _BandTable, queries: np.ndarray) -> _Shared:
    """Every ``(query, doc)`` sharing a band key, once (equal keys are equal bands but for a 2**-64
    chance; every pair is verified anyway); a bucket of more than ``limits.BUCKET_SIZE`` documents
    gives its key instead, for dedup's budget. ``limits.QUERY_BATCH`` queries at a time: bounded memory."""
    width = int(table.docs.max(initial=0)) + 1
    found = [np.empty((0, 2), dtype=np.int64)]
    big: list[list[np.ndarray]] = [[np.empty(0, dtype=np.uint64)] for _ in table.keys]
    met = np.zeros(len(queries), dtype=bool)
    for first in range(0, len(queries), limits.QUERY_BATCH):
        codes = [np.empty(0, dtype=np.int64)]  # query * width + doc: one sortable int per pair
        batch = queries[first : first + limits.QUERY_BATCH]
        for band, (band_keys, band_docs, wanted) in enumerate(zip(table.keys, table.docs, batch.T)):
            lo = np.searchsorted(band_keys, wanted, side="left")
            counts = np.searchsorted(band_keys, wanted, side="right") - lo
            capped = counts > limits.BUCKET_SIZE
            if capped.any():
                big[band].append(np.unique(wanted[capped]))
                met[first + np.flatnonzero(capped)] = True
                counts[capped] = 0
            hits = band_docs[span_positions(lo, counts)]
            codes.append(np.repeat(np.arange(len(wanted), dtype=np.int64) * width, counts) + hits)
        query, doc = np.divmod(np.unique(np.concatenate(codes)), width)
        found.append(np.stack([query + first, doc], axis=1))
    return _Shared(np.concatenate(found), [np.unique(np.concatenate(keys)) for keys in big], met)


def _buckets(tables: list[tuple[_BandTable, int]], keys: list[np.ndarray]) -> list[BandGroups]:
    """Per band, the buckets of ``keys`` (that band's): the documents of every table (its numbers
    plus its shift) with the key, in document order, so that a bucket's anchors are its earliest."""
    groups = []
    for band, wanted in enumerate(keys):
        docs, which = [np.empty(0, dtype=np.int64)], [np.empty(0, dtype=np.int64)]
        for table, shift in tables:
            lo = np.searchsorted(table.keys[band], wanted, side="left")
            counts = np.searchsorted(table.keys[band], wanted, side="right") - lo
            docs.append(table.docs[band][span_positions(lo, counts)].astype(np.int64) + shift)
            which.append(np.repeat(np.arange(len(wanted), dtype=np.int64), counts))
        doc, key = np.concatenate(docs), np.concatenate(which)
        order = np.lexsort((doc, key))
        doc, key = doc[order], key[order]
        starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else np.empty(0, dtype=np.int64)
        groups.append(BandGroups(doc, starts.astype(np.int64)))
    return groups


class SavedIndex:
    """Ids, exact-copy keys, sorted shingle ids and signatures of the documents seen so far.

    ``settings`` are fixed for the life of the index; it verifies with the exact Jaccard and keeps
    every document, so ``verify``, ``bbits`` and ``keeper`` keep their defaults (ValueError otherwise).

    >>> index = SavedIndex(Settings(threshold=0.5, k=2))
    >>> found = index.add(["old"], ["heavy rain in the city"])
    >>> found = index.add(["new", "newer"], ["heavy rain in the city today", "a quiet day"])
    >>> [[(m.id, round(m.jaccard, 2)) for m in ms] for ms in found]
    [[('old', 0.8)], []]
    """

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = check_index_settings(Settings() if settings is None else settings)
        hasher = self.settings.hasher()
        self._ids: list[str] = []
        self._id_set: set[str] = set()
        self._keys: list[bytes] = []
        self._first_by_key: dict[bytes, int] = {}
        self._sets = Ragged.empty()
        self._signatures = np.empty((0, hasher.num_perm), dtype=hasher.dtype)
        self._table: _BandTable | None = None
        self._disk: OnDisk | None = None
        self._files: dict[FileIdentity, str] = {}  # input files added, and the name each was added by
        #: Since this object was made, buckets of over limits.BUCKET_SIZE documents checked on the
        #: budget and the pairs it left unchecked, counted as dedup's ``capped_buckets`` and ``not_checked``.
        self.capped = self.not_checked = 0

    def __len__(self) -> int:
        return len(self._ids)

    def __repr__(self) -> str:
        return f"SavedIndex({len(self)} documents, {self.settings})"

    @property
    def ids(self) -> list[str]:
        """Document ids in the order they were added."""
        return list(self._ids)

    @property
    def signatures(self) -> np.ndarray:
        """The ``(n, num_perm)`` signature matrix (read-only view)."""
        view = self._signatures.view()
        view.flags.writeable = False
        return view

    def query(self, texts: Sequence[str], *, progress: bool = False) -> list[list[Match]]:
        """Near-duplicates in the index of each text, best first; the index is not changed.

        >>> index = SavedIndex(Settings(threshold=0.5, k=2))
        >>> _ = index.add(["a"], ["heavy rain in the city"])
        >>> [[m.id for m in ms] for ms in index.query(["heavy rain in the city", "sunny"])]
        [['a'], []]
        """
        batch, sets = self._prepare(check_documents(texts), progress)
        return self._matches(batch, None, sets)

    def add(
        self,
        ids: Sequence[str],
        texts: Sequence[str],
        *,
        progress: bool = False,
        files: Sequence[str | os.PathLike] = (),
        repeat_files: bool = False,
    ) -> list[list[Match]]:
        """Insert a batch; return, for each document, its matches found *before* it was inserted.

        Every document is inserted, copies included; matches come from the index and the batch's
        earlier documents (the first of exact copies). Ids must be new and unique. ``files``, the
        batch's input files, are remembered: one added before (same inode and bytes) raises
        :class:`FileAddedError` unless ``repeat_files``. On an error nothing is inserted.

        >>> index = SavedIndex(Settings(threshold=0.5, k=2))
        >>> found = index.add(["a", "b"], ["heavy rain in the city", "Heavy rain in the city!"])
        >>> [[(m.id, m.exact, m.in_index) for m in ms] for ms in found], len(index)
        ([[], [('a', True, False)]], 2)
        """
        ids = self._check_new_ids(ids, check_documents(texts))
        new_files = self._check_new_files(files, repeat_files)
        batch, sets = self._prepare(texts, progress)
        found = self._matches(batch, ids, sets)
        self._insert(ids, batch.keys, sets, np.concatenate([self._signatures, batch.signatures]))
        self._files.update(new_files)
        return found

    def _prepare(self, texts: Sequence[str], progress: bool) -> tuple[Prepared, Ragged]:
        """The batch prepared, and the id sets of the index followed by the batch's."""
        batch = prepare_many(texts, self.settings, progress=progress)
        assert isinstance(batch.sets, Ragged)  # prepared with ids="sets"
        return batch, Ragged.join([self._sets, batch.sets])

    def _check_new_files(self, files: Sequence[str | os.PathLike], repeat: bool) -> dict[FileIdentity, str]:
        if isinstance(files, (str, bytes, os.PathLike)):
            raise TypeError("files must be a list of paths; wrap a single path in a list")
        new: dict[FileIdentity, str] = {}
        for path in files:
            identity = identify(path)
            if identity is None:
                continue  # gone or unreadable since it was read: nothing to compare
            name = Path(path).as_posix()
            if identity in self._files and not repeat:
                raise FileAddedError(
                    f"the input file {name} was added to this index before, as {self._files[identity]} "
                    "(the same file, unchanged, by another path or link); adding a file twice is "
                    "refused, and nothing changed. Leave it out of the inputs, or add its documents again "
                    "under other ids (--id-prefix; repeat_files=True in the API)"
                )
            new.setdefault(identity, name)
        return new

    def _insert(self, ids: list[str], keys: list[bytes], sets: Ragged, signatures: np.ndarray) -> None:
        """Append documents; ``sets`` and ``signatures`` are those of the whole index after it."""
        start = len(self)
        self._ids.extend(ids)
        self._id_set.update(ids)
        self._keys.extend(keys)
        for key, first in zip(keys, first_occurrences(keys, start).tolist()):
            self._first_by_key.setdefault(key, first)
        self._sets, self._signatures, self._table = sets, signatures, None

    def _check_new_ids(self, ids: Sequence[str], texts: Sequence[str]) -> list[str]:
        if isinstance(ids, (str, bytes)):
            raise TypeError("ids must be a list of str; wrap a single id in a list")
        ids = list(ids)
        if len(ids) != len(texts):
            raise ValueError(f"got {len(ids)} ids for {len(texts)} texts; give one id per text")
        for doc_id in ids:
            if not isinstance(doc_id, str) or not doc_id or "\x00" in doc_id:
                raise ValueError(f"an id must be a non-empty str without NUL characters, got {shown(doc_id)}")
        first: dict[str, int] = {}
        repeated = [doc_id for n, doc_id in enumerate(ids) if first.setdefault(doc_id, n) != n]
        known = [i for i in ids if i in self._id_set]
        clash = known or repeated
        if clash:
            where = "already in the index" if known else "repeated in this batch"
            more = f" (and {len(clash) - 1} more)" if len(clash) > 1 else ""
            raise ValueError(
                f"document id {clash[0]!r}{more} {where}; ids must be unique. If these documents "
                "were added before, there is nothing to do; otherwise give them other ids"
            )
        return ids

    def _index_table(self) -> _BandTable:
        if self._table is None:  # the index's representatives
            firsts = np.fromiter(self._first_by_key.values(), dtype=np.int64, count=len(self._first_by_key))
            self._table = _band_table(_band_keys(self._signatures[firsts], self.settings), firsts)
        return self._table

    def _candidates(self, batch: Prepared, within_batch: bool, sets: Ragged) -> tuple[np.ndarray, np.ndarray]:
        """Pairs ``(batch document, index + batch document)`` sharing a band, and their Jaccard.
        Only representatives are compared with (copies would find the same candidates and make
        buckets huge); big buckets go to :meth:`_budgeted`."""
        n, queries = len(self), _band_keys(batch.signatures, self.settings)
        tables = [(self._index_table(), 0)]
        shared = [_sharing_a_band(tables[0][0], queries)]
        if within_batch:
            group = first_occurrences(batch.keys)
            firsts = np.flatnonzero(group == np.arange(len(group)))
            firsts = firsts[[batch.keys[j] not in self._first_by_key for j in firsts.tolist()]]
            tables.append((_band_table(queries[firsts], firsts), n))
            shared.append(_sharing_a_band(tables[1][0], queries))
            pairs = shared[-1].pairs
            shared[-1] = shared[-1]._replace(pairs=pairs[pairs[:, 1] < pairs[:, 0]] + [0, n])
        pairs = np.concatenate([s.pairs for s in shared])
        met = np.logical_or.reduce([s.met for s in shared])
        if not met.any():
            return pairs, jaccard_of_pairs(sets, pairs + [n, 0])
        # A document of the batch that meets a big bucket is paired with its first exact copy here:
        # it is not a member of the buckets checked on the budget (its first is, or is in the index).
        first = [self._first_by_key.get(key, -1) for key in batch.keys]
        if within_batch:
            first = [f if f >= 0 or g == j else n + g for j, (f, g) in enumerate(zip(first, group.tolist()))]
        copies = np.array([(j, f) for j, f in enumerate(first) if f >= 0 and met[j]], dtype=np.int64)
        pairs = unique_pairs(np.concatenate([pairs, copies.reshape(-1, 2)]))
        similarity = jaccard_of_pairs(sets, pairs + [n, 0])
        if not within_batch:  # the queries themselves, to meet their buckets
            tables.append((_band_table(queries, np.arange(len(queries))), n))
        keys = [np.unique(np.concatenate(found)) for found in zip(*(s.big for s in shared))]
        joined = pairs[similarity >= self.settings.threshold][:, ::-1] + [0, n]
        edges = self._budgeted(_buckets(tables, keys), queries, sets, joined, within_batch)
        more = np.stack([edges[:, 1] - n, edges[:, 0]], axis=1)
        pairs = np.concatenate([pairs, more])
        similarity = np.concatenate([similarity, jaccard_of_pairs(sets, edges)])
        kept = np.unique(pairs[:, 0] * (n + len(queries)) + pairs[:, 1], return_index=True)[1]
        return pairs[kept], similarity[kept]

    def _budgeted(
        self,
        buckets: list[BandGroups],
        queries: np.ndarray,
        sets: Ragged,
        joined: np.ndarray,
        within_batch: bool,
    ) -> np.ndarray:
        """The verified pairs ``(document, batch document)`` (numbered: the index, then the batch)
        of big buckets, by :func:`~neardup_lab.engine.verify.verified_edges`, skipping pairs that
        ``joined`` (the pairs verified so far) already links. Two index documents are never paired;
        two queries neither unless ``within_batch``."""
        n, threshold = len(self), self.settings.threshold
        members = np.unique(np.concatenate([np.empty(0, dtype=np.int64), *(b.order for b in buckets)]))
        stored, new = members[members < n], members[members >= n]
        stored_keys = _band_keys(self._signatures[stored], self.settings)
        band_keys = BandKeys(members, np.concatenate([stored_keys, queries[new - n]]))

        def keep(pairs: np.ndarray) -> np.ndarray:
            good = np.ones(len(pairs), dtype=bool) if within_batch else pairs[:, 0] < n
            good[good] = jaccard_of_pairs(sets, pairs[good]) >= threshold
            return good

        found = verified_edges(n + len(queries), buckets, keep, joined, band_keys.refine, old=n)
        self.capped += found.capped
        self.not_checked += found.unchecked
        return found.edges

    def _matches(self, batch: Prepared, ids: list[str] | None, sets: Ragged) -> list[list[Match]]:
        """Each batch document's verified matches, best first; ``sets``: the index's id sets, then the
        batch's; ``ids`` names the batch's documents when they are matched with each other too."""
        n, batch_ids = len(self), ids or []
        pairs, similarity = self._candidates(batch, ids is not None, sets)
        has_shingles = sets.counts > 0  # a text without shingles is nobody's match, as in dedup
        kept = similarity >= self.settings.threshold
        kept &= has_shingles[pairs[:, 0] + n] & has_shingles[pairs[:, 1]]
        doc, other, similarity = pairs[kept, 0], pairs[kept, 1], similarity[kept]
        in_index = other < n
        position = np.where(in_index, other, other - n)
        order = np.lexsort((position, ~in_index, -similarity, doc))
        found: list[list[Match]] = [[] for _ in batch.keys]
        for j, p, s, inside in zip(*(a[order].tolist() for a in (doc, position, similarity, in_index))):
            name, key = (self._ids[p], self._keys[p]) if inside else (batch_ids[p], batch.keys[p])
            found[j].append(Match(name, p, s, key == batch.keys[j], inside))
        return found

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The index as the arrays of its data file (:data:`~neardup_lab.index.fileformat.ARRAYS`).

        >>> sorted(SavedIndex().to_arrays())[:4]
        ['exact_keys', 'id_offsets', 'ids', 'shingle_ids']
        """
        keys = np.frombuffer(b"".join(self._keys), dtype="<u8").reshape(len(self._keys), 2)
        id_offsets, id_bytes = pack_strings(self._ids)
        name_offsets, names = pack_strings(list(self._files.values()))
        files = list(self._files)
        digests = np.frombuffer(b"".join(f.digest for f in files), dtype=np.uint8)
        return {
            "ids": id_bytes,
            "id_offsets": id_offsets,
            "signatures": np.ascontiguousarray(self._signatures),
            "shingle_offsets": self._sets.offsets.astype(np.int64, copy=False),
            "shingle_ids": self._sets.values.astype(np.uint64, copy=False),
            "exact_keys": keys.astype(np.uint64),
            "source_names": names,
            "source_name_offsets": name_offsets,
            "source_inodes": np.array([f[:2] for f in files], dtype=np.uint64).reshape(len(files), 2),
            "source_digests": digests.reshape(len(files), 32),
        }

    def save(self, path: str | os.PathLike) -> None:
        """Write the index to the folder ``path`` atomically: a new index to a new path, an opened
        one back where it was opened, if no other run changed it meanwhile.

        >>> import os, tempfile
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     SavedIndex().save(os.path.join(tmp, "idx"))
        ...     sorted(os.listdir(os.path.join(tmp, "idx")))
        ['.lock', 'data-000001.npz', 'index.json']
        """
        folder = Path(path)
        if self._disk is None:
            self._disk = write_new(folder, self.to_arrays(), self.settings)
        elif not _same_folder(folder, self._disk.folder):
            raise StoreError(
                f"this index was opened from {self._disk.folder.as_posix()} and can only be saved back there"
            )
        else:
            self._disk = write_update(self._disk, self.to_arrays(), self.settings)

    @classmethod
    def open(cls, path: str | os.PathLike, expect: Mapping[str, object] | None = None) -> SavedIndex:
        """Load a saved index; check its format, checksum, arrays and, if given, settings.

        ``expect`` maps setting names to the values the caller needs; a difference raises
        :class:`SettingsMismatchError`. Raises the errors of :func:`~neardup_lab.index.fileformat.read_index`.

        >>> import os, tempfile
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     SavedIndex(Settings(num_perm=64)).save(os.path.join(tmp, "idx"))
        ...     try:
        ...         SavedIndex.open(os.path.join(tmp, "idx"), expect={"num_perm": 128})
        ...     except SettingsMismatchError as err:
        ...         print(str(err).split("(")[1].split(")")[0])
        num_perm: index has 64, this run asks for 128
        """
        loaded = read_index(Path(path))
        arrays, disk, expect = loaded.arrays, loaded.disk, expect or {}
        diffs = [
            f"{name}: index has {ours!r}, this run asks for {expect[name]!r}"
            for name, ours in loaded.settings.differing(expect).items()
        ]
        if diffs:
            raise SettingsMismatchError(
                f"the index {disk.folder.as_posix()} was built with other settings ({'; '.join(diffs)}); "
                "leave these options out to use the index's settings, or build a new index"
            )
        index = cls(loaded.settings)
        keys = [row.tobytes() for row in arrays["exact_keys"].astype("<u8")]
        sets = Ragged(arrays["shingle_ids"], arrays["shingle_offsets"])
        index._insert(loaded.ids, keys, sets, arrays["signatures"])
        inodes, digests = arrays["source_inodes"].tolist(), arrays["source_digests"]
        for (device, inode), digest, name in zip(inodes, digests, loaded.source_names):
            index._files[FileIdentity(device, inode, digest.tobytes())] = name
        index._disk = disk
        return index

    def info(self) -> dict:
        """Plain data: the format it was read in (new: the code's), counts, generation, stamps, settings.

        >>> SavedIndex().info()["documents"]
        0
        """
        read_in = json.loads(self._disk.meta_bytes)["format_version"] if self._disk else FORMAT_VERSION
        return {
            "format_version": read_in,
            "documents": len(self),
            "distinct_texts": len(self._first_by_key),
            "generation": self._disk.generation if self._disk else 0,
            "normalization": NORMALIZATION,
            "shingle_hash": SHINGLE_HASH,
            **self.settings.to_dict(),
        }


def _same_folder(one: Path, other: Path) -> bool:
    """Whether two paths lead to one folder (a link or a bind mount names it twice; paths that cannot
    be reached compare as text)."""
    try:
        return os.path.samefile(one, other)
    except OSError:
        return os.path.abspath(one) == os.path.abspath(other)
