"""Chunking helpers for excerpts, and containment from Jaccard."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from neardup_lab import containment, jaccard, make_article, word_shingles, words
from neardup_lab.chunking import best_chunk_similarity, chunk_spans, chunk_words, containment_estimate

TEN = "w0 w1 w2 w3 w4 w5 w6 w7 w8 w9"


@pytest.mark.parametrize(
    ("n_words", "size", "step", "expected"),
    [
        (10, 4, 2, [(0, 4), (2, 6), (4, 8), (6, 10)]),  # steps land exactly on the end
        (11, 4, 2, [(0, 4), (2, 6), (4, 8), (6, 10), (7, 11)]),  # one extra chunk, moved back
        (10, 5, 5, [(0, 5), (5, 10)]),  # step == size: no overlap
        (12, 5, 5, [(0, 5), (5, 10), (7, 12)]),
        (4, 4, 1, [(0, 4)]),  # exactly one chunk long
        (3, 4, 1, [(0, 3)]),  # shorter than one chunk: the whole text
        (0, 4, 1, []),
        (3, 1, 1, [(0, 1), (1, 2), (2, 3)]),
    ],
)
def test_chunk_spans_by_hand(n_words, size, step, expected):
    assert chunk_spans(n_words, size, step) == expected


def test_chunk_words_by_hand():
    assert chunk_words(TEN, size=4, step=3) == ["w0 w1 w2 w3", "w3 w4 w5 w6", "w6 w7 w8 w9"]
    assert chunk_words(TEN, size=6, step=5) == ["w0 w1 w2 w3 w4 w5", "w4 w5 w6 w7 w8 w9"]


def test_chunk_words_normalises():
    assert chunk_words("Heavy RAIN, again!  Schools shut.", size=3, step=2) == [
        "heavy rain again",
        "again schools shut",
    ]


def test_text_shorter_than_size_is_one_chunk():
    assert chunk_words("only four words here", size=200, step=100) == ["only four words here"]


@pytest.mark.parametrize("text", ["", "   ", " ... !! "])
def test_empty_text_has_no_chunks(text):
    assert chunk_words(text, size=5, step=2) == []


def test_step_larger_than_size_is_an_error():
    with pytest.raises(ValueError, match=r"step = 6 is larger than size = 5"):
        chunk_words(TEN, size=5, step=6)
    with pytest.raises(ValueError, match="step"):
        chunk_spans(10, size=5, step=6)


@pytest.mark.parametrize(("size", "step", "name"), [(0, 1, "size"), (5, 0, "step"), (-3, 1, "size")])
def test_window_must_be_positive(size, step, name):
    with pytest.raises(ValueError, match=f"{name} must be >= 1"):
        chunk_words(TEN, size=size, step=step)


@pytest.mark.parametrize(("size", "step"), [(2.5, 1), (5, "2"), (True, 1)])
def test_window_must_be_int(size, step):
    with pytest.raises(TypeError, match="must be a positive int"):
        chunk_words(TEN, size=size, step=step)


def test_chunk_spans_rejects_bad_word_count():
    with pytest.raises(ValueError, match="n_words must be >= 0"):
        chunk_spans(-1, 4, 2)
    with pytest.raises(TypeError, match="n_words"):
        chunk_spans(3.0, 4, 2)


def test_chunk_words_rejects_bytes():
    with pytest.raises(TypeError, match="decode"):
        chunk_words(b"some bytes", 4, 2)


def test_best_chunk_similarity_by_hand():
    excerpt = word_shingles("w4 w5 w6", k=2)  # {"w4 w5", "w5 w6"}
    # chunks of 4 words every 2: w0-w3, w2-w5, w4-w7, w6-w9; the third holds the excerpt
    best, index = best_chunk_similarity(excerpt, TEN, k=2, size=4, step=2)
    assert (best, index) == (2 / 3, 2)


def test_excerpt_inside_a_chunk_scores_its_share_of_the_chunk():
    # An excerpt of e words fully inside a chunk of w words: J = (e - k + 1) / (w - k + 1).
    article = make_article(seed=4, n_words=1000).split("\n\n")[1]
    tokens = words(article)
    excerpt = " ".join(tokens[300:450])
    best, index = best_chunk_similarity(word_shingles(excerpt, 3), article, k=3, size=200, step=50)
    assert best == pytest.approx((150 - 2) / (200 - 2), abs=0.002)
    assert chunk_spans(len(tokens), 200, 50)[index][0] in (250, 300)  # a chunk that holds the excerpt


def test_best_chunk_ties_go_to_the_first_chunk():
    assert best_chunk_similarity({"zz yy"}, TEN, k=2, size=4, step=2) == (0.0, 0)


def test_best_chunk_similarity_errors():
    with pytest.raises(ValueError, match="no words"):
        best_chunk_similarity({"a b"}, "  ", k=2, size=4, step=2)
    with pytest.raises(TypeError, match=r"word_shingles\(excerpt, k\)"):
        best_chunk_similarity("w4 w5 w6", TEN, k=2, size=4, step=2)
    with pytest.raises(ValueError, match="step"):
        best_chunk_similarity({"a b"}, TEN, k=2, size=4, step=5)


@pytest.mark.parametrize(
    ("j", "size_a", "size_b", "expected"),
    [
        (0.25, 20, 80, 1.0),  # 20 shared: all of A
        (0.2, 10, 10, 1 / 3),  # 10/3 shared
        (0.0, 10, 50, 0.0),
        (1.0, 7, 7, 1.0),
        (0.5, 0, 10, 1.0),  # empty A: contained in anything
        (1 / 9, 10, 100, 1.0),  # 11 shared would exceed |A|: clipped to 1
        (0.5, 100, 10, 0.1),  # cannot share more than |B| = 10 of |A| = 100
    ],
)
def test_containment_estimate_by_hand(j, size_a, size_b, expected):
    assert containment_estimate(j, size_a, size_b) == pytest.approx(expected)


@pytest.mark.parametrize(("j", "error"), [(-0.1, ValueError), (1.5, ValueError), (math.nan, ValueError)])
def test_containment_estimate_rejects_bad_jaccard(j, error):
    with pytest.raises(error, match="jaccard_value"):
        containment_estimate(j, 10, 10)


@pytest.mark.parametrize(
    ("args", "error", "name"),
    [
        (("0.5", 10, 10), TypeError, "jaccard_value"),
        ((0.5, -1, 10), ValueError, "size_a"),
        ((0.5, 10, 2.0), TypeError, "size_b"),
        ((0.5, True, 10), TypeError, "size_a"),
    ],
)
def test_containment_estimate_rejects_bad_arguments(args, error, name):
    with pytest.raises(error, match=name):
        containment_estimate(*args)


shingle_sets = st.sets(st.integers(0, 60).map(str), max_size=40)


@given(shingle_sets, shingle_sets)
def test_containment_estimate_from_exact_jaccard_is_exact(a, b):
    estimate = containment_estimate(jaccard(a, b), len(a), len(b))
    assert estimate == pytest.approx(containment(a, b), abs=1e-12)


word_lists = st.lists(st.sampled_from(["rain", "city", "port", "vote", "the", "of"]), max_size=80)


@given(word_lists, st.integers(1, 30), st.integers(1, 30), st.integers(1, 4))
def test_chunks_cover_the_text(tokens, size, step, k):
    step = min(step, size)
    text = " ".join(tokens)
    chunks = chunk_words(text, size, step)
    spans = chunk_spans(len(tokens), size, step)
    assert [c.split() for c in chunks] == [tokens[s:e] for s, e in spans]
    assert all(len(c.split()) == min(size, len(tokens)) for c in chunks)
    covered = {i for s, e in spans for i in range(s, e)}
    assert covered == set(range(len(tokens)))
    if tokens:
        assert spans[0][0] == 0 and spans[-1][1] == len(tokens)
    # Every chunk's shingles are the text's; with enough overlap they are all of them.
    whole = word_shingles(text, k)
    pieces = [word_shingles(c, k) for c in chunks]
    if len(tokens) >= k and size >= k:
        assert all(p <= whole for p in pieces)
        if step <= size - k + 1:
            assert set().union(*pieces) == whole
