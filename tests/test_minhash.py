"""MinHasher: shapes, schemes, exact arithmetic, errors, merge."""

import random

import numpy as np
import pytest

from neardup_lab import MinHasher, estimate_jaccard, hash_shingles, merge_signatures, word_shingles
from neardup_lab.minhash import SCHEMES, _mulmod61, empty_value

SETS = [{"a b c", "b c d"}, {"x"}, {f"w{i}" for i in range(500)}, set()]


@pytest.mark.parametrize("scheme", SCHEMES)
def test_signature_shapes_and_dtypes(scheme):
    hasher = MinHasher(num_perm=64, seed=3, scheme=scheme)
    sig = hasher.signature({"a", "b"})
    many = hasher.signatures(SETS)
    assert sig.shape == (64,)
    assert many.shape == (len(SETS), 64)
    assert sig.dtype == many.dtype == hasher.dtype


@pytest.mark.parametrize("scheme", SCHEMES)
def test_batched_equals_one_by_one(scheme, monkeypatch):
    hasher = MinHasher(num_perm=48, seed=11, scheme=scheme)
    # Tiny blocks force many batches, including sets that straddle block edges.
    monkeypatch.setattr("neardup_lab.support.limits.SIGN_BLOCK_CELLS", 200)
    many = hasher.signatures(SETS)
    for row, shingles in zip(many, SETS):
        assert np.array_equal(row, hasher.signature(shingles))


@pytest.mark.parametrize("scheme", [s for s in SCHEMES if s != "one-permutation"])
def test_signature_is_min_of_hash_values(scheme):
    hasher = MinHasher(num_perm=16, seed=2, scheme=scheme)
    shingles = {"alpha beta", "beta gamma", "gamma delta"}
    values = hasher.hash_values(hash_shingles(sorted(shingles)))
    assert np.array_equal(hasher.signature(shingles), values.min(axis=0))


P61 = 2**61 - 1
# For each scheme: which (a, b) parameters are allowed, and h(x) in Python's unbounded integers.
PYTHON_REFERENCE = {
    "multiply-shift": (lambda a, b: a % 2 == 1, lambda a, b, x: ((a * x + b) % 2**64) >> 32),
    "mod-prime": (lambda a, b: 1 <= a < P61 and 0 <= b < P61, lambda a, b, x: (a * (x % P61) + b) % P61),
    "small-affine": (
        lambda a, b: 1 <= a < 2**35 and 0 <= b < 2**35,
        lambda a, b, x: (a * (x & 0xFFFFFFFF) + b) % P61,
    ),
}


@pytest.mark.parametrize("scheme", sorted(PYTHON_REFERENCE))
def test_hash_values_match_python_integers(scheme):
    allowed, reference = PYTHON_REFERENCE[scheme]
    hasher = MinHasher(num_perm=8, seed=9, scheme=scheme)
    ids = [int(x) for x in hash_shingles(["one", "two", "three"])]
    params = list(zip(hasher._params.a.tolist(), hasher._params.b.tolist()))
    assert all(allowed(a, b) for a, b in params)
    expected = [[reference(a, b, x) for a, b in params] for x in ids]
    assert hasher.hash_values(np.array(ids, dtype=np.uint64)).tolist() == expected


def test_mulmod61_edge_values():
    p = 2**61 - 1
    rng = random.Random(4)
    values = [0, 1, 2, p - 1, p - 2, 2**32, 2**32 - 1, 2**60] + [rng.randrange(p) for _ in range(2000)]
    a = np.array(values, dtype=np.uint64)
    x = np.array(values[::-1], dtype=np.uint64)
    got = _mulmod61(a, x).tolist()
    assert got == [(u * v) % p for u, v in zip(values, values[::-1])]


def test_same_seed_same_bits_other_seed_other_bits():
    s = {"a b", "c d", "e f"}
    assert np.array_equal(MinHasher(32, seed=4).signature(s), MinHasher(32, seed=4).signature(s))
    assert not np.array_equal(MinHasher(32, seed=4).signature(s), MinHasher(32, seed=5).signature(s))


def test_signature_known_bits():
    # Pinned literals: a change in hashing or parameter derivation would silently break stored
    # signatures, so it must fail here.
    shingles = word_shingles("the river rose overnight and flooded the road", 3)
    assert MinHasher(num_perm=4, seed=1).signature(shingles).tolist() == [
        46569290,
        584579269,
        41552440,
        69577599,
    ]
    assert MinHasher(num_perm=4, seed=1, scheme="mod-prime").signature(shingles).tolist() == [
        543657504674469024,
        258769266095844719,
        14174179197404861,
        279064482621990217,
    ]


def test_prefix_of_longer_hasher():
    # Hash function i does not depend on num_perm: a 16-value signature is the prefix of a 64-value one.
    s = {"x y", "y z"}
    assert np.array_equal(MinHasher(16, seed=7).signature(s), MinHasher(64, seed=7).signature(s)[:16])


def test_empty_set_signature_is_identity_of_merge():
    hasher = MinHasher(32)
    empty = hasher.signature(set())
    assert (empty == empty_value("multiply-shift")).all()
    sig = hasher.signature({"a", "b"})
    assert np.array_equal(merge_signatures(sig, empty), sig)


def test_id_array_input_equals_string_input():
    hasher = MinHasher(32, seed=8)
    s = {"p q", "q r", "r s"}
    assert np.array_equal(hasher.signature(s), hasher.signature(hash_shingles(s)))


@pytest.mark.parametrize("bad", [0, -3])
def test_num_perm_must_be_positive(bad):
    with pytest.raises(ValueError, match=str(bad)):
        MinHasher(num_perm=bad)


@pytest.mark.parametrize("bad", [2.5, "128", None])
def test_num_perm_must_be_int(bad):
    with pytest.raises(TypeError, match="num_perm"):
        MinHasher(num_perm=bad)


def test_bad_seed_and_scheme():
    with pytest.raises(ValueError, match="-1"):
        MinHasher(seed=-1)
    with pytest.raises(TypeError, match="seed"):
        MinHasher(seed="1")
    with pytest.raises(ValueError, match="'sha1'"):
        MinHasher(scheme="sha1")


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (None, "NoneType"),
        (b"raw bytes", "bytes"),
        ("a plain string", "str"),
        ({1, 2}, "int"),
        ({b"x"}, "bytes"),
        (np.array([1, 2], dtype=np.int64), "uint64"),
    ],
)
def test_signature_rejects_bad_input(bad, message):
    with pytest.raises(TypeError, match=message):
        MinHasher(16).signature(bad)


def test_signatures_wants_a_list():
    with pytest.raises(TypeError, match="list of shingle sets"):
        MinHasher(16).signatures({"a", "b"})


def test_estimate_and_merge_reject_mismatches():
    a = MinHasher(16).signature({"a"})
    b = MinHasher(32).signature({"a"})
    c = MinHasher(16, scheme="mod-prime").signature({"a"})
    with pytest.raises(ValueError, match=r"\(16,\) vs \(32,\)"):
        estimate_jaccard(a, b)
    with pytest.raises(ValueError, match=r"\(16,\) vs \(32,\)"):
        merge_signatures(a, b)
    with pytest.raises(ValueError, match="uint32 vs uint64"):
        estimate_jaccard(a, c)


def test_estimate_row_by_row():
    hasher = MinHasher(64)
    many = hasher.signatures([{"a", "b"}, {"c"}])
    same = estimate_jaccard(many, many)
    assert same.tolist() == [1.0, 1.0]
    assert estimate_jaccard(many[0], many[1]) == 0.0


def test_params_round_trip():
    hasher = MinHasher(num_perm=24, seed=6, scheme="mod-prime")
    again = MinHasher(**hasher.params)
    assert np.array_equal(hasher.signature({"q"}), again.signature({"q"}))
    assert "mod-prime" in repr(hasher)
