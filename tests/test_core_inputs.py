"""Hostile and unlucky inputs to the Python API, and the one-kernel walk through dedup."""

import os
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest

from neardup_lab import (
    LSHIndex,
    MinHasher,
    UnionFind,
    candidate_pair_array,
    dedup,
    hamming,
    hash_shingles,
    jaccard,
    make_corpus,
    simhash,
    word_shingles,
)
from neardup_lab.engine.pipeline import check_jobs, prepare
from neardup_lab.engine.signing import sign_flat
from neardup_lab.settings import MAX_NUM_PERM, Settings

# --- settings that cannot work fail at once, before any allocation --------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"num_perm": 1_000_000}, ValueError, "num_perm must be at most"),
        ({"k": 10**8}, ValueError, "k must be at most"),
        ({"threshold": True}, TypeError, "threshold must be a number"),
        ({"num_perm": 64.0}, TypeError, "num_perm must be a positive int"),
        ({"bands": 400, "rows": 400}, ValueError, "exceeds num_perm"),
    ],
)
def test_settings_that_cannot_work_are_refused_quickly(kwargs, error, message):
    started = time.perf_counter()
    with pytest.raises(error, match=message):
        dedup(["a b c", "a b d"], **kwargs)
    assert time.perf_counter() - started < 2.0


def test_huge_minhasher_is_a_value_error_not_a_memory_error():
    with pytest.raises(ValueError, match=str(MAX_NUM_PERM)):
        MinHasher(num_perm=2**31)


@pytest.mark.parametrize(
    ("docs", "message"),
    [(iter(["a", "b"]), "pass list"), ({"a": 1}, "list\\(d.values\\(\\)\\)"), ("text", "single str")],
)
def test_documents_that_are_not_a_sequence_say_what_to_pass(docs, message):
    with pytest.raises(TypeError, match=message):
        dedup(docs)


# --- a long document is signed in bounded blocks, with the same bits --------------------------


@pytest.mark.parametrize("scheme", ["multiply-shift", "mod-prime", "one-permutation"])
def test_long_document_signed_in_blocks_equals_whole(scheme):
    hasher = MinHasher(num_perm=64, seed=3, scheme=scheme)
    ids = np.random.default_rng(5).integers(0, 2**63, size=50_000, dtype=np.uint64)
    whole = hasher.hash_values(ids).min(axis=0) if scheme != "one-permutation" else None
    blocked = sign_flat(hasher, ids, np.array([len(ids)]))[0]
    if whole is not None:
        assert np.array_equal(blocked, whole)
    halves = np.minimum(hasher.signature(ids[:25_000]), hasher.signature(ids[25_000:]))
    if scheme != "one-permutation":  # densification does not merge; the raw minima do
        assert np.array_equal(blocked, halves)


# --- a big cluster costs about linear in its size -------------------------------------------


def test_big_cluster_is_checked_about_once_per_member():
    base = " ".join(f"word{i}" for i in range(60))
    docs = [f"{base} unique{i}" for i in range(3000)]
    result = dedup(docs)
    assert result.clusters == [list(range(3000))]
    assert result.stats["candidates"]["pairs"] < 4 * 3000  # all pairs would be 4,498,500


# --- text without spaces -------------------------------------------------------------------


def test_unspaced_script_with_word_shingles_warns():
    docs = ["今日は東京で大雨が降り電車が止まりました", "今日は東京で大雨が降り電車が止まった"]
    with pytest.warns(UserWarning, match="shingle='char'"):
        dedup(docs, k=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = dedup(docs, k=2, shingle="char", threshold=0.6)
    assert result.clusters == [[0, 1]]


# --- results ----------------------------------------------------------------------------------


def test_equal_results_compare_equal_whatever_their_timings():
    docs = make_corpus(200, seed=2).docs
    assert dedup(docs) == dedup(docs)
    assert dedup(docs).settings == Settings()


# --- the pipeline is the chapters, in order ----------------------------------------------------


def test_dedup_stages_equal_the_teaching_functions():
    docs = make_corpus(150, seed=8).docs
    settings = Settings(threshold=0.7, num_perm=64)
    prepared = prepare(docs, settings)
    packed = prepared.sets
    sets = [set(word_shingles(d, settings.k)) for d in docs]
    hasher = settings.hasher()
    for d in range(len(docs)):
        ids = packed.of(d)
        # One id per distinct shingle (the fast path's ids are not hash_shingles' values).
        assert len(ids) == len(hash_shingles(sets[d])) == len(sets[d])
        assert np.array_equal(prepared.signatures[d], hasher.signature(ids)) or prepared.keys[d] in (
            prepared.keys[:d]
        )
    reps = [d for d in range(len(docs)) if prepared.keys[d] not in prepared.keys[:d]]
    index = LSHIndex(settings.bands, settings.rows)
    teaching_candidates = set()
    for d in reps:
        teaching_candidates |= {(other, d) for other in index.query(prepared.signatures[d])}
        index.insert(d, prepared.signatures[d])
    fast = candidate_pair_array(prepared.signatures[reps], settings.bands, settings.rows)
    assert {(reps[a], reps[b]) for a, b in fast.tolist()} == teaching_candidates
    verified = {(a, b) for a, b in teaching_candidates if jaccard(sets[a], sets[b]) >= settings.threshold}
    union_find = UnionFind(len(docs))
    for a, b in verified:
        union_find.union(a, b)
    first = {}
    for d in range(len(docs)):
        union_find.union(first.setdefault(prepared.keys[d], d), d)
    result = dedup(docs, threshold=0.7, num_perm=64)
    assert result.clusters == union_find.groups()
    assert set(result.pairs) <= verified


@pytest.mark.parametrize("num_perm", [1024, 8192])
def test_one_shingle_document_densifies_at_any_signature_length(num_perm):
    hasher = MinHasher(num_perm, scheme="one-permutation")
    signature = hasher.signature(np.array([5], dtype=np.uint64))
    assert len(set(signature.tolist())) == 1  # every bin copies the one that was filled


def test_no_documents_and_one_document():
    assert dedup([]).clusters == [] and dedup([]).keepers == []
    assert dedup(["alone"]).clusters == [[0]]


@pytest.mark.parametrize("name", ["num_perm", "seed", "threshold", "k", "bands"])
def test_huge_integers_are_named_not_printed(name):
    kwargs = {name: 10**5000, **({"rows": 2} if name == "bands" else {})}
    with pytest.raises(ValueError, match="about 5001 digits"):
        Settings(**kwargs)


_LONG_DOCUMENT_CHILD = """
import sys
import numpy as np
from neardup_lab import dedup

def kb(field):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":"))

rng = np.random.default_rng(1)
vocabulary = np.array([f"w{i}" for i in range(50_000)])
text = " ".join(vocabulary[rng.integers(0, len(vocabulary), 1_400_000)])  # about 10 MB
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # reset the peak resident set
before = kb("VmRSS")
dedup([text, text[: len(text) // 2]], scheme=sys.argv[1], progress=False)
print((kb("VmHWM") - before) // 1024)
"""


@pytest.mark.native("measures memory in a Python process")
@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/clear_refs"), reason="reads peak memory from /proc")
def test_a_10_mb_document_needs_bounded_memory():
    # Memory used to grow with num_perm x shingles: about 1.75 GB for this document.
    out = subprocess.run(
        [sys.executable, "-c", _LONG_DOCUMENT_CHILD, "multiply-shift"],
        capture_output=True, text=True, timeout=300, check=True,
    ).stdout
    assert int(out.strip()) < 500  # MB above the process before dedup



WRONG_TYPES = {
    "UnionFind": lambda: UnionFind("3"),
    "simhash": lambda: simhash({"a"}, bits="64"),
    "make_corpus": lambda: make_corpus("3"),
    "check_jobs": lambda: check_jobs("2"),
    "hamming": lambda: hamming(1.5, 3),
}
BAD_VALUES = {
    "UnionFind": lambda: UnionFind(-1),
    "simhash": lambda: simhash({"a"}, bits=65),
    "make_corpus": lambda: make_corpus(-3),
    "check_jobs": lambda: check_jobs(0),
    "hamming": lambda: hamming(-1, 3),
}


@pytest.mark.parametrize("name", sorted(WRONG_TYPES))
def test_a_wrong_type_is_a_type_error(name: str) -> None:
    with pytest.raises(TypeError, match="must be"):
        WRONG_TYPES[name]()


@pytest.mark.parametrize("name", sorted(BAD_VALUES))
def test_a_bad_value_is_a_value_error(name: str) -> None:
    with pytest.raises(ValueError, match="must be"):
        BAD_VALUES[name]()
