"""The saved index: query-before-insert, exact verification, safe and atomic persistence."""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from neardup_lab import (
    MinHasher,
    dedup,
    jaccard,
    make_article,
    make_corpus,
    replace_words,
    word_shingles,
)
from neardup_lab.clusters import clusters_from_pairs
from neardup_lab.engine.pipeline import exact_groups
from neardup_lab.engine.tokenize import shingle_id_batch
from neardup_lab.index.fileformat import FORMAT_VERSION, NORMALIZATION, atomic_writer
from neardup_lab.index.store import (
    CorruptIndexError,
    IndexBusyError,
    IndexExistsError,
    IndexVersionError,
    SavedIndex,
    SettingsMismatchError,
    StoreError,
)
from neardup_lab.settings import MAX_NUM_PERM, MAX_SHINGLE_SIZE, Settings

SMALL = Settings(threshold=0.8, num_perm=64)


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes: 'nothing changed on disk' is equality of two of these."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def articles(n: int, words: int = 120) -> list[str]:
    return [make_article(seed=100 + i, n_words=words) for i in range(n)]


@pytest.fixture
def saved(tmp_path) -> Path:
    """An index of four articles saved at tmp_path/idx."""
    index = SavedIndex(SMALL)
    index.add([f"old-{i}" for i in range(4)], articles(4))
    path = tmp_path / "idx"
    index.save(path)
    return path


def rewrite_meta(path: Path, change) -> None:
    meta = json.loads((path / "index.json").read_text())
    change(meta)
    (path / "index.json").write_text(json.dumps(meta))


def replace_data(path: Path, arrays: dict, fix_checksum: bool = True) -> None:
    """Swap the data file for one holding ``arrays``, and (as an attacker would) fix the checksum."""
    meta = json.loads((path / "index.json").read_text())
    data = path / meta["data_file"]
    with open(data, "wb") as f:
        np.savez(f, **arrays)
    if fix_checksum:
        meta["data_sha256"] = hashlib.sha256(data.read_bytes()).hexdigest()
        (path / "index.json").write_text(json.dumps(meta))


def current_arrays(path: Path) -> dict[str, np.ndarray]:
    meta = json.loads((path / "index.json").read_text())
    with np.load(path / meta["data_file"], allow_pickle=False) as npz:
        return {name: npz[name] for name in npz.files}


# ----- settings --------------------------------------------------------------------------


def test_the_index_takes_the_settings_dedup_takes():
    settings = Settings(threshold=0.7, num_perm=64)
    assert SavedIndex(settings).settings is settings
    assert SavedIndex().settings == Settings() == dedup(["a text"]).settings
    with pytest.raises(TypeError, match="Settings"):
        SavedIndex({"threshold": 0.7})


@pytest.mark.parametrize(("name", "value"), [("verify", "estimate"), ("bbits", 8), ("keeper", "longest")])
def test_settings_an_index_cannot_honour_are_refused(name, value):
    with pytest.raises(ValueError, match=f"a saved index always verifies exactly.*{name}="):
        SavedIndex(Settings(**{name: value}))


def test_settings_round_trip_through_index_json(tmp_path):
    settings = Settings(threshold=0.7, shingle="char", k=4, seed=9)
    SavedIndex(settings).save(tmp_path / "idx")
    meta = json.loads((tmp_path / "idx" / "index.json").read_text())
    assert meta["settings"] == settings.to_dict() and meta["normalization"] == NORMALIZATION
    assert SavedIndex.open(tmp_path / "idx").settings == settings


# ----- matching ----------------------------------------------------------------------------


def test_query_before_insert_within_a_batch():
    base = articles(3)
    near = replace_words(base[0], 2, seed=5)
    index = SavedIndex(SMALL)
    found = index.add(["a", "b", "c", "a-copy", "a-near"], [*base, base[0].upper(), near])
    # An exact copy is represented by the first document with its text: "a-near" is
    # reported as a duplicate of "a", not again of "a-copy".
    assert [[m.id for m in ms] for ms in found] == [[], [], [], ["a"], ["a"]]
    copy_match = found[3][0]
    assert copy_match.exact and not copy_match.in_index and copy_match.jaccard == 1.0
    assert not found[4][0].exact and found[4][0].jaccard < 1.0
    assert len(index) == 5


def test_later_batch_is_compared_with_the_index_first():
    base = articles(3)
    index = SavedIndex(SMALL)
    index.add(["a", "b", "c"], base)
    near_b = replace_words(base[1], 1, seed=1)
    found = index.add(["d1", "d2", "d3"], [near_b, "unrelated words " * 20, base[2]])
    assert [(m.id, m.in_index, m.exact) for m in found[0]] == [("b", True, False)]
    assert found[1] == []
    assert [(m.id, m.exact) for m in found[2]] == [("c", True)]
    # Matches are verified exactly: the Jaccard reported is the shingle-set Jaccard.
    assert found[0][0].jaccard == pytest.approx(jaccard(word_shingles(near_b), word_shingles(base[1])))


def test_query_does_not_insert_and_ignores_the_batch():
    index = SavedIndex(SMALL)
    index.add(["a"], articles(1))
    text = articles(1)[0]
    found = index.query([text, text])
    assert [[m.id for m in ms] for ms in found] == [["a"], ["a"]]
    assert len(index) == 1


def test_a_text_without_words_is_nobodys_copy():
    index = SavedIndex(SMALL)
    found = index.add(["e1", "e2", "e3"], ["", "  !? ", "real text here for once"])
    assert found == [[], [], []]
    assert index.add(["e4"], ["🙂"]) == [[]] and index.query([""]) == [[]]  # nor in later batches


def test_agrees_with_dedup_on_a_corpus_split_into_batches():
    """Same shingle ids, signatures and banding as dedup(): the same verified near pairs."""
    docs = make_corpus(150, seed=4).docs
    index = SavedIndex(Settings(threshold=0.8))
    half = len(docs) // 2
    found = index.add([str(i) for i in range(half)], docs[:half])
    found += index.add([str(i) for i in range(half, len(docs))], docs[half:])
    offset = [0] * half + [half] * (len(docs) - half)  # batch positions -> corpus positions

    def older(j, m):
        return m.position if m.in_index else offset[j] + m.position

    ours = {(older(j, m), j) for j, ms in enumerate(found) for m in ms}
    first = exact_groups(docs)
    result = dedup(docs, threshold=0.8)
    copies = {(f, i) for i, f in enumerate(first) if f != i}
    near = set(result.pairs) - copies
    assert near, "the corpus must have near duplicates for this test to mean anything"
    # dedup skips pairs that are already joined, so its pairs are some of ours, and they
    # make the same clusters.
    assert near <= ours
    assert clusters_from_pairs(len(docs), ours | copies) == result.clusters
    sets = [word_shingles(d) for d in docs]
    assert all(jaccard(sets[a], sets[b]) >= 0.8 for a, b in ours)


def test_signatures_are_those_dedup_uses():
    docs = articles(5)
    index = SavedIndex(Settings(num_perm=32, seed=3))
    index.add(list("abcde"), docs)
    ids = shingle_id_batch(docs, 5)
    expected = MinHasher(32, seed=3).signatures(ids)
    assert np.array_equal(index.signatures, expected)
    assert not index.signatures.flags.writeable


def test_char_shingles_work():
    index = SavedIndex(Settings(threshold=0.6, shingle="char", k=3, num_perm=64))
    found = index.add(["x", "y"], ["東京の天気は晴れです", "東京の天気は晴れでした"])
    assert [m.id for m in found[1]] == ["x"]


def test_bad_ids_leave_the_index_unchanged():
    index = SavedIndex(SMALL)
    index.add(["a"], ["first text"])
    with pytest.raises(ValueError, match="already in the index"):
        index.add(["b", "a"], ["x", "y"])
    with pytest.raises(ValueError, match="repeated in this batch"):
        index.add(["b", "b"], ["x", "y"])
    with pytest.raises(ValueError, match="one id per text"):
        index.add(["b"], ["x", "y"])
    with pytest.raises(ValueError, match="non-empty str"):
        index.add([""], ["x"])
    with pytest.raises(TypeError):
        index.add(["b"], [b"bytes"])
    assert index.ids == ["a"]


# ----- persistence -----------------------------------------------------------------------


def test_round_trip_keeps_everything(saved):
    index = SavedIndex.open(saved)
    assert index.ids == [f"old-{i}" for i in range(4)]
    assert index.settings == SMALL
    fresh = SavedIndex(SMALL)
    fresh.add(index.ids, articles(4))
    assert np.array_equal(index.signatures, fresh.signatures)
    assert [m.id for m in index.query([articles(4)[2]])[0]] == ["old-2"]
    meta = json.loads((saved / "index.json").read_text())
    assert meta["format_version"] == FORMAT_VERSION and meta["documents"] == 4
    assert meta["settings"]["shingle"] == "word" and meta["normalization"] == NORMALIZATION
    arrays = current_arrays(saved)
    assert arrays["ids"].dtype == np.uint8 and arrays["id_offsets"].tolist() == [0, 5, 10, 15, 20]
    assert arrays["signatures"].shape == (4, 64)
    assert all(a.dtype != object for a in arrays.values())


def test_update_writes_a_new_generation_and_removes_the_old(saved):
    index = SavedIndex.open(saved)
    index.add(["new"], ["some brand new text for the index"])
    index.save(saved)
    names = sorted(p.name for p in saved.iterdir())
    assert names == [".lock", "data-000002.npz", "index.json"]
    assert SavedIndex.open(saved).ids[-1] == "new"


def test_new_index_refuses_an_existing_path(saved):
    before = snapshot(saved)
    with pytest.raises(IndexExistsError, match="already exists"):
        SavedIndex(SMALL).save(saved)
    assert snapshot(saved) == before


def test_opened_index_saves_only_where_it_came_from(saved, tmp_path):
    with pytest.raises(StoreError, match="only be saved back"):
        SavedIndex.open(saved).save(tmp_path / "elsewhere")


def test_concurrent_change_is_detected_and_nothing_is_written(saved):
    first, second = SavedIndex.open(saved), SavedIndex.open(saved)
    first.add(["x"], ["written by the first run"])
    first.save(saved)
    after_first = snapshot(saved)
    second.add(["y"], ["written by the second run"])
    with pytest.raises(IndexBusyError, match="changed on disk"):
        second.save(saved)
    assert snapshot(saved) == after_first


def test_lock_held_by_another_run(saved):
    fcntl = pytest.importorskip("fcntl")
    index = SavedIndex.open(saved)
    index.add(["x"], ["text"])
    before = snapshot(saved)
    fd = os.open(saved / ".lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(IndexBusyError, match="another run"):
            index.save(saved)
    finally:
        os.close(fd)
    assert snapshot(saved) == before


def test_failed_write_leaves_old_index_and_no_temporary_files(saved, monkeypatch):
    index = SavedIndex.open(saved)
    index.add(["x"], ["text"])
    before = snapshot(saved)
    real_replace = os.replace

    def failing_replace(src, dst):
        if str(dst).endswith("index.json"):
            raise OSError(28, "No space left on device")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError, match="No space"):
        index.save(saved)
    monkeypatch.undo()
    # The new data file may remain (it is not referenced), but the index is the old one.
    assert SavedIndex.open(saved).ids == [f"old-{i}" for i in range(4)]
    assert (saved / "index.json").read_bytes() == before["index.json"]
    assert not [p for p in saved.iterdir() if p.name.startswith(".tmp-")]
    # The next successful write cleans the orphan up.
    again = SavedIndex.open(saved)
    again.add(["y"], ["text"])
    again.save(saved)
    assert sorted(p.name for p in saved.iterdir()) == [".lock", "data-000002.npz", "index.json"]


def test_atomic_writer_keeps_the_old_file_on_error_and_its_mode(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old")
    os.chmod(target, 0o640)
    with pytest.raises(RuntimeError), atomic_writer(target) as f:
        f.write("half")
        raise RuntimeError("interrupted")
    assert target.read_text() == "old" and sorted(os.listdir(tmp_path)) == ["out.csv"]
    with atomic_writer(target) as f:
        f.write("new")
    assert target.read_text() == "new" and (target.stat().st_mode & 0o777) == 0o640


# ----- refusing bad indexes ---------------------------------------------------------------


def test_missing_and_non_index_paths(tmp_path):
    with pytest.raises(StoreError, match="no index at"):
        SavedIndex.open(tmp_path / "nothing")
    (tmp_path / "file").write_text("x")
    with pytest.raises(CorruptIndexError, match="not an index folder"):
        SavedIndex.open(tmp_path / "file")
    (tmp_path / "folder").mkdir()
    with pytest.raises(CorruptIndexError, match="no index.json"):
        SavedIndex.open(tmp_path / "folder")


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        (lambda m: m.update(format_version=FORMAT_VERSION + 1), IndexVersionError, "newer"),
        (lambda m: m.update(format="something-else"), CorruptIndexError, "does not describe"),
        (lambda m: m.update(format_version="1"), CorruptIndexError, "format_version"),
        (lambda m: m.update(data_file="../../etc/passwd"), CorruptIndexError, "data_file"),
        (lambda m: m.update(data_sha256="0" * 64), CorruptIndexError, "checksum"),
        (lambda m: m.update(documents=5), CorruptIndexError, "damaged: index.json says documents = 5"),
        (lambda m: m["settings"].update(num_perm="64"), CorruptIndexError, "invalid settings"),
    ],
)
def test_bad_metadata_is_refused_and_nothing_changes(saved, change, error, message):
    rewrite_meta(saved, change)
    before = snapshot(saved)
    with pytest.raises(error, match=message):
        SavedIndex.open(saved)
    assert snapshot(saved) == before


def test_invalid_json_metadata(saved):
    (saved / "index.json").write_text('{"format": "neardup-lab-index", ')
    with pytest.raises(CorruptIndexError, match="not valid JSON"):
        SavedIndex.open(saved)


def test_settings_mismatch_names_every_difference(saved):
    before = snapshot(saved)
    with pytest.raises(SettingsMismatchError) as info:
        SavedIndex.open(saved, expect={"num_perm": 128, "k": 3, "threshold": 0.8})
    text = str(info.value)
    assert "num_perm: index has 64, this run asks for 128" in text and "k: index has 5" in text
    assert "threshold" not in text
    assert snapshot(saved) == before


def test_truncated_or_garbled_data_file(saved):
    meta = json.loads((saved / "index.json").read_text())
    data = saved / meta["data_file"]
    data.write_bytes(data.read_bytes()[:200])
    with pytest.raises(CorruptIndexError, match="checksum"):
        SavedIndex.open(saved)
    rewrite_meta(saved, lambda m: m.update(data_sha256=hashlib.sha256(data.read_bytes()).hexdigest()))
    with pytest.raises(CorruptIndexError, match="damaged"):
        SavedIndex.open(saved)
    data.write_bytes(b"not a zip file at all")
    rewrite_meta(saved, lambda m: m.update(data_sha256=hashlib.sha256(data.read_bytes()).hexdigest()))
    with pytest.raises(CorruptIndexError, match="not a .npz"):
        SavedIndex.open(saved)
    data.unlink()
    with pytest.raises(CorruptIndexError, match="missing"):
        SavedIndex.open(saved)


@pytest.mark.parametrize(
    ("member", "value", "message"),
    [
        ("signatures", lambda a: a.astype(np.uint64), "signatures have dtype"),
        ("ids", lambda a: np.arange(len(a)), "ids: the bytes have dtype"),
        ("id_offsets", lambda a: a[::-1].copy(), "ids: the offsets do not describe"),
        ("ids", lambda a: np.full_like(a, 0xFF), "ids: 'utf-8' codec can't decode"),
        ("source_digests", lambda a: np.zeros((1, 32), np.uint8), "inodes or digests"),
        ("shingle_offsets", lambda a: a[::-1].copy(), "offsets"),
        ("exact_keys", lambda a: a[:, :1].copy(), "exact keys"),
        ("shingle_ids", lambda a: a[::-1].copy(), "not sorted and distinct"),
        ("ids", lambda a: np.frombuffer(b"old-0" * 4, np.uint8).copy(), "same document id twice"),
    ],
)
def test_inconsistent_arrays_are_refused(saved, member, value, message):
    arrays = current_arrays(saved)
    arrays[member] = value(arrays[member])
    replace_data(saved, arrays)
    with pytest.raises(CorruptIndexError, match=message):
        SavedIndex.open(saved)


def test_extra_or_missing_members_are_refused(saved):
    arrays = current_arrays(saved)
    replace_data(saved, {**arrays, "extra": np.zeros(1)})
    with pytest.raises(CorruptIndexError, match="expected arrays"):
        SavedIndex.open(saved)


class _Payload:
    """Unpickling this creates the marker file: proof that code ran."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_pickle_payload_is_never_executed(saved, tmp_path):
    marker = tmp_path / "pwned"
    arrays = current_arrays(saved)
    evil = np.empty(len(arrays["ids"]), dtype=object)
    evil[:] = [_Payload(str(marker))] * len(evil)
    replace_data(saved, {**arrays, "ids": evil})  # checksum fixed: only the loader can stop it now
    # The payload is live: a loader that allows pickles runs it.
    meta = json.loads((saved / "index.json").read_text())
    with np.load(saved / meta["data_file"], allow_pickle=True) as npz:
        npz["ids"]
    assert marker.exists()
    marker.unlink()
    with pytest.raises(CorruptIndexError, match="pickled"):
        SavedIndex.open(saved)
    assert not marker.exists()


def test_raw_pickle_instead_of_npz_is_refused(saved, tmp_path):
    marker = tmp_path / "pwned"
    meta = json.loads((saved / "index.json").read_text())
    data = saved / meta["data_file"]
    data.write_bytes(pickle.dumps(_Payload(str(marker))))
    rewrite_meta(saved, lambda m: m.update(data_sha256=hashlib.sha256(data.read_bytes()).hexdigest()))
    with pytest.raises(CorruptIndexError):
        SavedIndex.open(saved)
    assert not marker.exists()


# ----- settings that cannot work, and edits of index.json --------------------------------


def neardup(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``neardup-lab ARGS`` in a subprocess; a run that would hang fails the test at the timeout."""
    try:
        return subprocess.run(
            [sys.executable, "-m", "neardup_lab", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"neardup-lab {' '.join(args)} hung")


@pytest.mark.native("runs the command line in a process")
@pytest.mark.parametrize(
    ("settings", "command", "message"),
    [
        ({"num_perm": 1_000_000}, "info", f"num_perm must be at most {MAX_NUM_PERM}"),
        (
            {"num_perm": 10**18, "bands": 10**9, "rows": 10**9},
            "info",
            f"num_perm must be at most {MAX_NUM_PERM}",
        ),
        ({"num_perm": 1_000_000, "bands": None, "rows": None}, "info", "bands must be an int, got None"),
        ({"k": 10**8}, "query", f"k must be at most {MAX_SHINGLE_SIZE}"),
        ({"bands": 10**6, "rows": 10**6}, "query", "bands \\* rows = .* exceeds num_perm = 64"),
    ],
)
def test_huge_settings_in_index_json_are_refused_not_run(saved, settings, command, message):
    rewrite_meta(saved, lambda m: m["settings"].update(settings))
    (saved.parent / "q.txt").write_text(articles(1)[0], encoding="utf-8")
    args = ["index", command, "idx"] + (["q.txt"] if command == "query" else [])
    result = neardup(*args, cwd=saved.parent)
    assert result.returncode == 2, result.stderr
    assert re.search(f"damaged: index.json holds invalid settings: {message}", result.stderr), result.stderr


@pytest.fixture
def two_hundred(tmp_path) -> tuple[Path, list[str]]:
    """An index of 200 articles, each of which finds itself when queried."""
    docs = [make_article(seed=300 + i, n_words=60) for i in range(200)]
    index = SavedIndex(SMALL)
    index.add([f"doc-{i}" for i in range(200)], docs)
    index.save(tmp_path / "idx")
    assert [len(ms) for ms in SavedIndex.open(tmp_path / "idx").query(docs)] == [1] * 200
    return tmp_path / "idx", docs


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("settings.seed", 2),
        ("settings.k", 4),
        ("settings.scheme", "one-permutation"),
        ("settings.shingle", "char"),
        ("settings.threshold", 0.5),
        ("settings.num_perm", 128),
        ("settings.bands", 1),
        ("settings.rows", 1),
        ("normalization", "other/2"),
        ("shingle_hash", "other/1"),
    ],
)
def test_an_edited_setting_is_damage_not_a_wrong_answer(two_hundred, name, value):
    path, docs = two_hundred
    block, _, key = name.rpartition(".")

    def edit(meta: dict) -> None:
        (meta[block] if block else meta)[key] = value

    rewrite_meta(path, edit)
    with pytest.raises(CorruptIndexError, match=rf"damaged: index.json says {re.escape(name)} = {value!r}"):
        SavedIndex.open(path).query(docs)


def test_an_index_from_code_that_shingles_differently_is_refused(saved):
    before = snapshot(saved)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("neardup_lab.index.fileformat.NORMALIZATION", "nfkc-casefold-punctuation-to-space/2")
        with pytest.raises(IndexVersionError, match="built with normalization .*/1.* build it again"):
            SavedIndex.open(saved)
    assert snapshot(saved) == before


def edit_text(path: Path, edit) -> None:
    meta = path / "index.json"
    meta.write_text(edit(meta.read_text()))


@pytest.mark.parametrize(
    ("edit", "error", "message"),
    [
        (
            lambda t: t.replace('"generation": 1', '"generation": ' + "9" * 5000),
            CorruptIndexError,
            r"damaged: index.json has a missing or invalid 'generation' \(a 5000-digit number\)",
        ),
        (
            lambda t: t.replace('"seed": 1', '"seed": ' + "9" * 5000),
            CorruptIndexError,
            "damaged: index.json holds invalid settings: seed must be an int.*5000-digit number",
        ),
        (
            lambda t: t.replace(
                '"written_by"', '"deep": ' + "[" * 100_000 + "]" * 100_000 + ', "written_by"'
            ),
            CorruptIndexError,
            "damaged: index.json is not valid JSON .it is nested too deeply",
        ),
        (
            lambda t: t.replace('"threshold": 0.8', '"threshold": NaN'),
            CorruptIndexError,
            "invalid settings: threshold",
        ),
        (lambda t: t.replace('"bands": ', '"bands": null, "was": '), CorruptIndexError, "invalid settings"),
        (
            lambda t: t.replace('"written_by"', '"comment": "hi", "written_by"'),
            CorruptIndexError,
            r"unexpected fields \['comment'\]",
        ),
        (lambda t: t.replace('"written_by": "', '"written_by": 7, "x": "'), CorruptIndexError, "unexpected"),
        (
            lambda t: t.replace('"data_file": "data-000001.npz"', '"data_file": "data-000002.npz"'),
            CorruptIndexError,
            "names data_file 'data-000002.npz' for generation 1",
        ),
        (
            lambda t: t.replace('"generation": 1', '"generation": 7').replace("000001", "000007"),
            CorruptIndexError,
            "data-000007.npz of the index .* is missing",
        ),
        (
            lambda t: t.replace(f'"format_version": {FORMAT_VERSION}', '"format_version": 1'),
            IndexVersionError,
            "older than the versions 2 to 3 .* build it again",
        ),
    ],
)
def test_any_edit_of_index_json_is_refused_as_damage(saved, edit, error, message):
    edit_text(saved, edit)
    before = snapshot(saved)
    with pytest.raises(error, match=message):
        SavedIndex.open(saved)
    assert snapshot(saved) == before


def test_null_banding_in_index_json_is_damage(saved):
    rewrite_meta(saved, lambda m: m["settings"].update(bands=None, rows=None))
    with pytest.raises(CorruptIndexError, match="invalid settings: bands must be an int, got None"):
        SavedIndex.open(saved)


def test_a_forged_data_file_cannot_make_numpy_allocate_more_than_the_file_holds(saved):
    arrays = current_arrays(saved)
    header = io.BytesIO()  # a .npy header that claims 10**12 ids in front of the 4 real ones
    np.lib.format.write_array_header_1_0(
        header, {"descr": arrays["ids"].dtype.str, "fortran_order": False, "shape": (10**12,)}
    )
    data = saved / json.loads((saved / "index.json").read_text())["data_file"]
    with zipfile.ZipFile(data, "w") as archive:
        for name, value in arrays.items():
            member = io.BytesIO()
            if name == "ids":
                member.write(header.getvalue() + value.tobytes())
            else:
                np.save(member, value)
            archive.writestr(f"{name}.npy", member.getvalue())
    rewrite_meta(saved, lambda m: m.update(data_sha256=hashlib.sha256(data.read_bytes()).hexdigest()))
    with pytest.raises(CorruptIndexError, match="claims more data than it holds"):
        SavedIndex.open(saved)
