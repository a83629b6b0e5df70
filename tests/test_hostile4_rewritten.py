"""A record rewritten between the read and the copy: ``--keep-out`` compares the whole record again
(the bytes of a JSONL line, every CSV field, every column of a Parquet row), not only its text, so
a record with the same text but another id or another field is refused and nothing is written."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path

import pytest

import neardup_lab.cli.commands as commands
from neardup_lab import make_article
from neardup_lab.cli.main import main

pytestmark = pytest.mark.native("runs the command line, which the page's Python does not")

TEXTS = [make_article(seed=n, n_words=40) for n in range(3)]


def _jsonl(path: Path, ids: list[str], note: str = "x") -> None:
    lines = [json.dumps({"id": i, "text": t, "note": note}) + "\n" for i, t in zip(ids, TEXTS)]
    path.write_text("".join(lines), encoding="utf-8")


def _csv(path: Path, ids: list[str], note: str = "x") -> None:
    with path.open("w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([["id", "text", "note"], *([i, t, note] for i, t in zip(ids, TEXTS))])


def _parquet(path: Path, ids: list[str], note: str = "x") -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    pq.write_table(pa.table({"id": ids, "text": TEXTS, "note": [note] * len(ids)}), path)


WRITERS: dict[str, Callable[..., None]] = {"jsonl": _jsonl, "csv": _csv, "parquet": _parquet}
IDS = ["a", "b", "c"]


def _run(tmp_path: Path, monkeypatch, kind: str, rewrite: Callable[[Path], None], *options: str) -> int:
    """Dedup ``in.<kind>`` with ``--keep-out``; ``rewrite`` changes the input after it was read."""
    monkeypatch.chdir(tmp_path)
    source = tmp_path / f"in.{kind}"
    WRITERS[kind](source, IDS)
    real = commands.dedup

    def dedup_then_rewrite(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 (dedup's own signature)
        result = real(*args, **kwargs)
        rewrite(source)
        return result

    monkeypatch.setattr(commands, "dedup", dedup_then_rewrite)
    return main(["dedup", source.name, *options, "--keep-out", f"kept.{kind}", "-q"])


@pytest.mark.parametrize("kind", ["jsonl", "csv", "parquet"])
def test_the_same_text_under_another_id_is_refused(tmp_path, monkeypatch, capsys, kind) -> None:
    id_option = "--id-field" if kind == "jsonl" else "--id-column"
    rewrite = lambda path: WRITERS[kind](path, ["a", "b", "z"])  # noqa: E731 (the third record's id)
    assert _run(tmp_path, monkeypatch, kind, rewrite, id_option, "id") == 2
    err = capsys.readouterr().err
    assert f"in.{kind} changed while this run read it" in err and "nothing was written" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"in.{kind}"]  # no output, no temporary file


@pytest.mark.parametrize("kind", ["jsonl", "csv", "parquet"])
def test_another_field_is_refused_even_without_own_ids(tmp_path, monkeypatch, capsys, kind) -> None:
    rewrite = lambda path: WRITERS[kind](path, IDS, note="changed")  # noqa: E731 (every text as read)
    assert _run(tmp_path, monkeypatch, kind, rewrite) == 2
    assert f"in.{kind} changed while this run read it" in capsys.readouterr().err
    assert not (tmp_path / f"kept.{kind}").exists()


@pytest.mark.parametrize("kind", ["jsonl", "csv", "parquet"])
def test_a_record_written_again_unchanged_is_copied(tmp_path, monkeypatch, capsys, kind) -> None:
    rewrite = lambda path: WRITERS[kind](path, IDS)  # noqa: E731 (the same records, written anew)
    id_option = "--id-field" if kind == "jsonl" else "--id-column"
    assert _run(tmp_path, monkeypatch, kind, rewrite, id_option, "id") == 0, capsys.readouterr().err
    kept = tmp_path / f"kept.{kind}"
    if kind == "parquet":
        pq = pytest.importorskip("pyarrow.parquet")
        assert pq.read_table(kept).equals(pq.read_table(tmp_path / "in.parquet"))
    elif kind == "csv":  # every record kept, each as read (lines end in \n, not csv's \r\n)
        assert kept.read_bytes() == (tmp_path / "in.csv").read_bytes().replace(b"\r\n", b"\n")
    else:
        assert kept.read_bytes() == (tmp_path / "in.jsonl").read_bytes()
