"""Checks for Lab 7: real text, the licence files of the book's own environment.

The corpus is the folder ``licences`` (a ``manifest.json`` and the files it lists) that
the book's real-text chapter reads. :func:`licence_corpus` finds it in this order: the
folder given; the folder named by the environment variable ``NEARDUP_LAB_LICENCES``;
``data/licences`` under the working folder (the student bundle ships it there next to
the notebooks); ``book/data/licences`` of the repository this package was installed
from. Every file is checked against the manifest's SHA-256 before it is used.
"""

from __future__ import annotations

import hashlib
import json
import numbers
import os
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from ..clusters import clusters_from_pairs
from ..evaluate import brute_force_pairs
from ..text import containment, word_shingles
from .harness import Case, CheckResult, call_on_copies, grading, run_check, show_value

LICENCES_ENV = "NEARDUP_LAB_LICENCES"
#: The settings of the lab's last question: 5-word shingles of the stripped text, Jaccard >= 0.9.
DISTINCT_K, DISTINCT_THRESHOLD = 5, 0.9


class LicenceCorpus(NamedTuple):
    """The licence files: a name (``package/file``), the text, the package and its SPDX id."""

    names: list[str]
    texts: list[str]
    packages: list[str]
    spdx: list[str | None]


def _candidates(folder: str | os.PathLike | None) -> list[Path]:
    if folder is not None:
        return [Path(folder)]
    found = [Path(os.environ[LICENCES_ENV])] if os.environ.get(LICENCES_ENV) else []
    return [
        *found,
        Path("data") / "licences",
        Path(__file__).resolve().parents[2] / "book" / "data" / "licences",
    ]


def licence_folder(folder: str | os.PathLike | None = None) -> Path:
    """The first folder with a ``manifest.json`` among the places the module docstring lists.

    Raises FileNotFoundError naming every place it looked.

    >>> (licence_folder() / "manifest.json").is_file()
    True
    """
    places = _candidates(folder)
    for place in places:
        if (place / "manifest.json").is_file():
            return place
    looked = ", ".join(str(p) for p in places)
    raise FileNotFoundError(
        f"no licence corpus (a folder with manifest.json) in: {looked}; keep the folder data/licences "
        f"next to the notebook, or set {LICENCES_ENV} to its path"
    )


@lru_cache(maxsize=4)
def _read(folder: Path) -> LicenceCorpus:
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    names, texts, packages, spdx = [], [], [], []
    for entry in manifest["files"]:
        raw = (folder / entry["file"]).read_bytes()
        if hashlib.sha256(raw).hexdigest() != entry["sha256"]:
            raise ValueError(f"{entry['file']} differs from the manifest's checksum: restore the corpus")
        names.append(entry["file"].removeprefix("files/"))
        texts.append(raw.decode("utf-8", errors="replace"))
        packages.append(entry["package"])
        spdx.append(entry["spdx"])
    return LicenceCorpus(names, texts, packages, spdx)


def licence_corpus(folder: str | os.PathLike | None = None) -> LicenceCorpus:
    """The licence files, checked against their manifest (see the module docstring for where from).

    >>> corpus = licence_corpus()
    >>> len(corpus.names) == len(corpus.texts) > 100
    True
    """
    return _read(licence_folder(folder).resolve())


# ------------------------------------------------------------ reference answers

_COPYRIGHT_LINE = re.compile(r"^\s*(?:copyright(?=[\s:]|$)|©|\(c\))", re.IGNORECASE)


def _strip_copyright(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if not _COPYRIGHT_LINE.match(line))


def distinct_texts(corpus: LicenceCorpus | None = None) -> int:
    """Distinct licence texts: clusters of files whose stripped texts reach Jaccard >= 0.9 (chains join).

    >>> 1 < distinct_texts() < len(licence_corpus().names)
    True
    """
    corpus = corpus or licence_corpus()
    sets = [word_shingles(_strip_copyright(text), DISTINCT_K) for text in corpus.texts]
    pairs = brute_force_pairs(sets, DISTINCT_THRESHOLD)
    return len(clusters_from_pairs(len(sets), pairs))


# ------------------------------------------------------------------- the checks


def _lines_judge(expected: str) -> Callable[[Any], str | None]:
    want = [line for line in expected.split("\n") if line.strip()]

    def judge(got: Any) -> str | None:
        if not isinstance(got, str):
            return f"return the text as a str, not a {type(got).__name__}"
        lines = [line for line in got.split("\n") if line.strip()]
        if lines == want:
            return None
        dropped = [line for line in want if line not in lines]
        kept = [line for line in lines if line not in want]
        parts = []
        if dropped:
            parts.append(f"a line that should stay is gone: {dropped[0]!r}")
        if kept:
            parts.append(f"a line that should go is still there: {kept[0]!r}")
        return "; ".join(parts) or "the lines are in another order"

    return judge


def check_strip_copyright(func: Callable[[str], str]) -> CheckResult:
    """Check a ``strip_copyright(text) -> str`` that drops the copyright lines of a licence.

    A line goes when, after its leading spaces, it starts with the word *copyright*
    (any case, followed by a space, a colon or the line's end), with ``©`` or with
    ``(c)``; every other line stays, in order. Blank lines may go or stay.

    >>> check_strip_copyright(_strip_copyright).passed
    PASS check_strip_copyright: all 10 cases pass
    True
    """
    start = (
        "A copyright line starts with the word 'Copyright', with '©' or with '(c)': look at how the "
        "line begins."
    )
    hand = [
        ("a holder line", "Copyright (c) 2019 Ann Example\n\nPermission is hereby granted", start),
        ("upper case", "COPYRIGHT 2001 Some Body\nAll rights reserved.", "Case does not matter."),
        (
            "indented",
            "    Copyright 2010 The Team\nText of the licence.",
            "Spaces before the word do not matter.",
        ),
        ("the © sign", "© 2015 Zed\nText of the licence.", start),
        ("(C) at the start", "(C) 2015 Zed\nText of the licence.", start),
        ("a colon after the word", "Copyright: 2010 Somebody\nText.", start),
        (
            "copyright in a sentence stays",
            "The above copyright notice and this permission notice shall be included.",
            "Only lines that *begin* with the word go: the licence's own conditions mention copyright too.",
        ),
        (
            "a longer word stays",
            "Copyrighted works are covered.\nMore text.",
            "'Copyrighted' is another word.",
        ),
        (
            "several holders",
            "Copyright 2005 A\nCopyright 2010 B\nText\nCopyright 2012 C",
            "Every copyright line goes, wherever it is.",
        ),
    ]
    cases = [
        Case(
            name,
            f"text={text!r}",
            call_on_copies(func, text),
            shown_expected=repr(_strip_copyright(text)) + " (blank lines may go or stay)",
            judge=_lines_judge(_strip_copyright(text)),
            hint=hint,
        )
        for name, text, hint in hand
    ]
    corpus = licence_corpus()
    picks = (
        ("numpy/licenses/LICENSE.txt", "tqdm/licenses/LICENCE.txt")
        if grading()
        else ("xxhash/licenses/LICENSE.txt",)
    )
    for name in picks:
        i = corpus.names.index(name)
        cases.append(
            Case(
                f"a real licence file ({corpus.names[i]})",
                f"text=the file {corpus.names[i]} ({len(corpus.texts[i]):,} characters)",
                call_on_copies(func, corpus.texts[i]),
                shown_expected="the file without its copyright lines",
                judge=_lines_judge(_strip_copyright(corpus.texts[i])),
                hint=start,
            )
        )
    return run_check("check_strip_copyright", func, cases)


def check_containment_of(func: Callable[[set, set], float]) -> CheckResult:
    """Check a ``containment_of(a, b) -> float``: the share of ``a`` inside ``b``; 1.0 for an empty ``a``.

    >>> check_containment_of(containment).passed
    PASS check_containment_of: all 7 cases pass
    True
    """
    share = "Divide the number of shingles of a that are also in b by the number of shingles of a."
    hand = [
        ("a inside b", {"x", "y"}, {"x", "y", "z", "w"}, 1.0, share),
        (
            "b inside a",
            {"x", "y", "z", "w"},
            {"x", "y"},
            0.5,
            "Containment is not symmetric: it measures a against itself, not against the union.",
        ),
        ("disjoint", {"x"}, {"y"}, 0.0, share),
        ("identical", {"x", "y"}, {"x", "y"}, 1.0, share),
        (
            "empty a",
            set(),
            {"x"},
            1.0,
            "Nothing of an empty a is missing from b: 1.0, and no division by zero.",
        ),
        ("frozensets", frozenset({"x", "y", "z"}), frozenset({"x"}), 1 / 3, "Any set type should work."),
    ]
    cases = [
        Case(name, f"a={show_value(a)}, b={show_value(b)}", call_on_copies(func, a, b), expected, hint=hint)
        for name, a, b, expected, hint in hand
    ]
    corpus = licence_corpus()
    small, big = (
        word_shingles(corpus.texts[0], 5),
        set().union(*(word_shingles(t, 5) for t in corpus.texts[:3])),
    )
    cases.append(
        Case(
            "a licence inside a bundle of three",
            f"a=word_shingles({corpus.names[0]}, 5), b=the shingles of the first three files together",
            call_on_copies(func, small, big),
            containment(small, big),
            hint=share,
        )
    )
    return run_check("check_containment_of", func, cases)


def check_distinct_texts(value: Any) -> CheckResult:
    """Check the answer to the lab's last question: how many distinct licence texts there are.

    Files count as one text when the 5-word shingles of their texts without copyright
    lines reach Jaccard >= 0.9, directly or through a chain of such pairs.

    >>> check_distinct_texts(distinct_texts()).passed
    PASS check_distinct_texts: all 1 cases pass
    True
    """
    want = distinct_texts()
    n = len(licence_corpus().names)

    def judge(got: Any) -> str | None:
        if isinstance(got, bool) or not isinstance(got, numbers.Integral):
            return "the answer is a count of texts: a whole number"
        if got == want:
            return None
        if got == n:
            return "that is the number of files: files with the same text count once"
        return "too many: some files with the same text are counted apart" if got > want else "too few"

    case = Case(
        "distinct licence texts",
        f"{n} licence files; 5-word shingles of the text without copyright lines; "
        "Jaccard >= 0.9, chains join",
        lambda: value,
        shown_expected="the number of clusters",
        judge=judge,
        hint="Shingle your stripped texts, find the pairs at 0.9 or more, join them into clusters "
        "(chains too) and count the clusters, files without a partner included.",
    )
    return run_check("check_distinct_texts", value, [case])
