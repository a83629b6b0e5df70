"""Standard output as an output: when a record output is ``/dev/stdout``, the records have it to
themselves (the summary goes to stderr); with stdout closed the run still ends as it should."""

import json
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
