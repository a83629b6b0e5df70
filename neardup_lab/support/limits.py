"""Batch sizes, memory budgets and input limits, each with its reason. Modules read them as
``limits.NAME`` when they run (never copied at import), so a test can shrink one.

>>> CHUNK_DOCS, CHUNK_CHARS
(2000, 1000000)
"""

from __future__ import annotations

import os

# --- Signing (core: minhash, oph) ------------------------------------------------------------

#: (shingle, hash function) values per numpy call, 8 MB; measured 1.6x faster than 2**17 on 2 cores.
SIGN_BLOCK_CELLS = 1 << 20
#: The same for exact mod-prime arithmetic, which makes many temporaries (smaller blocks stay in cache).
SIGN_BLOCK_CELLS_MOD_PRIME = 1 << 13
#: Largest probe table one-permutation densification keeps (probes x bins); past it, bins go round.
OPH_MAX_TABLE = 1 << 22
#: 1024-byte blocks of a long input that the XXH3 fallback (no xxhash) sums per numpy pass (1 MiB).
XXH3_BLOCKS = 1 << 10

# --- Banding and search (core: lsh, simhash_index) -------------------------------------------

#: Documents whose band keys are computed together by band_groups (64 MB of uint32 x 128 values).
KEY_BLOCK = 1 << 17
#: Queries handled per numpy batch in BlockIndex.query_many (bounds the memory of one batch).
QUERY_BATCH = 4096
#: Candidate pairs built at once by verification (16 MB), a band's groups taken in blocks.
PAIR_BLOCK = 1 << 20
#: Documents of a bucket (a band group) whose every pair is checked; a bigger one would cost its square.
BUCKET_SIZE = 100
#: Members of a bigger bucket every other member is checked against (and they with each other).
BUCKET_ANCHORS = 8

# --- The engine ------------------------------------------------------------------------------

#: Documents per unit of work when texts are prepared and signed.
CHUNK_DOCS = 2000
#: Characters per unit of work, so that its word arrays stay in the cache.
CHUNK_CHARS = 1_000_000
#: Characters tokenised together; a longer document is cut into pieces of about this many.
TOKENIZE_CHARS = 1 << 18
#: Bytes of text folded together by fold_non_ascii.
FOLD_BLOCK_BYTES = 1 << 22
#: Bytes of shingle ids dedup keeps (640 MiB); verification derives the others' again from the texts.
IDS_BUDGET = 640 << 20
#: Characters whose ids verification derives together (a document in several pairs counts each time).
SLICE_CHARS = 2_000_000
#: Pairs scored together at most (the ids of up to twice as many documents).
SLICE_PAIRS = 4096
#: Candidate pairs checked per document above which dedup warns (near-duplicates alone check about one).
CANDIDATES_PER_DOCUMENT = 10
#: Characters at the start of a document that the check for text written without spaces reads.
SPACES_SAMPLE_CHARS = 10_000
#: Ids and documents that sorted_sets sorts together at most, as prepare's chunks.
SORT_IDS, SORT_DOCS = 500_000, 2000

# --- Tools: files, processes, partitions -----------------------------------------------------

#: Documents above this many bytes are refused unless the caller raises the limit.
DEFAULT_MAX_BYTES = 10_000_000
#: The deepest JSON nesting read, checked before parsing (the browser crashes before the recursion limit).
MAX_JSON_NESTING = 100
#: Rows per record batch read from a Parquet file.
PARQUET_BATCH_ROWS = 1024
#: Bytes at the start of an input file looked at for a NUL byte (a binary file) before reading it.
SNIFF_BYTES = 8192
#: Compressed bytes fed to zstandard at a time, as one step may decompress to thousands of times its size.
DECOMPRESS_STEP = 1 << 12
#: Bytes read at a time while passing over a JSONL line too long to be a document.
SKIP_STEP = 1 << 20
#: Bytes read at a time from a .txt file, so memory follows the bytes read, not the limit on them.
READ_STEP = 1 << 20
#: A list of texts handed to dedup_dask is cut into partitions of about this many.
TEXTS_PER_PARTITION = 2000
#: Most workers --jobs accepts on the command line (threads for signing, processes for verification).
MAX_JOBS = 256


def most_workers() -> int:
    """The most workers (``n_jobs``) the API starts: four per CPU, at most :data:`MAX_JOBS`.

    >>> 4 <= most_workers() <= MAX_JOBS
    True
    """
    return min(MAX_JOBS, 4 * (os.cpu_count() or 1))
