"""Exact copies are equal texts, a text with no words is nobody's copy, and a ``max_df`` that
ignores most shingles says so.

- Two texts with the same exact-copy key (as a crafted word-hash collision gives) but different
  words are not joined as copies, and ``explain`` does not call them copies.
- Texts that normalise to nothing (emoji, symbols, spaces) are kept, each on its own.
- ``max_df=1`` (a count: shingles in more than one document) on near-copies warns, with the
  figures, and the command line's summary says what was ignored.
"""

import warnings
from pathlib import Path

import numpy as np
import pytest

from neardup_lab import Settings, dedup, explain, make_article
from neardup_lab.engine import pipeline
from neardup_lab.engine.pipeline import NO_WORDS_KEY, equal_texts, first_occurrences

PAYMENTS = ["pay the invoice to account acct4f9k2m7q1z8x today", "pay the invoice to account zzzz today"]


@pytest.fixture
def colliding_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every text gets one exact-copy key: a collision on every pair."""
    monkeypatch.setattr(pipeline, "exact_keys", lambda words: [b"k" * 16] * words.lists)


@pytest.mark.parametrize("verify", ["exact", "estimate", "none"])
def test_equal_keys_do_not_make_different_texts_copies(colliding_keys: None, verify: str) -> None:
    docs = [*PAYMENTS, PAYMENTS[0].upper() + "!"]
    result = dedup(docs, threshold=1.0, verify=verify, k=2)
    assert result.copies == [(0, 2)]  # equal after normalisation: still copies
    assert [1] in result.clusters  # the other account stays apart under any verification
    assert result.stats["exact"]["unique"] == 2


def test_explain_compares_the_words_not_the_keys(colliding_keys: None) -> None:
    assert explain(*PAYMENTS).exact_copy is False
    assert explain(PAYMENTS[0], PAYMENTS[0].title()).exact_copy is True


def test_equal_texts_splits_a_group_by_its_words() -> None:
    docs = ["Rain today.", "sun", "rain TODAY", "snow", "Snow!", "rain today"]
    assert equal_texts(np.zeros(6, dtype=np.int64), docs).tolist() == [0, 1, 0, 3, 3, 0]


def test_texts_without_words_are_nobodys_copies() -> None:
    docs = ["🙂🙂", "😀 😀 !!", "", "   ...", "rain today in the city", "rain today in the city."]
    for verify in ("exact", "estimate", "none"):
        result = dedup(docs, threshold=0.8, verify=verify)
        assert result.clusters == [[0], [1], [2], [3], [4, 5]], verify
        assert result.copies == [(4, 5)]
    assert first_occurrences([NO_WORDS_KEY, b"a", NO_WORDS_KEY, b"a"]).tolist() == [0, 1, 2, 1]
    pair = explain(docs[0], docs[1])
    assert not pair.exact_copy and not pair.candidate and not pair.joined
    assert "no shingle" in pair.verdict


def test_a_max_df_that_ignores_most_shingles_warns() -> None:
    base = make_article(seed=3, n_words=60).split()
    docs = [" ".join(base[:i] + ["edit"] + base[i + 1 :]) for i in range(0, 60, 2)]
    with pytest.warns(UserWarning, match=r"max_df=1 ignores \d+% of the documents' shingles") as seen:
        result = dedup(docs, threshold=0.7, max_df=1)
    assert "for example max_df=0.5" in str(seen[0].message)
    ignored = result.stats["max_df"]
    assert ignored["share"] > 0.5 and ignored["shingles"] > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a share that ignores a minority of the shingles: quiet
        quiet = dedup(docs + [make_article(seed=s, n_words=60) for s in range(40)], threshold=0.7, max_df=0.3)
    assert 0 < quiet.stats["max_df"]["share"] <= 0.5


@pytest.mark.native("runs the command line in a process")
def test_the_summary_says_what_max_df_ignored(tmp_path: Path) -> None:
    from cli_run import run

    base = make_article(seed=3, n_words=60).split()
    lines = [" ".join(base[:i] + ["edit"] + base[i + 1 :]) for i in range(0, 60, 2)]
    (tmp_path / "docs.txt").mkdir()
    for i, line in enumerate(lines):
        (tmp_path / "docs.txt" / f"{i}.txt").write_text(line, encoding="utf-8")
    done = run("dedup", "docs.txt", "--max-df", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "neardup-lab: warning: max_df=1 ignores" in done.stderr
    assert "of the documents' shingles; documents left with none: " in done.stdout


def test_settings_still_accept_the_share_and_the_count() -> None:
    assert Settings(max_df=1).max_df == 1 and Settings(max_df=0.5).max_df == 0.5



# ----- the word hash itself: the attack that solved the old one finds nothing --------------------

_MASK = (1 << 64) - 1
_OLD_POLY, _OLD_LANE_MIX = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9  # the summed-lanes word hash


def _old_mix(lane: int, j: int) -> int:
    y = ((lane + j * _OLD_POLY) * _OLD_LANE_MIX) & _MASK
    return y ^ (y >> 31)


def _solved_partner(word: str) -> str:
    """A 16-character word whose two lanes sum, once mixed, to the given word's: under the old
    hash, a word with the same hash, found by inverting the mix of its second lane (a few million
    random first halves are tried, in a few seconds, before a second half is all letters and digits)."""
    lanes = [int.from_bytes(word.encode()[j : j + 8], "little") for j in (0, 8)]
    total = np.uint64((_old_mix(lanes[0], 0) + _old_mix(lanes[1], 1)) & _MASK)
    inverse = np.uint64(pow(_OLD_LANE_MIX, -1, 1 << 64))
    allowed = np.zeros(256, dtype=bool)
    allowed[np.frombuffer(b"abcdefghijklmnopqrstuvwxyz0123456789", dtype=np.uint8)] = True
    rng = np.random.default_rng(7)
    with np.errstate(over="ignore"):
        for _ in range(100):
            first = rng.choice(np.flatnonzero(allowed).astype(np.uint8), (1 << 18, 8))
            y = first.copy().view("<u8").ravel() * np.uint64(_OLD_LANE_MIX)
            y = total - (y ^ (y >> np.uint64(31)))
            y ^= (y >> np.uint64(31)) ^ (y >> np.uint64(62))  # undoes y ^ (y >> 31)
            second = (y * inverse - np.uint64(_OLD_POLY)).astype("<u8")
            good = np.flatnonzero(allowed[second.view(np.uint8).reshape(-1, 8)].all(axis=1))
            if len(good):
                return (first[good[0]].tobytes() + second[good[0]].tobytes()).decode()
    raise AssertionError("no partner found")


def test_a_word_solved_for_the_old_hash_is_no_copy_now() -> None:
    from neardup_lab.hashing import word_hash

    target = "acct4f9k2m7q1z8x"
    partner = _solved_partner(target)
    assert partner != target
    lanes = [int.from_bytes(partner.encode()[j : j + 8], "little") for j in (0, 8)]
    target_lanes = [int.from_bytes(target.encode()[j : j + 8], "little") for j in (0, 8)]
    old_sum = (_old_mix(lanes[0], 0) + _old_mix(lanes[1], 1)) & _MASK
    assert old_sum == (_old_mix(target_lanes[0], 0) + _old_mix(target_lanes[1], 1)) & _MASK  # solved
    assert word_hash(partner) != word_hash(target)
    docs = [f"pay the invoice to account {target} today", f"pay the invoice to account {partner} today"]
    assert dedup(docs, threshold=1.0).clusters == [[0], [1]]
    assert not explain(*docs).exact_copy and explain(*docs).jaccard < 1
