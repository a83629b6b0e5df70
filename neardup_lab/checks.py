"""Self-checks for the classroom labs: run a student's code on known cases and explain what is wrong.

Every ``check_*`` function takes what a student wrote (a function, a class or a
value), runs it on several cases -- hand-written edge cases (empty text, text
shorter than ``k``, punctuation, Unicode, ``k = 1`` ...) and comparisons with
the package's reference implementation -- and prints a report. For each case
that fails, the report gives the case's name, the input, what was expected,
what came back and a hint.

A check never raises. A function that still raises :class:`NotImplementedError`
is reported as "not implemented yet"; any other exception from the student's
code is reported as what came back. Each check returns a :class:`CheckResult`
and remembers it, so that :func:`summary` can say how many checks of a lab pass.

>>> from neardup_lab import jaccard
>>> from neardup_lab.checks import check_jaccard
>>> result = check_jaccard(jaccard)
PASS check_jaccard: all 8 cases pass
>>> result.passed
True
"""

from __future__ import annotations

import copy
import math
import numbers
import random
import textwrap
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from .clusters import clusters_from_pairs
from .corpus import make_article, make_corpus, replace_words
from .evaluate import brute_force_pairs, pairs_from_clusters, precision_recall
from .hashing import stable_hash
from .lsh import _false_negative_area, _false_positive_area, candidate_pairs, optimal_params, s_curve
from .minhash import MinHasher, estimate_jaccard
from .simhash import hamming, simhash
from .text import char_shingles, jaccard, normalize, word_shingles, words

__all__ = [
    "DEDUP_TARGETS",
    "LABS",
    "MINHASH_PRIME",
    "CheckResult",
    "Failure",
    "Summary",
    "check_block_index",
    "check_candidate_pairs",
    "check_char_shingles",
    "check_choose_bands_rows",
    "check_clusters",
    "check_dedup",
    "check_estimate_similarity",
    "check_hamming",
    "check_jaccard",
    "check_k_for_error",
    "check_measure_error",
    "check_minhash_signature",
    "check_normalize",
    "check_precision_recall",
    "check_s_curve",
    "check_simhash",
    "check_target_choice",
    "check_word_shingles",
    "grade",
    "reset",
    "summary",
]

#: The checks of each lab, and the name the student's answer has in the lab's notebook.
LABS: dict[str, dict[str, str]] = {
    "lab01": {
        "check_normalize": "my_normalize",
        "check_word_shingles": "my_word_shingles",
        "check_char_shingles": "my_char_shingles",
        "check_jaccard": "my_jaccard",
    },
    "lab02": {
        "check_minhash_signature": "minhash_signature",
        "check_estimate_similarity": "estimate_similarity",
        "check_measure_error": "measure_error",
        "check_k_for_error": "k_for_error",
    },
    "lab03": {
        "check_s_curve": "candidate_probability",
        "check_candidate_pairs": "find_candidate_pairs",
        "check_choose_bands_rows": "choose_bands_rows",
        "check_target_choice": "chosen",
    },
    "lab04": {
        "check_precision_recall": "my_precision_recall",
        "check_clusters": "group_pairs",
        "check_dedup": "submission",
    },
    "lab05": {
        "check_hamming": "my_hamming",
        "check_simhash": "my_simhash",
        "check_block_index": "BlockIndex",
    },
}

_SHOW_LIMIT = 240  # characters of a value shown in a report
_MAX_SHOWN_FAILURES = 3  # failing cases described in full; the rest are only named


# ------------------------------------------------------------------ results


@dataclass(frozen=True)
class Failure:
    """One failing case: what went in, what was expected, what came back, and a hint."""

    case: str
    input: str
    expected: str
    got: str
    hint: str = ""
    detail: str = ""


@dataclass
class CheckResult:
    """The outcome of one check.

    ``status`` is ``"pass"``, ``"fail"`` or ``"not implemented"``. The report
    has already been printed when a check returns, so a notebook shows nothing
    more for the returned object.

    >>> CheckResult("check_demo", passed=True, cases=2).status
    'pass'
    """

    name: str
    passed: bool
    cases: int = 0
    failures: list[Failure] = field(default_factory=list)
    missing: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        """``"pass"``, ``"fail"`` or ``"not implemented"``.

        >>> CheckResult("check_demo", passed=False, missing="not implemented yet: f").status
        'not implemented'
        """
        if self.passed:
            return "pass"
        return "not implemented" if self.missing else "fail"

    def headline(self) -> str:
        """The first line of the report.

        >>> CheckResult("check_demo", passed=False, missing="not implemented yet: f").headline()
        'FAIL check_demo: not implemented yet: f'
        """
        if self.passed:
            return f"PASS {self.name}: all {self.cases} cases pass"
        if self.missing:
            return f"FAIL {self.name}: {self.missing}"
        return f"FAIL {self.name}: {len(self.failures)} of {self.cases} cases fail"

    def report(self) -> str:
        """The whole report as text: headline, notes, then the failing cases.

        >>> print(CheckResult("check_demo", passed=True, cases=2, notes=["fine"]).report())
        PASS check_demo: all 2 cases pass
          fine
        """
        lines = [self.headline()]
        lines += [f"  {note}" for note in self.notes]
        if self.missing.startswith("not answered"):
            lines += _labelled(
                "hint", "replace `...` with your answer, then run that cell and this one again."
            )
        elif self.missing.startswith("not implemented"):
            lines += _labelled(
                "hint",
                "replace the line `raise NotImplementedError(...)` with your code, "
                "then run that cell and this one again.",
            )
        for failure in self.failures[:_MAX_SHOWN_FAILURES]:
            lines.append(f"  case {failure.case!r}")
            lines += _labelled("input", failure.input)
            lines += _labelled("expected", failure.expected)
            lines += _labelled("got", failure.got)
            if failure.detail:
                lines += _labelled("detail", failure.detail)
            if failure.hint:
                lines += _labelled("hint", failure.hint)
        hidden = self.failures[_MAX_SHOWN_FAILURES:]
        if hidden:
            names = ", ".join(repr(f.case) for f in hidden)
            lines.append(f"  ... and {len(hidden)} more failing: {names}")
        return "\n".join(lines)

    def _ipython_display_(self) -> None:
        """Show nothing in a notebook: the check printed its report already."""


@dataclass
class Summary:
    """How many checks of a lab pass, and which do not.

    >>> Summary("lab01", passed=["check_jaccard"], failing={}, not_run=[]).total
    1
    """

    lab: str
    passed: list[str]
    failing: dict[str, str]
    not_run: list[str]

    @property
    def total(self) -> int:
        """Number of checks in the lab."""
        return len(self.passed) + len(self.failing) + len(self.not_run)

    def as_dict(self) -> dict:
        """Plain data for a grading script.

        >>> Summary("lab01", ["check_jaccard"], {}, []).as_dict()["passed"]
        1
        """
        checks = {name: True for name in self.passed}
        checks.update({name: False for name in [*self.failing, *self.not_run]})
        return {"lab": self.lab, "passed": len(self.passed), "total": self.total, "checks": checks}

    def report(self) -> str:
        """The summary as text.

        >>> print(Summary("lab01", ["check_jaccard"], {"check_normalize": "not run"}, []).report())
        lab01: 1 of 2 checks pass
          FAIL check_normalize: not run
        """
        lines = [f"{self.lab}: {len(self.passed)} of {self.total} checks pass"]
        lines += [f"  FAIL {name}: {why}" for name, why in self.failing.items()]
        lines += [f"  FAIL {name}: not run yet (run its cell)" for name in self.not_run]
        if self.total and len(self.passed) == self.total:
            lines.append("  Every check passes. Well done!")
        return "\n".join(lines)

    def _ipython_display_(self) -> None:
        """Show nothing in a notebook: the summary was printed already."""


_TALLY: dict[str, CheckResult] = {}
_WIDTH = 100  # report lines are wrapped to this width


def _labelled(label: str, text: str) -> list[str]:
    """``    label:    text`` wrapped under itself; values (input, expected, got) are not wrapped."""
    head = f"    {label + ':':<10}"
    if label in ("input", "expected", "got"):
        return [head + text]
    return textwrap.wrap(text, _WIDTH, initial_indent=head, subsequent_indent=" " * len(head)) or [head]


def reset() -> None:
    """Forget every check run so far.

    >>> reset()
    >>> summary().total
    no checks have run yet
    0
    """
    _TALLY.clear()


def _lab_key(lab: str | int) -> str:
    key = f"lab{lab:02d}" if isinstance(lab, int) else str(lab)
    if key not in LABS:
        raise ValueError(f"unknown lab {lab!r}; choose one of {', '.join(LABS)}")
    return key


def summary(lab: str | int | None = None) -> Summary:
    """Print and return how many checks pass, listing those that fail.

    With ``lab`` (``"lab01"`` or ``1``) every check of that lab counts, also
    those whose cell has not been run; without it, only the checks run so far.

    >>> reset()
    >>> _ = check_k_for_error(625)
    PASS check_k_for_error: all 1 cases pass
    >>> summary("lab02").as_dict()["passed"]
    lab02: 1 of 4 checks pass
      FAIL check_minhash_signature: not run yet (run its cell)
      FAIL check_estimate_similarity: not run yet (run its cell)
      FAIL check_measure_error: not run yet (run its cell)
    1
    """
    names = list(LABS[_lab_key(lab)]) if lab is not None else list(_TALLY)
    passed, failing, not_run = [], {}, []
    for name in names:
        result = _TALLY.get(name)
        if result is None:
            not_run.append(name)
        elif result.passed:
            passed.append(name)
        else:
            failing[name] = result.missing or f"{len(result.failures)} of {result.cases} cases fail"
    out = Summary(_lab_key(lab) if lab is not None else "checks", passed, failing, not_run)
    print(out.report() if names else "no checks have run yet")
    return out


def grade(lab: str | int, namespace: Mapping[str, Any]) -> Summary:
    """Run every check of ``lab`` on the answers found by name in ``namespace``.

    Used to grade a handed-in notebook: run it, then call
    ``grade("lab01", globals())`` in a last cell. An answer that is missing
    from the namespace fails its check.

    >>> from neardup_lab import jaccard
    >>> _ = grade("lab01", {"my_jaccard": jaccard})  # doctest: +ELLIPSIS
    FAIL check_normalize: not defined: my_normalize
    ...
    PASS check_jaccard: all 8 cases pass
    lab01: 1 of 4 checks pass
    ...
    """
    key = _lab_key(lab)
    for check_name in LABS[key]:
        _TALLY.pop(check_name, None)
    for check_name, answer in LABS[key].items():
        if answer in namespace:
            globals()[check_name](namespace[answer])
        else:
            result = CheckResult(check_name, passed=False, missing=f"not defined: {answer}")
            print(result.headline())
            _TALLY[check_name] = result
    return summary(key)


# -------------------------------------------------------------- the runner


@dataclass
class _Case:
    """One case: ``call`` runs the student's code; ``judge`` says what is wrong, or None."""

    name: str
    input: str
    call: Callable[[], Any]
    expected: Any = None
    judge: Callable[[Any], str | None] | None = None
    raises: type[BaseException] | None = None
    hint: str = ""
    shown_expected: str | None = None


class _NotReady(Exception):
    """Raised inside a case to stop the check: the answer is not there yet."""


def _show(value: Any, limit: int = _SHOW_LIMIT) -> str:
    """A short, deterministic picture of a value: sets sorted, long text cut."""
    if isinstance(value, (set, frozenset)):
        if not value:
            return "set()"
        try:
            items = sorted(value)
        except TypeError:
            items = sorted(value, key=repr)
        text = "{" + ", ".join(repr(v) for v in items) + "}"
    elif isinstance(value, np.ndarray):
        text = f"array({value.tolist()!r}, dtype={value.dtype})"
    else:
        text = repr(value)
    if len(text) > limit:
        text = f"{text[:limit]} ... ({len(text) - limit} more characters)"
    return text


def _answer_name(check_name: str) -> str:
    """The notebook name of the answer a check takes, from :data:`LABS`."""
    return next((names[check_name] for names in LABS.values() if check_name in names), "your answer")


def _name_of(obj: Any) -> str:
    return getattr(obj, "__name__", None) or type(obj).__name__


def _run(check_name: str, target: Any, cases: list[_Case], notes: list[str] | None = None) -> CheckResult:
    """Run ``cases``, print the report, record and return the result."""
    result = CheckResult(check_name, passed=False, cases=len(cases))
    try:
        if target is Ellipsis or target is None:
            raise _NotReady(f"not answered yet: {_answer_name(check_name)}")
        for case in cases:
            _run_case(case, _name_of(target), result)
    except _NotReady as missing:
        result.missing = str(missing)
    result.passed = not result.missing and not result.failures
    result.notes = list(notes or [])
    print(result.report())
    _TALLY[check_name] = result
    return result


def _run_case(case: _Case, target: str, result: CheckResult) -> None:
    expected = case.shown_expected
    if expected is None:
        expected = f"raises {case.raises.__name__}" if case.raises else _show(case.expected)
    try:
        got = case.call()
    except _NotReady:
        raise
    except NotImplementedError as exc:
        message = str(exc)
        inner = message.split(":", 1)[0].strip() if ":" in message else ""
        if inner and inner.split(".")[0] != target:
            raise _NotReady(f"not implemented yet: {inner} (used by {target})") from None
        raise _NotReady(f"not implemented yet: {inner or target}") from None
    except Exception as exc:  # the student's code failed: report it as what came back
        if case.raises is not None and isinstance(exc, case.raises):
            return
        result.failures.append(
            Failure(case.name, case.input, expected, f"raised {type(exc).__name__}: {exc}", case.hint)
        )
        return
    if case.raises is not None:
        result.failures.append(
            Failure(case.name, case.input, expected, f"returned {_show(got)}, raised nothing", case.hint)
        )
        return
    if got is None and case.expected is not None:
        result.failures.append(
            Failure(case.name, case.input, expected, "None", "the function returned nothing: add a `return`")
        )
        return
    judge = case.judge or _equal(case.expected)
    try:
        problem = judge(got)
    except Exception as exc:  # an answer of a shape the judge cannot read
        problem = f"could not read the answer ({type(exc).__name__}: {exc})"
    if problem is not None:
        result.failures.append(Failure(case.name, case.input, expected, _show(got), case.hint, problem))


# ------------------------------------------------------------- comparisons


def _equal(expected: Any) -> Callable[[Any], str | None]:
    """Judge that passes when the answer equals ``expected`` (floats: to 1e-9)."""

    def judge(got: Any) -> str | None:
        if isinstance(expected, (set, frozenset)):
            return _same_set(got, expected)
        if isinstance(expected, float):
            return _same_float(got, expected)
        return None if got == expected else ""

    return judge


def _same_float(got: Any, expected: float, tol: float = 1e-9) -> str | None:
    if isinstance(got, bool) or not isinstance(got, numbers.Real):
        return f"expected a number, got a {type(got).__name__}"
    if math.isclose(float(got), expected, rel_tol=tol, abs_tol=1e-12):
        return None
    return ""


def _same_set(got: Any, expected: set) -> str | None:
    if not isinstance(got, (set, frozenset)):
        return f"return a set, not a {type(got).__name__}"
    if got == expected:
        return None
    missing, extra = expected - got, got - expected
    parts = []
    if missing:
        parts.append(f"missing {len(missing)}: {_show(set(missing), 120)}")
    if extra:
        parts.append(f"unexpected {len(extra)}: {_show(set(extra), 120)}")
    return "; ".join(parts)


def _copy(value: Any) -> Any:
    """A fresh copy of an input, so a function that changes its input cannot spoil a case."""
    return copy.deepcopy(value)


def _call(func: Callable, *args: Any, **kwargs: Any) -> Callable[[], Any]:
    args, kwargs = _copy(args), _copy(kwargs)
    return lambda: func(*_copy(args), **_copy(kwargs))


def _article(seed: int, n_words: int = 60) -> str:
    return make_article(seed=seed, n_words=n_words)


def _article_input(seed: int, n_words: int = 60, **params: Any) -> str:
    extra = "".join(f", {k}={v!r}" for k, v in params.items())
    return (
        f"text=make_article(seed={seed}, n_words={n_words}) (begins {_article(seed, n_words)[:30]!r}){extra}"
    )


# ======================================================================
# Lab 1: shingles, normalisation and Jaccard
# ======================================================================


def check_normalize(func: Callable[[str], str]) -> CheckResult:
    """Check a ``normalize(text) -> str``: NFKC, casefold, punctuation and symbols to spaces.

    >>> from neardup_lab import normalize
    >>> check_normalize(normalize).passed
    PASS check_normalize: all 12 cases pass
    True
    """
    spaces = "Collapse every run of whitespace to one space, and strip both ends: ' '.join(text.split())."
    punct = (
        "Turn every character whose Unicode category starts with P (punctuation) or S (symbol) "
        "into a space: unicodedata.category(ch)[0] in 'PS'."
    )
    hand = [
        ("lower case", "Heavy RAIN in the City", "heavy rain in the city", "Fold case with str.casefold()."),
        ("punctuation", "Rain, rain... go away!", "rain rain go away", punct),
        ("whitespace", "  tabs\tand\nnewlines   here ", "tabs and newlines here", spaces),
        ("apostrophe", "It's raining", "it s raining", punct),
        ("typographic quotes and dash", "“Quoted” — said she", "quoted said she", punct),
        ("symbols", "price: $5 + 10%", "price 5 10", punct),
        (
            "full-width letters (Unicode)",
            "ＦＵＬＬ width",
            "full width",
            "Apply unicodedata.normalize('NFKC', text).",
        ),
        ("combining accent (Unicode)", "Cafe\u0301 au lait", "café au lait", "NFKC joins e + U+0301 into é."),
        (
            "German sharp s (Unicode)",
            "STRASSE Straße",
            "strasse strasse",
            "str.lower() keeps ß; casefold() makes it ss.",
        ),
        ("empty text", "", "", "An empty text normalises to the empty string."),
        ("only punctuation", "?! … ---", "", punct),
    ]
    cases = [
        _Case(name, f"text={text!r}", _call(func, text), expected, hint=hint)
        for name, text, expected, hint in hand
    ]
    text = _article(11, 40)
    cases.append(
        _Case(
            "news article",
            _article_input(11, 40),
            _call(func, text),
            normalize(text),
            hint="Compare with the reference: neardup_lab.normalize.",
        )
    )
    return _run("check_normalize", func, cases)


def _shingle_cases(
    func: Callable, hand: list[tuple[str, str, int, set, str]], reference: Callable
) -> list[_Case]:
    cases = [
        _Case(name, f"text={text!r}, k={k}", _call(func, text, k), expected, hint=hint)
        for name, text, k, expected, hint in hand
    ]
    for seed, k in ((3, 5), (4, 2)):
        text = _article(seed)
        cases.append(
            _Case(
                f"news article, k={k}",
                _article_input(seed, k=k),
                _call(func, text, k),
                reference(text, k),
                hint="There are len(tokens) - k + 1 shingles in a text of len(tokens) tokens.",
            )
        )
    cases.append(
        _Case(
            "k = 0 is an error",
            "text='a b c', k=0",
            _call(func, "a b c", 0),
            raises=ValueError,
            hint="Raise ValueError when k < 1: a shingle needs at least one token.",
        )
    )
    return cases


def check_word_shingles(func: Callable[[str, int], set[str]]) -> CheckResult:
    """Check a ``word_shingles(text, k) -> set[str]`` of k-word shingles of normalised text.

    >>> from neardup_lab import word_shingles
    >>> check_word_shingles(word_shingles).passed
    PASS check_word_shingles: all 10 cases pass
    True
    """
    norm = "Normalise first (lower case, punctuation to spaces), then split into words."
    short = "A text with fewer than k words gives one shingle made of all its words."
    hand = [
        (
            "three-word shingles",
            "Rain, rain, go away",
            3,
            {"rain rain go", "rain go away"},
            "Slide a window of k words one word at a time, including the last window. " + norm,
        ),
        (
            "k = 1",
            "the cat and the hat",
            1,
            {"the", "cat", "and", "hat"},
            "With k = 1 the shingles are the words.",
        ),
        ("text shorter than k", "Breaking news", 5, {"breaking news"}, short),
        (
            "exactly k words",
            "one two three",
            3,
            {"one two three"},
            "A text of exactly k words is one shingle.",
        ),
        ("empty text", "", 3, set(), "An empty text has no shingles: return set()."),
        ("only punctuation", "!!! ...", 2, set(), "After normalising there are no words: return set()."),
        ("Unicode and case", "Ｔｈｅ ＣＡＴ sat", 2, {"the cat", "cat sat"}, norm),
    ]
    return _run("check_word_shingles", func, _shingle_cases(func, hand, word_shingles))


def check_char_shingles(func: Callable[[str, int], set[str]]) -> CheckResult:
    """Check a ``char_shingles(text, k) -> set[str]`` of k-character shingles of normalised text.

    >>> from neardup_lab import char_shingles
    >>> check_char_shingles(char_shingles).passed
    PASS check_char_shingles: all 10 cases pass
    True
    """
    norm = "Shingle the normalised text (lower case, punctuation to spaces, single spaces)."
    hand = [
        (
            "Japanese, no spaces",
            "東京の天気",
            2,
            {"東京", "京の", "の天", "天気"},
            "Every k consecutive characters.",
        ),
        ("punctuation removed", "Rain!", 3, {"rai", "ain"}, norm),
        (
            "spaces count",
            "a b",
            2,
            {"a ", " b"},
            "Keep the spaces of the normalised text: they are characters too.",
        ),
        (
            "text shorter than k",
            "ab",
            5,
            {"ab"},
            "A text shorter than k gives one shingle: the whole normalised text.",
        ),
        ("empty text", "", 3, set(), "An empty text has no shingles: return set()."),
        ("k = 1", "abba", 1, {"a", "b"}, "With k = 1 the shingles are the characters."),
        (
            "case and spacing",
            "Heavy  RAIN",
            4,
            {"heav", "eavy", "avy ", "vy r", "y ra", " rai", "rain"},
            norm,
        ),
    ]
    return _run("check_char_shingles", func, _shingle_cases(func, hand, char_shingles))


def check_jaccard(func: Callable[[set, set], float]) -> CheckResult:
    """Check a ``jaccard(a, b) -> float``: ``len(a & b) / len(a | b)``, and 1.0 for two empty sets.

    >>> from neardup_lab import jaccard
    >>> check_jaccard(jaccard).passed
    PASS check_jaccard: all 8 cases pass
    True
    """
    formula = "Divide the size of the intersection by the size of the union: len(a & b) / len(a | b)."
    hand = [
        ("half overlap", {"a", "b", "c"}, {"b", "c", "d"}, 0.5, formula),
        ("identical sets", {"x", "y"}, {"x", "y"}, 1.0, formula),
        ("disjoint sets", {"a", "b"}, {"c"}, 0.0, formula),
        ("subset", {"a"}, {"a", "b", "c", "d"}, 0.25, formula),
        ("one empty set", set(), {"a", "b"}, 0.0, "The union has 2 elements, the intersection none."),
        (
            "two empty sets",
            set(),
            set(),
            1.0,
            "Two empty sets are identical: return 1.0 instead of dividing by zero.",
        ),
        ("frozensets", frozenset({"a", "b"}), frozenset({"b"}), 0.5, "Any set type should work."),
    ]
    cases = [
        _Case(name, f"a={_show(a)}, b={_show(b)}", _call(func, a, b), expected, hint=hint)
        for name, a, b, expected, hint in hand
    ]
    a, b = word_shingles(_article(5), 3), word_shingles(replace_words(_article(5), 4, seed=1), 3)
    cases.append(
        _Case(
            "an article and an edited copy",
            "a=word_shingles(article, 3), b=the same after replacing 4 words",
            _call(func, a, b),
            jaccard(a, b),
            hint=formula,
        )
    )
    return _run("check_jaccard", func, cases)


# ======================================================================
# Lab 2: MinHash from scratch
# ======================================================================

#: The prime of the lab's hash functions ``h(x) = (a*x + b) mod P``.
MINHASH_PRIME = 2**61 - 1


def _lab_hash_parameters(k: int, seed: int) -> list[tuple[int, int]]:
    """The lab's hash family: ``k`` pairs ``(a, b)``, the same in every process."""
    p = MINHASH_PRIME
    return [(stable_hash(f"a:{seed}:{i}") % (p - 1) + 1, stable_hash(f"b:{seed}:{i}") % p) for i in range(k)]


def _lab_signature(shingles: Iterable[str], params: list[tuple[int, int]]) -> list[int]:
    ids = [stable_hash(s) for s in shingles]
    return [min(((a * x + b) % MINHASH_PRIME for x in ids), default=MINHASH_PRIME) for a, b in params]


def _lab_estimate(sig_a: list[int], sig_b: list[int]) -> float:
    return sum(x == y for x, y in zip(sig_a, sig_b)) / len(sig_a)


def _as_int_list(got: Any) -> list[int]:
    if isinstance(got, (str, bytes)) or not isinstance(got, (Iterable, np.ndarray)):
        raise TypeError(f"expected a list of ints, got {type(got).__name__}")
    return [int(v) for v in got]


def _builtin_hash_signatures(shingles: Iterable[str], params: list[tuple[int, int]]) -> list[list[int]]:
    """The signatures a student gets with the built-in ``hash()`` in this process (to say so)."""
    shingles = list(shingles)
    variants = (lambda s: hash(s), lambda s: hash(s) % 2**64, lambda s: abs(hash(s)))
    return [
        [min(((a * h(s) + b) % MINHASH_PRIME for s in shingles), default=MINHASH_PRIME) for a, b in params]
        for h in variants
    ]


def _signature_judge(
    expected: list[int], shingles: Iterable[str] = (), params: list[tuple[int, int]] = ()
) -> Callable[[Any], str | None]:
    builtin = _builtin_hash_signatures(shingles, list(params)) if shingles else []

    def judge(got: Any) -> str | None:
        values = _as_int_list(got)
        if len(values) != len(expected):
            return f"a signature needs one value per hash function: {len(expected)}, got {len(values)}"
        if values == expected:
            return None
        if values in builtin:
            return (
                "these are the values Python's built-in hash() gives in this process; another process "
                "(another PYTHONHASHSEED) gives others"
            )
        wrong = [i for i, (x, y) in enumerate(zip(values, expected)) if x != y]
        text = f"{len(wrong)} of {len(expected)} positions differ, first at position {wrong[0]}"
        if any(v >= MINHASH_PRIME for v in values):
            text += "; some values are >= P: reduce modulo P"
        return text

    return judge


def check_minhash_signature(func: Callable[[set[str], list[tuple[int, int]]], list[int]]) -> CheckResult:
    """Check a ``minhash_signature(shingles, params) -> list[int]``.

    Position ``i`` must hold ``min((a*x + b) % P)`` over the stable hashes ``x =
    stable_hash(s)`` of the shingles, with ``(a, b) = params[i]`` and ``P =
    2**61 - 1``; the empty set gives ``P`` everywhere.

    >>> check_minhash_signature(_lab_signature).passed
    PASS check_minhash_signature: all 7 cases pass
    True
    """
    p = MINHASH_PRIME
    stable = (
        "Hash each shingle with stable_hash(shingle), never the built-in hash(): hash() of a str "
        "changes from one Python process to the next (PYTHONHASHSEED)."
    )
    three = {"heavy rain", "in the city", "rain in the"}
    article = word_shingles(_article(21), 3)
    params16 = _lab_hash_parameters(16, 3)
    hand = [
        # Values written out by hand from stable_hash: the same on every machine.
        ("one shingle, a=1, b=0", {"heavy rain"}, [(1, 0)], [398839195375815907], stable),
        (
            "one shingle, two hash functions",
            {"heavy rain"},
            [(1, 0), (2, 5)],
            [398839195375815907, 797678390751631819],
            "Use params[i] = (a, b) for position i: h(x) = (a*x + b) % P.",
        ),
        (
            "the minimum over the set",
            three,
            [(1, 0)],
            [398839195375815907],
            "Keep the smallest hash value over all shingles, not the largest or the first.",
        ),
        (
            "empty set",
            set(),
            [(1, 0), (2, 5), (3, 7)],
            [p, p, p],
            "The minimum of nothing: use P (larger than every hash value) at every position.",
        ),
    ]
    cases = [
        _Case(
            name,
            f"shingles={_show(shingles)}, params={params}",
            _call(func, shingles, params),
            expected,
            judge=_signature_judge(expected, shingles, params),
            hint=hint,
        )
        for name, shingles, params, expected, hint in hand
    ]
    cases.append(
        _Case(
            "an article, 16 hash functions",
            "shingles=word_shingles(make_article(seed=21, n_words=60), 3), "
            "params=hash_parameters(16, seed=3)",
            _call(func, article, params16),
            _lab_signature(article, params16),
            judge=_signature_judge(_lab_signature(article, params16), article, params16),
            hint=stable,
        )
    )

    a = word_shingles(_article(22, 120), 2)
    b = word_shingles(replace_words(_article(22, 120), 12, seed=2), 2)
    exact = jaccard(a, b)
    params = _lab_hash_parameters(256, 1)

    def estimate_close(got: Any) -> str | None:
        sig_b = _lab_signature(b, params)
        values = _as_int_list(got)
        if len(values) != len(sig_b):
            return f"expected {len(sig_b)} values, got {len(values)}"
        estimate = _lab_estimate(values, sig_b)
        bound = 4 * math.sqrt(exact * (1 - exact) / len(params))
        if abs(estimate - exact) <= bound:
            return None
        return f"estimate {estimate:.3f} is more than {bound:.3f} from the exact Jaccard {exact:.3f}"

    cases.append(
        _Case(
            "estimates Jaccard (k = 256)",
            "two versions of an article, 12 words apart; params=hash_parameters(256, seed=1)",
            _call(func, a, params),
            shown_expected=f"a signature whose estimate is within 4 standard errors of {exact:.3f}",
            judge=estimate_close,
            hint=stable,
        )
    )
    cases.append(
        _Case(
            "same answer when called twice",
            "shingles={'a b', 'b c'}, params=hash_parameters(8, seed=0), called twice",
            lambda: (
                func({"a b", "b c"}, _lab_hash_parameters(8, 0)),
                func({"a b", "b c"}, _lab_hash_parameters(8, 0)),
            ),
            shown_expected="two equal signatures",
            judge=lambda got: (
                None if _as_int_list(got[0]) == _as_int_list(got[1]) else "the two calls differ"
            ),
            hint="Do not draw random numbers inside the function: everything comes from params.",
        )
    )
    return _run("check_minhash_signature", func, cases)


def check_estimate_similarity(func: Callable[[list[int], list[int]], float]) -> CheckResult:
    """Check an ``estimate_similarity(sig_a, sig_b) -> float``: the share of equal positions.

    >>> check_estimate_similarity(_lab_estimate_checked).passed
    PASS check_estimate_similarity: all 8 cases pass
    True
    """
    share = "Count positions i where sig_a[i] == sig_b[i], and divide by the number of positions."
    hand = [
        ("identical", [1, 2, 3, 4], [1, 2, 3, 4], 1.0, share),
        ("nothing equal", [1, 2, 3, 4], [5, 6, 7, 8], 0.0, share),
        ("half equal", [1, 2, 3, 4], [1, 2, 9, 9], 0.5, share),
        (
            "same values, other positions",
            [1, 2, 3, 4],
            [4, 3, 2, 1],
            0.0,
            "Compare position by position: the same value at another position means nothing.",
        ),
        ("one hash function (k = 1)", [7], [7], 1.0, share),
        ("one of three", [5, 5, 5], [5, 6, 7], 1 / 3, "Return a fraction between 0 and 1, not a count."),
    ]
    cases = [
        _Case(name, f"sig_a={a}, sig_b={b}", _call(func, a, b), expected, hint=hint)
        for name, a, b, expected, hint in hand
    ]
    cases.append(
        _Case(
            "different lengths",
            "sig_a=[1, 2, 3], sig_b=[1, 2]",
            _call(func, [1, 2, 3], [1, 2]),
            raises=ValueError,
            hint="Signatures of different lengths come from different hash families: raise ValueError "
            "(zip() would silently drop the extra positions).",
        )
    )
    params = _lab_hash_parameters(64, 5)
    sig_a = _lab_signature(word_shingles(_article(31), 3), params)
    sig_b = _lab_signature(word_shingles(replace_words(_article(31), 3, seed=1), 3), params)
    cases.append(
        _Case(
            "signatures of two articles",
            "64-value signatures of an article and a copy with 3 words replaced",
            _call(func, sig_a, sig_b),
            float(estimate_jaccard(np.array(sig_a, dtype=np.uint64), np.array(sig_b, dtype=np.uint64))),
            hint=share,
        )
    )
    return _run("check_estimate_similarity", func, cases)


def _lab_estimate_checked(sig_a: list[int], sig_b: list[int]) -> float:
    if len(sig_a) != len(sig_b):
        raise ValueError(f"signatures differ in length: {len(sig_a)} vs {len(sig_b)}")
    return _lab_estimate(sig_a, sig_b)


def _lab_measure_error(set_a: set, set_b: set, k: int, trials: int, sign: Callable) -> float:
    exact = jaccard(set_a, set_b)
    squares = 0.0
    for seed in range(trials):
        params = _lab_hash_parameters(k, seed)
        squares += (_lab_estimate(sign(set_a, params), sign(set_b, params)) - exact) ** 2
    return math.sqrt(squares / trials)


def check_measure_error(func: Callable[[set, set, int, int, Callable], float]) -> CheckResult:
    """Check a ``measure_error(set_a, set_b, k, trials, sign) -> float``.

    It must return the root-mean-square error of the MinHash estimate over
    ``trials`` hash families ``hash_parameters(k, seed)`` with ``seed = 0, 1,
    ..., trials - 1``, signing with ``sign(shingles, params)``. The check passes
    the reference ``sign``, so only the error measurement is checked here.

    >>> check_measure_error(_lab_measure_error).passed
    PASS check_measure_error: all 5 cases pass
    True
    """
    rmse = (
        "For seed = 0 .. trials - 1: params = hash_parameters(k, seed), estimate = share of equal "
        "positions of the two signatures; return sqrt(mean((estimate - exact Jaccard) ** 2))."
    )
    a = word_shingles(_article(41, 80), 3)
    b = word_shingles(replace_words(_article(41, 80), 6, seed=3), 3)
    other = word_shingles(_article(42, 80), 3)
    hand = [
        ("identical sets: no error", a, a, 16, 5, 0.0, "Identical sets give identical signatures."),
        ("disjoint sets: no error", a, other, 16, 5, 0.0, "Disjoint sets almost never share a minimum."),
    ]
    cases = [
        _Case(
            name, f"{label}, k={k}, trials={t}", _call(func, x, y, k, t, _lab_signature), expected, hint=hint
        )
        for (name, x, y, k, t, expected, hint), label in zip(
            hand, ("set_b = set_a", "two unrelated articles")
        )
    ]
    for k, trials in ((16, 20), (64, 10), (32, 1)):
        cases.append(
            _Case(
                f"article and edited copy, k={k}, trials={trials}",
                f"an article and a copy with 6 words replaced, k={k}, trials={trials}",
                _call(func, a, b, k, trials, _lab_signature),
                _lab_measure_error(a, b, k, trials, _lab_signature),
                hint=rmse,
            )
        )
    return _run("check_measure_error", func, cases)


def check_k_for_error(value: Any) -> CheckResult:
    """Check the answer to: the smallest ``k`` with ``sqrt(J(1-J)/k) <= 0.02`` at ``J = 0.5``.

    >>> check_k_for_error(625).passed
    PASS check_k_for_error: all 1 cases pass
    True
    """

    def judge(got: Any) -> str | None:
        if isinstance(got, bool) or not isinstance(got, numbers.Real) or int(got) != got:
            return "k is a whole number of hash functions"
        if got == 625:
            return None
        if got == 25:
            return "25 = sqrt(J(1-J)) / 0.02: square both sides of the inequality before solving for k"
        return "too few: the error is above 0.02" if got < 625 else "not the smallest k"

    case = _Case(
        "smallest k for a standard error of 0.02 at J = 0.5",
        "J = 0.5, target standard error 0.02",
        lambda: value,
        625,
        judge=judge,
        hint="Solve sqrt(J * (1 - J) / k) <= 0.02 for k: k >= J * (1 - J) / 0.02**2.",
    )
    return _run("check_k_for_error", value, [case])


# ======================================================================
# Lab 3: LSH banding
# ======================================================================


def check_s_curve(func: Callable[[float, int, int], float]) -> CheckResult:
    """Check a ``candidate_probability(s, bands, rows) -> float``: ``1 - (1 - s**rows)**bands``.

    >>> check_s_curve(s_curve).passed
    PASS check_s_curve: all 8 cases pass
    True
    """
    formula = (
        "One band of r rows matches with probability s**r; it fails with 1 - s**r; all b bands fail "
        "with (1 - s**r)**b; so the pair is a candidate with 1 - (1 - s**r)**b."
    )
    hand = [
        ("20 bands of 5 rows, s = 0.5", 0.5, 20, 5, formula),
        ("s = 0 never", 0.0, 4, 3, "Two signatures with nothing in common never match a band."),
        ("s = 1 always", 1.0, 4, 3, "Identical signatures match every band."),
        ("one band of one row", 0.8, 1, 1, "With one band of one row the probability is s itself."),
        ("many bands, few rows", 0.6, 10, 2, "rows is the exponent of s, bands the exponent of (1 - s**r)."),
        ("few bands, many rows", 0.6, 2, 10, "rows is the exponent of s, bands the exponent of (1 - s**r)."),
        ("9 bands of 13 rows, s = 0.9", 0.9, 9, 13, formula),
        ("50 bands of 2 rows, s = 0.3", 0.3, 50, 2, formula),
    ]
    cases = [
        _Case(name, f"s={s}, bands={b}, rows={r}", _call(func, s, b, r), float(s_curve(s, b, r)), hint=hint)
        for name, s, b, r, hint in hand
    ]
    return _run("check_s_curve", func, cases)


def _pairs_judge(expected: set[tuple[int, int]]) -> Callable[[Any], str | None]:
    def judge(got: Any) -> str | None:
        if not isinstance(got, (set, frozenset, list, tuple)):
            return f"return a set of (i, j) pairs, not a {type(got).__name__}"
        pairs = set()
        for pair in got:
            try:
                i, j = (int(v) for v in pair)
            except (TypeError, ValueError):
                return f"{pair!r} is not a pair of indices"
            if i >= j:
                return f"pair {pair!r}: write each pair once, as (i, j) with i < j"
            pairs.add((i, j))
        return _same_set(pairs, expected)

    return judge


def check_candidate_pairs(func: Callable[[np.ndarray, int, int], set[tuple[int, int]]]) -> CheckResult:
    """Check a ``find_candidate_pairs(signatures, bands, rows) -> set[tuple[int, int]]``.

    Rows ``i < j`` of the ``(n, num_perm)`` array are a candidate pair when they
    agree on all ``rows`` values of at least one band; ``bands * rows`` may be
    less than ``num_perm`` (the last columns are unused) but not more.

    >>> check_candidate_pairs(candidate_pairs).passed
    PASS check_candidate_pairs: all 9 cases pass
    True
    """
    tables = (
        "Keep one hash table per band. The same values in band 0 of one row and band 1 of another "
        "are not a match: include the band number in the key, or use a separate dict per band."
    )
    groups = "Every two rows in the same bucket are a pair: a bucket of three rows gives three pairs."
    slicing = "Band i covers columns i*rows to (i+1)*rows - 1: sig[i*rows:(i+1)*rows]."

    def arr(rows: list[list[int]]) -> np.ndarray:
        return np.array(rows, dtype=np.uint32).reshape(len(rows), -1) if rows else np.zeros((0, 4), np.uint32)

    hand = [
        ("one band matches", [[1, 2, 3, 4], [1, 2, 0, 0], [5, 6, 3, 4]], 2, 2, {(0, 1), (0, 2)}, slicing),
        (
            "all bands must not be required",
            [[1, 2, 3, 4], [1, 2, 7, 7]],
            2,
            2,
            {(0, 1)},
            "One matching band is enough: OR over bands, AND over the rows of a band.",
        ),
        ("equal values in different bands", [[1, 2, 3, 4], [3, 4, 1, 2]], 2, 2, set(), tables),
        (
            "three equal rows",
            [[9, 9, 1, 2], [9, 9, 3, 4], [9, 9, 5, 6]],
            2,
            2,
            {(0, 1), (0, 2), (1, 2)},
            groups,
        ),
        ("unused last columns", [[1, 2, 8], [1, 2, 9]], 1, 2, {(0, 1)}, slicing),
        (
            "rows differ in the last row of a band",
            [[1, 2, 3, 4, 5, 6], [1, 2, 0, 4, 5, 0]],
            2,
            3,
            set(),
            slicing,
        ),
        ("a single signature", [[1, 2, 3, 4]], 2, 2, set(), "One row has no partner."),
    ]
    cases = [
        _Case(
            name,
            f"signatures=np.array({rows}), bands={b}, rows={r}",
            _call(func, arr(rows), b, r),
            expected,
            judge=_pairs_judge(expected),
            hint=hint,
        )
        for name, rows, b, r, expected, hint in hand
    ]
    cases.append(
        _Case(
            "bands * rows > num_perm",
            "signatures of 4 values, bands=3, rows=2",
            _call(func, arr([[1, 2, 3, 4], [1, 2, 3, 4]]), 3, 2),
            raises=ValueError,
            hint="3 bands of 2 rows need 6 values; raise ValueError when bands * rows > signatures.shape[1].",
        )
    )
    docs = make_corpus(30, seed=5, n_words=60).docs
    sigs = MinHasher(num_perm=32, seed=2).signatures([word_shingles(d, 3) for d in docs])
    cases.append(
        _Case(
            "signatures of a small corpus",
            f"MinHash signatures (32 values) of {len(docs)} news documents, bands=6, rows=5",
            _call(func, sigs, 6, 5),
            candidate_pairs(sigs, 6, 5),
            judge=_pairs_judge(candidate_pairs(sigs, 6, 5)),
            hint=tables,
        )
    )
    return _run("check_candidate_pairs", func, cases)


def _banding_error(threshold: float, bands: int, rows: int) -> float:
    return _false_positive_area(threshold, bands, rows) + _false_negative_area(threshold, bands, rows)


def _int_pair(got: Any) -> tuple[int, int]:
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        raise TypeError(f"expected a pair (bands, rows), got {_show(got)}")
    bands, rows = got
    for name, v in (("bands", bands), ("rows", rows)):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise TypeError(f"{name} must be an int, got {v!r}")
        if v < 1:
            raise TypeError(f"{name} must be at least 1, got {v}")
    return int(bands), int(rows)


def check_choose_bands_rows(func: Callable[[float, int], tuple[int, int]]) -> CheckResult:
    """Check a ``choose_bands_rows(threshold, num_perm) -> (bands, rows)``.

    The choice must have ``bands * rows <= num_perm`` and (nearly) the smallest
    sum of the false-positive area (under the S-curve, left of the threshold)
    and the false-negative area (above it, right of the threshold).

    >>> check_choose_bands_rows(optimal_params).passed
    PASS check_choose_bands_rows: all 7 cases pass
    True
    """
    cases = []
    for threshold, num_perm in ((0.5, 16), (0.8, 128), (0.9, 64), (0.3, 32), (0.7, 100), (0.6, 50), (0.5, 1)):
        best = optimal_params(threshold, num_perm)
        best_error = _banding_error(threshold, *best)

        def judge(
            got: Any, threshold: float = threshold, num_perm: int = num_perm, best_error: float = best_error
        ):
            try:
                bands, rows = _int_pair(got)
            except TypeError as exc:
                return str(exc)
            if bands * rows > num_perm:
                return f"bands * rows = {bands * rows} is more than num_perm = {num_perm}"
            error = _banding_error(threshold, bands, rows)
            if error <= best_error * (1 + 1e-3) + 1e-12:
                return None
            return (
                f"false-positive + false-negative area is {error:.4f}; the best choice has {best_error:.4f}"
            )

        cases.append(
            _Case(
                f"threshold {threshold}, {num_perm} hash functions",
                f"threshold={threshold}, num_perm={num_perm}",
                _call(func, threshold, num_perm),
                shown_expected=f"{best} (or another pair with the same areas)",
                judge=judge,
                hint="Try every bands >= 1 and rows >= 1 with bands * rows <= num_perm (not only products "
                "equal to num_perm); integrate the S-curve numerically from 0 to the threshold (false "
                "positives) and 1 - S-curve from the threshold to 1 (false negatives), with about 1000 "
                "points each; keep the pair with the smallest sum.",
            )
        )
    return _run("check_choose_bands_rows", func, cases)


def check_target_choice(chosen: Any) -> CheckResult:
    """Check the answer ``(bands, rows)`` to the lab's design question.

    With at most 100 hash functions, a pair of similarity 0.7 must become a
    candidate with probability at least 0.95, and a pair of similarity 0.3 with
    probability at most 0.05.

    >>> check_target_choice((20, 5)).passed
    PASS check_target_choice: all 3 cases pass
    True
    """

    def pair() -> tuple[int, int]:
        return _int_pair(chosen)

    def at_least(s: float, p_min: float) -> Callable[[Any], str | None]:
        def judge(got: tuple[int, int]) -> str | None:
            p = s_curve(s, *got)
            return None if p >= p_min else f"with {got[0]} bands of {got[1]} rows the probability is {p:.4f}"

        return judge

    def at_most(s: float, p_max: float) -> Callable[[Any], str | None]:
        def judge(got: tuple[int, int]) -> str | None:
            p = s_curve(s, *got)
            return None if p <= p_max else f"with {got[0]} bands of {got[1]} rows the probability is {p:.4f}"

        return judge

    shown = f"chosen={_show(chosen)}"
    search = (
        "Loop over all (bands, rows) with bands * rows <= 100 and print those that meet both "
        "conditions, using your candidate_probability."
    )
    cases = [
        _Case(
            "at most 100 hash functions",
            shown,
            pair,
            shown_expected="bands * rows <= 100",
            judge=lambda got: None if got[0] * got[1] <= 100 else f"bands * rows = {got[0] * got[1]}",
            hint="Each band uses rows values of the signature.",
        ),
        _Case(
            "similarity 0.7 found with probability >= 0.95",
            shown,
            pair,
            shown_expected="candidate_probability(0.7, bands, rows) >= 0.95",
            judge=at_least(0.7, 0.95),
            hint="More bands (or fewer rows) raise the curve. " + search,
        ),
        _Case(
            "similarity 0.3 found with probability <= 0.05",
            shown,
            pair,
            shown_expected="candidate_probability(0.3, bands, rows) <= 0.05",
            judge=at_most(0.3, 0.05),
            hint="More rows per band lower the curve for dissimilar pairs. " + search,
        ),
    ]
    return _run("check_target_choice", chosen, cases)


# ======================================================================
# Lab 4: deduplicating a corpus end to end
# ======================================================================

#: Targets for the hidden corpus of :func:`check_dedup`.
DEDUP_TARGETS = {"precision": 0.95, "recall": 0.95}
_DEDUP_THRESHOLD = 0.8
_DEDUP_K = 5
# The hidden corpus: the student never sees which documents are duplicates.
_HIDDEN_CORPUS = {"n_originals": 250, "seed": 4242, "n_words": 200}


def _pr_judge(expected: tuple[float, float]) -> Callable[[Any], str | None]:
    def judge(got: Any) -> str | None:
        if not isinstance(got, (tuple, list)) or len(got) != 2:
            return "return a pair (precision, recall)"
        for label, value, want in zip(("precision", "recall"), got, expected):
            problem = _same_float(value, want)
            if problem is not None:
                return f"{label} is wrong {problem}".strip()
        return None

    return judge


def check_precision_recall(func: Callable[[Iterable, Iterable], tuple[float, float]]) -> CheckResult:
    """Check a ``precision_recall(found, truth) -> (precision, recall)`` over unordered pairs.

    With nothing found, precision is 1.0; with no true pairs, recall is 1.0.

    >>> check_precision_recall(precision_recall).passed
    PASS check_precision_recall: all 7 cases pass
    True
    """
    unordered = "Pairs are unordered: turn (j, i) into (i, j) before comparing, e.g. tuple(sorted(pair))."
    hand = [
        (
            "half right, half found",
            [(0, 1), (2, 3)],
            [(0, 1), (4, 5)],
            (0.5, 0.5),
            "precision = hits / found, recall = hits / true pairs.",
        ),
        ("pairs in either order", [(1, 0), (3, 2)], [(0, 1), (2, 3)], (1.0, 1.0), unordered),
        (
            "the same pair twice",
            [(0, 1), (1, 0), (2, 3)],
            [(0, 1)],
            (0.5, 1.0),
            unordered + " Count each pair once.",
        ),
        (
            "nothing found",
            [],
            [(0, 1)],
            (1.0, 0.0),
            "With nothing found, nothing found is wrong: precision 1.0.",
        ),
        ("no true pairs", [(0, 1)], [], (0.0, 1.0), "With no true pairs, none is missed: recall 1.0."),
        ("both empty", [], [], (1.0, 1.0), "Nothing found and nothing to find: (1.0, 1.0)."),
    ]
    cases = [
        _Case(
            name,
            f"found={found}, truth={truth}",
            _call(func, found, truth),
            expected,
            judge=_pr_judge(expected),
            hint=hint,
        )
        for name, found, truth, expected, hint in hand
    ]
    rng = random.Random(7)
    found = sorted({tuple(sorted(rng.sample(range(40), 2))) for _ in range(60)})
    truth = sorted({tuple(sorted(rng.sample(range(40), 2))) for _ in range(50)} | set(found[:30]))
    expected = precision_recall(found, truth)
    cases.append(
        _Case(
            "random pairs",
            f"{len(found)} found pairs, {len(truth)} true pairs among 40 documents",
            _call(func, found, truth),
            expected,
            judge=_pr_judge(expected),
            hint=unordered,
        )
    )
    return _run("check_precision_recall", func, cases)


def _canonical_clusters(got: Any, n: int) -> list[list[int]]:
    """Sorted clusters of ints; raises ValueError if they are not a partition of 0 .. n-1."""
    if isinstance(got, (str, bytes)) or not isinstance(got, Iterable):
        raise ValueError(f"expected a list of clusters (lists of indices), got {type(got).__name__}")
    clusters = []
    for cluster in got:
        if isinstance(cluster, (str, bytes)) or not isinstance(cluster, Iterable):
            raise ValueError(f"each cluster must be a list of indices, found {_show(cluster, 60)}")
        clusters.append(sorted(int(i) for i in cluster))
    seen: dict[int, int] = {}
    for number, cluster in enumerate(clusters):
        if not cluster:
            raise ValueError("an empty cluster")
        for i in cluster:
            if not 0 <= i < n:
                raise ValueError(f"index {i} is not a document (there are {n}: 0 .. {n - 1})")
            if i in seen:
                raise ValueError(f"document {i} is in two clusters")
            seen[i] = number
    lost = [i for i in range(n) if i not in seen]
    if lost:
        raise ValueError(
            f"{len(lost)} documents are in no cluster, e.g. {lost[:5]}: every document must be in "
            "exactly one cluster (a document with no duplicate is a cluster of one)"
        )
    return sorted(clusters)


def _clusters_judge(expected: list[list[int]], n: int) -> Callable[[Any], str | None]:
    want = sorted(sorted(c) for c in expected)

    def judge(got: Any) -> str | None:
        try:
            clusters = _canonical_clusters(got, n)
        except ValueError as exc:
            return str(exc)
        return None if clusters == want else "the clusters differ (order does not matter)"

    return judge


def check_clusters(func: Callable[[int, Iterable[tuple[int, int]]], list[list[int]]]) -> CheckResult:
    """Check a ``group_pairs(n, pairs) -> list[list[int]]``: clusters joined transitively.

    Every document ``0 .. n-1`` must be in exactly one cluster; the order of the
    clusters and of their members does not matter.

    >>> check_clusters(clusters_from_pairs).passed
    PASS check_clusters: all 7 cases pass
    True
    """
    chain = (
        "Duplicates of duplicates are duplicates: when a pair links two existing groups, merge "
        "them (union-find: find each root, then point one root at the other)."
    )
    hand = [
        ("a chain", 5, [(0, 2), (2, 4)], [[0, 2, 4], [1], [3]], chain),
        ("no pairs", 4, [], [[0], [1], [2], [3]], "A document with no pair is a cluster of its own."),
        ("no documents", 0, [], [], "Zero documents give no clusters."),
        ("pair that joins two groups", 6, [(5, 0), (3, 4), (4, 5)], [[0, 3, 4, 5], [1], [2]], chain),
        ("repeated and reversed pairs", 3, [(0, 1), (1, 0), (0, 1)], [[0, 1], [2]], "Pairs may repeat."),
        ("one big cluster", 4, [(3, 2), (1, 0), (2, 1)], [[0, 1, 2, 3]], chain),
    ]
    cases = [
        _Case(
            name,
            f"n={n}, pairs={pairs}",
            _call(func, n, pairs),
            shown_expected=_show(expected),
            judge=_clusters_judge(expected, n),
            hint=hint,
        )
        for name, n, pairs, expected, hint in hand
    ]
    rng = random.Random(11)
    pairs = [tuple(rng.sample(range(300), 2)) for _ in range(220)]
    expected = clusters_from_pairs(300, pairs)
    cases.append(
        _Case(
            "random pairs",
            "n=300, 220 random pairs",
            _call(func, 300, pairs),
            shown_expected=f"{len(expected)} clusters, the largest of {max(map(len, expected))} documents",
            judge=_clusters_judge(expected, 300),
            hint=chain,
        )
    )
    return _run("check_clusters", func, cases)


@lru_cache(maxsize=1)
def _hidden_corpus() -> tuple[tuple[str, ...], frozenset]:
    """The hidden corpus and its true pairs (closed under chains of pairs at or above the threshold)."""
    docs = make_corpus(**_HIDDEN_CORPUS).docs
    sets = [word_shingles(d, _DEDUP_K) for d in docs]
    linked = brute_force_pairs(sets, _DEDUP_THRESHOLD)
    truth = frozenset(pairs_from_clusters(clusters_from_pairs(len(docs), linked)))
    return tuple(docs), truth


def check_dedup(func: Callable[[list[str]], list[list[int]]]) -> CheckResult:
    """Check a ``deduplicate(docs) -> list[list[int]]`` on edge cases and on a hidden corpus.

    Two documents are duplicates when their 5-word shingles (of normalised
    text) have Jaccard similarity of at least 0.8, or when a chain of such
    pairs links them. The answer must put every document in exactly one
    cluster; on the hidden corpus its pairs must reach the precision and recall
    of :data:`DEDUP_TARGETS`.

    >>> from neardup_lab import dedup
    >>> def reference(docs):
    ...     return dedup(docs, threshold=0.8, bands=18, rows=7).clusters
    >>> check_dedup(reference).passed  # doctest: +ELLIPSIS
    PASS check_dedup: all 8 cases pass
      hidden corpus: ... documents; precision 1.000, recall 1.000 (targets 0.95 and 0.95)
    True
    """
    article = make_article(seed=61, n_words=80)
    other = make_article(seed=62, n_words=80)
    hand = [
        ("no documents", [], [], "An empty list of documents has no clusters: return []."),
        ("one document", ["The council met on Monday."], [[0]], "One document is one cluster."),
        (
            "an empty document",
            ["", "The council met on Monday to discuss the budget."],
            [[0], [1]],
            "An empty document is still a document: it gets a cluster of its own.",
        ),
        (
            "case and spacing copy",
            [article, "  " + article.upper().replace(" ", "   "), other],
            [[0, 1], [2]],
            "Normalise before shingling, so that case and spacing do not matter.",
        ),
        (
            "documents shorter than k words",
            ["Rain today", "rain, TODAY!", "Sun tomorrow"],
            [[0, 1], [2]],
            "A text with fewer than 5 words is one shingle: word_shingles handles it.",
        ),
    ]
    cases = [
        _Case(
            name,
            f"docs={_show(docs, 120)}",
            _call(func, docs),
            shown_expected=_show(expected),
            judge=_clusters_judge(expected, len(docs)),
            hint=hint,
        )
        for name, docs, expected, hint in hand
    ]

    docs, truth = _hidden_corpus()
    notes: list[str] = []
    state: dict[str, Any] = {}
    hidden_input = f"{len(docs)} news documents from a hidden corpus"

    def run_hidden() -> Any:
        state["answer"] = func(list(docs))
        return state["answer"]

    def partition(got: Any) -> str | None:
        try:
            _canonical_clusters(got, len(docs))
        except ValueError as exc:
            return str(exc)
        return None

    def scores() -> tuple[float, float, set]:
        if "scores" not in state:
            try:
                clusters = _canonical_clusters(state["answer"], len(docs))
            except (KeyError, ValueError):
                raise _Skip from None  # reported by the case before
            found = pairs_from_clusters(clusters)
            precision, recall = precision_recall(found, truth)
            state["scores"] = (precision, recall, found)
            notes.append(
                f"hidden corpus: {len(docs)} documents; precision {precision:.3f}, recall {recall:.3f} "
                f"(targets {DEDUP_TARGETS['precision']} and {DEDUP_TARGETS['recall']})"
            )
        return state["scores"]

    def example(i: int, j: int) -> str:
        sim = jaccard(word_shingles(docs[i], _DEDUP_K), word_shingles(docs[j], _DEDUP_K))
        return f"documents {i} and {j} (Jaccard {sim:.2f})"

    def judge_precision(got: Any) -> str | None:
        precision, _, found = got
        if precision >= DEDUP_TARGETS["precision"]:
            return None
        wrong = sorted(found - truth)
        share = f"{len(wrong)} of {len(found)} pairs in your clusters"
        return f"{share} are not duplicates, e.g. {example(*wrong[0])}"

    def judge_recall(got: Any) -> str | None:
        _, recall, found = got
        if recall >= DEDUP_TARGETS["recall"]:
            return None
        missed = sorted(truth - found)
        return f"{len(missed)} of {len(truth)} true pairs are split, e.g. {example(*missed[0])}"

    cases += _skippable(
        [
            _Case(
                "hidden corpus: every document in one cluster",
                hidden_input,
                run_hidden,
                shown_expected="a list of clusters covering every document exactly once",
                judge=partition,
                hint="Return a cluster for every document, including those without duplicates.",
            ),
            _Case(
                "hidden corpus: precision",
                hidden_input,
                scores,
                shown_expected=f"precision >= {DEDUP_TARGETS['precision']}",
                judge=judge_precision,
                hint="Verify every candidate pair with the exact Jaccard of its shingle sets (>= 0.8) before "
                "joining it, instead of trusting the bands.",
            ),
            _Case(
                "hidden corpus: recall",
                hidden_input,
                scores,
                shown_expected=f"recall >= {DEDUP_TARGETS['recall']}",
                judge=judge_recall,
                hint="Pairs just above 0.8 slip through bands tuned for 0.8: choose bands and rows for a "
                "lower threshold (say 0.6), then verify candidates at 0.8.",
            ),
        ]
    )
    return _run("check_dedup", func, cases, notes)


class _Skip(Exception):
    """A case that cannot be judged because an earlier one failed; it is left out."""


def _skippable(cases: list[_Case]) -> list[_Case]:
    """Let a case's call raise :class:`_Skip` to mean 'already reported': it then passes silently."""
    out = []
    for case in cases:

        def call(case: _Case = case) -> Any:
            try:
                return case.call()
            except _Skip:
                return _SKIPPED

        judge = case.judge or _equal(case.expected)
        out.append(
            _Case(
                case.name,
                case.input,
                call,
                case.expected,
                judge=lambda got, judge=judge: None if got is _SKIPPED else judge(got),
                raises=case.raises,
                hint=case.hint,
                shown_expected=case.shown_expected,
            )
        )
    return out


_SKIPPED = object()


# ======================================================================
# Lab 5: SimHash and Hamming search with block tables
# ======================================================================


def check_hamming(func: Callable[[int, int], int]) -> CheckResult:
    """Check a ``hamming(x, y) -> int``: the number of bit positions where ``x`` and ``y`` differ.

    >>> check_hamming(hamming).passed
    PASS check_hamming: all 7 cases pass
    True
    """
    xor = "XOR the two numbers, then count the 1 bits: bin(x ^ y).count('1')."
    hand = [
        ("equal numbers", 0b1011, 0b1011, 0, xor),
        ("two bits differ", 0b1011, 0b0010, 2, xor),
        ("both zero", 0, 0, 0, xor),
        ("all 64 bits differ", 2**64 - 1, 0, 64, "Count all 64 bits, not only the low 32."),
        ("only the top bit differs", 2**63, 0, 1, "Count all 64 bits, not only the low 32."),
        (
            "bits set in both do not count",
            0b1100,
            0b0110,
            2,
            "Bits that are 1 in both agree: use XOR, not OR.",
        ),
    ]
    cases = [
        _Case(name, f"x={x:#b}, y={y:#b}", _call(func, x, y), expected, hint=hint)
        for name, x, y, expected, hint in hand
    ]
    x, y = stable_hash("storm"), stable_hash("flood")
    cases.append(
        _Case("two 64-bit hashes", f"x={x:#x}, y={y:#x}", _call(func, x, y), hamming(x, y), hint=xor)
    )
    return _run("check_hamming", func, cases)


def check_simhash(func: Callable[..., int]) -> CheckResult:
    """Check a ``simhash(features, bits=64) -> int`` built on ``stable_hash``.

    Each feature's hash votes +1 on its 1 bits and -1 on its 0 bits (repeats
    vote again); bit ``i`` of the fingerprint is 1 where the vote is positive.
    A tie gives 0. No features is an error.

    >>> check_simhash(simhash).passed
    PASS check_simhash: all 9 cases pass
    True
    """
    rain, sun = stable_hash("rain"), stable_hash("sun")
    votes = (
        "For bit i, add +1 for each feature whose hash has bit i set and -1 otherwise; "
        "set bit i if the sum is > 0."
    )
    stable = (
        "Hash features with stable_hash(feature), never the built-in hash(), which changes every process."
    )
    hand = [
        (
            "one feature",
            ["rain"],
            {},
            rain,
            "With one feature every vote is its own bit: the fingerprint is its hash. " + stable,
        ),
        (
            "repeats vote again",
            ["rain", "rain", "sun"],
            {},
            rain,
            "'rain' twice outvotes 'sun' once on every bit: do not turn the features into a set.",
        ),
        (
            "a tie gives 0",
            ["rain", "sun"],
            {},
            rain & sun,
            "Where the two hashes disagree the vote is 0: only a positive vote sets the bit (> 0, not >= 0).",
        ),
        (
            "16 bits",
            ["rain"],
            {"bits": 16},
            rain & 0xFFFF,
            "Keep the low `bits` bits: bit i is (h >> i) & 1.",
        ),
    ]
    cases = [
        _Case(
            name,
            f"features={features!r}" + "".join(f", {k}={v}" for k, v in kw.items()),
            _call(func, features, **kw),
            expected,
            hint=hint,
        )
        for name, features, kw, expected, hint in hand
    ]
    for seed, bits in ((71, 64), (72, 64), (73, 8)):
        feats = words(_article(seed, 50))
        cases.append(
            _Case(
                f"words of an article, {bits} bits",
                f"features=words(make_article(seed={seed}, n_words=50)), bits={bits}",
                _call(func, feats, bits=bits),
                simhash(feats, bits=bits),
                hint=votes,
            )
        )
    cases.append(
        _Case(
            "a single repeated word",
            "features=['flood'] * 3",
            _call(func, ["flood"] * 3),
            stable_hash("flood"),
            hint=votes,
        )
    )
    cases.append(
        _Case(
            "no features",
            "features=[]",
            _call(func, []),
            raises=ValueError,
            hint="A fingerprint of nothing means nothing: raise ValueError.",
        )
    )
    return _run("check_simhash", func, cases)


def _flip(fingerprint: int, positions: Iterable[int]) -> int:
    for p in positions:
        fingerprint ^= 1 << p
    return fingerprint


def _block_spans(bits: int, blocks: int) -> list[tuple[int, int]]:
    """(first bit, width) of each block: contiguous, the first ``bits % blocks`` one bit wider."""
    spans, start = [], 0
    for i in range(blocks):
        width = bits // blocks + (1 if i < bits % blocks else 0)
        spans.append((start, width))
        start += width
    return spans


def _near(fingerprint: int, bits: int, max_distance: int, rng: random.Random) -> list[tuple[int, int]]:
    """Planted neighbours of ``fingerprint``: ``(distance, fingerprint)`` up to ``max_distance + 2``.

    Among them, for every block, one at exactly ``max_distance`` that agrees with
    ``fingerprint`` in that block only (one flipped bit in each other block).
    """
    out = []
    for distance in range(max_distance + 3):
        for _ in range(3):
            out.append((distance, _flip(fingerprint, rng.sample(range(bits), distance))))
    spans = _block_spans(bits, max_distance + 1)
    for keep in range(len(spans)):
        flips = [start + rng.randrange(width) for b, (start, width) in enumerate(spans) if b != keep]
        out.append((len(flips), _flip(fingerprint, flips)))
    # Many flips inside one block: every other block matches, so it is a candidate, but too far.
    start, width = spans[0]
    if width > max_distance + 1:
        out.append(
            (max_distance + 1, _flip(fingerprint, rng.sample(range(start, start + width), max_distance + 1)))
        )
    return out


def _index_case(
    cls: type, max_distance: int, bits: int, n_random: int, n_queries: int, seed: int, keys: str = "int"
) -> Callable[[], Any]:
    """Build an index, query it; return (wrong answers, candidate counts, n) for the judge."""

    def run() -> tuple[list[str], list[int], int]:
        rng = random.Random(seed)
        stored: dict[Any, int] = {}
        queries = [rng.getrandbits(bits) for _ in range(n_queries)]
        for fp in queries:
            for _, near in _near(fp, bits, max_distance, rng):
                stored[len(stored)] = near
        for _ in range(n_random):
            stored[len(stored)] = rng.getrandbits(bits)
        if keys == "str":
            stored = {f"doc-{k}": v for k, v in stored.items()}
        index = cls(max_distance, bits=bits) if bits != 64 else cls(max_distance)
        for key, fp in stored.items():
            index.add(key, fp)
        problems, counts = [], []
        for fp in queries:
            want = {k for k, v in stored.items() if bin(fp ^ v).count("1") <= max_distance}
            got = set(index.query(fp))
            cands = set(index.candidates(fp))
            counts.append(len(cands))
            if got != want:
                missed, extra = want - got, got - want
                if missed:
                    k = sorted(missed, key=str)[0]
                    problems.append(
                        f"query {fp:#x} missed {len(missed)} within distance {max_distance}, e.g. key {k!r} "
                        f"at distance {bin(fp ^ stored[k]).count('1')}"
                    )
                if extra:
                    k = sorted(extra, key=str)[0]
                    problems.append(
                        f"query {fp:#x} returned {len(extra)} farther than {max_distance}, e.g. key {k!r} at "
                        f"distance {bin(fp ^ stored[k]).count('1')}"
                    )
            elif not want <= cands:
                problems.append(f"query {fp:#x}: query() finds keys that candidates() does not return")
        return problems, counts, len(stored)

    return run


def _index_judge(max_fraction: float | None = None) -> Callable[[Any], str | None]:
    def judge(got: Any) -> str | None:
        problems, counts, n = got
        if problems:
            return "; ".join(problems[:2]) + (f" (and {len(problems) - 2} more)" if len(problems) > 2 else "")
        if max_fraction is not None:
            mean = sum(counts) / len(counts)
            if mean > max_fraction * n:
                return (
                    f"candidates() returns {mean:.0f} keys per query on average out of {n}: that is close "
                    "to checking every key"
                )
        return None

    return judge


def check_block_index(cls: type) -> CheckResult:
    """Check a ``BlockIndex`` class for Hamming search with block tables.

    ``BlockIndex(max_distance, bits=64)`` splits fingerprints into
    ``max_distance + 1`` blocks; ``add(key, fingerprint)`` stores one;
    ``candidates(fingerprint)`` returns the keys that agree with it on at least
    one whole block; ``query(fingerprint)`` returns the keys within
    ``max_distance``. The answers are compared with a brute-force search.

    >>> check_block_index(_ReferenceBlockIndex).passed
    PASS check_block_index: all 6 cases pass
    True
    """
    pigeonhole = (
        "Split the bits into max_distance + 1 blocks and keep one table per block, and look up every "
        "block: d differing bits can spoil at most d blocks, so a neighbour within d agrees with the "
        "query on at least one whole block."
    )
    verify = (
        "Candidates share a block but may still be far away: keep only those with hamming <= max_distance."
    )

    def empty() -> Any:
        index = cls(3)
        return (set(index.query(12345)), set(index.candidates(12345)))

    cases = [
        _Case(
            "an empty index",
            "BlockIndex(3); query(12345) with nothing added",
            empty,
            shown_expected="(set(), set())",
            judge=lambda got: None if got == (set(), set()) else "",
            hint="With nothing added, nothing can be found.",
        ),
        _Case(
            "max_distance = 3",
            "BlockIndex(3): 300 random 64-bit fingerprints and 20 queries, each with "
            "planted neighbours at distances 0 to 5",
            _index_case(cls, 3, 64, 300, 20, seed=1),
            shown_expected="query() equal to a brute-force search",
            judge=_index_judge(),
            hint=pigeonhole,
        ),
        _Case(
            "max_distance = 0 (exact match)",
            "BlockIndex(0): 200 random fingerprints and 10 queries",
            _index_case(cls, 0, 64, 200, 10, seed=2),
            shown_expected="query() equal to a brute-force search",
            judge=_index_judge(),
            hint="With max_distance 0 there is one block: the whole fingerprint.",
        ),
        _Case(
            "16-bit fingerprints, max_distance = 2",
            "BlockIndex(2, bits=16): 100 random fingerprints, 10 queries",
            _index_case(cls, 2, 16, 100, 10, seed=3),
            shown_expected="query() equal to a brute-force search",
            judge=_index_judge(),
            hint="Use self.bits, not 64, when splitting.",
        ),
        _Case(
            "string keys, max_distance = 5",
            "BlockIndex(5) with keys like 'doc-7'",
            _index_case(cls, 5, 64, 100, 10, seed=4, keys="str"),
            shown_expected="query() equal to a brute-force search",
            judge=_index_judge(),
            hint=verify,
        ),
        _Case(
            "few candidates",
            "BlockIndex(3): 4000 random fingerprints, 30 random queries",
            _index_case(cls, 3, 64, 4000, 30, seed=5),
            shown_expected="on average under 5% of the keys as candidates per query",
            judge=_index_judge(0.05),
            hint="candidates() must only look up the query's own block values in the tables, not scan "
            "every stored key.",
        ),
    ]
    return _run("check_block_index", cls, cases)


class _ReferenceBlockIndex:
    """The reference answer for :func:`check_block_index` (the lab's solution is the same idea)."""

    def __init__(self, max_distance: int, bits: int = 64) -> None:
        self.max_distance, self.bits = max_distance, bits
        self.spans = _block_spans(bits, max_distance + 1)
        self.tables: list[dict[int, list[Any]]] = [{} for _ in self.spans]
        self.fingerprints: dict[Any, int] = {}

    def add(self, key: Any, fingerprint: int) -> None:
        self.fingerprints[key] = fingerprint
        for table, (start, width) in zip(self.tables, self.spans):
            table.setdefault((fingerprint >> start) & ((1 << width) - 1), []).append(key)

    def candidates(self, fingerprint: int) -> set:
        found: set = set()
        for table, (start, width) in zip(self.tables, self.spans):
            found.update(table.get((fingerprint >> start) & ((1 << width) - 1), ()))
        return found

    def query(self, fingerprint: int) -> set:
        return {
            k
            for k in self.candidates(fingerprint)
            if hamming(self.fingerprints[k], fingerprint) <= self.max_distance
        }
