"""explain() and ties(): the evidence for one pair, and the pairs that hold a dedup's clusters together.

Every expected value here comes from somewhere other than the code under test:
hand counts on tiny texts, the string-set functions of neardup_lab.text, a direct
comparison of signature slices, or a dedup run of the same texts.
"""

from __future__ import annotations

from html.parser import HTMLParser

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from neardup_lab import make_article, replace_words
from neardup_lab.engine.explain import Explanation, Tie, explain, ties
from neardup_lab.engine.pipeline import dedup, prepare
from neardup_lab.settings import Settings
from neardup_lab.text import char_shingles, containment, jaccard, word_shingles, words

# ----- one pair, counted by hand ----------------------------------------------------------------


def test_one_word_shingles_counted_by_hand():
    e = explain("A b, c d.", "a B c e", Settings(k=1, threshold=0.6))
    assert e.words_a == ("a", "b", "c", "d") and e.words_b == ("a", "b", "c", "e")
    assert e.shingles_a == {"a", "b", "c", "d"} and e.shingles_b == {"a", "b", "c", "e"}
    assert e.shared == ("a", "b", "c")  # in the order of the first text
    assert (e.shared_count, e.union_count) == (3, 5)
    assert e.jaccard == pytest.approx(3 / 5)
    assert e.contained_a_in_b == pytest.approx(3 / 4) and e.contained_b_in_a == pytest.approx(3 / 4)
    assert not e.exact_copy
    assert e.verified  # 0.6 >= 0.6
    assert not explain("A b, c d.", "a B c e", Settings(k=1, threshold=0.61)).verified


def test_containment_is_not_symmetric():
    excerpt = "the storm closed the port"
    article = "the storm closed the port and the airport for two days"
    e = explain(excerpt, article, Settings(k=2))
    assert e.contained_a_in_b == 1.0
    assert e.contained_b_in_a == pytest.approx(4 / 10)  # 4 of the article's 10 distinct 2-shingles
    assert e.jaccard == pytest.approx(4 / 10)


def test_shared_shingles_in_text_order_and_complete():
    a = "one two three four five six seven"
    b = "five six seven zero one two three"
    e = explain(a, b, Settings(k=3))
    assert e.shared == ("one two three", "five six seven")
    assert set(e.shared) == word_shingles(a, 3) & word_shingles(b, 3)


def test_exact_copy_is_joined_before_banding():
    a = "Heavy rain closed the coastal road on Monday."
    e = explain(a, "  heavy RAIN closed the coastal road, on monday  ")
    assert e.exact_copy and e.joined
    assert e.jaccard == 1.0 and e.agreeing == e.settings.num_perm
    assert e.matching_bands == tuple(range(e.settings.bands))
    assert "exact copies" in e.verdict


def test_texts_without_words_are_nobodys_copies():
    both = explain("", "?!")
    assert not both.exact_copy and not both.candidate and not both.joined and both.union_count == 0
    assert dedup(["", "?!"]).clusters == [[0], [1]]  # explain agrees with dedup
    one = explain("", "heavy rain")
    assert not one.exact_copy and one.jaccard == 0.0 and not one.joined


def test_default_settings_are_dedups():
    assert explain("a", "b").settings == Settings() == dedup(["a", "b"]).settings


# ----- ids and strings agree -------------------------------------------------------------------


def _pairs() -> list[tuple[str, str]]:
    base = [make_article(seed=s, n_words=n) for s, n in [(1, 60), (2, 120), (3, 8)]]
    pairs = [(t, replace_words(t, min(c, 6), seed=c)) for t in base for c in (1, 3, 10)]
    pairs += [(base[0], base[1]), ("Ünïcode café, CAFÉ ﬁne", "unicode cafe café fine"), ("x", "x y")]
    pairs += [("東京の天気は晴れです", "東京の天気は雨です"), ("a a a a a a", "a a a a")]
    return pairs


@pytest.mark.parametrize("shingle, k", [("word", 1), ("word", 3), ("word", 5), ("char", 2), ("char", 5)])
def test_id_jaccard_equals_string_set_jaccard(shingle, k):
    cut = word_shingles if shingle == "word" else char_shingles
    for a, b in _pairs():
        e = explain(a, b, Settings(shingle=shingle, k=k))
        sa, sb = cut(a, k), cut(b, k)
        assert e.shingles_a == sa and e.shingles_b == sb
        assert e.jaccard == pytest.approx(jaccard(sa, sb), abs=1e-15), (a, b)
        assert e.shared_count == len(sa & sb)
        assert e.contained_a_in_b == containment(sa, sb) and e.contained_b_in_a == containment(sb, sa)
        assert e.words_a == tuple(words(a))


@given(
    st.lists(st.sampled_from(["rain", "Rain", "sun", "wind", "snow", "!", "é"]), max_size=14),
    st.lists(st.sampled_from(["rain", "sun", "WIND", "snow", "fog", "-"]), max_size=14),
    st.integers(1, 4),
)
def test_id_jaccard_equals_string_set_jaccard_on_repetitive_texts(left, right, k):
    a, b = " ".join(left), " ".join(right)
    e = explain(a, b, Settings(k=k))
    assert e.jaccard == pytest.approx(jaccard(word_shingles(a, k), word_shingles(b, k)), abs=1e-15)


@given(st.text(max_size=40), st.text(max_size=40), st.integers(1, 3), st.sampled_from(["word", "char"]))
def test_ids_and_strings_agree_on_any_text(a, b, k, shingle):
    """Any Unicode at all: the fast path's normalisation and the string functions' agree."""
    e = explain(a, b, Settings(k=k, shingle=shingle))
    cut = word_shingles if shingle == "word" else char_shingles
    assert e.jaccard == jaccard(cut(a, k), cut(b, k))
    assert e.exact_copy == (e.words_a == e.words_b != ())  # no words: nobody's copy


# ----- signatures and bands --------------------------------------------------------------------


@pytest.mark.parametrize("settings", [Settings(), Settings(num_perm=64, bands=16, rows=4), Settings(bbits=8)])
def test_agreement_and_bands_read_off_the_signatures(settings):
    a = make_article(seed=7, n_words=80)
    b = replace_words(a, 6, seed=7)
    e = explain(a, b, settings)
    sig = prepare([a, b], settings).signatures
    if settings.bbits:
        sig = sig & np.uint32((1 << settings.bbits) - 1)  # the low bits, as b-bit MinHash keeps them
    assert e.agreeing == int((sig[0] == sig[1]).sum())
    r = settings.rows
    expected = tuple(
        i for i in range(settings.bands) if (sig[0, i * r : (i + 1) * r] == sig[1, i * r : (i + 1) * r]).all()
    )
    assert e.matching_bands == expected
    if settings.bbits is None:
        assert e.estimate == e.agreeing / settings.num_perm
    else:  # chance agreement of two unrelated b-bit values is 2**-b, corrected for
        chance = 2.0**-settings.bbits
        assert e.estimate == pytest.approx((e.agreeing / settings.num_perm - chance) / (1 - chance))


def _joined_by_dedup(a: str, b: str, settings: Settings) -> bool:
    return dedup([a, b], **settings.to_dict()).clusters == [[0, 1]]


@pytest.mark.filterwarnings("ignore:most documents are a single word")  # the pair written without spaces
@pytest.mark.parametrize(
    "settings",
    [
        Settings(threshold=0.7),
        Settings(threshold=0.5, k=3, bands=4, rows=8),
        Settings(threshold=0.6, shingle="char", k=4),
        Settings(threshold=0.7, verify="estimate"),
        Settings(threshold=0.7, verify="none", bands=8, rows=4),
        Settings(threshold=0.7, bbits=8),
    ],
)
def test_joined_agrees_with_dedup_of_the_two_texts(settings):
    verdicts = []
    for a, b in _pairs():
        e = explain(a, b, settings)
        assert e.joined == _joined_by_dedup(a, b, settings), (a[:40], b[:40])
        verdicts.append(e.verdict.split(":")[0])
    assert len(set(verdicts)) >= 2  # the pairs exercise more than one outcome


def test_a_pair_banding_misses():
    """Similar enough to keep, but one band of 32 rows almost never matches at Jaccard 0.8."""
    settings = Settings(threshold=0.75, bands=1, rows=32)
    for seed in range(50):
        a = make_article(seed=seed, n_words=200)
        b = replace_words(a, 4, seed=seed)
        e = explain(a, b, settings)
        if e.jaccard >= settings.threshold and not e.candidate:
            break
    else:
        pytest.fail("no missed pair among 50 seeds")
    assert e.verified and not e.joined
    assert e.matching_bands == ()
    assert e.agreeing < settings.num_perm  # some value of the one band differs
    assert "missed by banding" in e.verdict
    assert dedup([a, b], **settings.to_dict()).clusters == [[0], [1]]  # the pipeline misses it too
    assert "none match" in str(e)


def test_a_pair_verification_rejects():
    """128 bands of one row: a pair of Jaccard about 0.5 matches some band, and fails 0.9."""
    settings = Settings(threshold=0.9, bands=128, rows=1)
    a = make_article(seed=3, n_words=60)
    b = replace_words(a, 8, seed=3)
    e = explain(a, b, settings)
    assert e.jaccard < settings.threshold
    assert e.candidate and not e.verified and not e.joined
    assert "false candidate" in e.verdict
    assert dedup([a, b], **settings.to_dict()).clusters == [[0], [1]]
    assert f"drops: exact Jaccard {e.jaccard:.4f} < 0.9" in str(e)


def test_verification_by_estimate_uses_the_estimate():
    a = make_article(seed=5, n_words=80)
    b = replace_words(a, 3, seed=5)
    e = explain(a, b, Settings(threshold=0.5, verify="estimate"))
    assert e.verified == (e.estimate >= 0.5)
    assert "estimate" in e.lines()[6]


# ----- text and HTML ---------------------------------------------------------------------------


def test_str_shows_the_counts_and_the_first_shared_shingles():
    e = explain("A b, c d.", "a B c e", Settings(k=1, threshold=0.6))
    text = str(e)
    assert "3 / 5 = 0.6000" in text
    assert f"{e.agreeing} of 128 values agree" in text
    assert "'a'" in text and "'c'" in text
    assert "shared shingles" not in "\n".join(e.lines(shown=0))
    assert len(e.lines(shown=2)) == len(e.lines(shown=0)) + 3  # a heading and two shingles


def test_lines_refuses_a_bad_count():
    e = explain("a", "b")
    with pytest.raises(ValueError, match="shown must be >= 0"):
        e.lines(shown=-1)
    with pytest.raises(TypeError, match="shown must be an int"):
        e.lines(shown=True)


class _Tags(HTMLParser):
    """The tags of an HTML fragment, and the text inside each <mark>, per paragraph."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.marked: list[list[str]] = []
        self._in_mark = False

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        if tag == "p":
            self.marked.append([])
        self._in_mark = tag == "mark"

    def handle_endtag(self, tag):
        if tag == "mark":
            self._in_mark = False

    def handle_data(self, data):
        if self._in_mark:
            self.marked[-1].append(data)


def test_html_marks_the_words_of_shared_shingles():
    e = explain("x a b y", "a b z", Settings(k=2))
    parsed = _Tags()
    parsed.feed(e._repr_html_())
    assert parsed.marked == [["a b"], ["a b"]]  # 'a b' is the one shared 2-shingle


def test_html_is_only_our_markup_whatever_the_text():
    hostile = "<script>alert('x')</script> & <b onclick=\"steal()\">bold</b> ＜img src=x＞"
    html = explain(hostile, hostile + " more", Settings(k=1))._repr_html_()
    parsed = _Tags()
    parsed.feed(html)
    assert parsed.tags <= {"div", "table", "tr", "th", "td", "p", "b", "br", "mark"}
    assert "<script" not in html and "onclick=" not in html and "<img" not in html


def test_html_of_a_long_text_is_cut_and_says_so():
    a = " ".join(f"w{i}" for i in range(1000))
    html = explain(a, a + " end")._repr_html_()
    assert "w399" in html and "w400 " not in html and "(600 more words)" in html


def test_marks_join_runs_of_covered_words():
    e = explain("p q r s t u", "p q r x t u", Settings(k=2))
    parsed = _Tags()
    parsed.feed(e._repr_html_())
    assert parsed.marked == [["p q r", "t u"], ["p q r", "t u"]]


def test_char_shingles_are_marked_by_character():
    e = explain("abcd", "zbcz", Settings(shingle="char", k=2))
    parsed = _Tags()
    parsed.feed(e._repr_html_())
    assert parsed.marked == [["bc"], ["bc"]]


# ----- errors ------------------------------------------------------------------------------------


@pytest.mark.parametrize("a, b, name", [(b"rain", "rain", "a"), ("rain", 3, "b"), (None, "x", "a")])
def test_texts_must_be_str(a, b, name):
    with pytest.raises(TypeError, match=f"^{name} must be str"):
        explain(a, b)


def test_settings_must_be_settings():
    with pytest.raises(TypeError, match="settings must be a Settings, got dict"):
        explain("a", "b", {"threshold": 0.5})


def test_explanation_is_frozen_and_its_repr_short():
    e = explain(ARTICLE_LONG, ARTICLE_LONG + " more")
    assert isinstance(e, Explanation)
    with pytest.raises(AttributeError):
        e.jaccard = 1.0
    assert repr(e).startswith("Explanation(jaccard=") and len(repr(e)) < 300
    assert f"joined={e.joined}" in repr(e)


ARTICLE_LONG = make_article(seed=9, n_words=2000)


# ----- ties: why each removed document is in its cluster ------------------------------------------

_WORDS = [f"w{i}" for i in range(10)]
A = " ".join(_WORDS)
B = " ".join(_WORDS[:9] + ["x"])  # A ~ B: 9 shared of 11
C = " ".join(_WORDS[:8] + ["y", "x"])  # B ~ C: 9 of 11; A ~ C: 8 of 12
CHAIN = Settings(threshold=0.75, k=1, bands=128, rows=1)  # one-row bands: every such pair is proposed


def _chain_result(docs: list[str], keeper: str = "first"):
    return dedup(docs, **{**CHAIN.to_dict(), "keeper": keeper})


def test_the_chain_is_a_chain():
    one = lambda t: word_shingles(t, 1)  # noqa: E731
    assert jaccard(one(A), one(B)) >= 0.75 and jaccard(one(B), one(C)) >= 0.75
    assert jaccard(one(A), one(C)) < 0.75
    assert not explain(A, C, CHAIN).joined


def test_ties_follow_the_chain_to_the_keeper():
    docs = [A, "an unrelated note", C, B]
    result = _chain_result(docs)
    assert result.clusters == [[0, 2, 3], [1]] and result.keepers == [0, 1]
    found = ties(result, docs)
    assert [t.document for t in found] == result.removed == [2, 3]
    by_doc = {t.document: t for t in found}
    assert by_doc[3] == Tie(3, 0, jaccard(word_shingles(B, 1), word_shingles(A, 1)), False, 0, 1)
    assert by_doc[2] == Tie(2, 3, jaccard(word_shingles(C, 1), word_shingles(B, 1)), False, 0, 2)


def test_ties_start_from_the_keeper_the_policy_chose():
    docs = [A, B, C + " x x x"]  # the same shingles as C, and the longest text
    result = _chain_result(docs, keeper="longest")
    assert result.keepers == [2]
    found = {t.document: (t.neighbour, t.steps, t.keeper) for t in ties(result, docs)}
    assert found == {1: (2, 1, 2), 0: (1, 2, 2)}


def test_exact_copies_are_tied_with_jaccard_one():
    docs = [A, B, A.upper(), "  " + B + "!"]
    result = _chain_result(docs)
    found = {t.document: t for t in ties(result, docs)}
    assert found[2] == Tie(2, 0, 1.0, True, 0, 1)
    assert found[3].neighbour == 1 and found[3].exact_copy and found[3].steps == 2
    assert found[1].neighbour == 0 and not found[1].exact_copy


def test_ties_on_a_corpus_walk_each_removed_document_to_its_keeper():
    docs = [make_article(seed=s, n_words=60) for s in range(6)]
    docs += [replace_words(docs[s % 3], 1 + s % 3, seed=s) for s in range(12)]
    docs += [docs[4].lower()]
    result = dedup(docs, threshold=0.7)
    found = ties(result, docs)
    assert sorted(t.document for t in found) == result.removed
    edges = {tuple(sorted(p)) for p in [*result.copies, *result.pairs]}
    neighbour = {t.document: t.neighbour for t in found}
    keeper_of = {i: k for members, k in zip(result.clusters, result.keepers) for i in members}
    for t in found:
        assert tuple(sorted((t.document, t.neighbour))) in edges
        assert t.keeper == keeper_of[t.document]
        walked, node = 0, t.document
        while node != t.keeper:
            node, walked = neighbour[node], walked + 1
        assert walked == t.steps
        assert t.jaccard == pytest.approx(
            jaccard(word_shingles(docs[t.document]), word_shingles(docs[t.neighbour]))
        )
        if not t.exact_copy:
            assert t.jaccard >= 0.7  # verification kept this pair
    assert any(t.exact_copy for t in found)  # docs[4] and its lower-case copy


def test_no_ties_when_nothing_was_removed():
    docs = ["heavy rain in the city", "a bridge opened over the river"]
    assert ties(dedup(docs), docs) == []


def test_ties_refuse_the_wrong_inputs():
    docs = [A, B]
    result = _chain_result(docs)
    with pytest.raises(TypeError, match="DedupResult"):
        ties(result.clusters, docs)
    with pytest.raises(ValueError, match="covers 2 documents but 3 were given"):
        ties(result, [A, B, C])
    with pytest.raises(TypeError, match="document 1 is bytes"):
        ties(result, [A, b"x"])


def test_the_printed_comparison_holds_as_printed() -> None:
    a = " ".join(f"word{i}" for i in range(30_000))
    b = " ".join(f"word{i}" for i in range(29_999)) + " other"
    shown = str(explain(a, b, Settings(threshold=1.0, k=1)))
    line = next(row for row in shown.splitlines() if "drops:" in row)
    value = float(line.split("Jaccard ")[1].split(" <")[0])
    assert value < 1.0, line  # not "1.0000 < 1"
