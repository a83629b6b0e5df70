"""Big buckets: one story copied thousands of times, a template on every page.

A bucket (the documents of one band group) of more than ``limits.BUCKET_SIZE`` documents is
checked against its first ``limits.BUCKET_ANCHORS`` members only; the tests shrink the budget
so that small corpora meet it, and check what the budget keeps: every joined pair verified,
the counts of what was left out, and the answer of checking every pair below the budget.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup_lab import brute_force_pairs, clusters_from_pairs, dedup, jaccard, word_shingles
from neardup_lab.corpus import near_copies, shared_template
from neardup_lab.engine.banding import BandGroups, pairs_to_check
from neardup_lab.engine.pipeline import candidates_warning
from neardup_lab.index.store import SavedIndex
from neardup_lab.reference import reference_dedup
from neardup_lab.settings import Settings
from neardup_lab.support import limits


def test_small_groups_give_every_pair_and_big_ones_their_anchors():
    sizes = [2, 3, 7, 1, 12]
    order = np.random.default_rng(3).permutation(sum(sizes))
    groups = BandGroups(order, np.cumsum([0, *sizes[:-1]]))
    pairs, capped = pairs_to_check(groups, most=5, anchors=3)
    found = set(map(tuple, pairs.tolist()))
    starts = np.cumsum([0, *sizes[:-1]]).tolist()
    for start, size in zip(starts, sizes):
        members = order[start : start + size].tolist()
        every = {tuple(sorted(p)) for p in itertools.combinations(members, 2)}
        if size <= 5:
            assert every <= found
        else:  # each member with the first three, and those three with each other
            wanted = {tuple(sorted((m, a))) for a in members[:3] for m in members if m != a}
            assert wanted <= found and not (every - wanted) & found
    assert capped.sizes().tolist() == [7, 12]
    assert len(pairs) == 1 + 3 + (3 + 3 * 4) + (3 + 3 * 9)


@pytest.fixture
def small_budget(monkeypatch):
    monkeypatch.setattr(limits, "BUCKET_SIZE", 20)
    monkeypatch.setattr(limits, "BUCKET_ANCHORS", 4)


def test_a_capped_run_joins_only_verified_pairs_and_counts_what_it_left(small_budget):
    docs = near_copies(400, replaced=1, seed=5)
    result = dedup(docs, threshold=0.8)
    shingles = [word_shingles(d) for d in docs]
    assert all(jaccard(shingles[a], shingles[b]) >= 0.8 for a, b in result.pairs)
    joined = {d for pair in result.pairs + result.copies for d in pair}
    removed = set(range(len(docs))) - set(result.keepers)
    assert removed <= joined  # nothing is removed without a partner
    stats = result.stats["candidates"]
    assert stats["capped_buckets"] > 0 and stats["not_checked"] > 0
    assert stats["pairs"] < stats["proposed"]


def test_below_the_budget_the_answer_is_the_reference(small_budget):
    docs = near_copies(15, replaced=2, seed=2) + near_copies(12, replaced=1, seed=9)
    result = dedup(docs, threshold=0.7)
    expected = reference_dedup(docs, Settings(threshold=0.7))
    assert result.stats["candidates"]["capped_buckets"] == 0
    assert (result.clusters, result.keepers) == (expected.clusters, expected.keepers)


def test_the_work_grows_with_the_corpus_not_its_square():
    small, large = (dedup(near_copies(n, replaced=1, seed=1)) for n in (1000, 4000))
    per_doc = [r.stats["candidates"]["pairs"] / r.stats["exact"]["documents"] for r in (small, large)]
    assert per_doc[1] < 3 * per_doc[0]  # all pairs: four times as many per document
    assert large.stats["candidates"]["proposed"] > 10 * small.stats["candidates"]["proposed"]


def test_a_shared_template_is_warned_about_with_its_remedy():
    result = dedup(shared_template(1000, seed=4))
    warning = candidates_warning(result)
    assert warning is not None and "max_df" in warning
    assert result.stats["verified"]["pairs"] == 0
    assert candidates_warning(dedup(near_copies(1000, replaced=1, seed=4))) is None


def test_the_saved_index_caps_its_lookups_too(small_budget):
    docs = near_copies(300, replaced=2, seed=8)
    index = SavedIndex(Settings(threshold=0.7))
    found = index.add([str(i) for i in range(len(docs))], docs)
    assert index.capped > 0 and index.not_checked > 0
    shingles = [word_shingles(d) for d in docs]
    for doc, matches in enumerate(found):
        for match in matches:
            assert jaccard(shingles[doc], shingles[int(match.id)]) >= 0.7
    partnered = {d for pair in brute_force_pairs(shingles, 0.7) for d in pair}
    matched = {d for doc, matches in enumerate(found) for m in matches for d in (doc, int(m.id))}
    assert len(partnered) > 10 and len(matched) >= 0.9 * len(partnered)


def _index_clusters(docs, batches=1):
    """The clusters of the pairs a saved index matched, the documents added in ``batches``."""
    index = SavedIndex(Settings(threshold=0.8))
    cuts = np.linspace(0, len(docs), batches + 1).round().astype(int).tolist()
    found = []
    for a, b in zip(cuts[:-1], cuts[1:]):
        found += index.add([str(i) for i in range(a, b)], docs[a:b])
    pairs = [(doc, int(m.id)) for doc, matches in enumerate(found) for m in matches]
    return clusters_from_pairs(len(docs), pairs), pairs, index


def _recall(docs, clusters):
    """Share of the brute-force pairs at 0.8 whose documents end in one cluster."""
    truth = brute_force_pairs([word_shingles(d) for d in docs], 0.8)
    label = {doc: c for c, members in enumerate(clusters) for doc in members}
    return sum(label[a] == label[b] for a, b in truth) / len(truth)


def test_the_saved_index_checks_a_big_bucket_as_dedup_does(small_budget):
    # With anchors alone the index joined 88 % of these pairs (dedup 98 %, splitting by other bands).
    docs = near_copies(500, replaced=2, seed=3)
    expected = dedup(docs, threshold=0.8)
    assert expected.stats["candidates"]["capped_buckets"] > 0
    clusters, pairs, index = _index_clusters(docs)
    assert index.capped > 0
    assert clusters == expected.clusters
    shingles = [word_shingles(d) for d in docs]
    assert all(jaccard(shingles[a], shingles[b]) >= 0.8 for a, b in pairs)  # every join verified


def test_an_index_added_to_in_batches_pairs_each_batch_with_the_index(small_budget):
    docs = near_copies(500, replaced=2, seed=3)
    clusters, pairs, index = _index_clusters(docs, batches=4)
    assert index.capped > 0
    assert _recall(docs, clusters) >= _recall(docs, dedup(docs, threshold=0.8).clusters) - 0.01
    shingles = [word_shingles(d) for d in docs]
    assert all(jaccard(shingles[a], shingles[b]) >= 0.8 for a, b in pairs)
    found = index.query(docs[:50])  # queries are matched with the index, never with each other
    assert all(m.in_index for matches in found for m in matches) and all(found)


def test_the_saved_index_finds_the_pairs_of_two_word_copies():
    # The budget as shipped: with anchors alone, 94 % of these pairs ended in one cluster.
    docs = near_copies(1500, replaced=2, seed=1)
    clusters, _, index = _index_clusters(docs)
    assert index.capped > 0
    assert _recall(docs, clusters) >= 0.99
    assert clusters == dedup(docs, threshold=0.8).clusters


@pytest.mark.native("needs Dask, which is not in the page")
def test_dask_checks_a_big_bucket_as_dedup_does(small_budget):
    dedup_dask = pytest.importorskip("neardup_lab.distributed").dedup_dask
    docs = near_copies(500, replaced=2, seed=3)
    expected = dedup(docs, threshold=0.8)
    got = dedup_dask(docs, threshold=0.8, npartitions=3)  # Dask's local threads: the budget is shrunk
    assert got.stats["candidates"]["capped_buckets"] > 0 and got.stats["candidates"]["not_checked"] > 0
    assert got.clusters == expected.clusters and got.keepers == expected.keepers
    shingles = [word_shingles(d) for d in docs]
    assert all(jaccard(shingles[a], shingles[b]) >= 0.8 for a, b in got.pairs)


@pytest.mark.native("runs the command line, which says in the page that it runs on a computer")
def test_the_command_line_says_when_buckets_were_capped(tmp_path):
    from neardup_lab.cli.main import main

    path = tmp_path / "copies.jsonl"
    texts = near_copies(1000, replaced=1, seed=3)  # a band's bucket holds about a quarter: over 100
    path.write_text("".join(json.dumps({"text": text}) + "\n" for text in texts))
    for command in (["dedup", str(path)], ["index", "build", str(tmp_path / "i.idx"), str(path)]):
        out = tmp_path / "out.txt"
        with out.open("w") as stream, contextlib.redirect_stdout(stream), contextlib.redirect_stderr(stream):
            assert main(command) == 0
        said = out.read_text()
        assert f"of more than {limits.BUCKET_SIZE} documents were checked" in said, said
        assert "candidate pairs in them\n  were left unchecked" in said


@pytest.mark.native("starts a Python process")
def test_a_bucket_of_fifty_thousand_stays_within_the_memory_budget():
    # Every pair of one 50,000-document bucket would be 1.25 billion pairs (20 GB); the budget
    # checks each member against the bucket's first anchors, and memory stays at megabytes.
    code = (
        "import numpy as np\n"
        "from neardup_lab.engine.banding import BandGroups\n"
        "from neardup_lab.engine.verify import verified_edges\n"
        "def peak():\n"
        "    line = next(l for l in open('/proc/self/status') if l.startswith('VmHWM:'))\n"
        "    return int(line.split()[1]) // 1024\n"
        "n = 50_000\n"
        "bands = [BandGroups(np.arange(n), np.zeros(1, dtype=np.int64)) for _ in range(3)]\n"
        "before = peak()\n"
        "found = verified_edges(n, bands, lambda pairs: np.zeros(len(pairs), dtype=bool))\n"
        "print(found.checked, found.capped, found.unchecked, peak() - before)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    checked, capped, unchecked, grown_mb = map(int, done.stdout.split())
    anchors, n = limits.BUCKET_ANCHORS, 50_000
    assert checked == anchors * (n - anchors) + anchors * (anchors - 1) // 2  # the first band; then known
    assert capped == 3 and unchecked == 3 * (n * (n - 1) // 2) - checked - 2 * checked
    assert grown_mb < 200


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 9), min_size=1, max_size=5),
    replaced=st.integers(0, 3),
    seed=st.integers(0, 10_000),
    bucket=st.integers(2, 12),
)
def test_budgeted_candidates_give_the_clusters_of_all_pairs_below_the_budget(sizes, replaced, seed, bucket):
    docs = [doc for i, n in enumerate(sizes) for doc in near_copies(n, replaced, n_words=30, seed=seed + i)]
    saved = limits.BUCKET_SIZE, limits.BUCKET_ANCHORS
    limits.BUCKET_SIZE, limits.BUCKET_ANCHORS = bucket, 2
    try:
        result = dedup(docs, threshold=0.6, k=3)
    finally:
        limits.BUCKET_SIZE, limits.BUCKET_ANCHORS = saved
    shingles = [word_shingles(d, 3) for d in docs]
    assert all(jaccard(shingles[a], shingles[b]) >= 0.6 for a, b in result.pairs)
    if result.stats["candidates"]["capped_buckets"] == 0:
        expected = reference_dedup(docs, Settings(threshold=0.6, k=3))
        assert (result.clusters, result.keepers) == (expected.clusters, expected.keepers)
