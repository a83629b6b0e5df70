"""Every setting that shapes a dedup's answer, checked once.

:class:`Settings` is what :func:`~neardup_lab.engine.pipeline.dedup`, the saved index,
:func:`~neardup_lab.distributed.dedup.dedup_dask` and the command line all take, so
they refuse the same values with the same messages and pick the same default
banding. A check happens before anything is allocated: a setting that cannot
work (a signature of a million values, a shingle of a million words) is an
error, not a hang.

>>> s = Settings(threshold=0.8)
>>> s.bands, s.rows
(18, 7)
>>> Settings(threshold=True)
Traceback (most recent call last):
    ...
TypeError: threshold must be a number, got bool True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields

import numpy as np

from .clusters import KEEPER_POLICIES
from .docfreq import max_count
from .lsh import check_banding, optimal_params
from .minhash import (
    MAX_NUM_PERM,
    SCHEMES,
    MinHasher,
    bbit_signatures,
    estimate_jaccard,
    estimate_jaccard_bbit,
)
from .support.validate import number_between, positive_int
from .text import MAX_SHINGLE_SIZE

__all__ = [
    "Settings",
    "RECALL_WEIGHTS",
    "SHINGLE_KINDS",
    "VERIFIERS",
    "MAX_NUM_PERM",
    "MAX_SHINGLE_SIZE",
]

SHINGLE_KINDS = ("word", "char")
VERIFIERS = ("exact", "estimate", "none")
#: Default (false positive, false negative) weights for choosing bands and rows. Every
#: candidate is verified, so a false positive costs only a check while a false negative
#: loses a duplicate for good: the default bends the S-curve below the threshold.
RECALL_WEIGHTS = (0.01, 0.99)
#: Settings that saved settings from before them may lack; a missing one takes its default.
_ADDED_LATER = ("max_df",)


@dataclass(frozen=True, kw_only=True)
class Settings:
    """The settings of one deduplication, validated; ``bands``/``rows`` resolved.

    ``threshold``: Jaccard similarity at which two documents are near-duplicates.
    ``num_perm``: values per signature. ``k`` and ``shingle``: shingle size, in
    words (``"word"``) or characters (``"char"``). ``scheme`` and ``seed``: the
    hash family (:class:`~neardup_lab.minhash.MinHasher`). ``bands``/``rows``:
    the banding, by default :func:`~neardup_lab.lsh.optimal_params` weighted by
    :data:`RECALL_WEIGHTS`. ``verify``: ``"exact"`` Jaccard, the signature
    ``"estimate"``, or ``"none"``. ``keeper``: which member of a cluster stays.
    ``bbits``: keep only that many low bits of each value (b-bit MinHash).
    ``max_df``: ignore, when signing and verifying, the shingles found in more than this
    share (a float in (0, 1]) or count (an int) of the documents, as
    :func:`~neardup_lab.docfreq.drop_frequent` does (shared boilerplate); None keeps them all.

    Raises TypeError for a value of the wrong type (bools are not numbers) and
    ValueError for one out of range, naming it.

    >>> Settings(threshold=0.7, num_perm=64).hasher().params
    {'num_perm': 64, 'seed': 1, 'scheme': 'multiply-shift'}
    >>> Settings(bands=20)
    Traceback (most recent call last):
        ...
    ValueError: give both bands and rows, or neither to use optimal_params
    """

    threshold: float = 0.8
    num_perm: int = 128
    k: int = 5
    shingle: str = "word"
    scheme: str = "multiply-shift"
    seed: int = 1
    # None (the default) asks optimal_params for both; once made, the settings hold ints.
    bands: int = None  # type: ignore[assignment]
    rows: int = None  # type: ignore[assignment]
    verify: str = "exact"
    keeper: str = "first"
    bbits: int | None = None
    max_df: float | int | None = None

    def __post_init__(self) -> None:
        threshold = number_between(self.threshold, "threshold", 0, 1)
        num_perm = positive_int(self.num_perm, "num_perm", MAX_NUM_PERM)
        k = positive_int(self.k, "k", MAX_SHINGLE_SIZE)
        for name, allowed in (
            ("shingle", SHINGLE_KINDS),
            ("scheme", SCHEMES),
            ("verify", VERIFIERS),
            ("keeper", KEEPER_POLICIES),
        ):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {getattr(self, name)!r}")
        hasher = MinHasher(num_perm=num_perm, seed=self.seed, scheme=self.scheme)  # checks seed
        if self.bands is None and self.rows is None:
            bands, rows = optimal_params(min(threshold, 0.99), num_perm, *RECALL_WEIGHTS)
        elif self.bands is None or self.rows is None:
            raise ValueError("give both bands and rows, or neither to use optimal_params")
        else:
            bands, rows = check_banding(self.bands, self.rows, num_perm)
        bbits = self.bbits
        if bbits is not None:
            bbits = positive_int(bbits, "bbits", 32)
            if bbits < 8:
                raise ValueError(
                    f"bbits={bbits} is too few for banding: with {rows} rows a band of unrelated "
                    f"documents matches by chance with probability 2**-{bbits * rows}; use bbits >= 8"
                )
        max_df = self.max_df
        if max_df is not None:
            max_count(max_df, 1)  # raises, naming the value, unless a share in (0, 1] or a count >= 1
            max_df = float(max_df) if isinstance(max_df, (float, np.floating)) else int(max_df)
        for name, value in (
            ("max_df", max_df),
            ("threshold", threshold),
            ("num_perm", num_perm),
            ("k", k),
            ("seed", hasher.seed),
            ("bands", bands),
            ("rows", rows),
            ("bbits", bbits),
        ):
            object.__setattr__(self, name, value)

    def hasher(self) -> MinHasher:
        """The :class:`~neardup_lab.minhash.MinHasher` these settings sign with.

        >>> Settings(num_perm=32, seed=4).hasher()
        MinHasher(num_perm=32, seed=4, scheme='multiply-shift')
        """
        return MinHasher(num_perm=self.num_perm, seed=self.seed, scheme=self.scheme)

    def banded(self, signatures: np.ndarray) -> np.ndarray:
        """The signatures as banding and estimates read them: the lowest ``bbits`` bits of each
        value when ``bbits`` is set (:func:`~neardup_lab.minhash.bbit_signatures`), else as they are.

        >>> Settings(bbits=8).banded(np.array([[257, 3]], dtype=np.uint32)).tolist()
        [[1, 3]]
        """
        return signatures if self.bbits is None else bbit_signatures(signatures, self.bbits)

    def estimate(self, left: np.ndarray, right: np.ndarray) -> float | np.ndarray:
        """The Jaccard similarity estimated from two :meth:`banded` signatures (or two rows of
        them, row by row), corrected for chance agreement when ``bbits`` is set.

        >>> Settings().estimate(np.array([1, 2, 3, 4]), np.array([1, 2, 3, 5]))
        0.75
        """
        if self.bbits is None:
            return estimate_jaccard(left, right)
        return estimate_jaccard_bbit(left, right, self.bbits)

    def to_dict(self) -> dict:
        """The settings as plain JSON-ready data (``max_df`` only when set, so that what was
        saved before it existed reads the same).

        >>> Settings().to_dict()["bands"], "max_df" in Settings().to_dict()
        (18, False)
        """
        data = asdict(self)
        for name in _ADDED_LATER:
            if data[name] is None:
                del data[name]
        return data

    @classmethod
    def from_dict(cls, data: object) -> Settings:
        """Settings from :meth:`to_dict` output; ValueError names a missing or unknown key
        (settings added later may be missing: they take their defaults).

        >>> Settings.from_dict(Settings(threshold=0.7).to_dict()).threshold
        0.7
        """
        names = [f.name for f in fields(cls)]
        if not isinstance(data, dict):
            raise ValueError(f"settings must be a mapping, got {type(data).__name__}")
        missing = [n for n in names if n not in data and n not in _ADDED_LATER]
        extra = sorted(set(data) - set(names))
        if missing or extra:
            raise ValueError(f"settings keys differ: missing {missing}, unexpected {extra}")
        return cls(**{n: data[n] for n in names if n in data})

    def differing(self, wanted: Mapping[str, object]) -> dict[str, object]:
        """The settings named in ``wanted`` whose value here is another: name -> our value.

        A ValueError names keys that are not settings.

        >>> Settings().differing({"num_perm": 64, "seed": 1})
        {'num_perm': 128}
        """
        unknown = sorted(set(wanted) - {f.name for f in fields(self)})
        if unknown:
            raise ValueError(f"unknown settings {unknown}; use the names of Settings fields")
        return {name: getattr(self, name) for name, value in wanted.items() if getattr(self, name) != value}
