"""The synthetic corpus: determinism, truth, edit kinds."""

import time
from collections import Counter

import pytest

from neardup_lab import (
    jaccard,
    make_article,
    make_corpus,
    normalize,
    replace_words,
    word_shingles,
)
from neardup_lab.corpus import EDIT_KINDS, apply_edit, vocabulary


def test_deterministic_and_seed_dependent():
    assert make_corpus(20, seed=4) == make_corpus(20, seed=4)
    assert make_corpus(20, seed=4).docs != make_corpus(20, seed=5).docs
    assert make_article(3) == make_article(3) != make_article(4)


def test_truth_is_consistent():
    docs, origin, edits = make_corpus(200, seed=1)
    assert len(docs) == len(origin) == len(edits)
    for i, source in enumerate(origin):
        assert origin[source] == source  # the origin is an original
        assert (edits[i] == ()) == (source == i)
    kinds = Counter(k for e in edits for k in e)
    assert set(kinds) == set(EDIT_KINDS)


def test_copies_range_and_no_shuffle():
    docs, origin, edits = make_corpus(10, seed=2, copies=(2, 2), shuffle=False)
    assert len(docs) == 30
    assert origin[:10] == list(range(10))
    assert Counter(origin) == {i: 3 for i in range(10)}


def test_articles_look_like_news():
    text = make_article(seed=8, n_words=300)
    headline, body = text.split("\n\n")
    assert 5 <= len(headline.split()) <= 9
    assert len(body.split()) == 300
    assert body.endswith(".") and body[0].isupper()
    # Zipf vocabulary: the commonest word is far more frequent than a typical one.
    counts = Counter(normalize(body).split())
    assert counts.most_common(1)[0][1] > 10 * (300 / len(counts))
    assert vocabulary()[0] == "the" and len(set(vocabulary())) == len(vocabulary())


@pytest.mark.parametrize("kind", EDIT_KINDS)
def test_edit_kinds(kind):
    original = make_article(seed=11)
    edited = apply_edit(original, kind, seed=3, other_headlines=["Other Story Headline Here"])
    assert edited != original
    same_after_normalising = normalize(edited) == normalize(original)
    assert same_after_normalising == (kind == "case-spacing")
    similarity = jaccard(word_shingles(original), word_shingles(edited))
    assert similarity > 0.4, kind


def test_replace_words_changes_exactly_n_words():
    original = make_article(seed=5)
    for n in (1, 10):
        edited = replace_words(original, n, seed=n)
        changed = sum(a.lower() != b.lower() for a, b in zip(original.split(), edited.split()))
        assert changed == n
    with pytest.raises(ValueError, match="count"):
        replace_words("a b c", 5, seed=0)


def test_bad_arguments():
    with pytest.raises(ValueError, match="n_originals"):
        make_corpus(-1)
    with pytest.raises(ValueError, match="copies"):
        make_corpus(3, copies=(3, 1))
    with pytest.raises(ValueError, match="edit_kinds"):
        make_corpus(3, edit_kinds=("typo",))
    with pytest.raises(ValueError, match="'typo'"):
        apply_edit("a b", "typo", seed=0)


def test_fast_enough_for_100k_documents():
    start = time.perf_counter()
    docs, _, _ = make_corpus(40_000, seed=3)
    elapsed = time.perf_counter() - start
    assert len(docs) > 90_000
    assert elapsed < 60, f"{len(docs)} documents took {elapsed:.1f} s"
