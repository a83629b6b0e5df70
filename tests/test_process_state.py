"""A library leaves the process as it found it: after ``dedup``, a saved index and the command line
run in this process, the umask, the open descriptors, the warning hooks and filters, the signal
handlers and the environment are what they were."""

import os
import signal
import warnings

import pytest

from neardup_lab import dedup, make_corpus
from neardup_lab.cli.main import main
from neardup_lab.index.store import SavedIndex

pytestmark = pytest.mark.native("lists the process's descriptors in /proc")


def _state() -> dict[str, object]:
    mask = os.umask(0o022)
    os.umask(mask)
    return {
        "umask": mask,
        "descriptors": sorted(os.listdir("/proc/self/fd")),
        "showwarning": warnings.showwarning,
        "filters": list(warnings.filters),
        "SIGINT": signal.getsignal(signal.SIGINT),
        "SIGTERM": signal.getsignal(signal.SIGTERM),
        "environment": dict(os.environ),
    }


def test_dedup_an_index_and_the_command_line_leave_the_process_as_they_found_it(tmp_path, capsys) -> None:
    docs = make_corpus(50, seed=4)[0]
    (tmp_path / "docs").mkdir()
    for number, text in enumerate(docs):
        (tmp_path / "docs" / f"{number:03d}.txt").write_text(text, encoding="utf-8")
    import scipy.sparse.csgraph  # noqa: F401  scipy adds warning filters when first imported: its own doing
    import scipy.special  # noqa: F401

    before = _state()
    dedup(docs, threshold=0.7, n_jobs=2)
    index = SavedIndex()
    index.add([str(n) for n in range(len(docs))], docs)
    index.save(tmp_path / "idx")
    SavedIndex.open(tmp_path / "idx")
    code = main(["dedup", str(tmp_path / "docs"), "--out", str(tmp_path / "clusters.jsonl")])
    code_index = main(["index", "build", str(tmp_path / "idx2"), str(tmp_path / "docs")])
    capsys.readouterr()
    assert (code, code_index) == (0, 0)
    after = _state()
    changed = {key: (before[key], after[key]) for key in before if before[key] != after[key]}
    assert changed == {}
