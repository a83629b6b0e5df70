"""Argument checks: TypeError for a wrong type, ValueError for a wrong value (bools are not numbers)."""

from __future__ import annotations

from collections.abc import Sequence, Set
from itertools import repeat

import numpy as np

__all__ = [
    "positive_int",
    "non_negative_int",
    "number_between",
    "shown",
    "described",
    "require_text",
    "first_not_text",
    "require_set",
]


def positive_int(value: object, name: str, maximum: int | None = None) -> int:
    """``value`` as an int in ``[1, maximum]``, or a TypeError/ValueError naming ``name``.

    >>> positive_int(5, "k")
    5
    >>> positive_int(True, "k")
    Traceback (most recent call last):
        ...
    TypeError: k must be a positive int, got bool True
    >>> positive_int(10**9, "num_perm", maximum=8192)
    Traceback (most recent call last):
        ...
    ValueError: num_perm must be at most 8192, got 1000000000
    """
    return _int_at_least(value, name, 1, maximum)


def non_negative_int(value: object, name: str, maximum: int | None = None) -> int:
    """``value`` as an int in ``[0, maximum]``, or a TypeError/ValueError naming ``name``.

    >>> non_negative_int(0, "n")
    0
    >>> non_negative_int("3", "n")
    Traceback (most recent call last):
        ...
    TypeError: n must be a non-negative int, got str '3'
    >>> non_negative_int(-1, "n")
    Traceback (most recent call last):
        ...
    ValueError: n must be >= 0, got -1
    """
    return _int_at_least(value, name, 0, maximum)


def _int_at_least(value: object, name: str, minimum: int, maximum: int | None) -> int:
    kind = "a positive int" if minimum == 1 else "a non-negative int"
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be {kind}, got {described(value)}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {shown(value)}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be at most {maximum}, got {shown(value)}")
    return int(value)


def number_between(
    value: object, name: str, low: float, high: float, *, low_in: bool = False, high_in: bool = True
) -> float:
    """``value`` as a float in ``low``-``high`` (ends included when ``*_in``), or TypeError/ValueError.

    >>> number_between(0.8, "threshold", 0, 1)
    0.8
    >>> number_between(1.5, "threshold", 0, 1)
    Traceback (most recent call last):
        ...
    ValueError: threshold must be in (0, 1], got 1.5
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {described(value)}")
    above = value >= low if low_in else value > low
    below = value <= high if high_in else value < high
    if not (above and below):  # NaN is neither
        span = f"{'[' if low_in else '('}{low:g}, {high:g}{']' if high_in else ')'}"
        raise ValueError(f"{name} must be in {span}, got {shown(value)}")
    return float(value)


def shown(value: object) -> str:
    """A short, safe text for a value in an error message (huge integers are not printed).

    >>> shown(10**5000)
    'an integer of about 5001 digits'
    """
    if isinstance(value, int) and abs(value).bit_length() > 128:
        return f"an integer of about {int(abs(value).bit_length() * 0.30103) + 1} digits"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def described(value: object) -> str:
    """A value's type and :func:`shown` value, as error messages name a wrong one.

    >>> described("3")
    "str '3'"
    """
    return f"{type(value).__name__} {shown(value)}"


def require_text(text: object, name: str = "text") -> str:
    """``text`` if it is a ``str``; a TypeError that says what to do otherwise.

    >>> require_text("ok")
    'ok'
    """
    if isinstance(text, str):
        return text
    if isinstance(text, (bytes, bytearray)):
        raise TypeError(
            f"{name} must be str, got bytes {bytes(text[:20])!r}...; decode it first, "
            "for example data.decode('utf-8')"
        )
    raise TypeError(f"{name} must be str, got {described(text)}")


def first_not_text(items: Sequence[object]) -> int | None:
    """The index of the first item that is not a ``str``, or None (checked in C, as one ``map``).

    >>> first_not_text(["a", b"b", "c"])
    1
    """
    if all(map(isinstance, items, repeat(str))):
        return None
    return next(i for i, item in enumerate(items) if not isinstance(item, str))


def require_set(value: object, name: str) -> Set:
    """``value`` if it is a set; a TypeError that says how to build one otherwise.

    >>> sorted(require_set({"a"}, "a"))
    ['a']
    """
    if not isinstance(value, Set):
        raise TypeError(
            f"{name} must be a set of shingles, got {type(value).__name__} "
            f"{shown(value)}; build one with word_shingles(text)"
        )
    return value
