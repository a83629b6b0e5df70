"""Killed runs: a SIGKILL at any step of a write leaves the old index or the new one, never a mix,
and the next run removes what the killed one left behind.

Crashes come from ``tests/crash_run.py``: it runs the command in a subprocess
with ``os.fsync``, ``os.replace``, ``os.rename`` and ``os.unlink`` wrapped, and
kills itself before one of them, so the package carries no test hooks. Every
subprocess has a timeout: a hang fails the test instead of stalling it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from neardup_lab import make_article
from neardup_lab.cli.main import main
from neardup_lab.index.store import SavedIndex

pytestmark = pytest.mark.skipif(
    sys.platform == "win32" or not hasattr(signal, "SIGKILL"), reason="needs SIGKILL and flock"
)

CRASH_RUN = Path(__file__).with_name("crash_run.py")
TIMEOUT = 120  # seconds for one subprocess; a run that takes longer hangs


def crash_run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``python crash_run.py ARGS`` in ``cwd``, output captured."""
    return subprocess.run(
        [sys.executable, str(CRASH_RUN), *args],
        cwd=cwd,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )


def steps_of(cwd: Path, *command: str) -> list[str]:
    """Run ``neardup-lab COMMAND`` to the end; return its write steps, one line each."""
    log = cwd.parent / f"steps-{time.monotonic_ns()}.txt"
    done = crash_run("trace", str(log), "--", *command, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return log.read_text(encoding="utf-8").splitlines()


def kill_at(step: int, cwd: Path, *command: str) -> None:
    killed = crash_run("kill", str(step), "--", *command, cwd=cwd)
    assert killed.returncode == -signal.SIGKILL, (step, killed.stderr)


def listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture
def days(tmp_path, monkeypatch) -> Path:
    """A working folder with three daily batches of four articles each, in ``work/``."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    for day in range(3):
        records = [{"text": make_article(seed=700 + 10 * day + i, n_words=80)} for i in range(4)]
        (work / f"day{day + 1}.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8"
        )
    return work


def test_an_add_killed_at_any_step_leaves_the_old_or_the_new_index(days):
    add = ("index", "add", "idx", "day2.jsonl", "-q")
    assert main(["index", "build", "pristine", "day1.jsonl", "-q"]) == 0
    shutil.copytree(days / "pristine", days / "idx")
    steps = steps_of(days, *add)
    assert any(" replace " in s and s.endswith("index.json") for s in steps), steps
    old_ids, new_ids = SavedIndex.open(days / "pristine").ids, SavedIndex.open(days / "idx").ids
    committed = []
    for step in range(1, len(steps) + 1):
        shutil.rmtree(days / "idx")
        shutil.copytree(days / "pristine", days / "idx")
        kill_at(step, days, *add)
        ids = SavedIndex.open(days / "idx").ids
        assert ids in (old_ids, new_ids), steps[step - 1]
        committed.append(ids == new_ids)
        # The next run works and leaves exactly one generation and no temporary files.
        assert main(["index", "add", "idx", "day3.jsonl", "-q"]) == 0
        generation = 3 if ids == new_ids else 2
        assert listing(days / "idx") == [".lock", f"data-{generation:06d}.npz", "index.json"], steps[step - 1]
        assert len(SavedIndex.open(days / "idx")) == len(ids) + 4
    # Killed early the add is lost, killed late it is kept: one step commits it, and only one.
    assert committed[0] is False and committed[-1] is True
    assert committed == sorted(committed), list(zip(steps, committed))


def test_a_build_killed_at_any_step_leaves_nothing_behind_after_the_next_build(days):
    build = ("index", "build", "idx", "day1.jsonl", "-q")
    steps = steps_of(days, "index", "build", "traced", "day1.jsonl", "-q")
    expected_ids = SavedIndex.open(days / "traced").ids
    for step in range(1, len(steps) + 1):
        kill_at(step, days, *build)
        if (days / "idx").exists():  # killed after the staging folder became the index
            assert SavedIndex.open(days / "idx").ids == expected_ids
        for unmarked in (p for p in days.glob(".tmp-idx-*") if not (p / ".building").exists()):
            # Killed before it could mark its staging folder: only age tells that the build is gone.
            assert step == 1, steps[step - 1]
            os.utime(unmarked, (time.time() - 3600, time.time() - 3600))
        assert main(["index", "build", f"next-{step}", "day1.jsonl", "-q"]) == 0
        assert not list(days.glob(".tmp-*")), steps[step - 1]
        if (days / "idx").exists():
            assert main(["index", "add", "idx", "day2.jsonl", "-q"]) == 0
            assert listing(days / "idx") == [".lock", "data-000002.npz", "index.json"]
            shutil.rmtree(days / "idx")


def test_a_build_in_progress_and_folders_that_are_not_ours_are_left_alone(days):
    steps = steps_of(days, "index", "build", "traced", "day1.jsonl", "-q")
    # Pause the build just before its staging folder becomes the index.
    (publish,) = [n for n, s in enumerate(steps, 1) if " rename " in s and s.endswith(" traced")]
    flag = days.parent / "paused"
    paused = subprocess.Popen(
        [
            sys.executable,
            str(CRASH_RUN),
            "pause",
            str(publish),
            str(flag),
            "--",
            "index",
            "build",
            "idx",
            "day1.jsonl",
            "-q",
        ],
        cwd=days,
    )
    try:
        deadline = time.monotonic() + TIMEOUT
        while not flag.exists():
            assert paused.poll() is None and time.monotonic() < deadline, "the build did not reach the pause"
            time.sleep(0.05)
        (staging,) = days.glob(".tmp-idx-*")
        strangers = [days / ".tmp-idx-notes", days / ".tmp-other-abc123"]
        strangers[0].mkdir()
        (strangers[0] / "notes.txt").write_text("not an index")
        shutil.copytree(staging, strangers[1])  # looks like a staging folder, but has a file we never write
        (strangers[1] / "mine.txt").write_text("keep me")
        for folder in [*strangers, staging]:
            os.utime(folder, (time.time() - 3600, time.time() - 3600))
        before = {p: listing(p) for p in [*strangers, staging]}
        assert main(["index", "build", "other", "day1.jsonl", "-q"]) == 0
        assert {p: listing(p) for p in [*strangers, staging]} == before
    finally:
        flag.unlink(missing_ok=True)
        assert paused.wait(timeout=TIMEOUT) == 0
    assert SavedIndex.open(days / "idx").ids == SavedIndex.open(days / "traced").ids
    assert listing(days / "idx") == [".lock", "data-000001.npz", "index.json"]
    assert sorted(p.name for p in days.glob(".tmp-*")) == [".tmp-idx-notes", ".tmp-other-abc123"]
