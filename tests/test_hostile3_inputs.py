"""Hostile and unlucky inputs, round three (issue 39): what the command prints, sizes and
workers out of range, amplification by shared boilerplate, odd encodings and delimiters.

One test per item of the issue (named ``test_itemNN_...``), each failing on the code before
the fix. Command-line runs go through :func:`run`: a subprocess with a timeout and a cap on
its address space, so a regression fails the test instead of stalling CI.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_run import run as run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup_lab import make_article
from neardup_lab.engine import pipeline
from neardup_lab.engine.pipeline import candidates_warning, dedup, prepare
from neardup_lab.reference import reference_dedup
from neardup_lab.settings import Settings
from neardup_lab.support import limits

POSIX_ONLY = pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX file names and links")
TIMEOUT = 120  # seconds; a healthy run takes one or two


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return run_cli(*args, cwd=cwd, timeout=TIMEOUT)


def write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def usage_error(result, option: str) -> None:
    assert result.returncode == 2, result.stderr
    assert "usage: neardup-lab dedup" in result.stderr, result.stderr
    assert f"argument {option}" in result.stderr, result.stderr
    assert "internal error" not in result.stderr


# ----- item 8: terminal escape injection ------------------------------------------------------

ESCAPES = "\x1b]0;owned\x07\x1b[2J\x9b31m\u202e"


@POSIX_ONLY
def test_item08_control_characters_in_names_ids_and_keys_are_escaped(tmp_path):
    write(tmp_path / "f" / f"bad{ESCAPES}.txt", b"\x00binary")  # skipped: its name is printed
    text = make_article(seed=1, n_words=60)
    records = [{"id": f"a{ESCAPES}", "text": text}, {"id": f"b{ESCAPES}", "text": text}]
    write(tmp_path / "r.jsonl", "".join(json.dumps(r) + "\n" for r in records))
    write(tmp_path / "k.jsonl", json.dumps({f"key{ESCAPES}": 1}) + "\n")  # no "text": its keys are listed
    result = run("dedup", "f", "r.jsonl", "k.jsonl", "--id-field", "id", "--why", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    for stream in (result.stdout, result.stderr):
        assert not any(c in stream for c in "\x1b\x07\x9b\u202e"), repr(stream)
    assert "bad\\x1b]0;owned\\x07\\x1b[2J\\x9b31m\\u202e.txt" in result.stderr
    assert "b\\x1b]0;owned" in result.stdout  # the removed record's id, in the --why lines


# ----- item 11: --max-bytes ------------------------------------------------------------------


def test_item11_huge_max_bytes_reads_only_what_is_there(tmp_path):
    for i in range(3):
        write(tmp_path / "f" / f"{i}.txt", make_article(seed=i, n_words=8))
    result = run("dedup", "f", "--max-bytes", "100G", "--out", "c.jsonl", cwd=tmp_path)
    assert result.returncode == 0, result.stderr  # was "out of memory": the limit was allocated
    assert (tmp_path / "c.jsonl").exists()
    result = run("dedup", "f", "--max-bytes", str(2**64), cwd=tmp_path)
    usage_error(result, "--max-bytes")
    assert "must be at most" in result.stderr


# ----- item 12: --jobs agrees with the API's cap ----------------------------------------------------


def test_item12_jobs_above_the_api_cap_is_a_usage_error(tmp_path):
    write(tmp_path / "f" / "a.txt", make_article(seed=1, n_words=20))
    result = run("dedup", "f", "--jobs", str(limits.most_workers() + 1), cwd=tmp_path)
    usage_error(result, "--jobs")
    assert f"must be at most {limits.most_workers()}" in result.stderr


# ----- item 13: amplification by shared boilerplate; normalisation once ---------------------------


def boilerplate_corpus(n: int) -> list[str]:
    """``n`` pages sharing about 75 % of their words, none a duplicate of another (Jaccard about
    0.6: whether a band agrees is the same coin for most pairs, so with fewer shared words the
    count of candidates swings with the seed)."""
    template = make_article(seed=1, n_words=200)
    return [f"{template} {make_article(seed=100 + i, n_words=60)}" for i in range(n)]


def test_item13a_exploding_candidates_are_reported_with_the_remedy(tmp_path):
    docs = boilerplate_corpus(300)
    result = dedup(docs)
    assert result.stats["candidates"]["proposed"] > limits.CANDIDATES_PER_DOCUMENT * len(docs)
    assert "max_df=0.5" in candidates_warning(result)
    assert candidates_warning(dedup(docs, max_df=0.5)) is None
    for i, doc in enumerate(docs):
        write(tmp_path / "pages" / f"{i:03}.txt", doc)
    done = run("dedup", "pages", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "candidate pairs, " in done.stderr and "--max-df 0.5" in done.stderr


def test_item13b_max_df_is_a_setting_of_dedup_and_the_command(tmp_path):
    docs = boilerplate_corpus(40)
    docs += [docs[3] + " and one more line", docs[5].upper()]
    found = dedup(docs, threshold=0.7, max_df=0.5)
    assert found.settings.max_df == 0.5 and found.stats["candidates"]["pairs"] <= 2
    assert found.clusters == reference_dedup(docs, Settings(threshold=0.7, max_df=0.5)).clusters
    assert [3, 40] in found.clusters and [5, 41] in found.clusters
    # Default off: the settings, and what was saved before the option existed, read the same.
    assert "max_df" not in Settings().to_dict() and Settings.from_dict(Settings().to_dict()) == Settings()
    with pytest.raises(ValueError, match="only dedup computes"):
        prepare(docs, Settings(max_df=0.5))  # the saved index and dedup_dask cannot honour it
    with pytest.raises(ValueError, match="max_df"):
        Settings(max_df=1.5)
    for i, doc in enumerate(docs):
        write(tmp_path / "pages" / f"{i:03}.txt", doc)
    done = run("dedup", "pages", "--threshold", "0.7", "--max-df", "0.5", "--out", "c.jsonl", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "more than 50% of the documents ignored" in done.stdout and "removed: 2" in done.stdout


@settings(max_examples=25, deadline=None)
@given(
    picks=st.lists(st.integers(0, 5), min_size=2, max_size=12),
    max_df=st.sampled_from([0.3, 0.5, 1.0, 1, 2, 4]),
    shingle=st.sampled_from([("word", 2), ("word", 5), ("char", 4)]),
)
def test_item13b_reference_honours_max_df(picks, max_df, shingle):
    parts = ["home news sport weather contact", "rain closed the coastal road today",
             "the bridge opened after years of work", "voters went to the polls early",
             "home news sport weather", ""]
    docs = [" ".join(parts[p] for p in picks[i : i + 3]) for i in range(len(picks))]
    s = Settings(threshold=0.5, k=shingle[1], shingle=shingle[0], max_df=max_df)
    engine, ref = dedup(docs, **s.to_dict()), reference_dedup(docs, s)
    assert (engine.clusters, engine.keepers, engine.copies) == (ref.clusters, ref.keepers, ref.copies)


def test_item13c_the_spaces_check_does_not_normalise_whole_documents(monkeypatch):
    seen: list[int] = []
    real_words = pipeline.words

    def counting(text: str) -> list[str]:
        seen.append(len(text))
        return real_words(text)

    monkeypatch.setattr(pipeline, "words", counting)
    long_doc = "\ufdfa" * (3 * limits.SPACES_SAMPLE_CHARS)  # NFKC makes each character 18
    assert not pipeline.looks_unspaced([long_doc], Settings())  # it expands to many words
    assert seen and max(seen) <= limits.SPACES_SAMPLE_CHARS


# ----- item 15: encodings, delimiters, Parquet binary columns, outputs through links ------------


def test_item15_odd_encodings_and_delimiters_are_usage_errors(tmp_path):
    write(tmp_path / "a.csv", "id,text\n1,heavy rain in the city today\n")
    write(tmp_path / "a.jsonl", json.dumps({"text": "heavy rain in the city today"}) + "\n")
    for encoding in ("rot13", "base64", "undefined"):
        usage_error(run("dedup", "a.jsonl", "--encoding", encoding, cwd=tmp_path), "--encoding")
    usage_error(run("dedup", "a.csv", "--encoding", "idna", cwd=tmp_path), "--encoding")
    for delimiter in ("", "ab"):
        usage_error(run("dedup", "a.csv", "--delimiter", delimiter, cwd=tmp_path), "--delimiter")
    write(tmp_path / "t.csv", "id\ttext\n1\theavy rain in the city today\n")
    done = run("dedup", "t.csv", "--delimiter", "\\t", cwd=tmp_path)  # as typed: backslash, t
    assert done.returncode == 0 and "documents read: 1" in done.stdout, done.stderr
    write(tmp_path / "bom.jsonl", b"\xef\xbb\xbf" + json.dumps({"text": "heavy rain"}).encode() + b"\n")
    done = run("dedup", "bom.jsonl", "a.csv", "--encoding", "utf-8-sig", cwd=tmp_path)
    assert done.returncode == 0 and "documents read: 2" in done.stdout, done.stderr


def test_item15_a_parquet_binary_column_is_not_called_a_number(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    pq.write_table(pa.table({"text": [b"heavy rain"]}), tmp_path / "b.parquet")
    done = run("dedup", "b.parquet", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "holds binary data (bytes, not text)" in done.stderr and "a number" not in done.stderr


@POSIX_ONLY
def test_item15_an_output_through_a_link_inside_an_input_folder_is_refused(tmp_path):
    write(tmp_path / "in" / "a.txt", make_article(seed=1, n_words=20))
    (tmp_path / "elsewhere").mkdir()
    os.symlink("../elsewhere", tmp_path / "in" / "link")
    done = run("dedup", "in", "--keep-out", "in/link/kept.txt", cwd=tmp_path)
    assert done.returncode == 2 and "inside an input folder" in done.stderr, done.stderr
    assert not list((tmp_path / "elsewhere").iterdir())
