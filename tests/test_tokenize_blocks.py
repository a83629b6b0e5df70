"""A long document is tokenised in pieces: the ids stay the core definition's, memory stays bounded."""

from __future__ import annotations

import subprocess
import sys
import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup_lab.engine.tokenize import _expanding, _nfkc, _starts_afresh, shingle_ids, tokenize_batch
from neardup_lab.hashing import word_shingle_ids
from neardup_lab.support import limits

# Characters that normalisation joins, splits, expands or turns into spaces.
HOSTILE = [
    "a", "E", "z", "1", " ", " ", ".", ",", "<", "=", "\n",
    "\u0301", "\u0327", "\u0338", "\u0345", "\u0f71",  # combining marks
    "\u00a0", "\u2003", "\u3000", "\u3002", "\u2014",  # spaces and punctuation outside ASCII
    "\ufdfa", "\ufb01", "\ufb03", "\u00bd", "\u2460",  # NFKC expands them
    "\u1100", "\u1161", "\u11a8", "\uac00",  # Hangul jamo and a syllable: they compose
    "\u0b47", "\u0b3e", "\u00df", "\u0130", "\u03a3", "\u1e9e", "\ud800",
]  # fmt: skip
hostile_text = st.lists(st.sampled_from(HOSTILE), max_size=300).map("".join)


@settings(max_examples=300, deadline=None)
@given(hostile_text, st.integers(1, 4))
def test_ids_in_tiny_blocks_are_the_core_definition(text, k):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(limits, "TOKENIZE_CHARS", 50)
        assert shingle_ids(text, k).tolist() == word_shingle_ids(text, k).tolist()


@settings(max_examples=200, deadline=None)
@given(st.lists(hostile_text, max_size=5), st.integers(1, 60))
def test_blocks_of_any_size_give_the_same_word_hashes(docs, size):
    whole = tokenize_batch(docs)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(limits, "TOKENIZE_CHARS", size)
        blocks = tokenize_batch(docs)
    assert blocks.offsets.tolist() == whole.offsets.tolist()
    assert blocks.values.tolist() == whole.values.tolist()


@settings(max_examples=300, deadline=None)
@given(st.one_of(hostile_text, st.text(max_size=60)))
def test_nfkc_by_table_is_nfkc(text):
    assert _nfkc(text) == unicodedata.normalize("NFKC", text)


def test_texts_with_characters_that_expand_are_found():
    texts = ["rain", "", "a\ufdfa", "\u2026 \ufb01", "\U0002fa1d", "\u3300", "\ufb03" * 3]
    assert _expanding(texts).tolist() == [False, False, True, False, False, True, False]


def test_nfkc_starts_afresh_where_the_rule_says():
    # Every character the rule accepts, after text that composes with what follows it
    # and followed by combining marks: normalising the two sides apart changes nothing.
    befores = ["e", "<", "\u1100", "\uac00", "\u0b47", "a\u0301", "\u0301", "\ufdfa"]
    for cp in range(0x30000):
        char = chr(cp)
        if not _starts_afresh(char):
            continue
        after = char + "\u0301\u0327"
        for before in befores:
            whole = unicodedata.normalize("NFKC", before + after)
            assert whole == unicodedata.normalize("NFKC", before) + unicodedata.normalize("NFKC", after), (
                hex(cp),
                before,
            )


def test_no_character_above_the_table_decomposes():
    # _joins_back reads decompositions below U+30000 only.
    assert not any(unicodedata.decomposition(chr(cp)) for cp in range(0x30000, sys.maxunicode + 1, 7))
    assert not any(unicodedata.decomposition(chr(cp)) for cp in range(0x2FA1E, 0x30000))


def test_a_long_document_between_short_ones():
    docs = ["Rain today", "\ufdfa ok " * 40 + "a\u0301" * 30, "", "rain TODAY"]
    whole = tokenize_batch(docs)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(limits, "TOKENIZE_CHARS", 7)
        blocks = tokenize_batch(docs)
    assert blocks.counts.tolist() == whole.counts.tolist() == [2, 5 * 40 + 1, 0, 2]
    assert np.array_equal(blocks.values, whole.values)


# Peak memory (tracemalloc, which sees numpy's buffers) of tokenising 1 MB of U+FDFA: a million
# words (8 MB of hashes) from 6 million characters after NFKC. Tokenised whole, it took 121 MB;
# in blocks, 19 MB.
MEMORY_CHECK = """
import tracemalloc
from neardup_lab.engine.tokenize import tokenize_batch
tokenize_batch(["\\ufdfa a"])
tracemalloc.start()
counts = tokenize_batch(["\\ufdfa" * 333_333]).counts
assert counts.tolist() == [1_000_000], counts
print(tracemalloc.get_traced_memory()[1])
"""


@pytest.mark.native("measures memory in a Python process")
def test_memory_follows_the_blocks_not_the_expanded_text():
    done = subprocess.run([sys.executable, "-c", MEMORY_CHECK], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) < 40 << 20
