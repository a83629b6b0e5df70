"""A saved near-duplicate index on disk, for documents that arrive in batches.

A :class:`SavedIndex` keeps, for every document it has seen: its id, its
MinHash signature, its shingle ids (sorted uint64 hashes, so matches are
verified with the *exact* Jaccard similarity, not an estimate), and a
128-bit hash of its normalised text (to tell exact copies apart). Adding a
batch queries each new document against the index *and* against the
earlier documents of the same batch before inserting it.

On disk an index is a folder::

    my-index/
        index.json          format version, settings, document count, checksum
        data-000003.npz     ids, signatures, shingle ids and offsets, exact keys,
                            and a header repeating everything index.json says but the checksum
        .lock               taken while a run writes

``index.json`` names the current data file and its SHA-256. The data file
repeats the settings, document count and generation, so the checksum covers
every setting that shapes the bits: an edited ``index.json`` is refused as
damaged, naming the field, instead of giving wrong answers. The arrays are
plain numbers and unicode strings, loaded with ``allow_pickle=False``, so
opening an index never runs code. A change is written as a new data file
(temporary name, fsync, rename) and then committed by atomically replacing
``index.json``: a run killed at any moment leaves the old index intact. The
next save removes what a killed run left behind; a reader that finds the data
file gone (a writer committed and removed it meanwhile) reads ``index.json``
again.

Band tables are not stored: they are rebuilt on open from the signatures
(one sort per band), which keeps the format small and simple.

>>> import tempfile, os
>>> with tempfile.TemporaryDirectory() as tmp:
...     index = SavedIndex(IndexSettings(threshold=0.5, shingle_size=2))
...     _ = index.add(["a"], ["heavy rain in the city today"])
...     index.save(os.path.join(tmp, "idx"))
...     again = SavedIndex.open(os.path.join(tmp, "idx"))
...     [m.id for m in again.query(["heavy rain in the city"])[0]]
['a']
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import re
import shutil
import stat
import tempfile
import time
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import IO

import numpy as np
import xxhash

from .fastpath import shingle_id_batch
from .hashing import hash_shingles, splitmix64
from .lsh import _check_banding, optimal_params
from .minhash import SCHEMES, MinHasher
from .pipeline import RECALL_WEIGHTS
from .settings import MAX_NUM_PERM, MAX_SHINGLE_SIZE
from .text import char_shingles, normalize

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "MAX_NUM_PERM",
    "MAX_SHINGLE_SIZE",
    "NORMALIZATION",
    "SHINGLE_HASH",
    "StoreError",
    "CorruptIndexError",
    "IndexVersionError",
    "SettingsMismatchError",
    "IndexBusyError",
    "IndexExistsError",
    "IndexSettings",
    "Match",
    "SavedIndex",
    "atomic_writer",
]

FORMAT_NAME = "neardup-lab-index"
#: Version 2 repeats the settings inside the data file, under its checksum.
FORMAT_VERSION = 2
#: Name of the text normalisation the shingles are taken after (``neardup_lab.text.normalize``).
NORMALIZATION = "nfkc-casefold-punctuation-to-space/1"
#: How shingles become ids, the same way ``dedup`` makes them (word shingles as in
#: ``fastpath.shingle_id_batch``, char shingles with ``hashing.hash_shingles``).
SHINGLE_HASH = "word:fastpath-ngram-ids/1;char:xxh3-64-utf8/1"
META_NAME = "index.json"
LOCK_NAME = ".lock"
_BUILD_MARKER = ".building"  # in a staging folder, locked while its build runs
# What a staging folder may hold; a folder with anything else is not ours to delete.
_STAGED_NAME = re.compile(r"\.lock|\.building|index\.json|data-\d{6,}\.npz|\.tmp-.+")
_DATA_NAME = re.compile(r"data-(\d{6,})\.npz")
_ARRAYS = ("ids", "signatures", "shingle_offsets", "shingle_ids", "exact_keys")
_HEADER = "header"  # data-file member: JSON of the index.json fields that shape the bits
_META_KEYS = (
    "format",
    "format_version",
    "settings",
    "documents",
    "generation",
    "data_file",
    "data_sha256",
    "written_by",
)
_HEADER_KEYS = ("format", "format_version", "settings", "documents", "generation")
_MAX_META_BYTES = 1 << 20
_UNMARKED_BUILD_SECONDS = 600  # a build marks its staging folder within microseconds
_MAX_DIGITS = 40  # longer integers in index.json are damage, never a count or a seed
_OPEN_ATTEMPTS = 20  # re-reads of index.json when writers keep replacing the data file
_SHINGLE_KINDS = ("word", "char")
_CHUNK = 2000  # documents per step of the progress bar


class StoreError(Exception):
    """Base class: an index cannot be opened or written. The message says why and what to do."""


class CorruptIndexError(StoreError):
    """The files are damaged, incomplete, tampered with, or not an index at all."""


class IndexVersionError(StoreError):
    """The index was written in a newer format than this version of neardup_lab reads."""


class SettingsMismatchError(StoreError):
    """The caller asked for settings that differ from those the index was built with."""


class IndexBusyError(StoreError):
    """Another run is writing the index, or changed it since it was opened."""


class IndexExistsError(StoreError):
    """A new index was to be saved where something already exists."""


def _show(value: object) -> str:
    """``repr`` of a bad value, short enough for a message (a 5,000-digit int has no repr)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"an int of {value.bit_length()} bits"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _check_int(name: str, value: object, low: int, high: int) -> None:
    """Raise ValueError unless ``value`` is an int (not a bool) in ``low..high``."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be an int in {low}..{high}, got {_show(value)}")


@dataclass(frozen=True)
class IndexSettings:
    """Everything that makes two signatures or shingle sets comparable, as plain data.

    ``bands`` and ``rows`` default to what :func:`~neardup_lab.pipeline.dedup`
    picks: :func:`~neardup_lab.lsh.optimal_params` for ``threshold`` and
    ``num_perm``, weighted towards recall by
    :data:`~neardup_lab.pipeline.RECALL_WEIGHTS` (every candidate is verified,
    so a false candidate costs a check, a missed one a duplicate).

    >>> s = IndexSettings(threshold=0.8)
    >>> s.bands, s.rows
    (16, 8)
    """

    threshold: float = 0.8
    num_perm: int = 128
    shingle_size: int = 5
    shingle_kind: str = "word"
    scheme: str = "multiply-shift"
    seed: int = 1
    bands: int | None = None
    rows: int | None = None
    normalization: str = NORMALIZATION
    shingle_hash: str = SHINGLE_HASH

    def __post_init__(self) -> None:
        # Every bound is checked before anything is allocated or searched: optimal_params
        # and the hasher take time and memory in proportion to num_perm.
        t = self.threshold
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0.0 < t <= 1.0:
            raise ValueError(f"threshold must be a number in (0, 1], got {_show(t)}")
        object.__setattr__(self, "threshold", float(t))
        _check_int("num_perm", self.num_perm, 1, MAX_NUM_PERM)
        _check_int("shingle_size", self.shingle_size, 1, MAX_SHINGLE_SIZE)
        if self.shingle_kind not in _SHINGLE_KINDS:
            raise ValueError(f"shingle_kind must be 'word' or 'char', got {_show(self.shingle_kind)}")
        if self.scheme not in SCHEMES:
            raise ValueError(f"unknown scheme {_show(self.scheme)}; choose one of {', '.join(SCHEMES)}")
        _check_int("seed", self.seed, 0, 2**64 - 1)
        if self.bands is None and self.rows is None:
            bands, rows = optimal_params(min(self.threshold, 0.99), self.num_perm, *RECALL_WEIGHTS)
        elif self.bands is None or self.rows is None:
            raise ValueError("give both bands and rows, or neither to use optimal_params")
        else:
            _check_int("bands", self.bands, 1, self.num_perm)
            _check_int("rows", self.rows, 1, self.num_perm)
            bands, rows = _check_banding(self.bands, self.rows, self.num_perm)
        object.__setattr__(self, "bands", bands)
        object.__setattr__(self, "rows", rows)
        for name in ("normalization", "shingle_hash"):
            if not isinstance(getattr(self, name), str):
                raise ValueError(f"{name} must be a str, got {_show(getattr(self, name))}")

    def to_json(self) -> dict:
        """The settings as a JSON-ready dict.

        >>> IndexSettings().to_json()["shingle_kind"]
        'word'
        """
        return asdict(self)

    @classmethod
    def from_json(cls, data: object) -> IndexSettings:
        """Settings from :meth:`to_json` output; raises ValueError on anything else.

        Stored settings always name their banding, so ``bands`` and ``rows``
        must be ints here (``optimal_params`` is never searched on open).

        >>> IndexSettings.from_json(IndexSettings(threshold=0.7).to_json()).threshold
        0.7
        """
        names = [f.name for f in fields(cls)]
        if not isinstance(data, dict):
            raise ValueError(f"settings must be a JSON object, got {type(data).__name__}")
        missing = [n for n in names if n not in data]
        extra = sorted(map(str, set(data) - set(names)))
        if missing or extra:
            raise ValueError(f"settings keys differ: missing {missing}, unexpected {extra}")
        for name in ("bands", "rows"):
            if data[name] is None:
                raise ValueError(f"{name} must be an int, got None")
        return cls(**{n: data[n] for n in names})

    def differences(self, wanted: Mapping[str, object]) -> list[str]:
        """Describe every setting in ``wanted`` that differs from these, as ``name: ours vs wanted``.

        >>> IndexSettings().differences({"num_perm": 64, "seed": 1})
        ['num_perm: index has 128, this run asks for 64']
        """
        out = []
        for name, value in wanted.items():
            if not hasattr(self, name):
                raise ValueError(f"unknown setting {name!r}")
            ours = getattr(self, name)
            same = float(ours) == float(value) if name == "threshold" else ours == value
            if not same:
                out.append(f"{name}: index has {ours!r}, this run asks for {value!r}")
        return out

    def hasher(self) -> MinHasher:
        """The :class:`~neardup_lab.minhash.MinHasher` these settings describe.

        >>> IndexSettings(num_perm=64).hasher().num_perm
        64
        """
        return MinHasher(num_perm=self.num_perm, seed=self.seed, scheme=self.scheme)


@dataclass(frozen=True)
class Match:
    """A verified near-duplicate of a queried document.

    ``position`` counts documents in the index (``in_index``) or in the
    current batch; ``exact`` says whether the normalised texts are equal.
    """

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
        return {
            "id": self.id,
            "jaccard": self.jaccard,
            "exact": self.exact,
            "in": "index" if self.in_index else "batch",
        }


def _fsync_dir(path: Path) -> None:
    # Makes a rename durable on POSIX; not possible (and not needed) on Windows.
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _default_mode(directory: bool = False) -> int:
    """The permissions a plain ``open()`` (or ``mkdir``) would give under the current umask."""
    mask = os.umask(0)
    os.umask(mask)
    return (0o777 if directory else 0o666) & ~mask


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike, *, binary: bool = False) -> Iterator[IO]:
    """Open a temporary file next to ``path``; on success fsync it and rename it to ``path``.

    If the block raises, the temporary file is removed and ``path`` is left
    as it was. Readers never see a half-written file. Text is UTF-8; a
    character UTF-8 cannot hold (a lone surrogate from an undecodable file
    name) is written as a backslash escape.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with atomic_writer(os.path.join(tmp, "out.txt")) as f:
    ...         _ = f.write("done")
    ...     open(os.path.join(tmp, "out.txt")).read()
    'done'
    """
    target = Path(path)
    fd, tmp_name = tempfile.mkstemp(prefix=f".tmp-{target.name}-", dir=target.parent or ".")
    tmp = Path(tmp_name)
    try:
        try:  # mkstemp makes the file private; give it the mode a normal write would
            mode = os.stat(target).st_mode & 0o777 if target.exists() else _default_mode()
            os.chmod(tmp, mode)
        except OSError:
            pass
        text_options = {"encoding": "utf-8", "newline": "", "errors": "backslashreplace"}
        with open(fd, "wb" if binary else "w", **({} if binary else text_options)) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    _fsync_dir(target.parent)


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``folder/.lock`` (POSIX); released when the process ends."""
    try:
        import fcntl
    except ImportError:  # Windows: rely on the generation check alone
        yield
        return
    fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise IndexBusyError(
                f"another run is writing the index {folder.as_posix()}; wait for it to finish and try again"
            ) from None
        yield
    finally:
        os.close(fd)


def _sha256(path: Path) -> str:
    with open(path, "rb") as f:
        return _sha256_of(f)


def _sha256_of(f: IO[bytes]) -> str:
    digest = hashlib.sha256()
    for block in iter(lambda: f.read(1 << 20), b""):
        digest.update(block)
    return digest.hexdigest()


def _exact_key(text: str) -> bytes:
    return xxhash.xxh3_128_digest(normalize(text).encode("utf-8", "surrogatepass"))


def _band_hashes(signatures: np.ndarray, bands: int, rows: int) -> np.ndarray:
    """One uint64 per (band, document): a hash of the band's values, shape ``(bands, n)``.

    Equal bands always give equal hashes; different bands collide with
    probability about 2**-64, and the exact check removes such a candidate.
    """
    sigs = np.asarray(signatures).astype(np.uint64, copy=False)
    out = np.empty((bands, len(sigs)), dtype=np.uint64)
    for band in range(bands):
        h = np.full(len(sigs), band + 1, dtype=np.uint64)
        for col in range(band * rows, (band + 1) * rows):
            h = splitmix64(h ^ sigs[:, col])
        out[band] = h
    return out


def _jaccard_sorted(a: np.ndarray, b: np.ndarray) -> float:
    """Jaccard similarity of two sorted arrays of distinct ids; two empty sets give 1.0."""
    if len(a) == 0 and len(b) == 0:
        return 1.0
    inter = len(np.intersect1d(a, b, assume_unique=True))
    return inter / (len(a) + len(b) - inter)


@dataclass
class _Batch:
    signatures: np.ndarray
    shingles: list[np.ndarray]
    keys: list[bytes]


def _passthrough(items: Iterable, **_: object) -> Iterable:
    return items


class SavedIndex:
    """Signatures, shingle ids and ids of documents seen so far; saved as a folder.

    >>> index = SavedIndex(IndexSettings(threshold=0.5, shingle_size=2))
    >>> found = index.add(["old"], ["heavy rain in the city"])
    >>> found = index.add(["new", "newer"], ["heavy rain in the city today", "a quiet day"])
    >>> [[(m.id, round(m.jaccard, 2)) for m in ms] for ms in found]
    [[('old', 0.8)], []]
    """

    def __init__(self, settings: IndexSettings | None = None) -> None:
        self.settings = settings if settings is not None else IndexSettings()
        self._hasher = self.settings.hasher()
        self._ids: list[str] = []
        self._id_set: set[str] = set()
        self._signatures = np.empty((0, self.settings.num_perm), dtype=self._hasher.dtype)
        self._shingles: list[np.ndarray] = []
        self._keys: list[bytes] = []
        self._first_by_key: dict[bytes, int] = {}
        self._tables: list[tuple[np.ndarray, np.ndarray]] | None = None
        self._path: Path | None = None
        self._meta_bytes: bytes | None = None
        self._generation = 0

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

    # ----- signing and matching -------------------------------------------------------

    def _prepare(self, texts: Sequence[str], progress: Callable) -> _Batch:
        """Exact keys, sorted distinct shingle ids and signatures, the same as ``dedup`` makes."""
        if isinstance(texts, (str, bytes)):
            raise TypeError("texts must be a list of str; wrap a single text in a list")
        for i, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"text {i} is {type(text).__name__}, not str: {text!r:.60}")
        k = self.settings.shingle_size
        shingles: list[np.ndarray] = []
        keys: list[bytes] = []
        chunks = [texts[i : i + _CHUNK] for i in range(0, len(texts), _CHUNK)]
        for chunk in progress(chunks, desc="signing", unit="chunk"):
            if self.settings.shingle_kind == "word":
                shingles.extend(shingle_id_batch(chunk, k))
            else:
                shingles.extend(np.unique(hash_shingles(char_shingles(t, k))) for t in chunk)
            keys.extend(_exact_key(t) for t in chunk)
        lengths = np.fromiter(map(len, shingles), dtype=np.int64, count=len(shingles))
        flat = np.concatenate(shingles) if shingles else np.empty(0, dtype=np.uint64)
        return _Batch(self._hasher.signatures_flat(flat, lengths), shingles, keys)

    def _band_tables(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per band: sorted band hashes of the representatives, and their positions."""
        if self._tables is None:
            reps = np.fromiter(self._first_by_key.values(), dtype=np.int64, count=len(self._first_by_key))
            reps.sort()
            hashes = _band_hashes(self._signatures[reps], self.settings.bands, self.settings.rows)
            self._tables = []
            for band_hashes in hashes:
                order = np.argsort(band_hashes, kind="stable")
                self._tables.append((band_hashes[order], reps[order]))
        return self._tables

    def _index_candidates(self, batch: _Batch) -> list[np.ndarray]:
        """For each batch document, the sorted index positions sharing a band with it."""
        m = len(batch.shingles)
        if m == 0 or len(self) == 0:
            return [np.empty(0, dtype=np.int64) for _ in range(m)]
        queries = _band_hashes(batch.signatures, self.settings.bands, self.settings.rows)
        found = []
        for (keys, positions), q in zip(self._band_tables(), queries):
            lo = np.searchsorted(keys, q, side="left")
            hi = np.searchsorted(keys, q, side="right")
            counts = hi - lo
            total = int(counts.sum())
            if total == 0:
                continue
            doc = np.repeat(np.arange(m, dtype=np.int64), counts)
            offsets = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
            found.append(doc * len(self) + positions[np.repeat(lo, counts) + offsets])
        if not found:
            return [np.empty(0, dtype=np.int64) for _ in range(m)]
        pairs = np.unique(np.concatenate(found))
        doc, pos = np.divmod(pairs, len(self))
        bounds = np.searchsorted(doc, np.arange(m + 1))
        return [pos[bounds[i] : bounds[i + 1]] for i in range(m)]

    def _verify(
        self, shingles: np.ndarray, key: bytes, theirs: np.ndarray, their_key: bytes
    ) -> tuple[float, bool] | None:
        """(Jaccard, exact) when the pair reaches the threshold, else None."""
        similarity = _jaccard_sorted(shingles, theirs)
        if similarity < self.settings.threshold:
            return None
        return similarity, key == their_key

    def _match(
        self, batch: _Batch, ids: Sequence[str] | None, within_batch: bool, progress: Callable
    ) -> list[list[Match]]:
        candidates = self._index_candidates(batch)
        bands, rows = self.settings.bands, self.settings.rows
        tables: list[dict[bytes, list[int]]] = [{} for _ in range(bands)]
        first_in_batch: dict[bytes, int] = {}
        results: list[list[Match]] = []
        for j in progress(range(len(batch.shingles)), desc="matches", unit="doc"):
            shingles, key = batch.shingles[j], batch.keys[j]
            matches = []
            for pos in candidates[j].tolist():
                found = self._verify(shingles, key, self._shingles[pos], self._keys[pos])
                if found:
                    matches.append(Match(self._ids[pos], pos, found[0], found[1], True))
            if within_batch:
                sig = batch.signatures[j]
                band_keys = [sig[b * rows : (b + 1) * rows].tobytes() for b in range(bands)]
                earlier = sorted({i for t, bk in zip(tables, band_keys) for i in t.get(bk, ())})
                for i in earlier:
                    found = self._verify(shingles, key, batch.shingles[i], batch.keys[i])
                    if found:
                        matches.append(Match(ids[i] if ids else str(i), i, found[0], found[1], False))
                # Only the first document with a given normalised text goes into the tables:
                # its exact copies would find the same candidates, and would make buckets huge.
                if key not in self._first_by_key and key not in first_in_batch:
                    first_in_batch[key] = j
                    for t, bk in zip(tables, band_keys):
                        t.setdefault(bk, []).append(j)
            matches.sort(key=lambda m: (-m.jaccard, not m.in_index, m.position))
            results.append(matches)
        return results

    def query(self, texts: Sequence[str], *, progress: Callable | None = None) -> list[list[Match]]:
        """Near-duplicates in the index of each text, best first; the index is not changed.

        ``progress`` (for example ``tqdm``) wraps the long loops.

        >>> index = SavedIndex(IndexSettings(threshold=0.5, shingle_size=2))
        >>> _ = index.add(["a"], ["heavy rain in the city"])
        >>> [[m.id for m in ms] for ms in index.query(["heavy rain in the city", "sunny"])]
        [['a'], []]
        """
        progress = progress or _passthrough
        return self._match(self._prepare(texts, progress), None, False, progress)

    def add(
        self, ids: Sequence[str], texts: Sequence[str], *, progress: Callable | None = None
    ) -> list[list[Match]]:
        """Insert a batch; return, for each document, its matches found *before* it was inserted.

        Each document is compared with the index and with the earlier
        documents of the same batch (query before insert), so a copy inside
        one batch is found too. Every document is inserted, duplicates
        included, so later batches are compared with them as well (an exact
        copy is represented by the first document with its normalised text,
        and matches name that one). Ids must be new and unique; otherwise
        nothing is inserted.

        >>> index = SavedIndex(IndexSettings(threshold=0.5, shingle_size=2))
        >>> found = index.add(["a", "b"], ["heavy rain in the city", "Heavy rain in the city!"])
        >>> [[(m.id, m.exact, m.in_index) for m in ms] for ms in found], len(index)
        ([[], [('a', True, False)]], 2)
        """
        ids = self._check_new_ids(ids, texts)
        progress = progress or _passthrough
        batch = self._prepare(texts, progress)
        results = self._match(batch, ids, True, progress)
        start = len(self)
        self._ids.extend(ids)
        self._id_set.update(ids)
        self._signatures = np.concatenate([self._signatures, batch.signatures])
        self._shingles.extend(batch.shingles)
        self._keys.extend(batch.keys)
        for offset, key in enumerate(batch.keys):
            self._first_by_key.setdefault(key, start + offset)
        self._tables = None
        return results

    def _check_new_ids(self, ids: Sequence[str], texts: Sequence[str]) -> list[str]:
        if isinstance(ids, (str, bytes)) or isinstance(texts, (str, bytes)):
            raise TypeError("ids and texts must be lists; wrap a single document in a list")
        ids = list(ids)
        if len(ids) != len(texts):
            raise ValueError(f"got {len(ids)} ids for {len(texts)} texts; give one id per text")
        for doc_id in ids:
            if not isinstance(doc_id, str) or not doc_id or "\x00" in doc_id:
                raise ValueError(f"an id must be a non-empty str without NUL characters, got {doc_id!r:.60}")
        seen: set[str] = set()
        repeated = [i for i in ids if i in seen or seen.add(i)]  # type: ignore[func-returns-value]
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

    # ----- persistence ------------------------------------------------------------------

    def _arrays(self) -> dict[str, np.ndarray]:
        lengths = np.fromiter((len(s) for s in self._shingles), dtype=np.int64, count=len(self._shingles))
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        flat = np.concatenate(self._shingles) if self._shingles else np.empty(0, dtype=np.uint64)
        keys = np.frombuffer(b"".join(self._keys), dtype="<u8").reshape(len(self._keys), 2)
        return {
            "ids": np.array(self._ids, dtype=str) if self._ids else np.empty(0, dtype="<U1"),
            "signatures": np.ascontiguousarray(self._signatures),
            "shingle_offsets": offsets,
            "shingle_ids": flat.astype(np.uint64, copy=False),
            "exact_keys": keys.astype(np.uint64),
        }

    def _header(self, generation: int) -> dict:
        """The fields of ``index.json`` that shape the bits; the data file stores them too."""
        return {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "settings": self.settings.to_json(),
            "documents": len(self),
            "generation": generation,
        }

    def _meta(self, generation: int, data_name: str, sha256: str) -> dict:
        from . import __version__

        return {
            **self._header(generation),
            "data_file": data_name,
            "data_sha256": sha256,
            "written_by": f"neardup_lab {__version__}",
        }

    def _write_generation(self, folder: Path, generation: int) -> bytes:
        data_name = _data_name(generation)
        header = np.array(_canonical(self._header(generation)))
        with atomic_writer(folder / data_name, binary=True) as f:
            np.savez(f, **self._arrays(), **{_HEADER: header})
        meta = self._meta(generation, data_name, _sha256(folder / data_name))
        meta_bytes = (json.dumps(meta, indent=2) + "\n").encode("utf-8")
        with atomic_writer(folder / META_NAME, binary=True) as f:
            f.write(meta_bytes)
        return meta_bytes

    def save(self, path: str | os.PathLike) -> None:
        """Write the index to the folder ``path`` atomically.

        A new index (made with ``SavedIndex(...)``) goes to a path that must
        not exist yet; an opened index can only be saved back where it was
        opened, and only if no other run changed it meanwhile. On any error
        the folder is left exactly as it was. What killed runs left behind is
        removed: by a build, the staging folders of dead builds next to it; by
        an update, stale data and temporary files inside the index.

        >>> import os, tempfile
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     SavedIndex().save(os.path.join(tmp, "idx"))
        ...     sorted(os.listdir(os.path.join(tmp, "idx")))
        ['.lock', 'data-000001.npz', 'index.json']
        """
        folder = Path(path)
        if self._path is None:
            self._save_new(folder)
        else:
            self._save_update(folder)

    def _save_new(self, folder: Path) -> None:
        if os.path.lexists(folder):
            raise IndexExistsError(
                f"{folder.as_posix()} already exists; add to an existing index with `index add`, "
                "or choose a new path"
            )
        parent = folder.parent if str(folder.parent) else Path(".")
        if not parent.is_dir():
            raise StoreError(f"cannot create {folder.as_posix()}: folder {parent.as_posix()} does not exist")
        _remove_dead_builds(parent)
        staging = Path(tempfile.mkdtemp(prefix=f".tmp-{folder.name}-", dir=parent))
        marker: int | None = None
        try:
            try:
                marker = _mark_as_building(staging)
                os.chmod(staging, _default_mode(directory=True))
                (staging / LOCK_NAME).touch()
                meta_bytes = self._write_generation(staging, 1)
                _publish(staging, folder)
            except BaseException:
                shutil.rmtree(staging, ignore_errors=True)
                raise
            with contextlib.suppress(OSError):  # a run killed before this leaves it; the next save removes it
                (folder / _BUILD_MARKER).unlink()
        finally:
            if marker is not None:
                os.close(marker)
        self._path, self._meta_bytes, self._generation = folder, meta_bytes, 1

    def _save_update(self, folder: Path) -> None:
        assert self._path is not None
        if os.path.abspath(folder) != os.path.abspath(self._path):
            raise StoreError(
                f"this index was opened from {self._path.as_posix()} and can only be saved back there"
            )
        with _locked(folder):
            try:
                current = (folder / META_NAME).read_bytes()
            except OSError as err:
                raise IndexBusyError(f"cannot re-read {META_NAME} before writing: {err}") from None
            if current != self._meta_bytes:
                raise IndexBusyError(
                    f"the index {folder.as_posix()} changed on disk since it was opened (another run "
                    "wrote to it); nothing was written; run this command again"
                )
            generation = self._generation + 1
            meta_bytes = self._write_generation(folder, generation)
            self._meta_bytes, self._generation = meta_bytes, generation
            _remove_leftovers(folder, keep=_data_name(generation))

    @classmethod
    def open(cls, path: str | os.PathLike, expect: Mapping[str, object] | None = None) -> SavedIndex:
        """Load a saved index; check its format, checksum, arrays and, if given, settings.

        ``expect`` maps setting names (fields of :class:`IndexSettings`) to the
        values the caller needs; any difference raises
        :class:`SettingsMismatchError`. Nothing on disk is changed. If a
        writer replaces the index while it is being read, it is read again.

        Raises :class:`CorruptIndexError`, :class:`IndexVersionError`,
        :class:`SettingsMismatchError` or :class:`StoreError` with a message
        that says what is wrong and what to do.

        >>> import os, tempfile
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     SavedIndex(IndexSettings(num_perm=64)).save(os.path.join(tmp, "idx"))
        ...     SavedIndex.open(os.path.join(tmp, "idx"), expect={"num_perm": 128})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        neardup_lab.store.SettingsMismatchError: the index ... was built with other settings (num_perm: ...
        """
        folder = Path(path)
        shown = folder.as_posix()
        if not folder.exists():
            raise StoreError(f"no index at {shown}; build one first (neardup-lab index build)")
        if not folder.is_dir():
            raise CorruptIndexError(f"{shown} is a file, not an index folder")
        for _ in range(_OPEN_ATTEMPTS):
            meta_bytes = _read_meta(folder, shown)
            meta, settings = _parse_meta(meta_bytes, shown)
            try:
                arrays, header = _load_data(folder / meta["data_file"], meta["data_sha256"], shown)
            except FileNotFoundError:
                if _read_meta(folder, shown) == meta_bytes:
                    raise CorruptIndexError(
                        f"the data file {meta['data_file']} of the index {shown} is missing; "
                        "restore the index from a backup or rebuild it"
                    ) from None
                continue  # a writer committed a newer generation and removed this one
            _check_header(meta, header, shown)
            _check_expected(settings, expect, shown)
            return cls._from_arrays(arrays, settings, folder, meta_bytes, meta)
        raise IndexBusyError(
            f"the index {shown} changed {_OPEN_ATTEMPTS} times while it was being opened; "
            "try again when the runs writing to it have finished"
        )

    @classmethod
    def _from_arrays(
        cls,
        arrays: dict[str, np.ndarray],
        settings: IndexSettings,
        folder: Path,
        meta_bytes: bytes,
        meta: dict,
    ) -> SavedIndex:
        shown = folder.as_posix()
        index = cls(settings)
        _check_arrays(arrays, meta["documents"], settings, index._hasher.dtype, shown)
        index._ids = arrays["ids"].tolist()
        index._id_set = set(index._ids)
        if len(index._id_set) != len(index._ids):
            raise CorruptIndexError(f"the index {shown} holds the same document id twice; it is damaged")
        index._signatures = arrays["signatures"]
        offsets = arrays["shingle_offsets"]
        index._shingles = np.split(arrays["shingle_ids"], offsets[1:-1]) if len(index._ids) else []
        index._keys = [row.tobytes() for row in arrays["exact_keys"].astype("<u8")]
        for position, key in enumerate(index._keys):
            index._first_by_key.setdefault(key, position)
        index._path, index._meta_bytes, index._generation = folder, meta_bytes, meta["generation"]
        return index

    def info(self) -> dict:
        """Plain-data summary: document count and settings.

        >>> SavedIndex().info()["documents"]
        0
        """
        return {
            "format_version": FORMAT_VERSION,
            "documents": len(self),
            "distinct_texts": len(self._first_by_key),
            "generation": self._generation,
            **self.settings.to_json(),
        }


# ----- files on disk: names, leftovers, builds in progress ------------------------------------


def _data_name(generation: int) -> str:
    return f"data-{generation:06d}.npz"


def _canonical(value: object) -> str:
    """One JSON text per value, so "the same settings" is equality of strings."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr)


def _remove_leftovers(folder: Path, keep: str) -> None:
    """Delete older data files and what killed runs left in ``folder``; call with the lock held."""
    for stale in folder.iterdir():
        name = stale.name
        if (_DATA_NAME.fullmatch(name) and name != keep) or name.startswith(".tmp-") or name == _BUILD_MARKER:
            with contextlib.suppress(OSError):
                stale.unlink()


def _publish(staging: Path, folder: Path) -> None:
    """Rename the finished staging folder to ``folder``, unless another run got there first."""
    try:
        os.rename(staging, folder)
    except OSError:
        if os.path.lexists(folder):
            raise IndexExistsError(
                f"{folder.as_posix()} was created by another run while this one was building it; "
                "nothing was written"
            ) from None
        raise
    _fsync_dir(folder.parent if str(folder.parent) else Path("."))


def _mark_as_building(staging: Path) -> int | None:
    """Put a locked build marker in ``staging``; return its descriptor (the lock lasts while it is open).

    The marker is locked before it gets its name, so a run that looks for
    dead builds never finds it unlocked while this build lives; the lock ends
    with the process, however it dies. Without ``fcntl`` there is no marker.
    """
    try:
        import fcntl
    except ImportError:
        return None
    fd, tmp = tempfile.mkstemp(prefix=".tmp-building-", dir=staging)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, f"{os.getpid()}\n".encode())  # for a person looking; never trusted
        os.rename(tmp, staging / _BUILD_MARKER)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _remove_dead_builds(parent: Path) -> None:
    """Delete the staging folders that killed builds left in ``parent``.

    Only a folder named ``.tmp-*`` that holds nothing but files a build
    writes, and whose build marker no living process has locked, is removed.
    """
    try:
        import fcntl

        entries = [
            Path(e.path)
            for e in os.scandir(parent)
            if e.name.startswith(".tmp-") and e.is_dir(follow_symlinks=False)
        ]
    except (ImportError, OSError):
        return
    for entry in entries:
        if _is_dead_build(entry, fcntl):
            shutil.rmtree(entry, ignore_errors=True)


def _is_dead_build(folder: Path, fcntl: object) -> bool:
    try:
        names = os.listdir(folder)
        age = time.time() - os.stat(folder).st_mtime
    except OSError:
        return False
    if not names or not all(_STAGED_NAME.fullmatch(name) for name in names):
        return False
    if _BUILD_MARKER not in names:
        # Killed in the instant between creating its marker and naming it: only age tells.
        return len(names) == 1 and names[0].startswith(".tmp-building-") and age > _UNMARKED_BUILD_SECONDS
    marker = folder / _BUILD_MARKER
    try:
        fd = os.open(marker, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # type: ignore[attr-defined]
        # Still this folder's marker, not one a finished build renamed away meanwhile.
        return os.path.samestat(os.fstat(fd), os.stat(marker, follow_symlinks=False))
    except OSError:
        return False
    finally:
        os.close(fd)


# ----- reading an index defensively --------------------------------------------------------


class _LongNumber:
    """Stands for an integer in ``index.json`` too long to be anything but damage."""

    def __init__(self, digits: int) -> None:
        self.digits = digits

    def __repr__(self) -> str:
        return f"a {self.digits}-digit number"


def _parse_int(text: str) -> int | _LongNumber:
    digits = len(text.lstrip("-"))
    return _LongNumber(digits) if digits > _MAX_DIGITS else int(text)


def _load_json(text: str) -> object:
    """``json.loads`` that never builds a huge int and reports deep nesting as ValueError."""
    try:
        return json.loads(text, parse_int=_parse_int)
    except RecursionError:
        raise ValueError("it is nested too deeply") from None


def _open_regular(path: Path) -> IO[bytes]:
    """Open ``path`` for reading, refusing anything but a regular file (a FIFO would block)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise IsADirectoryError(21, "not a regular file", str(path))
    return os.fdopen(fd, "rb")


def _read_meta(folder: Path, shown: str) -> bytes:
    try:
        with _open_regular(folder / META_NAME) as f:
            return f.read(_MAX_META_BYTES + 1)
    except FileNotFoundError:
        raise CorruptIndexError(
            f"{shown} has no {META_NAME}, so it is not a neardup-lab index (or it is damaged)"
        ) from None
    except OSError as err:
        raise StoreError(f"cannot read {META_NAME} in {shown}: {err.strerror or err}") from None


def _is_count(value: object, low: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


_META_CHECKS: dict[str, Callable[[object], bool]] = {
    "documents": lambda v: _is_count(v, 0),
    "generation": lambda v: _is_count(v, 1),
    "data_file": lambda v: isinstance(v, str) and _DATA_NAME.fullmatch(v) is not None,
    "data_sha256": lambda v: isinstance(v, str) and re.fullmatch(r"[0-9a-f]{64}", v) is not None,
    "written_by": lambda v: isinstance(v, str) and len(v) <= 200,
}


def _parse_meta(meta_bytes: bytes, shown: str) -> tuple[dict, IndexSettings]:
    """``index.json`` checked field by field, and its settings; raises naming the first bad field."""

    def damaged(what: str) -> CorruptIndexError:
        return CorruptIndexError(
            f"the index {shown} is damaged: {what}; restore it from a backup or rebuild it"
        )

    if len(meta_bytes) > _MAX_META_BYTES:
        raise CorruptIndexError(f"{META_NAME} in {shown} is far too large to be index metadata")
    try:
        meta = _load_json(meta_bytes.decode("utf-8"))
    except ValueError as err:  # also UnicodeDecodeError and JSONDecodeError
        raise damaged(f"{META_NAME} is not valid JSON ({err})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        raise CorruptIndexError(f"{META_NAME} in {shown} does not describe a neardup-lab index")
    _check_version(meta.get("format_version"), shown)
    unexpected = sorted(set(meta) - set(_META_KEYS))
    if unexpected:
        raise damaged(f"{META_NAME} has unexpected fields {unexpected}")
    for key, ok in _META_CHECKS.items():
        if key not in meta or not ok(meta[key]):
            raise damaged(f"{META_NAME} has a missing or invalid {key!r} ({_show(meta.get(key))})")
    if meta["data_file"] != _data_name(meta["generation"]):
        raise damaged(
            f"{META_NAME} names data_file {meta['data_file']!r} for generation {meta['generation']}"
        )
    try:
        settings = IndexSettings.from_json(meta.get("settings"))
    except (ValueError, TypeError) as err:
        raise damaged(f"{META_NAME} holds invalid settings: {err}") from None
    return meta, settings


def _check_version(version: object, shown: str) -> None:
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise CorruptIndexError(
            f"the index {shown} is damaged: {META_NAME} has no valid format_version ({_show(version)})"
        )
    if version > FORMAT_VERSION:
        raise IndexVersionError(
            f"the index {shown} uses format version {version}, newer than the version {FORMAT_VERSION} "
            "this neardup_lab reads; upgrade neardup_lab to open it"
        )
    if version < FORMAT_VERSION:
        raise IndexVersionError(
            f"the index {shown} uses format version {version}, older than the version {FORMAT_VERSION} "
            "this neardup_lab reads (its settings were not covered by the checksum); build it again "
            "from the original documents with `neardup-lab index build`"
        )


def _check_expected(settings: IndexSettings, expect: Mapping[str, object] | None, shown: str) -> None:
    diffs = settings.differences(expect) if expect else []
    if diffs:
        raise SettingsMismatchError(
            f"the index {shown} was built with other settings ({'; '.join(diffs)}); "
            "leave these options out to use the index's settings, or build a new index"
        )


def _flatten(block: dict) -> dict[str, object]:
    """``{"settings": {"seed": 1}}`` -> ``{"settings.seed": 1}``: the names a message gives."""
    out: dict[str, object] = {}
    for key, value in block.items():
        if key == "settings" and isinstance(value, dict):
            out.update({f"settings.{name}": v for name, v in value.items()})
        else:
            out[str(key)] = value
    return out


def _check_header(meta: dict, header: np.ndarray, shown: str) -> None:
    """Compare ``index.json`` with what the data file (under the checksum) was written with."""
    data_file = meta["data_file"]
    try:
        if header.dtype.kind != "U" or header.shape != ():
            raise ValueError(f"dtype {header.dtype}, shape {header.shape}")
        written = _load_json(str(header))
        if not isinstance(written, dict):
            raise ValueError("not a JSON object")
    except ValueError as err:
        raise CorruptIndexError(
            f"the data file {data_file} of the index {shown} has a damaged header ({err}); "
            "restore the index from a backup or rebuild it"
        ) from None
    said = _flatten({key: meta[key] for key in _HEADER_KEYS})
    wrote = _flatten({key: written.get(key) for key in _HEADER_KEYS})
    for name in [*said, *(n for n in wrote if n not in said)]:
        if _canonical(said.get(name)) != _canonical(wrote.get(name)):
            raise CorruptIndexError(
                f"the index {shown} is damaged: {META_NAME} says {name} = {_show(said.get(name))}, "
                f"but its data file {data_file} was written with {_show(wrote.get(name))}; "
                f"undo the edit of {META_NAME}, restore the index from a backup, or rebuild it"
            )


def _load_data(data_path: Path, sha256: str, shown: str) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The arrays and header of a data file whose checksum matches; FileNotFoundError if it is gone.

    The file is opened once, so the bytes checked are the bytes loaded even if
    a writer removes the file meanwhile.
    """
    try:
        f = _open_regular(data_path)
    except FileNotFoundError:
        raise
    except OSError as err:
        raise CorruptIndexError(
            f"the data file {data_path.name} of the index {shown} cannot be read ({err.strerror or err})"
        ) from None
    with f:
        if _sha256_of(f) != sha256:
            raise CorruptIndexError(
                f"the data file {data_path.name} of the index {shown} does not match the checksum in "
                f"{META_NAME}: it was damaged or replaced; restore the index from a backup or rebuild it"
            )
        f.seek(0)
        if f.read(4) != b"PK\x03\x04":
            raise CorruptIndexError(
                f"the data file of the index {shown} is not a .npz archive; it is damaged"
            )
        try:
            _check_members(f, os.fstat(f.fileno()).st_size, shown)
            f.seek(0)
            with np.load(f, allow_pickle=False) as npz:
                members = {name: npz[name] for name in (*_ARRAYS, _HEADER)}
        except CorruptIndexError:
            raise
        except ValueError as err:
            if "pickle" in str(err):
                raise _pickled(shown) from None
            raise CorruptIndexError(f"the data file of the index {shown} is damaged: {err}") from None
        except (zipfile.BadZipFile, OSError, EOFError, zlib.error, KeyError) as err:
            raise CorruptIndexError(f"the data file of the index {shown} is damaged: {err}") from None
    header = members.pop(_HEADER)
    for name, value in members.items():
        if not isinstance(value, np.ndarray):
            raise CorruptIndexError(f"the member {name!r} of the index {shown} is not a numpy array")
    return members, header


def _pickled(shown: str) -> CorruptIndexError:
    return CorruptIndexError(
        f"the data file of the index {shown} holds Python objects (pickled data); loading them "
        "could run code, so it is refused. This is not an index neardup_lab wrote"
    )


def _check_members(f: IO[bytes], size: int, shown: str) -> None:
    """Refuse, before numpy allocates anything, members that are not plain arrays this file can hold.

    ``np.savez`` stores members uncompressed, so no array can be larger than
    the file: a member that claims more (a zip bomb, a forged ``.npy``
    header) is damage, not a reason to allocate terabytes.
    """
    with zipfile.ZipFile(f) as archive:
        infos = archive.infolist()
        if sorted(info.filename for info in infos) != sorted(f"{name}.npy" for name in (*_ARRAYS, _HEADER)):
            raise CorruptIndexError(f"the data file of the index {shown} does not hold the expected arrays")
        for info in infos:
            if info.compress_type != zipfile.ZIP_STORED or info.file_size > size:
                raise CorruptIndexError(
                    f"the member {info.filename!r} of the index {shown} is compressed or larger than "
                    "its file; the index is damaged"
                )
            with archive.open(info) as member:
                shape, dtype = _npy_header(member)
            if dtype.hasobject:
                raise _pickled(shown)
            if math.prod(shape) * dtype.itemsize > info.file_size:
                raise CorruptIndexError(
                    f"the member {info.filename!r} of the index {shown} claims more data than it holds; "
                    "the index is damaged"
                )


def _npy_header(member: IO[bytes]) -> tuple[tuple[int, ...], np.dtype]:
    """Shape and dtype from a ``.npy`` header; ValueError if it is not one numpy writes."""
    version = np.lib.format.read_magic(member)
    readers = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
    if version not in readers:
        raise ValueError(f"unsupported .npy format version {version}")
    shape, _, dtype = readers[version](member)
    return shape, dtype


def _check_arrays(
    arrays: dict[str, np.ndarray], n: int, settings: IndexSettings, dtype: np.dtype, shown: str
) -> None:
    def bad(what: str) -> CorruptIndexError:
        return CorruptIndexError(f"the data file of the index {shown} is inconsistent: {what}")

    ids, sigs = arrays["ids"], arrays["signatures"]
    offsets, flat, keys = arrays["shingle_offsets"], arrays["shingle_ids"], arrays["exact_keys"]
    if ids.dtype.kind != "U" or ids.shape != (n,):
        raise bad(f"ids have dtype {ids.dtype} and shape {ids.shape}, expected {n} unicode strings")
    if sigs.dtype != dtype or sigs.shape != (n, settings.num_perm):
        raise bad(
            f"signatures have dtype {sigs.dtype} and shape {sigs.shape}, "
            f"expected {dtype} {(n, settings.num_perm)}"
        )
    if flat.dtype != np.uint64 or flat.ndim != 1:
        raise bad(f"shingle ids have dtype {flat.dtype} and shape {flat.shape}, expected 1-D uint64")
    if (
        offsets.dtype != np.int64
        or offsets.shape != (n + 1,)
        or offsets[0] != 0
        or offsets[-1] != len(flat)
        or np.any(np.diff(offsets) < 0)
    ):
        raise bad("shingle offsets do not describe the shingle ids")
    if keys.dtype != np.uint64 or keys.shape != (n, 2):
        raise bad(f"exact keys have dtype {keys.dtype} and shape {keys.shape}, expected uint64 {(n, 2)}")
