"""Signing speed side by side, in one run: neardup_lab against datasketch and rensa.

Usage (from the repository root):
    .venv/bin/python benchmarks/bench_signing.py [--docs 10000] [--num-perm 128] [--repeat 3]

Part 1, signing only: every method gets the same word 5-shingle sets (Python sets of
str) of news-like 300-word articles, built once before timing. neardup_lab hashes the
strings and signs all documents with one call; datasketch and rensa build one sketch per
document (datasketch needs bytes, so its time includes UTF-8 encoding).

Part 2, end to end from raw text: neardup_lab's fast path as dedup runs it, prepare_many on
one thread (chunks of about a million characters: tokenise, hash each word once, shingle ids
by numpy arithmetic, exact-copy keys, sorted id sets for verification, one-permutation
signatures), against word_shingles followed by datasketch or rensa. The same articles are
then given typographic quotes and dashes, as news text has: no longer ASCII, so they take
the Unicode path.

The best of --repeat runs is reported for each method.
"""

from __future__ import annotations

import argparse

from common import best_time, machine_line, print_table
from datasketch import MinHash
from rensa import CMinHash, RMinHash

from neardup_lab import MinHasher, Settings, make_article, word_shingles
from neardup_lab.engine.pipeline import prepare_many


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=10_000)
    parser.add_argument("--num-perm", type=int, default=128)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    k, n = args.num_perm, args.docs

    texts = [make_article(seed=i, n_words=300) for i in range(n)]
    sets = [word_shingles(t, 5) for t in texts]
    print(machine_line())
    print(
        f"documents: {n} news-like articles of 300 words, {sum(map(len, sets)) / n:.0f} word 5-shingles "
        f"each, {k} permutations, best of {args.repeat}\n"
    )

    classic = MinHasher(num_perm=k, seed=1)
    oph = MinHasher(num_perm=k, seed=1, scheme="one-permutation")

    def datasketch_update_batch() -> None:
        for s in sets:
            MinHash(num_perm=k, seed=1).update_batch([x.encode("utf-8") for x in s])

    def datasketch_bulk() -> None:
        MinHash.bulk([[x.encode("utf-8") for x in s] for s in sets], num_perm=k, seed=1)

    def rensa(cls) -> None:
        for s in sets:
            m = cls(num_perm=k, seed=1)
            m.update(list(s))
            m.digest()

    print("Part 1: signing only (shingle sets in)")
    rows = [
        ("datasketch 2.0.0 MinHash.update_batch", best_time(datasketch_update_batch, args.repeat)),
        ("datasketch 2.0.0 MinHash.bulk", best_time(datasketch_bulk, args.repeat)),
        ("rensa RMinHash (Rust)", best_time(lambda: rensa(RMinHash), args.repeat)),
        ("rensa CMinHash (Rust)", best_time(lambda: rensa(CMinHash), args.repeat)),
        ("neardup_lab multiply-shift (classic)", best_time(lambda: classic.signatures(sets), args.repeat)),
        ("neardup_lab one-permutation", best_time(lambda: oph.signatures(sets), args.repeat)),
    ]
    print_table(rows, n, "datasketch 2.0.0 MinHash.update_batch")
    timing = dict(rows)
    print(
        f"one-permutation vs rensa RMinHash: "
        f"{timing['rensa RMinHash (Rust)'] / timing['neardup_lab one-permutation']:.2f}x\n"
    )

    one_permutation = Settings(num_perm=k, scheme="one-permutation")

    def fast_path(texts: list[str] = texts) -> None:
        prepare_many(texts, one_permutation, n_jobs=1, ids="raw")

    def shingles_then_datasketch() -> None:
        for t in texts:
            MinHash(num_perm=k, seed=1).update_batch([x.encode("utf-8") for x in word_shingles(t, 5)])

    def shingles_then_rensa(texts: list[str] = texts) -> None:
        for t in texts:
            m = RMinHash(num_perm=k, seed=1)
            m.update(list(word_shingles(t, 5)))
            m.digest()

    typographic = ["\u201c" + t.replace(". ", ".\u201d \u2014 \u201c", 3) + "\u201d" for t in texts]

    print("Part 2: end to end from raw text")
    rows = [
        ("word_shingles + datasketch update_batch", best_time(shingles_then_datasketch, args.repeat)),
        ("word_shingles + rensa RMinHash", best_time(shingles_then_rensa, args.repeat)),
        (
            "word_shingles only (building the strings)",
            best_time(lambda: [word_shingles(t, 5) for t in texts], args.repeat),
        ),
        ("neardup_lab fast path (one-permutation)", best_time(fast_path, args.repeat)),
        (
            "typographic: word_shingles + rensa RMinHash",
            best_time(lambda: shingles_then_rensa(typographic), args.repeat),
        ),
        ("typographic: neardup_lab fast path", best_time(lambda: fast_path(typographic), args.repeat)),
    ]
    print_table(rows, n, "word_shingles + datasketch update_batch")
    timing = dict(rows)
    for kind in ("", "typographic: "):
        fast = timing[f"{kind}neardup_lab fast path" + ("" if kind else " (one-permutation)")]
        rensa_time = timing[f"{kind}word_shingles + rensa RMinHash"]
        print(f"{kind or 'ASCII: '}fast path vs word_shingles + rensa: {rensa_time / fast:.2f}x")


if __name__ == "__main__":
    main()
