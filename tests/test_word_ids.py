"""The engine's batched word-shingle ids equal the core's definition, bit for bit."""

from hypothesis import given
from hypothesis import strategies as st

from neardup_lab import make_corpus, word_shingle_ids
from neardup_lab.engine.tokenize import shingle_id_batch

WORDS = st.sampled_from(
    ["rain", "Rain,", "ÉCOLE", "straße", "ﬁne", "ＡＢＣ", "a" * 17, "x", "—", "İstanbul", "ﷺ"]
)
TEXTS = st.lists(st.one_of(WORDS, st.text(max_size=12)), max_size=30).map(" ".join)


@given(st.lists(TEXTS, min_size=1, max_size=6), st.integers(1, 6))
def test_batched_ids_are_the_core_definition(texts, k):
    batched = shingle_id_batch(texts, k)
    assert [ids.tolist() for ids in batched] == [word_shingle_ids(t, k).tolist() for t in texts]


def test_the_definition_on_the_book_corpus():
    docs = make_corpus(60, seed=3).docs
    for k in (1, 3, 5):
        batched = [x.tolist() for x in shingle_id_batch(docs, k)]
        assert batched == [word_shingle_ids(d, k).tolist() for d in docs]


def test_a_changed_word_changes_the_ids():
    a, b = word_shingle_ids("heavy rain in the city", 2), word_shingle_ids("heavy rain in the town", 2)
    assert len(set(a.tolist()) & set(b.tolist())) == 3
