"""The neardup-lab command, end to end: run as a subprocess on real files in a temporary folder."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from cli_run import run

from neardup_lab import make_article, replace_words
from neardup_lab.cli.main import main
from neardup_lab.index.store import SavedIndex

TIMING = re.compile(r"^time: (\w+ \d+\.\d\d s)(, \w+ \d+\.\d\d s)*$", re.MULTILINE)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def article(i: int) -> str:
    return make_article(seed=500 + i, n_words=80)


def near(i: int) -> str:
    return replace_words(article(i), 1, seed=i)


def jsonl(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def member_sets(clusters: list[dict]) -> set[frozenset]:
    return {frozenset(c["ids"]) for c in clusters}


@pytest.fixture
def news(tmp_path) -> Path:
    """A folder of .txt files: 6 articles, an exact copy (case and spacing) and a near copy."""
    folder = tmp_path / "news"
    folder.mkdir()
    for i in range(6):
        (folder / f"a{i}.txt").write_text(article(i), encoding="utf-8")
    (folder / "a0_copy.txt").write_text("  " + article(0).upper() + "\n", encoding="utf-8")
    (folder / "a1_near.txt").write_text(near(1), encoding="utf-8")
    return tmp_path


@pytest.fixture
def days(tmp_path, monkeypatch) -> Path:
    """Two daily batches as JSONL.

    Day 2 has a near copy and an exact copy of day 1, and a near copy inside itself.
    The working folder is changed to hold them, so in-process runs use the same
    relative paths (and therefore the same document ids) as the subprocesses.
    """
    monkeypatch.chdir(tmp_path)
    jsonl(tmp_path / "day1.jsonl", [{"text": article(i), "n": i} for i in range(4)])
    jsonl(
        tmp_path / "day2.jsonl",
        [
            {"text": near(1)},  # line 1: near copy of day1.jsonl:2
            {"text": article(2).upper()},  # line 2: exact copy of day1.jsonl:3
            {"text": article(10)},  # line 3: new
            {"text": near(10)},  # line 4: near copy of line 3, same batch
        ],
    )
    return tmp_path


# ----- dedup, one input kind at a time ------------------------------------------------------


def test_dedup_folder_of_txt(news):
    result = run("dedup", "news", "--out", "clusters.jsonl", cwd=news)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    clusters = read_jsonl(news / "clusters.jsonl")
    ids = [i for c in clusters for i in c["ids"]]
    assert sorted(ids) == sorted(f"news/{p.name}" for p in (news / "news").iterdir())  # each exactly once
    multi = {c for c in member_sets(clusters) if len(c) > 1}
    assert multi == {
        frozenset({"news/a0.txt", "news/a0_copy.txt"}),
        frozenset({"news/a1.txt", "news/a1_near.txt"}),
    }
    for c in clusters:
        assert c["keeper"] == c["ids"][0] and c["indices"] == sorted(c["indices"])
    out = result.stdout
    for line in [
        "documents read: 8 (from 1 input)",
        "skipped inputs: 0",
        "exact copies: 1",
        "clusters: 6 (2 with more than one document)",
        "kept: 6 (policy: first)",
        "removed: 2",
    ]:
        assert line in out
    assert TIMING.search(out), out  # every timing is "name 0.00 s", the form the notebook sanitizer masks


def test_dedup_jsonl_with_field_to_csv(days):
    jsonl(days / "body.jsonl", [{"body": article(1)}, {"body": near(1)}, {"body": article(3)}])
    result = run("dedup", "body.jsonl", "--field", "body", "--out", "clusters.csv", cwd=days)
    assert result.returncode == 0, result.stderr
    with open(days / "clusters.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [(r["id"], r["cluster"], r["keep"]) for r in rows] == [
        ("body.jsonl:1", "0", "True"),
        ("body.jsonl:2", "0", "False"),
        ("body.jsonl:3", "1", "True"),
    ]


def test_dedup_csv_with_column_and_longest_keeper(tmp_path):
    with open(tmp_path / "posts.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "body"])
        writer.writerow([1, article(4)])  # three lines long (a title and two paragraphs)
        writer.writerow([2, article(4) + " And one more sentence at the end."])
        writer.writerow([3, article(5)])
    result = run(
        "dedup", "posts.csv", "--column", "body", "--keep", "longest", "--out", "c.jsonl", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    clusters = read_jsonl(tmp_path / "c.jsonl")
    lines = article(4).count("\n") + 1
    second, third = (
        f"posts.csv:{2 + lines}",
        f"posts.csv:{2 + 2 * lines}",
    )  # ids name the first line of a record
    assert [c["ids"] for c in clusters] == [["posts.csv:2", second], [third]]
    assert clusters[0]["keeper"] == second
    assert "kept: 2 (policy: longest)" in result.stdout


def test_console_script_and_module_agree(monkeypatch, capsys):
    script = Path(sys.executable).with_name("neardup-lab")
    assert script.exists(), "the console script is not installed next to this Python; run `make test`"
    by_script = subprocess.run(
        [str(script), "--help"], capture_output=True, text=True, env={**os.environ, "COLUMNS": "100"}
    )
    monkeypatch.setenv("COLUMNS", "100")
    assert by_script.returncode == main(["--help"]) == 0
    help_text = capsys.readouterr().out
    assert by_script.stdout == help_text
    assert "examples:" in help_text and "neardup-lab index build" in help_text and "exit codes" in help_text


# ----- bad inputs -----------------------------------------------------------------------------


def test_bad_inputs_are_reported_counted_and_never_dropped(tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "good.txt").write_text(article(0), encoding="utf-8")
    (bad / "empty.txt").write_text("", encoding="utf-8")
    (bad / "blank.txt").write_text("  \n ... \n", encoding="utf-8")
    (bad / "binary.txt").write_bytes(b"GIF89a\x01\x00\x00\x00" + bytes(range(256)))
    (bad / "latin.txt").write_bytes("first line\ncaf\xe9\n".encode("latin-1"))
    with open(bad / "huge.txt", "wb") as f:  # a 50 MB document of real words
        f.write(b"heavy rain in the city again " * (50_000_000 // 29 + 1))
    os.symlink(tmp_path / "nowhere.txt", bad / "gone.txt")
    (bad / "notes.md").write_text("not a .txt file")
    jsonl(tmp_path / "x.jsonl", [{"text": article(1)}, {"title": "no text"}, {"text": 7}])
    (tmp_path / "y.csv").write_text("id,body\n1,hello\n", encoding="utf-8")

    result = run(
        "dedup", "bad", "x.jsonl", "y.csv", "--out", "c.jsonl", "--problems", "p.jsonl", cwd=tmp_path
    )

    assert result.returncode == 1, result.stderr
    err = result.stderr
    for where, label in [
        ("bad/binary.txt", "binary file"),
        ("bad/gone.txt", "link not followed"),
        ("bad/huge.txt", "document too large"),
        ("bad/latin.txt:2", "undecodable bytes"),
        ("x.jsonl:2", "missing JSON field"),
        ("x.jsonl:3", "field is not a string"),
        ("y.csv:1", "missing CSV column"),
    ]:
        assert f"neardup-lab: skipped {where}: {label}" in err, (where, err)
    assert "--max-bytes" in err and "--column" in err and "--field" in err
    problems = read_jsonl(tmp_path / "p.jsonl")
    assert len(problems) == 7 and {p["reason"] for p in problems} >= {"too-large", "binary", "link"}
    out = result.stdout
    assert "documents read: 4 (from 3 inputs)" in out
    assert "empty after normalisation: 2" in out
    for where in ("bad/blank.txt", "bad/empty.txt"):  # a problem line each, on standard error
        assert f"neardup-lab: {where}: no words after normalisation; kept" in err, err
    assert re.search(r"skipped inputs: 7 \(.*binary file: 1.*document too large: 1.*\)", out)
    assert "files in folders not ending in .txt, passed over: 1" in out
    clusters = read_jsonl(tmp_path / "c.jsonl")
    assert member_sets(clusters) == {
        frozenset({"bad/good.txt"}),
        frozenset({"bad/blank.txt"}),  # a text with no words is kept on its own: nobody's copy
        frozenset({"bad/empty.txt"}),
        frozenset({"x.jsonl:1"}),
    }


def test_raising_the_size_limit_lets_a_large_document_in(tmp_path, capsys):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "big.txt").write_text("heavy rain in the city " * 5000, encoding="utf-8")
    assert main(["dedup", str(tmp_path / "d"), "--max-bytes", "100k"]) == 1
    assert "115000 bytes is over the limit of 100000" in capsys.readouterr().err
    assert main(["dedup", str(tmp_path / "d"), "--max-bytes", "0", "--quiet"]) == 0


def test_missing_input_is_fatal_and_writes_nothing(news):
    result = run("dedup", "news", "nope.jsonl", "--out", "c.jsonl", cwd=news)
    assert result.returncode == 2
    assert result.stderr.strip() == "neardup-lab: error: no such file or folder: nope.jsonl"
    assert not (news / "c.jsonl").exists()


def test_usage_errors_exit_2(news, capsys):
    result = run("dedup", "news", "--threshold", "1.5", cwd=news)
    assert result.returncode == 2 and "must be in (0, 1]" in result.stderr
    assert "usage: neardup-lab dedup" in result.stderr
    assert main(["dedup"]) == 2 and "the following arguments are required" in capsys.readouterr().err
    assert main([]) == 2 and "usage: neardup-lab" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["dedup", "news", "--bands", "4"], "give both bands and rows"),
        (["dedup", "news", "--bands", "20", "--rows", "20"], "exceeds num_perm"),
        (["dedup", "news", "--out", "clusters.txt"], "end it in .jsonl or .csv"),
        (["dedup", "news/a0.txt", "--out", "news/a0.txt", "--out-format", "csv"], "is one of the inputs"),
        (["dedup", "news", "--out", "news/out.txt", "--out-format", "csv"], "inside an input folder"),
        (["dedup", "news", "--out", "missing/c.jsonl"], "does not exist"),
        (["dedup", "data.json"], "cannot tell the format"),
        (["dedup", "news", "news/"], "given twice"),
        (["dedup", "news", "--encoding", "utf-16"], "ASCII-compatible"),
        (["dedup", "news", "--max-bytes", "lots"], "number of bytes"),
        (["dedup", "news", "--scheme", "small-affine"], "invalid choice"),
        (["index", "add", "no-index", "news"], "no index at no-index"),
        (["index", "info", "news"], "no index.json"),
    ],
)
def test_more_usage_errors_in_process(news, monkeypatch, capsys, args, message):
    monkeypatch.chdir(news)
    (news / "data.json").write_text("[]")
    before = snapshot(news)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err
    assert snapshot(news) == before


def test_output_may_sit_in_an_input_folder_when_it_is_not_a_document(news, monkeypatch):
    monkeypatch.chdir(news / "news")
    assert main(["dedup", ".", "--out", "clusters.jsonl", "-q"]) == 0
    assert main(["dedup", ".", "--out", "clusters.jsonl", "-q"]) == 0  # and a second run does not read it
    assert len(read_jsonl(news / "news" / "clusters.jsonl")) == 6


@pytest.mark.skipif(sys.platform == "win32", reason="needs symbolic links")
def test_output_may_not_be_a_file_read_through_a_folder_link(tmp_path, monkeypatch, capsys):
    (tmp_path / "g").mkdir()
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "o.txt").write_text(article(1), encoding="utf-8")
    os.symlink("../other", tmp_path / "g" / "linked")
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path)
    for follow in ([], ["--follow-links"]):  # read or not, a later run might read it
        assert main(["dedup", "g", *follow, "--out", "g/linked/o.txt", "--out-format", "jsonl"]) == 2
        assert "is a .txt file inside an input folder" in capsys.readouterr().err
    assert snapshot(tmp_path) == before


def test_quiet_and_explain(news, monkeypatch, capsys):
    (news / "news" / "bin.txt").write_bytes(b"\x00\x01")
    quiet = run("dedup", "news", "--quiet", cwd=news)
    assert quiet.returncode == 1 and quiet.stdout == ""
    assert "skipped news/bin.txt: binary file" in quiet.stderr  # problems are never silenced
    monkeypatch.chdir(news)
    assert main(["dedup", "news", "--explain", "--threshold", "0.7"]) == 1
    out = capsys.readouterr().out
    assert "banding: " in out and "chosen by optimal_params for threshold 0.7" in out
    assert re.search(r"^  0\.70: \d\.\d{4}  <- threshold$", out, re.MULTILINE)
    assert out.count("\n  0.") == 6


def test_unexpected_failures_still_exit_2(news, monkeypatch, capsys):
    import neardup_lab.cli.commands as commands

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(commands, "dedup", broken)
    assert main(["dedup", str(news / "news")]) == 2
    assert "internal error: RuntimeError: boom" in capsys.readouterr().err

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(commands, "dedup", interrupted)
    assert main(["dedup", str(news / "news"), "--out", str(news / "c.jsonl")]) == 2
    assert not (news / "c.jsonl").exists()


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_progress_bars_only_on_a_terminal(news):
    import fcntl
    import pty
    import struct
    import termios

    def stderr_of(*args: str) -> str:
        leader, follower = pty.openpty()
        # A new pseudo-terminal is 0 columns wide, and tqdm would draw an empty bar in it.
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
        env = dict(os.environ)
        proc = subprocess.Popen(
            [sys.executable, "-m", "neardup_lab", *args],
            cwd=news,
            stdout=subprocess.DEVNULL,
            stderr=follower,
            env=env,
        )
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        proc.wait(timeout=300)
        os.close(leader)
        return b"".join(chunks).decode("utf-8", "replace")

    assert "reading" in stderr_of("dedup", "news")
    assert stderr_of("dedup", "news", "--quiet") == ""
    # With a pipe instead of a terminal there are no bars: see test_dedup_folder_of_txt.


# ----- the saved index -------------------------------------------------------------------


def test_index_build_add_query(days, capsys):
    assert main(["index", "build", "idx", "day1.jsonl"]) == 0
    assert "index created: idx with 4 documents" in capsys.readouterr().out

    added = run("index", "add", "idx", "day2.jsonl", "--out", "m.jsonl", cwd=days)
    assert added.returncode == 0, added.stderr
    records = read_jsonl(days / "m.jsonl")
    summary = [
        (r["id"], r["status"], [(m["id"], m["in"], m["exact"]) for m in r["matches"]]) for r in records
    ]
    assert summary == [
        ("day2.jsonl:1", "duplicate", [("day1.jsonl:2", "index", False)]),
        ("day2.jsonl:2", "duplicate", [("day1.jsonl:3", "index", True)]),
        ("day2.jsonl:3", "new", []),
        ("day2.jsonl:4", "duplicate", [("day2.jsonl:3", "batch", False)]),
    ]
    out = added.stdout
    assert "index updated: idx, 4 -> 8 documents" in out
    assert "duplicates of indexed documents: 2 (1 exact copy)" in out
    assert "duplicates of earlier documents in this batch only: 1" in out
    assert "  day2.jsonl:2 duplicates day1.jsonl:3 (exact copy)" in out
    assert re.search(r"  day2\.jsonl:4 duplicates day2\.jsonl:3 \(Jaccard 0\.\d{3}, same batch\)", out)
    assert SavedIndex.open(days / "idx").ids[-1] == "day2.jsonl:4"

    before = snapshot(days / "idx")
    (days / "draft.txt").write_text(near(10), encoding="utf-8")
    assert main(["index", "query", "idx", "draft.txt", "--out", "q.csv"]) == 0
    assert "not changed" in capsys.readouterr().out and snapshot(days / "idx") == before
    with open(days / "q.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert {r["match_id"] for r in rows} >= {"day2.jsonl:3"}

    assert main(["index", "info", "idx"]) == 0
    assert "documents: 8 (7 distinct texts)" in capsys.readouterr().out


def test_adding_the_same_batch_twice_is_refused(days):
    assert main(["index", "build", "idx", "day1.jsonl", "-q"]) == 0
    before = snapshot(days / "idx")
    again = run("index", "add", "idx", "day1.jsonl", cwd=days)
    assert again.returncode == 2
    assert "already in the index" in again.stderr and "--id-prefix" in again.stderr
    assert snapshot(days / "idx") == before
    assert main(["index", "add", "idx", "day1.jsonl", "--id-prefix", "rerun/", "--out", "m.jsonl", "-q"]) == 0
    assert all(
        r["status"] == "duplicate" and r["id"].startswith("rerun/") for r in read_jsonl(days / "m.jsonl")
    )


def test_build_refuses_an_existing_path(days, capsys):
    (days / "idx").mkdir()
    assert main(["index", "build", "idx", "day1.jsonl"]) == 2
    assert "already exists" in capsys.readouterr().err
    assert list((days / "idx").iterdir()) == []


def test_mismatched_settings_are_refused_and_nothing_changes(days):
    assert main(["index", "build", "idx", "day1.jsonl", "-q"]) == 0
    before = snapshot(days / "idx")
    result = run("index", "add", "idx", "day2.jsonl", "--num-perm", "64", "--shingle", "char", cwd=days)
    assert result.returncode == 2
    err = result.stderr
    assert err.startswith("neardup-lab: error: the index idx was built with other settings")
    assert "num_perm: index has 128, this run asks for 64" in err and "shingle: index has 'word'" in err
    assert snapshot(days / "idx") == before
    assert main(["index", "add", "idx", "day2.jsonl", "--num-perm", "128", "-q"]) == 0  # equal is fine


def test_corrupt_index_is_refused_and_nothing_changes(days, capsys):
    assert main(["index", "build", "idx", "day1.jsonl", "-q"]) == 0
    meta = days / "idx" / "index.json"
    good = meta.read_bytes()
    meta.write_bytes(good[: len(good) // 2])
    before = snapshot(days / "idx")
    result = run("index", "add", "idx", "day2.jsonl", cwd=days)
    assert result.returncode == 2 and "not valid JSON" in result.stderr and "damaged" in result.stderr
    assert snapshot(days / "idx") == before

    meta.write_bytes(good)
    data = next((days / "idx").glob("data-*.npz"))
    data.write_bytes(data.read_bytes()[:-100])
    before = snapshot(days / "idx")
    assert main(["index", "query", "idx", "day2.jsonl"]) == 2
    assert "does not match the checksum" in capsys.readouterr().err
    assert snapshot(days / "idx") == before


def test_newer_format_is_refused(days, capsys):
    assert main(["index", "build", "idx", "day1.jsonl", "-q"]) == 0
    meta_path = days / "idx" / "index.json"
    meta = json.loads(meta_path.read_text())
    meta["format_version"] += 1
    meta_path.write_text(json.dumps(meta))
    assert main(["index", "add", "idx", "day2.jsonl"]) == 2
    err = capsys.readouterr().err
    assert "newer" in err and "upgrade" in err


class _Payload:
    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_pickle_payload_in_the_index_is_not_executed(days):
    assert main(["index", "build", "idx", "day1.jsonl", "-q"]) == 0
    marker = days / "pwned"
    meta_path = days / "idx" / "index.json"
    meta = json.loads(meta_path.read_text())
    data = days / "idx" / meta["data_file"]
    with np.load(data, allow_pickle=False) as npz:
        arrays = {name: npz[name] for name in npz.files}
    evil = np.empty(len(arrays["ids"]), dtype=object)
    evil[:] = [_Payload(str(marker))] * len(evil)
    arrays["ids"] = evil
    with open(data, "wb") as f:
        np.savez(f, **arrays)
    meta["data_sha256"] = hashlib.sha256(
        data.read_bytes()
    ).hexdigest()  # a careful attacker fixes the checksum
    meta_path.write_text(json.dumps(meta))
    with np.load(data, allow_pickle=True) as npz:  # the payload is live ...
        npz["ids"]
    assert marker.exists()
    marker.unlink()
    result = run("index", "add", "idx", "day2.jsonl", cwd=days)  # ... but the tool never unpickles it
    assert result.returncode == 2 and "pickled" in result.stderr
    assert not marker.exists()
    assert main(["index", "query", "idx", "day2.jsonl"]) == 2
    assert not marker.exists()


@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="needs a file system that accepts any bytes")
def test_file_name_that_is_not_utf8(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "odd"
    folder.mkdir()
    (folder / "plain.txt").write_text(article(1), encoding="utf-8")
    with open(os.path.join(os.fsencode(folder), b"caf\xe9.txt"), "w", encoding="utf-8") as f:
        f.write(article(1))
    monkeypatch.chdir(tmp_path)
    assert main(["dedup", "odd", "--out", "c.jsonl"]) == 0
    (cluster,) = read_jsonl(tmp_path / "c.jsonl")  # still valid JSON: the odd byte is escaped
    assert cluster["ids"] == ["odd/caf\udce9.txt", "odd/plain.txt"]


def test_a_failed_save_leaves_neither_the_index_changed_nor_a_report(days, monkeypatch):
    assert main(["index", "build", "idx", "day1.jsonl", "-q"]) == 0
    before = snapshot(days)

    def failing_save(self, path):
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patched:
        patched.setattr(SavedIndex, "save", failing_save)
        args = ["index", "add", "idx", "day2.jsonl", "--out", "m.jsonl", "--problems", "p.jsonl", "-q"]
        assert main(args) == 2
    assert snapshot(days) == before  # exit 2: nothing written, not even a temporary file
    assert main(["index", "add", "idx", "day2.jsonl", "--out", "m.jsonl", "-q"]) == 0
    assert len(read_jsonl(days / "m.jsonl")) == 4


def test_every_setting_option_sets_its_field_of_settings_with_its_type():
    import dataclasses

    from neardup_lab import Settings
    from neardup_lab.cli.main import build_parser
    from neardup_lab.cli.options import SETTING_OPTIONS, given_settings

    assert set(SETTING_OPTIONS) <= {f.name for f in dataclasses.fields(Settings)}
    typed = "--threshold 0.7 -k 3 --shingle char --num-perm 64 --bands 8 --rows 8 --seed 5 --scheme mod-prime"
    args = build_parser().parse_args(["dedup", "x", *typed.split(), "--keep", "longest", "--max-df", "30"])
    expected = dict(threshold=0.7, k=3, shingle="char", num_perm=64, bands=8, rows=8, seed=5)
    expected |= dict(scheme="mod-prime", keeper="longest", max_df=30)
    assert given_settings(args) == expected and isinstance(given_settings(args)["max_df"], int)
    assert Settings(**given_settings(args)) == Settings(**expected)
