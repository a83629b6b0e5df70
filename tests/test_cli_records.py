"""The deduplicated data as output (--keep-out, --removed-out, --new-out), own ids, compressed and Parquet."""

from __future__ import annotations

import csv
import gzip
import io
import json
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import zstandard
from cli_run import run

from neardup_lab import make_article, replace_words
from neardup_lab.cli.main import main


def article(i: int) -> str:
    return make_article(seed=700 + i, n_words=80)


def near(i: int) -> str:
    return replace_words(article(i), 1, seed=i)


def corpus() -> list[tuple[str, str]]:
    """(id, text): 8 articles, with a near copy of 0, 3 and 5 and an exact copy of 6 after them."""
    rows = [(f"a{i}", article(i)) for i in range(8)]
    rows += [
        ("a0-near", near(0)),
        ("a3-near", near(3)),
        ("a5-near", near(5)),
        ("a6-copy", article(6).upper()),
    ]
    return rows


DUPLICATES = {"a0-near", "a3-near", "a5-near", "a6-copy"}


def jsonl_lines(rows: list[tuple[str, str]]) -> list[bytes]:
    """Records written in varied styles (spacing, key order, escapes), so a re-encoding would show."""
    lines = []
    for n, (doc_id, text) in enumerate(rows):
        if n % 3 == 0:
            lines.append(json.dumps({"meta": {"id": doc_id}, "text": text}).encode() + b"\n")
        elif n % 3 == 1:
            record = {"text": text, "meta": {"id": doc_id}, "n": n}
            lines.append(json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
        else:
            lines.append(
                b'{ "text" : '
                + json.dumps(text).encode()
                + b', "meta": {"id": "'
                + doc_id.encode()
                + b'"}}\r\n'
            )
    return lines


@pytest.fixture
def cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def clusters_of(path: Path) -> list[list[str]]:
    return [json.loads(line)["ids"] for line in path.read_text(encoding="utf-8").splitlines()]


def ids_in(lines: list[bytes]) -> list[str]:
    return [json.loads(line)["meta"]["id"] for line in lines]


# ----- JSONL ---------------------------------------------------------------------------------


def test_keep_and_removed_out_split_the_jsonl_byte_for_byte_in_input_order(cwd, capsys):
    lines = jsonl_lines(corpus())
    (cwd / "c.jsonl").write_bytes(b"".join(lines))
    argv = ["dedup", "c.jsonl", "--id-field", "meta.id", "--out", "clusters.jsonl", "--quiet"]
    assert main([*argv, "--keep-out", "kept.jsonl", "--removed-out", "removed.jsonl"]) == 0
    kept = (cwd / "kept.jsonl").read_bytes().splitlines(keepends=True)
    removed = (cwd / "removed.jsonl").read_bytes().splitlines(keepends=True)
    assert set(ids_in(removed)) == DUPLICATES
    assert sorted(kept + removed) == sorted(lines)  # nothing lost, nothing added, every byte as read
    assert kept == [line for line in lines if line in kept]  # input order
    assert removed == [line for line in lines if line in removed]
    clusters = clusters_of(cwd / "clusters.jsonl")
    assert {"a0", "a0-near"} in [set(c) for c in clusters]  # the records' own ids, not c.jsonl:N
    assert len(kept) == len(clusters)


def test_round_trip_keep_out_then_dedup_finds_no_cluster(cwd):
    (cwd / "c.jsonl").write_bytes(b"".join(jsonl_lines(corpus())))
    first = run("dedup", "c.jsonl", "--id-field", "meta.id", "--keep-out", "kept.jsonl", cwd=cwd)
    assert first.returncode == 0, first.stderr
    assert "kept records written to kept.jsonl" in first.stdout
    again = run("dedup", "kept.jsonl", "--id-field", "meta.id", "--out", "again.jsonl", cwd=cwd)
    assert again.returncode == 0, again.stderr
    clusters = clusters_of(cwd / "again.jsonl")
    assert len(clusters) == 8 and all(len(c) == 1 for c in clusters)


def test_compressed_jsonl_in_and_out(cwd, capsys):
    lines = jsonl_lines(corpus())
    (cwd / "c.jsonl.gz").write_bytes(gzip.compress(b"".join(lines)))
    argv = ["dedup", "c.jsonl.gz", "--id-field", "meta.id", "--keep-out", "kept.jsonl.zst", "--quiet"]
    assert main(argv) == 0
    kept = zstandard.ZstdDecompressor().stream_reader((cwd / "kept.jsonl.zst").read_bytes()).read()
    assert set(ids_in(kept.splitlines())) == {doc_id for doc_id, _ in corpus()} - DUPLICATES
    assert all(line in lines for line in kept.splitlines(keepends=True))


def test_duplicate_and_missing_ids_are_problems_with_their_lines(cwd, capsys):
    rows = [("x", article(1)), ("y", article(2)), ("x", article(3)), ("", article(4))]
    lines = [json.dumps({"id": i, "text": t}) if i else json.dumps({"text": t}) for i, t in rows]
    (cwd / "c.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    argv = ["dedup", "c.jsonl", "--id-field", "id", "--out", "cl.jsonl", "--problems", "p.jsonl"]
    assert main([*argv, "--keep-out", "kept.jsonl"]) == 1  # done, with skipped inputs
    err = capsys.readouterr().err
    assert "c.jsonl:3: duplicate id: the id 'x' was given already to c.jsonl:1" in err
    assert "c.jsonl:4: missing id" in err
    problems = [json.loads(line) for line in (cwd / "p.jsonl").read_text().splitlines()]
    assert [(p["line"], p["reason"]) for p in problems] == [(3, "duplicate-id"), (4, "missing-id")]
    assert [i for c in clusters_of(cwd / "cl.jsonl") for i in c] == ["x", "y"]  # 2 documents + 2 problems = 4
    assert (cwd / "kept.jsonl").read_text().splitlines() == lines[:2]


# ----- CSV, Parquet, folders --------------------------------------------------------------


def test_csv_keep_out_has_the_header_and_the_rows(cwd, capsys):
    with open(cwd / "c.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["key", "text", "note"])
        writer.writerows(
            [doc_id, text, f"note, {n}\nsecond line"] for n, (doc_id, text) in enumerate(corpus())
        )
    argv = ["dedup", "c.csv", "--id-column", "key", "--keep-out", "kept.csv", "--removed-out", "removed.csv"]
    assert main([*argv, "--quiet"]) == 0
    with open(cwd / "c.csv", newline="", encoding="utf-8") as f:
        original = list(csv.reader(f))
    for name, expect in [("kept.csv", False), ("removed.csv", True)]:
        with open(cwd / name, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
        assert rows[0] == original[0]
        assert rows[1:] == [row for row in original[1:] if (row[0] in DUPLICATES) == expect]


def parquet_table(rows: list[tuple[str, str]]) -> pa.Table:
    return pa.table(
        {
            "doc_id": pa.array([i for i, _ in rows]),
            "text": pa.array([t for _, t in rows], pa.large_string()),
            "score": pa.array([float(n) / 3 for n in range(len(rows))]),
        }
    )


def test_parquet_keep_out_has_the_schema_and_the_rows(cwd, capsys):
    table = parquet_table(corpus())
    pq.write_table(table, cwd / "c.parquet", row_group_size=5)
    argv = ["dedup", "c.parquet", "--id-column", "doc_id", "--keep-out", "kept.parquet", "--quiet"]
    assert main([*argv, "--removed-out", "removed.parquet"]) == 0
    kept, removed = pq.read_table(cwd / "kept.parquet"), pq.read_table(cwd / "removed.parquet")
    assert kept.schema.equals(table.schema) and removed.schema.equals(table.schema)
    assert set(removed.column("doc_id").to_pylist()) == DUPLICATES
    wanted = [n for n, (i, _) in enumerate(corpus()) if i not in DUPLICATES]
    assert kept.equals(table.take(wanted))


def test_parquet_outputs_with_no_row_keep_the_schema_and_mixed_schemas_are_refused(cwd, capsys):
    pq.write_table(parquet_table(corpus()[:8]), cwd / "a.parquet")  # no duplicates inside
    assert main(["dedup", "a.parquet", "--removed-out", "removed.parquet", "--quiet"]) == 0
    removed = pq.read_table(cwd / "removed.parquet")
    assert removed.num_rows == 0 and removed.schema.equals(parquet_table(corpus()).schema)
    pq.write_table(pa.table({"text": [article(20)]}), cwd / "b.parquet")
    assert main(["dedup", "a.parquet", "b.parquet", "--keep-out", "kept.parquet", "--quiet"]) == 2
    assert "have different schemas" in capsys.readouterr().err
    assert not (cwd / "kept.parquet").exists()


def test_parquet_without_the_column_is_reported_and_the_run_goes_on(cwd):
    pq.write_table(parquet_table(corpus()), cwd / "good.parquet")
    pq.write_table(pa.table({"body": ["x", "y"]}), cwd / "other.parquet")
    result = run(
        "dedup", "good.parquet", "other.parquet", "--keep-out", "kept.parquet", "--out", "cl.jsonl", cwd=cwd
    )
    assert result.returncode == 1, result.stderr
    assert "skipped other.parquet: missing Parquet column: no column 'text' (columns: body)" in result.stderr
    assert "skipped inputs: 1 (missing Parquet column: 1)" in result.stdout
    assert sum(len(c) for c in clusters_of(cwd / "cl.jsonl")) == len(corpus())
    assert pq.read_table(cwd / "kept.parquet").num_rows == len(corpus()) - len(DUPLICATES)


def test_truncated_gz_is_reported_and_every_record_is_accounted_for(cwd):
    many = [(f"r{i}", make_article(seed=i, n_words=40)) for i in range(3000)]
    data = gzip.compress("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in many).encode())
    (cwd / "cut.jsonl.gz").write_bytes(data[: len(data) // 2])
    (cwd / "whole.jsonl").write_text(json.dumps({"id": "w", "text": article(1)}) + "\n", encoding="utf-8")
    inputs = ["cut.jsonl.gz", "whole.jsonl", "--id-field", "id"]
    result = run("dedup", *inputs, "--out", "cl.jsonl", "--problems", "p.jsonl", cwd=cwd)
    assert result.returncode == 1, result.stderr
    (problem,) = [json.loads(line) for line in (cwd / "p.jsonl").read_text().splitlines()]
    assert problem["reason"] == "damaged" and "cut off" in problem["message"]
    ids = [i for c in clusters_of(cwd / "cl.jsonl") for i in c]
    assert ids[-1] == "w" and ids[:-1] == [
        i for i, _ in many[: problem["line"] - 1]
    ]  # every line before the cut


def test_folder_of_txt_keep_out_is_a_list_of_paths(cwd, capsys):
    (cwd / "news").mkdir()
    names = [f"{n:02d}-{doc_id}.txt" for n, (doc_id, _) in enumerate(corpus())]  # read in corpus order
    for name, (_, text) in zip(names, corpus()):
        (cwd / "news" / name).write_text(text, encoding="utf-8")
    assert main(["dedup", "news", "--keep-out", "kept.list", "--removed-out", "removed.list", "--quiet"]) == 0
    removed = (cwd / "removed.list").read_text().splitlines()
    kept = (cwd / "kept.list").read_text().splitlines()
    assert removed == [f"news/{name}" for name in names if name[3:-4] in DUPLICATES]
    assert kept == sorted(kept) and len(kept) + len(removed) == len(corpus())
    assert all((cwd / p).is_file() for p in kept)


def test_index_add_new_out_is_the_batch_without_its_duplicates(cwd, capsys):
    day1 = [(f"d1-{i}", article(i)) for i in range(4)]
    day2 = [("d2-0", near(1)), ("d2-1", article(2).lower()), ("d2-2", article(10)), ("d2-3", near(10))]
    for name, rows in [("day1.jsonl", day1), ("day2.jsonl", day2)]:
        (cwd / name).write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in rows))
    assert main(["index", "build", "news.idx", "day1.jsonl", "--id-field", "id", "--quiet"]) == 0
    argv = ["index", "add", "news.idx", "day2.jsonl", "--id-field", "id", "--new-out", "new.jsonl", "--quiet"]
    assert main([*argv, "--out", "m.jsonl"]) == 0
    assert (cwd / "new.jsonl").read_text().splitlines() == (cwd / "day2.jsonl").read_text().splitlines()[2:3]
    matches = {
        json.loads(line)["id"]: json.loads(line)["status"]
        for line in (cwd / "m.jsonl").read_text().splitlines()
    }
    assert matches == {"d2-0": "duplicate", "d2-1": "duplicate", "d2-2": "new", "d2-3": "duplicate"}


# ----- what may not be written --------------------------------------------------------------


def test_new_out_may_not_land_in_the_index(cwd, capsys):
    (cwd / "day1.jsonl").write_text(json.dumps({"text": article(1)}) + "\n")
    (cwd / "day2.jsonl").write_text(json.dumps({"text": article(2)}) + "\n")
    assert main(["index", "build", "news.idx", "day1.jsonl", "--quiet"]) == 0
    before = sorted(p.name for p in (cwd / "news.idx").iterdir())
    assert main(["index", "add", "news.idx", "day2.jsonl", "--new-out", "news.idx/new.jsonl"]) == 2
    assert "--new-out news.idx/new.jsonl is inside the index folder" in capsys.readouterr().err
    assert sorted(p.name for p in (cwd / "news.idx").iterdir()) == before


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--keep-out", "c.jsonl"], "--keep-out c.jsonl is one of the inputs"),
        (
            ["--keep-out", "x.jsonl", "--removed-out", "x.jsonl"],
            "--keep-out and --removed-out name the same file",
        ),
        (["--keep-out", "x.jsonl", "--out", "x.jsonl"], "--out and --keep-out name the same file"),
        (["--keep-out", "kept.csv"], "names a csv file, but the inputs are jsonl"),
        (["d.csv", "--keep-out", "x.jsonl"], "the inputs mix csv and jsonl"),
        (["--id-column", "id"], "--id-column names a CSV or Parquet column, but no input is"),
    ],
)
def test_refused_outputs_exit_2_and_write_nothing(cwd, capsys, extra, message):
    (cwd / "c.jsonl").write_bytes(b"".join(jsonl_lines(corpus())))
    (cwd / "d.csv").write_text("text\nx\n")
    before = sorted(p.name for p in cwd.iterdir())
    assert main(["dedup", "c.jsonl", *extra, "--quiet"]) == 2
    assert message in capsys.readouterr().err
    assert sorted(p.name for p in cwd.iterdir()) == before


def test_an_input_changed_during_the_run_writes_nothing(cwd, capsys, monkeypatch):
    (cwd / "c.jsonl").write_bytes(b"".join(jsonl_lines(corpus())))
    import neardup_lab.cli.commands as commands

    real_dedup = commands.dedup

    def dedup_then_edit(*args, **kwargs):
        result = real_dedup(*args, **kwargs)
        (cwd / "c.jsonl").write_bytes(b"".join(jsonl_lines(corpus()[::-1])))
        return result

    monkeypatch.setattr(commands, "dedup", dedup_then_edit)
    argv = ["dedup", "c.jsonl", "--id-field", "meta.id", "--keep-out", "kept.jsonl", "--out", "cl.jsonl"]
    assert main(argv) == 2
    assert "c.jsonl changed while this run read it" in capsys.readouterr().err
    assert sorted(p.name for p in cwd.iterdir()) == ["c.jsonl"]  # neither output, nor a temporary file


def test_missing_zstandard_is_named_and_nothing_is_read(cwd, capsys, monkeypatch):
    (cwd / "c.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(b'{"text": "x"}\n'))
    monkeypatch.setitem(sys.modules, "zstandard", None)
    assert main(["dedup", "c.jsonl.zst", "--out", "cl.jsonl"]) == 2
    assert (
        "needs the zstandard package, which is not installed; pip install zstandard"
        in capsys.readouterr().err
    )
    assert not (cwd / "cl.jsonl").exists()


def test_help_lists_the_new_options():
    out = io.StringIO()
    sys_stdout, sys.stdout = sys.stdout, out
    try:
        main(["dedup", "--help"])
    finally:
        sys.stdout = sys_stdout
    for option in ("--id-field", "--id-column", "--keep-out", "--removed-out", ".parquet"):
        assert option in out.getvalue()
