"""A held-out probe of the package in the page: the text no other test feeds it, the same bits as native.

Run after ``make book``::

    pytest -m browser -s tests/test_lite_probe.py

The page's Python differs from a laptop's where text handling can go wrong: numpy is 32-bit
there (``np.intp`` is int32, indices are cast by other rules), and ``dedup("café")`` once
raised there alone. The probe runs ``dedup`` (word and character shingles), ``explain``,
``MinHasher.signatures`` and ``simhash`` on accented Latin, Greek, Cyrillic, Chinese,
Japanese, Korean, Arabic, Devanagari and emoji (with skin tones, joiners and flags), each
text beside a variant: decomposed (NFD) instead of composed, ligatures and full-width forms
for their plain letters, a word changed. It prints one digest per function; the page must
print exactly the lines this Python prints.
"""

from __future__ import annotations

import time
import urllib.parse
from collections.abc import Iterator

import pytest
from browser_support import Visit, launch_chromium
from lite_support import START_MS, external, lite_site, native, python_error, wait_outputs

pytestmark = pytest.mark.browser

PROBE = r'''
import hashlib, json, unicodedata
from neardup_lab import MinHasher, char_shingles, dedup, explain, simhash, word_shingles

TEXTS = [
    "Le café de la gare ouvre à six heures; naïve Zoë y lit Łódź Ångström ñandú œuvre",
    "Η βουλή ψήφισε σήμερα τον νέο προϋπολογισμό μετά από μακρά συζήτηση στην ολομέλεια",
    "Городской совет утвердил новый бюджет после долгого обсуждения в пятницу вечером",
    "市议会周五晚上经过长时间讨论后批准了新的预算方案并公布了细节",
    "市議会は金曜日の夜に長い議論の末、新しい予算案を承認しました。カタカナも",
    "시의회는 금요일 저녁 긴 토론 끝에 새 예산안을 승인했습니다 한국어 문장",
    "وافق مجلس المدينة على الميزانية الجديدة بعد نقاش طويل مساء يوم الجمعة",
    "नगर परिषद ने शुक्रवार शाम लंबी बहस के बाद नए बजट को मंज़ूरी दी क्षत्रिय",
    "launch day 🚀🚀 the team 👩🏽‍💻👨‍👩‍👧 cheered 🇫🇷🇯🇵 and 🏳️‍🌈 flags waved ❤️‍🔥 ok",
    "Straße İstanbul ﬁnal ﬂow ＡＢＣ１２３ ｆｕｌｌ ｗｉｄｔｈ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝐛𝐨𝐥𝐝 x²",
]


def variants(text):
    nfd = unicodedata.normalize("NFD", text)
    wide = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)
    ligatures = text.replace("fi", "\ufb01").replace("fl", "\ufb02")
    words = text.split()
    changed = " ".join(words[:-1] + ["ZZZ"])
    return [nfd, wide, ligatures, changed]


docs = []
for text in TEXTS:
    docs += [text] + variants(text)


def digest(value):
    data = value if isinstance(value, bytes) else json.dumps(value, ensure_ascii=False).encode()
    return hashlib.sha256(data).hexdigest()[:16]


def result(r):
    return [r.clusters, r.keepers, r.pairs, r.copies]


print("PROBE docs", len(docs), digest(docs))
print("PROBE dedup-word", digest(result(dedup(docs, threshold=0.5, k=2))))
print("PROBE dedup-char", digest(result(dedup(docs, threshold=0.5, k=4, shingle="char"))))
evidence = []
for i in range(0, len(docs), 5):
    for j in range(i + 1, i + 5):
        e = explain(docs[i], docs[j])
        evidence.append([e.jaccard, e.exact_copy, e.joined, list(e.shared), list(e.words_b)])
print("PROBE explain", digest(evidence))
hasher = MinHasher(num_perm=128, seed=3)
print("PROBE minhash-word", digest(hasher.signatures([word_shingles(d, 2) for d in docs]).tobytes()))
print("PROBE minhash-char", digest(hasher.signatures([char_shingles(d, 3) for d in docs]).tobytes()))
print("PROBE simhash", digest([simhash(sorted(char_shingles(d, 3))) for d in docs]))
'''


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with lite_site() as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with launch_chromium() as chromium:
        yield chromium


def test_unicode_probe_gives_the_native_bits_in_the_page(site: str, browser) -> None:
    expected = [line for line in native(PROBE).splitlines() if line.startswith("PROBE")]
    assert len(expected) == 7 and expected[0].startswith("PROBE docs 50 "), expected
    query = urllib.parse.urlencode({"kernel": "python", "execute": "1", "code": PROBE})
    with Visit(browser, f"{site}lite/repl/index.html?{query}") as visit:
        started = time.monotonic()
        outputs = wait_outputs(visit.page, "PROBE simhash", timeout=START_MS)
        print(f"\n[lite] unicode probe: {time.monotonic() - started:.1f} s after the page loaded")
        assert external(visit) == []
    assert python_error(outputs) is None, python_error(outputs)
    lines = [line for text in outputs for line in text.splitlines() if line.startswith("PROBE")]
    assert lines == expected
