"""Deterministic synthetic news corpora with known near-duplicate families: seeded articles of
Zipf-distributed words (real function and news words first, made-up ones below), copied by *edit
kinds*, so the truth is known: ``origin[i]`` is the article document ``i`` was copied from."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from .support.validate import non_negative_int, positive_int

__all__ = [
    "EDIT_KINDS",
    "Corpus",
    "make_corpus",
    "make_article",
    "apply_edit",
    "replace_words",
    "near_copies",
    "shared_template",
    "vocabulary",
]

#: The ways :func:`make_corpus` can change a copy of an article.
EDIT_KINDS = (
    "light-replace",
    "heavy-replace",
    "drop-sentence",
    "boilerplate",
    "case-spacing",
    "headline",
    "also-read",
)

# fmt: off
_COMMON = [
    "the", "of", "and", "to", "in", "a", "is", "that", "for", "on", "said", "with", "was", "as", "by",
    "it", "at", "from", "his", "he", "be", "has", "have", "are", "not", "but", "this", "an", "will",
    "had", "its", "were", "which", "their", "they", "who", "been", "more", "after", "year", "new",
    "would", "also", "over", "two", "government", "minister", "city", "police", "state", "people",
    "first", "last", "week", "officials", "report", "monday", "tuesday", "wednesday", "thursday",
    "friday", "court", "market", "rain", "water", "school", "health", "workers", "company", "district",
    "council", "percent", "million", "since", "during", "about", "could", "than", "other", "into",
    "while", "when", "under", "three", "between", "before",
]
_ONSETS = [
    "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "z", "br", "ch",
    "dr", "gr", "kr", "pl", "sh", "st", "tr", "th",
]
# fmt: on
_VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "io", "ou"]
_CODAS = ["", "", "n", "r", "s", "l", "m", "t", "nd", "st"]
_PUBLISHERS = (
    "Coastal Daily Herald | Home | News | Weather | Sport | Subscribe for breaking alerts",
    "The Morning Ledger — Latest headlines, local stories and analysis every day",
    "Riverside Times | Sign in | Edition: National | Today's paper | Follow us",
    "Metro Wire Online :: News you can trust :: Share this story with friends",
    "Valley Observer | Top Stories | Business | Opinion | Newsletter sign-up",
)
_FOOTERS = (
    "Copyright Coastal Daily Herald. All rights reserved. Read our privacy policy and terms of use.",
    "Get the Morning Ledger newsletter in your inbox every morning. Unsubscribe at any time.",
    "Riverside Times is not responsible for the content of external sites. Report an error here.",
    "Download the Metro Wire app for the latest updates. Follow us on social media for more.",
    "Valley Observer welcomes letters to the editor. Comments are moderated before publishing.",
)


@lru_cache(maxsize=8)
def vocabulary(size: int = 6000) -> tuple[str, ...]:
    """The corpus vocabulary in rank order: common words first, then made-up ones.

    >>> vocabulary()[:3]
    ('the', 'of', 'and')
    >>> len(vocabulary(500))
    500
    """
    if size < len(_COMMON):
        raise ValueError(f"vocabulary size must be at least {len(_COMMON)}, got {size}")
    rng = np.random.default_rng(20240607)

    def pick(options: list[str]) -> str:
        return options[rng.integers(len(options))]

    words, seen = list(_COMMON), set(_COMMON)
    while len(words) < size:
        syllables = int(rng.integers(2, 4))
        word = "".join(pick(_ONSETS) + pick(_VOWELS) for _ in range(syllables)) + pick(_CODAS)
        if word not in seen:
            seen.add(word)
            words.append(word)
    return tuple(words)


@lru_cache(maxsize=8)
def _zipf_cdf(size: int, exponent: float) -> np.ndarray:
    weights = 1.0 / np.arange(1, size + 1) ** exponent
    cdf = np.cumsum(weights / weights.sum())
    cdf.setflags(write=False)  # cached: shared by every caller
    return cdf


@lru_cache(maxsize=8)
def _token_forms(size: int) -> np.ndarray:
    """Every word in four spellings: plain, Capitalised, plain., Capitalised."""
    vocab = vocabulary(size)
    forms = list(vocab) + [w.capitalize() for w in vocab]
    forms += [w + "." for w in forms]
    table = np.array(forms, dtype=object)
    table.setflags(write=False)  # cached: shared by every caller
    return table


def _articles(rng: np.random.Generator, count: int, n_words: int, size: int, exponent: float) -> list[str]:
    """``count`` articles: a headline, a blank line, ``n_words`` words in sentences."""
    cdf = _zipf_cdf(size, exponent)
    ranks = np.minimum(np.searchsorted(cdf, rng.random((count, n_words)), side="right"), size - 1)
    head_ranks = np.minimum(np.searchsorted(cdf, rng.random((count, 9)), side="right"), size - 1)
    head_lengths = rng.integers(5, 10, size=count).tolist()
    sentence_lengths = rng.integers(8, 23, size=(count, n_words // 8 + 1))
    ends = np.zeros((count, n_words), dtype=bool)
    for doc, lengths in enumerate(sentence_lengths.tolist()):
        start = 0
        for length in lengths:
            if n_words - start - length < 5:  # no stub sentence at the end
                length = n_words - start
            start += length
            ends[doc, start - 1] = True
            if start >= n_words:
                break
    starts = np.roll(ends, 1, axis=1)  # the word after a sentence's end starts the next one
    starts[:, 0] = True
    forms = _token_forms(size)
    tokens = forms[ranks + size * starts + 2 * size * ends]
    headlines = forms[head_ranks + size]
    return [
        " ".join(headlines[d, : head_lengths[d]].tolist()) + "\n\n" + " ".join(tokens[d].tolist())
        for d in range(count)
    ]


def make_article(seed: int, n_words: int = 300, vocabulary_size: int = 6000, zipf: float = 1.1) -> str:
    """One news-like article: a headline, a blank line, ``n_words`` body words.

    >>> text = make_article(seed=1, n_words=40)
    >>> len(text.split("\\n\\n")[1].split())
    40
    """
    n_words = positive_int(n_words, "n_words")  # TypeError for a wrong type, ValueError below 1
    return _articles(np.random.default_rng([seed, 0]), 1, n_words, vocabulary_size, zipf)[0]


def near_copies(n: int, replaced: int = 1, n_words: int = 60, seed: int = 0) -> list[str]:
    """One story syndicated ``n`` times: copies of one article of ``n_words`` words, each with
    ``replaced`` of its words replaced (its own choice), so every copy is a near-duplicate of all.

    >>> docs = near_copies(3, replaced=1, n_words=20, seed=1)
    >>> len(docs), len(set(docs))
    (3, 3)
    """
    article = make_article(seed, n_words)
    return [replace_words(article, replaced, seed=seed * n + i) for i in range(non_negative_int(n, "n"))]


def shared_template(n: int, template_words: int = 140, own_words: int = 40, seed: int = 0) -> list[str]:
    """``n`` pages built on one template (a cookie banner, a spam template): the template's words
    cut into seven pieces, with six runs of the page's own words between them. No two pages are
    near-duplicates, yet they share most of their shingles.

    >>> pages = shared_template(2, template_words=14, own_words=6, seed=3)
    >>> len(pages[0].split()) == len(pages[1].split()) == 20, pages[0] != pages[1]
    (True, True)
    """
    template = _split(make_article(seed, template_words))[1].split()
    cuts = np.linspace(0, len(template), 8).astype(int)
    pages = []
    for i in range(non_negative_int(n, "n")):
        own = _split(make_article(seed * n + i + 1, own_words))[1].split()
        runs = np.array_split(np.array(own, dtype=object), 6)
        words = list(template[cuts[0] : cuts[1]])
        for run, start, stop in zip(runs, cuts[1:-1], cuts[2:]):
            words += [*run, *template[start:stop]]
        pages.append(" ".join(words))
    return pages


def _split(text: str) -> tuple[str, str]:
    headline, sep, body = text.partition("\n\n")
    return (headline, body) if sep else ("", headline)


def replace_words(text: str, count: int, seed: int, vocabulary_size: int = 6000) -> str:
    """Replace ``count`` distinct body words by other vocabulary words, keeping their punctuation
    and capitals.

    >>> original = make_article(seed=3, n_words=50)
    >>> edited = replace_words(original, 1, seed=0)
    >>> sum(a != b for a, b in zip(original.split(), edited.split()))
    1
    """
    return _replace_words(text, count, np.random.default_rng([seed, 1]), vocabulary_size)


def _replace_words(text: str, count: int, rng: np.random.Generator, vocabulary_size: int = 6000) -> str:
    headline, body = _split(text)
    tokens = body.split(" ")
    if not 0 <= count <= len(tokens):
        raise ValueError(f"count must be between 0 and {len(tokens)} (the body's words), got {count}")
    vocab = vocabulary(vocabulary_size)
    for pos in rng.choice(len(tokens), size=count, replace=False):
        token = tokens[pos]
        core = token.rstrip(".,")
        new = core
        while new.lower() == core.lower():
            new = vocab[int(rng.integers(len(vocab)))]
        if core[:1].isupper():
            new = new.capitalize()
        tokens[pos] = new + token[len(core) :]
    body = " ".join(tokens)
    return headline + "\n\n" + body if headline else body


def _drop_sentences(text: str, rng: np.random.Generator) -> str:
    headline, body = _split(text)
    sentences = [s for s in body.split(". ") if s]
    if len(sentences) < 3:
        return _replace_words(text, 1, rng)
    drop = set(rng.choice(len(sentences), size=int(rng.integers(1, 3)), replace=False).tolist())
    kept = [s for i, s in enumerate(sentences) if i not in drop]
    kept = [s if s.endswith(".") else s + "." for s in kept]
    return headline + "\n\n" + " ".join(kept)


def _case_spacing(text: str, rng: np.random.Generator) -> str:
    headline, body = _split(text)
    tokens = body.split(" ")
    for pos in rng.choice(len(tokens), size=max(1, len(tokens) // 10), replace=False):
        tokens[pos] = tokens[pos].upper()
    gaps = np.array([" ", "  ", "\n"], dtype=object)[
        np.searchsorted([0.85, 0.95], rng.random(len(tokens)), side="right")
    ]
    spaced = "".join(t + g for t, g in zip(tokens, gaps.tolist())).rstrip()
    return headline.upper() + "\n\n\n" + spaced


def apply_edit(text: str, kind: str, seed: int, other_headlines: Sequence[str] = ()) -> str:
    """Return a copy of ``text`` changed by one edit kind from :data:`EDIT_KINDS`.

    ``"case-spacing"`` changes only what :func:`~neardup_lab.text.normalize`
    removes, so an exact-hash pass after normalising catches it; every other
    kind changes words.

    >>> from neardup_lab import normalize
    >>> t = make_article(seed=5, n_words=60)
    >>> normalize(apply_edit(t, "case-spacing", seed=1)) == normalize(t)
    True
    """
    return _apply_edit(text, kind, np.random.default_rng([seed, 2]), other_headlines)


def _apply_edit(text: str, kind: str, rng: np.random.Generator, other_headlines: Sequence[str]) -> str:
    if kind == "light-replace":
        return _replace_words(text, int(rng.integers(1, 4)), rng)
    if kind == "heavy-replace":
        n_body = len(_split(text)[1].split())
        return _replace_words(text, max(1, int(n_body * rng.uniform(0.03, 0.12))), rng)
    if kind == "drop-sentence":
        return _drop_sentences(text, rng)
    if kind == "boilerplate":
        site = int(rng.integers(len(_PUBLISHERS)))
        return _PUBLISHERS[site] + "\n\n" + text + "\n\n" + _FOOTERS[site]
    if kind == "case-spacing":
        return _case_spacing(text, rng)
    if kind == "headline":
        return _split(_articles(rng, 1, 5, 6000, 1.1)[0])[0] + "\n\n" + _split(text)[1]
    if kind == "also-read":
        pool = other_headlines if len(other_headlines) else [_split(_articles(rng, 1, 5, 6000, 1.1)[0])[0]]
        picks = [pool[int(i)] for i in rng.integers(len(pool), size=3)]
        return text + "\n\nAlso read: " + " | ".join(picks)
    raise ValueError(f"unknown edit kind {kind!r}; choose one of {', '.join(EDIT_KINDS)}")


class Corpus(NamedTuple):
    """Documents with their truth; unpacks as ``docs, origin, edits``."""

    docs: list[str]
    origin: list[int]
    edits: list[tuple[str, ...]]


def make_corpus(
    n_originals: int,
    seed: int = 0,
    copies: tuple[int, int] = (0, 3),
    n_words: int = 300,
    edit_kinds: Sequence[str] = EDIT_KINDS,
    edits_per_copy: int = 1,
    shuffle: bool = True,
) -> Corpus:
    """Generate ``n_originals`` articles, each with a random number of edited copies.

    Each original gets between ``copies[0]`` and ``copies[1]`` copies (both
    inclusive); each copy applies ``edits_per_copy`` edit kinds drawn from
    ``edit_kinds``. ``origin[i]`` is the index of the original of document
    ``i`` (an original points at itself) and ``edits[i]`` the kinds applied.

    >>> docs, origin, edits = make_corpus(3, seed=1, copies=(1, 1))
    >>> len(docs), sorted(len(e) for e in edits)
    (6, [0, 0, 0, 1, 1, 1])
    >>> all(origin[origin[i]] == origin[i] for i in range(len(docs)))
    True
    """
    n_originals = non_negative_int(n_originals, "n_originals")
    low, high = copies
    if not 0 <= low <= high:
        raise ValueError(f"copies must be (low, high) with 0 <= low <= high, got {copies!r}")
    unknown = [k for k in edit_kinds if k not in EDIT_KINDS]
    if unknown or not edit_kinds:
        raise ValueError(
            f"edit_kinds must be a non-empty subset of {EDIT_KINDS}, got {unknown or edit_kinds}"
        )
    if edits_per_copy < 1 or edits_per_copy > len(edit_kinds):
        raise ValueError(f"edits_per_copy must be between 1 and {len(edit_kinds)}, got {edits_per_copy}")
    rng = np.random.default_rng([seed, 3])
    originals = _articles(rng, n_originals, n_words, 6000, 1.1)
    headlines = [a.split("\n\n")[0] for a in originals]
    docs, family, edits = list(originals), list(range(n_originals)), [()] * n_originals
    n_copies = rng.integers(low, high + 1, size=n_originals)
    sources = np.repeat(np.arange(n_originals), n_copies.astype(np.intp, copy=False)).tolist()
    picks = np.argsort(rng.random((len(sources), len(edit_kinds))), axis=1)[:, :edits_per_copy]
    for source, kind_ids in zip(sources, picks.tolist()):
        kinds = tuple(edit_kinds[k] for k in kind_ids)
        text = originals[source]
        for kind in kinds:
            text = _apply_edit(text, kind, rng, headlines)
        docs.append(text)
        family.append(source)
        edits.append(kinds)
    order = rng.permutation(len(docs)) if shuffle else np.arange(len(docs))
    position = np.argsort(order)  # where each document lands
    return Corpus(
        docs=[docs[j] for j in order],
        origin=[int(position[family[j]]) for j in order],
        edits=[edits[j] for j in order],
    )
