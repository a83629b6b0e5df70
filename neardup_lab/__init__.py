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
``recall_by_bucket``        recall by similarity bucket near the threshold
``make_article``, ``replace_words``  one article, and a copy with some words replaced
``pairs_from_clusters``     the pairs a clustering implies (``pairs_within_families``: the truth's)
**Hashing** (:mod:`~neardup_lab.hashing`)
``stable_hash``             XXH3-64 of a string, the same in every process
``hash_shingles``           a set of shingles as a uint64 id array
``word_shingle_ids``        word-shingle ids from word hashes: the ids ``dedup`` uses
**MinHash** (:mod:`~neardup_lab.minhash`, :mod:`~neardup_lab.oph`)
``MinHasher``               seeded hash family: ``signature``, ``signatures``
``estimate_jaccard``        share of equal positions of two signatures
``merge_signatures``        signature of a union
``bbit_signatures``         b-bit MinHash: the lowest b bits of each value
**Banding** (:mod:`~neardup_lab.lsh`)
``s_curve``                 chance a pair of similarity s becomes a candidate
``approx_threshold``        where the S-curve bends, (1/b)^(1/r)
``optimal_params``          bands and rows for a threshold (as datasketch chooses)
``LSHIndex``                band tables: insert and query one signature at a time
``band_hashes``             one 64-bit key per document and band: every banded table uses it
``candidate_pairs``         all candidate pairs of a signature matrix, as a set
``candidate_pair_array``    the same as a sorted array, for many documents
**Verification and clusters** (:mod:`~neardup_lab.engine.verify`, :mod:`~neardup_lab.clusters`)
``jaccard_of_pairs``        exact Jaccard of many pairs of id sets, batched
``UnionFind``               disjoint sets; ``clusters_from_pairs``
``choose_keepers``          one document to keep per cluster
**The pipeline** (:mod:`~neardup_lab.settings`, :mod:`~neardup_lab.engine.pipeline`)
``Settings``                every setting of a run, checked once
``dedup``, ``DedupResult``  exact pass, sign, band, verify, cluster, keep
``explain``, ``ties``       the evidence for one pair; what tied each removed document
**SimHash** (:mod:`~neardup_lab.simhash`, :mod:`~neardup_lab.simhash_index`)
``simhash``, ``hamming``    Charikar's fingerprint and the distance between two
``BlockIndex``              block tables for Hamming search
``block_layout``            their blocks and tables, cost and chance of a find, unbuilt
``hamming_distances``       the distances of one fingerprint to many
**Pitfalls** (:mod:`~neardup_lab.docfreq`, :mod:`~neardup_lab.chunking`)
``drop_frequent``           boilerplate filter by document frequency
``chunk_words``             a long text cut into overlapping chunks of words
``best_chunk_similarity``   an excerpt found inside a longer text
=========================  ==========================================================

The core, the modules at the top of the package, is what the chapters teach. The engine
(:mod:`neardup_lab.engine`) makes ``dedup`` fast, stage by stage. The tools are subpackages:
the command line (:mod:`neardup_lab.cli`), file readers (:mod:`neardup_lab.readers`), the saved
index (:mod:`neardup_lab.index`) and the Dask version (:mod:`neardup_lab.distributed`). Beside
them sit the labs' self-checks (:mod:`neardup_lab.checks`) and the helpers the chapters share
(:mod:`neardup_lab.notebook`). Names not listed above are imported from their modules.

>>> from neardup_lab import word_shingles, jaccard
>>> jaccard(word_shingles("heavy rain in the city", 2), word_shingles("heavy rain in the town", 2))
0.6
"""

# Imports in the book's reading order, not alphabetical.
# ruff: noqa: I001
from .text import char_shingles, containment, jaccard, normalize, word_shingles, words
from .corpus import make_article, make_corpus, replace_words
from .evaluate import brute_force_pairs, precision_recall, recall_by_bucket
from .evaluate import pairs_from_clusters, pairs_within_families
from .hashing import hash_shingles, stable_hash, word_shingle_ids
from .minhash import MinHasher, bbit_signatures, estimate_jaccard, merge_signatures
from .lsh import s_curve, approx_threshold, optimal_params, LSHIndex
from .lsh import band_hashes, candidate_pairs
from .engine.banding import candidate_pair_array
from .clusters import UnionFind, choose_keepers, clusters_from_pairs
from .simhash import hamming, simhash
from .simhash_index import BlockIndex, block_layout, hamming_distances
from .docfreq import drop_frequent
from .chunking import best_chunk_similarity, chunk_words
from .engine.verify import jaccard_of_pairs
from .settings import Settings
from .engine.pipeline import DedupResult, dedup
from .engine.explain import explain, ties

__version__ = "0.2.0"

# fmt: off
__all__ = [
    "normalize", "words", "word_shingles", "char_shingles", "jaccard", "containment",  # text
    "make_corpus", "make_article", "replace_words", "brute_force_pairs",  # test data
    "precision_recall", "recall_by_bucket", "pairs_from_clusters", "pairs_within_families",
    "stable_hash", "hash_shingles", "word_shingle_ids",  # hashing
    "MinHasher", "estimate_jaccard", "merge_signatures", "bbit_signatures",  # MinHash
    "s_curve", "approx_threshold", "optimal_params", "LSHIndex",  # banding
    "band_hashes", "candidate_pairs", "candidate_pair_array",
    "jaccard_of_pairs", "UnionFind", "clusters_from_pairs", "choose_keepers",  # verification and clusters
    "Settings", "dedup", "DedupResult", "explain", "ties",  # the pipeline
    "simhash", "hamming", "hamming_distances", "BlockIndex", "block_layout",  # SimHash
    "drop_frequent", "chunk_words", "best_chunk_similarity",  # pitfalls
]
# fmt: on
