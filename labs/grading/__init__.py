"""Grading-only cases of the labs' checks: the grader has them, the student wheel does not.

``labs/grade.py`` loads this folder with ``checks.load_grading(folder)``. In grading mode
every check then runs the cases its notebook shows and, after them, more cases that the
notebook never shows, so that an answer that only knows the visible cases (a lookup table)
gets less than half of the check's points:

- ``RANDOM`` maps a check to ``make_case(answer, seed)``: one random case (another seed,
  another size or shape: numpy inputs, unsorted thresholds with ties, sets that do not
  nest, another corpus). The harness calls it with seeds from ``FIRST_SEED`` on until the
  grading-only cases outnumber the visible ones.
- ``CASES`` maps a check to ``build(answer) -> list[Case]``: the cases that need the
  reference answers of the labs' questions (lab 6's table of costs, lab 7's clusters).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from neardup_lab.checks import (
    lab1_text,
    lab2_minhash,
    lab3_lsh,
    lab4_dedup,
    lab5_simhash,
    lab6_threshold,
    lab7_licences,
)
from neardup_lab.checks.harness import Case

from .lab6 import totals_cases
from .lab7 import clusters_cases

#: The first seed of the grading-only random cases; the notebooks use seeds below 100.
FIRST_SEED = 7001

RANDOM: dict[str, Callable[[Any, int], Case]] = {
    "check_normalize": lab1_text.normalize_case,
    "check_word_shingles": lab1_text.word_shingles_case,
    "check_char_shingles": lab1_text.char_shingles_case,
    "check_jaccard": lab1_text.jaccard_case,
    "check_minhash_signature": lab2_minhash.signature_case,
    "check_estimate_similarity": lab2_minhash.estimate_case,
    "check_measure_error": lab2_minhash.measure_random_case,
    "check_s_curve": lab3_lsh.s_curve_case,
    "check_candidate_pairs": lab3_lsh.candidate_pairs_case,
    "check_choose_bands_rows": lab3_lsh.choose_bands_rows_case,
    "check_precision_recall": lab4_dedup.precision_recall_case,
    "check_clusters": lab4_dedup.clusters_case,
    "check_verify_pairs": lab4_dedup.verify_case,
    "check_dedup": lab4_dedup.dedup_case,
    "check_hamming": lab5_simhash.hamming_case,
    "check_simhash": lab5_simhash.simhash_case,
    "check_block_index": lab5_simhash.block_index_case,
    "check_precision_recall_at": lab6_threshold.precision_recall_at_case,
    "check_cost_at": lab6_threshold.cost_at_case,
    "check_best_threshold": lab6_threshold.best_threshold_case,
    "check_strip_copyright": lab7_licences.strip_copyright_case,
    "check_containment_of": lab7_licences.containment_case,
}

CASES: dict[str, Callable[[Any], list[Case]]] = {
    "check_chosen_threshold": totals_cases,
    "check_distinct_texts": clusters_cases,
}
