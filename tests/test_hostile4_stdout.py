"""Standard output as an output: when a record output is ``/dev/stdout``, the records have it to
themselves (the summary goes to stderr); what goes to a device is complete before it is written,
stdout is written last, and a device written before an error is named; with stdout (or both
standard streams) closed the run still ends as it should."""

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from neardup_lab import make_article

pytestmark = pytest.mark.native("runs the command line in processes")

RECORDS = [{"id": f"d{n}", "text": make_article(seed=n % 3, n_words=30)} for n in range(6)]


def _inputs(tmp_path: Path) -> None:
    lines = "".join(json.dumps(record) + "\n" for record in RECORDS)
    (tmp_path / "in.jsonl").write_text(lines, encoding="utf-8")


def _shell(command: str, cwd: Path) -> subprocess.CompletedProcess:
    program = f"{shlex.quote(sys.executable)} -m neardup_lab"
    shell = ["sh", "-c", command.format(program)]
    return subprocess.run(shell, cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("option", ["--keep-out", "--removed-out"])
def test_records_on_stdout_are_all_that_is_written_there(tmp_path: Path, option: str) -> None:
    _inputs(tmp_path)
    done = _shell(f"{{}} dedup in.jsonl --id-field id {option} /dev/stdout > records.jsonl", tmp_path)
    assert done.returncode == 0, done.stderr
    lines = (tmp_path / "records.jsonl").read_text(encoding="utf-8").splitlines()
    expected = RECORDS[:3] if option == "--keep-out" else RECORDS[3:]
    assert [json.loads(line) for line in lines] == expected
    assert "documents read: 6" in done.stderr  # the summary went to stderr


def test_a_closed_stdout_does_not_turn_a_finished_run_into_an_error(tmp_path: Path) -> None:
    _inputs(tmp_path)
    built = _shell("{} index build idx in.jsonl --id-field id", tmp_path)
    assert built.returncode == 0, built.stderr
    (tmp_path / "day2.jsonl").write_text(json.dumps({"id": "n1", "text": make_article(seed=9)}) + "\n")
    done = _shell("{} index add idx day2.jsonl --id-field id --new-out new.jsonl >&-", tmp_path)
    assert done.returncode == 0, done.stderr
    assert "internal error" not in done.stderr
    assert json.loads((tmp_path / "new.jsonl").read_text(encoding="utf-8"))["id"] == "n1"


def test_an_internal_error_shows_its_traceback_when_asked(tmp_path: Path, monkeypatch, capsys) -> None:
    from neardup_lab.cli import main as cli

    def broken(args, console):  # noqa: ANN001, ANN202 (the commands' signature)
        raise KeyError("a bug")

    monkeypatch.setattr(cli, "run_dedup", broken)
    _inputs(tmp_path)
    assert cli.main(["dedup", str(tmp_path / "in.jsonl")]) == 2
    assert "Traceback" not in capsys.readouterr().err
    monkeypatch.setenv(cli.DEBUG_ENV, "1")
    assert cli.main(["dedup", str(tmp_path / "in.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" in err and "KeyError: 'a bug'" in err and "internal error" in err


FULL = pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")


@FULL
def test_a_full_device_stops_the_run_before_stdout_gets_anything(tmp_path: Path) -> None:
    _inputs(tmp_path)
    with (tmp_path / "in.jsonl").open("a", encoding="utf-8") as f:
        f.write("not json\n")  # a problem, for --problems
    done = _shell("{} dedup in.jsonl --problems /dev/stdout --keep-out /dev/full", tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""  # the problems were not printed: nothing was written, as it says
    assert "cannot write /dev/full: No space left on device; nothing was written" in done.stderr
    assert "except" not in done.stderr


@FULL
def test_a_device_written_before_another_fails_is_named(tmp_path: Path) -> None:
    _inputs(tmp_path)
    with (tmp_path / "in.jsonl").open("a", encoding="utf-8") as f:
        f.write("not json\n")  # a problem, for --problems
    os.mkfifo(tmp_path / "pipe")
    reader = os.open(tmp_path / "pipe", os.O_RDONLY | os.O_NONBLOCK)  # a reader waits on the other end
    try:
        done = _shell("{} dedup in.jsonl --id-field id --problems pipe --keep-out /dev/full", tmp_path)
        received = os.read(reader, 1 << 16).decode()
    finally:
        os.close(reader)
    assert done.returncode == 2
    assert json.loads(received)["reason"] == "bad-json"  # to the pipe before /dev/full failed
    assert "nothing was written" in done.stderr and "except pipe, written into before" in done.stderr


def test_what_goes_to_a_device_is_complete_before_any_of_it_is_written(tmp_path, monkeypatch, capsys) -> None:
    import neardup_lab.cli.commands as commands
    from neardup_lab.cli.main import main

    _inputs(tmp_path)
    os.mkfifo(tmp_path / "pipe")
    real = commands.dedup

    def dedup_then_rewrite(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 (dedup's own signature)
        result = real(*args, **kwargs)
        lines = (tmp_path / "in.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
        (tmp_path / "in.jsonl").write_text("".join(lines[:2]), encoding="utf-8")  # cut short
        return result

    monkeypatch.setattr(commands, "dedup", dedup_then_rewrite)
    reader = os.open(tmp_path / "pipe", os.O_RDONLY | os.O_NONBLOCK)
    try:
        argv = ["dedup", str(tmp_path / "in.jsonl"), "--id-field", "id", "--keep-out", str(tmp_path / "pipe")]
        assert main(argv) == 2
        assert os.read(reader, 1 << 16) == b""  # not a record came through, though two could be copied
    finally:
        os.close(reader)
    assert "changed while this run read it" in capsys.readouterr().err


def test_with_both_standard_streams_closed_a_finished_run_exits_0(tmp_path: Path) -> None:
    _inputs(tmp_path)
    assert _shell("{} index build idx in.jsonl --id-field id", tmp_path).returncode == 0
    (tmp_path / "day2.jsonl").write_text(json.dumps({"id": "n1", "text": make_article(seed=9)}) + "\n")
    done = _shell("{} index add idx day2.jsonl --id-field id --new-out new.jsonl >&- 2>&-", tmp_path)
    assert done.returncode == 0  # the summary and the lines of stderr go nowhere, and that is no error
    assert json.loads((tmp_path / "new.jsonl").read_text(encoding="utf-8"))["id"] == "n1"
    info = _shell("{} index info idx", tmp_path)
    assert "documents: 7" in info.stdout
