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
    Comparison("01_why_near_duplicates", ("ch01_case_caught", "ch01_case_copies", "ch01_edited_caught"),
               "every one of them",
               "ch01_case_caught == ch01_case_copies and ch01_edited_caught == 0"),
    Comparison("01_why_near_duplicates", ("ch01_pairs_1e7",), "about fifty trillion",
               "round(ch01_pairs_1e7 / 1e12) == 50"),
    Comparison("01_why_near_duplicates", ("ch01_step_ratio", "ch01_time_1e5", "ch01_time_1e6",
                                          "ch01_time_1e7"), "crosses one day",
               "99 < ch01_step_ratio < 101 and ch01_time_1e5 < 86400 < ch01_time_1e6"
               " < 365.25 * 86400 < ch01_time_1e7"),
    Comparison("01_why_near_duplicates", ("ch01_daily_share", "ch01_daily_time"),
               "far longer than the day it covers",
               "ch01_daily_share < 0.05 and ch01_daily_time > 10 * 86400"),
    Comparison("02_shingles_jaccard", ("ch02_monday_j",), "The numbers agree exactly",
               "ch02_monday_j == 0.625"),
    Comparison("02_shingles_jaccard", ("ch02_one_edit_300",), "three percentage points",
               "round(100 * (1 - ch02_one_edit_300)) == 3"),
    Comparison("02_shingles_jaccard", ("ch02_upper_share", "ch02_raw_case_j"), "were upper-cased",
               "ch02_upper_share < 0.2 and ch02_raw_case_j < 0.5"),
    Comparison("02_shingles_jaccard", ("ch02_e1_k1", "ch02_e1_k8", "ch02_e10_k1", "ch02_e10_k8"),
               "fall much faster", "ch02_e10_k1 - ch02_e10_k8 > 3 * (ch02_e1_k1 - ch02_e1_k8)"),
    Comparison("02_shingles_jaccard", ("ch02_word5_unrel", "ch02_e1_k5", "ch02_e10_k5"),
               "about three\nquarters",
               "ch02_word5_unrel == 0 and ch02_e1_k5 == 0.967 and 0.7 < ch02_e10_k5 < 0.8"),
    Comparison("02_shingles_jaccard", ("ch02_unrel_k1_v1000", "ch02_unrel_k1_v20000", "ch02_unrel_k5_vmax"),
               "close to the reference's 0.239",
               "abs(ch02_unrel_k1_v1000 - 0.239) < 0.02 and ch02_unrel_k1_v20000 < ch02_unrel_k1_v1000 / 1.5"
               " and ch02_unrel_k5_vmax < 0.001"),
    Comparison("02_shingles_jaccard", ("ch02_salad_k1", "ch02_salad_k2", "ch02_salad_k3"),
               "a shuffled article", "ch02_salad_k1 == 1 and ch02_salad_k3 < 0.01 < ch02_salad_k2 < 0.1"),
    Comparison("02_shingles_jaccard", ("ch02_art0_j", "ch02_art0_worst"), "exactly the worst case",
               "ch02_art0_j == ch02_art0_worst"),
    Comparison("02_shingles_jaccard", ("ch02_mean_broken",), "slightly above the worst case",
               "ch02_mean_broken < 50"),
    Comparison("02_shingles_jaccard", ("ch02_same_positions", "ch02_j_words", "ch02_predicted"),
               "close to the measured", "ch02_same_positions > ch02_j_words > 0.9 > 0.8 > ch02_predicted"),
    Comparison("02_shingles_jaccard", ("ch02_e10_k5",), "our measured mean",
               "round(ch02_e10_k5, 2) == 0.73"),
    Comparison("02_shingles_jaccard", ("ch02_unrel_k4_6", "ch02_e1_k4_6"), "line is at zero",
               "ch02_unrel_k4_6 < 0.001 and ch02_e1_k4_6 > 0.95"),
    Comparison("02_shingles_jaccard", ("ch02_head_edit_char", "ch02_head_other_char"),
               "clearly above the different story", "ch02_head_edit_char > ch02_head_other_char + 0.2"),
    Comparison("02_shingles_jaccard", ("ch02_ja_char", "ch02_zh_char", "ch02_cjk_unrel"), "against almost",
               "min(ch02_ja_char, ch02_zh_char) > 0.5 and ch02_cjk_unrel < 0.05"),
    Comparison("02_shingles_jaccard", ("ch02_unrel_char5",), "where word 5-shingles gave",
               "ch02_unrel_char5 > 0.05"),
    Comparison("02_shingles_jaccard", ("ch02_gap_min", "ch02_gap_max"), "the gap between them stays",
               "ch02_gap_max - ch02_gap_min < 0.1"),
    Comparison("03_ground_truth", ("ch03_kind_min", "ch03_kind_max"), "about equally many",
               "ch03_kind_max < 1.15 * ch03_kind_min"),
    Comparison("03_ground_truth", ("ch03_sibling_below", "ch03_copy_below"), "Siblings fall below",
               "ch03_sibling_below > ch03_copy_below"),
    Comparison("03_ground_truth", ("ch03_kinds_above", "ch03_heavy_max", "ch03_drop_min", "ch03_small_min"),
               "only one panel is orange",
               "ch03_kinds_above == 6 and ch03_heavy_max < 0.8 <= ch03_drop_min < 0.82"
               " and ch03_small_min > 0.9"),
    Comparison("03_ground_truth", ("ch03_sample_pairs", "ch03_touched_k5"), "share anything",
               "ch03_touched_k5 < ch03_sample_pairs / 20"),
    Comparison("03_ground_truth", ("ch03_family_larger", "ch03_family_smaller"),
               "middle one", "ch03_family_larger == ch03_family_smaller"),
    Comparison("03_ground_truth", ("ch03_unrelated_max",), "comes near the threshold",
               "ch03_unrelated_max < 0.4"),
    Comparison("03_ground_truth", ("ch03_memory_1e7",), "more than\nthe memory of one machine",
               "ch03_memory_1e7 > 100"),
    Comparison("03_ground_truth", ("ch03_middle_pairs", "ch03_middle_heavy"), "mostly by admitting",
               "ch03_middle_heavy > ch03_middle_pairs / 2"),
    Comparison("04_minhash", ("ch04_demo_estimate", "ch04_demo_exact", "ch04_demo_sigma"),
               "lands near the exact value",
               "0 < abs(ch04_demo_estimate - ch04_demo_exact) < 2 * ch04_demo_sigma"),
    Comparison("04_minhash", ("ch04_monday_estimate", "ch04_monday_sigma"), "within one standard deviation",
               "abs(ch04_monday_estimate - 0.625) < ch04_monday_sigma"
               " and abs(0.609 - 0.625) < ch04_monday_sigma"),
    Comparison("04_minhash", ("ch04_tiny_sigma", "ch04_tiny_estimate", "ch04_tiny_ref_z"),
               "about a hundredth",
               "0.009 < ch04_tiny_sigma < 0.012 and ch04_tiny_ref_z < 2"
               " and abs(ch04_tiny_estimate - 1 / 3) < 2 * ch04_tiny_sigma"),
    Comparison("04_minhash", ("ch04_numpy_speedup",), "than the loop",
               "ch04_numpy_speedup.endswith('x faster')"),
    Comparison("04_minhash", ("ch04_inside_band", "ch04_unrelated_max"), "close to the 95 %",
               "abs(ch04_inside_band - 0.95) < 0.03 and ch04_unrelated_max < 0.05"),
    Comparison("04_minhash", ("ch04_ratio_16_64", "ch04_off_line"), "sit on the line",
               "1.8 < ch04_ratio_16_64 < 2.3 and ch04_off_line < 0.06"),
    Comparison("04_minhash", ("ch04_mean128",), "is close to\nthe truth", "abs(ch04_mean128 - 0.462) < 0.01"),
    Comparison("04_minhash", ("ch04_std128", "ch04_formula128", "ch04_std_rel"), "is within that of",
               "ch04_std_rel < 0.04 and abs(ch04_std128 - ch04_formula128) < 0.0015"),
    Comparison("04_minhash", ("ch04_std128", "ch04_formula128"), "just above its upper end",
               "0.04 < ch04_std128 < 0.045 and 0.04 < ch04_formula128 < 0.045"),
    Comparison("04_minhash", ("ch04_rms_dev", "ch04_rms_gap"), "about the same at 0.2 and 0.8",
               "ch04_rms_dev < 0.01 and ch04_rms_gap < 0.01"),
    Comparison("04_minhash", ("ch04_fourfold_min", "ch04_fourfold_max"), "halves with every fourfold",
               "1.6 < ch04_fourfold_min <= ch04_fourfold_max < 2.4"),
    Comparison("05_hash_families", ("ch05_win1_sa", "ch05_win1_ratio", "ch05_next4_sa", "ch05_sound_win5"),
               "follow the fair line",
               "ch05_sound_win5 < 1.5 * 5 / 296 and ch05_win1_ratio > 10"
               " and ch05_next4_sa < ch05_win1_sa / 10"),
    Comparison("05_hash_families", ("ch05_sound_off", "ch05_sa_off", "ch05_se"), "four boxes straddle",
               "ch05_sound_off < 3 * ch05_se < 5 * ch05_se < ch05_sa_off"),
    Comparison("05_hash_families", ("ch05_sound_std_min", "ch05_sound_std_max"), "close to the\n$\\sqrt",
               "0.044 - 0.005 < ch05_sound_std_min <= ch05_sound_std_max < 0.044 + 0.005"),
    Comparison("05_hash_families", ("ch05_win5_sa",), "strongly than ours", "ch05_win5_sa < 0.2"),
    Comparison("05_hash_families", ("ch05_mean_ms", "ch05_mean_mp"), "within the noise of 300 seeds",
               "max(abs(ch05_mean_ms - 0.463), abs(ch05_mean_mp - 0.463)) < 3 * 0.0027"),
    Comparison("05_hash_families", ("ch05_fav_shared",), "it is not the very", "ch05_fav_shared <= 1"),
    Comparison("05_hash_families", ("ch05_noise_only", "ch05_sound_spread_gap", "ch05_rmse_ratio"),
               "pure noise give", "ch05_sound_spread_gap < 0.3 * ch05_noise_only and ch05_rmse_ratio > 2"),
    Comparison("05_hash_families", ("ch05_sound_rmse_gap",), "0.044 of the formula (within",
               "ch05_sound_rmse_gap < 0.005"),
    Comparison("05_hash_families", ("ch05_red_above", "ch05_purple_below", "ch05_bias_shared",
                                    "ch05_bias_not_shared"),
               "tight bands around zero",
               "ch05_red_above > 0.5 and ch05_purple_below > 0.5"
               " and ch05_bias_shared > 0 > ch05_bias_not_shared"),
    Comparison("05_hash_families", ("ch05_sd_ratio", "ch05_push_change", "ch05_push_top128",
                                    "ch05_push_top1024", "ch05_push_ms_max"),
               "times smaller",
               "2.5 < ch05_sd_ratio < 3 and ch05_push_change < 0.03"
               " and ch05_push_ms_max < 0.05 < min(abs(ch05_push_top128), abs(ch05_push_top1024))"),
    Comparison("05_hash_families", ("ch05_ms_merged", "ch05_ms_predicted"),
               "as the birthday count",
               "abs(ch05_ms_merged - ch05_ms_predicted) < 4 * ch05_ms_predicted ** 0.5"),
    Comparison("05_hash_families", ("ch05_raw_mean", "ch05_hashed_mean", "ch05_raw_z"),
               "standard errors too low",
               "ch05_raw_z > 5 and abs(ch05_hashed_mean - 1 / 3) < 0.01 < abs(ch05_raw_mean - 1 / 3)"),
    Comparison("05_hash_families", ("ch05_ms_speedup",), "than the quicker of the other two",
               "ch05_ms_speedup.endswith('x faster')"),
    Comparison("06_hash_seed_trap", ("ch06_builtin_agree", "ch06_stable_agree"),
               "match the reference exactly",
               "ch06_builtin_agree == 0 and ch06_stable_agree == 8"),
    Comparison("06_hash_seed_trap", ("ch06_p_any",), "the only outcome to expect", "ch06_p_any < 1e-6"),
    Comparison("06_hash_seed_trap", ("ch06_exact_dev", "ch06_sim_z", "ch06_above_naive"),
               "lie on the formula's line",
               "ch06_exact_dev < 0.02 and ch06_sim_z < 3 and ch06_above_naive > 10"),
    Comparison("06_hash_seed_trap", ("ch06_n_errors", "ch06_n_mismatches"), "mismatches raise",
               "ch06_n_errors == 2 and ch06_n_mismatches == 6"),
    Comparison("06_hash_seed_trap", ("ch06_true_j", "ch06_same_estimate", "ch06_seed_estimate",
                                     "ch06_schemes64_estimate", "ch06_k_estimate", "ch06_raw_estimate"),
               "This is the most dangerous row",
               "max(ch06_seed_estimate, ch06_schemes64_estimate, ch06_k_estimate) < 0.05"
               " and 0.2 < ch06_raw_estimate < ch06_true_j - 0.2"
               " and abs(ch06_same_estimate - ch06_true_j) < 0.05"),
    Comparison("07_lsh_banding", ("ch07_half_20x5", "ch07_steep_20x5", "ch07_approx_20x5"),
               "the half-way point comes first",
               "ch07_half_20x5 < ch07_steep_20x5 < ch07_approx_20x5"),
    Comparison("07_lsh_banding", ("ch07_bend_height_min", "ch07_bend_height_max"),
               "about two thirds of the way up",
               "0.6 < ch07_bend_height_min <= ch07_bend_height_max < 0.7"),
    Comparison("07_lsh_banding",
               ("ch07_bend_default", "ch07_bend_16x8", "ch07_bend_9x13", "ch07_p9x13_08"),
               "bends lower still",
               "ch07_bend_default < ch07_bend_16x8 < 0.8 < ch07_bend_9x13 and ch07_p9x13_08 < 0.5"),
    Comparison("07_lsh_banding", ("ch07_ds_measured", "ch07_ds_formula", "ch07_ds_half_width"),
               "inside the binomial noise",
               "abs(ch07_ds_measured - ch07_ds_formula) <= ch07_ds_half_width"),
    Comparison("07_lsh_banding", ("ch07_index_gap",), "about as often as the formula predicts",
               "ch07_index_gap < 0.05"),
    Comparison("07_lsh_banding", ("ch07_light_found",), "(almost) every time", "ch07_light_found >= 0.99"),
    Comparison("07b_lsh_in_general", ("ch07_and_p1", "ch07_or_p2"), "AND alone",
               "ch07_and_p1 < 0.5 and ch07_or_p2 > 0.99"),
    Comparison("07b_lsh_in_general",
               ("ch07_half_and", "ch07_half_or", "ch07_half_and_or", "ch07_half_or_and"),
               "so it tells 0.8 from 0.5",
               "ch07_half_or < ch07_half_or_and < 0.5 < ch07_half_and_or < 0.8 < ch07_half_and"),
    Comparison("07b_lsh_in_general", ("ch07_block_d4", "ch07_sampling_d3"), "soft everywhere",
               "ch07_block_d4 < 1 and ch07_sampling_d3 < 1"),
    Comparison("07b_lsh_in_general", ("ch07_amp_used",), "more than a 128-value signature holds",
               "ch07_amp_used > 128"),
    Comparison("08_choosing_b_r", ("ch08_fp_9x13", "ch08_fn_9x13"), "the false-positive area is only",
               "ch08_fp_9x13 < ch08_fn_9x13"),
    Comparison("08_choosing_b_r", ("ch08_p07_14x9",), "less than half", "ch08_p07_14x9 < 0.5"),
    Comparison("08_choosing_b_r", ("ch08_n_bend_below",), "rows bend below their threshold",
               "ch08_n_bend_below == 2"),
    Comparison("08_choosing_b_r", ("ch08_soft_first", "ch08_soft_first_pred"), "the formula predicted",
               "abs(ch08_soft_first - 0.566) < 0.03 and abs(ch08_soft_first - ch08_soft_first_pred) < 0.03"),
    Comparison("08_choosing_b_r", ("ch08_soft_recall",), "yet the numbers agree",
               "abs(ch08_soft_recall - 0.795) < 0.03"),
    Comparison("08_choosing_b_r", ("ch08_w07_p08", "ch08_w09_first"), "Only at weights (0.1, 0.9)",
               "0.625 <= ch08_w07_p08 < 0.635 and ch08_w09_first > 0.95"),
    Comparison("08_choosing_b_r", ("ch08_rise_to_95", "ch08_rise_past_95"), "hardly at all past 0.95",
               "ch08_rise_past_95 < ch08_rise_to_95 / 5"),
    Comparison("08_choosing_b_r", ("ch08_pred_16x8", "ch08_pred_18x7", "ch08_pred_21x6", "ch08_more_18x7",
                                   "ch08_more_21x6"), "less recall per extra candidate",
               "(ch08_pred_21x6 - ch08_pred_18x7) / (ch08_more_21x6 * (1 + ch08_more_18x7))"
               " < (ch08_pred_18x7 - ch08_pred_16x8) / ch08_more_18x7"),
    Comparison("08_choosing_b_r", ("ch08_bucket_diff",), "within the noise", "ch08_bucket_diff < 8"),
    Comparison("08_choosing_b_r", ("ch08_kept_18x7", "ch08_kept_16x8"), "against",
               "ch08_kept_18x7 > ch08_kept_16x8"),
    Comparison("08_choosing_b_r", ("ch08_verify06", "ch08_all_pairs_time"), "would take about",
               "ch08_verify06 < ch08_all_pairs_time"),
    Comparison("08_choosing_b_r", ("ch08_fig_9x13", "ch08_fig_18x7"), "returns only",
               "ch08_fig_9x13 < 0.6 and ch08_fig_18x7 > 0.95"),
    Comparison("08_choosing_b_r", ("ch08_label_t", "ch08_label_r08"), "well left of 0.8",
               "ch08_label_t < 0.7 and ch08_label_r08 < 0.5"),
    Comparison("08_choosing_b_r", ("ch08_recall_gap",), "less than half a point of recall",
               "0 < ch08_recall_gap < 0.005"),
    Comparison("09_pipeline", ("ch09_cluster_recall", "ch09_cluster_precision"), "Precision *falls*",
               "ch09_cluster_precision < 1"),
    Comparison("09_pipeline", ("ch09_copies_per_original",), "more copies on average",
               "ch09_copies_per_original > 0.85"),
    Comparison("09_pipeline", ("ch09_kept", "ch09_kept_truth"), "documents kept",
               "0 <= ch09_kept - ch09_kept_truth <= 10"),
    Comparison("09_pipeline", ("ch09_chain_bound", "ch09_chain_ac", "ch09_bound_zero", "ch09_drift_at_zero"),
               "The guarantee fades fast",
               "ch09_chain_ac >= ch09_chain_bound and ch09_bound_zero > 1 and ch09_drift_at_zero > 0.1"),
    Comparison("09_pipeline", ("ch09_est_below", "ch09_est_below_min"), "within about two standard errors",
               "ch09_est_below > 0 and ch09_est_below_min > 0.7 - 2 * (0.21 / 128) ** 0.5"),
    Comparison("09b_in_production", ("ch09b_longest_original", "ch09b_first_original"),
               "is worse for a news card", "ch09b_longest_original < ch09b_first_original"),
    Comparison("09b_in_production", ("ch09b_copies_removed",), "removes the same share",
               "abs(ch09b_copies_removed / 6000 - 6667 / 120000) < 0.005"),
    Comparison("09b_in_production", ("ch09b_heavy_max",), "reaches only", "ch09b_heavy_max < 0.8"),
    Comparison("09b_in_production", ("ch09b_ratio_low", "ch09b_ratio_high"), "times a twentieth",
               "1 / 1.5 < ch09b_ratio_low <= ch09b_ratio_high < 1.5"),
    Comparison("09b_in_production", ("ch09b_gap_08",), "still climbing", "ch09b_gap_08 > 0.5"),
    Comparison("09b_in_production", ("ch09b_near_pairs",), "Many pairs sit just above 0.8",
               "ch09b_near_pairs > 50"),
    Comparison("09b_in_production", ("ch09b_steep_recall", "ch09b_prediction_gap"), "of\nthe prediction",
               "ch09b_steep_recall < 1 and ch09b_prediction_gap < 0.02"),
    Comparison("09c_inside_the_engine", ("ch09c_ref_pairs", "ch09c_fast_pairs"), "because it skips",
               "ch09c_fast_pairs < ch09c_ref_pairs"),
    Comparison("09c_inside_the_engine", ("ch09c_sign_ops", "ch09c_band_keys", "ch09c_checked"),
               "Signing does the most work", "ch09c_sign_ops > ch09c_band_keys > ch09c_checked"),
    Comparison("10_scaling", ("ch10_prefix_first", "ch10_lsh_first", "ch10_prefix_top", "ch10_lsh_top"),
               "further behind as $N$ grows",
               "ch10_prefix_first / ch10_lsh_first < ch10_prefix_top / ch10_lsh_top"
               " and ch10_prefix_top > 2 * ch10_lsh_top"),
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
               "ch10_near_candidates == ch10_near_pairs and ch10_near_checked < 2 * 200"),
    Comparison("10_scaling", ("ch10_sig_bytes", "ch10_archive_sig_gb"), "as the reference's 5.12 GB",
               "ch10_sig_bytes == 512 and ch10_archive_sig_gb == 5.12"),
    Comparison("10_scaling", ("ch10_early_checks", "ch10_early_copies"), "about one verification",
               "ch10_early_checks <= 1.1 * ch10_early_copies"),
    Comparison("10_scaling", ("ch10_bbit_bytes", "ch10_modprime_bytes"), "eight times smaller",
               "ch10_modprime_bytes == 8 * ch10_bbit_bytes"),
    Comparison("11_pitfalls", ("ch11_p1_raw", "ch11_p1_norm"), "The numbers agree exactly",
               "(ch11_p1_raw, ch11_p1_norm) == (0.0, 1.0)"),
    Comparison("11_pitfalls", ("ch11_p1_html_norm", "ch11_p1_shy_norm"), "cannot repair the last three",
               "max(ch11_p1_html_norm, ch11_p1_shy_norm) < 1"),
    Comparison("11_pitfalls", ("ch11_p2_shuf_k1", "ch11_p2_shuf_k2", "ch11_p2_shuf_k3"),
               "shuffling destroys almost every shingle",
               "ch11_p2_shuf_k1 == 1 and ch11_p2_shuf_k3 < ch11_p2_shuf_k2 < 0.1"),
    Comparison("11_pitfalls", ("ch11_p2_edit_k1", "ch11_p2_edit_k8"), "falls steadily with",
               "0.961 > ch11_p2_edit_k1 > ch11_p2_edit_k8"),
    Comparison("11_pitfalls", ("ch11_p2_ref_gap",), "closely but not exactly", "ch11_p2_ref_gap < 0.05"),
    Comparison("11_pitfalls", ("ch11_p5_mid_char5", "ch11_p5_unrel_char5"), "give a graded",
               "ch11_p5_unrel_char5 < 0.1 < 0.4 < ch11_p5_mid_char5"),
    Comparison("11_pitfalls", ("ch11_p5_edit_above08", "ch11_p5_edit_above03", "ch11_p5_unrel_above03"),
               "A threshold of 0.3 keeps",
               "ch11_p5_edit_above08 < 0.05 and ch11_p5_edit_above03 > 0.95 and ch11_p5_unrel_above03 == 0"),
    Comparison("11_pitfalls", ("ch11_p5_mh_sd", "ch11_p5_mh_theory"), "matches the formula",
               "abs(ch11_p5_mh_sd - ch11_p5_mh_theory) < 0.1 * ch11_p5_mh_theory"),
    Comparison("11_pitfalls", ("ch11_p4_proposed_x", "ch11_p4_checked_small", "ch11_p4_checked_large"),
               "near enough",
               "50 < ch11_p4_proposed_x <= 100 and ch11_p4_checked_large < ch11_p4_checked_small"),
    Comparison("11_pitfalls", ("ch11_p4_recall", "ch11_p4_checks_x"), "Neither run removes a document",
               "ch11_p4_recall >= 0.99 and ch11_p4_checks_x > 1"),
    Comparison("11_pitfalls", ("ch11_p4_page_j", "ch11_p4_tpl_small", "ch11_p4_tpl_large"),
               "yet stay below the threshold",
               "ch11_p4_page_j < 0.8 and ch11_p4_tpl_small < ch11_p4_tpl_large"),
    Comparison("11_pitfalls", ("ch11_p4_tpl_checked", "ch11_p4_tpl_large"), "a fraction of the proposals",
               "ch11_p4_tpl_checked < ch11_p4_tpl_large / 5"),
    Comparison("11_pitfalls", ("ch11_p4_tpl_filtered", "ch11_p4_story_filtered"), "never for a",
               "ch11_p4_tpl_filtered == 0 and ch11_p4_story_filtered > 1"),
    Comparison("11_pitfalls", ("ch11_ex_sent_k1", "ch11_ex_sent_k5", "ch11_ex_salad_k5"),
               "far\nabove the word salad",
               "ch11_ex_sent_k1 == 1 and ch11_ex_sent_k5 > 0.5 > ch11_ex_salad_k5 + 0.4"),
    Comparison("11_pitfalls", ("ch11_ex_best3", "ch11_ex_best5", "ch11_ex_tail3", "ch11_ex_tail5",
                               "ch11_ex_let_in3"), "where the unrelated tail ends",
               "ch11_ex_tail5 < ch11_ex_best5 <= ch11_ex_tail5 + 0.05"
               " and ch11_ex_best3 <= ch11_ex_tail3 and ch11_ex_let_in3 == 1"
               " and max(ch11_ex_best3, ch11_ex_best5) <= 0.5 and ch11_ex_best3 != ch11_ex_best5"),
    Comparison("11b_boilerplate_excerpts", ("ch11_p3_gap_low", "ch11_p3_gap_high"),
               "Nothing lies in the wide gap",
               "ch11_p3_gap_high == 20 and ch11_p3_gap_low <= 4"),
    Comparison("11b_boilerplate_excerpts", ("ch11_p3_mean_before", "ch11_p3_mean_after", "ch11_p3_removed"),
               "within a thousandth of the reference",
               "abs(ch11_p3_mean_before - 0.732) <= 0.001 and ch11_p3_mean_after <= 0.001"),
    Comparison("11b_boilerplate_excerpts", ("ch11_sweep_none_flagged", "ch11_sweep_none_precision",
                                            "ch11_sweep_same_site"), "pairs of pages that share a site",
               "ch11_sweep_none_flagged == ch11_sweep_same_site and ch11_sweep_none_precision < 0.01"),
    Comparison("11b_boilerplate_excerpts", ("ch11_sweep_05_flagged", "ch11_sweep_none_flagged"),
               "does nothing useful", "ch11_sweep_05_flagged == ch11_sweep_none_flagged"),
    Comparison("11b_boilerplate_excerpts", ("ch11_sweep_none_recall", "ch11_sweep_01_precision",
                                            "ch11_sweep_01_recall"), "recall rises to",
               "ch11_sweep_none_recall < 0.5 and ch11_sweep_01_precision == 1"
               " and ch11_sweep_01_recall > ch11_sweep_none_recall"),
    Comparison("11b_boilerplate_excerpts", ("ch11_sweep_2_recall", "ch11_sweep_01_recall"), "recall falls to",
               "ch11_sweep_2_recall < ch11_sweep_01_recall"),
    Comparison("11b_boilerplate_excerpts",
               ("ch11_sweep_1_recall", "ch11_sweep_1_flagged", "ch11_sweep_1_empty"),
               "no true pair can be found any more",
               "ch11_sweep_1_recall == 0"
               " and ch11_sweep_1_flagged == ch11_sweep_1_empty * (ch11_sweep_1_empty - 1) // 2"),
    Comparison("11b_boilerplate_excerpts",
               ("ch11_seam_high_missed", "ch11_seam_low_found", "ch11_seam_low_pairs"),
               "are, the rest pushed",
               "ch11_seam_high_missed == 0 and ch11_seam_low_found < ch11_seam_low_pairs / 2"),
    Comparison("11b_boilerplate_excerpts",
               ("ch11_p4_excerpt_shingles", "ch11_p4_jaccard", "ch11_p4_chunks", "ch11_p4_best"),
               "in the direction you would expect",
               "141 < ch11_p4_excerpt_shingles < 160 and ch11_p4_jaccard > 0.069"
               " and ch11_p4_chunks > 38 and ch11_p4_best > 0.712"),
    Comparison("11b_boilerplate_excerpts", ("ch11_p4_chunks_above",),
               "only the chunk that holds the excerpt", "ch11_p4_chunks_above == 1"),
    Comparison("11b_boilerplate_excerpts", ("ch11_p4_best_step100", "ch11_p4_best_step50"),
               "With a step of 100", "ch11_p4_best_step100 < ch11_p4_best_step50"),
    Comparison("11b_boilerplate_excerpts",
               ("ch11_ex_recall_in", "ch11_ex_recall_edge", "ch11_ex_recall_below",
                "ch11_ex_precision_above"),
               "keeps every story",
               "ch11_ex_recall_in == ch11_ex_recall_edge > ch11_ex_recall_below"
               " and ch11_ex_precision_above < 0.1"),
    Comparison("11b_boilerplate_excerpts", ("ch11_ex_worst_largest", "ch11_ex_worst_margin"), "by a hair",
               "0.69 < ch11_ex_worst_largest < 0.7 <= ch11_ex_worst_margin"),
    Comparison("12_simhash", ("ch12_fp_theirs", "ch12_their_edit", "ch12_their_unrelated"),
               "With the same hash the bits agree exactly",
               "(ch12_fp_theirs, ch12_their_edit, ch12_their_unrelated) == ('0ddcdfbea0832796', 11, 33)"),
    Comparison("12_simhash", ("ch12_short_edit", "ch12_short_unrelated"), "an unrelated text lands far",
               "ch12_short_edit < ch12_short_unrelated"),
    Comparison("12_simhash", ("ch12_angle_max_z",), "Every measured share lies within",
               "ch12_angle_max_z < 3"),
    Comparison("12_simhash", ("ch12_pred10", "ch12_meas10"), "The means sit on the diagonal",
               "abs(ch12_meas10 - ch12_pred10) < 0.05 * ch12_pred10"),
    Comparison("12_simhash", ("ch12_e10_mean", "ch12_long10_mean", "ch12_len_ratio"), "times as far",
               "ch12_long10_mean < ch12_e10_mean and ch12_len_ratio > 2"),
    Comparison("12_simhash", ("ch12_unrel_mean", "ch12_unrel_within"), "Unrelated articles are about 32 bits",
               "abs(ch12_unrel_mean - 32) < 1 and ch12_unrel_within == 0"),
    Comparison("12_simhash", ("ch12_e1_binom", "ch12_e1_within", "ch12_long10_binom", "ch12_long10_within"),
               "The binomial model predicts the shares",
               "abs(ch12_e1_binom - ch12_e1_within) < 0.05 "
               "and abs(ch12_long10_binom - ch12_long10_within) < 0.05"),
    Comparison("12_simhash", ("ch12_unrel_cos", "ch12_ref_unrel_cos", "ch12_long_ref_ratio"),
               "the long articles differ most",
               "ch12_unrel_cos < 0.05 < ch12_ref_unrel_cos and ch12_long_ref_ratio > 1"),
    Comparison("12_simhash", ("ch12_curve_off", "ch12_edits3_300", "ch12_edits3_2000"),
               "The measured means follow the curves",
               "ch12_curve_off < 15 and ch12_edits3_300 < ch12_edits3_2000"),
    Comparison("12_simhash", ("ch12_j10_min", "ch12_tol90"), "would need a tolerance",
               "ch12_j10_min > 0.8 and ch12_tol90 > 3"),
    Comparison("12_simhash", ("ch12_feat_words_unrel", "ch12_feat_words_pred"),
               "The measurement is lower still",
               "ch12_feat_words_unrel < ch12_feat_words_pred"),
    Comparison("12_simhash", ("ch12_feat_nostop_e10", "ch12_feat_sh3_e10", "ch12_feat_sh5_e10"), "and only",
               "ch12_feat_nostop_e10 < ch12_feat_sh3_e10 < ch12_feat_sh5_e10"),
    Comparison("12_simhash", ("ch12_the_per_article", "ch12_median_count"), "times on average and most other",
               "ch12_the_per_article >= 10 and ch12_median_count <= 2"),
    Comparison("12_simhash", ("ch12_x32_within2", "ch12_x32_within3_64"), "more than the",
               "ch12_x32_within2 > ch12_x32_within3_64"),
    Comparison("12_simhash", ("ch12_w10_unrel", "ch12_w10_edit", "ch12_w0_edit", "ch12_w20_unrel",
                              "ch12_w20_formula"), "falls well below the formula",
               "abs(ch12_w10_unrel - 26.8) < 1 and ch12_w10_edit < ch12_w0_edit "
               "and ch12_w20_unrel < ch12_w20_formula - 3"),
    Comparison("12_simhash", ("ch12_x30_predicted", "ch12_x30_measured", "ch12_x30_noise", "ch12_x30_pred",
                              "ch12_x5_pred", "ch12_x30_share", "ch12_x5_share"), "behave alike",
               "abs(ch12_x30_measured - ch12_x30_predicted) < ch12_x30_noise"
               " and abs(ch12_x30_share / ch12_x5_share - 1) < 0.2"
               " and abs(ch12_x30_pred - ch12_x5_pred) < 0.5"),
    Comparison("13_hamming_search", ("ch13_nearest_random", "ch13_expected_close"), "practically never",
               "ch13_nearest_random > 3 and ch13_expected_close < 1e-6"),
    Comparison("13_hamming_search", ("ch13_block_min", "ch13_block_max", "ch13_heavy_found"),
               "stay within 3 bits only",
               "ch13_heavy_found == 0 < ch13_block_min <= ch13_block_max"),
    Comparison("13_hamming_search", ("ch13_run_length",), "and this one is short",
               "ch13_run_length < 16"),
    Comparison("13_hamming_search", ("ch13_cand_4", "ch13_pred_4", "ch13_cand_20", "ch13_pred_20"),
               "The counts agree, and they agree with the prediction",
               "abs(ch13_cand_4 - 64.9) < 1 and abs(ch13_cand_4 - ch13_pred_4) < 1"
               " and abs(ch13_cand_20 - 0.9) < 0.05 and abs(ch13_cand_20 - ch13_pred_20) < 0.05"),
    Comparison("13_hamming_search", ("ch13_random_20", "ch13_seen4_20", "ch13_recall_4", "ch13_four_bits_4"),
               "just under 1 and not near 0",
               "ch13_random_20 < 0.01 and 0.5 < ch13_seen4_20 < 1"
               " and ch13_recall_4 == 1 and ch13_four_bits_4 == 0"),
    Comparison("13_hamming_search", ("ch13_checked_4", "ch13_checked_20", "ch13_cand_4", "ch13_cand_20"),
               "gives a larger number",
               "ch13_checked_4 > ch13_cand_4 and ch13_checked_20 > ch13_cand_20"),
    Comparison("13_hamming_search", ("ch13_checked_ratio",), "times fewer fingerprints",
               "ch13_checked_ratio > 10"),
    Comparison("13_hamming_search", ("ch13_batched_4", "ch13_time_4", "ch13_batched_20", "ch13_time_20"),
               "removes much of that overhead",
               "ch13_batched_4 < ch13_time_4 and ch13_batched_20 < ch13_time_20"),
    Comparison("13_hamming_search", ("ch13_lonely_4", "ch13_lonely_pred_4", "ch13_lonely_count_20",
                                     "ch13_lonely_pred_count_20"), "sit on the line",
               "abs(ch13_lonely_4 - ch13_lonely_pred_4) < 4 * (ch13_lonely_pred_4 / 1000) ** 0.5"
               " and abs(ch13_lonely_count_20 - ch13_lonely_pred_count_20)"
               " < 4 * ch13_lonely_pred_count_20 ** 0.5"),
    Comparison("13_hamming_search", ("ch13_ex4_max_z",), "within the noise of 1,000 queries",
               "ch13_ex4_max_z < 3"),
    Comparison("14_containment", ("ch14_story_shingles", "ch14_page_shingles", "ch14_story_j", "ch14_story_c",
                                  "ch14_page_in_story"), "agree to the digit",
               "(ch14_story_shingles, ch14_page_shingles) == (116, 1016) and ch14_story_j == 0.114"
               " and ch14_story_c == 1 and ch14_page_in_story == ch14_story_j"),
    Comparison("14_containment", ("ch14_long_j", "ch14_part_j", "ch14_unrelated_max"),
               "nearly the same number",
               "abs(ch14_long_j - ch14_part_j) < 0.002 and ch14_unrelated_max < ch14_long_j / 2"),
    Comparison("14_containment", ("ch14_sdj_2", "ch14_sdj_10", "ch14_sdc_2", "ch14_sdc_20", "ch14_miss_5",
                                  "ch14_miss_10", "ch14_miss_20"), "does not grow with the page",
               "ch14_sdj_10 < ch14_sdj_2 and ch14_sdc_2 < ch14_sdc_20"
               " and 0 < ch14_miss_5 < ch14_miss_10 < ch14_miss_20"),
    Comparison("14_containment", ("ch14_truth_max_j", "ch14_truth_median_ratio"), "would find none",
               "ch14_truth_max_j < 0.8 and ch14_truth_median_ratio >= 5"),
    Comparison("14_containment", ("ch14_ens_default_precision", "ch14_ens_default_recall"),
               "Every pair the index returns is right",
               "ch14_ens_default_precision == 1 and ch14_ens_default_recall < 0.2"),
    Comparison("14_containment", ("ch14_p_xq2", "ch14_p_xq5", "ch14_p_xq16"), "the probability drops to",
               "ch14_p_xq2 > 0.9 > 0.5 > ch14_p_xq5 > ch14_p_xq16"),
    Comparison("14_containment", ("ch14_ens28_recall", "ch14_ens28_precision", "ch14_ens28_verified",
                                  "ch14_ens28_estimated"), "removes the wrong ones and keeps recall at",
               "ch14_ens28_precision < 1 and ch14_ens28_verified == ch14_ens28_recall"
               " and ch14_ens28_estimated < 0.8 * ch14_ens28_verified"),
    Comparison("14_containment", ("ch14_below1_10", "ch14_below08_10"), "about half of the estimates",
               "0.35 < ch14_below1_10 < 0.65 and ch14_below08_10 > 0.2"),
    Comparison("14_containment", ("ch14_chunk200_recall", "ch14_chunk200_verified", "ch14_chunks200",
                                  "ch14_chunks100"), "Halving the chunk size doubles the index",
               "ch14_chunk200_recall == ch14_chunk200_verified == 1"
               " and 1.9 < ch14_chunks100 / ch14_chunks200 < 2.2"),
    Comparison("14_containment", ("ch14_ex_recall_128", "ch14_ex_recall_256"),
               "Recall improves only a little",
               "ch14_ex_recall_128 < ch14_ex_recall_256 < ch14_ex_recall_128 + 0.1"),
    Comparison("14_containment", ("ch14_ex_short_ens", "ch14_ex_long_ens", "ch14_ex_chunks_min"),
               "misses only among the",
               "ch14_ex_chunks_min == 1 and ch14_ex_short_ens == 1 > ch14_ex_long_ens"),
    Comparison("15_faster_signatures", ("ch15_empty_maxdev",), "The dots lie on the line",
               "ch15_empty_maxdev < 0.01"),
    Comparison("15_faster_signatures", ("ch15_est1_mean297", "ch15_est2_mean297", "ch15_est1_mean36",
                                        "ch15_est2_mean36", "ch15_est3_mean36"), "are already off",
               "ch15_est1_mean297 > 0.51 and ch15_est2_mean297 < 0.49 and ch15_est1_mean36 > 0.7"
               " and ch15_est2_mean36 < 0.3 and abs(ch15_est3_mean36 - 0.5) < 0.01"),
    Comparison("15_faster_signatures", ("ch15_rmse_li_36_5", "ch15_rmse_classic_36_5"),
               "with a *smaller* error",
               "ch15_rmse_li_36_5 < 0.8 * ch15_rmse_classic_36_5"),
    Comparison("15_faster_signatures", ("ch15_spurious_raw", "ch15_spurious_dense"), "there are none",
               "ch15_spurious_dense == 0 < ch15_spurious_raw"),
    Comparison("15_faster_signatures", ("ch15_wrong_identical", "ch15_wrong_mean", "ch15_right_mean"),
               "matches itself at only",
               "ch15_wrong_identical < 0.5 and ch15_wrong_mean < 0.3 and abs(ch15_right_mean - 0.5) < 0.01"),
    Comparison("15_faster_signatures", ("ch15_rmse_dense_297_5", "ch15_rmse_classic_297_5",
                                        "ch15_ratio_297_5",
                                        "ch15_classic_formula_gap"), "*more* accurate than",
               "ch15_rmse_dense_297_5 < ch15_rmse_classic_297_5 and ch15_ratio_297_5 < 1"
               " and ch15_classic_formula_gap < 0.05"),
    Comparison("15_faster_signatures", ("ch15_ratio_36_2", "ch15_ratio_36_5", "ch15_ratio_36_8"),
               "densification costs accuracy",
               "min(ch15_ratio_36_2, ch15_ratio_36_5, ch15_ratio_36_8) >= 1.1"),
    Comparison("15_faster_signatures", ("ch15_within_target", "ch15_worst_ratio"), "of the 6 settings meet",
               "ch15_within_target == 4 and ch15_worst_ratio > 1.1"),
    Comparison("15_faster_signatures", ("ch15_rmse_li_36_5", "ch15_rmse_classic_36_5"),
               "accurate of the three everywhere", "ch15_rmse_li_36_5 < 0.8 * ch15_rmse_classic_36_5"),
    Comparison("15_faster_signatures", ("ch15_t_ids_classic", "ch15_t_ids_oph"),
               "far from the factor of 128", "1 < ch15_t_ids_classic / ch15_t_ids_oph < 32"),
    Comparison("15_faster_signatures", ("ch15_t_fast", "ch15_t_word_shingles"), "which alone took",
               "ch15_t_fast < ch15_t_word_shingles"),
    Comparison("15_faster_signatures", ("ch15_ex_below_110", "ch15_ex_below_1", "ch15_ex_union"),
               "It drops below 1.10", "ch15_ex_below_110 < ch15_ex_below_1 and ch15_ex_union < 128"),
    Comparison("15_faster_signatures", ("ch15_rot_bias", "ch15_rot_rmse_5", "ch15_opt_rmse_5"),
               "come out at the truth", "ch15_rot_bias < 0.01 and ch15_rot_rmse_5 > ch15_opt_rmse_5"),
    Comparison("15b_bbit_minhash", ("ch15b_bbit_raw_1", "ch15b_bbit_corr_1"),
               "overestimates by almost exactly",
               "abs(ch15b_bbit_raw_1 - 0.75) < 0.005 and abs(ch15b_bbit_corr_1 - 0.5) < 0.005"),
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
    Comparison("15b_bbit_minhash", ("ch15b_which_oph_long", "ch15b_which_classic_long"),
               "at least as accurate (RMSE", "ch15b_which_oph_long <= ch15b_which_classic_long"),
    Comparison("15b_bbit_minhash", ("ch15b_sd_1bit_256", "ch15b_sd_2bit_128"), "a little better still",
               "ch15b_sd_1bit_256 < ch15b_sd_2bit_128 < 1.1 * ch15b_sd_1bit_256"),
    Comparison("16_cross_check", ("ch16_ours_time", "ch16_bulk_time", "ch16_theirs_time"),
               "the order does not",
               "ch16_ours_time < ch16_bulk_time and ch16_ours_time < ch16_theirs_time"),
    Comparison("16_cross_check", ("ch16_sha1_time", "ch16_bulk_time"), "on its own, against",
               "ch16_sha1_time < ch16_bulk_time"),
    Comparison("16_cross_check", ("ch16_mae_ours", "ch16_mae_theirs", "ch16_mae_pred", "ch16_bias_absmax"),
               "are close to each other and to the prediction",
               "abs(ch16_mae_ours - ch16_mae_pred) < 0.1 * ch16_mae_pred"
               " and abs(ch16_mae_theirs - ch16_mae_pred) < 0.1 * ch16_mae_pred and ch16_bias_absmax < 0.01"),
    Comparison("16_cross_check", ("ch16_mae_gap", "ch16_seed_mae_min", "ch16_seed_mae_max"),
               "within the spread", "ch16_mae_gap <= ch16_seed_mae_max - ch16_seed_mae_min"),
    Comparison("16_cross_check", ("ch16_identical_estimates", "ch16_identical_at_one", "ch16_between_rms",
                                  "ch16_between_pred"), "They agree exactly only on",
               "abs(ch16_between_rms - ch16_between_pred) < 0.1 * ch16_between_pred"
               " and 0.3 < ch16_identical_at_one < 1 and ch16_identical_estimates < 0.2"),
    Comparison("16_cross_check", ("ch16_mae_ours", "ch16_mae_theirs"),
               "a little smaller than the reference's",
               "ch16_mae_ours < 0.0293 and ch16_mae_theirs < 0.0294"),
    Comparison("16_cross_check", ("ch16_bend", "ch16_p_threshold"), "above the threshold, so a pair",
               "ch16_bend > 0.7 and ch16_p_threshold < 0.5"),
    Comparison("16_cross_check", ("ch16_points_apart",), "differ by a few points",
               "0 < ch16_points_apart <= 5"),
    Comparison("16_cross_check", ("ch16_only_min", "ch16_only_max"), "all of them near the threshold",
               "0.5 < ch16_only_min < 0.7 < ch16_only_max < 0.9"),
    Comparison("16_cross_check", ("ch16_cand_ours", "ch16_cand_theirs", "ch16_seed_cand_min",
                                  "ch16_seed_cand_max"), "a range that holds both",
               "ch16_cand_theirs < ch16_cand_ours and ch16_seed_cand_min <= ch16_cand_theirs"
               " and ch16_cand_ours <= ch16_seed_cand_max"),
    Comparison("16_cross_check", ("ch16_only_one", "ch16_expected_one", "ch16_expected_sd"),
               "give or take", "abs(ch16_only_one - ch16_expected_one) < 3 * ch16_expected_sd"),
    Comparison("16_cross_check", ("ch16_cells_gap",), "their expectations closely", "ch16_cells_gap < 0.02"),
    Comparison("16_cross_check", ("ch16_share_ds", "ch16_share_nl", "ch16_averaged", "ch16_se_window",
                                  "ch16_share_ds_max", "ch16_share_nl_max", "ch16_at_mean"),
               "both libraries land near the formula",
               "max(abs(ch16_share_ds - ch16_averaged), abs(ch16_share_nl - ch16_averaged))"
               " < 2 * ch16_se_window"
               " and max(ch16_share_ds_max, ch16_share_nl_max) >= 0.36"
               " and ch16_at_mean < ch16_averaged < ch16_at_mean + 0.05"),
    Comparison("16_cross_check", ("ch16_ex_seeds_one", "ch16_ex_libraries", "ch16_ex_expected", "ch16_ex_sd"),
               "disagree about as often as the two",
               "abs(ch16_ex_seeds_one - ch16_ex_expected) < 3 * ch16_ex_sd"
               " and abs(ch16_ex_libraries - ch16_ex_expected) < 3 * ch16_ex_sd"),
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
    Comparison("17_scaling_out", ("ch17_star_busiest", "ch17_all_busiest"), "The star removes the hot spot",
               "ch17_star_busiest < ch17_all_busiest / 10"),
    Comparison("17_scaling_out", ("ch17_ex_verified", "ch17_ex_candidates"),
               "almost every candidate is a true",
               "ch17_ex_verified > 0.9 * ch17_ex_candidates"),
    Comparison("18_your_own_data", ("ch18_joined", "ch18_joined_of"), "every copy but the heavy rewrite",
               "ch18_joined == ch18_joined_of - 1"),
    Comparison("18_your_own_data", ("ch18_p08_tool", "ch18_p08_equal"), "override the choice",
               "ch18_p08_equal < 0.5 < 0.95 < ch18_p08_tool"),
    Comparison("18_your_own_data", ("ch18_above_min", "ch18_heavy_tool", "ch18_heavy_equal"),
               "sits low on both",
               "ch18_above_min > 0.98 and ch18_heavy_tool < 0.2 and ch18_heavy_equal < 0.01"),
    Comparison("18_your_own_data", ("ch18_ex_apart_09", "ch18_ex_below_09"), "leave their clusters",
               "ch18_ex_apart_09 == ch18_ex_below_09"),
    Comparison("18_your_own_data", ("ch18_est_worst_z",), "within three standard errors",
               "ch18_est_worst_z < 3"),
    Comparison("19_real_text", ("ch19_across_max", "ch19_across_08"), "The closest such pair scores",
               "0.75 < ch19_across_max < 0.8 and ch19_across_08 == 0"),
    Comparison("19_real_text", ("ch19_recall", "ch19_precision", "ch19_mixed", "ch19_multi"),
               "Every pair at 0.8 or more ends in one cluster",
               "ch19_recall == 1 and ch19_precision < 1 and ch19_mixed == 0 < ch19_multi"),
    Comparison("19_real_text", ("ch19_cand_07", "ch19_cluster_07", "ch19_cluster_075"),
               "verification rejects all of them",
               "ch19_cand_07 > 0.5 and 0 < ch19_cluster_07 < ch19_cluster_075 < 1"),
    Comparison("19_real_text", ("ch19_mixed_files_075", "ch19_removed_08", "ch19_removed_095"),
               "files sit in clusters that mix",
               "ch19_mixed_files_075 > 0 and ch19_removed_095 < ch19_removed_08 / 1.5"),
    Comparison("19_real_text", ("ch19_across_max",), "just below 0.8", "0.75 < ch19_across_max < 0.8"),
    Comparison("19_real_text", ("ch19_notice_j", "ch19_notice_c", "ch19_bundle_j", "ch19_bundle_c"),
               "The bundle is starker",
               "ch19_notice_j < 0.8 < ch19_notice_c and ch19_bundle_j < 0.5 < ch19_bundle_c"),
    Comparison("19_real_text", ("ch19_ex_apache_08", "ch19_ex_apache_095", "ch19_ex_bsd2_095"),
               "change least from 0.8 to 0.95",
               "ch19_ex_bsd2_095 == 0 < ch19_ex_apache_095 < ch19_ex_apache_08"),
    Comparison("19_real_text", ("ch19_ex_k1", "ch19_ex_k3", "ch19_ex_k5", "ch19_ex_k9"),
               "pair reaches 0.8", "min(ch19_ex_k1, ch19_ex_k3) >= 0.8 > max(ch19_ex_k5, ch19_ex_k9)"),
    Comparison("19_real_text", ("ch19_ex_embed_j", "ch19_ex_embed_c", "ch19_ex_embed_share"),
               "well below 0.8",
               "ch19_ex_embed_c == 1 and ch19_ex_embed_j < 0.5 and ch19_ex_embed_j == ch19_ex_embed_share"),
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
