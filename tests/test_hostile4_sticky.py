"""Root writing through another user's link: in a sticky folder anyone may write to (like /tmp), a
link that neither the running user nor the folder's owner owns is not followed when an output is
written (the kernel's protected-symlinks rule, which a path resolved by the program escapes).
The run stops with exit 2 and writes nothing; the link's target is unchanged.

Links owned by another user can only be made by root: elsewhere these tests are skipped, with
the reason.
"""

import json
import os
import pwd
import sys
from pathlib import Path

import pytest
from cli_run import run

from neardup_lab.index.atomic import UnsafeLink, atomic_writer

pytestmark = [
    pytest.mark.native("writes through links another user owns, as root, in processes"),
    pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX owners and sticky folders"),
    pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root can chown a link"),
]
PRECIOUS = "root's own file: must not change\n"


def nobody() -> tuple[int, int]:
    try:
        user = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("this system has no user 'nobody' to own the planted link")
    return user.pw_uid, user.pw_gid


@pytest.fixture
def sticky(tmp_path: Path) -> Path:
    """``sticky/``, mode 1777 like /tmp, beside ``precious.txt`` (root's) and an input."""
    (tmp_path / "sticky").mkdir()
    os.chmod(tmp_path / "sticky", 0o1777)
    (tmp_path / "precious.txt").write_text(PRECIOUS, encoding="utf-8")
    lines = [json.dumps({"text": f"heavy rain closed the coastal road, day {n}"}) for n in range(3)]
    (tmp_path / "in.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path


def plant(link: Path, target: Path, owner: tuple[int, int]) -> None:
    os.symlink(target, link)
    os.lchown(link, *owner)


def untouched(tmp_path: Path, names: list[str]) -> None:
    assert (tmp_path / "precious.txt").read_text(encoding="utf-8") == PRECIOUS
    assert sorted(p.name for p in (tmp_path / "sticky").iterdir()) == names  # no file left behind
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "precious.txt", "sticky"]


@pytest.mark.parametrize("option", ["--out", "--keep-out", "--problems"])
def test_a_link_planted_by_another_user_is_not_written_through(sticky: Path, option: str) -> None:
    plant(sticky / "sticky" / "clusters.jsonl", sticky / "precious.txt", nobody())
    done = run("dedup", "in.jsonl", option, "sticky/clusters.jsonl", cwd=sticky)
    assert done.returncode == 2, done.stderr
    assert f"cannot write {option} sticky/clusters.jsonl" in done.stderr
    assert "owned by another user" in done.stderr and "nothing was written" in done.stderr
    assert "remove the link or write elsewhere" in done.stderr
    untouched(sticky, ["clusters.jsonl"])
    assert os.readlink(sticky / "sticky" / "clusters.jsonl") == str(sticky / "precious.txt")


def test_a_planted_link_to_a_folder_on_the_way_is_refused_too(sticky: Path) -> None:
    (sticky / "root-only").mkdir(mode=0o700)
    plant(sticky / "sticky" / "runs", sticky / "root-only", nobody())
    done = run("dedup", "in.jsonl", "--out", "sticky/runs/clusters.jsonl", cwd=sticky)
    assert done.returncode == 2, done.stderr
    assert "owned by another user" in done.stderr
    assert not list((sticky / "root-only").iterdir())
    index_file = sticky / "sticky" / "runs" / "index.json"  # the index writes this way too
    with pytest.raises(UnsafeLink, match="protected-symlinks"), atomic_writer(index_file) as f:
        f.write("{}")
    assert not list((sticky / "root-only").iterdir())


def test_links_the_kernel_would_follow_are_written_through(sticky: Path) -> None:
    """Root's own link, and another user's link in that user's own sticky folder."""
    os.symlink(sticky / "precious.txt", sticky / "sticky" / "mine.jsonl")
    done = run("dedup", "in.jsonl", "--out", "sticky/mine.jsonl", "-q", cwd=sticky)
    assert done.returncode == 0, done.stderr
    assert len((sticky / "precious.txt").read_text(encoding="utf-8").splitlines()) == 3
    owner = nobody()
    os.chown(sticky / "sticky", *owner)  # the folder's owner planted the link: followed
    (sticky / "theirs.jsonl").write_text("", encoding="utf-8")
    plant(sticky / "sticky" / "theirs.jsonl", sticky / "theirs.jsonl", owner)
    done = run("dedup", "in.jsonl", "--out", "sticky/theirs.jsonl", "-q", cwd=sticky)
    assert done.returncode == 0, done.stderr
    assert len((sticky / "theirs.jsonl").read_text(encoding="utf-8").splitlines()) == 3
