"""Hostile and unlucky inputs: no hang, bounded memory, nothing silently lost, no index damage.

One test per row of the issue's table (named ``test_rowNN_...``), then one run over a
single folder that holds every bad input at once. Runs that could hang or eat memory
on a broken reader go through :func:`run`: a subprocess with a timeout and a cap on
its address space, so a regression fails the test instead of stalling CI.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from cli_run import run as run_cli

from neardup_lab import make_article
from neardup_lab.cli.main import main
from neardup_lab.index.store import SavedIndex

POSIX_ONLY = pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX file types (FIFO, links, /dev)")
TIMEOUT = 120  # seconds; a healthy run takes one or two
DEPTH = 1100  # folders nested deeper than Python's default recursion limit


def run(*args: str, cwd: Path, **options) -> subprocess.CompletedProcess:
    return run_cli(*args, cwd=cwd, timeout=TIMEOUT, **options)


def article(i: int) -> str:
    return make_article(seed=900 + i, n_words=60)


def write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def cluster_ids(path: Path) -> list[str]:
    return [i for cluster in read_jsonl(path) for i in cluster["ids"]]


def problems(path: Path) -> dict[str, str]:
    """``where`` -> reason of every skipped input in a --problems file."""
    found = {}
    for p in read_jsonl(path):
        where = p["source"] if p["line"] is None else f"{p['source']}:{p['line']}"
        assert where not in found, f"{where} reported twice"
        found[where] = p["reason"]
    return found


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def unterminated_csv(path: Path) -> Path:
    return write(path, 'id,text\n1,ok\n2,"open quote\n3,swallowed\n4,too\n')


def hostile_jsonl(path: Path) -> Path:
    """Good lines 1 and 4; line 2 holds a 5,000-digit number, line 3 arrays 100,000 deep."""
    lines = [
        json.dumps({"text": article(1)}),
        '{"text": "x", "n": ' + "7" * 5000 + "}",
        '{"text": ' + "[" * 100_000 + "]" * 100_000 + "}",
        json.dumps({"text": article(2)}),
    ]
    return write(path, "\n".join(lines) + "\n")


def nest(top: Path, depth: int) -> Path:
    """``top/d/d/.../d`` with ``depth`` folders below ``top``; the deepest one.

    Made one level at a time: ``Path.mkdir(parents=True)`` itself recurses.
    """
    top.mkdir(parents=True, exist_ok=True)
    path = top
    for _ in range(depth):
        path = path / "d"
        path.mkdir()
    return path


def unnest(top: Path, depth: int) -> None:
    """Remove what :func:`nest` made (and the files in it), deepest first: ``shutil.rmtree`` recurses."""
    chain = [top.joinpath(*["d"] * level) for level in range(depth, 0, -1)]
    for folder in chain:
        for entry in folder.iterdir():
            entry.unlink()
        folder.rmdir()


# ----- row 1: a FIFO -------------------------------------------------------------------


@POSIX_ONLY
def test_row01_fifo_is_skipped_not_waited_on(tmp_path):
    write(tmp_path / "f" / "a.txt", article(0))
    os.mkfifo(tmp_path / "f" / "x.txt")
    os.mkfifo(tmp_path / "pipe.jsonl")
    result = run("dedup", "f", "pipe.jsonl", "--out", "c.jsonl", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert "skipped f/x.txt: not a regular file: is a named pipe (FIFO)" in result.stderr
    assert "skipped pipe.jsonl: not a regular file" in result.stderr
    assert cluster_ids(tmp_path / "c.jsonl") == ["f/a.txt"]


# ----- row 2: a link to /dev/zero -------------------------------------------------------------


@POSIX_ONLY
@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero on this system")
def test_row02_link_to_dev_zero_is_refused_and_reads_are_bounded(tmp_path):
    write(tmp_path / "z" / "a.txt", "heavy rain")
    os.symlink("/dev/zero", tmp_path / "z" / "z.txt")  # in a folder: a link, not followed
    os.symlink("/dev/zero", tmp_path / "zero.txt")  # named as an input: followed, and refused
    maps = Path("/proc/self/maps")  # a regular file whose size says 0 but which holds kilobytes
    if maps.exists():
        os.symlink(maps, tmp_path / "maps.txt")
    inputs = ["z", "zero.txt", *(["maps.txt"] if maps.exists() else [])]
    result = run("dedup", *inputs, "--max-bytes", "100", "--problems", "p.jsonl", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert "skipped zero.txt: not a regular file: is a character device" in result.stderr
    expected = {"z/z.txt": "link", "zero.txt": "not-regular"}
    if maps.exists():
        expected["maps.txt"] = "too-large"  # bounded by the bytes read, not by what stat says
    assert problems(tmp_path / "p.jsonl") == expected


# ----- row 4: an unterminated CSV quote ---------------------------------------------------------


def test_row04_unterminated_csv_quote_is_a_problem_not_a_document(tmp_path):
    unterminated_csv(tmp_path / "u.csv")
    result = run("dedup", "u.csv", "--out", "c.jsonl", "--problems", "p.jsonl", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert "skipped inputs: 1 (malformed CSV row: 1)" in result.stdout
    assert problems(tmp_path / "p.jsonl") == {"u.csv:3": "bad-csv"}
    assert "never closed" in result.stderr and "lines 3-5" in result.stderr
    # The good record before the quote, and the rows it would have swallowed, are read.
    assert sorted(cluster_ids(tmp_path / "c.jsonl")) == ["u.csv:2", "u.csv:4", "u.csv:5"]


# ----- row 5: unreadable folders ---------------------------------------------------------------


def _unprivileged_python_runs() -> bool:
    """True when this Python (and the package) can run as user nobody (65534)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return False
    try:
        probe = subprocess.run(
            [sys.executable, "-c", "import neardup_lab.cli.main"],
            user=65534,
            group=65534,
            extra_groups=[],
            capture_output=True,
            cwd="/",
            timeout=TIMEOUT,
        )
    except OSError:
        return False
    return probe.returncode == 0


@POSIX_ONLY
def test_row05_unreadable_folders_are_reported(monkeypatch, capsys):
    tree = Path(tempfile.mkdtemp())  # not under pytest's private tmp root: user nobody must enter it
    try:
        os.chmod(tree, 0o755)
        write(tree / "f" / "a.txt", article(0))
        write(tree / "f" / "locked" / "b.txt", article(1))
        write(tree / "g" / "c.txt", article(2))
        for folder in (tree / "f", tree / "f" / "locked", tree / "g"):
            folder.chmod(0o755)
        for path in (tree / "f" / "a.txt", tree / "f" / "locked" / "b.txt", tree / "g" / "c.txt"):
            path.chmod(0o644)
        (tree / "f" / "locked").chmod(0)
        (tree / "g").chmod(0)
        if hasattr(os, "geteuid") and os.geteuid() != 0:
            code, out, err = _run_in_process(tree, monkeypatch, capsys)
        elif _unprivileged_python_runs():
            done = run("dedup", "f", "g", cwd=tree, user=65534, group=65534, extra_groups=[])
            code, out, err = done.returncode, done.stdout, done.stderr
        else:  # root reads any folder, and nobody cannot run this Python: make listing fail
            real_scandir = os.scandir

            def denied(path="."):
                if isinstance(path, str) and os.path.basename(path) in ("locked", "g"):
                    raise PermissionError(13, "Permission denied", os.fspath(path))
                return real_scandir(path)

            monkeypatch.setattr(os, "scandir", denied)
            code, out, err = _run_in_process(tree, monkeypatch, capsys)
        assert code == 1, err
        assert "skipped f/locked: unreadable folder: cannot be listed (Permission denied)" in err
        assert "skipped g: unreadable folder" in err
        assert "documents read: 1 (from 2 inputs)" in out
    finally:
        monkeypatch.undo()
        for folder in (tree / "f" / "locked", tree / "g"):
            folder.chmod(0o755)
        shutil.rmtree(tree)


def _run_in_process(tree: Path, monkeypatch, capsys) -> tuple[int, str, str]:
    monkeypatch.chdir(tree)
    code = main(["dedup", "f", "g"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ----- row 6: symlinked folders ---------------------------------------------------------------


@POSIX_ONLY
def test_row06_symlinked_folders_are_followed_once_and_loops_reported(tmp_path):
    write(tmp_path / "g" / "a.txt", article(0))
    write(tmp_path / "g" / "sub" / "s.txt", article(1))
    write(tmp_path / "g" / "x_other" / "o.txt", article(2))
    os.symlink("x_other", tmp_path / "g" / "b_link")
    os.symlink("x_other", tmp_path / "g" / "c_same")  # the same folder again
    os.symlink("..", tmp_path / "g" / "sub" / "up")  # a loop
    follow = ["--follow-links", "--out", "c.jsonl", "--problems", "p.jsonl"]
    result = run("dedup", "g", *follow, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert cluster_ids(tmp_path / "c.jsonl") == ["g/a.txt", "g/b_link/o.txt", "g/sub/s.txt"]
    expected = {"g/c_same": "duplicate-input", "g/sub/up": "link-loop", "g/x_other": "duplicate-input"}
    assert problems(tmp_path / "p.jsonl") == expected
    assert "skipped inputs: 3 (input read already: 2, folder link loop: 1)" in result.stdout
    # Not asked to follow: each link is a problem line, and the folder is read once, by its own name.
    result = run("dedup", "g", "--out", "c.jsonl", "--problems", "p.jsonl", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert cluster_ids(tmp_path / "c.jsonl") == ["g/a.txt", "g/sub/s.txt", "g/x_other/o.txt"]
    assert problems(tmp_path / "p.jsonl") == {"g/b_link": "link", "g/c_same": "link", "g/sub/up": "link"}


# ----- row 7: hostile JSONL lines -----------------------------------------------------------


def test_row07_hostile_jsonl_lines_are_skipped_not_fatal(tmp_path):
    hostile_jsonl(tmp_path / "h.jsonl")
    result = run("dedup", "h.jsonl", "--out", "c.jsonl", "--problems", "p.jsonl", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert "internal error" not in result.stderr
    assert problems(tmp_path / "p.jsonl") == {"h.jsonl:2": "bad-json", "h.jsonl:3": "bad-json"}
    assert "store long numbers as strings" in result.stderr and "nested too deeply" in result.stderr
    assert sorted(cluster_ids(tmp_path / "c.jsonl")) == ["h.jsonl:1", "h.jsonl:4"]


# ----- rows 8 and 9: the saved index ----------------------------------------------------------


@pytest.fixture
def batches(tmp_path, monkeypatch) -> Path:
    """A built index ``idx`` and two more batches; the second line of day2 is damaged."""
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "day1.jsonl", "".join(json.dumps({"text": article(i)}) + "\n" for i in range(3)))
    write(tmp_path / "day2.jsonl", json.dumps({"text": article(5)}) + "\n{broken\n")
    write(tmp_path / "day3.jsonl", json.dumps({"text": article(6)}) + "\n")
    assert main(["index", "build", "idx", "day1.jsonl", "-q"]) == 0
    return tmp_path


@POSIX_ONLY
def test_row08_outputs_never_land_in_an_index_folder(batches, capsys):
    before = snapshot(batches)
    os.symlink("idx/index.json", batches / "link.jsonl")
    attempts = [
        (["index", "query", "idx", "day2.jsonl", "--problems", "idx/index.json"], "inside the index folder"),
        (["index", "add", "idx", "day2.jsonl", "--out", "idx/report.jsonl"], "inside the index folder"),
        (["index", "query", "idx", "day2.jsonl", "--out", "link.jsonl"], "inside the index folder"),
        (
            ["index", "build", "new.idx", "day2.jsonl", "--out", "new.idx", "--out-format", "csv"],
            "inside the index",
        ),
        (["dedup", "day2.jsonl", "--problems", "idx/index.json"], "inside a saved index folder"),
    ]
    for args, message in attempts:
        assert main(args) == 2, args
        assert message in capsys.readouterr().err, args
    os.unlink(batches / "link.jsonl")
    assert snapshot(batches) == before
    assert len(SavedIndex.open("idx")) == 3


def test_row09_exit_2_leaves_no_report_behind(batches, monkeypatch):
    before = snapshot(batches)
    real_save = SavedIndex.save

    def save_after_a_rival(self, path):  # another run adds a batch between our open and our save
        rival = run("index", "add", "idx", "day3.jsonl", "--out", "rival.jsonl", cwd=batches)
        assert rival.returncode == 0, rival.stderr
        real_save(self, path)

    def read_only(self, path):
        raise PermissionError(13, "Permission denied", "idx/index.json")

    for save in (save_after_a_rival, read_only):
        with monkeypatch.context() as patched:
            patched.setattr(SavedIndex, "save", save)
            args = ["index", "add", "idx", "day2.jsonl", "--out", "mine.jsonl", "--problems", "p.jsonl"]
            assert main(args) == 2
        assert not (batches / "mine.jsonl").exists() and not (batches / "p.jsonl").exists()
        assert not list(batches.glob(".tmp-*")), "a temporary report was left behind"
    written = set(snapshot(batches)) - set(before)
    assert {name for name in written if not name.startswith("idx/")} == {"rival.jsonl"}
    assert SavedIndex.open("idx").ids == ["day1.jsonl:1", "day1.jsonl:2", "day1.jsonl:3", "day3.jsonl:1"]


# ----- row 10 (command-line side): settings far out of range ---------------------------------


def test_row10_huge_num_perm_and_k_are_usage_errors(tmp_path, monkeypatch, capsys):
    write(tmp_path / "f" / "a.txt", article(0))
    for option, value in [("--num-perm", "1000000"), ("-k", "100000000"), ("--jobs", "100000")]:
        result = run("dedup", "f", option, value, "--out", "c.jsonl", cwd=tmp_path)
        assert result.returncode == 2, (option, result.stderr)
        assert "usage: neardup-lab dedup" in result.stderr and "must be at most" in result.stderr
    assert not (tmp_path / "c.jsonl").exists()

    import neardup_lab.cli.commands as commands

    def refused(*args, **kwargs):  # the pipeline's own settings check says no
        raise ValueError("num_perm must be an int in 1..8192, got 100000")

    monkeypatch.setattr(commands, "dedup", refused)
    assert main(["dedup", str(tmp_path / "f")]) == 2
    err = capsys.readouterr().err
    assert "error: num_perm must be an int in 1..8192" in err and "internal error" not in err


# ----- row 13: deep folders --------------------------------------------------------------------


def test_row13_deep_folders_are_walked_without_recursion(tmp_path):
    deepest = nest(tmp_path / "deep", DEPTH)
    write(deepest / "bottom.txt", article(0))
    write(tmp_path / "deep" / "top.txt", article(1))
    try:
        result = run("dedup", "deep", "--out", "c.jsonl", cwd=tmp_path)
    finally:
        unnest(tmp_path / "deep", DEPTH)
    assert result.returncode == 0, result.stderr[-500:]
    bottom = "deep/" + "d/" * DEPTH + "bottom.txt"
    assert cluster_ids(tmp_path / "c.jsonl") == [bottom, "deep/top.txt"]


# ----- row 14: the same folder under two names -----------------------------------------------------


def test_row14_same_folder_given_twice_is_read_once(tmp_path):
    write(tmp_path / "f" / "a.txt", article(0))
    write(tmp_path / "f" / "b.txt", article(1))
    absolute = str(tmp_path / "f")
    result = run("dedup", "f", absolute, "--out", "c.jsonl", "--problems", "p.jsonl", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert cluster_ids(tmp_path / "c.jsonl") == ["f/a.txt", "f/b.txt"]
    assert problems(tmp_path / "p.jsonl") == {Path(absolute).as_posix(): "duplicate-input"}
    assert "removed: 0" in result.stdout  # nothing is a "copy" of itself, so nothing to delete


# ----- everything at once ------------------------------------------------------------------------


def _hostile_folder(root: Path) -> tuple[set[str], dict[str, str]]:
    """Build every bad input under ``root``; return the document ids and problems expected."""
    texts = root / "texts"
    write(texts / "a.txt", article(0))
    write(texts / "b.txt", article(0).upper())  # an exact copy of a.txt
    write(texts / "image.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    write(texts / "dir.txt" / "inner.txt", article(3))  # a folder named like a document
    write(texts / "sub" / "s.txt", article(4))
    write(root / "elsewhere" / "e.txt", article(5))
    os.mkfifo(texts / "x.txt")
    os.mkfifo(texts / "notes.fifo")  # not named .txt: reported all the same, never opened
    os.symlink("/dev/zero", texts / "zero.txt")
    os.symlink(root / "nowhere.txt", texts / "gone.txt")
    os.symlink("../elsewhere", texts / "linked")
    os.symlink("..", texts / "sub" / "loop")
    (texts / "notes.md").write_text("not a .txt file")
    deepest = nest(texts / "deep", DEPTH)
    write(deepest / "bottom.txt", article(6))
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(texts / "sock.txt"))
    unterminated_csv(root / "u.csv")
    hostile_jsonl(root / "h.jsonl")
    documents = {
        "texts/a.txt",
        "texts/b.txt",
        "texts/dir.txt/inner.txt",
        "texts/sub/s.txt",
        "texts/deep/" + "d/" * DEPTH + "bottom.txt",
        "u.csv:2",
        "u.csv:4",
        "u.csv:5",
        "h.jsonl:1",
        "h.jsonl:4",
    }
    skipped = {
        "texts/image.txt": "binary",
        "texts/x.txt": "not-regular",
        "texts/notes.fifo": "not-regular",
        "texts/zero.txt": "link",
        "texts/sock.txt": "not-regular",
        "texts/gone.txt": "link",
        "texts/linked": "link",
        "texts/sub/loop": "link",
        (root / "texts").as_posix(): "duplicate-input",
        "u.csv:3": "bad-csv",
        "h.jsonl:2": "bad-json",
        "h.jsonl:3": "bad-json",
    }
    return documents, skipped


@POSIX_ONLY
@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="needs Unix sockets")
def test_every_hostile_input_at_once_is_accounted_for_exactly_once(tmp_path):
    root = tmp_path / "hostile"
    documents, skipped = _hostile_folder(root)
    inputs = ["texts", "u.csv", "h.jsonl", str(root / "texts")]
    try:
        result = run("dedup", *inputs, "--out", "c.jsonl", "--problems", "p.jsonl", cwd=root)
    finally:
        unnest(root / "texts" / "deep", DEPTH)
    assert result.returncode == 1, result.stderr[-2000:]
    ids = cluster_ids(root / "c.jsonl")
    assert len(ids) == len(set(ids)), "a document appears twice in the clusters"
    assert set(ids) == documents
    assert problems(root / "p.jsonl") == skipped
    out = result.stdout
    assert f"documents read: {len(documents)} (from 4 inputs)" in out
    assert f"skipped inputs: {len(skipped)} (" in out
    assert "files in folders not ending in .txt, passed over: 1" in out  # notes.md
    assert "removed: 1" in out  # only b.txt, the real copy of a.txt
    for kind in (stat.S_ISFIFO, stat.S_ISSOCK):  # the special files are still there, untouched
        assert any(kind(p.lstat().st_mode) for p in (root / "texts").iterdir())
