"""Compressed inputs, Parquet, and records' own ids: every record becomes a document or a problem."""

from __future__ import annotations

import gzip
import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import zstandard

from neardup_lab.readers import InputError, detect_format, read_inputs, record_value


@pytest.fixture
def cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def jsonl_bytes(records: list[dict]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode("utf-8")


RECORDS = [{"text": f"record number {i} says something", "id": f"r{i}"} for i in range(3000)]


def reasons(report) -> list[tuple[str, str]]:
    return [(p.where, p.reason) for p in report.problems]


# ----- compressed files ----------------------------------------------------------------


@pytest.mark.parametrize(
    "name, compress",
    [("a.jsonl.gz", gzip.compress), ("a.jsonl.zst", lambda b: zstandard.ZstdCompressor().compress(b))],
)
def test_compressed_jsonl_reads_like_the_plain_file(cwd, name, compress):
    (cwd / "a.jsonl").write_bytes(jsonl_bytes(RECORDS))
    (cwd / name).write_bytes(compress(jsonl_bytes(RECORDS)))
    plain, packed = read_inputs(["a.jsonl"]), read_inputs([name])
    assert (
        [d.text for d in packed.documents]
        == [d.text for d in plain.documents]
        == [r["text"] for r in RECORDS]
    )
    assert packed.documents[4].id == f"{name}:5" and packed.problems == []


def test_zstandard_file_of_several_frames_is_read_whole(cwd):
    frames = [
        zstandard.ZstdCompressor().compress(jsonl_bytes(RECORDS[i : i + 1000])) for i in (0, 1000, 2000)
    ]
    (cwd / "a.jsonl.zst").write_bytes(b"".join(frames))
    assert len(read_inputs(["a.jsonl.zst"]).documents) == len(RECORDS)


@pytest.mark.parametrize(
    "name, compress",
    [("a.jsonl.gz", gzip.compress), ("a.jsonl.zst", lambda b: zstandard.ZstdCompressor().compress(b))],
)
def test_truncated_compressed_file_reads_what_it_can_and_reports_the_cut(cwd, name, compress):
    records = [{"text": f"record {i} is longer"} for i in range(30_000)]  # several zstandard blocks
    data = compress(jsonl_bytes(records))
    (cwd / name).write_bytes(data[: len(data) // 2])
    report = read_inputs([name])
    texts = [d.text for d in report.documents]
    assert 0 < len(texts) < len(records)
    assert texts == [r["text"] for r in records[: len(texts)]]  # a prefix, in order
    (problem,) = report.problems
    assert problem.reason == "damaged" and problem.line == len(texts) + 1
    assert "cut off" in problem.message and f"line {len(texts) + 1}" in problem.message


def test_file_that_is_not_gzip_is_damaged_not_fatal(cwd):
    (cwd / "a.jsonl.gz").write_bytes(jsonl_bytes(RECORDS[:3]))
    (cwd / "b.jsonl").write_bytes(jsonl_bytes(RECORDS[:2]))
    report = read_inputs(["a.jsonl.gz", "b.jsonl"])
    assert reasons(report) == [("a.jsonl.gz:1", "damaged")]
    assert len(report.documents) == 2


def test_compressed_csv_tsv_and_txt(cwd):
    (cwd / "a.tsv.gz").write_bytes(gzip.compress(b"id\ttext\n1\theavy rain\n2\tsun, then wind\n"))
    (cwd / "b.txt.zst").write_bytes(zstandard.ZstdCompressor().compress(b"snow"))
    report = read_inputs(["a.tsv.gz", "b.txt.zst"], id_column="id")
    assert [(d.id, d.text) for d in report.documents] == [
        ("1", "heavy rain"),
        ("2", "sun, then wind"),
        ("b.txt.zst", "snow"),
    ]


def test_decompressed_size_is_bounded_by_max_bytes(cwd):
    (cwd / "big.txt.gz").write_bytes(gzip.compress(b"a " * 50_000))
    report = read_inputs(["big.txt.gz"], max_bytes=1000)
    assert reasons(report) == [("big.txt.gz", "too-large")]


def test_missing_optional_package_is_named(cwd, monkeypatch):
    (cwd / "a.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(b"{}\n"))
    pq.write_table(pa.table({"text": ["x"]}), cwd / "a.parquet")
    monkeypatch.setitem(sys.modules, "zstandard", None)  # import now raises ImportError
    with pytest.raises(InputError, match="needs the zstandard package.*pip install zstandard"):
        read_inputs(["a.jsonl.zst"])
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    extra = r"pip install pyarrow, or pip install 'neardup-lab\[formats\]'"
    with pytest.raises(InputError, match=f"needs the pyarrow package.*{extra}"):
        read_inputs(["a.parquet"])


def test_detect_format_sees_through_compression():
    assert detect_format("x.CSV.GZ") == "csv" and detect_format("x.ndjson.zst") == "jsonl"
    with pytest.raises(InputError, match="compressed Parquet"):
        detect_format("x.parquet.gz")
    with pytest.raises(InputError, match=r"\.gz or \.zst"):
        detect_format("x.json.gz")


# ----- Parquet -------------------------------------------------------------------------


def test_parquet_rows_become_documents_or_problems(cwd):
    texts = [f"row {i} text" for i in range(2500)]  # more than one record batch
    texts[7], texts[2100] = None, None
    table = pa.table({"id": list(range(2500)), "text": texts, "lang": ["en"] * 2500})
    pq.write_table(table, cwd / "a.parquet", row_group_size=1000)
    report = read_inputs(["a.parquet"])
    assert len(report.documents) + len(report.problems) == 2500
    assert reasons(report) == [("a.parquet:8", "not-text"), ("a.parquet:2101", "not-text")]
    assert report.documents[0].id == "a.parquet:1" and report.documents[-1].text == "row 2499 text"
    own = read_inputs(["a.parquet"], id_column="id")
    assert [d.id for d in own.documents[:3]] == ["0", "1", "2"]


def test_parquet_without_the_column_or_not_parquet_at_all(cwd):
    pq.write_table(pa.table({"body": ["x", "y"]}), cwd / "a.parquet")
    (cwd / "b.parquet").write_bytes(b"PAR1 this is not really parquet")
    report = read_inputs(["a.parquet", "b.parquet"])
    assert reasons(report) == [("a.parquet", "missing-parquet-column"), ("b.parquet", "damaged")]
    assert "no column 'text' (columns: body)" in report.problems[0].message
    assert [d.text for d in read_inputs(["a.parquet"], column="body").documents] == ["x", "y"]


def test_parquet_ids_missing_and_unusable(cwd):
    pq.write_table(pa.table({"text": ["a", "b", "c"], "id": ["x", None, ""]}), cwd / "a.parquet")
    report = read_inputs(["a.parquet"], id_column="id")
    assert [d.id for d in report.documents] == ["x"]
    assert reasons(report) == [("a.parquet:2", "missing-id"), ("a.parquet:3", "bad-id")]


# ----- records' own ids ------------------------------------------------------------------


def test_jsonl_id_field_with_dotted_path(cwd):
    records = [
        {"text": "a", "meta": {"id": "doc-1"}},
        {"text": "b", "meta": {"id": 17}},
        {"text": "c", "meta": {}},
        {"text": "d", "meta": {"id": 1.5}},
        {"text": "e", "meta": {"id": True}},
        {"text": "f", "meta": {"id": "doc-1"}},
        {"text": "g", "meta": {"id": "doc-7"}},
    ]
    (cwd / "a.jsonl").write_bytes(jsonl_bytes(records))
    report = read_inputs(["a.jsonl"], id_field="meta.id")
    assert [(d.id, d.text, d.line) for d in report.documents] == [
        ("doc-1", "a", 1),
        ("17", "b", 2),
        ("doc-7", "g", 7),
    ]
    assert reasons(report) == [
        ("a.jsonl:3", "missing-id"),
        ("a.jsonl:4", "bad-id"),
        ("a.jsonl:5", "bad-id"),
        ("a.jsonl:6", "duplicate-id"),
    ]
    assert "given already to a.jsonl:1" in report.problems[3].message


def test_duplicate_ids_across_files_are_problems_not_merges(cwd):
    (cwd / "a.csv").write_text("key,text\nk1,heavy rain\nk2,sun\n", encoding="utf-8")
    (cwd / "b.csv").write_text("key,text\nk2,snow\n,fog\nk3,wind\n", encoding="utf-8")
    report = read_inputs(["a.csv", "b.csv"], id_column="key")
    assert [d.id for d in report.documents] == ["k1", "k2", "k3"]
    assert reasons(report) == [("b.csv:2", "duplicate-id"), ("b.csv:3", "missing-id")]
    assert len(report.documents) + len(report.problems) == 5  # every record accounted for


def test_csv_without_the_id_column_is_one_problem(cwd):
    (cwd / "a.csv").write_text("text\nheavy rain\n", encoding="utf-8")
    report = read_inputs(["a.csv"], id_column="id")
    assert reasons(report) == [("a.csv:1", "missing-column")]
    assert "--id-column" in report.problems[0].message


def test_id_options_that_apply_to_no_input_are_refused(cwd):
    (cwd / "a.csv").write_text("text\nheavy rain\n", encoding="utf-8")
    (cwd / "a.jsonl").write_bytes(jsonl_bytes([{"text": "x"}]))
    with pytest.raises(InputError, match="--id-field.*no input is a JSONL file"):
        read_inputs(["a.csv"], id_field="id")
    with pytest.raises(InputError, match="--id-column.*no input is a CSV or Parquet file"):
        read_inputs(["a.jsonl"], id_column="id")
    with pytest.raises(InputError, match="id_field must be a non-empty name"):
        read_inputs(["a.jsonl"], id_field="")


def test_record_value_prefers_a_dotted_key_and_tells_absent_from_null():
    record = {"a.b": 1, "a": {"b": 2}, "n": None}
    assert record_value(record, "a.b") == 1
    assert record_value(record, "n") is None
    assert record_value(record, "a.c") is record_value(record, "n.x")
    assert record_value(record, "a.c") is not None
