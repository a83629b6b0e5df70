"""neardup_lab: near-duplicate detection you can read top to bottom.

text -> shingles -> hashes -> signatures -> candidate pairs -> verified pairs -> clusters.

The public names, in the order the book teaches them:

=========================  ==========================================================
**Text** (:mod:`~neardup_lab.text`)
``normalize``, ``words``    case, punctuation and spacing folded away; the word list
``word_shingles``           the set of k-word shingles (``char_shingles``: k characters)
``jaccard``, ``containment``  exact similarity of two sets
**Test data** (:mod:`~neardup_lab.corpus`, :mod:`~neardup_lab.evaluate`)
``make_corpus``             news-like articles with planted copies and known families
``brute_force_pairs``       the exact truth, every pair compared
``precision_recall``        a found pair list scored against the truth
**Hashing** (:mod:`~neardup_lab.hashing`, :mod:`~neardup_lab.fastpath`)
``stable_hash``             XXH3-64 of a string, the same in every process
``hash_shingles``           a set of shingles as a uint64 id array
``shingle_ids``             word-shingle ids straight from text (the fast path)
**MinHash** (:mod:`~neardup_lab.minhash`, :mod:`~neardup_lab.oph`)
``MinHasher``               seeded hash family: ``signature``, ``signatures``
``estimate_jaccard``        share of equal positions of two signatures
``merge_signatures``        signature of a union; ``bbit_signatures``: b-bit MinHash
**Banding** (:mod:`~neardup_lab.lsh`)
``s_curve``                 chance a pair of similarity s becomes a candidate
``optimal_params``          bands and rows for a threshold (as datasketch chooses)
``error_areas``             the false-positive and false-negative areas it weighs
``LSHIndex``                band tables: insert and query one signature at a time
``band_hashes``             one 64-bit key per document and band: every banded table uses it
``candidate_pair_array``    all candidate pairs of a signature matrix at once
**Verification and clusters** (:mod:`~neardup_lab.verify`, :mod:`~neardup_lab.clusters`)
``jaccard_of_pairs``        exact Jaccard of many pairs of id sets, batched
``UnionFind``               disjoint sets; ``clusters_from_pairs``
``choose_keepers``          one document to keep per cluster
**The pipeline** (:mod:`~neardup_lab.settings`, :mod:`~neardup_lab.pipeline`)
``Settings``                every setting of a run, checked once
``dedup``, ``DedupResult``  exact pass, sign, band, verify, cluster, keep
``explain``, ``ties``       the evidence for one pair; what tied each removed document
**SimHash** (:mod:`~neardup_lab.simhash`, :mod:`~neardup_lab.simhash_index`)
``simhash``, ``hamming``    Charikar's fingerprint and the distance between two
``BlockIndex``              block tables for Hamming search
``block_layout``            their blocks and tables, cost and chance of a find, unbuilt
**Pitfalls** (:mod:`~neardup_lab.docfreq`, :mod:`~neardup_lab.chunking`)
``drop_frequent``           boilerplate filter by document frequency
``best_chunk_similarity``   an excerpt found inside a longer text
=========================  ==========================================================

The saved index (:mod:`~neardup_lab.store`), file readers
(:mod:`~neardup_lab.readers`), the command line (:mod:`~neardup_lab.cli`) and the
Dask version (:mod:`~neardup_lab.distributed`) are imported from their modules.

>>> from neardup_lab import word_shingles, jaccard
>>> jaccard(word_shingles("heavy rain in the city", 2), word_shingles("heavy rain in the town", 2))
0.6
"""

# Imports in the book's reading order, not alphabetical.
# ruff: noqa: I001
from .text import char_shingles, containment, jaccard, normalize, word_shingles, words
from .corpus import EDIT_KINDS, Corpus, apply_edit, make_article, make_corpus, replace_words
from .evaluate import (
    brute_force_pairs,
    pairs_from_clusters,
    pairs_within_families,
    precision_recall,
    recall_by_bucket,
)
from .hashing import hash_shingles, stable_hash
from .fastpath import shingle_id_batch, shingle_ids
from .minhash import (
    SCHEMES,
    MinHasher,
    bbit_signatures,
    estimate_jaccard,
    estimate_jaccard_bbit,
    merge_signatures,
    pack_bbit,
)
from .lsh import (
    ErrorAreas,
    LSHIndex,
    approx_threshold,
    band_hashes,
    candidate_pair_array,
    candidate_pairs,
    error_areas,
    optimal_params,
    s_curve,
)
from .verify import jaccard_of_pairs
from .clusters import (
    KEEPER_POLICIES,
    UnionFind,
    choose_keepers,
    clusters_from_pair_array,
    clusters_from_pairs,
)
from .settings import Settings
from .pipeline import DedupResult, dedup, exact_groups
from .explain import Explanation, Tie, explain, ties
from .simhash import hamming, simhash
from .simhash_index import (
    BLOCK_SCHEMES,
    BlockIndex,
    BlockLayout,
    QueryStats,
    block_layout,
    hamming_brute_force,
    hamming_distances,
)
from .docfreq import document_frequencies, drop_frequent, frequent_shingles
from .chunking import best_chunk_similarity, chunk_spans, chunk_words, containment_estimate

__version__ = "0.2.0"

__all__ = [
    # text
    "normalize",
    "words",
    "word_shingles",
    "char_shingles",
    "jaccard",
    "containment",
    # test data
    "make_corpus",
    "make_article",
    "apply_edit",
    "replace_words",
    "Corpus",
    "EDIT_KINDS",
    "brute_force_pairs",
    "precision_recall",
    "recall_by_bucket",
    "pairs_from_clusters",
    "pairs_within_families",
    # hashing
    "stable_hash",
    "hash_shingles",
    "shingle_ids",
    "shingle_id_batch",
    # MinHash
    "MinHasher",
    "SCHEMES",
    "estimate_jaccard",
    "merge_signatures",
    "bbit_signatures",
    "estimate_jaccard_bbit",
    "pack_bbit",
    # banding
    "s_curve",
    "approx_threshold",
    "error_areas",
    "ErrorAreas",
    "optimal_params",
    "LSHIndex",
    "band_hashes",
    "candidate_pair_array",
    "candidate_pairs",
    # verification and clusters
    "jaccard_of_pairs",
    "UnionFind",
    "clusters_from_pairs",
    "clusters_from_pair_array",
    "choose_keepers",
    "KEEPER_POLICIES",
    # the pipeline
    "Settings",
    "dedup",
    "DedupResult",
    "exact_groups",
    "explain",
    "Explanation",
    "ties",
    "Tie",
    # SimHash
    "simhash",
    "hamming",
    "BlockIndex",
    "block_layout",
    "BlockLayout",
    "BLOCK_SCHEMES",
    "QueryStats",
    "hamming_distances",
    "hamming_brute_force",
    # pitfalls
    "document_frequencies",
    "frequent_shingles",
    "drop_frequent",
    "chunk_words",
    "chunk_spans",
    "best_chunk_similarity",
    "containment_estimate",
]
