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

Modules: ``harness`` (cases, reports, the tally, ``LABS``, ``POINTS`` and ``REFERENCES``, the
container rule, grading mode), one module per lab (``lab1_text`` ... ``lab7_licences``),
and ``remote``, through which ``labs/grade.py`` calls a student's functions in their
kernel while the checks run in the grading process.

The checks hold the cases a notebook shows. Grading adds more cases than those, with
other seeds and shapes, and the reference answers of the labs' one-number questions:
they live with the grader (``labs/grading`` in the repository, not in the student
wheel), which :func:`load_grading` loads.

>>> from neardup_lab import jaccard
>>> from neardup_lab.checks import check_jaccard
>>> result = check_jaccard(jaccard)
PASS check_jaccard: all 8 cases pass
>>> result.passed
True
"""

from __future__ import annotations

from .harness import (
    CONTAINER_RULE,
    LABS,
    POINTS,
    REFERENCES,
    CheckResult,
    Failure,
    Summary,
    grade,
    grading,
    grading_mode,
    load_grading,
    reset,
    summary,
)
from .lab1_text import check_char_shingles, check_jaccard, check_normalize, check_word_shingles
from .lab2_minhash import (
    MINHASH_PRIME,
    check_estimate_similarity,
    check_k_for_error,
    check_measure_error,
    check_minhash_signature,
)
from .lab3_lsh import check_candidate_pairs, check_choose_bands_rows, check_s_curve, check_target_choice
from .lab4_dedup import DEDUP_TARGETS, check_clusters, check_dedup, check_precision_recall, check_verify_pairs
from .lab5_simhash import check_block_index, check_hamming, check_simhash
from .lab6_threshold import (
    EDITOR_COSTS,
    THRESHOLDS,
    candidate_counts,
    check_best_threshold,
    check_chosen_threshold,
    check_cost_at,
    check_precision_recall_at,
    labelled_pairs,
)
from .lab7_licences import (
    LicenceCorpus,
    check_containment_of,
    check_distinct_texts,
    check_strip_copyright,
    licence_corpus,
)

__all__ = [
    "CONTAINER_RULE",
    "DEDUP_TARGETS",
    "EDITOR_COSTS",
    "LicenceCorpus",
    "LABS",
    "POINTS",
    "REFERENCES",
    "MINHASH_PRIME",
    "CheckResult",
    "Failure",
    "Summary",
    "THRESHOLDS",
    "candidate_counts",
    "check_best_threshold",
    "check_chosen_threshold",
    "check_containment_of",
    "check_cost_at",
    "check_precision_recall_at",
    "check_block_index",
    "check_candidate_pairs",
    "check_char_shingles",
    "check_choose_bands_rows",
    "check_clusters",
    "check_dedup",
    "check_distinct_texts",
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
    "check_strip_copyright",
    "check_target_choice",
    "check_verify_pairs",
    "check_word_shingles",
    "grade",
    "grading",
    "grading_mode",
    "labelled_pairs",
    "licence_corpus",
    "load_grading",
    "reset",
    "summary",
]
