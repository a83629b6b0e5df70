"""``neardup-lab explain`` and ``dedup --why``.

Most tests run ``neardup_lab.cli.main.main`` in-process with the ``explain`` subcommand
added by :func:`neardup_lab.cli.explain.add_explain_command` (a no-op once cli.py
registers it itself). The tests named ``test_after_wiring_*`` run the installed
command in a subprocess, as a user would; they need ``explain`` and ``--why`` wired
into cli.py, commands.py and outputs.py.
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

import pytest
from cli_run import run

from neardup_lab import make_article, replace_words
from neardup_lab.cli import main as cli_module
from neardup_lab.cli.console import Console
from neardup_lab.cli.explain import WHY_COLUMNS, add_explain_command, why_fields, why_summary
from neardup_lab.engine.explain import explain, ties
from neardup_lab.engine.pipeline import dedup
from neardup_lab.settings import Settings
from neardup_lab.text import jaccard, word_shingles

ARTICLE = make_article(seed=11, n_words=80)
NEAR = replace_words(ARTICLE, 2, seed=11)


@pytest.fixture
def neardup(monkeypatch, capsys):
    """Run ``neardup-lab ARGS`` in-process; return (exit code, stdout, stderr)."""
    original = cli_module.build_parser

    def build_parser() -> argparse.ArgumentParser:
        parser = original()
        commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        if "explain" not in commands.choices:
            add_explain_command(commands)
        return parser

    monkeypatch.setattr(cli_module, "build_parser", build_parser)

    def neardup_lab(*argv: str) -> tuple[int, str, str]:
        code = cli_module.main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return neardup_lab


@pytest.fixture
def pair(tmp_path) -> Path:
    (tmp_path / "a.txt").write_text(ARTICLE, encoding="utf-8")
    (tmp_path / "b.txt").write_text(NEAR, encoding="utf-8")
    return tmp_path


# ----- neardup-lab explain ---------------------------------------------------------------


def test_two_files_print_the_evidence_of_explain(neardup, pair):
    code, out, err = neardup("explain", str(pair / "a.txt"), str(pair / "b.txt"))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"a: {(pair / 'a.txt').as_posix()}" and lines[1] == f"b: {(pair / 'b.txt').as_posix()}"
    assert lines[2:] == explain(ARTICLE, NEAR).lines()


def test_two_texts_and_the_settings_options(neardup):
    code, out, _ = neardup(
        "explain", "--text", "A b, c d.", "--text", "a B c e", "-k", "1", "--threshold", "0.6"
    )
    assert code == 0
    assert "exact Jaccard:    3 / 5 = 0.6000 (threshold 0.6)" in out
    assert out.splitlines()[2:] == explain("A b, c d.", "a B c e", Settings(k=1, threshold=0.6)).lines()
    assert out.splitlines()[0] == "a: --text 'A b, c d.'"


@pytest.mark.parametrize(
    "options, expected",
    [
        (["--bands", "4", "--rows", "8"], Settings(bands=4, rows=8)),
        (["--num-perm", "64", "--seed", "3"], Settings(num_perm=64, seed=3)),
        (["--shingle", "char", "-k", "4"], Settings(shingle="char", k=4)),
        (["--scheme", "mod-prime"], Settings(scheme="mod-prime")),
    ],
)
def test_every_settings_option_reaches_explain(neardup, options, expected):
    code, out, _ = neardup("explain", "--text", ARTICLE, "--text", NEAR, *options)
    assert code == 0
    assert out.splitlines()[2:] == explain(ARTICLE, NEAR, expected).lines()


def test_shared_sets_how_many_shingles_are_listed(neardup):
    _, none, _ = neardup("explain", "--text", ARTICLE, "--text", NEAR, "--shared", "0")
    _, three, _ = neardup("explain", "--text", ARTICLE, "--text", NEAR, "--shared", "3")
    assert "shared shingles" not in none
    shown = explain(ARTICLE, NEAR).shared[:3]
    assert three.splitlines()[-3:] == [f"  {s!r}" for s in shown]


def test_files_are_read_with_the_encoding_given(neardup, tmp_path):
    (tmp_path / "a.txt").write_bytes("café au lait".encode("latin-1"))
    (tmp_path / "b.txt").write_bytes("CAFÉ au lait".encode("latin-1"))
    code, out, _ = neardup(
        "explain", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"), "--encoding", "latin-1"
    )
    assert code == 0 and "exact copies" in out
    code, _, err = neardup("explain", str(tmp_path / "a.txt"), str(tmp_path / "b.txt"))
    assert code == 2 and "undecodable" in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--text", "a"], "give two files, or --text twice; got 1 --text"),
        (["x.txt"], "give two files, or --text twice; got 1 file"),
        (["--text", "a", "--text", "b", "--text", "c"], "got 3 --text"),
        (["a.txt", "--text", "b"], "not a mix of both"),
        ([], "got 0 --text"),
        (["--text", "a", "--text", "b", "--threshold", "2"], "threshold must be in (0, 1], got 2"),
        (["--text", "a", "--text", "b", "--bands", "4"], "give both bands and rows"),
        (["--text", "a", "--text", "b", "--bands", "20", "--rows", "7"], "exceeds num_perm = 128"),
        (["--text", "a", "--text", "b", "--shared", "-1"], "--shared must be 0 or more"),
    ],
)
def test_usage_errors_exit_2_and_say_what_to_do(neardup, argv, message):
    code, out, err = neardup("explain", *argv)
    assert code == 2 and out == ""
    assert message in err


def test_argument_type_errors_exit_2(neardup):
    code, _, err = neardup("explain", "--text", "a", "--text", "b", "--threshold", "high")
    assert code == 2 and "expected a number, got 'high'" in err


def test_file_problems_exit_2_naming_the_file(neardup, tmp_path):
    (tmp_path / "a.txt").write_text("heavy rain", encoding="utf-8")
    (tmp_path / "nul.txt").write_bytes(b"heavy\x00rain")
    (tmp_path / "big.txt").write_text("heavy rain " * 10, encoding="utf-8")
    (tmp_path / "folder").mkdir()
    a = str(tmp_path / "a.txt")
    cases = [
        ([a, str(tmp_path / "missing.txt")], "missing.txt"),
        ([a, str(tmp_path / "nul.txt")], "binary file"),
        ([a, str(tmp_path / "big.txt"), "--max-bytes", "50"], "document too large"),
        ([a, str(tmp_path / "folder")], "is a folder; explain compares two files"),
    ]
    for argv, message in cases:
        code, out, err = neardup("explain", *argv)
        assert code == 2 and out == "", argv
        assert message in err, (argv, err)


def test_the_same_file_twice_is_an_exact_copy(neardup, pair):
    code, out, _ = neardup("explain", str(pair / "a.txt"), str(pair / "a.txt"))
    assert code == 0 and "exact copies" in out


def test_help_lists_the_settings_and_the_inputs(neardup):
    code, out, _ = neardup("explain", "--help")
    assert code == 0
    for option in ("--text", "--threshold", "--shingle-size", "--bands", "--rows", "--num-perm", "--shared"):
        assert option in out


# ----- the data of dedup --why -------------------------------------------------------------

_WORDS = [f"w{i}" for i in range(10)]
A = " ".join(_WORDS)
B = " ".join(_WORDS[:9] + ["x"])  # A ~ B
C = " ".join(_WORDS[:8] + ["y", "x"])  # B ~ C, but A and C differ in two words of ten
CHAIN = ["-k", "1", "--threshold", "0.75", "--bands", "128", "--rows", "1"]
CHAIN_SETTINGS = {"k": 1, "threshold": 0.75, "bands": 128, "rows": 1}


def one_word_jaccard(x: str, y: str) -> float:
    return jaccard(word_shingles(x, 1), word_shingles(y, 1))


def test_why_fields_show_the_chain():
    docs = [A, B, C, B.upper(), "something else entirely"]
    ids = ["a", "b", "c", "b-upper", "other"]
    result = dedup(docs, **CHAIN_SETTINGS)
    assert result.clusters[0] == [0, 1, 2, 3]
    why = why_fields(result, docs, ids)
    assert sorted(why) == result.removed == [1, 2, 3]
    assert all(tuple(fields) == WHY_COLUMNS for fields in why.values())
    assert why[1] == {
        "tied_to": "a",
        "tied_to_index": 0,
        "jaccard": round(one_word_jaccard(A, B), 6),
        "exact": False,
        "steps": 1,
    }
    assert why[2]["tied_to"] == "b" and why[2]["steps"] == 2
    assert why[2]["jaccard"] == round(one_word_jaccard(B, C), 6)
    assert why[3] == {"tied_to": "b", "tied_to_index": 1, "jaccard": 1.0, "exact": True, "steps": 2}
    assert one_word_jaccard(A, C) < 0.75  # the chain joins what no single pair would


def test_why_fields_match_ties():
    docs = [A, B, C]
    result = dedup(docs, **CHAIN_SETTINGS)
    why = why_fields(result, docs, ["a", "b", "c"])
    for tie in ties(result, docs):
        assert why[tie.document]["tied_to_index"] == tie.neighbour
        assert why[tie.document]["jaccard"] == pytest.approx(tie.jaccard, abs=1e-6)


def test_why_fields_need_one_id_per_document():
    with pytest.raises(ValueError, match="got 1 ids for 2 documents"):
        why_fields(dedup([A, B]), [A, B], ["a"])


def test_why_summary_lists_the_first_and_counts_the_rest(capsys):
    docs = [A] + [f"{A} extra{i}" for i in range(25)]
    result = dedup(docs, **CHAIN_SETTINGS)
    why = why_fields(result, docs, [f"d{i}" for i in range(len(docs))])
    assert len(why) == 25
    why_summary(Console(quiet=False), why, [f"d{i}" for i in range(len(docs))])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("why removed")
    assert len(lines) == 1 + 20 + 1 and lines[-1] == "  ... and 5 more; --out PATH writes them all"
    why_summary(Console(quiet=True), why, [f"d{i}" for i in range(len(docs))])
    assert capsys.readouterr().out == ""


# ----- through the installed command, once explain and --why are wired into cli.py -----------


def _chain_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in [("a", A), ("b", B), ("c", C), ("d", "an unrelated note about the weather")]:
        (folder / f"{name}.txt").write_text(text, encoding="utf-8")
    return folder


def test_after_wiring_explain_runs_from_the_command_line(pair):
    done = run("explain", "a.txt", "b.txt", "--threshold", "0.7", cwd=pair)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "a: a.txt",
        "b: b.txt",
        *explain(ARTICLE, NEAR, Settings(threshold=0.7)).lines(),
    ]
    assert "explain" in run("--help", cwd=pair).stdout


def test_after_wiring_dedup_why_writes_the_chain_to_jsonl(tmp_path):
    _chain_folder(tmp_path)
    done = run("dedup", "docs", "--why", "--out", "clusters.jsonl", *CHAIN, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in (tmp_path / "clusters.jsonl").read_text().splitlines()]
    chain = next(r for r in records if r["size"] == 3)
    assert chain["keeper"] == "docs/a.txt"
    assert chain["why"] == [
        {"id": "docs/b.txt", "tied_to": "docs/a.txt", "tied_to_index": 0,
         "jaccard": round(one_word_jaccard(A, B), 6), "exact": False, "steps": 1},
        {"id": "docs/c.txt", "tied_to": "docs/b.txt", "tied_to_index": 1,
         "jaccard": round(one_word_jaccard(B, C), 6), "exact": False, "steps": 2},
    ]  # fmt: skip
    assert next(r for r in records if r["size"] == 1)["why"] == []
    assert "docs/c.txt ~ docs/b.txt (Jaccard 0.818), 2 pairs from its keeper" in done.stdout


def test_after_wiring_dedup_why_adds_columns_to_csv(tmp_path):
    _chain_folder(tmp_path)
    done = run("dedup", "docs", "--why", "--out", "clusters.csv", *CHAIN, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with open(tmp_path / "clusters.csv", newline="", encoding="utf-8") as f:
        rows = {row["id"]: row for row in csv.DictReader(f)}
    assert list(next(iter(rows.values()))) == ["cluster", "size", "index", "id", "keep", *WHY_COLUMNS]
    assert rows["docs/c.txt"]["tied_to"] == "docs/b.txt" and rows["docs/c.txt"]["steps"] == "2"
    assert float(rows["docs/b.txt"]["jaccard"]) == round(one_word_jaccard(A, B), 6)
    assert all(rows["docs/a.txt"][column] == "" for column in WHY_COLUMNS)  # the keeper


def test_after_wiring_dedup_without_why_is_unchanged(tmp_path):
    _chain_folder(tmp_path)
    done = run("dedup", "docs", "--out", "clusters.jsonl", *CHAIN, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in (tmp_path / "clusters.jsonl").read_text().splitlines()]
    assert all("why" not in r for r in records)
    assert "why removed" not in done.stdout
