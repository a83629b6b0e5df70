"""dedup_dask on a real LocalCluster (two worker processes) gives dedup's answer."""

import importlib
import json
import logging
import os
import sys

import dask
import dask.bag as db
import pandas as pd
import pytest
from distributed import Client, LocalCluster

from neardup_lab import dedup, jaccard, make_corpus
from neardup_lab.distributed import dedup_dask, read_bag
from neardup_lab.readers import Document, InputError, read_inputs
from neardup_lab.support import limits


@pytest.fixture(scope="module")
def client():
    # Dask's nanny sets MALLOC_TRIM_THRESHOLD_ for its workers, which makes numpy's large
    # temporaries page-fault afresh each time (signing runs about half as fast); unset it.
    with (
        dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}),
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


@pytest.fixture(scope="module")
def corpus():
    docs = make_corpus(1200, seed=21).docs
    # Exact copies whose first occurrence sits in another partition: the exact pass must be global.
    return docs + [docs[5].upper(), docs[700], "  " + docs[1200] + "!"]


def counts(result):
    """Every stage count of a result, without the timings."""
    return {
        stage: {key: value for key, value in values.items() if key != "seconds"}
        for stage, values in result.stats.items()
        if stage in ("exact", "signatures", "clusters")  # dedup checks fewer candidates
    }


def assert_same(expected, got):
    assert got.copies == expected.copies
    assert set(expected.pairs) <= set(got.pairs)  # dedup skips pairs already joined; Dask checks all
    assert got.clusters == expected.clusters
    assert got.keepers == expected.keepers
    assert got.settings == expected.settings
    assert counts(got) == counts(expected)


def test_workers_are_separate_processes(client):
    pids = client.run(os.getpid)
    assert len(pids) == 2
    assert os.getpid() not in pids.values()
    assert len(set(pids.values())) == 2


def test_same_answer_as_dedup_on_a_few_thousand_documents(client, corpus):
    expected = dedup(corpus)
    bag = db.from_sequence(corpus, npartitions=6)
    got = dedup_dask(bag, client=client)
    assert len(corpus) > 2000
    assert expected.stats["exact"]["copies"] > 3 and len(expected.pairs) > 1000  # a test that can fail
    assert_same(expected, got)
    assert got.stats["dask"] == {
        "partitions": bag.npartitions,
        "shuffle_partitions": bag.npartitions,
        "workers": 2,
    }
    assert got.stats["shuffle"]["gathered_bytes"] == 16 * (len(got.pairs) + len(got.copies))
    # Every document appears once, as a keeper or a removed member of a cluster.
    assert sorted(got.keepers + got.removed) == list(range(len(corpus)))


@pytest.mark.parametrize(
    "options",
    [
        {"verify": "estimate", "keeper": "longest"},
        {"verify": "none", "threshold": 0.6, "bands": 20, "rows": 5},
        {"bbits": 8, "verify": "estimate", "num_perm": 64, "scheme": "one-permutation"},
        {"shingle": "char", "k": 6, "threshold": 0.7},
    ],
)
def test_same_answer_with_other_settings(client, corpus, options):
    docs = corpus[:400] + corpus[-3:]
    expected = dedup(docs, **options)
    got = dedup_dask(db.from_sequence(docs, npartitions=4), client=client, shuffle_partitions=3, **options)
    assert_same(expected, got)


def test_files_through_read_bag(client, corpus, tmp_path):
    docs = corpus[:400] + corpus[-3:]
    paths = []
    for n, start in enumerate(range(0, len(docs), 150)):
        path = tmp_path / f"part{n}.jsonl"
        with open(path, "w", encoding="utf-8") as f:
            for text in docs[start : start + 150]:
                f.write(json.dumps({"text": text}) + "\n")
            f.write('{"body": "no text field"}\n')  # skipped by the reader, and counted
        paths.append(str(path))
    folder = tmp_path / "more"
    folder.mkdir()
    for name, text in [("a.txt", docs[3]), ("b.txt", "A short note of our own.")]:
        (folder / name).write_text(text, encoding="utf-8")
    paths.append(str(folder))

    report = read_inputs(paths)
    got = dedup_dask(read_bag(paths), client=client)
    assert_same(dedup([d.text for d in report.documents]), got)
    assert got.stats["read"] == {"documents": len(report.documents), "problems": len(report.problems)}
    assert got.stats["dask"]["partitions"] == len(paths)
    assert any(report.documents[i].id.endswith("a.txt") for c in got.clusters if len(c) > 1 for i in c)

    # Document ids are positions in the order read_bag lists the records.
    records = read_bag(paths).compute()
    assert [r.id for r in records if isinstance(r, Document)] == [d.id for d in report.documents]


def test_dask_bag_and_dataframe_partitions(client, corpus):
    docs = corpus[:300]
    expected = dedup(docs)
    # Uneven partitions, one of them empty: ids are global positions across partitions.
    bag = db.from_delayed(
        [dask.delayed(list)(docs[:10]), dask.delayed(list)([]), dask.delayed(list)(docs[10:])]
    )
    assert_same(expected, dedup_dask(bag, client=client))
    # Partitions of a dask dataframe arrive as pandas objects (df.to_delayed()).
    frames = [
        dask.delayed(pd.DataFrame)({"id": range(a, b), "body": docs[a:b]}) for a, b in [(0, 120), (120, 300)]
    ]
    assert_same(expected, dedup_dask(frames, client=client, text_column="body"))
    series = [dask.delayed(pd.Series)(docs[a:b]) for a, b in [(0, 200), (200, 300)]]
    assert_same(expected, dedup_dask(series, client=client))


@pytest.mark.parametrize(
    "options",
    [
        {"threshold": 0},
        {"threshold": 1.5},
        {"shingle": "line"},
        {"verify": "maybe"},
        {"keeper": "last"},
        {"bands": 4},
        {"bands": 20, "rows": 8},
        {"bbits": 4},
        {"bbits": 40},
        {"num_perm": 0},
        {"scheme": "md5"},
    ],
)
def test_bad_parameters_are_refused_as_dedup_refuses_them(options):
    with pytest.raises((TypeError, ValueError)) as expected:
        dedup(["heavy rain in the city"], **options)
    with pytest.raises(expected.type) as got:
        dedup_dask(db.from_sequence(["heavy rain in the city"]), **options)
    assert str(got.value) == str(expected.value)


def test_a_list_of_texts_is_read_as_dedup_reads_it(client, corpus):
    docs = corpus[:400] + corpus[-3:]
    got = dedup_dask(docs, client=client, npartitions=3)
    assert_same(dedup(docs), got)
    assert got.stats["dask"]["partitions"] == 3
    assert "read" not in got.stats  # no reader was involved
    assert dedup_dask(tuple(docs[:50])).clusters == dedup(docs[:50]).clusters  # default partitions
    assert dedup_dask([]).clusters == []


def test_clear_errors(client, tmp_path):
    with pytest.raises(TypeError, match="read_bag"):
        dedup_dask(str(tmp_path), client=client)
    with pytest.raises(TypeError, match="document 1 is int"):
        dedup_dask(["heavy rain in the city", 7], client=client)
    with pytest.raises(TypeError, match="a list of str, a dask bag"):
        dedup_dask({"a": "heavy rain"}, client=client)
    with pytest.raises(InputError, match="no such file"):
        read_bag([str(tmp_path / "missing.jsonl")])
    with pytest.raises(TypeError, match="document 1 of partition 0 is int"):
        dedup_dask(db.from_sequence(["heavy rain", 7], npartitions=1), client=client)
    with pytest.raises(ValueError, match="give both bands and rows"):
        dedup_dask(db.from_sequence(["a"]), bands=4, client=client)
    with pytest.raises(ValueError, match="shuffle_partitions"):
        dedup_dask(db.from_sequence(["a"]), shuffle_partitions=0, client=client)
    with pytest.raises(TypeError, match="npartitions"):
        dedup_dask(["a"], npartitions=2.0, client=client)


def test_empty_documents_and_tiny_inputs(client):
    docs = ["", "heavy rain in the city today", "", "   ", "Heavy rain in the city today!"]
    got = dedup_dask(db.from_sequence(docs, npartitions=3), client=client, threshold=0.5, k=2)
    assert_same(dedup(docs, threshold=0.5, k=2), got)
    assert got.clusters == [[0], [1, 4], [2], [3]]  # a text with no words is nobody's copy


def test_the_same_folder_given_twice_is_refused(tmp_path, monkeypatch):
    (tmp_path / "f").mkdir()
    (tmp_path / "f" / "a.txt").write_text("heavy rain in the city", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match="same file or folder"):
        read_bag(["f", str(tmp_path / "f")])


def test_a_list_is_cut_into_partitions_of_the_size_in_limits(monkeypatch):
    monkeypatch.setattr(limits, "TEXTS_PER_PARTITION", 2)
    got = dedup_dask(["heavy rain today", "heavy rain today", "a quiet day", "sun"], k=1)
    assert got.stats["dask"]["partitions"] == 2 and got.clusters == [[0, 1], [2], [3]]


def test_without_dask_the_import_error_names_the_extra(monkeypatch):
    for name in [m for m in sys.modules if m.startswith("neardup_lab.distributed")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "dask", None)  # what an import of a missing package meets
    for module in ("neardup_lab.distributed", "neardup_lab.distributed.dedup"):
        with pytest.raises(ImportError, match=r"pip install 'neardup-lab\[dask\]'"):
            importlib.import_module(module)


def test_a_big_bucket_is_checked_as_dedup_checks_it(client):
    # One story copied 1,500 times with two words replaced: buckets of more than limits.BUCKET_SIZE
    # documents. With their first anchors alone, Dask joined 94 % of the pairs at 0.8; now all.
    from neardup_lab import brute_force_pairs, word_shingles
    from neardup_lab.corpus import near_copies

    docs = near_copies(1500, replaced=2, seed=1)
    expected = dedup(docs, threshold=0.8)
    got = dedup_dask(db.from_sequence(docs, npartitions=3), threshold=0.8, client=client)
    stats = got.stats["candidates"]
    assert stats["capped_buckets"] > 0 and stats["pairs"] < 1500 * 1499 // 2
    assert got.clusters == expected.clusters and got.keepers == expected.keepers
    shingles = [word_shingles(d) for d in docs]
    truth = brute_force_pairs(shingles, 0.8)
    label = {doc: c for c, members in enumerate(got.clusters) for doc in members}
    assert sum(label[a] == label[b] for a, b in truth) >= 0.99 * len(truth)
    assert all(jaccard(shingles[a], shingles[b]) >= 0.8 for a, b in got.pairs)
