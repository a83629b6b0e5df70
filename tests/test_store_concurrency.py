"""Readers and a writer at once: a query never fails because an add committed while it opened the index."""

from __future__ import annotations

import subprocess
import sys
import time

from neardup_lab import make_article
from neardup_lab.index.store import SavedIndex, StoreError
from neardup_lab.settings import Settings

ROUNDS = 150  # adds by the writer; the reader opens and queries the index all the while
TIMEOUT = 300

WRITER = """
import sys
from neardup_lab import make_article
from neardup_lab.index.store import SavedIndex

path, rounds = sys.argv[1], int(sys.argv[2])
for i in range(rounds):
    index = SavedIndex.open(path)
    index.add([f"w{i}"], [make_article(seed=1000 + i, n_words=40)])
    index.save(path)
"""


def test_queries_while_another_process_adds_never_fail(tmp_path):
    path = tmp_path / "idx"
    first = make_article(seed=999, n_words=40)
    index = SavedIndex(Settings(num_perm=64))
    index.add(["first"], [first])
    index.save(path)
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(ROUNDS)], stderr=subprocess.PIPE)
    failures: list[str] = []
    generations: set[int] = set()
    deadline = time.monotonic() + TIMEOUT
    try:
        while writer.poll() is None:
            assert time.monotonic() < deadline, "the writer did not finish"
            try:
                opened = SavedIndex.open(path)
                assert [m.id for m in opened.query([first])[0]] == ["first"]
                generations.add(opened.info()["generation"])
            except StoreError as err:
                failures.append(str(err))
    finally:
        if writer.poll() is None:
            writer.kill()
        _, errors = writer.communicate(timeout=TIMEOUT)
    assert writer.returncode == 0, errors.decode()
    # The reader really raced the writer: it saw the index at many generations.
    assert len(generations) >= 10, sorted(generations)
    assert failures == []
    assert len(SavedIndex.open(path)) == ROUNDS + 1
