"""The package runs on a 32-bit numpy (the book's in-browser Python), where ``np.intp`` is int32.

There, numpy converts some integer arguments to ``np.intp`` with the "safe" casting rule,
so an int64 array raises ``TypeError: Cannot cast array data from dtype('int64') to
dtype('int32') according to the rule 'safe'``:

- the ``repeats`` of ``np.repeat``,
- the ``indices`` of ``ufunc.reduceat`` (``np.add.reduceat``, ``np.minimum.reduceat``, ...),
- the input of ``np.bincount``.

Fancy indexing, ``ufunc.at``, ``np.take``, ``np.insert`` and ``np.split`` cast with the
"same_kind" rule or take Python integers, so int64 is fine there.

On a 64-bit numpy every integer array is safely castable to ``np.intp``, so these calls
cannot fail here. The fixture below makes them behave as on a 32-bit numpy: when the
caller is a module of the package, ``np.repeat``, ``np.bincount`` and ``reduceat`` of every
ufunc raise unless the argument's dtype casts safely to int32. A workload then runs the
package's paths (signing with every scheme, ``dedup`` with every verifier and shingle kind,
the corpus, the SimHash block index, ``explain``, the exact truth), and a last test checks
that every such call in the core and the engine was reached, so a new call site that is
not exercised fails here too.
"""

from __future__ import annotations

import ast
import functools
import sys
from pathlib import Path

import numpy as np
import pytest

import neardup_lab
from neardup_lab import limits
from neardup_lab.minhash import SCHEMES

PACKAGE = Path(neardup_lab.__file__).resolve().parent
#: Tool subpackages (extras, or not run in the browser): their calls are checked when reached,
#: but the workload is not required to reach them.
TOOLS = ("cli", "readers", "index", "distributed")
CHECKED_CALLS = ("repeat", "bincount", "reduceat")


def _fits_32bit_intp(value: object) -> bool:
    """Whether numpy on a 32-bit platform casts ``value`` to np.intp with the "safe" rule."""
    if isinstance(value, (np.ndarray, np.generic)):
        return np.can_cast(value.dtype, np.int32, "safe")
    return True  # Python ints and lists of them become the default integer, np.intp


def _package_caller(depth: int) -> tuple[str, int] | None:
    """``(path inside the package, line)`` of the caller ``depth`` frames up, if it is package code."""
    frame = sys._getframe(depth + 1)
    path = Path(frame.f_code.co_filename).resolve()
    if PACKAGE not in path.parents:
        return None
    return path.relative_to(PACKAGE).as_posix(), frame.f_lineno


def _check(name: str, value: object, reached: set[tuple[str, int]]) -> None:
    site = _package_caller(2)
    if site is None:
        return  # numpy's or another library's own call
    reached.add(site)
    if not _fits_32bit_intp(value):
        raise TypeError(
            f"{site[0]}:{site[1]}: {name} got {np.asarray(value).dtype} where a 32-bit numpy needs "
            f"np.intp (int32 there); cast it with .astype(np.intp, copy=False)"
        )


class _CheckedUfunc:
    """A ufunc whose ``reduceat`` checks its indices; everything else goes to the ufunc."""

    def __init__(self, ufunc: np.ufunc, reached: set[tuple[str, int]]) -> None:
        self._ufunc, self._reached = ufunc, reached

    def __call__(self, *args: object, **kwargs: object) -> object:
        return self._ufunc(*args, **kwargs)

    def __getattr__(self, name: str) -> object:
        return getattr(self._ufunc, name)

    def reduceat(self, array: object, indices: object, *args: object, **kwargs: object) -> object:
        _check(f"np.{self._ufunc.__name__}.reduceat indices", indices, self._reached)
        return self._ufunc.reduceat(array, indices, *args, **kwargs)


def _checked_function(function, argument: int, reached: set[tuple[str, int]]):  # noqa: ANN001, ANN202
    @functools.wraps(function)
    def checked(*args: object, **kwargs: object) -> object:
        if len(args) > argument:
            _check(f"np.{function.__name__} argument {argument}", args[argument], reached)
        for value in kwargs.values():
            if isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind in "iu":
                _check(f"np.{function.__name__}", value, reached)
        return function(*args, **kwargs)

    return checked


@pytest.fixture
def numpy_32bit(monkeypatch: pytest.MonkeyPatch) -> set[tuple[str, int]]:
    """numpy as strict as on a 32-bit platform for calls from the package; the call sites reached."""
    reached: set[tuple[str, int]] = set()
    # The package's ``.astype(np.intp)`` then gives int32, as it does on a 32-bit numpy.
    monkeypatch.setattr(np, "intp", np.int32)
    monkeypatch.setattr(np, "repeat", _checked_function(np.repeat, 1, reached))
    monkeypatch.setattr(np, "bincount", _checked_function(np.bincount, 0, reached))
    for name in dir(np):
        value = getattr(np, name)
        if isinstance(value, np.ufunc):
            monkeypatch.setattr(np, name, _CheckedUfunc(value, reached))
    return reached


def test_the_checks_catch_int64(numpy_32bit: set[tuple[str, int]], monkeypatch: pytest.MonkeyPatch) -> None:
    """The emulation fails on what a 32-bit numpy rejects, and lets through what it accepts."""
    # Calls from this file are not package calls: pretend they are, to see the checks fire.
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", Path(__file__).resolve().parent)
    counts64 = np.array([1, 2], dtype=np.int64)
    with pytest.raises(TypeError, match="np.repeat .*int64.*astype\\(np.intp"):
        np.repeat(np.arange(2), counts64)
    with pytest.raises(TypeError, match="np.minimum.reduceat indices got int64"):
        np.minimum.reduceat(np.arange(4), counts64)
    with pytest.raises(TypeError, match="np.bincount"):
        np.bincount(counts64)
    assert np.repeat(np.arange(2), counts64.astype(np.int32)).tolist() == [0, 1, 1]
    assert np.repeat(np.arange(2), 2).tolist() == [0, 0, 1, 1]
    assert np.add.reduceat(np.arange(4), np.array([0, 2], dtype=np.intp).astype(np.int32)).tolist() == [1, 5]


def _workload() -> list[object]:
    """Run the package's paths; return their answers (signatures, clusters, pairs, ...)."""
    from neardup_lab import (
        BlockIndex,
        LSHIndex,
        MinHasher,
        brute_force_pairs,
        dedup,
        explain,
        make_corpus,
        optimal_params,
        simhash,
        ties,
        word_shingles,
    )

    corpus = make_corpus(12, seed=3, copies=(1, 3), n_words=80)
    # Words longer than 8 bytes take the multi-lane hashing path; "\ufb01" and "\u1e9e" change
    # their UTF-8 length when case-folded.
    odd = ["The \ufb01nancial STRA\u1e9eE extraordinarily  incomprehensible " * 5] * 2
    docs = list(corpus.docs) + odd + [""]
    sets = [word_shingles(d, 3) for d in docs]
    answers: list[object] = [corpus]
    for scheme in SCHEMES:
        answers.append(MinHasher(num_perm=32, seed=2, scheme=scheme).signatures(sets).tobytes())
        for verify in ("exact", "estimate", "none"):
            result = dedup(docs, threshold=0.6, num_perm=32, k=3, scheme=scheme, verify=verify)
            answers.append((result.clusters, result.keepers))
    result = dedup(docs, threshold=0.6, num_perm=32, k=4, shingle="char")
    answers.append((result.clusters, result.keepers))
    result = dedup(docs, threshold=0.6, num_perm=64, k=3, bbits=8)
    answers += [(result.clusters, result.keepers), ties(result, docs)]
    filtered = dedup(docs, threshold=0.6, num_perm=32, k=3, max_df=0.05)  # the document-frequency filter
    answers.append((filtered.clusters, filtered.keepers))
    answers += [explain(docs[0], docs[1]).lines(), optimal_params(0.8, 128)]
    index, hasher = LSHIndex(bands=8, rows=4), MinHasher(num_perm=32, seed=2)
    for i, s in enumerate(sets[:6]):
        index.insert(i, hasher.signature(s))
        answers.append(index.query(hasher.signature(s)))
    fingerprints = np.array([simhash(s) for s in sets if s], dtype=np.uint64)
    answers.append(BlockIndex(fingerprints, max_distance=3).query_many(fingerprints).tolist())
    answers.append(brute_force_pairs(sets, threshold=0.5))
    return answers


def test_package_paths_on_32bit_numpy(
    numpy_32bit: set[tuple[str, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Small blocks: long documents are signed block by block (another path to the same minima).
    monkeypatch.setattr(limits, "SIGN_BLOCK_CELLS", 64 * 32)
    monkeypatch.setattr(limits, "SIGN_BLOCK_CELLS_MOD_PRIME", 64 * 32)
    emulated = _workload()
    monkeypatch.undo()
    assert emulated == _workload(), "the answers on a 32-bit numpy differ from the native ones"
    # A call the workload never reaches is a call the emulation never checked.
    sites = _call_sites()
    assert len(sites) > 5, f"only {sorted(sites)} found: has the search for call sites broken?"
    missed = sorted(sites - numpy_32bit)
    assert not missed, (
        f"these calls were never reached under the 32-bit emulation: {missed}; "
        "extend _workload in tests/test_intp32.py so it runs them"
    )


def _call_sites() -> set[tuple[str, int]]:
    """Every ``np.repeat(``, ``np.bincount(`` and ``<ufunc>.reduceat(`` call in the core and the engine."""
    sites = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] in TOOLS:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            called = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            if called and node.func.attr in CHECKED_CALLS:
                sites.add((relative.as_posix(), node.lineno))
    return sites

