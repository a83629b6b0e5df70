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


def test_ascii_text_never_fills_the_unicode_marks(monkeypatch):
    # Text that is all ASCII takes the byte path; other text fills only the blocks it meets.
    from neardup_lab import dedup, text

    marks = text._SeparatorMarks()
    monkeypatch.setattr(text, "_MARKS", marks)
    dedup(["Heavy rain closed the schools, today."] * 2 + ["A new bridge opened."], n_jobs=2)
    assert words("It's raining, AGAIN.") == ["it", "s", "raining", "again"]
    assert marks.blocks_filled == 0
    assert words("Ça va — très bien") == ["ça", "va", "très", "bien"]
    assert marks.blocks_filled == 2  # U+0000-U+00FF for ç and è, U+2000-U+20FF for the dash
    assert words("Très — bien") == ["très", "bien"]
    assert marks.blocks_filled == 2


def test_marks_filled_block_by_block_equal_the_definition_at_every_code_point():
    from neardup_lab import text

    every = np.arange(sys.maxunicode + 1, dtype=np.uint32)
    expected = [unicodedata.category(chr(cp))[0] in "PS" or chr(cp).isspace() for cp in range(len(every))]
    marks = text._SeparatorMarks()
    some = np.random.default_rng(7).choice(every, 5000)  # blocks filled out of order first
    assert marks(some).tolist() == [expected[cp] for cp in some]
    assert marks(every).tolist() == expected
    assert marks.blocks_filled == len(every) >> text._SeparatorMarks.BLOCK_BITS


@pytest.mark.native("starts threads")
def test_threads_that_need_the_same_blocks_fill_each_once():
    from concurrent.futures import ThreadPoolExecutor

    from neardup_lab import text

    marks = text._SeparatorMarks()
    codes = np.arange(0, 0x30000, 97, dtype=np.uint32)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: marks(codes), range(4)))
    assert all(np.array_equal(result, results[0]) for result in results)
    assert marks.blocks_filled == len(np.unique(codes >> 8))
