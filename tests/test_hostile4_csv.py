"""CSV outputs keep every record whole: a field holding a carriage return, a line feed, the delimiter
or a quote is quoted, so each byte value from 1 to 127, in ids and in texts, comes back from
``--keep-out`` and ``--out`` as it went in."""

import csv
from pathlib import Path

import pytest
from cli_run import run

from neardup_lab import make_article

pytestmark = pytest.mark.native("runs the command line in processes")


def _rows() -> list[list[str]]:
    return [[f"id{n}{chr(n)}end", f"{make_article(seed=n, n_words=30)} {chr(n)} tail"] for n in range(1, 128)]


def _read(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.reader(f))


def test_every_byte_value_round_trips_through_the_csv_outputs(tmp_path: Path) -> None:
    rows = _rows()
    with (tmp_path / "in.csv").open("w", encoding="utf-8", newline="") as f:
        csv.writer(f, lineterminator="\r\n").writerows([["id", "text"], *rows])
    done = run(
        "dedup", "in.csv", "--column", "text", "--id-column", "id",
        "--keep-out", "kept.csv", "--out", "clusters.csv", cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert _read(tmp_path / "kept.csv") == [["id", "text"], *rows]  # every row whole, in order
    clusters = _read(tmp_path / "clusters.csv")
    column = clusters[0].index("id")
    assert sorted(row[column] for row in clusters[1:]) == sorted(row[0] for row in rows)


@pytest.mark.parametrize(
    ("source", "out", "delimiter"), [("in.csv", "kept.tsv", "\t"), ("in.tsv", "kept.csv", ",")]
)
def test_the_output_delimiter_follows_the_output_name(
    tmp_path: Path, source: str, out: str, delimiter: str
) -> None:
    rows = [["id", "text"], *([f"d{n}", make_article(seed=n, n_words=30)] for n in range(3))]
    with (tmp_path / source).open("w", encoding="utf-8", newline="") as f:
        csv.writer(f, delimiter="\t" if source.endswith(".tsv") else ",").writerows(rows)
    done = run("dedup", source, "--column", "text", "--id-column", "id", "--keep-out", out, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with (tmp_path / out).open(encoding="utf-8", newline="") as f:
        assert list(csv.reader(f, delimiter=delimiter)) == rows
