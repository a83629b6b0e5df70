"""Document frequency: find the shingles that too many documents share.

Pages from one site repeat the same header, menu and footer. Those template
shingles make unrelated pages look alike. The *document frequency* of a
shingle is the number of documents that contain it; dropping the shingles
whose document frequency is above a limit removes the template and keeps
what the pages say.

The limit ``max_df`` follows the convention of scikit-learn's vectorisers:

* a ``float`` in ``(0, 1]`` is a share of the documents: a shingle is
  frequent when it is in more than ``max_df * n_documents`` of them;
* an ``int`` ``>= 1`` is a count: a shingle is frequent when it is in more
  than ``max_df`` documents.

So ``1.0`` keeps everything and ``1`` drops every shingle that two or more
documents share. Nothing is ever dropped from the list of documents: a
document whose shingles are all frequent comes back as an *empty set*, in
its place.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence, Set
from numbers import Integral, Real

from .support.validate import described, require_set

__all__ = ["document_frequencies", "frequent_shingles", "drop_frequent", "max_count"]


def _check_sets(shingle_sets: object) -> Sequence[Set]:
    if isinstance(shingle_sets, (str, bytes, Set)) or not isinstance(shingle_sets, Sequence):
        raise TypeError(
            f"shingle_sets must be a list with one shingle set per document, got {described(shingle_sets)}"
        )
    for position, shingles in enumerate(shingle_sets):
        require_set(shingles, f"shingle_sets[{position}]")
    return shingle_sets


def max_count(max_df: object, n_documents: int) -> float:
    """The largest document frequency that is *not* frequent, among ``n_documents``.

    A TypeError or ValueError says why ``max_df`` is neither a share nor a count.

    >>> max_count(0.5, 7), max_count(3, 7)
    (3.5, 3.0)
    """
    if isinstance(max_df, bool):
        raise TypeError(f"max_df must be a float share or an int count, got bool {max_df!r}")
    if isinstance(max_df, Integral):
        if max_df < 1:
            raise ValueError(
                f"max_df as a count must be >= 1, got {max_df}; a share of the documents is a float, e.g. 0.5"
            )
        return float(max_df)
    if isinstance(max_df, Real):
        share = float(max_df)
        if math.isnan(share) or not 0.0 < share <= 1.0:
            raise ValueError(
                f"max_df as a share of the documents must be in (0, 1], got {max_df!r}; "
                "a count of documents is an int, e.g. 3"
            )
        return share * n_documents
    raise TypeError(f"max_df must be a float share or an int count, got {type(max_df).__name__} {max_df!r}")


def document_frequencies(shingle_sets: Sequence[Set[str]]) -> Counter[str]:
    """Count, for every shingle, how many documents contain it.

    The counter lists shingles from the most to the least frequent, ties in
    sorted order, so it prints the same in every process.

    >>> df = document_frequencies([{"home news", "rain today"}, {"home news", "new bridge"}])
    >>> df
    Counter({'home news': 2, 'new bridge': 1, 'rain today': 1})
    >>> df.most_common(1)
    [('home news', 2)]
    """
    counts = Counter(shingle for shingles in _check_sets(shingle_sets) for shingle in shingles)
    return Counter(dict(sorted(counts.items(), key=lambda item: (-item[1], item[0]))))


def frequent_shingles(shingle_sets: Sequence[Set[str]], max_df: float | int) -> set[str]:
    """Return the shingles found in more than ``max_df`` of the documents.

    ``max_df`` is a share of the documents (a float in ``(0, 1]``) or a
    count (an int ``>= 1``); see the module description.

    >>> pages = [{"menu", "rain"}, {"menu", "bridge"}, {"menu", "rain", "vote"}]
    >>> sorted(frequent_shingles(pages, max_df=0.5))  # in more than 1.5 of 3 pages
    ['menu', 'rain']
    >>> sorted(frequent_shingles(pages, max_df=2))  # in more than 2 pages
    ['menu']
    """
    shingle_sets = _check_sets(shingle_sets)
    limit = max_count(max_df, len(shingle_sets))
    return {shingle for shingle, count in document_frequencies(shingle_sets).items() if count > limit}


def drop_frequent(shingle_sets: Sequence[Set[str]], max_df: float | int) -> list[set[str]]:
    """Remove the frequent shingles from every document, keeping one entry per document.

    Returns a new list of new sets, in the input order. A document whose
    shingles are all frequent becomes an empty set; note that
    :func:`~neardup_lab.text.jaccard` calls two empty sets identical (1.0),
    so decide what emptied documents mean before comparing them.

    >>> pages = [{"menu", "rain"}, {"menu", "bridge"}, {"menu"}]
    >>> drop_frequent(pages, max_df=0.5)
    [{'rain'}, {'bridge'}, set()]
    """
    frequent = frequent_shingles(shingle_sets, max_df)  # checks the arguments
    return [set(shingles) - frequent for shingles in shingle_sets]
