"""An output is never an input under another name: files and folders are compared by identity
(device and inode), not by the text of their paths. A bind mount shows a folder twice, a hard
link a file twice; neither lets an output replace what was read.
"""

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_run import run

TEXT = "the heavy rain closed the coastal road again today"
LINES = [f'{{"id": "d{n}", "text": "{TEXT} {n % 2}"}}' for n in range(6)]


@contextlib.contextmanager
def bind_mounted(source: Path, target: Path) -> Iterator[None]:
    """``source`` shown again at ``target`` (root only; skipped elsewhere, with the reason)."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("a bind mount needs root and mount(8)")
    target.mkdir()
    done = subprocess.run(["mount", "--bind", str(source), str(target)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"this machine refuses bind mounts: {done.stderr.strip()}")
    try:
        yield
    finally:
        subprocess.run(["umount", str(target)], check=True)


def _inputs(tmp_path: Path) -> Path:
    source = tmp_path / "src"
    source.mkdir()
    (source / "data.jsonl").write_text("\n".join(LINES) + "\n", encoding="utf-8")
    return source


@pytest.mark.native("mounts folders and runs the command line in processes")
@pytest.mark.parametrize("option", ["--removed-out", "--keep-out", "--out"])
def test_an_output_that_is_an_input_seen_through_a_bind_mount_is_refused(tmp_path: Path, option: str) -> None:
    source = _inputs(tmp_path)
    before = (source / "data.jsonl").read_bytes()
    with bind_mounted(source, tmp_path / "dst"):
        done = run("dedup", "src/data.jsonl", "--id-field", "id", option, "dst/data.jsonl", cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert "is one of the inputs" in done.stderr
    assert (source / "data.jsonl").read_bytes() == before


@pytest.mark.native("mounts folders and runs the command line in processes")
def test_a_txt_output_in_an_input_folder_seen_through_a_bind_mount_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text("the heavy rain closed the coastal road", encoding="utf-8")
    with bind_mounted(folder, tmp_path / "view"):
        done = run("dedup", "docs", "--problems", "view/problems.txt", cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert "inside an input folder" in done.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["a.txt"]


@pytest.mark.native("runs the command line in processes")
def test_an_output_that_is_a_hard_link_to_an_input_is_refused(tmp_path: Path) -> None:
    source = _inputs(tmp_path)
    os.link(source / "data.jsonl", tmp_path / "same.jsonl")
    done = run("dedup", "src/data.jsonl", "--id-field", "id", "--keep-out", "same.jsonl", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "is one of the inputs" in done.stderr
    assert (tmp_path / "same.jsonl").read_bytes() == (source / "data.jsonl").read_bytes()
