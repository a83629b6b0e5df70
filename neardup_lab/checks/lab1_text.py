"""Checks for Lab 1: shingles, normalisation and Jaccard."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Set as AbstractSet

from ..corpus import replace_words
from ..text import char_shingles, jaccard, normalize, word_shingles
from .harness import (
    Case,
    CheckResult,
    call_on_copies,
    run_check,
    sample_article,
    sample_article_input,
    show_value,
)


def check_normalize(func: Callable[[str], str]) -> CheckResult:
    """Check a ``normalize(text) -> str``: NFKC, casefold, punctuation and symbols to spaces.

    >>> from neardup_lab import normalize
    >>> check_normalize(normalize).passed
    PASS check_normalize: all 13 cases pass
    True
    """
    spaces = (
        "Collapse every run of whitespace (spaces, tabs, newlines) into one space, and drop it at both ends."
    )
    punct = (
        "Every character whose Unicode category is a kind of punctuation (P...) or symbol (S...) "
        "becomes a space; look up the category of the character that survived."
    )
    hand = [
        (
            "lower case",
            "Heavy RAIN in the City",
            "heavy rain in the city",
            "Capital letters must not matter.",
        ),
        ("punctuation", "Rain, rain... go away!", "rain rain go away", punct),
        ("whitespace", "  tabs\tand\nnewlines   here ", "tabs and newlines here", spaces),
        ("apostrophe", "It's raining", "it s raining", punct),
        ("typographic quotes and dash", "“Quoted” — said she", "quoted said she", punct),
        ("symbols", "price: $5 + 10%", "price 5 10", punct),
        (
            "full-width letters (Unicode)",
            "ＦＵＬＬ width",
            "full width",
            "Full-width letters are compatibility forms: which Unicode normalisation form maps them "
            "to plain letters?",
        ),
        ("combining accent (Unicode)", "Cafe\u0301 au lait", "café au lait", "NFKC joins e + U+0301 into é."),
        (
            "German sharp s (Unicode)",
            "STRASSE Straße",
            "strasse strasse",
            "str.lower() keeps ß; casefold() makes it ss.",
        ),
        ("empty text", "", "", "An empty text normalises to the empty string."),
        ("only punctuation", "?! … ---", "", punct),
        (
            "underscore",
            "snake_case and CamelCase",
            "snake case and camelcase",
            "The underscore is punctuation too (category Pc), although regular expressions count it "
            "as a word character (\\w). " + punct,
        ),
    ]
    cases = [
        Case(name, f"text={text!r}", call_on_copies(func, text), expected, hint=hint)
        for name, text, expected, hint in hand
    ]
    cases.append(normalize_case(func, 11))
    return run_check("check_normalize", func, cases)


def normalize_case(func: Callable[[str], str], seed: int) -> Case:
    """A case of :func:`check_normalize`: an article of 40 words (seed ``seed``).

    >>> normalize_case(str, 11).name
    'news article (seed 11)'
    """
    text = sample_article(seed, 40)
    if seed % 3 == 1:  # other shapes: full-width letters, curly quotes, runs of punctuation
        text = text.replace("e", "Ｅ").replace(" ", " -- “", 2)
    return Case(
        f"news article (seed {seed})",
        sample_article_input(seed, 40)
        + (" with some letters full-width and punctuation added" if seed % 3 == 1 else ""),
        call_on_copies(func, text),
        normalize(text),
        hint="Compare your output with the expected text word by word: which characters differ?",
    )


def shingles_case(func: Callable[[str, int], set[str]], seed: int, k: int, reference: Callable) -> Case:
    """A case of the shingle checks: an article (seed ``seed``) shingled with ``k``.

    >>> shingles_case(word_shingles, 3, 5, word_shingles).name
    'news article (seed 3), k=5'
    """
    text = sample_article(seed)
    return Case(
        f"news article (seed {seed}), k={k}",
        sample_article_input(seed, k=k),
        call_on_copies(func, text, k),
        reference(text, k),
        hint="A text of n tokens has n - k + 1 shingles: count yours.",
    )


def word_shingles_case(func: Callable[[str, int], set[str]], seed: int) -> Case:
    """A random case of :func:`check_word_shingles` (``k`` from 1 to 6, by the seed).

    >>> word_shingles_case(word_shingles, 12).input.endswith("k=1")
    True
    """
    return shingles_case(func, seed, 1 + seed % 6, word_shingles)


def char_shingles_case(func: Callable[[str, int], set[str]], seed: int) -> Case:
    """A random case of :func:`check_char_shingles` (``k`` from 1 to 9, by the seed).

    >>> char_shingles_case(char_shingles, 9).input.endswith("k=1")
    True
    """
    return shingles_case(func, seed, 1 + seed % 9, char_shingles)


def _shingle_cases(
    func: Callable, hand: list[tuple[str, str, int, set, str]], reference: Callable
) -> list[Case]:
    cases = [
        Case(name, f"text={text!r}, k={k}", call_on_copies(func, text, k), expected, hint=hint)
        for name, text, k, expected, hint in hand
    ]
    cases += [shingles_case(func, 3, 5, reference), shingles_case(func, 4, 2, reference)]
    cases.append(
        Case(
            "k = 0 is an error",
            "text='a b c', k=0",
            call_on_copies(func, "a b c", 0),
            raises=ValueError,
            hint="Raise ValueError when k < 1: a shingle needs at least one token.",
        )
    )
    cases.append(
        Case(
            "negative k is an error",
            "text='a b c', k=-1",
            call_on_copies(func, "a b c", -1),
            raises=ValueError,
            hint="Every k below 1 is an error, not only 0.",
        )
    )
    return cases


def check_word_shingles(func: Callable[[str, int], set[str]]) -> CheckResult:
    """Check a ``word_shingles(text, k) -> set[str]`` of k-word shingles of normalised text.

    >>> from neardup_lab import word_shingles
    >>> check_word_shingles(word_shingles).passed
    PASS check_word_shingles: all 11 cases pass
    True
    """
    norm = "Normalise first (lower case, punctuation to spaces), then split into words."
    short = "A text with fewer than k words gives one shingle made of all its words."
    hand = [
        (
            "three-word shingles",
            "Rain, rain, go away",
            3,
            {"rain rain go", "rain go away"},
            "Slide a window of k words one word at a time, including the last window. " + norm,
        ),
        (
            "k = 1",
            "the cat and the hat",
            1,
            {"the", "cat", "and", "hat"},
            "With k = 1 the shingles are the words.",
        ),
        ("text shorter than k", "Breaking news", 5, {"breaking news"}, short),
        (
            "exactly k words",
            "one two three",
            3,
            {"one two three"},
            "A text of exactly k words is one shingle.",
        ),
        ("empty text", "", 3, set(), "An empty text has no shingles: return set()."),
        ("only punctuation", "!!! ...", 2, set(), "After normalising there are no words: return set()."),
        ("Unicode and case", "Ｔｈｅ ＣＡＴ sat", 2, {"the cat", "cat sat"}, norm),
    ]
    return run_check("check_word_shingles", func, _shingle_cases(func, hand, word_shingles))


def check_char_shingles(func: Callable[[str, int], set[str]]) -> CheckResult:
    """Check a ``char_shingles(text, k) -> set[str]`` of k-character shingles of normalised text.

    >>> from neardup_lab import char_shingles
    >>> check_char_shingles(char_shingles).passed
    PASS check_char_shingles: all 11 cases pass
    True
    """
    norm = "Shingle the normalised text (lower case, punctuation to spaces, single spaces)."
    hand = [
        (
            "Japanese, no spaces",
            "東京の天気",
            2,
            {"東京", "京の", "の天", "天気"},
            "Every k consecutive characters.",
        ),
        ("punctuation removed", "Rain!", 3, {"rai", "ain"}, norm),
        (
            "spaces count",
            "a b",
            2,
            {"a ", " b"},
            "Keep the spaces of the normalised text: they are characters too.",
        ),
        (
            "text shorter than k",
            "ab",
            5,
            {"ab"},
            "A text shorter than k gives one shingle: the whole normalised text.",
        ),
        ("empty text", "", 3, set(), "An empty text has no shingles: return set()."),
        ("k = 1", "abba", 1, {"a", "b"}, "With k = 1 the shingles are the characters."),
        (
            "case and spacing",
            "Heavy  RAIN",
            4,
            {"heav", "eavy", "avy ", "vy r", "y ra", " rai", "rain"},
            norm,
        ),
    ]
    return run_check("check_char_shingles", func, _shingle_cases(func, hand, char_shingles))


def check_jaccard(func: Callable[[set, set], float]) -> CheckResult:
    """Check a ``jaccard(a, b) -> float``: ``len(a & b) / len(a | b)``, and 1.0 for two empty sets.

    >>> from neardup_lab import jaccard
    >>> check_jaccard(jaccard).passed
    PASS check_jaccard: all 8 cases pass
    True
    """
    formula = "Divide the number of shingles in both sets by the number of shingles in either set."
    hand = [
        ("half overlap", {"a", "b", "c"}, {"b", "c", "d"}, 0.5, formula),
        ("identical sets", {"x", "y"}, {"x", "y"}, 1.0, formula),
        ("disjoint sets", {"a", "b"}, {"c"}, 0.0, formula),
        ("subset", {"a"}, {"a", "b", "c", "d"}, 0.25, formula),
        ("one empty set", set(), {"a", "b"}, 0.0, "The union has 2 elements, the intersection none."),
        (
            "two empty sets",
            set(),
            set(),
            1.0,
            "Two empty sets are identical: return 1.0 instead of dividing by zero.",
        ),
        ("frozensets", frozenset({"a", "b"}), frozenset({"b"}), 0.5, "Any set type should work."),
    ]
    cases = [
        Case(name, f"a={show_value(a)}, b={show_value(b)}", call_on_copies(func, a, b), expected, hint=hint)
        for name, a, b, expected, hint in hand
    ]
    cases.append(jaccard_case(func, 5))
    return run_check("check_jaccard", func, cases)


def jaccard_case(func: Callable[[set, set], float], seed: int) -> Case:
    """A case of :func:`check_jaccard`: an article against an edited copy (frozensets for odd seeds).

    >>> jaccard_case(jaccard, 5).name
    'an article and an edited copy (seed 5)'
    """
    article = sample_article(seed)
    a: AbstractSet[str] = word_shingles(article, 3)
    b: AbstractSet[str] = word_shingles(replace_words(article, 2 + seed % 9, seed=seed), 3)
    if seed % 2:
        a, b = frozenset(a), frozenset(b)
    return Case(
        f"an article and an edited copy (seed {seed})",
        f"a=word_shingles(article, 3), b=the same after replacing {2 + seed % 9} words",
        call_on_copies(func, a, b),
        jaccard(a, b),
        hint="Divide the number of shingles in both sets by the number of shingles in either set.",
    )
