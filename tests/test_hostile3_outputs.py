"""Hostile and unlucky runs, round three: outputs that never lie, devices and links left alone.

One test per item of the issue (named ``test_itemNN_...``). A full disk is played by an
``os.fsync`` that fails for one file, as a full disk makes it fail when the last block is
flushed; writing over a device is tried on a stand-in node in a temporary folder, never on
the machine's own ``/dev``.
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from cli_run import run as run_cli

import neardup_lab.cli.commands as commands
from neardup_lab import make_article
from neardup_lab.cli.main import main
from neardup_lab.index.store import SavedIndex

POSIX_ONLY = pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX file types (FIFO, links, /dev)")
LINUX_ONLY = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc/self/fd (Linux)")
ROOT_ONLY = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="making a device node needs root"
)
TIMEOUT = 120  # seconds; a healthy run takes one or two


def article(i: int) -> str:
    return make_article(seed=700 + i, n_words=60)


def write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def jsonl(path: Path, n: int, first: int = 0) -> Path:
    return write(path, "".join(json.dumps({"text": article(first + i)}) + "\n" for i in range(n)))


def leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.rglob(".tmp-*")]


@contextlib.contextmanager
def disk_full_for(monkeypatch, name: str):
    """Make syncing any open file whose name holds ``name`` fail as on a full disk."""
    real = os.fsync

    def fsync(fd: int) -> None:
        if name in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd)

    with monkeypatch.context() as patched:
        patched.setattr(os, "fsync", fsync)
        yield


@pytest.fixture
def folder(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    jsonl(tmp_path / "a.jsonl", 3)
    return tmp_path


@pytest.fixture
def index(folder) -> Path:
    """A built index ``idx`` of a.jsonl, and a next batch b.jsonl."""
    jsonl(folder / "b.jsonl", 2, first=10)
    assert main(["index", "build", "idx", "a.jsonl", "-q"]) == 0
    return folder


# ----- item 1: an output never replaces a device or a link -------------------------------------


@POSIX_ONLY
@ROOT_ONLY
def test_item01_a_device_node_is_written_into_not_replaced(folder, capsys):
    null = os.makedev(os.major(os.stat("/dev/null").st_rdev), os.minor(os.stat("/dev/null").st_rdev))
    for name in ("null-kept", "null-problems"):  # stand-ins for /dev/null, in this test's own folder
        os.mknod(folder / name, 0o666 | stat.S_IFCHR, null)
        os.chmod(folder / name, 0o666)  # the umask took some bits
    args = ["dedup", "a.jsonl", "--keep-out", "null-kept", "--problems", "null-problems", "-q"]
    assert main(args) == 0, capsys.readouterr().err
    for name in ("null-kept", "null-problems"):
        st = os.lstat(folder / name)
        assert stat.S_ISCHR(st.st_mode) and st.st_rdev == null, f"{name} was replaced by a regular file"
        assert stat.S_IMODE(st.st_mode) == 0o666


@POSIX_ONLY
def test_item01_a_fifo_is_streamed_to(folder, capsys):
    os.mkfifo(folder / "pipe")
    reader = os.open(folder / "pipe", os.O_RDONLY | os.O_NONBLOCK)  # a reader waits on the other end
    try:
        assert main(["dedup", "a.jsonl", "--out", "pipe", "--out-format", "jsonl", "-q"]) == 0
        received = os.read(reader, 1 << 16).decode()
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.lstat(folder / "pipe").st_mode), "the FIFO was replaced by a regular file"
    assert [json.loads(line)["size"] for line in received.splitlines()] == [1, 1, 1]


@POSIX_ONLY
def test_item01_a_link_is_written_through_never_replaced(folder, capsys):
    write(folder / "runs" / "x.jsonl", "old\n")
    os.symlink("runs/x.jsonl", folder / "latest.jsonl")
    os.symlink("gone/y.jsonl", folder / "dangling.jsonl")
    assert main(["dedup", "a.jsonl", "--out", "latest.jsonl", "-q"]) == 0
    assert os.readlink(folder / "latest.jsonl") == "runs/x.jsonl", "the link was replaced"
    assert len((folder / "runs" / "x.jsonl").read_text().splitlines()) == 3
    assert main(["dedup", "a.jsonl", "--out", "dangling.jsonl"]) == 2
    assert "is a link to" in capsys.readouterr().err and os.path.islink(folder / "dangling.jsonl")


@POSIX_ONLY
@LINUX_ONLY
def test_item01_dev_stdout_is_streamed_to(tmp_path):
    """``/dev/stdout`` itself is a link to the process's descriptor 1; a stand-in link to that is tried."""
    jsonl(tmp_path / "a.jsonl", 3)
    os.symlink("/proc/self/fd/1", tmp_path / "stdout")
    result = run_cli("dedup", "a.jsonl", "--out", "stdout", "--out-format", "jsonl", "-q", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert os.path.islink(tmp_path / "stdout"), "the link to standard output was replaced by a file"
    assert [json.loads(line)["size"] for line in result.stdout.splitlines()] == [1, 1, 1]


# ----- item 2: a full disk on an output leaves the index as it was --------------------------------


@LINUX_ONLY
def test_item02_full_disk_on_a_report_leaves_the_index_unchanged_a_rerun_works(index, monkeypatch, capsys):
    before = sorted(p.name for p in (index / "idx").iterdir())
    args = ["index", "add", "idx", "b.jsonl", "--out", "m.jsonl", "--new-out", "new.jsonl", "-q"]
    with disk_full_for(monkeypatch, "m.jsonl"):
        assert main(args) == 2
    err = capsys.readouterr().err
    assert "No space left on device" in err and "m.jsonl" in err, err  # the error names the file
    assert len(SavedIndex.open("idx")) == 3, "the index grew although the run failed"
    assert sorted(p.name for p in (index / "idx").iterdir()) == before
    assert not (index / "m.jsonl").exists() and not (index / "new.jsonl").exists()
    assert not leftovers(index)
    assert main(args) == 0  # the report and the new records can be produced again
    assert len((index / "m.jsonl").read_text().splitlines()) == 2 and len(SavedIndex.open("idx")) == 5


@LINUX_ONLY
def test_item02_full_disk_on_the_index_leaves_no_orphan_data_file(index, monkeypatch, capsys):
    before = sorted(p.name for p in (index / "idx").iterdir())
    with disk_full_for(monkeypatch, "index.json"):
        assert main(["index", "add", "idx", "b.jsonl", "--out", "m.jsonl", "-q"]) == 2
    err = capsys.readouterr().err
    assert "cannot save the index idx: No space left on device" in err, err
    assert sorted(p.name for p in (index / "idx").iterdir()) == before, "a data file was left behind"
    assert not (index / "m.jsonl").exists() and not leftovers(index)


# ----- item 3: --keep-out finds every record again or fails ----------------------------------------


@pytest.mark.parametrize("kind", ["jsonl", "csv"])
def test_item03_an_input_cut_short_before_the_copy_is_refused(folder, monkeypatch, capsys, kind):
    name = f"in.{kind}"
    if kind == "jsonl":
        full = jsonl(folder / name, 6).read_bytes()
    else:
        rows = "".join(f'{i},"{article(i)}"\n' for i in range(6))
        full = write(folder / name, "id,text\n" + rows).read_bytes()
    real = commands.dedup

    def rotated_meanwhile(texts, **options):  # the input is cut short between the read and the copy
        (folder / name).write_bytes(b"".join(full.splitlines(keepends=True)[:4]))  # at a line end
        return real(texts, **options)

    monkeypatch.setattr(commands, "dedup", rotated_meanwhile)
    assert main(["dedup", name, "--keep-out", f"kept.{kind}", "-q"]) == 2
    err = capsys.readouterr().err
    assert "changed while this run read it" in err and "nothing was written" in err
    assert not (folder / f"kept.{kind}").exists() and not leftovers(folder)


# ----- item 4: the outputs are all written or none is -----------------------------------------------


@LINUX_ONLY
def test_item04_a_failed_output_leaves_the_others_as_they_were(folder, monkeypatch, capsys):
    write(folder / "c.jsonl", "old\n")
    with disk_full_for(monkeypatch, "p.jsonl"):
        assert main(["dedup", "a.jsonl", "--out", "c.jsonl", "--problems", "p.jsonl", "-q"]) == 2
    assert "cannot write p.jsonl: No space left on device" in capsys.readouterr().err
    assert (folder / "c.jsonl").read_text() == "old\n", "--out was replaced although the run failed"
    assert not (folder / "p.jsonl").exists() and not leftovers(folder)


# ----- item 7: a newline in a file name never corrupts a list of paths ------------------------------


@POSIX_ONLY
def test_item07_a_newline_in_a_file_name_is_refused_in_lines_and_kept_whole_with_null(folder, capsys):
    write(folder / "f" / "a.txt", article(0))
    write(folder / "f" / "x\nnotes.txt", article(0))  # a copy of a.txt: the one removed
    assert main(["dedup", "f", "--removed-out", "removed.lst", "-q"]) == 2
    assert "holds a control character" in capsys.readouterr().err
    assert not (folder / "removed.lst").exists()
    assert main(["dedup", "f", "--removed-out", "removed.lst", "--null", "-q"]) == 0
    assert (folder / "removed.lst").read_bytes() == b"f/x\nnotes.txt\0"


# ----- item 9: a damaged input read again for --keep-out ----------------------------------------------


def test_item09_a_truncated_gz_input_with_keep_out_keeps_what_was_read(folder):
    records = [json.dumps({"text": article(i)}) for i in range(2000)]  # the reader decompresses in steps
    packed = gzip.compress(("\n".join(records) + "\n").encode())
    write(folder / "cut.jsonl.gz", packed[: len(packed) // 2])
    result = run_cli("dedup", "cut.jsonl.gz", "--keep-out", "kept.jsonl", cwd=folder, timeout=TIMEOUT)
    assert result.returncode == 1, result.stderr
    assert "internal error" not in result.stderr and "skipped cut.jsonl.gz" in result.stderr
    kept = (folder / "kept.jsonl").read_text().splitlines()
    assert 0 < len(kept) < len(records) and kept == records[: len(kept)]


# ----- item 14: SIGTERM is Ctrl-C ------------------------------------------------------------------------

_TERMINATED_WHILE_WRITING = textwrap.dedent(
    """
    import os, signal, sys
    from neardup_lab.cli import outputs
    from neardup_lab.cli.main import main

    real = outputs.records_writer

    def writer(*args, **kwargs):
        write = real(*args, **kwargs)

        def terminated(f):
            write(f)
            f.flush()  # half the run's files are on disk under their temporary names
            os.kill(os.getpid(), signal.SIGTERM)

        return terminated

    outputs.records_writer = writer
    sys.exit(main(sys.argv[1:]))
    """
)


@POSIX_ONLY
@LINUX_ONLY
def test_item14_sigterm_leaves_no_debris_and_no_process(folder):
    jsonl(folder / "big.jsonl", 50)
    script = write(folder / "driver.py", _TERMINATED_WHILE_WRITING)
    args = [sys.executable, str(script), "dedup", "big.jsonl", "--jobs", "2", "--out", "c.jsonl"]
    child = subprocess.Popen(
        [*args, "--keep-out", "kept.jsonl"],
        cwd=folder,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own session: every process it starts can be found by it
    )
    out, err = child.communicate(timeout=TIMEOUT)
    assert child.returncode == 2, (child.returncode, err)
    assert "interrupted" in err
    assert not leftovers(folder), "a temporary file was left behind"
    assert not (folder / "kept.jsonl").exists() and not (folder / "c.jsonl").exists()
    assert not _in_session(child.pid), "a worker outlived its parent"


def _in_session(session: int) -> list[int]:
    """The processes still running in ``session``."""
    found = []
    for stat_file in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = stat_file.read_text().rsplit(")", 1)[1].split()  # after "pid (name)"
            if int(fields[3]) == session:  # state, ppid, pgrp, session
                found.append(int(stat_file.parent.name))
    return found


# ----- item 15: the smaller ones ----------------------------------------------------------------------


@POSIX_ONLY
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
def test_item15_stdout_on_a_full_device_does_not_make_the_exit_code_lie(folder):
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "neardup_lab", "dedup", "a.jsonl", "--out", "c.jsonl"],
            cwd=folder,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=TIMEOUT,
        )
    assert done.returncode == 0, done.stderr
    assert "the summary could not be printed" in done.stderr
    assert len((folder / "c.jsonl").read_text().splitlines()) == 3


@pytest.mark.parametrize("suffix", [".bz2", ".xz"])
def test_item15_a_compression_not_written_is_refused(folder, capsys, suffix):
    assert main(["dedup", "a.jsonl", "--keep-out", f"kept.jsonl{suffix}"]) == 2
    assert f"names a {suffix} file, which is not written" in capsys.readouterr().err
    assert not (folder / f"kept.jsonl{suffix}").exists()


def test_item15_a_warning_is_printed_as_a_warning_not_a_traceback_line(tmp_path):
    write(tmp_path / "w.jsonl", "".join(json.dumps({"text": f"onelongword{i}"}) + "\n" for i in range(20)))
    result = run_cli("dedup", "w.jsonl", cwd=tmp_path, timeout=TIMEOUT)
    assert result.returncode == 0, result.stderr
    assert "warning: most documents are a single word" in result.stderr
    assert "UserWarning" not in result.stderr and ".py:" not in result.stderr
