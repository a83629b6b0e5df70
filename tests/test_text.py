"""Normalisation, shingles, Jaccard and containment."""

import sys
import unicodedata

import numpy as np
import pytest

from neardup_lab import char_shingles, containment, jaccard, normalize, word_shingles, words


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Hello,   WORLD!", "hello world"),
        ("“Quoted” — dash…", "quoted dash"),
        ("Straße", "strasse"),  # casefold, not lower
        ("ﬁnance", "finance"),  # NFKC expands the ligature
        ("café\u00a0au\tlait\n", "café au lait"),  # accents kept, every space collapsed
        ("price: $5 + 10%", "price 5 10"),  # symbols (Sc, Sm) and punctuation become spaces
        ("東京、大阪。", "東京 大阪"),  # CJK punctuation
        ("", ""),
        ("   ", ""),
    ],
)
def test_normalize(raw, expected):
    assert normalize(raw) == expected


def test_normalize_is_idempotent():
    text = "  Heavy RAIN — in “Mangaluru”!  Schools SHUT. "
    assert normalize(normalize(text)) == normalize(text)


@pytest.mark.parametrize("bad", [None, 12, ["a"], b"bytes"])
def test_normalize_rejects_non_text(bad):
    with pytest.raises(TypeError, match=type(bad).__name__):
        normalize(bad)


def test_bytes_error_says_decode():
    with pytest.raises(TypeError, match="decode"):
        word_shingles(b"some bytes")


def test_word_shingles_counts_and_content():
    text = "one two three four five six"
    assert word_shingles(text, k=5) == {"one two three four five", "two three four five six"}
    assert len(word_shingles(text, k=1)) == 6
    assert word_shingles("One, two!", k=5) == {"one two"}  # fewer than k words: one shingle
    assert word_shingles("", k=5) == set()
    assert word_shingles(" ... ", k=3) == set()  # punctuation only normalises to nothing


def test_word_shingles_repeated_text_collapses():
    assert word_shingles("a a a a a a a", k=2) == {"a a"}


@pytest.mark.parametrize("k", [0, -1])
def test_shingle_size_must_be_positive(k):
    with pytest.raises(ValueError, match=str(k)):
        word_shingles("a b c", k=k)
    with pytest.raises(ValueError, match=str(k)):
        char_shingles("a b c", k=k)


@pytest.mark.parametrize("k", [2.0, "3", True])
def test_shingle_size_must_be_int(k):
    with pytest.raises(TypeError, match="k must be"):
        word_shingles("a b c", k=k)


def test_char_shingles_cjk_and_short():
    assert char_shingles("東京の天気", k=2) == {"東京", "京の", "の天", "天気"}
    assert char_shingles("Hi!", k=5) == {"hi"}
    assert char_shingles("", k=3) == set()
    # the space between words is part of the character shingles
    assert "o w" in char_shingles("Hello World", k=3)


def test_char_shingles_tell_japanese_sentences_apart():
    a = "今日は東京で大雨が降りました"
    b = "今日は東京で大雪が降りました"
    c = "明日の大阪は晴れるでしょう"
    assert word_shingles(a, 3) == {normalize(a)}  # no spaces: one "word"
    assert 0.4 < jaccard(char_shingles(a, 2), char_shingles(b, 2)) < 1.0
    assert jaccard(char_shingles(a, 2), char_shingles(c, 2)) < 0.1


def test_words():
    assert words("It's 5 o'clock.") == ["it", "s", "5", "o", "clock"]


def test_jaccard_values():
    assert jaccard({"a", "b"}, {"b", "c"}) == pytest.approx(1 / 3)
    assert jaccard({"a"}, {"a"}) == 1.0
    assert jaccard({"a"}, {"b"}) == 0.0
    assert jaccard(set(), set()) == 1.0
    assert jaccard(set(), {"a"}) == 0.0
    assert jaccard(frozenset({"x"}), {"x", "y"}) == 0.5


def test_containment_values():
    assert containment({"a", "b"}, {"a", "b", "c"}) == 1.0
    assert containment({"a", "b", "c", "d"}, {"a"}) == 0.25
    assert containment(set(), {"a"}) == 1.0
    assert containment({"a"}, set()) == 0.0


@pytest.mark.parametrize("func", [jaccard, containment])
@pytest.mark.parametrize("bad", ["a string", ["a", "list"], None])
def test_similarities_reject_non_sets(func, bad):
    with pytest.raises(TypeError, match="set of shingles"):
        func(bad, {"a"})
    with pytest.raises(TypeError, match="set of shingles"):
        func({"a"}, bad)


def definition_words(text: str) -> list[str]:
    """The words as the chapter defines them, one character at a time."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    marked = (" " if unicodedata.category(c)[0] in "PS" or c.isspace() else c for c in folded)
    return "".join(marked).split()


def test_the_ascii_shortcut_gives_the_words_of_the_definition():
    every_ascii = "".join(map(chr, range(128)))
    texts = [every_ascii, every_ascii[::-1], *(f"Ab{chr(c)}Cd" for c in range(128))]
    assert all(text.isascii() for text in texts)
    assert [words(text) for text in texts] == [definition_words(text) for text in texts]


def test_the_engine_splits_words_as_the_definition_at_sampled_code_points():
    from neardup_lab.engine.tokenize import shingle_id_batch
    from neardup_lab.hashing import word_shingle_ids

    codes = np.random.default_rng(7).choice(sys.maxunicode + 1, 5_000, replace=False)
    texts = [f"ab{chr(c)}cd {chr(c)}x" for c in codes]
    engine = shingle_id_batch(texts, k=1)
    assert all(np.array_equal(got, word_shingle_ids(text, 1)) for got, text in zip(engine, texts))
