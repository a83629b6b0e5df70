"""Parquet columns: one column may give both the ids and the texts, as in CSV and JSONL; a file
with two columns of the name asked for is refused with a reason, never read from either."""

from pathlib import Path

import pytest
from cli_run import run

from neardup_lab import make_article

pa = pytest.importorskip("pyarrow", reason="Parquet needs pyarrow (pip install 'neardup-lab[formats]')")
pq = pytest.importorskip("pyarrow.parquet")

TEXTS = [make_article(seed=n, n_words=30) for n in range(3)]


def test_one_column_for_ids_and_texts(tmp_path: Path) -> None:
    pq.write_table(pa.table({"text": TEXTS}), tmp_path / "a.parquet")
    options = ["--column", "text", "--id-column", "text", "--keep-out", "k.parquet"]
    done = run("dedup", "a.parquet", *options, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert pq.read_table(tmp_path / "k.parquet").column("text").to_pylist() == TEXTS


def test_two_columns_of_one_name_are_refused(tmp_path: Path) -> None:
    table = pa.Table.from_arrays([pa.array(["x", "y", "z"]), pa.array(TEXTS)], names=["text", "text"])
    pq.write_table(table, tmp_path / "b.parquet")
    done = run("dedup", "b.parquet", "--column", "text", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "skipped b.parquet: Parquet column named twice" in done.stderr
