"""Checks for Lab 2: MinHash from scratch."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from ..corpus import replace_words
from ..hashing import stable_hash
from ..minhash import estimate_jaccard
from ..text import jaccard, word_shingles
from .harness import (
    Case,
    CheckResult,
    as_sequence,
    call_on_copies,
    run_check,
    sample_article,
    show_value,
)

#: The prime of the lab's hash functions ``h(x) = (a*x + b) mod P``.
MINHASH_PRIME = 2**61 - 1


def _lab_hash_parameters(k: int, seed: int) -> list[tuple[int, int]]:
    """The lab's hash family: ``k`` pairs ``(a, b)``, the same in every process."""
    p = MINHASH_PRIME
    return [(stable_hash(f"a:{seed}:{i}") % (p - 1) + 1, stable_hash(f"b:{seed}:{i}") % p) for i in range(k)]


def _lab_signature(shingles: Iterable[str], params: list[tuple[int, int]]) -> list[int]:
    ids = [stable_hash(s) for s in shingles]
    return [min(((a * x + b) % MINHASH_PRIME for x in ids), default=MINHASH_PRIME) for a, b in params]


def measure_signer(shingles: Iterable[str], params: list[tuple[int, int]]) -> list[int]:
    """The signer :func:`check_measure_error` hands to a student's ``measure_error`` as ``sign``.

    A MinHash of the same family as the exercise's, over other shingle ids (each shingle hashed
    with a prefix), so its values are not the answer to ``check_minhash_signature``: a hand-in
    that wraps it gets other signatures there.

    >>> params = [(3, 1), (5, 2)]
    >>> measure_signer({"a b"}, params) == measure_signer({"a b"}, params) != _lab_signature({"a b"}, params)
    True
    """
    ids = [stable_hash(f"measure:{s}") for s in shingles]
    return [min(((a * x + b) % MINHASH_PRIME for x in ids), default=MINHASH_PRIME) for a, b in params]


def _lab_estimate(sig_a: list[int], sig_b: list[int]) -> float:
    return sum(x == y for x, y in zip(sig_a, sig_b)) / len(sig_a)


def _as_int_list(got: Any) -> list[int]:
    values = as_sequence(got, "a list of ints")
    if not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in values):
        raise ValueError("every value of a signature is an int")
    return [int(v) for v in values]


def _builtin_hash_signatures(shingles: Iterable[str], params: list[tuple[int, int]]) -> list[list[int]]:
    """The signatures a student gets with the built-in ``hash()`` in this process (to say so)."""
    shingles = list(shingles)
    variants = (lambda s: hash(s), lambda s: hash(s) % 2**64, lambda s: abs(hash(s)))
    return [
        [min(((a * h(s) + b) % MINHASH_PRIME for s in shingles), default=MINHASH_PRIME) for a, b in params]
        for h in variants
    ]


def _signature_judge(
    expected: list[int], shingles: Iterable[str] = (), params: Sequence[tuple[int, int]] = ()
) -> Callable[[Any], str | None]:
    builtin = _builtin_hash_signatures(shingles, list(params)) if shingles else []

    def judge(got: Any) -> str | None:
        try:
            values = _as_int_list(got)
        except ValueError as exc:
            return str(exc)
        if len(values) != len(expected):
            return f"a signature needs one value per hash function: {len(expected)}, got {len(values)}"
        if values == expected:
            return None
        if values in builtin:
            return (
                "these are the values Python's built-in hash() gives in this process; another process "
                "(another PYTHONHASHSEED) gives others"
            )
        wrong = [i for i, (x, y) in enumerate(zip(values, expected)) if x != y]
        text = f"{len(wrong)} of {len(expected)} positions differ, first at position {wrong[0]}"
        if any(v >= MINHASH_PRIME for v in values):
            text += "; some values are >= P: reduce modulo P"
        return text

    return judge


def check_minhash_signature(func: Callable[[set[str], list[tuple[int, int]]], list[int]]) -> CheckResult:
    """Check a ``minhash_signature(shingles, params) -> list[int]``.

    Position ``i`` must hold ``min((a*x + b) % P)`` over the stable hashes ``x =
    stable_hash(s)`` of the shingles, with ``(a, b) = params[i]`` and ``P =
    2**61 - 1``; the empty set gives ``P`` everywhere.

    >>> check_minhash_signature(_lab_signature).passed
    PASS check_minhash_signature: all 7 cases pass
    True
    """
    p = MINHASH_PRIME
    stable = (
        "Hash each shingle with stable_hash(shingle), never the built-in hash(): hash() of a str "
        "changes from one Python process to the next (PYTHONHASHSEED)."
    )
    three = {"heavy rain", "in the city", "rain in the"}
    hand = [
        # Values written out by hand from stable_hash: the same on every machine.
        ("one shingle, a=1, b=0", {"heavy rain"}, [(1, 0)], [398839195375815907], stable),
        (
            "one shingle, two hash functions",
            {"heavy rain"},
            [(1, 0), (2, 5)],
            [398839195375815907, 797678390751631819],
            "Each position of the signature has its own pair (a, b) from params, in order.",
        ),
        (
            "the minimum over the set",
            three,
            [(1, 0)],
            [398839195375815907],
            "Keep the smallest hash value over all shingles, not the largest or the first.",
        ),
        (
            "empty set",
            set(),
            [(1, 0), (2, 5), (3, 7)],
            [p, p, p],
            "The minimum of nothing: use P (larger than every hash value) at every position.",
        ),
    ]
    cases = [
        Case(
            name,
            f"shingles={show_value(shingles)}, params={params}",
            call_on_copies(func, shingles, params),
            expected,
            judge=_signature_judge(expected, shingles, params),
            hint=hint,
        )
        for name, shingles, params, expected, hint in hand
    ]
    cases.append(signature_case(func, 21))

    a = word_shingles(sample_article(22, 120), 2)
    b = word_shingles(replace_words(sample_article(22, 120), 12, seed=2), 2)
    exact = jaccard(a, b)
    params = _lab_hash_parameters(256, 1)

    def estimate_close(got: Any) -> str | None:
        sig_b = _lab_signature(b, params)
        try:
            values = _as_int_list(got)
        except ValueError as exc:
            return str(exc)
        if len(values) != len(sig_b):
            return f"expected {len(sig_b)} values, got {len(values)}"
        estimate = _lab_estimate(values, sig_b)
        bound = 4 * math.sqrt(exact * (1 - exact) / len(params))
        if abs(estimate - exact) <= bound:
            return None
        return f"estimate {estimate:.3f} is more than {bound:.3f} from the exact Jaccard {exact:.3f}"

    cases.append(
        Case(
            "estimates Jaccard (k = 256)",
            "two versions of an article, 12 words apart; params=hash_parameters(256, seed=1)",
            call_on_copies(func, a, params),
            shown_expected=f"a signature whose estimate is within 4 standard errors of {exact:.3f}",
            judge=estimate_close,
            hint=stable,
        )
    )
    cases.append(
        Case(
            "same answer when called twice",
            "shingles={'a b', 'b c'}, params=hash_parameters(8, seed=0), called twice",
            lambda: (
                func({"a b", "b c"}, _lab_hash_parameters(8, 0)),
                func({"a b", "b c"}, _lab_hash_parameters(8, 0)),
            ),
            shown_expected="two equal signatures",
            judge=lambda got: (
                None if _as_int_list(got[0]) == _as_int_list(got[1]) else "the two calls differ"
            ),
            hint="Do not draw random numbers inside the function: everything comes from params.",
        )
    )
    return run_check("check_minhash_signature", func, cases)


def signature_case(func: Callable[[set[str], list[tuple[int, int]]], list[int]], seed: int) -> Case:
    """A case of :func:`check_minhash_signature`: an article's shingles, 8 to 31 hash functions.

    >>> signature_case(_lab_signature, 21).input.endswith("params=hash_parameters(29, seed=21)")
    True
    """
    article = word_shingles(sample_article(seed), 1 + seed % 4)
    k = 8 + seed % 24
    params = _lab_hash_parameters(k, seed)
    return Case(
        f"an article, {k} hash functions (seed {seed})",
        f"shingles=word_shingles(make_article(seed={seed}, n_words=60), {1 + seed % 4}), "
        f"params=hash_parameters({k}, seed={seed})",
        call_on_copies(func, article, params),
        _lab_signature(article, params),
        judge=_signature_judge(_lab_signature(article, params), article, params),
        hint="Hash each shingle with stable_hash(shingle), never the built-in hash(): hash() of a str "
        "changes from one Python process to the next (PYTHONHASHSEED).",
    )


def check_estimate_similarity(func: Callable[[list[int], list[int]], float]) -> CheckResult:
    """Check an ``estimate_similarity(sig_a, sig_b) -> float``: the share of equal positions.

    >>> check_estimate_similarity(_lab_estimate_checked).passed
    PASS check_estimate_similarity: all 9 cases pass
    True
    """
    share = "Compare the signatures position by position and return the share of positions that agree."
    hand = [
        ("identical", [1, 2, 3, 4], [1, 2, 3, 4], 1.0, share),
        ("nothing equal", [1, 2, 3, 4], [5, 6, 7, 8], 0.0, share),
        ("half equal", [1, 2, 3, 4], [1, 2, 9, 9], 0.5, share),
        (
            "same values, other positions",
            [1, 2, 3, 4],
            [4, 3, 2, 1],
            0.0,
            "Compare position by position: the same value at another position means nothing.",
        ),
        ("one hash function (k = 1)", [7], [7], 1.0, share),
        ("one of three", [5, 5, 5], [5, 6, 7], 1 / 3, "Return a fraction between 0 and 1, not a count."),
    ]
    cases = [
        Case(name, f"sig_a={a}, sig_b={b}", call_on_copies(func, a, b), expected, hint=hint)
        for name, a, b, expected, hint in hand
    ]
    cases.append(
        Case(
            "different lengths",
            "sig_a=[1, 2, 3], sig_b=[1, 2]",
            call_on_copies(func, [1, 2, 3], [1, 2]),
            raises=ValueError,
            hint="Signatures of different lengths come from different hash families: raise ValueError "
            "(zip() would silently drop the extra positions).",
        )
    )
    cases += [estimate_case(func, 31), estimate_case(func, 32)]  # lists, then numpy arrays (even seeds)
    return run_check("check_estimate_similarity", func, cases)


def estimate_case(func: Callable[[list[int], list[int]], float], seed: int) -> Case:
    """A case of :func:`check_estimate_similarity`: signatures of an article and an edited copy.

    >>> estimate_case(_lab_estimate_checked, 31).name
    'signatures of two articles (seed 31)'
    """
    k = 16 + seed % 64
    params = _lab_hash_parameters(k, seed)
    sig_a: list[int] | np.ndarray = _lab_signature(word_shingles(sample_article(seed), 3), params)
    sig_b: list[int] | np.ndarray = _lab_signature(
        word_shingles(replace_words(sample_article(seed), 1 + seed % 5, seed=1), 3), params
    )
    if seed % 2 == 0:  # numpy signatures, as MinHasher makes them
        sig_a, sig_b = np.array(sig_a, dtype=np.uint64), np.array(sig_b, dtype=np.uint64)
    return Case(
        f"signatures of two articles (seed {seed})",
        f"{k}-value signatures of an article and a copy with {1 + seed % 5} words replaced"
        + (" (numpy arrays)" if seed % 2 == 0 else ""),
        call_on_copies(func, sig_a, sig_b),
        float(estimate_jaccard(np.array(sig_a, dtype=np.uint64), np.array(sig_b, dtype=np.uint64))),
        hint="Compare the signatures position by position and return the share of positions that agree.",
    )


def _lab_estimate_checked(sig_a: list[int], sig_b: list[int]) -> float:
    if len(sig_a) != len(sig_b):
        raise ValueError(f"signatures differ in length: {len(sig_a)} vs {len(sig_b)}")
    return _lab_estimate(sig_a, sig_b)


def _lab_measure_error(set_a: set, set_b: set, k: int, trials: int, sign: Callable) -> float:
    exact = jaccard(set_a, set_b)
    squares = 0.0
    for seed in range(trials):
        params = _lab_hash_parameters(k, seed)
        squares += (_lab_estimate(sign(set_a, params), sign(set_b, params)) - exact) ** 2
    return math.sqrt(squares / trials)


def check_measure_error(func: Callable[[set, set, int, int, Callable], float]) -> CheckResult:
    """Check a ``measure_error(set_a, set_b, k, trials, sign) -> float``.

    It must return the root-mean-square error of the MinHash estimate over
    ``trials`` hash families ``hash_parameters(k, seed)`` with ``seed = 0, 1,
    ..., trials - 1``, signing with ``sign(shingles, params)``. The check passes
    the reference ``sign``, so only the error measurement is checked here.

    >>> check_measure_error(_lab_measure_error).passed
    PASS check_measure_error: all 5 cases pass
    True
    """
    a = word_shingles(sample_article(41, 80), 3)
    b = word_shingles(replace_words(sample_article(41, 80), 6, seed=3), 3)
    other = word_shingles(sample_article(42, 80), 3)
    hand = [
        ("identical sets: no error", a, a, 16, 5, 0.0, "Identical sets give identical signatures."),
        ("disjoint sets: no error", a, other, 16, 5, 0.0, "Disjoint sets almost never share a minimum."),
    ]
    cases = [
        Case(
            name,
            f"{label}, k={k}, trials={t}",
            call_on_copies(func, x, y, k, t, measure_signer),
            expected,
            hint=hint,
        )
        for (name, x, y, k, t, expected, hint), label in zip(
            hand, ("set_b = set_a", "two unrelated articles")
        )
    ]
    cases += [measure_case(func, k, trials, a, b) for k, trials in ((16, 20), (64, 10), (32, 1))]
    return run_check("check_measure_error", func, cases)


def measure_case(func: Callable, k: int, trials: int, a: set, b: set) -> Case:
    """A case of :func:`check_measure_error` on the sets ``a`` and ``b``.

    >>> measure_case(_lab_measure_error, 4, 2, {"x"}, {"x"}).expected
    0.0
    """
    return Case(
        f"article and edited copy, k={k}, trials={trials}",
        f"an article and an edited copy, k={k}, trials={trials}",
        call_on_copies(func, a, b, k, trials, measure_signer),
        _lab_measure_error(a, b, k, trials, measure_signer),
        hint="One trial per seed from 0 to trials - 1, each with its own hash family; square each "
        "trial's error against the exact Jaccard, average the squares, then take the root.",
    )


def measure_random_case(func: Callable, seed: int) -> Case:
    """A random case of :func:`check_measure_error`: another article, ``k`` and number of trials.

    >>> measure_random_case(_lab_measure_error, 3).name
    'article and edited copy, k=11, trials=4'
    """
    a = word_shingles(sample_article(seed, 50), 3)
    b = word_shingles(replace_words(sample_article(seed, 50), 2 + seed % 7, seed=seed), 3)
    return measure_case(func, 8 + seed % 17, 1 + seed % 6, a, b)


def check_k_for_error(value: Any) -> CheckResult:
    """Check the answer to: the smallest ``k`` with ``sqrt(J(1-J)/k) <= 0.02`` at ``J = 0.5``.

    >>> check_k_for_error(625).passed
    PASS check_k_for_error: all 1 cases pass
    True
    """

    def judge(got: Any) -> str | None:
        if isinstance(got, bool) or not isinstance(got, numbers.Real) or round(got) != got:
            return "k is a whole number of hash functions"
        if got == 625:
            return None
        if got == 25:
            return "25 = sqrt(J(1-J)) / 0.02: square both sides of the inequality before solving for k"
        return "too few: the error is above 0.02" if got < 625 else "not the smallest k"

    case = Case(
        "smallest k for a standard error of 0.02 at J = 0.5",
        "J = 0.5, target standard error 0.02",
        lambda: value,
        625,
        judge=judge,
        hint="Solve the standard-error inequality for k, then take the smallest whole number that meets it.",
    )
    return run_check("check_k_for_error", value, [case])
