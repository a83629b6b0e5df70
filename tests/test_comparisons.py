"""Sentences that compare computed values are backed by an assert, and the stored values fit them.

Each entry names a chapter, the glue names its sentence shows, a phrase of the sentence
(so the sentence is still there) and the comparison the sentence makes, written over those
glue names. The test checks that

- the chapter's text shows every one of those glued values, next to the phrase;
- a hidden cell (tagged ``remove-cell``) glues them and holds an ``assert`` that names each
  of them, so re-executing the chapter fails when the comparison stops holding;
- the values stored in the chapter's outputs fit the comparison now.

Removing such an assert, or a value drifting out of its sentence, fails this test.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[1]


class Comparison(NamedTuple):
    chapter: str
    names: tuple[str, ...]
    phrase: str
    holds: str  # a Python expression over the glued values


COMPARISONS = [
    Comparison("01_why_near_duplicates", ("ch01_cost_similar", "ch01_cost_per_pair"),
               "than an unrelated one", "ch01_cost_similar > ch01_cost_per_pair"),
    Comparison("03_ground_truth", ("ch03_family_larger", "ch03_family_smaller"),
               "middle one", "ch03_family_larger == ch03_family_smaller"),
    Comparison("05_hash_families", ("ch05_ms_merged", "ch05_ms_predicted"),
               "as the birthday count",
               "abs(ch05_ms_merged - ch05_ms_predicted) < 4 * ch05_ms_predicted ** 0.5"),
    Comparison("07_lsh_banding", ("ch07_half_20x5", "ch07_steep_20x5", "ch07_approx_20x5"),
               "the half-way point comes first",
               "ch07_half_20x5 < ch07_steep_20x5 < ch07_approx_20x5"),
    Comparison("07b_lsh_in_general", ("ch07_and_p1", "ch07_or_p2"), "AND alone",
               "ch07_and_p1 < 0.5 and ch07_or_p2 > 0.99"),
    Comparison("07b_lsh_in_general", ("ch07_block_d4", "ch07_sampling_d3"), "soft everywhere",
               "ch07_block_d4 < 1 and ch07_sampling_d3 < 1"),
    Comparison("07b_lsh_in_general", ("ch07_amp_used",), "more than a 128-value signature holds",
               "ch07_amp_used > 128"),
    Comparison("08_choosing_b_r", ("ch08_n_bend_below",), "rows bend below their threshold",
               "ch08_n_bend_below == 2"),
    Comparison("08_choosing_b_r", ("ch08_kept_18x7", "ch08_kept_16x8"), "against",
               "ch08_kept_18x7 > ch08_kept_16x8"),
    Comparison("08_choosing_b_r", ("ch08_recall_gap",), "less than half a point of recall",
               "0 < ch08_recall_gap < 0.005"),
    Comparison("10_scaling", ("ch10_prefix_first", "ch10_lsh_first", "ch10_prefix_top", "ch10_lsh_top"),
               "further behind as $N$ grows",
               "ch10_lsh_first < ch10_prefix_first"
               " and ch10_prefix_first / ch10_lsh_first < ch10_prefix_top / ch10_lsh_top"),
    Comparison("10_scaling", ("ch10_true_top", "ch10_prefix_cands", "ch10_position_cands"),
               "Fewer than twice",
               "ch10_true_top <= ch10_position_cands < ch10_prefix_cands < 2 * ch10_true_top"),
    Comparison("10_scaling", ("ch10_per_article", "ch10_sign_per_article"), "projects to",
               "ch10_per_article >= ch10_sign_per_article"),
    Comparison("10_scaling", ("ch10_fit_per_shingle", "ch10_cost_per_shingle"),
               "the same order of magnitude",
               "0.1 < ch10_cost_per_shingle / ch10_fit_per_shingle < 10"),
    Comparison("10_scaling", ("ch10_near_pairs", "ch10_near_candidates", "ch10_near_checked"),
               "fewer than two per copy",
               "0.9 * ch10_near_pairs <= ch10_near_candidates and ch10_near_checked < 2 * 200"),
    Comparison("15_faster_signatures", ("ch15_t_ids_classic", "ch15_t_ids_oph"),
               "far from the factor of 128", "1 < ch15_t_ids_classic / ch15_t_ids_oph < 32"),
    Comparison("15_faster_signatures", ("ch15_t_fast", "ch15_t_word_shingles"), "which alone took",
               "ch15_t_fast < ch15_t_word_shingles"),
    Comparison("15b_bbit_minhash", ("ch15b_bbit_rmse_32", "ch15b_bbit_rmse_8", "ch15b_bbit_rmse_2",
                                    "ch15b_bbit_rmse_1"), "grows slowly at first and then faster",
               "ch15b_bbit_rmse_8 - ch15b_bbit_rmse_32 < ch15b_bbit_rmse_2 - ch15b_bbit_rmse_8"
               " < ch15b_bbit_rmse_1 - ch15b_bbit_rmse_2"),
    Comparison("15b_bbit_minhash", ("ch15b_equal16_bbit", "ch15b_equal16_fewk", "ch15b_equal64_bbit",
                                    "ch15b_equal64_fewk"), "many short values beat",
               "ch15b_equal16_bbit < ch15b_equal16_fewk and ch15b_equal64_bbit < ch15b_equal64_fewk"),
    Comparison("15b_bbit_minhash", ("ch15b_band_found_1", "ch15b_band_expected_1", "ch15b_band_found_2",
                                    "ch15b_band_expected_2"), "Measured and expected counts agree",
               "abs(ch15b_band_found_1 - ch15b_band_expected_1) < 3 * ch15b_band_expected_1 ** 0.5"
               " and abs(ch15b_band_found_2 - ch15b_band_expected_2) < 3 * ch15b_band_expected_2 ** 0.5"),
    Comparison("16_cross_check", ("ch16_ours_time", "ch16_bulk_time", "ch16_theirs_time"),
               "the order does not",
               "ch16_ours_time < ch16_bulk_time and ch16_ours_time < ch16_theirs_time"),
    Comparison("16_cross_check", ("ch16_sha1_time", "ch16_bulk_time"), "on its own, against",
               "ch16_sha1_time < ch16_bulk_time"),
    Comparison("16_cross_check", ("ch16_mae_gap", "ch16_seed_mae_min", "ch16_seed_mae_max"),
               "within the spread", "ch16_mae_gap <= ch16_seed_mae_max - ch16_seed_mae_min"),
    Comparison("16_cross_check", ("ch16_cand_ours", "ch16_cand_theirs", "ch16_seed_cand_min",
                                  "ch16_seed_cand_max"), "a range that holds both",
               "ch16_cand_theirs < ch16_cand_ours and ch16_seed_cand_min <= ch16_cand_theirs"
               " and ch16_cand_ours <= ch16_seed_cand_max"),
    Comparison("16_cross_check", ("ch16_only_one", "ch16_expected_one", "ch16_expected_sd"),
               "give or take", "abs(ch16_only_one - ch16_expected_one) < 3 * ch16_expected_sd"),
    Comparison("17_scaling_out", ("ch17_sign_here", "ch17_sign_per_doc"), "the same order",
               "1 / 3 < ch17_sign_here / ch17_sign_per_doc < 3"),
    Comparison("17_scaling_out", ("ch17_sign_here", "ch17_dask_sign"), "plus the scheduler's",
               "ch17_sign_here < ch17_dask_sign"),
    Comparison("17_scaling_out", ("ch17_band_per_rep", "ch17_signature_bytes", "ch17_band_values"),
               "more than the",
               "ch17_band_per_rep == 4 * ch17_band_values + 12 * 18 > ch17_signature_bytes"),
    Comparison("17_scaling_out", ("ch17_join_per_candidate", "ch17_estimate_per_candidate"),
               "The join is the largest item",
               "ch17_estimate_per_candidate < ch17_join_per_candidate"),
    Comparison("17_scaling_out", ("ch17_row_spread", "ch17_pair_spread_hot", "ch17_hot_pairs",
                                  "ch17_plain_pairs"), "Rows are even",
               "ch17_row_spread < 1.1 < ch17_pair_spread_hot and ch17_hot_pairs > ch17_plain_pairs"),
    Comparison("17_scaling_out", ("ch17_dedup_per_doc", "ch17_sign_per_doc"), "of that",
               "ch17_dedup_per_doc >= ch17_sign_per_doc"),
]

_UNITS = {"ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "hours": 3600.0,
          "days": 86400.0, "years": 365.25 * 86400}


def _value(text: str) -> object:
    """A stored glue value; a duration such as '12.3 µs' becomes seconds."""
    value = ast.literal_eval(text)
    if isinstance(value, str):
        match = re.fullmatch(r"([\d,.]+) (\S+)", value)
        if match and match[2] in _UNITS:
            return float(match[1].replace(",", "")) * _UNITS[match[2]]
    return value


def _chapter(name: str) -> list[dict]:
    return json.loads((ROOT / "book" / f"{name}.ipynb").read_text(encoding="utf-8"))["cells"]


def _source(cell: dict) -> str:
    return "".join(cell["source"])


def _asserted_names(source: str) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assert):
            names |= {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}
    return names


@pytest.mark.parametrize("comparison", COMPARISONS, ids=lambda c: f"{c.chapter}:{c.names[0]}")
def test_comparison_is_asserted_and_holds(comparison: Comparison) -> None:
    cells = _chapter(comparison.chapter)
    text = [_source(c) for c in cells if c["cell_type"] == "markdown"]
    near = [t for t in text if comparison.phrase in t]
    assert near, f"{comparison.chapter}: no sentence with {comparison.phrase!r} any more"
    for name in comparison.names:
        assert any(f"`{name}" in t for t in near), f"{comparison.chapter}: the sentence does not glue {name}"

    backed = [
        c for c in cells
        if c["cell_type"] == "code" and "remove-cell" in c.get("metadata", {}).get("tags", [])
        and all(f'glue("{n}"' in _source(c) for n in comparison.names)
        and set(comparison.names) <= _asserted_names(_source(c))
    ]
    assert backed, (
        f"{comparison.chapter}: no hidden cell glues {comparison.names} and asserts "
        f"{comparison.holds!r} (name the glued values in an assert beside the glue calls)"
    )

    stored = {}
    for cell in cells:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name in comparison.names:
                stored[name] = _value(output["data"]["application/papermill.record/text/plain"])
    assert set(stored) == set(comparison.names), f"{comparison.chapter}: not glued in the outputs"
    assert eval(comparison.holds, {"abs": abs}, stored), (  # noqa: S307 - our own fixed expressions
        f"{comparison.chapter}: the stored values {stored} no longer fit {comparison.holds!r}"
    )
