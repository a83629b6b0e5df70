"""b-bit MinHash: truncation, corrected estimates, packing, use in banding and dedup."""

import numpy as np
import pytest

from neardup_lab import (
    MinHasher,
    bbit_signatures,
    candidate_pairs,
    dedup,
    jaccard,
    make_corpus,
)
from neardup_lab.minhash import estimate_jaccard_bbit, pack_bbit


def test_truncation_keeps_low_bits_and_small_dtype():
    sigs = np.array([[0xFFFFFFFF, 0x12345678]], dtype=np.uint32)
    assert bbit_signatures(sigs, 4).tolist() == [[0xF, 0x8]]
    assert bbit_signatures(sigs, 4).dtype == np.uint8
    assert bbit_signatures(sigs, 12).dtype == np.uint16
    with pytest.raises(ValueError, match="bits"):
        bbit_signatures(sigs, 0)
    with pytest.raises(TypeError, match="unsigned"):
        bbit_signatures(np.array([1.5]), 2)


@pytest.mark.parametrize("bits", [1, 2, 4])
def test_corrected_estimate_is_unbiased(bits):
    a = {f"s{i}" for i in range(186)} | {f"a{i}" for i in range(110)}
    b = {f"s{i}" for i in range(186)} | {f"b{i}" for i in range(110)}
    true = jaccard(a, b)
    est = []
    for seed in range(300):
        h = MinHasher(128, seed=seed)
        est.append(
            estimate_jaccard_bbit(
                bbit_signatures(h.signature(a), bits), bbit_signatures(h.signature(b), bits), bits
            )
        )
    est = np.array(est)
    assert abs(est.mean() - true) < 4 * est.std(ddof=1) / np.sqrt(len(est))
    # fewer bits, more noise: 1 bit is noisier than the theory for full values
    assert est.std() > np.sqrt(true * (1 - true) / 128) * (1.3 if bits == 1 else 0.9)


def test_pack_bbit_bytes():
    values = np.array([[3, 0, 1, 2] * 2], dtype=np.uint8)
    packed = pack_bbit(values, 2)
    assert packed.shape == (1, 2) and packed.tolist() == [[0b11000110] * 2]
    with pytest.raises(ValueError, match="multiple"):
        pack_bbit(np.zeros((1, 3), dtype=np.uint8), 1)
    with pytest.raises(ValueError, match="1, 2, 4 or 8"):
        pack_bbit(values, 3)


def test_bbit_signatures_band_and_dedup():
    h = MinHasher(64, seed=2)
    same = {f"w{i}" for i in range(50)}
    sigs = bbit_signatures(h.signatures([same, same, {"other"}]), 8)
    assert (0, 1) in candidate_pairs(sigs, 16, 4)
    docs, origin, _ = make_corpus(150, seed=9)
    result = dedup(docs, threshold=0.8, bbits=8)
    for cluster in result.clusters:
        assert len({origin[i] for i in cluster}) == 1
    estimate = dedup(docs, threshold=0.8, bbits=8, verify="estimate")
    assert estimate.params["bbits"] == 8 and len(estimate.pairs) > 0


def test_dedup_refuses_too_few_bits_for_banding():
    with pytest.raises(ValueError, match="bbits=2 is too few"):
        dedup(["a b c d e f", "a b c d e g"], bbits=2)
