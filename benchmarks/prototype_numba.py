"""What a compiled kernel would give: signing in numba, beside the numpy path and the peers.

Usage (from the repository root; numba is not a dependency of the project, so
`make bench-numba` installs it with the few packages this needs into
`benchmarks/.numba/` and runs this script there):
    make bench-numba

Issue 15 asks, where a target cannot be reached in numpy, for a compiled prototype's
figures and not for the compiled code itself. This is that prototype: one numba function,
compiled without the interpreter lock, does for a chunk of ASCII documents what
`pipeline.prepare` does in numpy passes (lower-case, split into words, hash each word,
k-word shingle ids, one-permutation bins and minima), byte for byte the same ids and
signatures (checked before anything is timed). Sorting each document's ids
(`verify.pack_id_sets`: numpy's sort is faster than numba's), densification, the
exact-copy keys (xxhash) and documents that are not ASCII stay on the package's own path.
Swapped into `pipeline.prepare`, it runs the whole `dedup`, so the end-to-end figures are
those of a package built this way. Every variant and peer runs in a fresh process, as in
`bench_peers.py` (whose corpus, runners and scores these are), timed from the texts in
memory to a cluster per document; the numba function is compiled before the clock starts.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_peers import run_neardup, score, true_pairs, write_corpus  # noqa: E402
from common import machine_line  # noqa: E402

from neardup_lab.engine import pipeline  # noqa: E402
from neardup_lab.engine.tokenize import _IN_WORD_TABLE, _LENGTH_MIX, _POLY  # noqa: E402
from neardup_lab.engine.verify import pack_id_sets  # noqa: E402
from neardup_lab.oph import _seed_offset, densify  # noqa: E402
from neardup_lab.settings import Settings  # noqa: E402
from neardup_lab.support import limits  # noqa: E402
from neardup_lab.support.spans import Ragged, chunk_bounds  # noqa: E402

SCHEME = "one-permutation"


@njit(inline="always")
def _splitmix64(z: np.uint64) -> np.uint64:
    """``hashing.splitmix64`` of one value, compiled (numba cannot call the numpy version)."""
    z = z + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(nogil=True)
def _sign_ascii(buf, starts, ends, in_word, k, num_perm, seed_offset, poly, length_mix):
    """Word hashes, shingle ids (in text order) and undensified signatures of the ASCII
    documents ``buf[starts[d]:ends[d]]``: the numpy path's arithmetic, one pass over the bytes."""
    n = len(starts)
    hashes = np.empty(max(1, (ends[-1] - starts[0]) // 2 + n), dtype=np.uint64)
    word_counts = np.zeros(n, dtype=np.int64)
    ids = np.empty(len(hashes), dtype=np.uint64)
    id_counts = np.zeros(n, dtype=np.int64)
    sigs = np.full((n, num_perm), np.uint32(0xFFFFFFFF), dtype=np.uint32)
    words, made = 0, 0
    for d in range(n):
        first_word = words
        # A word's length starts its hash, so each word is measured first, then its bytes go
        # lower-cased into 8-byte lanes, each taken in as soon as it is full (or the word ends).
        at, end = starts[d], ends[d]
        while at < end:
            if not in_word[buf[at]]:
                at += 1
                continue
            stop = at
            while stop < end and in_word[buf[stop]]:
                stop += 1
            state = np.uint64(stop - at) * length_mix
            for lane_start in range(at, stop, 8):
                value = np.uint64(0)
                for i in range(lane_start, min(lane_start + 8, stop)):
                    byte = buf[i]
                    if 65 <= byte <= 90:
                        byte += 32
                    value |= np.uint64(byte) << np.uint64(8 * (i - lane_start))
                state = _splitmix64(state ^ value) ^ value  # hashing.absorb
            hashes[words] = state
            words += 1
            at = stop
        count = words - first_word
        word_counts[d] = count
        shingles = count - k + 1 if count >= k else (1 if count > 0 else 0)
        size = min(k, count)
        window, top = np.uint64(0), np.uint64(1)  # the polynomial of the first window; poly**(size-1)
        for j in range(size):
            window = window * poly + hashes[first_word + j]
            top = top * poly if j else top
        for s in range(shingles):
            if s:  # roll the window one word on: drop the first word's term, add the next word
                dropped, added = hashes[first_word + s - 1], hashes[first_word + s + size - 1]
                window = (window - dropped * top) * poly + added
            shingle = _splitmix64(window + np.uint64(size))
            ids[made + s] = shingle
            h = _splitmix64(shingle + seed_offset)
            slot = ((h >> np.uint64(32)) * np.uint64(num_perm)) >> np.uint64(32)
            low = np.uint32(h & np.uint64(0xFFFFFFFF))
            if low < sigs[d, slot]:
                sigs[d, slot] = low
        made += shingles
        id_counts[d] = shingles
    return hashes[:words], word_counts, ids[:made], id_counts, sigs


def prepare_compiled(docs, settings: Settings, ids: str = "sets") -> pipeline.Prepared:
    """``pipeline.prepare`` with its ASCII documents signed by :func:`_sign_ascii`."""
    ascii = np.fromiter(map(str.isascii, docs), dtype=np.bool_, count=len(docs))
    if not ascii.any() or settings.scheme != SCHEME or settings.shingle != "word":
        return _numpy_prepare(docs, settings, ids)
    fast = np.flatnonzero(ascii)
    parts = [docs[i].encode("ascii") for i in fast.tolist()]
    sizes = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
    starts = np.cumsum(sizes + 1) - sizes - 1
    buf = np.frombuffer(b" ".join(parts), dtype=np.uint8)
    hashes, counts, shingles, id_counts, sigs = _sign_ascii(
        buf, starts, starts + sizes, _IN_WORD_TABLE, settings.k, settings.num_perm,
        _seed_offset(settings.seed, 0x0E1), _POLY, _LENGTH_MIX,
    )  # fmt: skip
    fast_sigs = densify(sigs, settings.seed)
    fast_keys = pipeline.exact_keys(Ragged.from_counts(hashes, counts))
    fast_sets = Ragged.from_counts(shingles, id_counts)
    if ids == "sets":
        fast_sets = pack_id_sets(fast_sets)  # numpy sorts faster
    elif ids == "none":
        fast_sets = Ragged.empty()
    if ascii.all():
        return pipeline.Prepared(fast_keys, [fast_sets] if ids == "raw" else fast_sets, fast_sigs)
    # Documents that are not ASCII take the package's path; both go back into document order.
    slow = np.flatnonzero(~ascii)
    other = _numpy_prepare([docs[i] for i in slow.tolist()], settings, ids)
    keys: list[bytes] = [b""] * len(docs)
    for i, key in zip(fast.tolist(), fast_keys):
        keys[i] = key
    for i, key in zip(slow.tolist(), other.keys):
        keys[i] = key
    signatures = np.empty((len(docs), settings.num_perm), dtype=np.uint32)
    signatures[fast], signatures[slow] = fast_sigs, other.signatures
    if ids == "none":
        return pipeline.Prepared(keys, Ragged.empty(), signatures)
    both = Ragged.join([fast_sets, Ragged.join(other.sets) if ids == "raw" else other.sets])
    row = np.empty(len(docs), dtype=np.int64)  # each document's list in both
    row[fast], row[slow] = np.arange(len(fast)), len(fast) + np.arange(len(slow))
    merged = both.take(row)
    return pipeline.Prepared(keys, [merged] if ids == "raw" else merged, signatures)


_numpy_prepare = pipeline.prepare


def _one(sets: Ragged | list[Ragged]) -> Ragged:
    """The id lists of a prepared batch as one :class:`Ragged` (raw ids come as a list of parts)."""
    return Ragged.join(sets) if isinstance(sets, list) else sets


def check_same_bits(docs: list[str], settings: Settings) -> None:
    """The prototype's keys, ids (sorted, and in text order) and signatures equal the
    package's, or stop."""
    for start, form in itertools.product(range(0, len(docs), 997), ("sets", "raw")):
        chunk = docs[start : start + 997]
        ours, theirs = prepare_compiled(chunk, settings, form), _numpy_prepare(chunk, settings, form)
        same = (
            ours.keys == theirs.keys
            and np.array_equal(_one(ours.sets).values, _one(theirs.sets).values)
            and np.array_equal(_one(ours.sets).offsets, _one(theirs.sets).offsets)
            and np.array_equal(ours.signatures, theirs.signatures)
        )
        if not same:
            raise SystemExit(f"the prototype differs from the package in documents from {start}")


def timed(func, *args) -> tuple[float, object]:
    started = time.perf_counter()
    out = func(*args)
    return time.perf_counter() - started, out


def sign_chunks(prepare, chunks: list[list[str]], settings: Settings) -> None:
    for chunk in chunks:
        prepare(chunk, settings)


#: name -> (signing, n_jobs), each run in a fresh process by :func:`child`
VARIANTS = {
    f"neardup_lab, {name} signing, n_jobs={jobs}": (name, jobs)
    for jobs in (1, 2)
    for name in ("numpy", "numba")
}
PEERS = ("rensa", "datasketch")


def read_texts(corpus: Path) -> list[str]:
    with corpus.open(encoding="utf-8") as lines:
        return [json.loads(line)["text"] for line in lines]


def child(variant: str, corpus: Path, out: Path) -> None:
    """One variant's `dedup`, from the texts in memory to labels, written to ``out``."""
    signing, jobs = VARIANTS[variant]
    texts = read_texts(corpus)
    pipeline.prepare = prepare_compiled if signing == "numba" else _numpy_prepare
    pipeline.prepare(texts[:200], Settings(scheme=SCHEME))  # numba compiles here, off the clock
    seconds, labels = timed(run_neardup, texts, SCHEME, jobs)
    out.write_text(json.dumps({"seconds": seconds, "labels": labels}))


def run_fresh(script: Path, system: str, corpus: Path) -> dict:
    out = corpus.with_name("out.json")
    subprocess.run([sys.executable, str(script), "--child", system, str(corpus), str(out)], check=True)
    return json.loads(out.read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", nargs=3, metavar=("VARIANT", "CORPUS", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], Path(args.child[1]), Path(args.child[2]))
        return
    print(machine_line())
    with tempfile.TemporaryDirectory() as work:
        corpus = Path(work) / "corpus.jsonl"
        families = write_corpus(args.docs, corpus)
        texts = read_texts(corpus)
        truth = true_pairs(texts, families)
        settings = Settings(scheme=SCHEME)
        ascii_share = sum(map(str.isascii, texts)) / len(texts)
        print(f"{len(texts):,} documents of bench_peers' corpus ({ascii_share:.1%} ASCII); {SCHEME}\n")
        checked = texts[:20_000]
        check_same_bits(checked, settings)
        print(
            f"the prototype's keys, id sets and signatures equal the package's on {len(checked):,} documents"
        )

        lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
        chunks = [texts[a:b] for a, b in chunk_bounds(lengths, limits.CHUNK_CHARS, limits.CHUNK_DOCS)]
        signing: dict[str, list[float]] = {"numpy": [], "numba": []}
        for _ in range(args.rounds):  # signing alone, chunk by chunk, one thread, in this process
            signing["numpy"].append(timed(sign_chunks, _numpy_prepare, chunks, settings)[0])
            signing["numba"].append(timed(sign_chunks, prepare_compiled, chunks, settings)[0])
        for name, runs in signing.items():
            per_doc = statistics.median(runs) / len(texts) * 1e6
            print(f"prepare with {name} signing: {per_doc:5.1f} µs a document (one thread)")

        here, peers = Path(__file__).resolve(), Path(__file__).resolve().with_name("bench_peers.py")
        seconds: dict[str, list[float]] = {name: [] for name in (*VARIANTS, *PEERS)}
        recall: dict[str, float] = {}
        for _ in range(args.rounds):  # every variant once a round, each in a fresh process
            for name in VARIANTS:
                result = run_fresh(here, name, corpus)
                seconds[name].append(result["seconds"])
                recall[name] = score(result["labels"], truth)["recall"]
        for name in PEERS:  # once each: they take minutes
            result = run_fresh(peers, name, corpus)
            seconds[name].append(result["seconds"])
            recall[name] = score(result["labels"], truth)["recall"]

    median = {name: statistics.median(runs) for name, runs in seconds.items()}
    print(
        f"\n{'end to end, texts in memory to clusters':42s} {'s':>6s} "
        f"{'datasketch/it':>14s} {'rensa/it':>9s} {'recall':>7s}"
    )
    for name, value in median.items():
        print(
            f"{name:42s} {value:6.2f} {median['datasketch'] / value:13.1f}x "
            f"{median['rensa'] / value:8.1f}x {recall[name]:7.4f}"
        )
    for name in ("numpy", "numba"):
        one, two = (median[f"neardup_lab, {name} signing, n_jobs={jobs}"] for jobs in (1, 2))
        print(f"{name} signing: n_jobs=2 {one / two:.2f}x faster than n_jobs=1")
    print(f"\nneardup_lab: medians of {args.rounds} rounds (every variant once a round); peers once each")


if __name__ == "__main__":
    main()
