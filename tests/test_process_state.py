"""A library leaves the process as it found it: after ``dedup``, a saved index and the command line
run in this process, the umask, the open descriptors, the warning hooks and filters, the signal
handlers and the environment are what they were; a Ctrl-C that comes while outputs are committed
is raised once they are, never dropped."""

import errno
import io
import json
import os
import signal
import sys
import warnings

import pytest

import neardup_lab.cli.commands as commands
from neardup_lab import dedup, make_article, make_corpus
from neardup_lab.cli import outputs
from neardup_lab.cli.main import main
from neardup_lab.index.store import SavedIndex

pytestmark = pytest.mark.native("lists the process's descriptors in /proc")


def _state() -> dict[str, object]:
    mask = os.umask(0o022)
    os.umask(mask)
    return {
        "umask": mask,
        "descriptors": sorted(os.listdir("/proc/self/fd")),
        "descriptor 1": (os.fstat(1).st_dev, os.fstat(1).st_ino),
        "showwarning": warnings.showwarning,
        "filters": list(warnings.filters),
        "SIGINT": signal.getsignal(signal.SIGINT),
        "SIGTERM": signal.getsignal(signal.SIGTERM),
        "environment": dict(os.environ),
    }


class _FullDisk(io.StringIO):
    """A standard output on a full disk, on descriptor 1."""

    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def fileno(self) -> int:
        return 1


def _jsonl(path, texts) -> None:
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")


def test_dedup_an_index_and_the_command_line_leave_the_process_as_they_found_it(
    tmp_path, monkeypatch, capsys
) -> None:
    docs = make_corpus(50, seed=4)[0]
    (tmp_path / "docs").mkdir()
    for number, text in enumerate(docs):
        (tmp_path / "docs" / f"{number:03d}.txt").write_text(text, encoding="utf-8")
    _jsonl(tmp_path / "a.jsonl", docs[:20])
    _jsonl(tmp_path / "b.jsonl", docs[20:30])
    _jsonl(tmp_path / "words.jsonl", [f"onelongword{n}" for n in range(20)])  # warns: no spaces
    import scipy.sparse.csgraph  # noqa: F401  scipy adds warning filters when first imported: its own doing
    import scipy.special  # noqa: F401

    before = _state()
    dedup(docs, threshold=0.7, n_jobs=2)
    index = SavedIndex()
    index.add([str(n) for n in range(len(docs))], docs)
    index.save(tmp_path / "idx")
    SavedIndex.open(tmp_path / "idx")
    t = str(tmp_path)
    runs = [
        (0, ["dedup", f"{t}/docs", "--out", f"{t}/clusters.jsonl"]),
        (0, ["index", "build", f"{t}/idx2", f"{t}/docs"]),
        (0, ["dedup", f"{t}/a.jsonl", "--keep-out", f"{t}/kept.jsonl", "--out", f"{t}/c.csv", "--jobs", "2"]),
        (0, ["index", "build", f"{t}/idx3", f"{t}/a.jsonl"]),
        (0, ["index", "add", f"{t}/idx3", f"{t}/b.jsonl", "--new-out", f"{t}/new.jsonl"]),
        (0, ["dedup", f"{t}/words.jsonl"]),
        (0, ["explain", "--text", "heavy rain", "--text", "heavy snow", "-k", "1"]),
        (2, ["dedup", f"{t}/a.jsonl", "--keep-out", f"{t}/a.jsonl"]),  # refused: an input
        (2, ["index", "info", f"{t}/no-such-index"]),
    ]
    with pytest.warns(UserWarning, match="single word"):  # to the process's own hooks, as dedup() does
        codes = [main(argv) for _, argv in runs]
    with monkeypatch.context() as patched:
        patched.setattr(sys, "stdout", _FullDisk())
        codes.append(main(["dedup", f"{t}/a.jsonl", "--out", f"{t}/c2.jsonl"]))
    assert "the summary could not be printed (No space left on device)" in capsys.readouterr().err
    assert codes == [code for code, _ in runs] + [0]
    after = _state()
    changed = {key: (before[key], after[key]) for key in before if before[key] != after[key]}
    assert changed == {}


def test_a_warning_of_an_in_process_run_reaches_the_process_hook(tmp_path, monkeypatch, capsys) -> None:
    seen: list[str] = []
    monkeypatch.setattr(warnings, "showwarning", lambda message, *_, **__: seen.append(str(message)))
    _jsonl(tmp_path / "words.jsonl", [f"onelongword{n}" for n in range(20)])
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        assert main(["dedup", str(tmp_path / "words.jsonl"), "-q"]) == 0
    assert any("single word" in message for message in seen), seen
    assert "warning: most documents" not in capsys.readouterr().err  # the hook decided, not the command


def test_a_sigint_during_the_commit_is_raised_once_the_outputs_are_in_place(tmp_path) -> None:
    out = tmp_path / "problems.jsonl"
    handler = signal.getsignal(signal.SIGINT)
    steps = []
    staged = outputs.staged([(str(out), outputs.problems_writer([]))])
    with pytest.raises(KeyboardInterrupt) as stopped, staged:
        signal.raise_signal(signal.SIGINT)  # Ctrl-C while the block (an index save) runs
        steps.append(("block finished", out.exists()))
    assert steps == [("block finished", False)]  # not stopped inside, and not yet in place
    assert out.read_text() == "" and not list(tmp_path.glob(".tmp-*"))  # then committed
    assert "waited until they all were" in str(stopped.value.__notes__)
    assert signal.getsignal(signal.SIGINT) is handler


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_the_index_save_stops_the_command_after_it_commits(
    tmp_path, monkeypatch, capsys, number
) -> None:
    _jsonl(tmp_path / "a.jsonl", [make_article(seed=n, n_words=30) for n in range(3)])
    _jsonl(tmp_path / "b.jsonl", [make_article(seed=n, n_words=30) for n in range(10, 12)])
    idx = str(tmp_path / "idx")
    assert main(["index", "build", idx, str(tmp_path / "a.jsonl"), "-q"]) == 0
    real = commands._save

    def save_then_signal(index, path):  # noqa: ANN001, ANN202 (the signature of _save)
        signal.raise_signal(number)
        real(index, path)

    monkeypatch.setattr(commands, "_save", save_then_signal)
    handlers = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    argv = ["index", "add", idx, str(tmp_path / "b.jsonl"), "--new-out", str(tmp_path / "new.jsonl")]
    assert main(argv) == 2
    assert "interrupted; it came while the outputs were put in place" in capsys.readouterr().err
    assert len(SavedIndex.open(idx)) == 5  # the save finished
    assert len((tmp_path / "new.jsonl").read_text().splitlines()) == 2  # and the output is in place
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == handlers
