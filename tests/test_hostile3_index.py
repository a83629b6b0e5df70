"""Hostile and unlucky inputs, round three, for the saved index (issue items 5, 6 and 10).

One long id must not inflate the index or a query's memory (item 5), no file of an index
folder is opened through a link or when it is not a regular file (item 6), and an input file
added before is refused under any other path or link (item 10). Written in the style of
``tests/test_hostile.py``: one test per item, each failing on the code before its fix.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from neardup_lab import make_article
from neardup_lab.cli.main import main
from neardup_lab.index.fileformat import FORMAT_VERSION, StoreError
from neardup_lab.index.store import FileAddedError, SavedIndex
from neardup_lab.settings import Settings

POSIX_ONLY = pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX links and FIFOs")
SMALL = Settings(threshold=0.8, num_perm=32)


def article(i: int) -> str:
    return make_article(seed=900 + i, n_words=60)


def write(path: Path, data: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data, encoding="utf-8")
    return path


def jsonl(path: Path, texts: list[str]) -> Path:
    return write(path, "".join(json.dumps({"text": t}) + "\n" for t in texts))


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def data_file(index: Path) -> Path:
    return index / json.loads((index / "index.json").read_text())["data_file"]


# ----- item 5: one long id ------------------------------------------------------------------------


N_IDS = 2_000  # the 20,000, scaled down: the growth it found is proportional to the count
LONG_ID = "https://example.org/" + "a" * 3_980  # a 4,000-character URL, as --id-field meta.url gives


def _index_with(path: Path, last_id: str) -> Path:
    texts = [f"note {i} about heavy rain in district {i % 97} on day {i // 97}" for i in range(N_IDS)]
    index = SavedIndex(Settings(threshold=0.8, num_perm=16, k=2))
    index.add([f"doc-{i}" for i in range(N_IDS - 1)] + [last_id], texts)
    index.save(path)
    return path


def _peak_bytes_of_a_query(path: Path) -> int:
    tracemalloc.start()  # numpy reports its array buffers to tracemalloc
    try:
        found = SavedIndex.open(path).query(["note 7 about heavy rain in district 7 on day 0"])
        assert [m.id for m in found[0]] == ["doc-7"]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_item05_one_long_id_costs_its_own_length_only(tmp_path):
    short = _index_with(tmp_path / "short", "doc-last")
    long = _index_with(tmp_path / "long", LONG_ID)
    assert SavedIndex.open(long).ids[-1] == LONG_ID
    grown = data_file(long).stat().st_size - data_file(short).stat().st_size
    assert grown < 2 * len(LONG_ID), f"one long id grew the index by {grown:,} bytes"
    extra = _peak_bytes_of_a_query(long) - _peak_bytes_of_a_query(short)
    assert extra < 200_000, f"one long id made a query take {extra:,} more bytes"


def test_item05_an_index_of_the_previous_format_is_still_read_and_upgraded(tmp_path):
    """Version 2 stored ids as a fixed-width unicode array; it opens, and the next save writes version 3."""
    path = tmp_path / "idx"
    index = SavedIndex(SMALL)
    index.add(["a", "caf\udce9"], [article(0), article(1)])
    index.save(path)
    _rewrite_as_version_2(path)
    old = SavedIndex.open(path)
    assert old.ids == ["a", "caf\udce9"] and old.info()["format_version"] == 2  # as read, not the code's
    old.add(["b"], [article(2)])
    old.save(path)
    meta = json.loads((path / "index.json").read_text())
    assert meta["format_version"] == FORMAT_VERSION == 3
    again = SavedIndex.open(path)
    assert again.ids == ["a", "caf\udce9", "b"] and again.info()["format_version"] == 3


def _rewrite_as_version_2(path: Path) -> None:
    data = data_file(path)
    with np.load(data, allow_pickle=False) as npz:
        arrays = {name: npz[name] for name in npz.files}
    offsets, blob = arrays["id_offsets"].tolist(), arrays["ids"].tobytes()
    ids = [blob[a:b].decode("utf-8", "surrogatepass") for a, b in zip(offsets, offsets[1:])]
    header = json.loads(str(arrays["header"]))
    header["format_version"] = 2
    old = {name: arrays[name] for name in ("signatures", "shingle_offsets", "shingle_ids", "exact_keys")}
    old["ids"] = np.array(ids, dtype=str)
    old["header"] = np.array(json.dumps(header, sort_keys=True, separators=(",", ":")))
    with open(data, "wb") as f:
        np.savez(f, **old)
    meta = json.loads((path / "index.json").read_text())
    meta.update(format_version=2, data_sha256=hashlib.sha256(data.read_bytes()).hexdigest())
    (path / "index.json").write_text(json.dumps(meta, indent=2) + "\n")


# ----- item 6: links and odd files in the index folder ----------------------------------------------


@pytest.fixture
def built(tmp_path, monkeypatch) -> Path:
    """An index ``idx`` of day1.jsonl, and day2.jsonl to add; the working folder is ``tmp_path``."""
    monkeypatch.chdir(tmp_path)
    jsonl(tmp_path / "day1.jsonl", [article(i) for i in range(3)])
    jsonl(tmp_path / "day2.jsonl", [article(i) for i in range(3, 5)])
    assert main(["index", "build", "idx", "day1.jsonl", "-q"]) == 0
    return tmp_path


@POSIX_ONLY
def test_item06_a_linked_or_odd_lock_is_refused_and_its_target_left_alone(built, capsys):
    # Never a real system file: the stand-ins live in the test's own folder.
    victim, precious = built / "nologin", write(built / "precious.txt", "keep me\n")
    os.utime(precious, (1_000_000_000, 1_000_000_000))
    lock = built / "idx" / ".lock"
    for make_odd, message in [
        (lambda: lock.symlink_to(victim), ".lock in the index idx is a symbolic link"),
        (lambda: lock.symlink_to(precious), ".lock in the index idx is a symbolic link"),
        (lambda: os.mkfifo(lock), ".lock in the index idx is not a regular file"),
    ]:
        lock.unlink()
        make_odd()
        before = snapshot(built / "idx")
        assert main(["index", "add", "idx", "day2.jsonl", "-q"]) == 2
        err = capsys.readouterr().err
        assert message in err and "Remove idx/.lock" in err, err
        assert snapshot(built / "idx") == before
        assert not os.path.lexists(victim), "the lock's link target was created"
        assert precious.read_text() == "keep me\n" and precious.stat().st_mtime == 1_000_000_000
    lock.unlink()  # a plain file again: the add goes through
    assert main(["index", "add", "idx", "day2.jsonl", "-q"]) == 0
    assert len(SavedIndex.open("idx")) == 5


@POSIX_ONLY
def test_item06_linked_index_files_are_not_read(built):
    meta, data = built / "idx" / "index.json", data_file(built / "idx")
    for member in (meta, data):
        moved = built / f"elsewhere-{member.name}"
        os.replace(member, moved)
        member.symlink_to(moved)
        with pytest.raises(StoreError, match="a symbolic link, not a regular file"):
            SavedIndex.open(built / "idx")
        member.unlink()
        os.replace(moved, member)
    assert len(SavedIndex.open(built / "idx")) == 3


# ----- item 10: the same input file by another path ---------------------------------------------------


@POSIX_ONLY
def test_item10_a_file_added_before_is_refused_by_any_path_or_link(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    jsonl(tmp_path / "d" / "a.jsonl", [article(i) for i in range(20)])
    write(tmp_path / "t" / "one.txt", article(30))
    assert main(["index", "build", "idx", "d/a.jsonl", "t", "-q"]) == 0
    (tmp_path / "sub").mkdir()
    os.symlink("d/a.jsonl", tmp_path / "link.jsonl")
    os.link(tmp_path / "d" / "a.jsonl", tmp_path / "hard.jsonl")
    before = snapshot(tmp_path / "idx")
    attempts = [
        ("", str(tmp_path / "d" / "a.jsonl"), "d/a.jsonl"),  # absolute instead of relative
        ("sub", "../d/a.jsonl", "d/a.jsonl"),  # from another working folder
        ("", "link.jsonl", "d/a.jsonl"),  # a symbolic link
        ("", "hard.jsonl", "d/a.jsonl"),  # a hard link
        ("", str(tmp_path / "t"), "t/one.txt"),  # a folder of .txt files, by its absolute path
    ]
    for folder, given, first in attempts:
        monkeypatch.chdir(tmp_path / folder)
        index = os.path.relpath(tmp_path / "idx")
        assert main(["index", "add", index, given, "-q"]) == 2, given
        err = capsys.readouterr().err
        assert f"was added to this index before, as {first}" in err and "nothing changed" in err, err
    monkeypatch.chdir(tmp_path)
    assert snapshot(tmp_path / "idx") == before
    assert len(SavedIndex.open("idx")) == 21
    assert "--id-prefix" in err  # the way to add these documents again on purpose, under other ids
    assert main(["index", "add", "idx", "hard.jsonl", "--id-prefix", "again/", "-q"]) == 0
    assert len(SavedIndex.open("idx")) == 41
    # A copy is another file: it is added, and its documents are found as exact copies.
    (tmp_path / "copy.jsonl").write_bytes((tmp_path / "d" / "a.jsonl").read_bytes())
    assert main(["index", "add", "idx", "copy.jsonl", "--out", "m.jsonl", "-q"]) == 0
    assert len(SavedIndex.open("idx")) == 61


def test_item10_the_api_refuses_a_file_added_before(tmp_path):
    path = jsonl(tmp_path / "a.jsonl", [article(0)])
    index = SavedIndex(SMALL)
    index.add(["a:1"], [article(0)], files=[path])
    index.save(tmp_path / "idx")
    again = SavedIndex.open(tmp_path / "idx")
    with pytest.raises(FileAddedError, match="added to this index before"):
        again.add(["b:1"], [article(0)], files=[str(path.resolve())])
    assert len(again) == 1
    again.add(["a-again:1"], [article(0)], files=[path], repeat_files=True)  # on purpose, other ids
    assert len(again) == 2
    path.write_text(json.dumps({"text": article(1)}) + "\n")  # rewritten in place: a new file
    again.add(["b:1"], [article(1)], files=[path])
    assert len(again) == 3
