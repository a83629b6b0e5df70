"""The labs' self-checks: a correct answer passes, a plausible wrong one is caught and named.

A check that cannot fail is a defect, so every check is fed the mistakes students
make (off-by-one shingles, no normalisation, the built-in ``hash()``, bands
sharing one table, the S-curve with ``r`` and ``b`` swapped, union-find without
transitive merging, a Hamming search that skips a block, ...). Each must fail,
and its report must name the case that caught it. No check may ever raise.
"""

from __future__ import annotations

import math
import os
import re
import string
import subprocess
import sys
import textwrap
import unicodedata
from pathlib import Path

import numpy as np
import pytest

from neardup_lab import (
    MinHasher,
    brute_force_pairs,
    candidate_pairs,
    char_shingles,
    checks,
    clusters_from_pairs,
    dedup,
    hamming,
    jaccard,
    normalize,
    optimal_params,
    precision_recall,
    s_curve,
    simhash,
    stable_hash,
    word_shingles,
)
from neardup_lab.checks import harness

P = 2**61 - 1


@pytest.fixture(autouse=True)
def fresh_tally():
    checks.reset()
    yield
    checks.reset()


def caught(check, answer, case, capsys, detail: str | None = None):
    """Assert that ``check`` fails on ``answer`` with a failure in ``case``, named in the report."""
    result = check(answer)
    out = capsys.readouterr().out
    assert not result.passed, out
    assert out.startswith(f"FAIL {check.__name__}: "), out
    names = [f.case for f in result.failures]
    assert case in names, f"expected case {case!r} to fail, failed: {names}\n{out}"
    assert repr(case) in out
    if detail is not None:
        failure = next(f for f in result.failures if f.case == case)
        assert detail in failure.detail + failure.got + failure.hint, failure
    return result


def passes(check, answer, capsys):
    result = check(answer)
    out = capsys.readouterr().out
    assert result.passed, out
    assert out.startswith(f"PASS {check.__name__}: all {result.cases} cases pass")
    return result


# ----------------------------------------------------------------- Lab 1


def test_normalize(capsys):
    passes(checks.check_normalize, normalize, capsys)

    def lower_split(text):
        return " ".join(text.lower().split())

    def categories(text, fold=str.casefold, nfkc=True, collapse=True):
        text = fold(unicodedata.normalize("NFKC", text) if nfkc else text)
        text = "".join(" " if unicodedata.category(ch)[0] in "PS" else ch for ch in text)
        return " ".join(text.split()) if collapse else text

    def ascii_punctuation(text):
        text = unicodedata.normalize("NFKC", text).casefold()
        return " ".join(text.translate({ord(c): " " for c in string.punctuation}).split())

    caught(checks.check_normalize, lower_split, "punctuation", capsys)
    caught(
        checks.check_normalize, lambda t: categories(t, nfkc=False), "full-width letters (Unicode)", capsys
    )
    caught(checks.check_normalize, lambda t: categories(t, nfkc=False), "combining accent (Unicode)", capsys)
    caught(
        checks.check_normalize, lambda t: categories(t, fold=str.lower), "German sharp s (Unicode)", capsys
    )
    caught(checks.check_normalize, ascii_punctuation, "typographic quotes and dash", capsys)
    caught(checks.check_normalize, lambda t: categories(t, collapse=False), "whitespace", capsys)

    def word_regex(text):  # \w counts "_" as a letter
        text = unicodedata.normalize("NFKC", text).casefold()
        return " ".join(re.sub(r"[^\w\s]", " ", text).split())

    caught(checks.check_normalize, word_regex, "underscore", capsys)


def _word_shingles(
    text, k, *, off_by_one=0, norm=normalize, short=True, empty=set, kind=set, check_k=True, zero_only=False
):
    if zero_only and k == 0:
        raise ValueError("k must not be 0")
    if check_k and not zero_only and k < 1:
        raise ValueError("k must be >= 1")
    tokens = norm(text).split()
    if len(tokens) < k:
        return kind([" ".join(tokens)]) if tokens and short else kind(empty())
    return kind(" ".join(tokens[i : i + k]) for i in range(len(tokens) - k + 1 - off_by_one))


def test_word_shingles(capsys):
    passes(checks.check_word_shingles, word_shingles, capsys)
    passes(checks.check_word_shingles, _word_shingles, capsys)
    ws = checks.check_word_shingles
    caught(ws, lambda t, k: _word_shingles(t, k, off_by_one=1), "three-word shingles", capsys, "missing 1")
    caught(ws, lambda t, k: _word_shingles(t, k, off_by_one=-1), "three-word shingles", capsys)
    caught(ws, lambda t, k: _word_shingles(t, k, norm=str), "Unicode and case", capsys)
    caught(ws, lambda t, k: _word_shingles(t, k, norm=str.lower), "three-word shingles", capsys)
    caught(ws, lambda t, k: _word_shingles(t, k, short=False), "text shorter than k", capsys)
    caught(ws, lambda t, k: _word_shingles(t, k, empty=lambda: {""}), "empty text", capsys)
    caught(ws, lambda t, k: _word_shingles(t, k, kind=list), "three-word shingles", capsys, "return a set")
    caught(ws, lambda t, k: _word_shingles(t, k, check_k=False), "k = 0 is an error", capsys)
    caught(ws, lambda t, k: _word_shingles(t, k, zero_only=True), "negative k is an error", capsys)
    caught(ws, lambda t, k: _word_shingles(t, k, kind=tuple), "three-word shingles", capsys, "return a set")


def _char_shingles(text, k, *, strip_spaces=False, off_by_one=0, norm=normalize):
    if k < 1:
        raise ValueError("k must be >= 1")
    text = norm(text)
    if strip_spaces:
        text = text.replace(" ", "")
    if len(text) < k:
        return {text} if text else set()
    return {text[i : i + k] for i in range(len(text) - k + 1 - off_by_one)}


def test_char_shingles(capsys):
    passes(checks.check_char_shingles, char_shingles, capsys)
    passes(checks.check_char_shingles, _char_shingles, capsys)
    cs = checks.check_char_shingles
    caught(cs, lambda t, k: _char_shingles(t, k, strip_spaces=True), "spaces count", capsys)
    caught(cs, lambda t, k: _char_shingles(t, k, off_by_one=1), "Japanese, no spaces", capsys)
    caught(cs, lambda t, k: _char_shingles(t, k, norm=str), "punctuation removed", capsys)
    caught(cs, lambda t, k: word_shingles(t, k), "spaces count", capsys)


def test_jaccard(capsys):
    passes(checks.check_jaccard, jaccard, capsys)
    cj = checks.check_jaccard
    caught(cj, lambda a, b: len(a & b) / len(a | b), "two empty sets", capsys, "ZeroDivisionError")
    caught(cj, lambda a, b: len(a & b) / len(a | b) if a or b else 0.0, "two empty sets", capsys)
    caught(cj, lambda a, b: len(a & b) / (len(a) + len(b)) if a or b else 1.0, "half overlap", capsys)
    caught(cj, lambda a, b: len(a & b) / len(a) if a else 1.0, "subset", capsys)
    caught(cj, lambda a, b: len(a & b), "half overlap", capsys)

    def grows_a(a, b):  # `a |= b` changes the caller's set
        a |= b
        return len(b) / len(a) if a else 1.0

    caught(cj, grows_a, "half overlap", capsys, "changed its input (argument 1)")


# ----------------------------------------------------------------- Lab 2


def _hash_parameters(k, seed):
    return [(stable_hash(f"a:{seed}:{i}") % (P - 1) + 1, stable_hash(f"b:{seed}:{i}") % P) for i in range(k)]


def _signature(shingles, params, *, h=stable_hash, pick=min, modulo=True, all_params=True):
    ids = [h(s) for s in shingles]
    out = []
    for a, b in params if all_params else [params[0]] * len(params):
        values = [(a * x + b) % P if modulo else a * x + b for x in ids]
        out.append(pick(values, default=P))
    return out


def test_minhash_signature(capsys):
    passes(checks.check_minhash_signature, _signature, capsys)
    cm = checks.check_minhash_signature
    builtin = caught(
        cm, lambda s, p: _signature(s, p, h=hash), "one shingle, a=1, b=0", capsys, "built-in hash()"
    )
    assert "PYTHONHASHSEED" in builtin.failures[0].detail
    caught(
        cm, lambda s, p: _signature(s, p, h=lambda t: stable_hash(t + "#")), "one shingle, a=1, b=0", capsys
    )
    caught(cm, lambda s, p: _signature(s, p, pick=max), "the minimum over the set", capsys)
    caught(cm, lambda s, p: _signature(s, p, all_params=False), "one shingle, two hash functions", capsys)
    caught(cm, lambda s, p: _signature(s, p, modulo=False), "one shingle, a=1, b=0", capsys, ">= P")
    caught(cm, lambda s, p: [min((a * stable_hash(x) + b) % P for x in s) for a, b in p], "empty set", capsys)
    caught(cm, lambda s, p: _signature(s, p) if s else [], "empty set", capsys, "one value per hash function")
    caught(
        cm,
        lambda s, p: (v for v in _signature(s, p)),
        "one shingle, a=1, b=0",
        capsys,
        "not a generator: it can be read only once and has no len()",
    )
    rng = np.random.default_rng()
    caught(
        cm, lambda s, p: [int(v) for v in rng.integers(0, P, len(p))], "same answer when called twice", capsys
    )


@pytest.mark.native("starts Python processes")
@pytest.mark.slow  # starts Python processes with different hash seeds
def test_minhash_signature_with_builtin_hash_fails_in_every_process():
    program = textwrap.dedent(
        """
        from neardup_lab import checks
        P = 2**61 - 1
        def sign(shingles, params):
            return [min(((a * hash(s) + b) % P for s in shingles), default=P) for a, b in params]
        result = checks.check_minhash_signature(sign)
        print("RESULT", result.passed, result.failures[0].case)
        """
    )
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", program], env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        assert "RESULT False one shingle, a=1, b=0" in done.stdout, done.stdout


def _estimate(sig_a, sig_b):
    if len(sig_a) != len(sig_b):
        raise ValueError("signatures differ in length")
    return sum(x == y for x, y in zip(sig_a, sig_b)) / len(sig_a)


def test_estimate_similarity(capsys):
    passes(checks.check_estimate_similarity, _estimate, capsys)
    ce = checks.check_estimate_similarity
    caught(ce, lambda a, b: len(set(a) & set(b)) / len(a), "same values, other positions", capsys)
    caught(ce, lambda a, b: sum(x == y for x, y in zip(a, b)) / len(a), "different lengths", capsys)
    caught(
        ce,
        lambda a, b: sum(x == y for x, y in zip(a, b)) if len(a) == len(b) else 1 / 0,
        "half equal",
        capsys,
    )
    caught(ce, lambda a, b: jaccard(set(a), set(b)) if len(a) == len(b) else 1 / 0, "half equal", capsys)


def _measure(set_a, set_b, k, trials, sign, *, root=True, mean_abs=False, same_seed=False, denominator=0):
    exact = jaccard(set_a, set_b)
    errors = []
    for seed in range(trials):
        params = _hash_parameters(k, 0 if same_seed else seed)
        errors.append(_estimate(sign(set_a, params), sign(set_b, params)) - exact)
    if mean_abs:
        return sum(abs(e) for e in errors) / trials
    mean_square = sum(e * e for e in errors) / (trials - denominator)
    return math.sqrt(mean_square) if root else mean_square


def test_measure_error(capsys):
    passes(checks.check_measure_error, _measure, capsys)
    cme = checks.check_measure_error
    case = "article and edited copy, k=16, trials=20"
    caught(cme, lambda *a: _measure(*a, mean_abs=True), case, capsys)
    caught(cme, lambda *a: _measure(*a, root=False), case, capsys)
    caught(cme, lambda *a: _measure(*a, same_seed=True), case, capsys)
    caught(cme, lambda *a: _measure(*a, denominator=1), "article and edited copy, k=32, trials=1", capsys)


def test_k_for_error(capsys):
    passes(checks.check_k_for_error, 625, capsys)
    passes(checks.check_k_for_error, 625.0, capsys)
    for wrong in (25, 624, 626, 12.5, "625", True):
        caught(checks.check_k_for_error, wrong, "smallest k for a standard error of 0.02 at J = 0.5", capsys)


# ----------------------------------------------------------------- Lab 3


def test_s_curve(capsys):
    passes(checks.check_s_curve, s_curve, capsys)
    passes(checks.check_s_curve, lambda s, b, r: 1 - (1 - s**r) ** b, capsys)
    cs = checks.check_s_curve
    caught(cs, lambda s, b, r: 1 - (1 - s**b) ** r, "many bands, few rows", capsys)
    caught(cs, lambda s, b, r: (1 - s**r) ** b, "s = 0 never", capsys)
    caught(cs, lambda s, b, r: s**r, "20 bands of 5 rows, s = 0.5", capsys)
    caught(cs, lambda s, b, r: 1 - (1 - s**r) * b, "20 bands of 5 rows, s = 0.5", capsys)


def _bands(
    sigs,
    bands,
    rows,
    *,
    shared=False,
    require_all=False,
    consecutive=False,
    extra=0,
    check=True,
    only=None,
    reverse=False,
):
    n, num_perm = sigs.shape
    if check and bands * rows > num_perm:
        raise ValueError("too many bands")
    pairs = set()
    tables = [{} for _ in range(bands)]
    shared_table: dict = {}
    for band in range(bands if only is None else only):
        table = shared_table if shared else tables[band]
        for doc in range(n):
            key = tuple(sigs[doc, band * rows : (band + 1) * rows + extra].tolist())
            table.setdefault(key, []).append(doc)
        if shared:
            continue
    groups = [m for t in ([shared_table] if shared else tables) for m in t.values()]
    for members in groups:
        members = sorted(set(members))
        if consecutive:
            pairs.update(zip(members, members[1:]))
        else:
            pairs.update((a, b) for i, a in enumerate(members) for b in members[i + 1 :])
    if require_all:
        pairs = {(i, j) for i, j in pairs if (sigs[i, : bands * rows] == sigs[j, : bands * rows]).all()}
    if reverse:
        pairs = {(j, i) for i, j in pairs}
    return pairs


def test_candidate_pairs(capsys):
    passes(checks.check_candidate_pairs, candidate_pairs, capsys)
    passes(checks.check_candidate_pairs, _bands, capsys)
    cc = checks.check_candidate_pairs
    caught(cc, lambda s, b, r: _bands(s, b, r, shared=True), "equal values in different bands", capsys)
    caught(cc, lambda s, b, r: _bands(s, b, r, require_all=True), "one band matches", capsys)
    caught(cc, lambda s, b, r: _bands(s, b, r, consecutive=True), "three equal rows", capsys, "missing 1")
    caught(cc, lambda s, b, r: _bands(s, b, r, extra=1), "one band matches", capsys)
    caught(cc, lambda s, b, r: _bands(s, b, r, check=False), "bands * rows > num_perm", capsys)
    caught(cc, lambda s, b, r: _bands(s, b, r, only=1), "one band matches", capsys)
    caught(cc, lambda s, b, r: _bands(s, b, r, reverse=True), "one band matches", capsys, "i < j")
    caught(cc, lambda s, b, r: list(_bands(s, b, r)) + [(0, 0)], "one band matches", capsys)
    caught(cc, lambda s, b, r: list(_bands(s, b, r)) * 2, "one band matches", capsys, "return a set")
    caught(
        cc, lambda s, b, r: {list(p) and p[::1] + (0,) for p in _bands(s, b, r)}, "one band matches", capsys
    )


def _choose(threshold, num_perm, *, exact_products=False, fp_only=False, swap=False, approx=False):
    steps = 1000
    below = (np.arange(steps) + 0.5) / steps * threshold
    above = threshold + (np.arange(steps) + 0.5) / steps * (1 - threshold)
    best, best_error = None, float("inf")
    for bands in range(1, num_perm + 1):
        for rows in range(1, num_perm // bands + 1):
            if exact_products and bands * rows != num_perm:
                continue
            fp = np.mean(1 - (1 - below**rows) ** bands) * threshold
            fn = np.mean((1 - above**rows) ** bands) * (1 - threshold)
            error = fp if fp_only else fp + fn
            if approx:
                error = abs((1 / bands) ** (1 / rows) - threshold)
            if error < best_error:
                best, best_error = (bands, rows), error
    return best[::-1] if swap else best


def test_choose_bands_rows(capsys):
    passes(checks.check_choose_bands_rows, optimal_params, capsys)
    passes(checks.check_choose_bands_rows, _choose, capsys)
    cb = checks.check_choose_bands_rows
    caught(cb, lambda t, n: _choose(t, n, swap=True), "threshold 0.8, 128 hash functions", capsys)
    caught(cb, lambda t, n: _choose(t, n, exact_products=True), "threshold 0.8, 128 hash functions", capsys)
    caught(cb, lambda t, n: _choose(t, n, fp_only=True), "threshold 0.8, 128 hash functions", capsys)
    caught(cb, lambda t, n: _choose(t, n, approx=True), "threshold 0.8, 128 hash functions", capsys)
    caught(cb, lambda t, n: (n, 2), "threshold 0.5, 16 hash functions", capsys, "more than num_perm")
    caught(cb, lambda t, n: "9x13", "threshold 0.8, 128 hash functions", capsys, "pair (bands, rows)")


def test_target_choice(capsys):
    for good in [(17, 5), (18, 5), (19, 5), (20, 5), [20, 5], (np.int64(20), np.int64(5))]:
        passes(checks.check_target_choice, good, capsys)
    ct = checks.check_target_choice
    caught(ct, (5, 20), "similarity 0.7 found with probability >= 0.95", capsys)
    caught(ct, (25, 4), "similarity 0.3 found with probability <= 0.05", capsys)
    caught(ct, (21, 5), "at most 100 hash functions", capsys)
    caught(ct, (16, 5), "similarity 0.7 found with probability >= 0.95", capsys)
    caught(ct, "20x5", "at most 100 hash functions", capsys)
    caught(ct, (20.0, 5), "at most 100 hash functions", capsys)


# ----------------------------------------------------------------- Lab 4


def test_precision_recall(capsys):
    passes(checks.check_precision_recall, precision_recall, capsys)
    cp = checks.check_precision_recall

    def ordered(found, truth):
        found, truth = set(found), set(truth)
        hits = len(found & truth)
        return (hits / len(found) if found else 1.0, hits / len(truth) if truth else 1.0)

    def divides(found, truth):
        found, truth = {tuple(sorted(p)) for p in found}, {tuple(sorted(p)) for p in truth}
        return len(found & truth) / len(found), len(found & truth) / len(truth)

    def counts_repeats(found, truth):
        found, truth = [tuple(sorted(p)) for p in found], {tuple(sorted(p)) for p in truth}
        hits = sum(p in truth for p in found)
        return (hits / len(found) if found else 1.0, len(set(found) & truth) / len(truth) if truth else 1.0)

    caught(cp, ordered, "pairs in either order", capsys)
    caught(cp, divides, "nothing found", capsys, "ZeroDivisionError")
    caught(cp, lambda f, t: precision_recall(f, t)[::-1], "nothing found", capsys)
    caught(
        cp,
        lambda f, t: list(precision_recall(f, t)) + [0.0],
        "random pairs (seed 7)",
        capsys,
        "(precision, recall)",
    )
    caught(cp, counts_repeats, "the same pair twice", capsys)


def test_clusters(capsys):
    passes(checks.check_clusters, clusters_from_pairs, capsys)
    passes(checks.check_clusters, lambda n, pairs: list(reversed(clusters_from_pairs(n, pairs))), capsys)
    passes(checks.check_clusters, lambda n, pairs: tuple(map(set, clusters_from_pairs(n, pairs))), capsys)
    caught(
        checks.check_clusters,
        lambda n, pairs: reversed(clusters_from_pairs(n, pairs)),
        "a chain",
        capsys,
        "read only once",
    )
    cc = checks.check_clusters

    def relabel_one_side(n, pairs):  # union without transitive merging
        label = list(range(n))
        for a, b in pairs:
            label[b] = label[a]
        groups: dict = {}
        for x in range(n):
            groups.setdefault(label[x], []).append(x)
        return list(groups.values())

    def no_singletons(n, pairs):
        return [c for c in clusters_from_pairs(n, pairs) if len(c) > 1]

    def pairs_as_clusters(n, pairs):
        return [list(p) for p in pairs]

    caught(cc, relabel_one_side, "pair that joins two groups", capsys)
    caught(cc, no_singletons, "no pairs", capsys, "in no cluster")
    caught(cc, pairs_as_clusters, "a chain", capsys, "in two clusters")


def _pipeline(
    band_threshold=0.6,
    verify=True,
    shingle=word_shingles,
    drop_singletons=False,
    bands_rows=None,
    brute_force=False,
    clusters_only=False,
):
    def deduplicate(docs):
        sets = [shingle(d, 5) for d in docs]
        sigs = MinHasher(num_perm=128, seed=1).signatures(sets)
        bands, rows = bands_rows or optimal_params(band_threshold, 128)
        if brute_force:
            candidates = {(i, j) for i in range(len(docs)) for j in range(i + 1, len(docs))}
        else:
            candidates = candidate_pairs(sigs, bands, rows)
        pairs = [(i, j) for i, j in candidates if not verify or jaccard(sets[i], sets[j]) >= 0.8]
        clusters = clusters_from_pairs(len(docs), pairs)
        clusters = [c for c in clusters if len(c) > 1] if drop_singletons else clusters
        return clusters if clusters_only else (clusters, set(candidates))

    return deduplicate


def test_verify_pairs(capsys):
    def verify(candidates, sets, *, strict=False, kind=set):
        keep = (lambda x: x > 0.8) if strict else (lambda x: x >= 0.8)
        return kind((i, j) for i, j in candidates if keep(jaccard(sets[i], sets[j])))

    passes(checks.check_verify_pairs, verify, capsys)
    cv = checks.check_verify_pairs
    caught(cv, lambda c, s: verify(c, s, strict=True), "a pair exactly at the threshold", capsys)
    caught(cv, lambda c, s: verify(c, s, kind=list), "mixed", capsys, "return a set")
    caught(cv, lambda c, s: set(c), "a pair just below the threshold", capsys)

    def every_pair(candidates, sets):
        n = len(sets)
        return verify({(i, j) for i in range(n) for j in range(i + 1, n)}, sets)

    caught(cv, every_pair, "only the candidates are verified", capsys)


def test_dedup(capsys):
    passes(checks.check_dedup, _pipeline(), capsys)
    notes = harness.TALLY["check_dedup"].notes
    assert "precision 1.000, recall 1.000" in notes[0]
    assert re.match(
        r"cost: [\d,]+ candidate pairs verified \(target at most [\d,]+\), in [\d.]+ \S+$", notes[1]
    )

    def packaged(docs):  # the package's pipeline for the clusters, the lab's banding for the candidates
        result = dedup(docs, threshold=0.8, bands=18, rows=7)
        return result.clusters, _pipeline(bands_rows=(18, 7))(docs)[1]

    passes(checks.check_dedup, packaged, capsys)
    cd = checks.check_dedup

    def exact_only(docs):
        first: dict = {}
        pairs = [(first.setdefault(normalize(d), i), i) for i, d in enumerate(docs)]
        return clusters_from_pairs(len(docs), pairs), set()

    def raw_words(text, k):
        tokens = text.split()
        return {" ".join(tokens[i : i + k]) for i in range(max(1, len(tokens) - k + 1))}

    caught(cd, _pipeline(band_threshold=0.8), "hidden corpus: recall", capsys, "true pairs are split")
    caught(cd, exact_only, "hidden corpus: recall", capsys)
    caught(
        cd, _pipeline(verify=False, bands_rows=(32, 2)), "hidden corpus: precision", capsys, "not duplicates"
    )
    caught(cd, _pipeline(shingle=raw_words), "case and spacing copy", capsys)
    caught(cd, _pipeline(drop_singletons=True), "one document", capsys, "in no cluster")
    result = caught(
        cd, _pipeline(drop_singletons=True), "hidden corpus: every document in one cluster", capsys
    )
    skipped = [f for f in result.failures if f.case == "hidden corpus: precision"]
    assert skipped and "see the first case on it" in skipped[0].detail  # fails, without a second report
    caught(cd, _pipeline(bands_rows=(128, 1)), "hidden corpus: cost", capsys, "candidate pairs verified")
    caught(cd, _pipeline(brute_force=True), "hidden corpus: cost", capsys, "100.0% of all")
    caught(cd, _pipeline(clusters_only=True), "one document", capsys, "return a pair (clusters,")


# ----------------------------------------------------------------- Lab 5


def test_hamming(capsys):
    passes(checks.check_hamming, hamming, capsys)
    passes(checks.check_hamming, lambda x, y: (x ^ y).bit_count(), capsys)
    ch = checks.check_hamming
    caught(ch, lambda x, y: bin(x | y).count("1"), "bits set in both do not count", capsys)
    caught(ch, lambda x, y: bin((x ^ y) & 0xFFFFFFFF).count("1"), "all 64 bits differ", capsys)
    caught(
        ch, lambda x, y: abs(bin(x).count("1") - bin(y).count("1")), "bits set in both do not count", capsys
    )


def _simhash(
    features, bits=64, *, h=stable_hash, tie=False, unique=False, reverse=False, empty_ok=False, use_bits=True
):
    features = sorted(set(features)) if unique else list(features)
    if not features and not empty_ok:
        raise ValueError("no features")
    width = bits if use_bits else 64
    votes = [0] * width
    for f in features:
        value = h(f)
        for i in range(width):
            bit = (value >> (63 - i if reverse else i)) & 1
            votes[i] += 1 if bit else -1
    return sum(1 << i for i in range(width) if votes[i] > 0 or (tie and votes[i] == 0))


def test_simhash(capsys):
    passes(checks.check_simhash, simhash, capsys)
    passes(checks.check_simhash, _simhash, capsys)
    cs = checks.check_simhash
    caught(cs, lambda f, bits=64: _simhash(f, bits, h=lambda s: hash(s) % 2**64), "one feature", capsys)
    caught(cs, lambda f, bits=64: _simhash(f, bits, tie=True), "a tie gives 0", capsys)
    caught(cs, lambda f, bits=64: _simhash(f, bits, unique=True), "repeats vote again", capsys)
    caught(cs, lambda f, bits=64: _simhash(f, bits, reverse=True), "one feature", capsys)
    caught(cs, lambda f, bits=64: _simhash(f, bits, empty_ok=True), "no features", capsys)
    caught(cs, lambda f, bits=64: _simhash(f, bits, use_bits=False), "16 bits", capsys)


class _Index:
    """A block-table index with switches for the mistakes the check must catch."""

    skip_last = skip_first = verify_off = brute = single = shared = wider_last = as_list = False
    fewer_blocks = 0

    def __init__(self, max_distance, bits=64):
        self.d, self.bits = max_distance, bits
        blocks = max(1, max_distance + 1 - self.fewer_blocks)
        self.spans, start = [], 0
        for b in range(blocks):
            wider = b >= blocks - bits % blocks if self.wider_last else b < bits % blocks
            width = bits // blocks + (1 if wider else 0)
            self.spans.append((start, width))
            start += width
        one_table: dict = {}
        self.tables = [one_table if self.shared else {} for _ in self.spans]
        self.fps = {}

    def _values(self, fp):
        return [(fp >> s) & ((1 << w) - 1) for s, w in self.spans]

    def _used(self):
        pairs = list(zip(self.tables, range(len(self.spans))))
        if self.skip_last:
            pairs = pairs[:-1] if len(pairs) > 1 else pairs
        if self.skip_first:
            pairs = pairs[1:] if len(pairs) > 1 else pairs
        return pairs

    def add(self, key, fp):
        self.fps[key] = fp
        values = self._values(fp)
        for table, b in self._used():
            if self.single:
                table[values[b]] = [key]
            else:
                table.setdefault(values[b], []).append(key)

    def candidates(self, fp):
        if self.brute:
            return set(self.fps)
        values, found = self._values(fp), set()
        for table, b in self._used():
            found.update(table.get(values[b], []))
        return found

    def query(self, fp):
        found = self.candidates(fp)
        found = found if self.verify_off else {k for k in found if hamming(self.fps[k], fp) <= self.d}
        return sorted(found, key=str) if self.as_list else found


def _index(**mistakes):
    return type("WrongIndex", (_Index,), mistakes)


def test_block_index(capsys):
    passes(checks.check_block_index, _Index, capsys)
    passes(checks.check_block_index, _index(wider_last=True), capsys)
    cb = checks.check_block_index
    caught(cb, _index(shared=True), "a block value in another block is no match", capsys)
    caught(cb, _index(as_list=True), "max_distance = 3", capsys, "return a set of keys from query()")
    caught(cb, _index(skip_last=True), "max_distance = 3", capsys, "missed")
    caught(cb, _index(skip_first=True), "max_distance = 3", capsys, "missed")
    caught(cb, _index(fewer_blocks=1), "max_distance = 3", capsys, "missed")
    caught(cb, _index(verify_off=True), "max_distance = 3", capsys, "farther than")
    caught(cb, _index(single=True), "max_distance = 3", capsys, "missed")
    caught(cb, _index(brute=True), "few candidates", capsys, "agree with it on no whole block")


# ----------------------------------------------------------------- Lab 6


def _pr_at(scores, labels, t, *, strict=False, empty=1.0, as_list=False):
    flagged = [bool(y) for x, y in zip(scores, labels) if (x > t if strict else x >= t)]
    positives = sum(bool(y) for y in labels)
    hits = sum(flagged)
    pair = (hits / len(flagged) if flagged else empty, hits / positives if positives else 1.0)
    return list(pair) if as_list else pair


def test_precision_recall_at(capsys):
    passes(checks.check_precision_recall_at, _pr_at, capsys)
    cp = checks.check_precision_recall_at
    caught(cp, lambda s, y, t: _pr_at(s, y, t, strict=True), "a score equal to the threshold", capsys)
    caught(cp, lambda s, y, t: _pr_at(s, y, t, empty=0.0), "nothing flagged", capsys)
    caught(cp, lambda s, y, t: _pr_at(s, y, t)[::-1], "nothing flagged", capsys)
    passes(cp, lambda s, y, t: _pr_at(s, y, t, as_list=True), capsys)  # positions matter: list or tuple
    caught(cp, lambda s, y, t: iter(_pr_at(s, y, t)), "half and half", capsys, "(precision, recall)")

    def counts_values(scores, labels, t):  # labels 0/1 compared with `is True`
        return _pr_at(scores, [y is True for y in labels], t)

    caught(cp, counts_values, "numpy arrays, labels as 0 and 1", capsys)

    def sorts_in_place(scores, labels, t):
        if isinstance(scores, list):
            scores.sort()
        return _pr_at(scores, labels, t)

    caught(cp, sorts_in_place, "half and half", capsys, "changed its input")


def _cost(scores, labels, t, miss, alarm, *, swap=False, strict=False):
    flag = (lambda x: x > t) if strict else (lambda x: x >= t)
    misses = sum(1 for x, y in zip(scores, labels) if y and not flag(x))
    alarms = sum(1 for x, y in zip(scores, labels) if not y and flag(x))
    return (alarm * misses + miss * alarms) if swap else (miss * misses + alarm * alarms)


def test_cost_at(capsys):
    passes(checks.check_cost_at, _cost, capsys)
    cc = checks.check_cost_at
    caught(cc, lambda *a: _cost(*a, swap=True), "misses cost more", capsys)
    caught(cc, lambda *a: _cost(*a, strict=True), "a score equal to the threshold", capsys)
    caught(cc, lambda s, y, t, m, a: m + a, "one of each", capsys)


def _best(scores, labels, thresholds, miss, alarm, *, lowest=False, first=False):
    ordered = list(thresholds) if first else sorted(thresholds, reverse=not lowest)
    return min(ordered, key=lambda t: _cost(scores, labels, t, miss, alarm))


def test_best_threshold(capsys):
    passes(checks.check_best_threshold, _best, capsys)
    cb = checks.check_best_threshold
    caught(cb, lambda *a: _best(*a, lowest=True), "a tie goes to the highest threshold", capsys)
    caught(cb, lambda s, y, ts, m, a: max(ts, key=lambda t: _cost(s, y, t, m, a)), "equal costs", capsys)
    caught(cb, lambda s, y, ts, m, a: ts[0], "false alarms expensive", capsys)


def _totals(miss=1.0, alarm=5.0, per_candidate=0.4):
    data = checks.labelled_pairs()
    sets = [word_shingles(d, 3) for d in data.docs]
    scores = [jaccard(sets[i], sets[j]) for i, j in data.pairs]
    counts = checks.candidate_counts()
    return {
        t: _cost(scores, data.labels, t, miss, alarm) + per_candidate * counts[t] for t in checks.THRESHOLDS
    }


def test_chosen_threshold(capsys):
    totals = _totals()
    passes(checks.check_chosen_threshold, totals, capsys)
    passes(checks.check_chosen_threshold, {np.float64(t): v for t, v in totals.items()}, capsys)
    cc = checks.check_chosen_threshold
    caught(cc, _totals(per_candidate=0.0), "candidates are priced", capsys)
    caught(cc, _totals(per_candidate=0.04), "candidates are priced", capsys)
    caught(cc, {t: v for t, v in totals.items() if t != 0.5}, "a total for every threshold", capsys, "0.5")
    caught(cc, {**totals, 0.123: 1.0}, "a total for every threshold", capsys, "not one of the lab's")
    caught(cc, {t: v + 0.5 for t, v in totals.items()}, "misses and false alarms are priced", capsys)
    caught(cc, 0.55, "a total for every threshold", capsys, "not a float")


# ----------------------------------------------------------------- Lab 7


def _strip(text, *, anywhere=False, prefix=False, signs=True, keep_case=False, line_start=False):
    kept = []
    for line in text.split("\n"):
        start = line.lstrip() if keep_case else line.lstrip().lower()
        marks = re.match(r"((?:(?:copyright\b|\(c\)|©)[\s:]*)+)", line.lstrip(), re.IGNORECASE)
        if anywhere:
            drop = "copyright" in start.lower()
        elif prefix:
            drop = start.lower().startswith("copyright")
        elif line_start:  # the old rule: any line that begins with a mark
            drop = bool(re.match(r"copyright(?=[\s:]|$)|©|\(c\)", start))
        elif (
            marks
            and (signs or "©" not in line)
            and (not keep_case or start.startswith(("Copyright", "©", "(")))
        ):
            rest = line.lstrip()[marks.end() :]
            year = bool(re.match(r"[\[<({]?\d", rest))
            name = len(rest) > 1 and rest[0].isupper() and rest[1].islower() and not rest.startswith("Holder")
            drop = year or (name and bool(re.search("copyright|©", marks.group(1), re.IGNORECASE)))
        else:
            drop = False
        if not drop:
            kept.append(line)
    return "\n".join(kept)


def test_strip_copyright(capsys):
    passes(checks.check_strip_copyright, _strip, capsys)
    passes(
        checks.check_strip_copyright,
        lambda t: "\n".join(x for x in _strip(t).split("\n") if x.strip()),
        capsys,
    )
    sc = checks.check_strip_copyright
    caught(
        sc, lambda t: _strip(t, anywhere=True), "copyright in a sentence stays", capsys, "should stay is gone"
    )
    caught(sc, lambda t: _strip(t, prefix=True), "a longer word stays", capsys)
    caught(sc, lambda t: _strip(t, signs=False), "the © sign", capsys, "should go is still there")
    caught(sc, lambda t: _strip(t, keep_case=True), "upper case", capsys)
    caught(
        sc, lambda t: _strip(t, line_start=True), "a wrapped BSD line stays", capsys, "should stay is gone"
    )
    caught(sc, lambda t: _strip(t, line_start=True), "an Apache clause stays", capsys)
    caught(sc, lambda t: t.split("\n")[1:], "a holder line", capsys, "return the text as a str")

    def first_line_only(text):
        lines = text.split("\n")
        return "\n".join(lines[1:] if _strip(lines[0]) == "" else lines)

    caught(sc, first_line_only, "several holders", capsys)


def test_containment_of(capsys):
    from neardup_lab import containment

    passes(checks.check_containment_of, containment, capsys)
    co = checks.check_containment_of
    caught(co, jaccard, "a inside b", capsys)
    caught(co, lambda a, b: len(a & b) / len(b) if b else 1.0, "b inside a", capsys)
    caught(co, lambda a, b: len(a & b) / len(a), "empty a", capsys, "ZeroDivisionError")
    caught(co, lambda a, b: len(a & b), "b inside a", capsys)


def _text_clusters(strip=_strip, k=5, threshold=0.9):
    sets = [word_shingles(strip(t), k) for t in checks.licence_corpus().texts]
    return clusters_from_pairs(len(sets), brute_force_pairs(sets, threshold))


def test_distinct_texts(capsys):
    clusters = _text_clusters()
    passes(checks.check_distinct_texts, clusters, capsys)
    passes(checks.check_distinct_texts, [sorted(c) for c in reversed(clusters)], capsys)
    n = len(checks.licence_corpus().names)
    cd = checks.check_distinct_texts
    caught(cd, [c for c in clusters if len(c) > 1], "a partition of the files", capsys, "in no cluster")
    caught(cd, [{i} for i in range(n)], "same texts together, unlike licences apart", capsys, "same text")
    caught(cd, [set(range(n))], "same texts together, unlike licences apart", capsys, "reach only Jaccard")
    caught(cd, [set(range(n))], "a partition of the files", capsys, "1 cluster:")
    caught(cd, len(clusters), "a partition of the files", capsys, "a list of clusters")
    caught(cd, [*clusters, {0}], "a partition of the files", capsys, "in two clusters")


def _changed_copy(tmp_path, change) -> Path:
    """A copy of the licence corpus with ``change(files_folder)`` applied."""
    import shutil

    copy = tmp_path / "licences"
    shutil.copytree(checks.lab7_licences.licence_folder(), copy)
    change(copy / "files")
    return copy


_BOM_FILES = [
    checks.lab7_licences.licence_folder() / "files" / name
    for name in ("partd/LICENSE.txt", "distributed/licenses/LICENSE.txt")
]


def test_a_licence_file_that_lost_its_byte_order_mark_counts_as_unchanged(tmp_path, capsys):
    def drop_boms(files):  # what the browser's file system does to the two files that have one
        for path in files.rglob("*.txt"):
            raw = path.read_bytes()
            path.write_bytes(raw.removeprefix(b"\xef\xbb\xbf"))

    native = checks.licence_corpus()
    browser = checks.licence_corpus(_changed_copy(tmp_path, drop_boms))
    assert browser.changed == () and capsys.readouterr().err == ""
    assert browser.texts == native.texts  # the same texts, so the same numbers and verdicts
    assert not any(text.startswith("\ufeff") for text in native.texts)
    assert any(path.read_bytes().startswith(b"\xef\xbb\xbf") for path in _BOM_FILES)


@pytest.mark.native("checks the computer's wording and the corpus beside the package in a checkout")
def test_a_changed_corpus_fails_every_check_saying_what_to_put_back(tmp_path, monkeypatch, capsys):
    def change(files):
        path = files / "partd" / "LICENSE.txt"
        path.write_bytes(path.read_bytes() + b"tampered")
        (files / "xxhash" / "licenses" / "LICENSE.txt").unlink()
        first = files / "mdurl" / "LICENSE.txt"  # only a byte-order mark added: a change too
        first.write_bytes(b"\xef\xbb\xbf" + first.read_bytes())

    copy = _changed_copy(tmp_path, change)
    corpus = checks.licence_corpus(copy)
    err = capsys.readouterr().err
    assert sorted(corpus.changed) == ["mdurl/LICENSE.txt", "partd/LICENSE.txt", "xxhash/licenses/LICENSE.txt"]
    assert "3 licence files differ" in err and "data/licences again" in err
    assert corpus.texts[corpus.names.index("xxhash/licenses/LICENSE.txt")] == ""
    monkeypatch.setenv(checks.lab7_licences.LICENCES_ENV, str(copy))
    clusters = [{i} for i in range(len(corpus.names))]
    for check, answer in (
        (checks.check_strip_copyright, lambda text: text),
        (checks.check_containment_of, lambda a, b: 1.0),
        (checks.check_distinct_texts, clusters),
    ):
        result = caught(check, answer, "the lab's licence files", capsys, "partd/LICENSE.txt")
        assert result.cases == 1 and "run the notebook again" in result.failures[0].detail
    monkeypatch.setattr(checks.lab7_licences.sys, "platform", "emscripten")
    problem = checks.lab7_licences.corpus_problem(corpus)
    assert "os.remove('" in problem and "zip" not in problem
    monkeypatch.delenv(checks.lab7_licences.LICENCES_ENV)
    passes(checks.check_containment_of, checks.lab7_licences.containment, capsys)  # the shipped copy


@pytest.mark.native("finds the corpus beside the package in a checkout")
def test_licence_corpus_is_found_in_its_places(tmp_path, monkeypatch):
    source = checks.lab7_licences.licence_folder()
    copy = _changed_copy(tmp_path, lambda files: None)
    assert checks.licence_corpus(copy).names == checks.licence_corpus().names
    monkeypatch.setenv(checks.lab7_licences.LICENCES_ENV, str(tmp_path / "nowhere"))
    monkeypatch.chdir(tmp_path)
    assert checks.lab7_licences.licence_folder() == source  # the repository's copy is the last place
    with pytest.raises(FileNotFoundError, match="NEARDUP_LAB_LICENCES"):
        checks.lab7_licences.licence_folder(tmp_path / "nowhere")


# ------------------------------------------------------- every check, generally

ALL_CHECKS = [getattr(checks, name) for lab in checks.LABS.values() for name in lab]
VALUE_CHECKS = {"check_k_for_error", "check_target_choice", "check_chosen_threshold", "check_distinct_texts"}


def test_registry_names_every_check():
    public = {name for name in checks.__all__ if name.startswith("check_")}
    assert public == {name for lab in checks.LABS.values() for name in lab}
    assert len(checks.LABS) == 7
    assert set(checks.POINTS) == public


@pytest.mark.parametrize("check", ALL_CHECKS, ids=lambda c: c.__name__)
def test_unfinished_answer_is_reported_not_raised(check, capsys):
    if check.__name__ in VALUE_CHECKS:
        result = check(...)
        expected = f"not answered yet: {harness.answer_name(check.__name__)}"
    elif check is checks.check_block_index:

        class BlockIndex:
            def __init__(self, max_distance, bits=64):
                raise NotImplementedError("BlockIndex.__init__: write your code here")

        result = check(BlockIndex)
        expected = "not implemented yet: BlockIndex.__init__"
    else:

        def student_function(*args, **kwargs):
            raise NotImplementedError("student_function: write your code here")

        result = check(student_function)
        expected = "not implemented yet: student_function"
    out = capsys.readouterr().out
    assert not result.passed and result.status == "not implemented"
    assert out.splitlines()[0] == f"FAIL {check.__name__}: {expected}"
    assert "hint:" in out


@pytest.mark.parametrize("check", ALL_CHECKS, ids=lambda c: c.__name__)
def test_crashing_answer_is_reported_not_raised(check, capsys):
    def crashes(*args, **kwargs):
        raise RuntimeError("boom")

    result = check(crashes)
    out = capsys.readouterr().out
    assert not result.passed and result.status == "fail"
    if check.__name__ not in VALUE_CHECKS:
        assert "raised RuntimeError: boom" in out
    for line in ("    input:", "    expected:", "    got:"):
        assert line in out


@pytest.mark.parametrize("check", ALL_CHECKS, ids=lambda c: c.__name__)
def test_nonsense_answer_is_reported_not_raised(check, capsys):
    for answer in (None, 42, "text", lambda *a, **k: None, lambda *a, **k: object()):
        result = check(answer)
        assert not result.passed
    out = capsys.readouterr().out
    assert "Traceback" not in out


def test_helper_inside_answer_not_implemented(capsys):
    def helper(text):
        raise NotImplementedError("my_normalize: write your code here")

    def my_word_shingles(text, k):
        return helper(text)

    result = checks.check_word_shingles(my_word_shingles)
    assert result.missing == "not implemented yet: my_normalize (used by my_word_shingles)"


def test_a_function_that_changes_its_input_fails_with_a_note(capsys):
    def clears(a, b):
        value = jaccard(a, b)
        for given in (a, b):
            if isinstance(given, set):
                given.clear()
        return value

    result = checks.check_jaccard(clears)
    out = capsys.readouterr().out
    assert not result.passed
    assert "note: clears changed its input (argument 1 and argument 2)" in out
    # Each case got its own fresh copy, so every value is right; only the change is reported.
    assert result.failures and all(f.got == f.expected for f in result.failures)
    assert all("changed its input" in f.detail for f in result.failures)


def test_every_check_uses_the_container_rule(capsys):
    as_tuple = checks.check_char_shingles(lambda t, k: tuple(char_shingles(t, k)))
    as_list = checks.check_candidate_pairs(lambda s, b, r: sorted(candidate_pairs(s, b, r)))
    out = capsys.readouterr().out
    assert not as_tuple.passed and not as_list.passed
    assert (
        "return a set, not a tuple" in out
        and "return a set of (i, j) pairs (set or frozenset), not a list" in out
    )
    assert out.count("  Return a set (set or frozenset) where order means nothing") == 2  # once per report


def test_hints_point_to_the_bug_without_giving_the_code(capsys):
    code = re.compile(
        r"\.join\(|\.split\(|\.count\(|\bbin\(|\blen\(|\bsorted\(|\[\w*[:*]|\*\*|%\s*P|>>|==|\bsig\["
    )
    hints = set()
    for check in ALL_CHECKS:
        for answer in (lambda *a, **k: object(), object()):
            result = check(answer)
            hints |= {f.hint for f in result.failures}
    capsys.readouterr()
    assert len(hints) > 20
    offending = sorted(h for h in hints if code.search(h))
    assert not offending, offending


def test_grading_mode_adds_cases_with_other_seeds(capsys):
    plain = checks.check_jaccard(jaccard)
    with checks.grading_mode():
        graded = checks.check_jaccard(jaccard)
        assert checks.grading()
    assert not checks.grading()
    assert graded.passed and graded.cases > plain.cases


def test_summary_and_grade(capsys):
    checks.check_jaccard(jaccard)
    checks.check_normalize(lambda text: text)
    summary = checks.summary("lab01")
    out = capsys.readouterr().out
    assert summary.as_dict() == {
        "lab": "lab01",
        "passed": 1,
        "total": 4,
        "checks": {
            "check_jaccard": True,
            "check_normalize": False,
            "check_word_shingles": False,
            "check_char_shingles": False,
        },
    }
    assert out.splitlines()[-4:] == [
        "lab01: 1 of 4 checks pass",
        "  FAIL check_normalize: 12 of 13 cases fail",
        "  FAIL check_word_shingles: not run yet (run its cell)",
        "  FAIL check_char_shingles: not run yet (run its cell)",
    ]
    assert checks.summary(1).passed == ["check_jaccard"]
    namespace = {
        "my_normalize": normalize,
        "my_word_shingles": word_shingles,
        "my_char_shingles": char_shingles,
        "my_jaccard": jaccard,
    }
    graded = checks.grade("lab01", namespace)
    assert graded.as_dict()["passed"] == 4
    assert "Every check passes" in capsys.readouterr().out
    graded = checks.grade("lab05", {"my_hamming": hamming})
    assert graded.as_dict()["passed"] == 1
    assert "FAIL check_simhash: not defined: my_simhash" in capsys.readouterr().out
    with pytest.raises(ValueError, match="unknown lab"):
        checks.summary("lab99")


def test_reports_are_deterministic(capsys):
    wrong = lambda t, k: _word_shingles(t, k, norm=str)  # noqa: E731
    checks.check_word_shingles(wrong)
    first = capsys.readouterr().out
    checks.check_word_shingles(wrong)
    assert capsys.readouterr().out == first
    assert "detail:   missing 2: {'rain go away', 'rain rain go'}; unexpected 2:" in first
