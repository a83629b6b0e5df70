"""dedup end to end against planted truth."""

import numpy as np
import pytest

from neardup_lab import (
    brute_force_pairs,
    dedup,
    make_corpus,
    pairs_from_clusters,
    precision_recall,
    word_shingles,
)
from neardup_lab.engine.pipeline import exact_groups
from neardup_lab.settings import Settings
from neardup_lab.support import limits


@pytest.fixture(scope="module")
def corpus():
    return make_corpus(400, seed=12)


@pytest.fixture(scope="module")
def result(corpus):
    return dedup(corpus.docs, threshold=0.8)


def test_every_document_in_exactly_one_cluster(corpus, result):
    members = sorted(i for c in result.clusters for i in c)
    assert members == list(range(len(corpus.docs)))
    assert len(result.keepers) == len(result.clusters)
    assert all(k in c for k, c in zip(result.keepers, result.clusters))
    assert sorted(result.keepers + result.removed) == list(range(len(corpus.docs)))


def test_pairs_verified_and_ordered(corpus, result):
    sets = [word_shingles(d) for d in corpus.docs]
    truth = brute_force_pairs(sets, 0.8)
    assert all(i < j for i, j in result.pairs)
    precision, _ = precision_recall(result.pairs, truth)
    assert precision == 1.0  # exact verification: nothing below the threshold survives
    _, recall = precision_recall(pairs_from_clusters(result.clusters), truth)
    assert recall > 0.95


def test_no_cluster_mixes_families(corpus, result):
    for cluster in result.clusters:
        assert len({corpus.origin[i] for i in cluster}) == 1


def test_stats_cover_every_stage(corpus, result):
    assert list(result.stats) == ["exact", "signatures", "candidates", "verified", "clusters"]
    assert result.stats["exact"]["documents"] == len(corpus.docs)
    assert result.stats["verified"]["pairs"] <= result.stats["candidates"]["pairs"]
    assert all(stage["seconds"] >= 0 for stage in result.stats.values())
    assert result.params["bands"] * result.params["rows"] <= 128


def test_exact_copies_found_by_exact_pass(corpus, result):
    first = exact_groups(corpus.docs)
    for i, f in enumerate(first):
        if f != i:
            assert (f, i) in result.copies
    assert result.stats["exact"]["copies"] == sum(f != i for i, f in enumerate(first))


def test_verification_modes_and_keepers():
    docs = [
        "alpha beta gamma delta epsilon zeta eta theta",
        "alpha beta gamma delta epsilon zeta eta iota",
        "completely different words here for this one",
        "Alpha beta GAMMA delta epsilon zeta eta theta!!",
    ]
    exact = dedup(docs, threshold=0.5, k=2)
    assert exact.clusters == [[0, 1, 3], [2]]
    assert exact.keepers == [0, 2]
    longest = dedup(docs, threshold=0.5, k=2, keeper="longest")
    assert longest.keepers == [3, 2]
    strict = dedup(docs, threshold=0.99, k=2)
    assert strict.clusters == [[0, 3], [1], [2]]
    none = dedup(docs, threshold=0.5, k=2, verify="none")
    assert set(exact.pairs) <= set(none.pairs)


def test_empty_and_short_documents_are_kept():
    docs = ["", "", "short", "Short!", "a longer document about the river and the town"]
    result = dedup(docs, threshold=0.8)
    assert result.clusters == [[0], [1], [2, 3], [4]]  # a text with no words is nobody's copy


def test_char_shingles_for_text_without_spaces():
    docs = ["今日は東京で大雨が降りました", "今日は東京で大雨が降りましたね", "明日の大阪は晴れるでしょう"]
    assert dedup(docs, threshold=0.7, k=2, shingle="char").clusters == [[0, 1], [2]]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"threshold": 0}, ValueError, "threshold"),
        ({"shingle": "line"}, ValueError, "shingle"),
        ({"verify": "maybe"}, ValueError, "verify"),
        ({"bands": 20, "rows": 10}, ValueError, "exceeds num_perm"),
        ({"bands": 20}, ValueError, "both bands and rows"),
        ({"keeper": "newest"}, ValueError, "newest"),
        ({"num_perm": 0}, ValueError, "num_perm"),
    ],
)
def test_bad_parameters(kwargs, error, message):
    with pytest.raises(error, match=message):
        dedup(["a b c", "a b d"], **kwargs)


@pytest.mark.parametrize(
    ("docs", "message"),
    [("one string", "single str"), (["ok", None], "document 1"), ([b"bytes"], "document 0")],
)
def test_bad_documents(docs, message):
    with pytest.raises(TypeError, match=message):
        dedup(docs)


def test_two_jobs_give_the_same_answer():
    docs = make_corpus(1500, seed=4).docs  # more than one chunk of work: two signing threads
    one = dedup(docs, threshold=0.8, n_jobs=1)
    two = dedup(docs, threshold=0.8, n_jobs=2)
    assert one.pairs == two.pairs and one.clusters == two.clusters and one.keepers == two.keepers


@pytest.mark.parametrize("scheme", ["mod-prime", "one-permutation"])
def test_other_schemes_find_the_same_families(corpus, scheme):
    result = dedup(corpus.docs, threshold=0.8, scheme=scheme)
    for cluster in result.clusters:
        assert len({corpus.origin[i] for i in cluster}) == 1
    assert result.params["scheme"] == scheme


@pytest.mark.parametrize(
    ("bad", "error"), [(0, ValueError), (-2, ValueError), (1.5, TypeError), (True, TypeError)]
)
def test_n_jobs_checked(bad, error):
    with pytest.raises(error, match="n_jobs"):
        dedup(["a b"], n_jobs=bad)


def test_n_jobs_is_capped_at_the_workers_this_machine_can_use():
    most = limits.most_workers()
    with pytest.raises(ValueError, match=rf"n_jobs={most + 1} .* at most {most} .*n_jobs=-1"):
        dedup(["a b"], n_jobs=most + 1)
    with pytest.raises(ValueError, match="n_jobs=600"):
        dedup(["a b"], n_jobs=600)  # this once started hundreds of processes
    assert dedup(["a b", "a b"], n_jobs=most).clusters == [[0, 1]]


def test_settings_are_keyword_only():
    with pytest.raises(TypeError):
        Settings(0.8, 128)
    assert Settings(threshold=0.8, num_perm=128) == Settings()


def test_each_stage_is_timed_around_its_own_code(monkeypatch, corpus):
    import time

    from neardup_lab.engine import pipeline

    checks, nap = [], 0.01
    keep_verified = pipeline.keep_verified

    def slow_keep(settings, prepared, score=None):
        keep = keep_verified(settings, prepared, score)

        def slow(pairs):
            checks.append(len(pairs))
            time.sleep(nap)  # verification's time, inside the banding loop
            return keep(pairs)

        return slow

    monkeypatch.setattr(pipeline, "keep_verified", slow_keep)
    started = time.perf_counter()
    result = dedup(corpus.docs, threshold=0.8)
    elapsed = time.perf_counter() - started
    seconds = {stage: values["seconds"] for stage, values in result.stats.items()}
    assert checks and seconds["verified"] >= nap * len(checks)  # the naps count as verification
    assert sum(seconds.values()) <= elapsed  # and once only: nothing is counted twice
    assert all(s > 0 for s in seconds.values())


def test_prepare_many_over_threads_gives_the_arrays_of_one_chunk(monkeypatch):
    from neardup_lab.engine import pipeline

    monkeypatch.setattr(limits, "CHUNK_DOCS", 7)  # many chunks from a small corpus
    # U+FDFA becomes four words under NFKC: text that lengthens when normalised.
    docs = make_corpus(6, seed=9).docs + ["\ufdfa" * 50] * 14 + make_corpus(10, seed=3).docs
    settings = Settings(num_perm=16, k=2)
    whole = pipeline.prepare(docs, settings)  # one chunk, no threads
    for n_jobs in (1, 2, 3):
        many = pipeline.prepare_many(docs, settings, n_jobs=n_jobs)
        assert many.keys == whole.keys
        assert np.array_equal(many.sets.offsets, whole.sets.offsets)
        assert np.array_equal(many.sets.values, whole.sets.values)
        assert np.array_equal(many.signatures, whole.signatures)
    assert len(many.sets.values) > 0 and many.sets.offsets[-1] == len(many.sets.values)
