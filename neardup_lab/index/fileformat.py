"""How a saved index lies on disk: a folder, written atomically, read defensively::

    my-index/
        index.json          format, settings, document count, generation, data file and its SHA-256
        data-000003.npz     the arrays, and a header repeating everything index.json says but the checksum
        .lock               taken while a run writes

The header puts the settings under the checksum: an edited ``index.json`` is refused as damaged.
Arrays are loaded with ``allow_pickle=False`` (opening an index never runs code), and no file is
opened through a link or when not regular. A change is a new data file committed by replacing
``index.json``; a new index is built in a staging folder and renamed into place, so a killed run
leaves the old index intact.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import os
import re
import shutil
import stat
import time
import zipfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, NamedTuple

import numpy as np

from .. import __version__
from ..readers.jsonl import nested_too_deeply
from ..settings import Settings
from ..support import validate
from .atomic import atomic_writer, create_temporary_file, create_temporary_folder, sync_folder

try:
    import fcntl
except ImportError:  # Windows and the browser: the generation check alone guards an update
    HAS_LOCKS = False
else:
    HAS_LOCKS = True

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "NORMALIZATION", "SHINGLE_HASH", "META_NAME", "LOCK_NAME"]
__all__ += ["ARRAYS", "StoreError", "CorruptIndexError", "IndexVersionError", "SettingsMismatchError"]
__all__ += ["IndexBusyError", "IndexExistsError", "check_index_settings", "OnDisk"]
__all__ += ["Loaded", "write_new", "write_update", "read_index", "pack_strings", "unpack_strings"]

FORMAT_NAME = "neardup-lab-index"
#: Version 3 stores strings as UTF-8 bytes with offsets, and the input files added (2 is still read).
FORMAT_VERSION = 3
_OLDEST_READ = 2
#: Name of the text normalisation the shingles are taken after (``neardup_lab.text.normalize``).
NORMALIZATION = "nfkc-casefold-punctuation-to-space/1"
#: How shingles become ids, the way :func:`~neardup_lab.engine.pipeline.prepare` makes them.
SHINGLE_HASH = "word:chained-lane-words-ngram-ids/3;char:xxh3-64-utf8/1;exact:xxh3-128-word-hashes/3"
META_NAME = "index.json"
LOCK_NAME = ".lock"
#: The arrays of a data file, ids packed (:func:`pack_strings`), shingle ids as a ragged array,
#: exact keys as two uint64, and each input file added: name, ``(st_dev, st_ino)``, SHA-256.
ARRAYS: tuple[str, ...] = ("ids", "id_offsets", "signatures", "shingle_offsets", "shingle_ids", "exact_keys")
ARRAYS += ("source_names", "source_name_offsets", "source_inodes", "source_digests")
_V2_ARRAYS = ("ids", "signatures", "shingle_offsets", "shingle_ids", "exact_keys")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # Windows has no such flag
_HEADER = "header"  # data-file member: JSON of the index.json fields that shape the bits
_HEADER_KEYS = (
    *("format", "format_version", "normalization", "shingle_hash", "settings", "documents", "generation"),
)
_META_KEYS = (*_HEADER_KEYS, "data_file", "data_sha256", "written_by")
_BUILD_MARKER = ".building"  # in a staging folder, locked while its build runs
# What a staging folder may hold; one with anything else is not ours to delete.
_STAGED_NAME = re.compile(r"\.lock|\.building|index\.json|data-\d{6,}\.npz|\.tmp-.+")
_DATA_NAME = re.compile(r"data-(\d{6,})\.npz")
_MAX_META_BYTES = 1 << 20
_UNMARKED_BUILD_SECONDS = 600  # a build marks its staging folder within microseconds
_MAX_DIGITS = 40  # longer integers in index.json are damage, never a count or a seed
_OPEN_ATTEMPTS = 20  # re-reads of index.json when writers keep replacing the data file
_REBUILD = "build it again from the original documents with `neardup-lab index build`"
_FIXED = {"verify": "exact", "bbits": None, "keeper": "first"}


class StoreError(Exception):
    """Base class: an index cannot be opened or written. The message says why and what to do."""


class CorruptIndexError(StoreError):
    """The files are damaged, incomplete, tampered with, or not an index at all."""


class IndexVersionError(StoreError):
    """The index was written in another format, or by code that shingles differently."""


class SettingsMismatchError(StoreError):
    """The caller asked for settings that differ from those the index was built with."""


class IndexBusyError(StoreError):
    """Another run is writing the index, or changed it since it was opened."""


class IndexExistsError(StoreError):
    """A new index was to be saved where something already exists."""


def check_index_settings(settings: object) -> Settings:
    """``settings`` if an index can hold them (``verify``, ``bbits``, ``keeper`` at their defaults).

    >>> check_index_settings(Settings(verify="estimate"))
    Traceback (most recent call last):
        ...
    ValueError: a saved index always verifies exactly and keeps full signatures and every document; \
got verify='estimate' (leave verify, bbits and keeper at their defaults)
    """
    if not isinstance(settings, Settings):
        raise TypeError(f"settings must be a neardup_lab.Settings, got {type(settings).__name__}")
    odd = [f"{name}={ours!r}" for name, ours in settings.differing(_FIXED).items()]
    if odd:
        raise ValueError(
            "a saved index always verifies exactly and keeps full signatures and every document; "
            f"got {', '.join(odd)} (leave verify, bbits and keeper at their defaults)"
        )
    return settings


# ----- writing -----------------------------------------------------------------------------


class OnDisk(NamedTuple):
    """Where an index was read or written, and the ``index.json`` it saw then."""

    folder: Path
    meta_bytes: bytes
    generation: int


def write_new(folder: Path, arrays: dict[str, np.ndarray], settings: Settings) -> OnDisk:
    """Create the index ``folder`` (which must not exist) holding ``arrays``: all of it or nothing.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     from neardup_lab.index.store import SavedIndex
    ...     write_new(Path(tmp, "idx"), SavedIndex().to_arrays(), Settings()).generation
    1
    """
    if os.path.lexists(folder):
        raise IndexExistsError(
            f"{folder.as_posix()} already exists; add to an existing index with `index add`, "
            "or choose a new path"
        )
    parent = folder.parent
    if not parent.is_dir():
        raise StoreError(f"cannot create {folder.as_posix()}: folder {parent.as_posix()} does not exist")
    _remove_dead_builds(parent)
    staging = create_temporary_folder(parent, f".tmp-{folder.name}-")
    marker: int | None = None
    try:
        try:
            marker = _mark_as_building(staging)
            (staging / LOCK_NAME).touch()
            meta_bytes = _write_generation(staging, 1, arrays, settings)
            try:
                os.rename(staging, folder)
            except OSError:
                if os.path.lexists(folder):
                    raise IndexExistsError(
                        f"{folder.as_posix()} was created by another run while this one was building it; "
                        "nothing was written"
                    ) from None
                raise
            sync_folder(parent)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        with contextlib.suppress(OSError):  # left by a killed run: the next save removes it
            (folder / _BUILD_MARKER).unlink()
    finally:
        if marker is not None:
            os.close(marker)
    return OnDisk(folder, meta_bytes, 1)


def write_update(seen: OnDisk, arrays: dict[str, np.ndarray], settings: Settings) -> OnDisk:
    """Commit ``arrays`` as the next generation of the index ``seen``, if no other run wrote it since."""
    folder = seen.folder
    with _locked(folder):
        try:
            with _open_regular(folder / META_NAME) as f:
                current = f.read(_MAX_META_BYTES + 1)
        except OSError as err:
            raise IndexBusyError(f"cannot re-read {META_NAME} before writing: {err}") from None
        if current != seen.meta_bytes:
            raise IndexBusyError(
                f"the index {folder.as_posix()} changed on disk since it was opened (another run "
                "wrote to it); nothing was written; run this command again"
            )
        generation = seen.generation + 1
        meta_bytes = _write_generation(folder, generation, arrays, settings)
        keep = _data_name(generation)
        for stale in folder.iterdir():  # older data files, and what killed runs left
            name = stale.name
            old_data = _DATA_NAME.fullmatch(name) and name != keep
            if old_data or name.startswith(".tmp-") or name == _BUILD_MARKER:
                with contextlib.suppress(OSError):
                    stale.unlink()
    return OnDisk(folder, meta_bytes, generation)


def _write_generation(
    folder: Path, generation: int, arrays: dict[str, np.ndarray], settings: Settings
) -> bytes:
    """Write the data file of ``generation``, commit it in ``index.json``, return what that now holds."""
    data_name = _data_name(generation)
    header = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "normalization": NORMALIZATION,
        "shingle_hash": SHINGLE_HASH,
        "settings": settings.to_dict(),
        "documents": len(arrays["id_offsets"]) - 1,
        "generation": generation,
    }
    with atomic_writer(folder / data_name, binary=True) as f:
        members: dict[str, Any] = {**arrays, _HEADER: np.array(_canonical(header))}
        np.savez(f, **members)
    with _open_regular(folder / data_name) as f:
        sha256 = hashlib.file_digest(f, "sha256").hexdigest()
    written_by = f"neardup_lab {__version__}"
    meta = {**header, "data_file": data_name, "data_sha256": sha256, "written_by": written_by}
    meta_bytes = (json.dumps(meta, indent=2) + "\n").encode("utf-8")
    try:
        with atomic_writer(folder / META_NAME, binary=True) as f:
            f.write(meta_bytes)
    except BaseException:  # no index.json names the new data file: remove it
        with contextlib.suppress(OSError):
            (folder / data_name).unlink()
        raise
    return meta_bytes


def _data_name(generation: int) -> str:
    return f"data-{generation:06d}.npz"


def _canonical(value: object) -> str:
    """One JSON text per value, so "the same settings" is equality of strings."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr)


# ----- opening files, locks, leftovers of killed builds -----------------------------------------


def _open_file(path: Path, flags: int, refuse: Callable[[bool], Exception]) -> int:
    """``os.open`` that never follows a link; raises ``refuse(is_link)`` for a link or a non-regular file."""
    if os.path.islink(path):  # also where O_NOFOLLOW does not exist
        raise refuse(True)
    flags |= _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError:
        if os.path.islink(path):  # ELOOP: the link appeared since the check
            raise refuse(True) from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO would block, a device never end
        os.close(fd)
        raise refuse(False)
    return fd


def _open_regular(path: Path) -> io.BufferedReader:
    """Open ``path`` for reading; IsADirectoryError for a link or anything but a regular file."""

    def refuse(link: bool) -> OSError:
        what = "a symbolic link, not a regular file" if link else "not a regular file"
        return IsADirectoryError(21, what, str(path))

    return os.fdopen(_open_file(path, os.O_RDONLY, refuse), "rb")


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``folder/.lock`` (POSIX); a ``.lock`` that is a link is refused."""
    if not HAS_LOCKS:
        yield
        return
    path, shown = folder / LOCK_NAME, folder.as_posix()

    def refuse(link: bool) -> CorruptIndexError:
        what = "a symbolic link" if link else "not a regular file"
        return CorruptIndexError(
            f"{path.name} in the index {shown} is {what}; an index holds only regular files, so it "
            f"was not opened. Remove {path.as_posix()} (it is not part of the index) and run this again"
        )

    try:
        fd = _open_file(path, os.O_RDWR | os.O_CREAT, refuse)
    except OSError as err:
        raise StoreError(f"cannot open {LOCK_NAME} in the index {shown}: {err.strerror or err}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise IndexBusyError(
                f"another run is writing the index {shown}; wait for it to finish and try again"
            ) from None
        yield
    finally:
        os.close(fd)


def _mark_as_building(staging: Path) -> int | None:
    """Put a build marker in ``staging``, locked before it is named; return its fd (holding the lock)."""
    if not HAS_LOCKS:
        return None
    fd, tmp = create_temporary_file(staging, ".tmp-building-")
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, f"{os.getpid()}\n".encode())  # for a person looking; never trusted
        os.rename(tmp, staging / _BUILD_MARKER)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _remove_dead_builds(parent: Path) -> None:
    """Delete the ``.tmp-*`` staging folders in ``parent`` that killed builds left."""
    if not HAS_LOCKS:
        return
    try:
        found = os.scandir(parent)
        entries = [e.path for e in found if e.name.startswith(".tmp-") and e.is_dir(follow_symlinks=False)]
    except OSError:
        return
    for entry in entries:
        if _is_dead_build(Path(entry)):
            shutil.rmtree(entry, ignore_errors=True)


def _is_dead_build(folder: Path) -> bool:
    """Whether ``folder`` holds only what a build writes and no living process locks its marker."""
    try:
        names = os.listdir(folder)
        age = time.time() - os.stat(folder).st_mtime
    except OSError:
        return False
    if not names or not all(_STAGED_NAME.fullmatch(name) for name in names):
        return False
    if _BUILD_MARKER not in names:
        # Killed between creating its marker and naming it: only age tells.
        return len(names) == 1 and names[0].startswith(".tmp-building-") and age > _UNMARKED_BUILD_SECONDS
    marker = folder / _BUILD_MARKER
    try:
        fd = os.open(marker, os.O_RDONLY | _NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        # Still this folder's marker, not one a finished build renamed away meanwhile.
        return os.path.samestat(os.fstat(fd), os.stat(marker, follow_symlinks=False))
    except OSError:
        return False
    finally:
        os.close(fd)


# ----- reading defensively -------------------------------------------------------------------


class Loaded(NamedTuple):
    """A checked index as read: settings, arrays (:data:`ARRAYS`), where it lies, ids and file names."""

    settings: Settings
    arrays: dict[str, np.ndarray]
    disk: OnDisk
    ids: list[str]
    source_names: list[str]


def read_index(folder: Path) -> Loaded:
    """Read and check the index in ``folder`` (changing nothing); read again if a writer replaced it.

    >>> read_index(Path("no-such-index"))
    Traceback (most recent call last):
        ...
    neardup_lab.index.fileformat.StoreError: no index at no-such-index; build one first (...)
    """
    shown = folder.as_posix()
    if not folder.exists():
        raise StoreError(f"no index at {shown}; build one first (neardup-lab index build)")
    if not folder.is_dir():
        raise CorruptIndexError(f"{shown} is a file, not an index folder")
    for _ in range(_OPEN_ATTEMPTS):
        meta_bytes = _read_meta(folder, shown)
        meta, settings = _parse_meta(meta_bytes, shown)
        try:
            members = ARRAYS if meta["format_version"] == FORMAT_VERSION else _V2_ARRAYS
            arrays, header = _load_data(folder / meta["data_file"], meta["data_sha256"], shown, members)
        except FileNotFoundError:
            if _read_meta(folder, shown) == meta_bytes:
                raise CorruptIndexError(
                    f"the data file {meta['data_file']} of the index {shown} is missing; "
                    "restore the index from a backup or rebuild it"
                ) from None
            continue  # a writer committed a newer generation and removed this one
        _check_header(meta, header, shown)
        for key, ours in (("normalization", NORMALIZATION), ("shingle_hash", SHINGLE_HASH)):
            if meta[key] != ours:  # shingle ids made by code that normalises or hashes differently
                raise IndexVersionError(
                    f"the index {shown} was built with {key} {meta[key]!r}, but this neardup_lab uses "
                    f"{ours!r}, so its shingle ids cannot be compared; {_REBUILD}"
                )
        if members is _V2_ARRAYS:
            arrays = _from_version_2(arrays, meta["documents"], shown)
        ids, names = _check_arrays(arrays, meta["documents"], settings, shown)
        return Loaded(settings, arrays, OnDisk(folder, meta_bytes, meta["generation"]), ids, names)
    raise IndexBusyError(
        f"the index {shown} changed {_OPEN_ATTEMPTS} times while it was being opened; "
        "try again when the runs writing to it have finished"
    )


def _damaged(shown: str, what: str) -> CorruptIndexError:
    return CorruptIndexError(f"the index {shown} is damaged: {what}; restore it from a backup or rebuild it")


class _LongNumber:
    """An integer in ``index.json`` too long to be anything but damage."""

    def __init__(self, digits: int) -> None:
        self.digits = digits

    def __repr__(self) -> str:
        return f"a {self.digits}-digit number"


def _parse_int(text: str) -> int | _LongNumber:
    digits = len(text.lstrip("-"))
    return _LongNumber(digits) if digits > _MAX_DIGITS else int(text)


def _load_json(text: str) -> object:
    """``json.loads`` that builds no huge int; deep nesting is a ValueError."""
    if nested_too_deeply(text):
        raise ValueError("it is nested too deeply")
    try:
        return json.loads(text, parse_int=_parse_int)
    except RecursionError:
        raise ValueError("it is nested too deeply") from None


def _read_meta(folder: Path, shown: str) -> bytes:
    try:
        with _open_regular(folder / META_NAME) as f:
            return f.read(_MAX_META_BYTES + 1)
    except FileNotFoundError:
        raise CorruptIndexError(
            f"{shown} has no {META_NAME}, so it is not a neardup-lab index (or it is damaged)"
        ) from None
    except IsADirectoryError as err:  # a link, a folder, a FIFO
        raise StoreError(
            f"cannot read {META_NAME} in {shown}: it is {err.strerror}; an index holds only regular files "
            "(restore the index from a backup or rebuild it)"
        ) from None
    except OSError as err:
        raise StoreError(f"cannot read {META_NAME} in {shown}: {err.strerror or err}") from None


def _is_count(value: object, low: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


_META_CHECKS = {
    "documents": lambda v: _is_count(v, 0),
    "generation": lambda v: _is_count(v, 1),
    "data_file": lambda v: isinstance(v, str) and _DATA_NAME.fullmatch(v) is not None,
    "data_sha256": lambda v: isinstance(v, str) and re.fullmatch(r"[0-9a-f]{64}", v) is not None,
    "written_by": lambda v: isinstance(v, str) and len(v) <= 200,
    "normalization": lambda v: isinstance(v, str) and len(v) <= 200,
    "shingle_hash": lambda v: isinstance(v, str) and len(v) <= 200,
}


def _parse_meta(meta_bytes: bytes, shown: str) -> tuple[dict, Settings]:
    """``index.json`` checked field by field, and its settings; raises naming the first bad field."""
    if len(meta_bytes) > _MAX_META_BYTES:
        raise CorruptIndexError(f"{META_NAME} in {shown} is far too large to be index metadata")
    try:
        meta = _load_json(meta_bytes.decode("utf-8"))
    except ValueError as err:  # also UnicodeDecodeError and JSONDecodeError
        raise _damaged(shown, f"{META_NAME} is not valid JSON ({err})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        raise CorruptIndexError(f"{META_NAME} in {shown} does not describe a neardup-lab index")
    version = meta.get("format_version")
    if not (isinstance(version, int) and _is_count(version, 1)):
        raise _damaged(shown, f"{META_NAME} has no valid format_version ({validate.shown(version)})")
    if not _OLDEST_READ <= version <= FORMAT_VERSION:
        newer = version > FORMAT_VERSION
        raise IndexVersionError(
            f"the index {shown} uses format version {version}, {'newer' if newer else 'older'} than the "
            f"versions {_OLDEST_READ} to {FORMAT_VERSION} this neardup_lab reads; "
            + ("upgrade neardup_lab to open it" if newer else _REBUILD)
        )
    unexpected = sorted(set(meta) - set(_META_KEYS))
    if unexpected:
        raise _damaged(shown, f"{META_NAME} has unexpected fields {unexpected}")
    for key, ok in _META_CHECKS.items():
        if key not in meta or not ok(meta[key]):
            value = validate.shown(meta.get(key))
            raise _damaged(shown, f"{META_NAME} has a missing or invalid {key!r} ({value})")
    if meta["data_file"] != _data_name(meta["generation"]):
        raise _damaged(
            shown, f"{META_NAME} names data_file {meta['data_file']!r} for generation {meta['generation']}"
        )
    data = meta.get("settings")
    try:  # stored settings name their banding: no optimal_params search on open
        for name in ("bands", "rows"):
            if isinstance(data, dict) and data.get(name, 0) is None:
                raise ValueError(f"{name} must be an int, got None")
        settings = check_index_settings(Settings.from_dict(data))
    except (ValueError, TypeError) as err:
        raise _damaged(shown, f"{META_NAME} holds invalid settings: {err}") from None
    return meta, settings


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
    """Compare ``index.json`` with the header the data file was written with."""
    data_file = meta["data_file"]
    try:
        if header.dtype.kind != "U" or header.shape != ():
            raise ValueError(f"dtype {header.dtype}, shape {header.shape}")
        written = _load_json(str(header))
        if not isinstance(written, dict):
            raise ValueError("not a JSON object")
    except ValueError as err:
        raise _damaged(shown, f"the header of its data file {data_file} ({err})") from None
    said = _flatten({key: meta[key] for key in _HEADER_KEYS})
    wrote = _flatten({key: written.get(key) for key in _HEADER_KEYS})
    for name in [*said, *(n for n in wrote if n not in said)]:
        if _canonical(said.get(name)) != _canonical(wrote.get(name)):
            raise CorruptIndexError(
                f"the index {shown} is damaged: {META_NAME} says {name} = {validate.shown(said.get(name))}, "
                f"but its data file {data_file} was written with {validate.shown(wrote.get(name))}; "
                f"undo the edit of {META_NAME}, restore the index from a backup, or rebuild it"
            )


def _load_data(
    data_path: Path, sha256: str, shown: str, names: tuple[str, ...]
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The arrays and header of a data file, opened once, whose checksum matches (gone: FileNotFoundError)."""
    try:
        f = _open_regular(data_path)
    except FileNotFoundError:
        raise
    except OSError as err:
        raise CorruptIndexError(
            f"the data file {data_path.name} of the index {shown} cannot be read ({err.strerror or err})"
        ) from None
    with f:
        if hashlib.file_digest(f, "sha256").hexdigest() != sha256:
            raise _damaged(shown, f"{data_path.name} does not match the checksum in {META_NAME}")
        f.seek(0)
        if f.read(4) != b"PK\x03\x04":
            raise _damaged(shown, "its data file is not a .npz archive")
        try:  # _check_members refuses object arrays before allow_pickle=False has to
            _check_members(f, os.fstat(f.fileno()).st_size, shown, names)
            f.seek(0)
            with np.load(f, allow_pickle=False) as npz:
                members = {name: npz[name] for name in (*names, _HEADER)}
        except (ValueError, zipfile.BadZipFile, OSError, EOFError, zlib.error, KeyError) as err:
            raise _damaged(shown, f"its data file: {err}") from None
    header = members.pop(_HEADER)
    return members, header


def _check_members(f: IO[bytes], size: int, shown: str, names: tuple[str, ...]) -> None:
    """Refuse, before numpy allocates, members that are not plain arrays or claim more than the file."""
    readers = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
    with zipfile.ZipFile(f) as archive:
        infos = archive.infolist()
        if sorted(info.filename for info in infos) != sorted(f"{name}.npy" for name in (*names, _HEADER)):
            raise CorruptIndexError(f"the data file of the index {shown} does not hold the expected arrays")
        for info in infos:
            if info.compress_type != zipfile.ZIP_STORED or info.file_size > size:
                raise _damaged(shown, f"the member {info.filename!r} is compressed or larger than its file")
            with archive.open(info) as member:
                version = np.lib.format.read_magic(member)
                if version not in readers:
                    raise ValueError(f"unsupported .npy format version {version}")
                shape, _, dtype = readers[version](member)
            if dtype.hasobject:
                raise CorruptIndexError(
                    f"the data file of the index {shown} holds Python objects (pickled data); loading them "
                    "could run code, so it is refused. This is not an index neardup_lab wrote"
                )
            if math.prod(shape) * dtype.itemsize > info.file_size:
                raise _damaged(shown, f"the member {info.filename!r} claims more data than it holds")


def pack_strings(strings: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(offsets, data)``: the strings' UTF-8 bytes end to end and where each starts (lone surrogates kept).

    >>> offsets, data = pack_strings(["a", "é", ""])
    >>> offsets.tolist(), data.tobytes()
    ([0, 1, 3, 3], b'a\\xc3\\xa9')
    """
    encoded = [text.encode("utf-8", "surrogatepass") for text in strings]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    return offsets, np.frombuffer(b"".join(encoded), dtype=np.uint8).copy()


def unpack_strings(offsets: np.ndarray, data: np.ndarray) -> list[str]:
    """The strings :func:`pack_strings` packed; ValueError if the arrays cannot be such a packing.

    >>> unpack_strings(*pack_strings(["heavy", "rain"]))
    ['heavy', 'rain']
    """
    if data.dtype != np.uint8 or data.ndim != 1:
        raise ValueError(f"the bytes have dtype {data.dtype} and shape {data.shape}, expected 1-D uint8")
    if offsets.dtype != np.int64 or offsets.ndim != 1 or len(offsets) == 0:
        raise ValueError(f"the offsets have dtype {offsets.dtype} and shape {offsets.shape}, expected int64")
    if offsets[0] != 0 or offsets[-1] != len(data) or np.any(np.diff(offsets) < 0):
        raise ValueError("the offsets do not describe the bytes")
    blob, bounds = data.tobytes(), offsets.tolist()
    return [blob[a:b].decode("utf-8", "surrogatepass") for a, b in zip(bounds, bounds[1:])]


def _from_version_2(arrays: dict[str, np.ndarray], n: int, shown: str) -> dict[str, np.ndarray]:
    """The arrays of a version-2 data file (ids as a unicode array, no input files) as version 3."""
    ids = arrays["ids"]
    if ids.dtype.kind != "U" or ids.shape != (n,):
        raise CorruptIndexError(
            f"the data file of the index {shown} is inconsistent: ids have dtype {ids.dtype} and "
            f"shape {ids.shape}, expected {n} unicode strings"
        )
    id_offsets, id_bytes = pack_strings(ids.tolist())
    name_offsets, names = pack_strings([])
    return {
        **arrays,
        "ids": id_bytes,
        "id_offsets": id_offsets,
        "source_names": names,
        "source_name_offsets": name_offsets,
        "source_inodes": np.empty((0, 2), dtype=np.uint64),
        "source_digests": np.empty((0, 32), dtype=np.uint8),
    }


def _check_arrays(
    arrays: dict[str, np.ndarray], n: int, settings: Settings, shown: str
) -> tuple[list[str], list[str]]:
    """The document ids and input file names, decoded; raises if the arrays do not make an index of ``n``."""

    def bad(what: str) -> CorruptIndexError:
        return CorruptIndexError(f"the data file of the index {shown} is inconsistent: {what}")

    def strings(data: str, offsets: str) -> list[str]:
        try:
            return unpack_strings(arrays[offsets], arrays[data])
        except ValueError as err:  # also UnicodeDecodeError
            raise bad(f"{data}: {err}") from None

    sigs = arrays["signatures"]
    offsets, flat, keys = arrays["shingle_offsets"], arrays["shingle_ids"], arrays["exact_keys"]
    dtype = settings.hasher().dtype
    ids, names = strings("ids", "id_offsets"), strings("source_names", "source_name_offsets")
    if len(ids) != n or np.any(np.diff(arrays["id_offsets"]) == 0) or 0 in arrays["ids"]:
        raise bad(f"ids hold {len(ids)} strings, expected {n} non-empty ids without NUL characters")
    if len(set(ids)) != n:
        raise CorruptIndexError(f"the index {shown} holds the same document id twice; it is damaged")
    inodes, digests, m = arrays["source_inodes"], arrays["source_digests"], len(names)
    if (inodes.dtype, inodes.shape, digests.dtype, digests.shape) != (np.uint64, (m, 2), np.uint8, (m, 32)):
        raise bad(f"the input files' inodes or digests do not describe {m} files")
    if sigs.dtype != dtype or sigs.shape != (n, settings.num_perm):
        expected = f"{dtype} {(n, settings.num_perm)}"
        raise bad(f"signatures have dtype {sigs.dtype} and shape {sigs.shape}, expected {expected}")
    if flat.dtype != np.uint64 or flat.ndim != 1:
        raise bad(f"shingle ids have dtype {flat.dtype} and shape {flat.shape}, expected 1-D uint64")
    if (
        (offsets.dtype, offsets.shape) != (np.int64, (n + 1,))
        or (offsets[0], offsets[-1]) != (0, len(flat))
        or np.any(np.diff(offsets) < 0)
    ):
        raise bad("shingle offsets do not describe the shingle ids")
    starts = offsets[1:-1][(offsets[1:-1] > 0) & (offsets[1:-1] < len(flat))]
    rising = flat[1:] > flat[:-1]
    rising[starts - 1] = True  # a document may start below where the one before ended
    if not rising.all():
        raise bad("the shingle ids of a document are not sorted and distinct")
    if keys.dtype != np.uint64 or keys.shape != (n, 2):
        raise bad(f"exact keys have dtype {keys.dtype} and shape {keys.shape}, expected uint64 {(n, 2)}")
    return ids, names
