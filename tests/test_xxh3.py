"""The plain-Python XXH3 fallback gives the bits of the ``xxhash`` package, and the package gives the
same answers with it as with ``xxhash``."""

import json
import random
import subprocess
import sys

import numpy as np
import pytest
import xxhash
from hypothesis import given
from hypothesis import strategies as st

from neardup_lab import hashing
from neardup_lab.support import limits, xxh3

#: Each path's first and last length, with their neighbours: 0-3, 4-8, 9-16, 17-128 (by 32),
#: 129-240, then stripes (64 bytes) and blocks (1024 bytes, the last stripe kept apart).
BOUNDARIES = [0, 1, 3, 4, 8, 9, 16, 17, 32, 33, 64, 65, 96, 97, 128, 129, 240, 241, 255, 256, 257]
BOUNDARIES += [1023, 1024, 1025, 1087, 1088, 1089, 2048, 2049, 3 * 1024 + 64, 5 * 1024, 5 * 1024 + 1, 100_000]


def mismatches(data: bytes) -> list[str]:
    """Which of the three functions disagree with ``xxhash`` on ``data`` (empty: none)."""
    wrong = []
    if xxh3.xxh3_64_intdigest(data) != xxhash.xxh3_64_intdigest(data):
        wrong.append("64")
    if xxh3.xxh3_128_digest(data) != xxhash.xxh3_128_digest(data):
        wrong.append("128 digest")
    if xxh3.xxh3_128_intdigest(data) != xxhash.xxh3_128_intdigest(data):
        wrong.append("128 int")
    return wrong


def test_every_length_up_to_600_bytes():
    rng = random.Random(600)
    wrong = {n: w for n in range(601) if (w := mismatches(rng.randbytes(n)))}
    assert not wrong, f"lengths that differ from xxhash: {wrong}"


@pytest.mark.parametrize("n", BOUNDARIES)
@pytest.mark.parametrize("fill", ["random", "zeros", "ones", "counting"])
def test_lengths_around_each_boundary(n, fill):
    data = {
        "random": random.Random(n).randbytes(n),
        "zeros": bytes(n),
        "ones": b"\xff" * n,
        "counting": bytes(i % 251 for i in range(n)),
    }[fill]
    assert not mismatches(data)


def test_empty_input_pinned():
    # Published values (xxHash's sanity tables): a wrong constant in the fallback and in a test helper
    # alike could not hide here.
    assert xxh3.xxh3_64_intdigest(b"") == 0x2D06800538D394C2
    assert xxh3.xxh3_128_intdigest(b"") == 0x99AA06D3014798D86001C324468D497F
    assert xxh3.xxh3_128_digest(b"") == bytes.fromhex("99aa06d3014798d86001c324468d497f")
    assert not mismatches(b"")


def test_long_inputs_and_the_pieces_numpy_sums(monkeypatch):
    data = random.Random(7).randbytes(2_100_000)  # two numpy passes of 1024 blocks, then a part
    assert not mismatches(data)
    # Small passes: the accumulators carry over from one pass to the next.
    monkeypatch.setattr(limits, "XXH3_BLOCKS", 3)
    for n in (3 * 1024 + 1, 7 * 1024, 20 * 1024 + 700, 100_000):
        assert not mismatches(data[:n]), n


@pytest.mark.parametrize(
    "text",
    ["", "é", "café", "東京 大阪", "naïve café über straße", "Ελληνικά κείμενα", "emoji 🌧️ heavy rain 🌂" * 3,
     "日本語の文章" * 50, "ab\ud800cd"],
)
def test_non_ascii_text(text):
    data = text.encode("utf-8", "surrogatepass")
    assert not mismatches(data)
    assert hashing.stable_hash(text) == xxh3.xxh3_64_intdigest(data)


@pytest.mark.parametrize("n", [0, 5, 13, 30, 200, 1500])
def test_any_bytes_like_object(n):
    data = random.Random(n).randbytes(n)
    words = np.frombuffer(data[: n - n % 8], dtype="<u8")
    for view in (bytearray(data), memoryview(data), memoryview(data)[1:], memoryview(words)):
        assert xxh3.xxh3_64_intdigest(view) == xxhash.xxh3_64_intdigest(view)
        assert xxh3.xxh3_128_digest(view) == xxhash.xxh3_128_digest(view)


@pytest.mark.parametrize("bad", ["text", 5, None, [1, 2]])
def test_only_bytes_are_hashed(bad):
    # bytes(5) would be five zero bytes: a number must not be hashed as one.
    with pytest.raises(TypeError, match="encode it first" if isinstance(bad, str) else type(bad).__name__):
        xxh3.xxh3_64_intdigest(bad)
    with pytest.raises(TypeError):
        xxh3.xxh3_128_digest(bad)


@given(st.binary(max_size=1200))
def test_any_bytes(data):
    assert not mismatches(data)


@given(st.binary(min_size=230, max_size=3000))
def test_any_long_bytes(data):
    assert not mismatches(data)


def test_hashing_uses_xxhash_when_it_is_there():
    assert hashing.xxh3_64 is xxhash.xxh3_64_intdigest
    assert hashing.xxh3_128_digest is xxhash.xxh3_128_digest


#: Prints what the package computes with XXH3 inside: stable hashes, shingle ids, exact-copy keys,
#: signatures, and two dedups. With "blocked", ``import xxhash`` fails before the package loads.
PROBE = r"""
import hashlib, json, sys
if sys.argv[1] == "blocked":
    sys.modules["xxhash"] = None  # import xxhash now raises ImportError
from neardup_lab import dedup, hash_shingles, hashing, stable_hash
from neardup_lab.corpus import make_article, replace_words
from neardup_lab.engine.pipeline import exact_groups, prepare
from neardup_lab.settings import Settings

base = [make_article(seed, n_words=40 + 60 * seed) for seed in range(6)]
docs = base + [replace_words(text, 2, seed=9) for text in base] + [base[1].upper(), "東京 大阪 " * 20, ""]
tokens = ["", "a", "heavy rain", "東京 大阪", "x" * 40, "word " * 60]
out = {
    "xxh3_64": hashing.xxh3_64.__module__,
    "stable": [stable_hash(t) for t in tokens],
    "shingles": hash_shingles(tokens).tolist(),
    "exact": exact_groups(docs),
}
for shingle in ("word", "char"):
    result = dedup(docs, threshold=0.5, k=3, shingle=shingle)
    out[shingle] = [result.clusters, result.keepers, result.copies, result.pairs]
    prepared = prepare(docs, Settings(k=3, shingle=shingle))
    out[shingle + " keys"] = [key.hex() for key in prepared.keys]
    out[shingle + " signatures"] = hashlib.sha256(prepared.signatures.tobytes()).hexdigest()
print(json.dumps(out))
"""


def probe(mode: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, mode], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_package_gives_the_same_answers_without_xxhash():
    native, fallback = probe("native"), probe("blocked")
    assert native.pop("xxh3_64") != "neardup_lab.support.xxh3"
    assert fallback.pop("xxh3_64") == "neardup_lab.support.xxh3", "the fallback was not used"
    assert any(cluster for cluster in native["word"][0]), "the probe corpus should have clusters"
    assert fallback == native
