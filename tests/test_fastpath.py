"""Shingle ids computed from word hashes agree with string shingles."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup_lab import jaccard, make_corpus, word_shingles
from neardup_lab.engine.tokenize import ngram_ids, shingle_id_batch, shingle_ids, tokenize_batch


def _id_jaccard(a, b):
    return jaccard(set(a.tolist()), set(b.tolist()))


def test_same_count_and_same_jaccard_as_strings():
    docs = make_corpus(30, seed=2).docs + ["", "one", "two words", "a b c d e"]
    for k in (1, 3, 5):
        ids = shingle_id_batch(docs, k)
        sets = [word_shingles(d, k) for d in docs]
        assert [len(x) for x in ids] == [len(s) for s in sets]
        for i, j in itertools.combinations(range(len(docs)), 2):
            assert _id_jaccard(ids[i], ids[j]) == pytest.approx(jaccard(sets[i], sets[j]))


words_text = st.lists(st.sampled_from(["a", "b", "c", "rain", "東京", "x"]), max_size=12).map(" ".join)


@given(words_text, words_text, st.integers(1, 4))
def test_property_jaccard_matches(a, b, k):
    ia, ib = shingle_ids(a, k), shingle_ids(b, k)
    assert len(ia) == len(word_shingles(a, k))
    assert _id_jaccard(ia, ib) == pytest.approx(jaccard(word_shingles(a, k), word_shingles(b, k)))


def test_windows_do_not_cross_documents():
    # "x y" ending one document and "z" starting the next must not form the shingle "x y z".
    batch = shingle_id_batch(["w x y", "z q r"], 3)
    joined = set(shingle_ids("w x y z q r", 3).tolist())  # 4 windows, 2 of them crossing
    assert len(batch[0]) == len(batch[1]) == 1
    found = set(batch[0].tolist()) | set(batch[1].tolist())
    assert len(joined) == 4 and len(found & joined) == 2


def test_short_documents_and_counts():
    ids = ngram_ids(tokenize_batch(["a b", "", "a b c d"]), 3)
    assert ids.counts.tolist() == [1, 0, 2]
    assert len(ids.values) == 3
    assert shingle_ids("", 3).shape == (0,)


def test_errors():
    with pytest.raises(TypeError, match="document 1"):
        shingle_id_batch(["ok", None])
    with pytest.raises(TypeError, match="sequence of documents"):
        shingle_id_batch("one string")
    with pytest.raises(ValueError, match="k must be"):
        shingle_ids("a b", 0)


def _word_hashes_of_normalized(text):
    """The slow path for one text: normalize() in Python, then hash its words' UTF-8 bytes."""
    from neardup_lab.engine.tokenize import word_hashes
    from neardup_lab.text import words

    tokens = [w.encode("utf-8", "surrogatepass") for w in words(text)]
    buffer = np.frombuffer(b" ".join(tokens) + bytes(8), dtype=np.uint8)
    lengths = np.array([len(t) for t in tokens], dtype=np.int64)
    starts = np.cumsum(lengths + 1) - lengths - 1
    return word_hashes(buffer, starts, lengths)


# Pieces whose case folding changes their length (ß, İ, ŉ, ΐ), that NFKC rewrites (ﬁ, Ⅻ, ①, 𝐀,
# e + combining acute), Unicode whitespace and punctuation, a lone surrogate, an emoji.
tricky = [
    "Rain", "rain,", "ÉCOLE", "école", "東京", "x_y", "a.b", "ﬁne", "\t", "—", "9", "Straße", "İstanbul",
    "ŉ", "ΐ", "\u212a", "ſ", "e\u0301", "\u2028", "\xa0", "\u3000", "\x85", "“quoted”", "\ud800", "ΣΑΣ",
    "Ⅻ", "①", "\U0001d400", "\U0001f600",
]
pieces = st.lists(st.sampled_from(tricky), max_size=12)
any_char = st.characters(blacklist_categories=())  # surrogates included
mixed_text = st.one_of(
    pieces.map(" ".join), pieces.map("".join), st.text(max_size=40), st.text(any_char, max_size=20)
)


@settings(max_examples=400)
@given(st.lists(mixed_text, max_size=6))
def test_byte_path_and_unicode_path_give_the_same_word_hashes(docs):
    hashes, counts = tokenize_batch(docs).values, tokenize_batch(docs).counts
    expected = [_word_hashes_of_normalized(d) for d in docs]
    assert counts.tolist() == [len(e) for e in expected]
    assert hashes.tolist() == [h for e in expected for h in e.tolist()]


@given(st.lists(mixed_text, max_size=6))
def test_folding_in_small_blocks_gives_the_same_word_hashes(docs):
    from neardup_lab.support import limits

    whole = tokenize_batch(docs)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(limits, "FOLD_BLOCK_BYTES", 5)  # blocks cut between the bytes of most texts
        blocks = tokenize_batch(docs)
    assert blocks.offsets.tolist() == whole.offsets.tolist()
    assert blocks.values.tolist() == whole.values.tolist()


def test_long_words_are_hashed_in_one_pass():
    import time

    long_word = "x" * 5_000_000
    started = time.perf_counter()
    words = tokenize_batch([long_word, long_word + "y", long_word])
    hashes, counts = words.values, words.counts
    assert counts.tolist() == [1, 1, 1]
    assert hashes[0] == hashes[2] != hashes[1]
    assert time.perf_counter() - started < 10


@pytest.mark.parametrize("bad, shown", [(b"rain", "bytes b'rain'"), (7, "int 7"), (None, "NoneType None")])
def test_a_document_that_is_not_text_is_named(bad, shown):
    with pytest.raises(TypeError, match=f"^document 2 must be str, got {shown}") as raised:
        tokenize_batch(["rain today", "Rain, today!", bad, "sun"])
    assert raised.value.__context__ is None  # one error, not one raised while handling another


def test_a_str_subclass_is_text():
    class Marked(str):
        pass

    marked = tokenize_batch([Marked("Rain today"), "rain TODAY", Marked("Şu an")])
    plain = tokenize_batch(["Rain today", "rain TODAY", "Şu an"])
    assert marked.counts.tolist() == plain.counts.tolist() == [2, 2, 2]
    assert marked.values.tolist() == plain.values.tolist()


def test_every_byte_is_split_as_the_table_says():
    from neardup_lab.engine.tokenize import _ENDS_WORD, _in_word, _lowered

    every_byte = np.arange(256, dtype=np.uint8)
    inside = _in_word(_lowered(every_byte))
    assert not inside[0] and not inside[-1]  # the margins
    assert inside[1:-1].tolist() == [not ends for ends in _ENDS_WORD]


@pytest.mark.parametrize("byte", [0, 8, 9, 13, 14, 27, 28, 31, 127, 128, 255])
def test_control_bytes_split_as_str_split_does(byte):
    text = f"rain{chr(byte)}today" if byte < 128 else "rain\u00e9today"
    counts = tokenize_batch([text]).counts
    assert counts.tolist() == [len(text.split()) if byte < 128 else 1]
