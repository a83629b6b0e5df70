"""The machinery shared by every lab's checks: cases, reports, the tally.

A lab module describes each case as a :class:`Case` (what to call, what should come back) and
hands the list to :func:`run_check`, which runs them, prints the report and records the result
in :data:`TALLY`. The judges (:func:`judge_equal`, :func:`same_float`, :func:`same_set`) and the
container rules (:func:`as_set`, :func:`as_sequence`) say what is wrong with an answer.

>>> result = run_check("check_demo", abs, [Case("negative", "x=-2", call_on_copies(abs, -2), 2)])
PASS check_demo: all 1 cases pass
>>> del TALLY["check_demo"]
"""

from __future__ import annotations

import contextlib
import copy
import importlib.util
import math
import numbers
import sys
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from ..corpus import make_article

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
        "check_verify_pairs": "verify_pairs",
        "check_dedup": "submission",
    },
    "lab05": {
        "check_hamming": "my_hamming",
        "check_simhash": "my_simhash",
        "check_block_index": "BlockIndex",
    },
    "lab06": {
        "check_precision_recall_at": "precision_recall_at",
        "check_cost_at": "cost_at",
        "check_best_threshold": "best_threshold",
        "check_chosen_threshold": "totals",
    },
    "lab07": {
        "check_strip_copyright": "strip_copyright",
        "check_containment_of": "containment_of",
        "check_distinct_texts": "text_clusters",
    },
}

#: Points each check is worth when a notebook is graded, shared evenly by its cases.
POINTS: dict[str, int] = {
    "check_normalize": 2,
    "check_word_shingles": 3,
    "check_char_shingles": 2,
    "check_jaccard": 2,
    "check_minhash_signature": 4,
    "check_estimate_similarity": 2,
    "check_measure_error": 3,
    "check_k_for_error": 1,
    "check_s_curve": 2,
    "check_candidate_pairs": 4,
    "check_choose_bands_rows": 3,
    "check_target_choice": 1,
    "check_precision_recall": 2,
    "check_clusters": 3,
    "check_verify_pairs": 2,
    "check_dedup": 4,
    "check_hamming": 1,
    "check_simhash": 3,
    "check_block_index": 5,
    "check_precision_recall_at": 3,
    "check_cost_at": 2,
    "check_best_threshold": 2,
    "check_chosen_threshold": 2,
    "check_strip_copyright": 3,
    "check_containment_of": 2,
    "check_distinct_texts": 2,
}

#: The package's own answers to each check's exercise, as ``"module:name"`` (a top-level function or
#: class): the public functions and the checks' private references. When a notebook is graded, its
#: kernel sees these modules with each of its lab's answers replaced by one that raises, so that a
#: hand-in cannot hand the package's answer in, whatever name it reaches it by.
REFERENCES: dict[str, tuple[str, ...]] = {
    "check_normalize": ("neardup_lab.text:normalize",),
    "check_word_shingles": (
        "neardup_lab.text:word_shingles",
        "neardup_lab.text:words",
        "neardup_lab.notebook.helpers:raw_word_shingles",
    ),
    "check_char_shingles": ("neardup_lab.text:char_shingles",),
    "check_jaccard": ("neardup_lab.text:jaccard",),
    "check_minhash_signature": (
        "neardup_lab.minhash:merge_signatures",
        "neardup_lab.checks.lab2_minhash:_lab_signature",
    ),
    "check_estimate_similarity": (
        "neardup_lab.minhash:estimate_jaccard",
        "neardup_lab.checks.lab2_minhash:_lab_estimate",
        "neardup_lab.checks.lab2_minhash:_lab_estimate_checked",
    ),
    "check_measure_error": ("neardup_lab.checks.lab2_minhash:_lab_measure_error",),
    "check_k_for_error": (),
    "check_s_curve": ("neardup_lab.lsh:s_curve",),
    "check_candidate_pairs": (
        "neardup_lab.lsh:candidate_pairs",
        "neardup_lab.engine.banding:candidate_pair_array",
        "neardup_lab.engine.banding:pairs_in_groups",
        "neardup_lab.lsh:LSHIndex",
    ),
    "check_choose_bands_rows": (
        "neardup_lab.lsh:optimal_params",
        "neardup_lab.lsh:_optimal",
        "neardup_lab.lsh:error_areas",
        "neardup_lab.lsh:_areas",
        "neardup_lab.checks.lab3_lsh:_banding_error",
    ),
    "check_target_choice": (),
    "check_precision_recall": ("neardup_lab.evaluate:precision_recall",),
    "check_clusters": (
        "neardup_lab.clusters:clusters_from_pairs",
        "neardup_lab.engine.components:clusters_from_pair_array",
        "neardup_lab.clusters:UnionFind",
    ),
    "check_verify_pairs": (),
    "check_dedup": ("neardup_lab.engine.pipeline:dedup", "neardup_lab.reference:reference_dedup"),
    "check_hamming": (
        "neardup_lab.simhash:hamming",
        "neardup_lab.simhash_index:hamming_distances",
        "neardup_lab.simhash_index:hamming_brute_force",
    ),
    "check_simhash": ("neardup_lab.simhash:simhash",),
    "check_block_index": (
        "neardup_lab.simhash_index:BlockIndex",
        "neardup_lab.checks.lab5_simhash:_ReferenceBlockIndex",
    ),
    "check_precision_recall_at": (
        "neardup_lab.evaluate:precision_recall",
        "neardup_lab.checks.lab6_threshold:_precision_recall_at",
    ),
    "check_cost_at": ("neardup_lab.checks.lab6_threshold:_cost_at",),
    "check_best_threshold": ("neardup_lab.checks.lab6_threshold:_best_threshold",),
    "check_chosen_threshold": (),
    "check_strip_copyright": (
        "neardup_lab.checks.lab7_licences:_strip_copyright",
        "neardup_lab.checks.lab7_licences:is_copyright_notice",
    ),
    "check_containment_of": ("neardup_lab.text:containment",),
    "check_distinct_texts": (),
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
        for note in self.notes:
            lines += textwrap.wrap(note, _WIDTH, initial_indent="  ", subsequent_indent="  ")
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


#: The latest result of each check run so far, by check name; :func:`summary` reads it.
TALLY: dict[str, CheckResult] = {}
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
    TALLY.clear()


def _lab_key(lab: str | int) -> str:
    key = f"lab{lab:02d}" if isinstance(lab, int) else str(lab)
    if key not in LABS:
        raise ValueError(f"unknown lab {lab!r}; choose one of {', '.join(LABS)}")
    return key


def summary(lab: str | int | None = None) -> Summary:
    """Print and return how many checks pass, listing those that fail.

    With ``lab`` (``"lab01"`` or ``1``) every check of that lab counts, also
    those whose cell has not been run; without it, only the checks run so far.

    >>> from neardup_lab.checks import check_k_for_error
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
    names = list(LABS[_lab_key(lab)]) if lab is not None else list(TALLY)
    passed, failing, not_run = [], {}, []
    for name in names:
        result = TALLY.get(name)
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
        TALLY.pop(check_name, None)
    for check_name, answer in LABS[key].items():
        if answer in namespace:
            getattr(import_module("neardup_lab.checks"), check_name)(namespace[answer])
        else:
            result = CheckResult(check_name, passed=False, missing=f"not defined: {answer}")
            print(result.headline())
            TALLY[check_name] = result
    return summary(key)


# -------------------------------------------------------------- the runner


@dataclass
class Case:
    """One case: ``call`` runs the student's code; ``judge`` says what is wrong, or None.

    >>> Case("empty text", "text=''", call_on_copies(len, ""), 0).expected
    0
    """

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


def show_value(value: Any, limit: int = _SHOW_LIMIT) -> str:
    """A short, deterministic picture of a value: sets sorted, long text cut.

    >>> show_value({"b", "a"})
    "{'a', 'b'}"
    >>> show_value("x" * 300, limit=5)
    "'xxxx ... (297 more characters)"
    """
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


def answer_name(check_name: str) -> str:
    """The notebook name of the answer a check takes, from :data:`LABS`.

    >>> answer_name("check_jaccard")
    'my_jaccard'
    """
    return next((names[check_name] for names in LABS.values() if check_name in names), "your answer")


def _name_of(obj: Any) -> str:
    return getattr(obj, "__name__", None) or type(obj).__name__


def run_check(check_name: str, target: Any, cases: list[Case], notes: list[str] | None = None) -> CheckResult:
    """Run ``cases``, print the report, record and return the result.

    >>> _ = run_check("check_demo", ..., [])
    FAIL check_demo: not answered yet: your answer
        hint:     replace `...` with your answer, then run that cell and this one again.
    >>> del TALLY["check_demo"]
    """
    result = CheckResult(check_name, passed=False, cases=len(cases))
    try:
        if target is Ellipsis or target is None:
            raise _NotReady(f"not answered yet: {answer_name(check_name)}")
        cases = [*cases, *grading_cases(check_name, target, len(cases))]
        result.cases = len(cases)
        for case in cases:
            _run_case(case, _name_of(target), result)
    except _NotReady as missing:
        result.missing = str(missing)
    result.passed = not result.missing and not result.failures
    result.notes = list(notes or [])
    if any(f.detail.startswith("return a") for f in result.failures):
        result.notes.append(CONTAINER_RULE)
    print(result.report())
    TALLY[check_name] = result
    return result


def _run_case(case: Case, target: str, result: CheckResult) -> None:
    expected = case.shown_expected
    if expected is None:
        expected = f"raises {case.raises.__name__}" if case.raises else show_value(case.expected)
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
            Failure(case.name, case.input, expected, f"returned {show_value(got)}, raised nothing", case.hint)
        )
        return
    if got is None and case.expected is not None:
        result.failures.append(
            Failure(case.name, case.input, expected, "None", "the function returned nothing: add a `return`")
        )
        return
    judge = case.judge or judge_equal(case.expected)
    try:
        problem = judge(got)
    except Exception as exc:  # an answer of a shape the judge cannot read
        problem = f"could not read the answer ({type(exc).__name__}: {exc})"
    changed = getattr(case.call, "changed", "")
    if changed:
        note = (
            f"note: {target} changed its input ({changed}); the caller may still need it, so "
            "work on a copy or build a new value"
        )
        problem = note if problem is None else f"{problem}; {note}" if problem else note
        hint = case.hint or "Leave the arguments as they came."
        result.failures.append(Failure(case.name, case.input, expected, show_value(got), hint, problem))
    elif problem is not None:
        result.failures.append(Failure(case.name, case.input, expected, show_value(got), case.hint, problem))


# ------------------------------------------------------------- comparisons


def judge_equal(expected: Any) -> Callable[[Any], str | None]:
    """Judge that passes when the answer equals ``expected`` (floats: to 1e-9).

    A judge returns None when the answer is right, else what is wrong ("" if nothing more to say).

    >>> judge_equal(0.5)(0.5 + 1e-12) is None
    True
    >>> judge_equal({1, 2})({1})
    'missing 1: {2}'
    """

    def judge(got: Any) -> str | None:
        if isinstance(expected, (set, frozenset)):
            return same_set(got, expected)
        if isinstance(expected, float):
            return same_float(got, expected)
        return None if got == expected else ""

    return judge


def same_float(got: Any, expected: float, tol: float = 1e-9) -> str | None:
    """None when ``got`` is a number within ``tol`` of ``expected``, else what is wrong.

    >>> same_float(0.1 + 0.2, 0.3) is None
    True
    >>> same_float("0.3", 0.3)
    'expected a number, got a str'
    """
    if isinstance(got, bool) or not isinstance(got, numbers.Real):
        return f"expected a number, got a {type(got).__name__}"
    if math.isclose(float(got), expected, rel_tol=tol, abs_tol=1e-12):
        return None
    return ""


def precision_recall_judge(expected: tuple[float, float]) -> Callable[[Any], str | None]:
    """A judge for an answer ``(precision, recall)``: None when both match ``expected``.

    >>> judge = precision_recall_judge((0.5, 1.0))
    >>> judge((0.5, 1.0)) is None, judge([1.0, 0.5]) is None
    (True, False)
    """

    def judge(got: Any) -> str | None:
        if not isinstance(got, (tuple, list)) or len(got) != 2:
            return "return a pair (precision, recall)"
        for label, value, want in zip(("precision", "recall"), got, expected):
            problem = same_float(value, want)
            if problem is not None:
                return f"{label} is wrong {problem}".strip()
        return None

    return judge


def same_set(got: Any, expected: AbstractSet[Any]) -> str | None:
    """None when ``got`` is a set equal to ``expected``, else what is missing and what is extra.

    >>> same_set({1, 3}, {1, 2})
    'missing 1: {2}; unexpected 1: {3}'
    """
    if not isinstance(got, (set, frozenset)):
        return f"return a set, not a {type(got).__name__}"
    if got == expected:
        return None
    missing, extra = expected - got, got - expected
    parts = []
    if missing:
        parts.append(f"missing {len(missing)}: {show_value(set(missing), 120)}")
    if extra:
        parts.append(f"unexpected {len(extra)}: {show_value(set(extra), 120)}")
    return "; ".join(parts)


def _copy(value: Any) -> Any:
    """A fresh copy of an input, so a function that changes its input cannot spoil a case."""
    return copy.deepcopy(value)


def _same_value(a: Any, b: Any) -> bool:
    """Equality that also works for numpy arrays inside containers."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and np.array_equal(a, b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same_value, a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)
    try:
        return bool(a == b)
    except Exception:  # values that do not compare: treat as changed
        return False


class CallOnCopies:
    """Calls ``func`` on fresh copies of the arguments and notes whether it changed them.

    >>> call = CallOnCopies(list.pop, ([1, 2],), {})
    >>> call(), call.changed
    (2, 'argument 1')
    """

    def __init__(self, func: Callable, args: tuple, kwargs: dict) -> None:
        self.func, self.args, self.kwargs = func, _copy(args), _copy(kwargs)
        self.changed = ""

    def __call__(self) -> Any:
        args, kwargs = _copy(self.args), _copy(self.kwargs)
        try:
            return self.func(*args, **kwargs)
        finally:
            names = [f"argument {i + 1}" for i in range(len(args))] + [f"argument {k!r}" for k in kwargs]
            sent = [*self.args, *self.kwargs.values()]
            after = [*args, *kwargs.values()]
            changed = [name for name, x, y in zip(names, sent, after) if not _same_value(x, y)]
            self.changed = " and ".join(changed)


def call_on_copies(func: Callable, *args: Any, **kwargs: Any) -> CallOnCopies:
    """The ``call`` of a :class:`Case`: ``func(*args, **kwargs)`` on copies, so a case cannot be spoilt.

    >>> call_on_copies(sorted, [3, 1])()
    [1, 3]
    """
    return CallOnCopies(func, args, kwargs)


# ------------------------------------------------------- container rules

#: The one rule for collections, in every lab (quoted in reports).
CONTAINER_RULE = (
    "Return a set (set or frozenset) where order means nothing and repeats are not allowed, "
    "and a list or tuple (or a numpy array) where positions matter; never a generator or an "
    "iterator, which can be read only once and has no len()."
)


def as_set(got: Any, what: str = "a set") -> set:
    """``got`` as a set, or ValueError naming what came back instead.

    >>> as_set(frozenset({1}))
    {1}
    >>> as_set([1])
    Traceback (most recent call last):
    ...
    ValueError: return a set (set or frozenset), not a list
    """
    if isinstance(got, (set, frozenset)):
        return set(got)
    raise ValueError(f"return {what} (set or frozenset), not a {type(got).__name__}")


def as_sequence(got: Any, what: str = "a list") -> Sequence | np.ndarray:
    """``got`` if it is a list, tuple or numpy array, else ValueError naming what came back.

    >>> as_sequence((1, 2))
    (1, 2)
    >>> as_sequence(iter([1]))
    Traceback (most recent call last):
    ...
    ValueError: return a list, not a list_iterator: it can be read only once and has no len()
    """
    if isinstance(got, (list, tuple, np.ndarray)):
        return got
    if isinstance(got, Iterator) or type(got).__name__ == "generator":
        raise ValueError(
            f"return {what}, not a {type(got).__name__}: it can be read only once and has no len()"
        )
    raise ValueError(f"return {what} (list, tuple or numpy array), not a {type(got).__name__}")


# ------------------------------------------------------- grading mode

_GRADING = [False]


#: The grader's package of grading-only cases (``labs/grading`` in the repository), once loaded.
_GRADER: list[ModuleType] = []
_GRADER_MODULE = "neardup_lab_grading"


def load_grading(folder: str | Path) -> ModuleType:
    """Load the grader's cases from ``folder`` (a package; the student wheel does not have it).

    The package defines ``RANDOM`` (check name -> ``make_case(answer, seed) -> Case``: the
    grading-only random cases, one per seed) and ``CASES`` (check name -> ``build(answer) ->
    list[Case]``: cases with the grader's reference answers). In :func:`grading_mode`, every
    check runs its visible cases and then more grading-only cases than visible ones, so an
    answer that only knows the visible cases gets less than half of the points.

    >>> load_grading("no/such/folder")
    Traceback (most recent call last):
    ...
    FileNotFoundError: no grading cases in no/such/folder: expected a package with __init__.py
    """
    init = Path(folder) / "__init__.py"
    if not init.is_file():
        raise FileNotFoundError(f"no grading cases in {folder}: expected a package with __init__.py")
    spec = importlib.util.spec_from_file_location(
        _GRADER_MODULE, init, submodule_search_locations=[str(Path(folder).resolve())]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    for name in [n for n in sys.modules if n == _GRADER_MODULE or n.startswith(_GRADER_MODULE + ".")]:
        del sys.modules[name]  # a fresh load, submodules included
    sys.modules[_GRADER_MODULE] = module
    spec.loader.exec_module(module)
    _GRADER[:] = [module]
    return module


def _grader() -> ModuleType:
    if not _GRADER:
        here = Path(__file__).resolve().parents[2] / "labs" / "grading"  # a clone of the repository
        if not (here / "__init__.py").is_file():
            raise RuntimeError(
                "grading mode needs the grader's cases: call checks.load_grading(<labs/grading folder>) first"
            )
        load_grading(here)
    return _GRADER[0]


def grading_cases(check_name: str, answer: Any, visible: int) -> list[Case]:
    """The grading-only cases of a check: none outside :func:`grading_mode`.

    In grading mode, the cases the grader's ``CASES`` builds, then random ones from
    ``RANDOM`` until there are more grading-only cases than ``visible`` ones.

    >>> grading_cases("check_jaccard", len, 8)
    []
    """
    if not grading():
        return []
    grader = _grader()
    build = grader.CASES.get(check_name)
    cases = list(build(answer)) if build is not None else []
    make_case = grader.RANDOM.get(check_name)
    if make_case is not None:
        seed = grader.FIRST_SEED
        while len(cases) <= visible:
            cases.append(make_case(answer, seed))
            seed += 1
    return cases


@contextlib.contextmanager
def grading_mode() -> Iterator[None]:
    """Inside this block every check adds its grading-only cases (other seeds, another corpus).

    >>> with grading_mode():
    ...     grading()
    True
    >>> grading()
    False
    """
    _GRADING[0] = True
    try:
        yield
    finally:
        _GRADING[0] = False


def grading() -> bool:
    """Whether checks run in :func:`grading_mode`.

    >>> grading()
    False
    """
    return _GRADING[0]


def sample_article(seed: int, n_words: int = 60) -> str:
    """The synthetic article many cases start from: ``make_article(seed=seed, n_words=n_words)``.

    >>> sample_article(1, 5).startswith("Said Ziobai On Were The")
    True
    """
    return make_article(seed=seed, n_words=n_words)


def sample_article_input(seed: int, n_words: int = 60, **params: Any) -> str:
    """How a report shows a case whose input is :func:`sample_article` (plus other parameters).

    >>> sample_article_input(1, 5, k=3).startswith("text=make_article(seed=1, n_words=5) (begins ")
    True
    """
    extra = "".join(f", {k}={v!r}" for k, v in params.items())
    begins = sample_article(seed, n_words)[:30]
    return f"text=make_article(seed={seed}, n_words={n_words}) (begins {begins!r}){extra}"
