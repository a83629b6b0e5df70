"""Lab 7's reference answer: the clusters of distinct licence texts, and its grading cases."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from neardup_lab import brute_force_pairs, clusters_from_pairs, word_shingles
from neardup_lab.checks.harness import Case
from neardup_lab.checks.lab7_licences import (
    DISTINCT_K,
    DISTINCT_THRESHOLD,
    is_copyright_notice,
    licence_corpus,
    read_clusters,
)


def strip_notices(text: str) -> str:
    """The text without its copyright notices (lab 7's rule)."""
    return "\n".join(line for line in text.split("\n") if not is_copyright_notice(line))


@lru_cache(maxsize=1)
def distinct_clusters() -> tuple[tuple[int, ...], ...]:
    """Clusters of files whose stripped texts reach Jaccard >= 0.9 (chains join), sorted."""
    corpus = licence_corpus()
    sets = [word_shingles(strip_notices(text), DISTINCT_K) for text in corpus.texts]
    clusters = clusters_from_pairs(len(sets), brute_force_pairs(sets, DISTINCT_THRESHOLD))
    return tuple(sorted(tuple(sorted(c)) for c in clusters))


def clusters_cases(clusters: Any) -> list[Case]:
    """One case per reference cluster of several files, and one for the number of clusters."""
    corpus = licence_corpus()
    want = distinct_clusters()
    n = len(corpus.names)

    def read() -> list[list[int]]:
        return read_clusters(clusters, n)

    def judge_cluster(members: tuple[int, ...]):
        def judge(got: list[list[int]]) -> str | None:
            return None if list(members) in got else "this group of files is split or joined with others"

        return judge

    cases = [
        Case(
            f"the files of {corpus.names[members[0]]}",
            f"{len(members)} files whose texts without notices are the same licence text",
            read,
            shown_expected="one cluster with exactly these files",
            judge=judge_cluster(members),
            hint="Strip the notices by the lab's rule, shingle with 5 words, join pairs at Jaccard 0.9 or "
            "more, chains too.",
        )
        for members in want
        if len(members) > 1
    ]
    cases.append(
        Case(
            "the number of distinct texts",
            f"{n} licence files",
            read,
            shown_expected="the grader's number of clusters",
            judge=lambda got: None if len(got) == len(want) else "another number of clusters",
            hint="Count the clusters, files without a partner included.",
        )
    )
    return cases
