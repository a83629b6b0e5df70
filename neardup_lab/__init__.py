"""neardup_lab: near-duplicate detection you can read top to bottom.

text -> shingles -> hashes -> signatures -> candidate pairs -> verified pairs -> clusters.

>>> from neardup_lab import word_shingles, jaccard
>>> jaccard(word_shingles("heavy rain in the city", 2), word_shingles("heavy rain in the town", 2))
0.6
"""

from .chunking import best_chunk_similarity, chunk_spans, chunk_words, containment_estimate
from .clusters import (
    KEEPER_POLICIES,
    UnionFind,
    choose_keepers,
    clusters_from_pair_array,
    clusters_from_pairs,
)
from .corpus import EDIT_KINDS, Corpus, apply_edit, make_article, make_corpus, replace_words
from .docfreq import document_frequencies, drop_frequent, frequent_shingles
from .evaluate import (
    brute_force_pairs,
    pairs_from_clusters,
    pairs_within_families,
    precision_recall,
    recall_by_bucket,
)
from .fastpath import shingle_id_batch, shingle_ids
from .hashing import hash_shingles, stable_hash
from .lsh import LSHIndex, approx_threshold, candidate_pair_array, candidate_pairs, optimal_params, s_curve
from .minhash import (
    SCHEMES,
    MinHasher,
    bbit_signatures,
    estimate_jaccard,
    estimate_jaccard_bbit,
    merge_signatures,
    pack_bbit,
)
from .pipeline import DedupResult, dedup, exact_groups
from .simhash import hamming, simhash
from .simhash_index import BLOCK_SCHEMES, BlockIndex, QueryStats, hamming_brute_force, hamming_distances
from .text import char_shingles, containment, jaccard, normalize, word_shingles, words

__version__ = "0.1.0"

__all__ = [
    "BLOCK_SCHEMES",
    "BlockIndex",
    "QueryStats",
    "hamming_brute_force",
    "hamming_distances",
    "EDIT_KINDS",
    "KEEPER_POLICIES",
    "SCHEMES",
    "Corpus",
    "DedupResult",
    "LSHIndex",
    "MinHasher",
    "UnionFind",
    "apply_edit",
    "approx_threshold",
    "bbit_signatures",
    "estimate_jaccard_bbit",
    "pack_bbit",
    "clusters_from_pair_array",
    "shingle_id_batch",
    "shingle_ids",
    "brute_force_pairs",
    "candidate_pair_array",
    "candidate_pairs",
    "char_shingles",
    "choose_keepers",
    "clusters_from_pairs",
    "containment",
    "dedup",
    "estimate_jaccard",
    "exact_groups",
    "hamming",
    "hash_shingles",
    "jaccard",
    "make_article",
    "make_corpus",
    "merge_signatures",
    "normalize",
    "optimal_params",
    "pairs_from_clusters",
    "pairs_within_families",
    "precision_recall",
    "recall_by_bucket",
    "replace_words",
    "s_curve",
    "simhash",
    "stable_hash",
    "word_shingles",
    "words",
    "best_chunk_similarity",
    "chunk_spans",
    "chunk_words",
    "containment_estimate",
    "document_frequencies",
    "drop_frequent",
    "frequent_shingles",
]
