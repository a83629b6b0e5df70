"""One letter, one meaning: the chapters and the glossary keep the intro's notation box.

The box (the "Notation" admonition of ``book/intro.md``) is parsed into letter ->
meaning. Every chapter's markdown, the glossary and the figure labels drawn by code cells
are then read for two kinds of evidence about a letter:

- a *count*: the letter followed by what it counts, "$N$ documents", "$k = 3$ bits",
  "an $L$-word text"; the noun must be one the letter's meaning allows;
- a *definition*: "Let $n$ be the number of ...", "where $b$ is its key length",
  "$x$ = the ..."; the definition must share a keyword with the box's meaning.

A short list of phrases the review found (the affine offset written $b$, bands written
$B$, containment written $C(A, B)$ although $C$ is a set) is forbidden outright. The one
stated exception, b-bit MinHash's $b$ counting bits, holds in a passage that names b-bit
MinHash.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
CHAPTERS = sorted(BOOK.glob("*.ipynb"))
B_BIT_CHAPTER = "15b_bbit_minhash.ipynb"  # the box's one exception: here $b$ counts bits

#: What each box letter may count ("$n$ bins" is fine, "$n$ documents" is not).
COUNTS: dict[str, set[str]] = {
    "N": {"documents", "fingerprints", "articles"},
    "L": {"words", "word"},
    "e": {"words", "word"},
    "w": {"words", "word"},
    "A": set(),
    "B": set(),
    "C": set(),
    "M": set(),
    "m": {"shingles", "elements", "ids", "values"},
    "k": {"words", "word", "characters", "shingles", "consecutive"},
    "n": {"values", "hash", "functions", "bins", "positions", "entries", "minima"},
    # AND of r functions and OR of b functions (7b) are a band's rows and the bands.
    "b": {"bands", "blocks", "functions"},
    "r": {"rows", "bits", "consecutive", "values", "functions"},
    "g": {"members", "copies", "documents"},
    "f": {"positions", "bits"},
    "d": {"bits", "differing"},
    r"d_{\max}": {"bits"},
    r"\ell": {"bit"},
    "s": set(),
    "J": set(),
    "t": set(),
    "a": set(),
    "c": set(),
    "D": set(),
}

#: Words a definition of the letter must share with the box's meaning of it.
KEYWORDS: dict[str, set[str]] = {
    "N": {"documents", "fingerprints", "corpus"},
    "L": {"words", "length"},
    "e": {"excerpt"},
    "w": {"chunk", "window"},
    "A": {"set", "sets", "shingles", "document", "documents", "article", "copy"},
    "B": {"set", "sets", "shingles", "document", "documents", "article", "copy"},
    "C": {"set", "sets", "shingles", "document", "documents", "article", "copy"},
    "M": {"matrix"},
    "m": {"shingles", "shingle", "set"},
    "k": {"shingle", "words", "characters"},
    "n": {"signature", "hash", "bins", "values"},
    "b": {"bands", "blocks"},
    "r": {"rows"},
    "g": {"cluster", "bucket", "group"},
    "f": {"fingerprint"},
    "d": {"hamming", "distance", "bits"},
    r"d_{\max}": {"tolerance", "largest", "distance"},
    r"\ell": {"key"},
    "s": {"similarity"},
    "J": {"similarity", "jaccard"},
    "t": {"threshold"},
    "a": {"multiplier"},
    "c": {"offset"},
    "D": {"distance"},
}

NOUNS = (
    "documents|articles|words|word|characters|shingles|elements|ids|values|hash|functions|bins|bits|bit"
    "|bands|blocks|rows|copies|members|positions|entries|minima|fingerprints|differing|consecutive"
)
LETTER = r"(?P<letter>d_\{\\max\}|\\ell|[A-Za-z])"
#: "$N$ documents", "$k = 3$ bits", "$L$-word", "$n$ hash functions", "$N = 2^{33}$ fingerprints".
COUNT = re.compile(
    rf"\${LETTER}(?:\s*=\s*[^$]{{1,20}})?\$[ -](?:random |distinct |new |older )?(?P<noun>{NOUNS})\b"
)
#: "Let $n$ be the ...", "where $b$ is its ...", "$x$ = the ...", "$k$ denotes the ...".
DEFINITION = re.compile(
    rf"\${LETTER}\$,?\s+(?:is|be|denotes|stands for|=)\s+(?:the|its|a|an)\s+(?P<meaning>[^.;:,$]{{3,80}})"
)
#: Letters the box does not give a counting meaning but the review found used so.
FORBIDDEN = {
    r"\(a [xh]'? \+ b\)": "the affine offset is $c$ ($a x + c$), not $b$",
    r"\$B\$ bands": "bands are $b$ (written out in 15b, where $b$ counts bits)",
    r"(?<![\w\\])C\((?:A|B|E|\\text)": "containment is $\\operatorname{cont}(A, B)$; $C$ is a shingle set",
    r"\\sum_t": "$t$ is the threshold, not an index",
    r"\$r\$ smallest": "$r$ counts rows, not ranks",
    r"Jaccard distance[^.]*\$d[ =$]|\$d[ =$][^.]*Jaccard distance": (
        "a general distance is $D$; $d$ is Hamming"
    ),
}


@dataclass(frozen=True)
class Finding:
    where: str
    text: str
    why: str

    def __str__(self) -> str:
        return f"{self.where}: {self.text!r}: {self.why}"


def notation_box() -> dict[str, str]:
    """The box's letters and their meanings, read from the intro's table."""
    text = (BOOK / "intro.md").read_text(encoding="utf-8")
    box = re.search(r"```\{admonition\} Notation\n(.*?)\n```", text, re.S)
    assert box, "the intro has a Notation admonition"
    meanings: dict[str, str] = {}
    for symbols, meaning in re.findall(r"^\| (.+?) \| (.+) \|$", box.group(1), re.M):
        for letter in re.findall(r"\$([^$]+)\$", symbols):
            assert letter not in meanings, f"{letter} has two rows in the box"
            meanings[letter] = meaning
    return meanings


def _passages(path: Path) -> list[tuple[str, str, str]]:
    """(where, kind, text) for each markdown cell / glossary entry / code cell of a file."""
    if path.suffix == ".md":
        text = path.read_text(encoding="utf-8")
        entries = re.split(r"\n(?=\S)", text)  # a glossary term starts at column 0
        return [(f"{path.name}[{i}]", "markdown", entry) for i, entry in enumerate(entries)]
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    out = []
    for i, cell in enumerate(cells):
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        out.append((f"{path.name} cell {i}", cell["cell_type"], source))
    return out


def _figure_strings(code: str) -> str:
    """The string literals of a code cell's labels and titles, with letters set as math."""
    lines = [ln for ln in code.splitlines() if re.search(r"(label|title)\s*[=(]|set_title|annotate", ln)]
    strings = re.findall(r"""["']([^"'\n]*)["']""", "\n".join(lines))
    # "n = 128 bins" in a title reads as "$n = 128$ bins".
    return "\n".join(re.sub(r"(?<![\w$])([A-Za-z])( = [\d,]+)? (?=\w)", r"$\1\2$ ", s) for s in strings)


def check_passage(where: str, text: str, box: dict[str, str], b_bit: bool = False) -> list[Finding]:
    """The passage's uses of box letters that disagree with the box.

    ``b_bit`` says the passage is in the b-bit MinHash chapter, where $b$ counts bits.

    >>> box = {"n": "signature length", "N": "the number of documents"}
    >>> [f.why for f in check_passage("x", "Let $n$ be the number of documents.", box)]
    ["$n$ defined as 'number of documents', but the box says: signature length"]
    >>> check_passage("x", "Let $N$ be the number of documents.", box)
    []
    """
    findings = []
    b_bit = b_bit or "b-bit" in text
    for match in COUNT.finditer(text):
        letter, noun = match.group("letter"), match.group("noun")
        if letter not in box:
            continue
        if letter == "b" and noun in {"bits", "bit"} and b_bit:
            continue  # the stated exception: b-bit MinHash
        if noun not in COUNTS.get(letter, set()):
            findings.append(Finding(where, match.group(0), f"${letter}$ counts {noun}: {box[letter]}"))
    for match in DEFINITION.finditer(text):
        letter, meaning = match.group("letter"), match.group("meaning").strip()
        if letter not in box:
            continue
        words = set(re.findall(r"[a-z]+", meaning.lower()))
        if not words & KEYWORDS.get(letter, set()):
            why = f"${letter}$ defined as {meaning!r}, but the box says: {box[letter]}"
            findings.append(Finding(where, match.group(0), why))
    for pattern, why in FORBIDDEN.items():
        for match in re.finditer(pattern, text):
            findings.append(Finding(where, match.group(0), why))
    return findings


def check_file(path: Path, box: dict[str, str]) -> list[Finding]:
    """Every finding in a chapter's markdown and figure labels, or in the glossary."""
    findings = []
    b_bit = path.name == B_BIT_CHAPTER
    for where, kind, text in _passages(path):
        if kind == "markdown":
            findings += check_passage(where, text, box, b_bit)
        elif kind == "code":
            findings += check_passage(f"{where} (figure label)", _figure_strings(text), box, b_bit)
    return findings


BOX = notation_box()


def test_box_gives_each_quantity_one_letter():
    for letter in ("N", "L", "e", "w", "A", "B", "C", "M", "m", "k", "n", "b", "r", "s", "J", "t", "g", "c",
                   "d", r"d_{\max}", r"\ell"):
        assert letter in BOX, letter
    assert set(BOX) <= set(COUNTS) and set(BOX) <= set(KEYWORDS), "every box letter is checked"
    for letter, keywords in KEYWORDS.items():
        if letter in BOX:
            meaning = BOX[letter].lower()
            assert any(word in meaning for word in keywords), (letter, meaning)
    assert "documents" in BOX["N"] and "signature length" in BOX["n"] and "bands" in BOX["b"]


@pytest.mark.parametrize("path", [*CHAPTERS, BOOK / "glossary.md"], ids=lambda p: p.name)
def test_every_letter_keeps_its_box_meaning(path: Path):
    findings = check_file(path, BOX)
    assert not findings, "\n".join(map(str, findings))


def test_the_checks_see_letters_in_real_chapters():
    """The patterns are not dead: they find (correct) counts and definitions in the book."""
    text = "\n".join(t for p in CHAPTERS for _, kind, t in _passages(p) if kind == "markdown")
    letters = {m.group("letter") for m in COUNT.finditer(text)}
    assert {"N", "k", "n", "b", "r", "m"} <= letters, letters
    assert any(m.group("letter") == "N" for m in DEFINITION.finditer(text)), "Let $N$ be the number of ..."


PLANTED = [
    ("Let $n$ be the number of documents.", "$n$ defined as"),
    ("Which fingerprints are within $k = 3$ bits of it?", "$k$ counts bits"),
    ("and with $B$ bands a pair becomes a candidate", "bands are $b$"),
    ("the top 32 bits of $(a x + b) \\bmod 2^{64}$", "offset is $c$"),
    ("a text of $n$ words has $n - k + 1$ shingles", "$n$ counts words"),
    ("where $b$ is its key length", "$b$ defined as"),
    ("the Jaccard distance $d = 1 - J$", "$d$ is Hamming"),
    ("one of $k$ bins", "$k$ counts bins"),
    ("Let $e$ be the number of edits.", "$e$ defined as"),
    ("a shared feature of weight $w = 10$ bits", "$w$ counts bits"),
    ("the containment $C(A, B)$ of $A$ in $B$", "containment is"),
]


@pytest.mark.parametrize(("sentence", "why"), PLANTED, ids=[s for s, _ in PLANTED])
def test_a_planted_wrong_use_is_caught(sentence: str, why: str):
    chapter = BOOK / "13_hamming_search.ipynb"
    (where, _, text), *_ = [p for p in _passages(chapter) if p[1] == "markdown"]
    assert check_passage(where, text, BOX) == []
    findings = check_passage(where, text + "\n" + sentence + "\n", BOX)
    assert findings and any(why in f.why for f in findings), findings


def test_the_b_bit_exception_holds_only_where_b_bit_is_named():
    assert check_passage("x", "{term}`b-bit MinHash` keeps the lowest $b$ bits of each value.", BOX) == []
    assert check_passage("x", "keys of $b$ bits", BOX), "outside a b-bit passage, $b$ bits is wrong"
