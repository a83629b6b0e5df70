"""Teacher notes: one per lab, with the parts a teacher plans with, and no quote that drifted.

Each note must name the chapters to read first (and they must exist), give a 90-minute
plan with a demo, checkpoints, a debrief and the core and optional parts, list common
mistakes by the case that catches them (every quoted case must be a case of that lab's
checks), and say where the answers to the questions are (the solution notebook, which
must hold an answer cell).
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import nbformat
import pytest

from neardup_lab import checks

ROOT = Path(__file__).resolve().parents[1]
NOTES = ROOT / "labs" / "teachers"
SOLUTIONS = sorted((ROOT / "labs" / "solutions").glob("*.ipynb"))


def _lab(path: Path) -> str:
    return nbformat.read(path, as_version=4).metadata["neardup_lab"]["lab"]


#: Answers that fail every case between them, also the hidden-corpus cases of lab 4 (which a
#: malformed answer never reaches): all documents apart, all together, at a huge cost.
WRONG_ANSWERS = (
    lambda *args, **kwargs: object(),
    object(),
    lambda docs: ([[i] for i in range(len(docs))], 10**9),
    lambda docs: ([list(range(len(docs)))] if docs else [], 10**9),
)


def _case_names(lab: str) -> set[str]:
    """Every case name of the lab's checks, from the failures of answers that fail them all."""
    names = set()
    for check_name in checks.LABS[lab]:
        check = getattr(checks, check_name)
        for answer in WRONG_ANSWERS:
            with contextlib.redirect_stdout(io.StringIO()):
                names |= {failure.case for failure in check(answer).failures}
    return names


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: p.stem)
def test_every_lab_has_teacher_notes_with_every_part(solution):
    note = NOTES / f"{solution.stem}.md"
    assert note.is_file(), f"no teacher notes for {solution.name}"
    text = note.read_text(encoding="utf-8")
    for heading in (
        "## Before the class",
        "## A 90-minute plan",
        "## Common mistakes",
        "## Answers to the questions",
    ):
        assert heading in text, f"{note.name} lacks {heading!r}"
    plan = text.split("## A 90-minute plan")[1].split("\n## ")[0]
    for part in ("**Demo.**", "**Checkpoint:**", "**Debrief.**", "core", "optional"):
        assert part in plan, f"{note.name}: the plan has no {part}"


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: p.stem)
def test_teacher_notes_link_to_files_that_exist(solution):
    note = NOTES / f"{solution.stem}.md"
    text = note.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)]+)\)", text)
    chapters = [link for link in links if "/book/" in link]
    assert chapters, f"{note.name} names no chapter to read first"
    for link in links:
        assert (note.parent / link).resolve().is_file(), f"{note.name} links to a missing {link}"
    assert f"solutions/{solution.name}" in text


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: p.stem)
def test_common_mistakes_quote_real_cases(solution):
    text = (NOTES / f"{solution.stem}.md").read_text(encoding="utf-8")
    mistakes = text.split("## Common mistakes")[1].split("\n## ")[0]
    quoted = re.findall(r"`'([^`]+)'`", mistakes)
    assert len(quoted) >= 4, "at least four common mistakes"
    known = _case_names(_lab(solution))
    assert set(quoted) <= known, sorted(set(quoted) - known)


@pytest.mark.parametrize("solution", SOLUTIONS, ids=lambda p: p.stem)
def test_the_answers_are_where_the_notes_say(solution):
    nb = nbformat.read(solution, as_version=4)
    answers = [
        cell
        for cell in nb.cells
        if "solution-only" in cell.metadata.get("tags", []) and cell.source.startswith("**Answer.**")
    ]
    assert answers, f"{solution.name} has no solution-only **Answer.** cell"
