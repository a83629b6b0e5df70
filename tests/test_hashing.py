"""Stable hashing: fixed values, types, and independence from PYTHONHASHSEED."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from neardup_lab import hash_shingles, stable_hash
from neardup_lab.hashing import splitmix64


@pytest.mark.native("compares with xxhash, which is not in the page (the pinned values below hold there)")
def test_stable_hash_is_xxh3_of_utf8():
    import xxhash

    for token in ["", "heavy rain", "東京", "café"]:
        assert stable_hash(token) == xxhash.xxh3_64_intdigest(token.encode("utf-8"))
        assert 0 <= stable_hash(token) < 2**64


def test_stable_hash_known_value():
    # Pinned so that a change of hash function (which would silently break saved signatures) fails.
    assert stable_hash("heavy rain") == 9622211232230591711


@pytest.mark.parametrize("bad", [None, b"bytes", 3, ("a",)])
def test_stable_hash_rejects_non_str(bad):
    with pytest.raises(TypeError, match=type(bad).__name__):
        stable_hash(bad)


def test_hash_shingles_matches_scalar_and_order():
    tokens = ["b c", "a b", "東京 大阪"]
    ids = hash_shingles(tokens)
    assert ids.dtype == np.uint64
    assert ids.tolist() == [stable_hash(t) for t in tokens]
    assert hash_shingles([]).shape == (0,)


@pytest.mark.parametrize("bad", [["ok", 5], ["ok", b"bytes"], [None]])
def test_hash_shingles_names_the_bad_element(bad):
    with pytest.raises(TypeError, match="every shingle must be str"):
        hash_shingles(bad)


def test_hash_shingles_rejects_a_bare_string():
    with pytest.raises(TypeError, match="collection of shingles"):
        hash_shingles("not a set")


def test_splitmix64_reference_values():
    # Reference outputs of SplitMix64 seeded with 0 (Vigna's reference implementation).
    out = splitmix64(np.array([0, 0x9E3779B97F4A7C15], dtype=np.uint64))
    assert out.tolist() == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4]


_CHILD = """
import json, sys
from neardup_lab import MinHasher, word_shingles, stable_hash
text = "The council approved the new flood barrier after a long debate on Monday evening"
sig = MinHasher(num_perm=32, seed=5).signature(word_shingles(text, 3))
print(json.dumps({"sig": sig.tolist(), "stable": stable_hash("flood"), "builtin": hash("flood")}))
"""


def _run_child(hashseed: str) -> dict:
    env = dict(os.environ, PYTHONHASHSEED=hashseed)
    out = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


@pytest.mark.native("starts Python processes")
def test_signatures_identical_across_processes_with_different_hash_seeds():
    one, two = _run_child("1"), _run_child("2")
    assert one["builtin"] != two["builtin"]  # the salt really differs, so the test means something
    assert one["stable"] == two["stable"] == stable_hash("flood")
    assert one["sig"] == two["sig"]
