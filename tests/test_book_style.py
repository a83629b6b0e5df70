"""The book's reading rules, checked on the committed chapters.

- A code cell is short enough to read as one idea (at most ``MAX_CELL_LINES`` lines).
- A chapter is one sitting: at most ``MAX_PROSE_WORDS`` words of prose (:func:`prose_words`).
- ``glue(...)`` and other plumbing live in cells hidden from the page.
- An exercise solution that states a number shows where it comes from: the number is
  glued, or a cell of the chapter prints it (or uses it as an input).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "book").glob("*.ipynb"))
MAX_CELL_LINES = 30
MAX_PROSE_WORDS = 3000
HIDDEN_TAGS = {"remove-cell", "remove-input"}

#: (notebook name, first line of the cell) -> why this cell may be longer.
LONG_CELL_EXCEPTIONS: dict[tuple[str, str], str] = {}


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _tags(cell: dict) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


# Code shown in a fence (```python, ```text, a bare ```, ```{code-block}) is not prose; another MyST
# directive (```{note}) holds prose. Display math is not; a role ({glue:text}`x`) reads as one word, and
# every other run of characters holding a letter or a digit is a word (inline code and math too).
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*(\{[\w-]+\})?(.*)$")
_CODE_DIRECTIVES = {"{code-block}", "{code}", "{code-cell}", "{math}"}
_DISPLAY_MATH = re.compile(r"\$\$.*?\$\$", re.S)
_ROLE = re.compile(r"\{[\w:-]+\}`[^`]*`")
_WORD = re.compile(r"[^\s]*[^\W_][^\s]*")


def _prose_lines(markdown: str) -> list[str]:
    """The lines of ``markdown`` outside code fences (fences nest: a longer one holds shorter ones)."""
    open_fences: list[tuple[str, bool]] = []  # (marker, holds code)
    kept = []
    for line in markdown.splitlines():
        fence = _FENCE.match(line)
        closes = fence and open_fences and fence.group(1).startswith(open_fences[-1][0])
        if closes and not fence.group(2) and not fence.group(3).strip():
            open_fences.pop()
            continue
        if fence and not (open_fences and open_fences[-1][1]):
            directive = fence.group(2)
            open_fences.append((fence.group(1), directive is None or directive in _CODE_DIRECTIVES))
            continue
        if not (open_fences and open_fences[-1][1]):
            kept.append(line)
    return kept


def prose_words(markdown: str) -> int:
    """Words of prose in a chapter's markdown (see test_prose_words_counts_prose_only)."""
    text = _ROLE.sub("x", _DISPLAY_MATH.sub(" ", "\n".join(_prose_lines(markdown))))
    return len(_WORD.findall(text))


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_a_chapter_is_one_sitting(path: Path) -> None:
    markdown = "\n".join(_source(c) for c in _cells(path) if c["cell_type"] == "markdown")
    assert prose_words(markdown) <= MAX_PROSE_WORDS, f"{path.name}: {prose_words(markdown)} words of prose"


def test_prose_words_counts_prose_only() -> None:
    assert prose_words("Two words.\n```python\nx = 1\n```\n$$a+b$$ {glue:text}`ch01_x` and more") == 5
    assert prose_words("```{note}\nA note holds prose.\n```") == 4
    assert prose_words("````{note}\nSee:\n```python\nx = 1\n```\nthen two.\n````\nEnd - 2") == 5


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_code_cells_are_short(path: Path) -> None:
    long = []
    for number, cell in enumerate(_cells(path)):
        lines = _source(cell).rstrip("\n").splitlines()
        if cell["cell_type"] != "code" or len(lines) <= MAX_CELL_LINES:
            continue
        if (path.name, lines[0]) not in LONG_CELL_EXCEPTIONS:
            long.append(f"cell {number} ({len(lines)} lines): {lines[0][:60]!r}")
    assert not long, f"{path.name}: code cells over {MAX_CELL_LINES} lines:\n" + "\n".join(long)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_glue_only_in_hidden_cells(path: Path) -> None:
    visible = [
        f"cell {number}: {_source(cell).splitlines()[0][:60]!r}"
        for number, cell in enumerate(_cells(path))
        if cell["cell_type"] == "code"
        and re.search(r"\bglue\(", _source(cell))
        and not _tags(cell) & HIDDEN_TAGS
    ]
    assert not visible, f"{path.name}: glue( in cells the page shows (tag them remove-cell):\n" + "\n".join(
        visible
    )


# --- numbers in exercise solutions ------------------------------------------------------

_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w])")
# Text where a number is not a claim typed by hand: glued values, inline code, maths,
# cross-references and citations, fenced code, directive options.
_NOT_PROSE = re.compile(
    r"\{glue(?::\w+)?\}`[^`]*`"
    r"|\{(?:ref|doc|numref|eq|cite|cite:p|cite:t|term|download)\}`[^`]*`"
    r"|``[^`]*``|`[^`]*`"
    r"|\$\$.*?\$\$|\$[^$]*\$"
    r"|```.*?```"
    r"|^:\w[\w-]*:[^\n]*$"
    r"|\[[^\]]*\]\([^)]*\)",
    re.S | re.M,
)
# Numbers that name a place in the book or a thing (a version, a word size) rather than
# state a result.
_PLACE = re.compile(
    r"(?:[Cc]hapter|[Ss]ection|[Pp]art|[Ee]xercise|[Ll]ab|[Ff]igure|[Tt]able|[Ss]tep|Python)s? $"
)
_NAMING_SUFFIX = re.compile(r"-bit\b")


def _solutions(cells: list[dict]) -> list[str]:
    """The prose of every solution: fenced ``{solution}`` blocks and gated regions."""
    texts, gated = [], False
    for cell in cells:
        source = _source(cell)
        if cell["cell_type"] != "markdown":
            continue
        for block in re.findall(r"(`{3,})\{solution\}[^\n]*\n(.*?)\1", source, re.S):
            texts.append(block[1])
        if re.search(r"\{solution-start\}", source):
            gated = True
            source = source.split("{solution-start}", 1)[1]
        if gated:
            texts.append(source.split("{solution-end}", 1)[0])
        if re.search(r"\{solution-end\}", source):
            gated = False
    return texts


def _evidence(cells: list[dict]) -> str:
    """Everything a cell prints or takes as input, and every exercise statement."""
    parts = []
    for cell in cells:
        if cell["cell_type"] == "code":
            parts.append(_source(cell))
            for output in cell.get("outputs", []):
                parts.append("".join(output.get("text", "")))
                for value in output.get("data", {}).values():
                    parts.append(value if isinstance(value, str) else json.dumps(value))
        else:
            parts += [m[1] for m in re.findall(r"(`{3,})\{exercise\}[^\n]*\n(.*?)\1", _source(cell), re.S)]
    return "\n".join(parts).replace(",", "")


def _unbacked_numbers(path: Path) -> list[str]:
    cells = _cells(path)
    evidence = set(_NUMBER.findall(_evidence(cells)))
    missing = []
    for text in _solutions(cells):
        prose = _NOT_PROSE.sub(" ", text)
        for match in _NUMBER.finditer(prose):
            if _PLACE.search(prose[: match.start()]) or _NAMING_SUFFIX.match(prose, match.end()):
                continue
            number = match.group().rstrip(",").replace(",", "")
            if number not in evidence:
                context = prose[max(0, match.start() - 40) : match.end() + 20]
                missing.append(f"{match.group()!r} in ...{context!r}")
    return missing


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_solution_numbers_are_computed(path: Path) -> None:
    missing = _unbacked_numbers(path)
    assert not missing, (
        f"{path.name}: numbers in exercise solutions that no cell prints and no glue supplies "
        "(run the solution as a code cell and glue its numbers):\n" + "\n".join(missing)
    )


def test_checker_catches_a_typed_number(tmp_path: Path) -> None:
    notebook = {
        "cells": [
            {"cell_type": "code", "source": "print(41)", "metadata": {}, "outputs": [
                {"output_type": "stream", "name": "stdout", "text": "41\n"}]},
            {"cell_type": "markdown", "metadata": {}, "source":
                "````{solution} ex-1\n:class: dropdown\nThe answer is 41, not 1,234.5; "
                "see chapter 7 and {glue:text}`x` and `k = 99`.\n````\n"},
        ]
    }
    path = tmp_path / "fake.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    missing = _unbacked_numbers(path)
    assert len(missing) == 1 and "1,234.5" in missing[0]
