"""The engine's dedup equals the reference pipeline built from core functions, on random corpora."""

import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

from neardup_lab import dedup, make_corpus
from neardup_lab.minhash import SCHEMES
from neardup_lab.reference import reference_dedup
from neardup_lab.settings import Settings

VOCABULARY = ["rain", "river", "bridge", "school", "council", "storm", "road", "city", "harbour"]
VOCABULARY += ["market", "night", "Café", "déjà", "ÉCOLE"]


@st.composite
def planted_corpora(draw: st.DrawFn) -> list[str]:
    """Random word lists, and near-copies of some: words replaced, dropped or added, case and
    punctuation changed (exact copies after normalisation)."""
    word_lists = st.lists(st.sampled_from(VOCABULARY), min_size=0, max_size=30)
    originals = draw(st.lists(word_lists, min_size=1, max_size=8))
    docs = [" ".join(words) for words in originals]
    for _ in range(draw(st.integers(0, 12))):
        words = list(draw(st.sampled_from(originals)))
        for _ in range(draw(st.integers(0, 3))):
            at = draw(st.integers(0, len(words)))
            edit = draw(st.sampled_from(["replace", "drop", "add"]))
            if edit == "add" or at == len(words):
                words.insert(at, draw(st.sampled_from(VOCABULARY)))
            elif edit == "drop":
                del words[at]
            else:
                words[at] = draw(st.sampled_from(VOCABULARY))
        text = " ".join(words)
        docs.append(draw(st.sampled_from([text, text.upper(), text.replace(" ", ",  ") + "!"])))
    return draw(st.permutations(docs))


def generated_corpora() -> st.SearchStrategy[list[str]]:
    """make_corpus with a random seed: articles of 40 words with planted edited copies."""
    return st.builds(
        lambda n, seed: make_corpus(n, seed=seed, copies=(0, 3), n_words=40).docs,
        st.integers(1, 12),
        st.integers(0, 2**32 - 1),
    )


@st.composite
def run_settings(draw: st.DrawFn) -> dict:
    shingle = draw(st.sampled_from(["word", "char"]))
    options = {
        "threshold": draw(st.sampled_from([0.3, 0.5, 0.7, 0.8, 0.9, 1.0])),
        "num_perm": draw(st.sampled_from([16, 32, 64, 128])),
        "k": draw(st.integers(1, 5) if shingle == "word" else st.integers(2, 7)),
        "shingle": shingle,
        "scheme": draw(st.sampled_from(SCHEMES)),
        "seed": draw(st.integers(0, 2**16)),
        "verify": draw(st.sampled_from(["exact", "exact", "estimate", "none"])),
        "keeper": draw(st.sampled_from(["first", "longest"])),
    }
    if draw(st.booleans()):  # a banding of our own, not optimal_params'
        rows = draw(st.integers(1, 8))
        options.update(bands=draw(st.integers(1, options["num_perm"] // rows)), rows=rows)
    if draw(st.integers(0, 3)) == 0:
        options["bbits"] = draw(st.sampled_from([8, 16]))
    return options


def assert_same(docs: list[str], options: dict) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # one-word documents: "text without spaces?"
        fast = dedup(docs, **options)
    slow = reference_dedup(docs, Settings(**options))
    assert fast.clusters == slow.clusters
    assert fast.keepers == slow.keepers
    assert fast.copies == slow.copies
    assert set(fast.pairs) <= set(slow.pairs)  # dedup skips pairs already joined


@given(planted_corpora(), run_settings())
def test_dedup_equals_the_reference_on_planted_word_lists(docs, options):
    assert_same(docs, options)


@given(generated_corpora(), run_settings())
def test_dedup_equals_the_reference_on_generated_corpora(docs, options):
    assert_same(docs, options)


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("shingle,k", [("word", 3), ("char", 5)])
def test_dedup_equals_the_reference_on_a_larger_corpus(scheme, shingle, k):
    docs = make_corpus(120, seed=7).docs
    options = {"threshold": 0.7, "num_perm": 64, "k": k, "shingle": shingle, "scheme": scheme}
    result = dedup(docs, **options)
    assert len(result.pairs) > 20 and result.copies  # near and exact copies both found
    assert_same(docs, options)
