"""Checks for Lab 7: real text, the licence files of the book's own environment.

The corpus is the folder ``licences`` (a ``manifest.json`` and the files it lists) that
the book's real-text chapter reads. :func:`licence_corpus` finds it in this order: the
folder given; the folder named by the environment variable ``NEARDUP_LAB_LICENCES``;
``data/licences`` under the working folder (the student bundle ships it there next to
the notebooks); ``book/data/licences`` of the repository this package was installed
from. Every file is checked against the manifest's SHA-256 before it is used.

A UTF-8 byte-order mark at the start of a file is not text: the browser's file system (in
JupyterLite) drops it when the kernel reads the file, so a file whose bytes equal the
manifest's once the mark is put back counts as unchanged, and every text is given without
the mark, in a browser as on a laptop. A file that really differs (or is missing) stays in
the corpus as it is, listed in ``LicenceCorpus.changed``: the notebook still runs, and
every check of the lab fails saying which files to put back and how.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import sys
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import Any, NamedTuple

from ..text import containment, jaccard, word_shingles
from .harness import Case, CheckResult, as_sequence, call_on_copies, run_check, show_value

LICENCES_ENV = "NEARDUP_LAB_LICENCES"
#: The settings of the lab's last question: 5-word shingles of the stripped text, Jaccard >= 0.9.
DISTINCT_K, DISTINCT_THRESHOLD = 5, 0.9


class LicenceCorpus(NamedTuple):
    """The licence files: a name (``package/file``), the text, the package and its SPDX id.

    ``changed`` names the files that differ from the manifest (or are missing: their text is
    empty); it is empty for the corpus as the lab hands it out.
    """

    names: list[str]
    texts: list[str]
    packages: list[str]
    spdx: list[str | None]
    changed: tuple[str, ...] = ()


_BOM = b"\xef\xbb\xbf"


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


def as_shipped(raw: bytes, sha256: str) -> bool:
    """Whether ``raw`` are the bytes the manifest's ``sha256`` names, perhaps without a leading BOM.

    >>> digest = hashlib.sha256(b"\\xef\\xbb\\xbfMIT").hexdigest()
    >>> as_shipped(b"\\xef\\xbb\\xbfMIT", digest), as_shipped(b"MIT", digest), as_shipped(b"MIT!", digest)
    (True, True, False)
    """
    if hashlib.sha256(raw).hexdigest() == sha256:
        return True
    return not raw.startswith(_BOM) and hashlib.sha256(_BOM + raw).hexdigest() == sha256


_VERIFIED: dict[Path, LicenceCorpus] = {}  # corpora read with no file changed, by folder


def _read(folder: Path) -> LicenceCorpus:
    if folder in _VERIFIED:
        return _VERIFIED[folder]
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    names, texts, packages, spdx, changed = [], [], [], [], []
    for entry in manifest["files"]:
        name = entry["file"].removeprefix("files/")
        try:
            raw = (folder / entry["file"]).read_bytes()
        except FileNotFoundError:
            raw = b""
            changed.append(name)
        else:
            if not as_shipped(raw, entry["sha256"]):
                changed.append(name)
        names.append(name)
        texts.append(raw.removeprefix(_BOM).decode("utf-8", errors="replace"))
        packages.append(entry["package"])
        spdx.append(entry["spdx"])
    corpus = LicenceCorpus(names, texts, packages, spdx, tuple(changed))
    if not changed:  # a changed corpus is read again next time: the student may put it back
        _VERIFIED[folder] = corpus
    return corpus


def corpus_problem(corpus: LicenceCorpus, folder: str | os.PathLike | None = None) -> str | None:
    """What is wrong with ``corpus`` and how to put it right, or None for the corpus as handed out.

    >>> corpus_problem(licence_corpus()) is None
    True
    >>> print(corpus_problem(licence_corpus()._replace(changed=("partd/LICENSE.txt",))))  # doctest: +ELLIPSIS
    1 licence file differs from the copy the lab came with: partd/LICENSE.txt. ...
    """
    if not corpus.changed:
        return None
    changed = corpus.changed
    shown = ", ".join(changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
    count = "1 licence file differs" if len(changed) == 1 else f"{len(changed)} licence files differ"
    if sys.platform == "emscripten":  # in the page, the site's own copy is under the student's edits
        first = (licence_folder(folder) / "files" / changed[0]).as_posix()
        fix = (
            f"Delete your changed copy and the site's own comes back: run import os; "
            f"os.remove({first!r}) in a cell (once per file)"
        )
    else:
        fix = (
            "Copy the folder data/licences again from the lab's zip (in a clone of the repository: "
            "git checkout book/data/licences)"
        )
    return (
        f"{count} from the copy the lab came with: {shown}. Lab 7's numbers and checks need the "
        f"original files. {fix}, then run the notebook again."
    )


def _corpus() -> LicenceCorpus:
    """The corpus the checks use: :func:`licence_corpus` without its note (each check reports it)."""
    return _read(licence_folder().resolve())


def corpus_failure(check_name: str, target: Any) -> CheckResult | None:
    """A failed check saying what to put back, when the corpus differs from the manifest; else None.

    Every check of the lab starts with it, so that a changed corpus gives one clear message
    instead of failures no code of the student's can fix.

    >>> corpus_failure("check_containment_of", len) is None
    True
    """
    problem = corpus_problem(_corpus())
    if problem is None:
        return None
    case = Case(
        "the lab's licence files",
        "data/licences",
        lambda: "",
        shown_expected="the files the lab came with",
        judge=lambda got: problem,
        hint="Put the original files back (see the detail), then run this cell again.",
    )
    return run_check(check_name, target, [case])


def licence_corpus(folder: str | os.PathLike | None = None) -> LicenceCorpus:
    """The licence files, checked against their manifest (see the module docstring for where from).

    When a file differs from the manifest, a note on standard error says which and how to
    put it back (see ``corpus_problem``), and the corpus comes back as it is.

    >>> corpus = licence_corpus()
    >>> len(corpus.names) == len(corpus.texts) > 100, corpus.changed
    (True, ())
    """
    corpus = _read(licence_folder(folder).resolve())
    problem = corpus_problem(corpus, folder)
    if problem is not None:
        print(f"WARNING: {problem}", file=sys.stderr)
    return corpus


# ------------------------------------------------------------ reference answers

# A notice: marks (the word copyright, (c), ©), then a year, or a holder's name after the word or ©.
_MARKS = re.compile(r"\s*((?:(?:copyright\b|\(c\)|©)[\s:]*)+)", re.IGNORECASE)
_YEAR = re.compile(r"[\[<({]?\d")


def is_copyright_notice(line: str) -> bool:
    """Whether ``line`` is a copyright notice, as lab 7 defines it (see :func:`check_strip_copyright`).

    >>> is_copyright_notice("Copyright (c) 2019 Ann Example"), is_copyright_notice("Copyright The Authors")
    (True, True)
    >>> is_copyright_notice("copyright notice, this list of conditions and the following disclaimer")
    False
    >>> is_copyright_notice("(c) You must retain, in the Source form of any Derivative Works")
    False
    """
    marks = _MARKS.match(line)
    if marks is None:
        return False
    rest = line[marks.end() :]
    if _YEAR.match(rest):
        return True
    named = len(rest) > 1 and rest[0].isupper() and rest[1].islower() and not rest.startswith("Holder")
    # (c) alone also numbers clauses ("(c) You must retain ..."): only the word or the sign names a holder.
    return named and re.search(r"copyright|©", marks.group(1), re.IGNORECASE) is not None


def _strip_copyright(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if not is_copyright_notice(line))


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


#: The rule of exercise 1, quoted in hints.
NOTICE_RULE = (
    "A notice starts (after spaces) with marks -- the word 'copyright' in any case, '(c)' or '©' -- "
    "followed by a year, or by a holder's name (a capital letter then a small one, not 'Holder') "
    "after the word or the sign; '(c)' alone before a name numbers a clause."
)

#: Lines of licence bodies that begin like a notice but are not one (the notebook shows them).
HARD_LINES = (
    "copyright notice, this list of conditions and the following disclaimer.",
    "THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS",
    "COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY,",
    "   (c) You must retain, in the Source form of any Derivative Works",
    "Copyright Holder(s) and the Author(s) or with their explicit written",
    "Copyright [yyyy] [name of copyright owner]",
)


def check_strip_copyright(func: Callable[[str], str]) -> CheckResult:
    """Check a ``strip_copyright(text) -> str`` that drops the copyright notices of a licence.

    A line is a notice when, after its leading spaces, it starts with one or more marks
    -- the word *copyright* (any case), ``(c)`` (any case) or ``©``, with spaces or colons
    between them -- followed by a year (a digit, perhaps after one of ``[<({``) or, when the
    marks hold the word or the sign, by a holder's name: a word whose first letter is a
    capital and second a small letter, other than *Holder*. Every other line stays, in
    order; blank lines may go or stay.

    >>> check_strip_copyright(_strip_copyright).passed
    PASS check_strip_copyright: all 16 cases pass
    True
    """
    start = "A notice starts with the word 'Copyright', with '©' or with '(c)': look at how the line begins."
    body = (
        "Licence bodies wrap lines that begin with the word too; a notice's marks are followed by a year "
        "or a holder's name. " + NOTICE_RULE
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
        ("a holder without a year", "Copyright The OpenTelemetry Authors\nText.", NOTICE_RULE),
        ("the word and the sign, no year", "Copyright (c) Microsoft Corporation\nText.", NOTICE_RULE),
        (
            "copyright in a sentence stays",
            "The above copyright notice and this permission notice shall be included.",
            "Only lines that *begin* with a mark can go: the licence's own conditions mention copyright too.",
        ),
        (
            "a longer word stays",
            "Copyrighted works are covered.\nMore text.",
            "'Copyrighted' is another word.",
        ),
        (
            "a wrapped BSD line stays",
            "    * Redistributions in binary form must reproduce the above\n"
            "      copyright notice, this list of conditions and the following disclaimer.",
            body,
        ),
        (
            "a wrapped disclaimer stays",
            "IN NO EVENT SHALL THE AUTHORS OR\nCOPYRIGHT HOLDERS BE LIABLE FOR "
            "ANY CLAIM, DAMAGES OR OTHER LIABILITY,",
            body,
        ),
        ("an Apache clause stays", "\n".join(HARD_LINES[3:]), body),
        (
            "several holders",
            "Copyright 2005 A\nCopyright 2010 B\nText\nCopyright 2012 C",
            "Every notice goes, wherever it is.",
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
    failed = corpus_failure("check_strip_copyright", func)
    if failed is not None:
        return failed
    cases += [licence_file_case(func, name) for name in ("xxhash/licenses/LICENSE.txt", "HARD LINES")]
    return run_check("check_strip_copyright", func, cases)


def licence_file_case(func: Callable[[str], str], name: str) -> Case:
    """A case of :func:`check_strip_copyright` on the real file ``name`` (``"HARD LINES"``: all of them).

    >>> licence_file_case(_strip_copyright, "HARD LINES").name
    'every hard line of the notebook, with notices between them'
    """
    if name == "HARD LINES":
        text = "\n".join(
            f"{line}\nCopyright {2000 + i} Holder Number {i}" for i, line in enumerate(HARD_LINES)
        )
        label, shown = "every hard line of the notebook, with notices between them", "the hard lines"
    else:
        corpus = _corpus()
        text = corpus.texts[corpus.names.index(name)]
        label, shown = f"a real licence file ({name})", f"the file {name} ({len(text):,} characters)"
    return Case(
        label,
        f"text={shown}",
        call_on_copies(func, text),
        shown_expected="the text without its copyright notices",
        judge=_lines_judge(_strip_copyright(text)),
        hint=NOTICE_RULE,
    )


def strip_copyright_case(func: Callable[[str], str], seed: int) -> Case:
    """A random case of :func:`check_strip_copyright`: a licence file of the corpus, picked by the seed.

    >>> strip_copyright_case(_strip_copyright, 0).name.startswith("a real licence file")
    True
    """
    corpus = _corpus()
    with_notices = [n for n, t in zip(corpus.names, corpus.texts) if _strip_copyright(t) != t]
    return licence_file_case(func, with_notices[(seed * 7919) % len(with_notices)])


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
    failed = corpus_failure("check_containment_of", func)
    if failed is not None:
        return failed
    corpus = _corpus()
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


def containment_case(func: Callable[[set, set], float], seed: int) -> Case:
    """A random case of :func:`check_containment_of`: a licence against a random bundle of others.

    >>> containment_case(containment, 1).name
    'a licence against a bundle (seed 1)'
    """
    corpus = _corpus()
    rng = random.Random(seed)
    picks = rng.sample(range(len(corpus.texts)), 4)
    a: AbstractSet[str] = word_shingles(corpus.texts[picks[0]], 3 + seed % 3)
    bundle = picks[: rng.randint(1, 4)] if seed % 2 else picks[1:]
    b: AbstractSet[str] = set().union(*(word_shingles(corpus.texts[i], 3 + seed % 3) for i in bundle))
    if seed % 3 == 0:
        a, b = frozenset(a), frozenset(b)
    return Case(
        f"a licence against a bundle (seed {seed})",
        f"a=word_shingles({corpus.names[picks[0]]}, {3 + seed % 3}), b=the shingles of {len(bundle)} files",
        call_on_copies(func, a, b),
        containment(a, b),
        hint="Divide the number of shingles of a that are also in b by the number of shingles of a.",
    )


def read_clusters(got: Any, n: int) -> list[list[int]]:
    """Sorted clusters of file indices, or ValueError when ``got`` is not a partition of ``0 .. n-1``.

    >>> read_clusters([{1, 0}, [2]], 3)
    [[0, 1], [2]]
    """
    clusters = []
    for cluster in as_sequence(got, "a list of clusters"):
        if not isinstance(cluster, (list, tuple, set, frozenset)):
            raise ValueError(f"each cluster is a set of file indices, found {show_value(cluster, 60)}")
        if not all(isinstance(i, int) and not isinstance(i, bool) for i in cluster):
            raise ValueError(f"a cluster holds file indices (ints), found {show_value(cluster, 60)}")
        clusters.append(sorted(cluster))
    seen = [i for c in clusters for i in c]
    if sorted(seen) != list(range(n)):
        twice = sorted({i for i in seen if seen.count(i) > 1})
        lost = sorted(set(range(n)) - set(seen))
        if twice:
            raise ValueError(f"file {twice[0]} is in two clusters")
        if lost:
            raise ValueError(
                f"{len(lost)} files are in no cluster, e.g. {lost[:5]}: a file without a partner is a "
                "cluster of its own"
            )
        raise ValueError(f"the clusters hold indices that are not files (there are {n}: 0 .. {n - 1})")
    return sorted(clusters)


#: Exercise 3 is checked in the notebook by properties of the answer, not by the answer: for one
#: licence in four, two copies that must share a cluster (without their notices they reach 0.9;
#: with them they do not) and two files that must not (close texts that stay below 0.9, joined by
#: no chain of pairs at 0.9). Each picks the pair a near miss of the rule gets wrong: notices
#: kept, 3- or 4-word shingles, a threshold of 0.8 or 0.85. tests/test_checks_wrong_answers.py
#: checks them against the grader's clusters.
DISTINCT_PAIRS: tuple[tuple[str, tuple[str, str], tuple[str, str]], ...] = (
    (
        "the MIT copies",
        ("mdurl/LICENSE.txt", "pyyaml/licenses/LICENSE.txt"),
        ("sphinx-design/licenses/LICENSE.txt", "tabulate/licenses/LICENSE.txt"),
    ),
    (
        "BSD 3-clause copies, cycler's wording",
        ("cycler/LICENSE.txt", "pandas/licenses/LICENSE.txt"),
        ("dask/licenses/LICENSE.txt", "psutil/LICENSE.txt"),
    ),
    (
        "BSD 3-clause copies, locket's wording",
        ("pygments/licenses/LICENSE.txt", "sphinxcontrib-jsmath/licenses/LICENCE.rst.txt"),
        ("partd/LICENSE.txt", "pygments/licenses/LICENSE.txt"),
    ),
    (
        "Apache notices",
        ("msgpack/licenses/COPYING.txt", "tzdata/licenses/LICENSE.txt"),
        ("coverage/licenses/NOTICE.txt", "msgpack/licenses/COPYING.txt"),
    ),
)
#: The number of distinct texts is somewhere in this range (the bounds included).
DISTINCT_RANGE = (45, 65)


def check_distinct_texts(clusters: Any) -> CheckResult:
    """Check the clusters of the lab's last question: the files grouped into distinct licence texts.

    Files count as one text when the 5-word shingles of their texts without copyright
    notices reach Jaccard >= 0.9, directly or through a chain of such pairs. The answer is
    the list of clusters (sets of file indices, files without a partner included). The
    notebook checks properties every right answer has: a partition of the files into a
    number of clusters within ``DISTINCT_RANGE``, files with the same text together and
    unlike licences apart, and the pairs of ``DISTINCT_PAIRS`` together or apart. No
    message says whether the number of clusters is too high or too low inside the range;
    grading compares every cluster with the grader's own.

    >>> check_distinct_texts([{i} for i in range(len(licence_corpus().names))]).passed  # doctest: +ELLIPSIS
    FAIL check_distinct_texts: 6 of 6 cases fail
    ...
    False
    """
    failed = corpus_failure("check_distinct_texts", clusters)
    if failed is not None:
        return failed
    corpus = _corpus()
    n = len(corpus.names)
    index = {name: i for i, name in enumerate(corpus.names)}
    stripped: dict[int, set[str]] = {}

    def similarity(i: int, j: int) -> float:
        for f in (i, j):
            if f not in stripped:
                stripped[f] = word_shingles(_strip_copyright(corpus.texts[f]), DISTINCT_K)
        return jaccard(stripped[i], stripped[j])

    first: dict[str, int] = {}
    same = []  # pairs of files with the same text, byte for byte
    for i, text in enumerate(corpus.texts):
        if text in first:
            same.append((first[text], i))
        first.setdefault(text, i)
    # One file of each of three licences that no threshold of the lab's would join.
    unlike = [
        index[name] for name in ("mdurl/LICENSE.txt", "cycler/LICENSE.txt", "msgpack/licenses/COPYING.txt")
    ]

    def read() -> list[list[int]]:
        return read_clusters(clusters, n)

    def judge_pairs(together: list[tuple[int, int]], apart: list[tuple[int, int]], why_together: str):
        def judge(got: list[list[int]]) -> str | None:
            where = {i: k for k, c in enumerate(got) for i in c}
            for i, j in together:
                if where[i] != where[j]:
                    names = f"{corpus.names[i]} and {corpus.names[j]}"
                    return f"{names} are in different clusters, but {why_together}"
            for i, j in apart:
                if where[i] == where[j]:
                    score = similarity(i, j)
                    return (
                        f"{corpus.names[i]} and {corpus.names[j]} are in one cluster, but without their "
                        f"notices their {DISTINCT_K}-word shingles reach only Jaccard {score:.4f}, and no "
                        f"chain of pairs at {DISTINCT_THRESHOLD} or more joins them"
                    )
            return None

        return judge

    def judge_count(got: Any) -> str | None:
        try:
            found = read_clusters(got, n)
        except ValueError as exc:
            return str(exc)
        low, high = DISTINCT_RANGE
        if low <= len(found) <= high:
            return None
        clusters = "1 cluster" if len(found) == 1 else f"{len(found)} clusters"
        return f"{clusters}: by the lab's rule the files hold between {low} and {high} distinct texts"

    rule = (
        "Strip the notices with your strip_copyright, shingle with 5 words, join the pairs at Jaccard 0.9 "
        "or more with clusters_from_pairs (chains join too)."
    )
    shown = f"{n} licence files; 5-word shingles of the text without copyright notices; Jaccard >= 0.9"
    cases = [
        Case(
            "a partition of the files",
            shown,
            lambda: clusters,
            shown_expected="every file index exactly once, in {} to {} clusters".format(*DISTINCT_RANGE),
            judge=judge_count,
            hint="A file without a partner is a cluster of its own: clusters_from_pairs(number of files, "
            "pairs) keeps those. " + rule,
        ),
        Case(
            "same texts together, unlike licences apart",
            shown,
            read,
            shown_expected="files with the same text in one cluster; MIT, BSD and Apache files apart",
            judge=judge_pairs(
                same,
                [(a, b) for k, a in enumerate(unlike) for b in unlike[k + 1 :]],
                "they have the same text",
            ),
            hint=rule,
        ),
    ]
    for label, together, apart in DISTINCT_PAIRS:
        t, a = (index[together[0]], index[together[1]]), (index[apart[0]], index[apart[1]])
        cases.append(
            Case(
                label,
                f"together: {together[0]} and {together[1]}; apart: {apart[0]} and {apart[1]}",
                read,
                shown_expected="the first two files in one cluster, the last two in different ones",
                judge=judge_pairs(
                    [t],
                    [a],
                    f"without their notices their {DISTINCT_K}-word shingles reach Jaccard "
                    f"{similarity(*t):.4f} (with them, less: strip the notices before you shingle)",
                ),
                hint=rule,
            )
        )
    return run_check("check_distinct_texts", clusters, cases)
