"""Cross-check estimates against datasketch 2.0.0 on the same pairs."""

import numpy as np
from datasketch import MinHash

from neardup_lab import (
    MinHasher,
    estimate_jaccard,
    jaccard,
    make_corpus,
    pairs_within_families,
    word_shingles,
)


def _pairs():
    docs, origin, _ = make_corpus(60, seed=21, copies=(1, 3), edit_kinds=("heavy-replace", "drop-sentence"))
    sets = [word_shingles(d) for d in docs]
    pairs = sorted(pairs_within_families(origin))
    return sets, pairs


def test_estimates_as_accurate_as_datasketch():
    sets, pairs = _pairs()
    assert len(pairs) > 80
    exact = np.array([jaccard(sets[i], sets[j]) for i, j in pairs])
    assert 0.3 < exact.mean() < 0.95  # a real spread of similarities, not only near 1
    ours, theirs = [], []
    for seed in range(3):
        hasher = MinHasher(128, seed=seed)
        sigs = hasher.signatures(sets)
        ours += [estimate_jaccard(sigs[i], sigs[j]) for i, j in pairs]
        sketches = []
        for s in sets:
            m = MinHash(num_perm=128, seed=seed)
            m.update_batch([x.encode("utf-8") for x in s])
            sketches.append(m)
        theirs += [sketches[i].jaccard(sketches[j]) for i, j in pairs]
    truth = np.tile(exact, 3)
    mae_ours = np.abs(np.array(ours) - truth).mean()
    mae_theirs = np.abs(np.array(theirs) - truth).mean()
    # Theory: mean |error| ~ sqrt(2/pi) * sqrt(J(1-J)/128); both should sit near it.
    predicted = np.mean(np.sqrt(2 / np.pi) * np.sqrt(truth * (1 - truth) / 128))
    assert mae_ours <= 1.15 * mae_theirs, (mae_ours, mae_theirs)
    assert abs(mae_ours / predicted - 1) < 0.2, (mae_ours, predicted)
    assert abs(np.mean(np.array(ours) - truth)) < 0.01  # no systematic bias either
