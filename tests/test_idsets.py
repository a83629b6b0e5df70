"""Id sets from texts, and verification that derives them again instead of keeping them."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from neardup_lab import dedup, make_corpus
from neardup_lab.engine import idsets, pipeline
from neardup_lab.engine.idsets import jaccard_from_texts, shingle_id_sets, sorted_sets
from neardup_lab.engine.verify import jaccard_of_pairs, pack_id_sets
from neardup_lab.settings import Settings
from neardup_lab.support import limits
from neardup_lab.support.spans import Ragged

# Typographic quotes, accents, a ligature that NFKC splits, a separator outside ASCII.
_MIXED = ["Café “déjà vu” ﬁne", "ÉCOLE—fermée", "rain rain today", "", "a\u00a0b c", "Straße STRASSE"]


@pytest.fixture(scope="module")
def docs():
    return make_corpus(60, seed=5, copies=(0, 3)).docs + _MIXED * 3


@pytest.mark.parametrize("shingle,k", [("word", 5), ("word", 1), ("char", 4)])
def test_shingle_id_sets_are_the_sets_prepare_signs(docs, shingle, k):
    settings = Settings(num_perm=8, k=k, shingle=shingle)
    prepared, sets = pipeline.prepare(docs, settings), shingle_id_sets(docs, settings)
    assert np.array_equal(prepared.sets.offsets, sets.offsets)
    assert np.array_equal(prepared.sets.values, sets.values)
    unsorted = pipeline.prepare(docs, settings, ids="none")  # signed from ids in text order
    assert len(unsorted.sets.offsets) == 1 and unsorted.keys == prepared.keys
    assert np.array_equal(unsorted.signatures, prepared.signatures)
    raw = pipeline.prepare(docs, settings, ids="raw")
    assert raw.sets.lists == 0 and len(raw.raw) == 1 and np.array_equal(raw.signatures, prepared.signatures)
    every = sorted_sets(raw.raw, np.ones(len(docs), dtype=bool))
    assert np.array_equal(every.offsets, sets.offsets) and np.array_equal(every.values, sets.values)


@pytest.mark.parametrize("shingle", ["word", "char"])
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_jaccard_from_texts_equals_jaccard_over_every_id_set(monkeypatch, docs, shingle, n_jobs):
    monkeypatch.setattr(limits, "SLICE_CHARS", 3000)  # many slices, some of one pair
    monkeypatch.setattr(limits, "SLICE_PAIRS", 5)
    settings = Settings(k=3, shingle=shingle)
    rng = np.random.default_rng(3)
    pairs = rng.integers(0, len(docs), size=(400, 2))
    expected = jaccard_of_pairs(shingle_id_sets(docs, settings), pairs)
    found = jaccard_from_texts(docs, settings, pairs, n_jobs=n_jobs)
    assert found.shape == (400,) and np.array_equal(found, expected)
    assert 0 < np.count_nonzero(expected) < 400  # the sample holds similar and dissimilar pairs


def test_jaccard_from_texts_of_no_pairs_is_empty(docs):
    assert jaccard_from_texts(docs, Settings(), np.empty((0, 2), dtype=np.int64)).shape == (0,)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_prepare_many_keeps_the_ids_of_the_first_documents_that_fit_the_budget(monkeypatch, docs, n_jobs):
    monkeypatch.setattr(limits, "CHUNK_DOCS", 7)  # chunks after the full one skip sorting
    settings = Settings(num_perm=8)
    whole = pipeline.prepare_many(docs, settings)
    assert len(whole.sets.offsets) == len(docs) + 1
    ends = 8 * whole.sets.offsets
    for budget in (0, int(ends[37]) + 7, int(ends[35]), int(ends[-1])):  # 35: a chunk's end
        part = pipeline.prepare_many(docs, settings, n_jobs=n_jobs, ids_budget=budget)
        kept = len(part.sets.offsets) - 1
        assert np.array_equal(part.sets.offsets, whole.sets.offsets[: kept + 1])
        assert np.array_equal(part.sets.values, whole.sets.values[: whole.sets.offsets[kept]])
        assert part.sets.values.nbytes <= budget
        assert kept == len(docs) or budget < 8 * whole.sets.offsets[kept + 1]  # the next one did not fit
        assert part.keys == whole.keys and np.array_equal(part.signatures, whole.signatures)
    assert kept == len(docs)


def test_keep_verified_without_every_set_needs_a_score(docs):
    some = pipeline.prepare_many(docs, Settings(num_perm=8), ids_budget=800)
    with pytest.raises(ValueError, match="id set"):
        pipeline.keep_verified(Settings(), some)


@pytest.mark.parametrize("kept_docs", [0, 1, 40, 77])
def test_jaccard_from_texts_reads_the_kept_sets_and_derives_the_rest(monkeypatch, docs, kept_docs):
    monkeypatch.setattr(limits, "SLICE_PAIRS", 9)
    settings = Settings(k=2)
    every = shingle_id_sets(docs, settings)
    kept = Ragged(every.values[: every.offsets[kept_docs]], every.offsets[: kept_docs + 1])
    pairs = np.random.default_rng(kept_docs).integers(0, len(docs), size=(300, 2))
    found = jaccard_from_texts(docs, settings, pairs, kept=kept)
    assert np.array_equal(found, jaccard_of_pairs(every, pairs))


@pytest.mark.parametrize("shingle,k", [("word", 5), ("char", 5)])
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_dedup_deriving_ids_again_gives_the_same_result(monkeypatch, shingle, k, n_jobs):
    docs = make_corpus(300, seed=21, copies=(0, 4)).docs
    kept = dedup(docs, threshold=0.7, shingle=shingle, k=k, n_jobs=n_jobs)
    assert len(kept.pairs) > 50
    monkeypatch.setattr(limits, "SLICE_PAIRS", 7)
    for budget in (0, 100_000):  # no ids kept; those of the first documents
        monkeypatch.setattr(limits, "IDS_BUDGET", budget)
        assert dedup(docs, threshold=0.7, shingle=shingle, k=k, n_jobs=n_jobs) == kept


_TEXT = st.text(st.sampled_from("ab cd.É’ﬁ\u00a0"), max_size=40)


@hypothesis_settings(max_examples=60, deadline=None)
@given(st.lists(_TEXT, min_size=2, max_size=12), st.integers(1, 3))
def test_any_texts_score_the_same_from_kept_or_derived_ids(texts, k):
    settings = Settings(k=k)
    pairs = np.array([(a, b) for a in range(len(texts)) for b in range(a + 1, len(texts))])
    expected = jaccard_of_pairs(pipeline.prepare(texts, settings).sets, pairs)
    assert np.array_equal(jaccard_from_texts(texts, settings, pairs), expected)


def test_a_long_document_in_many_pairs_is_derived_once_per_slice_not_once_per_pair(monkeypatch):
    long_text = "the river rose over the old stone bridge " * 60_000  # 2.5M characters
    docs = [long_text] + make_corpus(150, seed=4).docs
    derived_long, derive = [], idsets.shingle_id_sets

    def counting(texts, settings):
        derived_long.extend(text for text in texts if text is long_text)
        return derive(texts, settings)

    monkeypatch.setattr(idsets, "shingle_id_sets", counting)
    with_long = np.stack([np.arange(1, len(docs)), np.zeros(len(docs) - 1, dtype=np.int64)], axis=1)
    rng = np.random.default_rng(8)
    pairs = rng.permutation(np.concatenate([with_long, rng.integers(1, len(docs), size=(150, 2))]))
    scores = jaccard_from_texts(docs, Settings(k=3), pairs)
    short_chars = sum(map(len, docs[1:]))  # the long document's partners, each once
    assert len(derived_long) <= 2 + short_chars // limits.SLICE_CHARS
    assert np.array_equal(scores, jaccard_of_pairs(derive(docs, Settings(k=3)), pairs))


@given(st.lists(st.booleans(), min_size=1, max_size=40), st.integers(0, 2**32 - 1))
@hypothesis_settings(max_examples=60, deadline=None)
def test_sorting_some_documents_gives_their_sets_and_leaves_the_others_empty(wanted, seed):
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 12, len(wanted))
    ids = rng.integers(0, 20, int(counts.sum())).astype(np.uint64)  # repeats within documents
    offsets = np.r_[0, np.cumsum(counts)]
    every = pack_id_sets(Ragged(ids, offsets))
    # The same ids as one part, and cut into parts.
    cuts = np.unique(np.r_[0, rng.integers(0, len(wanted) + 1, 3), len(wanted)])
    parts = [
        Ragged(ids[offsets[a] : offsets[b]], offsets[a : b + 1] - offsets[a]) for a, b in zip(cuts, cuts[1:])
    ]
    for raw in ([Ragged(ids, offsets)], parts):
        joined = Ragged.join(raw)
        assert np.array_equal(joined.values, ids) and np.array_equal(joined.offsets, offsets)
        for n_jobs in (1, 2):
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(limits, "SORT_DOCS", 3)  # many pieces
                some = sorted_sets(raw, np.array(wanted), n_jobs)
            for doc, want in enumerate(wanted):
                assert some.of(doc).tolist() == (every.of(doc).tolist() if want else [])


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_prepare_many_keeps_raw_ids_chunk_by_chunk_within_the_budget(monkeypatch, docs, n_jobs):
    monkeypatch.setattr(limits, "CHUNK_DOCS", 7)
    settings = Settings(num_perm=8)
    whole = pipeline.prepare(docs, settings, ids="raw").raw
    raw = pipeline.prepare_many(docs, settings, n_jobs=n_jobs, ids="raw").raw
    assert len(raw) == -(-len(docs) // 7)  # one part a chunk, not copied into one array
    (whole,) = whole
    joined = Ragged.join(raw)
    assert np.array_equal(joined.values, whole.values) and np.array_equal(joined.offsets, whole.offsets)
    packed = pipeline.prepare_many(docs, settings).sets
    every = sorted_sets(raw, np.ones(len(docs), dtype=bool), n_jobs)
    assert np.array_equal(every.values, packed.values) and np.array_equal(every.offsets, packed.offsets)
    ends = 8 * whole.offsets
    for budget in (0, int(ends[37]) + 7, int(ends[35]), int(ends[-1])):
        part = pipeline.prepare_many(docs, settings, n_jobs=n_jobs, ids_budget=budget, ids="raw").raw
        part = Ragged.join(part)
        kept = part.lists
        assert np.array_equal(part.offsets, whole.offsets[: kept + 1])
        assert np.array_equal(part.values, whole.values[: whole.offsets[kept]])
        assert kept == len(docs) or budget < 8 * whole.offsets[kept + 1]  # the next one did not fit


def test_sorting_needs_one_bool_per_document():
    raw = Ragged(np.array([7, 3], dtype=np.uint64), np.array([0, 1, 2]))
    with pytest.raises(ValueError, match=r"one bool per document \(2\), got shape \(3,\)"):
        sorted_sets([raw], np.ones(3, dtype=bool))


def test_an_unknown_id_form_is_refused():
    with pytest.raises(ValueError, match="ids must be one of 'sets', 'raw', 'none', got 'sorted'"):
        pipeline.prepare_many(["rain"], Settings(num_perm=8), ids="sorted")
    with pytest.raises(ValueError, match="prepare with ids='sets'"):
        pipeline.keep_verified(Settings(k=1), pipeline.prepare(["a b"], Settings(num_perm=8, k=1), ids="raw"))
