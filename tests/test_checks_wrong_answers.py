"""Wrong answers that used to pass the labs' checks, and the grading-only cases that catch the rest.

Each wrong answer below passed a check once (issue 42): it must now fail in the notebook.
An answer that only knows the cases a notebook shows (a lookup table of them) must get
less than half of a check's points when graded, and the reference answers of the labs'
questions must not ship in the student wheel.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import numpy as np
import pytest

from neardup_lab import (
    brute_force_pairs,
    candidate_pairs,
    char_shingles,
    checks,
    clusters_from_pairs,
    containment,
    estimate_jaccard,
    hamming,
    jaccard,
    normalize,
    optimal_params,
    precision_recall,
    s_curve,
    simhash,
    word_shingles,
)
from neardup_lab.checks import lab2_minhash, lab6_threshold, lab7_licences

ROOT = Path(__file__).resolve().parents[1]
GRADING = ROOT / "labs" / "grading"


@pytest.fixture(autouse=True)
def fresh_tally():
    checks.reset()
    yield
    checks.reset()


@pytest.fixture(scope="module")
def grader():
    return checks.load_grading(GRADING)


def failing(check, answer, capsys) -> tuple[list[str], str]:
    result = check(answer)
    out = capsys.readouterr().out
    assert not result.passed, out
    return [f.case for f in result.failures], out


def graded_share(check, answer, capsys) -> float:
    """The share of a check's points an answer gets when graded (cases passed / cases)."""
    with checks.grading_mode():
        result = check(answer)
    capsys.readouterr()
    return (result.cases - len(result.failures)) / result.cases if not result.missing else 0.0


# ------------------------------------------------------------------ lab 6


def _cost_is_true(scores, labels, t, miss, alarm):
    misses = sum(1 for s, y in zip(scores, labels) if y is True and s < t)
    alarms = sum(1 for s, y in zip(scores, labels) if y is False and s >= t)
    return miss * misses + alarm * alarms


def test_cost_at_with_labels_compared_by_identity_fails(capsys):
    cases, _ = failing(checks.check_cost_at, _cost_is_true, capsys)
    assert "numpy arrays, numpy bool labels" in cases


def _cost(scores, labels, t, miss, alarm):
    return lab6_threshold._cost_at(scores, labels, t, miss, alarm)


def test_best_threshold_keeping_the_last_tie_in_list_order_fails(capsys):
    def last_tie(scores, labels, thresholds, miss, alarm):  # assumes sorted input
        best = None
        for t in thresholds:
            if best is None or _cost(scores, labels, t, miss, alarm) <= _cost(
                scores, labels, best, miss, alarm
            ):
                best = t
        return best

    def first_tie(scores, labels, thresholds, miss, alarm):  # assumes sorted from the highest
        return min(thresholds, key=lambda t: _cost(scores, labels, t, miss, alarm))

    for wrong in (last_tie, first_tie):
        cases, _ = failing(checks.check_best_threshold, wrong, capsys)
        assert {"a tie goes to the highest threshold", "a tie, highest first"} & set(cases)
        assert graded_share(checks.check_best_threshold, wrong, capsys) < 1


def test_chosen_threshold_reveals_nothing_to_sixteen_guesses(capsys, grader):
    counts = checks.candidate_counts()
    reports = set()
    for guess in checks.THRESHOLDS:  # a table that makes each threshold in turn the cheapest
        table = {t: 0.4 * counts[t] + (0 if t == guess else 7) for t in checks.THRESHOLDS}
        result = checks.check_chosen_threshold(table)
        reports.add(capsys.readouterr().out)
        assert result.passed
    assert len(reports) == 1, "the notebook's check must not tell the guesses apart"
    totals = grader.lab6.editors_totals()
    wrong = {t: v + (5 if t == 0.6 else 0) for t, v in totals.items()}
    with checks.grading_mode():
        result = checks.check_chosen_threshold(wrong)
    out = capsys.readouterr().out
    assert [f.case for f in result.failures] == ["the total cost at 0.6"]
    reference = totals[0.6]  # the report shows the answer's own table, never the grader's total
    assert f"{reference:.2f}" not in out and f"{reference:g}" not in out


def test_chosen_threshold_grades_the_table(capsys, grader):
    totals = grader.lab6.editors_totals()
    assert graded_share(checks.check_chosen_threshold, dict(totals), capsys) == 1
    swapped = {t: v + 1 for t, v in totals.items()}  # still whole mistakes: only grading sees it
    assert checks.check_chosen_threshold(swapped).passed
    assert graded_share(checks.check_chosen_threshold, swapped, capsys) < 0.5


# ------------------------------------------------------------------ lab 7


def test_distinct_texts_cannot_be_bisected(capsys, grader):
    right = [set(c) for c in grader.lab7.distinct_clusters()]
    merged = [right[0] | right[1], *right[2:]]
    split = [{i} for i in right[0]] + right[1:]
    reports = []
    for clusters in (right, merged, split):
        checks.check_distinct_texts(clusters)
        reports.append(capsys.readouterr().out)
    assert not re.search(r"too (many|few)", "".join(reports))
    for clusters in (merged, split):
        assert graded_share(checks.check_distinct_texts, clusters, capsys) < 1
    assert graded_share(checks.check_distinct_texts, right, capsys) == 1
    assert graded_share(checks.check_distinct_texts, len(right), capsys) == 0


def _licence_clusters(strip: bool = True, k: int = 5, threshold: float = 0.9) -> list[set[int]]:
    texts = checks.licence_corpus().texts
    sets = [word_shingles(_strip(t) if strip else t, k) for t in texts]
    return clusters_from_pairs(len(sets), brute_force_pairs(sets, threshold))


NEAR_MISSES = {  # answers of lab 7's last question that each break one part of the rule
    "notices kept": {"strip": False},
    "3-word shingles": {"k": 3},
    "4-word shingles": {"k": 4},
    "threshold 0.8": {"threshold": 0.8},
    "threshold 0.85": {"threshold": 0.85},
}


@pytest.mark.parametrize("wrong", sorted(NEAR_MISSES))
def test_distinct_texts_by_a_near_miss_of_the_rule_fail(wrong, capsys, grader):
    clusters = _licence_clusters(**NEAR_MISSES[wrong])
    assert sorted(map(sorted, clusters)) != [list(c) for c in grader.lab7.distinct_clusters()]
    cases, out = failing(checks.check_distinct_texts, clusters, capsys)
    assert set(cases) & {label for label, _, _ in lab7_licences.DISTINCT_PAIRS}, out
    assert graded_share(checks.check_distinct_texts, clusters, capsys) < 0.6


def test_distinct_texts_of_one_cluster_or_none_earn_nothing(capsys, grader):
    n = len(checks.licence_corpus().names)
    for clusters in ([set(range(n))], [{i} for i in range(n)]):
        result = checks.check_distinct_texts(clusters)
        capsys.readouterr()
        assert len(result.failures) == result.cases  # every case the notebook shows fails
        assert graded_share(checks.check_distinct_texts, clusters, capsys) == 0
    right = _licence_clusters()
    assert checks.check_distinct_texts(right).passed
    assert graded_share(checks.check_distinct_texts, right, capsys) == 1


def test_the_pairs_the_notebook_checks_agree_with_the_grader(grader):
    corpus = checks.licence_corpus()
    index = {name: i for i, name in enumerate(corpus.names)}
    reference = grader.lab7.distinct_clusters()
    where = {i: k for k, c in enumerate(reference) for i in c}
    raw = [word_shingles(t, 5) for t in corpus.texts]
    stripped = [word_shingles(_strip(t), 5) for t in corpus.texts]
    for label, together, apart in lab7_licences.DISTINCT_PAIRS:
        i, j = (index[name] for name in together)
        assert where[i] == where[j], label
        # joined only once the notices are gone
        assert jaccard(raw[i], raw[j]) < 0.9 <= jaccard(stripped[i], stripped[j]), label
        i, j = (index[name] for name in apart)
        assert where[i] != where[j], label
    low, high = lab7_licences.DISTINCT_RANGE
    assert low < len(reference) < high


def test_the_hard_lines_of_licence_bodies_stay(capsys):
    def line_start(text):  # the old rule: every line that begins with a mark goes
        start = re.compile(r"^\s*(?:copyright(?=[\s:]|$)|©|\(c\))", re.IGNORECASE)
        return "\n".join(line for line in text.split("\n") if not start.match(line))

    cases, out = failing(checks.check_strip_copyright, line_start, capsys)
    assert {"a wrapped BSD line stays", "a wrapped disclaimer stays", "an Apache clause stays"} <= set(cases)
    for line in lab7_licences.HARD_LINES:
        assert not lab7_licences.is_copyright_notice(line), line


# ------------------------------------------------------------------ lab 2


def test_estimate_that_compares_whole_signatures_first_fails_on_numpy_ones(capsys):
    def whole_first(sig_a, sig_b):  # `==` of two numpy arrays is an array: `if` raises
        if len(sig_a) != len(sig_b):
            raise ValueError("signatures of different lengths")
        if sig_a == sig_b:
            return 1.0
        return sum(x == y for x, y in zip(sig_a, sig_b)) / len(sig_a)

    cases, out = failing(checks.check_estimate_similarity, whole_first, capsys)
    assert "numpy arrays" in out and "ambiguous" in out
    assert graded_share(checks.check_estimate_similarity, whole_first, capsys) < 1


# ------------------------------------------------------------------ lab 4


def test_verify_pairs_by_length_ratio_fails(capsys):
    def by_length(candidates, sets):
        return {
            (i, j)
            for i, j in candidates
            if min(len(sets[i]), len(sets[j])) / max(len(sets[i]), len(sets[j])) >= 0.8
        }

    cases, _ = failing(checks.check_verify_pairs, by_length, capsys)
    assert "same size, other words" in cases
    assert graded_share(checks.check_verify_pairs, by_length, capsys) < 0.5


def _pipeline(docs, bands=18, rows=7):
    sets = [word_shingles(d, 5) for d in docs]
    from neardup_lab import MinHasher

    candidates = candidate_pairs(MinHasher(num_perm=128, seed=1).signatures(sets), bands, rows)
    verified = [(i, j) for i, j in candidates if jaccard(sets[i], sets[j]) >= 0.8]
    return clusters_from_pairs(len(docs), verified), set(candidates)


def test_dedup_counts_the_candidates_itself(capsys):
    def brute_force_no_candidates(docs):
        sets = [word_shingles(d, 5) for d in docs]
        pairs = [
            (i, j)
            for i in range(len(docs))
            for j in range(i + 1, len(docs))
            if jaccard(sets[i], sets[j]) >= 0.8
        ]
        return clusters_from_pairs(len(docs), pairs), set()

    cases, out = failing(checks.check_dedup, brute_force_no_candidates, capsys)
    assert "hidden corpus: the clusters come from the candidates" in cases
    assert "not joined by any verified candidate" in out


def test_dedup_with_a_banding_that_only_just_meets_recall_fails(capsys, grader):
    # 11 x 11 meets recall 0.95 on the hidden corpus (0.966) but not on every corpus
    cases, out = failing(checks.check_dedup, lambda docs: _pipeline(docs, 11, 11), capsys)
    assert not [c for c in cases if c.startswith("hidden corpus")], out
    assert [c for c in cases if c.startswith("another hidden corpus")], out
    assert checks.check_dedup(lambda docs: _pipeline(docs, 18, 7)).passed


def test_dedup_that_raises_on_bigger_corpora_gets_under_half(capsys, grader):
    def small_only(docs):
        if len(docs) > 20:
            raise MemoryError("too many documents")
        return _pipeline(docs)

    assert graded_share(checks.check_dedup, _pipeline, capsys) == 1
    assert graded_share(checks.check_dedup, small_only, capsys) < 0.5


# ------------------------------------------------------ lookup tables


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.dtype == b.dtype
            and np.array_equal(a, b)
        )
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if callable(a) or callable(b):
        return a is b
    return type(a) is type(b) and a == b


def lookup_table(check, reference, capsys):
    """An answer that knows the reference's answers to the cases the notebook shows, and nothing else."""
    table = []

    def record(*args, **kwargs):
        key = copy.deepcopy((args, kwargs))
        try:
            result = reference(*args, **kwargs)
        except Exception as exc:  # the cases where the answer must raise
            table.append((key, exc))
            raise
        table.append((key, copy.deepcopy(result)))
        return result

    assert check(record).passed, capsys.readouterr().out

    def answer(*args, **kwargs):
        for key, result in table:
            if _same(key, (args, kwargs)):
                if isinstance(result, Exception):
                    raise result
                return copy.deepcopy(result)
        raise KeyError("not among the cases the notebook shows")

    capsys.readouterr()
    return answer


def _strip(text):
    return "\n".join(line for line in text.split("\n") if not lab7_licences.is_copyright_notice(line))


def _estimate(a, b):
    if len(a) != len(b):
        raise ValueError("lengths differ")
    return float(estimate_jaccard(np.asarray(a, dtype=np.uint64), np.asarray(b, dtype=np.uint64)))


REFERENCES = {
    "check_normalize": normalize,
    "check_word_shingles": word_shingles,
    "check_char_shingles": char_shingles,
    "check_jaccard": jaccard,
    "check_minhash_signature": lab2_minhash._lab_signature,
    "check_estimate_similarity": _estimate,
    "check_measure_error": lab2_minhash._lab_measure_error,
    "check_s_curve": lambda s, b, r: float(s_curve(s, b, r)),
    "check_candidate_pairs": candidate_pairs,
    "check_choose_bands_rows": optimal_params,
    "check_precision_recall": precision_recall,
    "check_clusters": clusters_from_pairs,
    "check_verify_pairs": lambda c, s: {(i, j) for i, j in c if jaccard(s[i], s[j]) >= 0.8},
    "check_dedup": _pipeline,
    "check_hamming": hamming,
    "check_simhash": simhash,
    "check_precision_recall_at": lab6_threshold._precision_recall_at,
    "check_cost_at": lab6_threshold._cost_at,
    "check_best_threshold": lab6_threshold._best_threshold,
    "check_strip_copyright": _strip,
    "check_containment_of": containment,
}


def test_every_function_check_has_grading_cases(grader):
    functions = {name for lab in checks.LABS.values() for name in lab} - {
        "check_k_for_error",
        "check_target_choice",
        "check_chosen_threshold",
        "check_distinct_texts",
    }
    assert functions == set(grader.RANDOM)
    assert set(REFERENCES) | {"check_block_index"} == functions


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_a_lookup_table_of_the_visible_cases_gets_under_half(name, capsys, grader):
    check = getattr(checks, name)
    reference = REFERENCES[name]
    assert graded_share(check, reference, capsys) == 1, name
    answer = lookup_table(check, reference, capsys)
    assert check(answer).passed  # it passes in the notebook ...
    capsys.readouterr()
    assert graded_share(check, answer, capsys) < 0.5  # ... and gets under half when graded


# ------------------------------------------------------ the student wheel


def test_the_package_ships_no_reference_answer_or_grading_case():
    package = ROOT / "neardup_lab"
    source = "\n".join(p.read_text(encoding="utf-8") for p in (package / "checks").rglob("*.py"))
    for name in ("editors_choice", "editors_totals", "def distinct_texts", "distinct_clusters"):
        assert not re.search(rf"\b{name}\b", source), name
    assert not list(package.rglob("grading"))


@pytest.mark.native("builds a wheel (nbformat, processes)")
def test_make_labs_refuses_a_wheel_with_grading_files(tmp_path):
    import importlib.util
    import zipfile

    spec = importlib.util.spec_from_file_location("make_labs", ROOT / "tools" / "make_labs.py")
    make_labs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_labs)
    good, bad = tmp_path / "good.whl", tmp_path / "bad.whl"
    for path, names in (
        (good, ["neardup_lab/checks/harness.py", "neardup_lab-1.0.dist-info/METADATA"]),
        (bad, ["neardup_lab/checks/harness.py", "labs/grading/lab6.py"]),
    ):
        with zipfile.ZipFile(path, "w") as archive:
            for name in names:
                archive.writestr(name, "")
    make_labs.check_student_wheel(good)
    with pytest.raises(RuntimeError, match="not the package's"):
        make_labs.check_student_wheel(bad)
