"""Document-frequency filter for boilerplate shingles."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from neardup_lab import jaccard, word_shingles
from neardup_lab.docfreq import document_frequencies, drop_frequent, frequent_shingles

# Four pages: "menu" on all four, "rain" on three, "vote" on two, the rest on one.
PAGES = [
    {"menu", "rain", "bridge"},
    {"menu", "rain", "vote"},
    {"menu", "rain", "vote", "port"},
    {"menu"},
]


def test_document_frequencies_by_hand():
    assert document_frequencies(PAGES) == {"menu": 4, "rain": 3, "vote": 2, "bridge": 1, "port": 1}


def test_document_frequencies_order_is_deterministic():
    # Most frequent first, ties in sorted order, whatever the set iteration order was.
    assert list(document_frequencies(PAGES)) == ["menu", "rain", "vote", "bridge", "port"]
    assert list(document_frequencies([{"b", "a", "c"}])) == ["a", "b", "c"]


def test_document_frequencies_count_documents_not_occurrences():
    # A shingle counts once per document, however the sets were built.
    assert document_frequencies([word_shingles("a a a a", 1), {"a"}]) == {"a": 2}


@pytest.mark.parametrize(
    ("max_df", "expected"),
    [
        (1.0, set()),  # share: more than 4 of 4 pages: nothing
        (0.75, {"menu"}),  # more than 3 pages
        (0.5, {"menu", "rain"}),  # more than 2 pages
        (0.25, {"menu", "rain", "vote"}),  # more than 1 page
        (0.1, {"menu", "rain", "vote", "bridge", "port"}),  # more than 0.4 pages: all
        (3, {"menu"}),  # count: more than 3 pages
        (2, {"menu", "rain"}),
        (1, {"menu", "rain", "vote"}),  # the int 1 is not the float 1.0
        (4, set()),
        (100, set()),
    ],
)
def test_frequent_shingles_share_and_count(max_df, expected):
    assert frequent_shingles(PAGES, max_df) == expected


def test_limit_is_strictly_more_than():
    # 10 documents, "t" in exactly 5: at max_df=0.5 it is not frequent (5 is not more than 5).
    docs = [{"t", f"x{i}"} for i in range(5)] + [{f"y{i}"} for i in range(5)]
    assert frequent_shingles(docs, 0.5) == set()
    assert frequent_shingles(docs, 0.49) == {"t"}
    assert frequent_shingles(docs, 5) == set()
    assert frequent_shingles(docs, 4) == {"t"}


def test_drop_frequent_keeps_every_document_in_order():
    result = drop_frequent(PAGES, 0.5)
    assert result == [{"bridge"}, {"vote"}, {"vote", "port"}, set()]
    assert len(result) == len(PAGES)


def test_document_of_only_frequent_shingles_becomes_empty_set():
    result = drop_frequent([{"head", "foot"}, {"head", "foot", "news"}], max_df=1)
    assert result == [set(), {"news"}]


def test_drop_frequent_does_not_mutate_input():
    pages = [set(p) for p in PAGES]
    out = drop_frequent(pages, 0.5)
    assert pages == PAGES
    assert all(o is not p for o, p in zip(out, pages))


def test_empty_inputs():
    assert document_frequencies([]) == {}
    assert frequent_shingles([], 0.5) == set()
    assert drop_frequent([], 0.5) == []
    assert drop_frequent([set(), set()], 1) == [set(), set()]


def test_boilerplate_pages_stop_looking_alike():
    template = "home news sport weather sign in subscribe today for full access to every story"
    bodies = [
        "council approves new bridge over the river after long debate",
        "heavy rain closes schools in three coastal districts on monday",
        "local team wins the regional cup final in extra time",
    ]
    pages = [word_shingles(f"{template} {body} {template} again", 3) for body in bodies]
    before = [jaccard(pages[i], pages[j]) for i in range(3) for j in range(i + 1, 3)]
    after_sets = drop_frequent(pages, 0.5)
    after = [jaccard(after_sets[i], after_sets[j]) for i in range(3) for j in range(i + 1, 3)]
    assert min(before) > 0.3
    assert after == [0.0, 0.0, 0.0]
    assert all(after_sets)  # every page keeps its own body


@pytest.mark.parametrize("bad", [0, -1, 0.0, -0.5, 1.5, math.nan])
def test_bad_max_df_value_is_named(bad):
    with pytest.raises(ValueError, match="max_df"):
        frequent_shingles(PAGES, bad)


@pytest.mark.parametrize("bad", [True, "0.5", None])
def test_bad_max_df_type(bad):
    with pytest.raises(TypeError, match="max_df"):
        drop_frequent(PAGES, bad)


@pytest.mark.parametrize("bad", ["some text", {"a", "b"}, None, 3])
def test_shingle_sets_must_be_a_list_of_sets(bad):
    with pytest.raises(TypeError, match="shingle_sets"):
        document_frequencies(bad)


def test_element_that_is_not_a_set_is_named_by_position():
    with pytest.raises(TypeError, match=r"shingle_sets\[1\].*word_shingles"):
        drop_frequent([{"a"}, "raw text"], 0.5)


small_sets = st.lists(st.sets(st.sampled_from("abcdefgh"), max_size=6), max_size=12)
limits = st.one_of(st.floats(min_value=0.01, max_value=1.0), st.integers(min_value=1, max_value=15))


@given(small_sets, limits)
def test_drop_frequent_properties(sets, max_df):
    out = drop_frequent(sets, max_df)
    frequent = frequent_shingles(sets, max_df)
    assert len(out) == len(sets)
    for before, after in zip(sets, out):
        assert after <= before
        assert after == before - frequent
    limit = max_df * len(sets) if isinstance(max_df, float) else max_df
    counts = document_frequencies(sets)
    assert all(counts[s] > limit for s in frequent)
    assert all(counts[s] <= limit for s in counts if s not in frequent)
    assert sum(document_frequencies(out).values()) == sum(c for s, c in counts.items() if s not in frequent)
