"""Links and special files in input folders: a folder's walk stays in the folder. Links are
problem lines unless ``--follow-links``; then a link out of the folder or round a loop is refused.
Pipes, devices and sockets are problem lines, never opened, so nothing can make a run wait. A
path is never tidied as text: every path listed is the path that was opened.
"""

import json
import os
import stat
import sys
from pathlib import Path

import pytest
from cli_run import run as run_cli

from neardup_lab import make_article
from neardup_lab.readers import read_inputs

pytestmark = [
    pytest.mark.native("runs the command line on links, pipes and devices, in processes"),
    pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX links, FIFOs and devices"),
]
TIMEOUT = 60  # seconds: a run that waits on a pipe or a device fails instead of stalling
STORY = make_article(seed=7, n_words=40)


def run(*args: str, cwd: Path):  # noqa: ANN201 (a CompletedProcess)
    return run_cli(*args, cwd=cwd, timeout=TIMEOUT)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def problems(path: Path) -> dict[str, str]:
    return {p["source"]: p["reason"] for p in map(json.loads, path.read_text(encoding="utf-8").splitlines())}


def listed(path: Path) -> list[bytes]:
    return [name for name in path.read_bytes().split(b"\0") if name]


@pytest.fixture
def escape(tmp_path: Path) -> Path:
    """``ds`` holds a story and its copy, and ``z``, a link to ``victim`` beside it (copies too)."""
    write(tmp_path / "ds" / "a.txt", STORY)
    write(tmp_path / "ds" / "b.txt", STORY)
    write(tmp_path / "victim" / "secret.txt", STORY)
    write(tmp_path / "victim" / "zz.txt", STORY)
    os.symlink("../victim", tmp_path / "ds" / "z")
    return tmp_path


def test_a_link_out_of_a_folder_is_not_followed_by_default(escape: Path) -> None:
    done = run("dedup", "ds", "--removed-out", "rm.lst", "--null", "--problems", "p.jsonl", cwd=escape)
    assert done.returncode == 1, done.stderr
    assert listed(escape / "rm.lst") == [b"ds/b.txt"]
    assert problems(escape / "p.jsonl") == {"ds/z": "link"}
    assert "skipped ds/z: link not followed: is a symbolic link" in done.stderr
    assert "--follow-links" in done.stderr
    assert sorted(p.name for p in (escape / "victim").iterdir()) == ["secret.txt", "zz.txt"]


def test_a_link_out_of_a_folder_is_refused_when_links_are_followed(escape: Path) -> None:
    args = ["--follow-links", "--removed-out", "rm.lst", "--null", "--problems", "p.jsonl"]
    done = run("dedup", "ds", *args, cwd=escape)
    assert done.returncode == 1, done.stderr
    assert listed(escape / "rm.lst") == [b"ds/b.txt"]
    assert problems(escape / "p.jsonl") == {"ds/z": "link-escape"}
    message = "skipped ds/z: link out of the folder: is a link to ../victim, which leads out of the folder ds"
    assert message in done.stderr


def test_links_that_stay_inside_are_followed_when_asked_and_loops_refused(tmp_path: Path) -> None:
    write(tmp_path / "ds" / "a.txt", STORY)
    write(tmp_path / "ds" / "sub" / "b.txt", STORY)
    os.symlink("sub", tmp_path / "ds" / "inner")  # the same folder as sub: read once
    os.symlink("../..", tmp_path / "ds" / "sub" / "up")  # out, through a parent
    os.symlink("..", tmp_path / "ds" / "sub" / "back")  # a loop: ds holds sub
    os.symlink("self", tmp_path / "ds" / "self")  # a loop of one link
    os.symlink("a.txt", tmp_path / "ds" / "same.txt")  # a file read already
    args = ["--follow-links", "--removed-out", "rm.lst", "--null", "--problems", "p.jsonl"]
    done = run("dedup", "ds", *args, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert listed(tmp_path / "rm.lst") == [b"ds/inner/b.txt"]
    assert problems(tmp_path / "p.jsonl") == {
        "ds/inner/back": "link-loop",
        "ds/inner/up": "link-escape",
        "ds/same.txt": "duplicate-input",
        "ds/self": "link-loop",
        "ds/sub": "duplicate-input",
    }


def test_a_link_to_the_root_folder_is_not_walked(tmp_path: Path) -> None:
    write(tmp_path / "ds" / "a.txt", STORY)
    os.symlink("/", tmp_path / "ds" / "root")
    for follow, reason in [([], "link"), (["--follow-links"], "link-escape")]:
        done = run("dedup", "ds", *follow, "--problems", "p.jsonl", cwd=tmp_path)
        assert done.returncode == 1, done.stderr
        assert "documents read: 1 (from 1 input)" in done.stdout
        assert problems(tmp_path / "p.jsonl") == {"ds/root": reason}


@pytest.mark.parametrize("follow", [[], ["--follow-links"]])
def test_pipes_and_devices_in_a_folder_are_problem_lines_and_nothing_waits(tmp_path: Path, follow) -> None:
    write(tmp_path / "ds" / "a.txt", STORY)
    os.mkfifo(tmp_path / "ds" / "pipe")  # not named .txt: reported all the same
    os.mkfifo(tmp_path / "ds" / "pipe.txt")
    os.symlink(os.devnull, tmp_path / "ds" / "null.txt")
    expected = {"ds/pipe": "not-regular", "ds/pipe.txt": "not-regular"}
    expected["ds/null.txt"] = "link-escape" if follow else "link"
    if os.path.exists("/proc/kmsg"):  # a file whose reads wait for the kernel's next message
        os.symlink("/proc/kmsg", tmp_path / "ds" / "kmsg.txt")
        expected["ds/kmsg.txt"] = "link-escape" if follow else "link"
    if os.geteuid() == 0:  # a device in the folder itself, and a link to it that stays inside
        os.mknod(tmp_path / "ds" / "zero", stat.S_IFCHR | 0o600, os.stat("/dev/zero").st_rdev)
        os.symlink("zero", tmp_path / "ds" / "zero.txt")
        expected |= {"ds/zero": "not-regular", "ds/zero.txt": "not-regular" if follow else "link"}
    done = run("dedup", "ds", *follow, "--problems", "p.jsonl", cwd=tmp_path)  # times out if it waits
    assert done.returncode == 1, done.stderr
    assert problems(tmp_path / "p.jsonl") == expected
    assert "skipped ds/pipe: not a regular file: is a named pipe (FIFO)" in done.stderr
    assert stat.S_ISFIFO(os.lstat(tmp_path / "ds" / "pipe").st_mode)


def spied_opens(folder: Path, monkeypatch) -> list[str]:
    """Work in ``folder`` and record every path ``os.open`` is given, in the list returned."""
    monkeypatch.chdir(folder)
    opened: list[str] = []
    real_open = os.open

    def spy(path, *args, **kwargs):  # noqa: ANN001, ANN202 (os.open's signature)
        opened.append(os.fsdecode(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", spy)
    return opened


def test_special_files_in_a_folder_are_never_opened(tmp_path: Path, monkeypatch) -> None:
    write(tmp_path / "ds" / "a.txt", STORY)
    os.mkfifo(tmp_path / "ds" / "pipe.txt")
    os.symlink(os.devnull, tmp_path / "ds" / "null.txt")
    opened = spied_opens(tmp_path, monkeypatch)
    for follow in (False, True):
        opened.clear()
        report = read_inputs(["ds"], follow_links=follow)
        assert [d.id for d in report.documents] == ["ds/a.txt"]
        assert opened == ["ds/a.txt"], opened


def test_a_path_through_a_link_is_never_tidied(tmp_path: Path) -> None:
    """``data/link/..`` is the parent of the link's target; ``data/`` holds other files."""
    write(tmp_path / "other" / "sub" / "x.txt", "a story of its own, in no other file")
    write(tmp_path / "other" / "u1.txt", STORY)
    write(tmp_path / "other" / "u2.txt", STORY)
    write(tmp_path / "data" / "u2.txt", "not the file read")
    os.symlink("../other/sub", tmp_path / "data" / "link")
    done = run("dedup", "data/link/..", "--removed-out", "rm.lst", "--null", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert listed(tmp_path / "rm.lst") == [b"data/link/../u2.txt"]
    assert (tmp_path / "data/link/../u2.txt").read_text(encoding="utf-8") == STORY  # what was read


def test_every_path_listed_is_the_path_opened(tmp_path: Path, monkeypatch) -> None:
    write(tmp_path / "ds" / "a.txt", STORY)
    write(tmp_path / "ds" / "sub" / "b.txt", STORY)
    write(tmp_path / "c.txt", STORY)
    opened = spied_opens(tmp_path, monkeypatch)
    report = read_inputs(["./ds//", "./c.txt"])
    assert [d.id for d in report.documents] == opened == ["ds/a.txt", "ds/sub/b.txt", "c.txt"]
