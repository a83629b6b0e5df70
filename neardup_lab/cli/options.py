"""What the subcommands of ``neardup-lab`` share: exit codes, value parsers, option builders.

>>> byte_size("10M"), whole("7")
(10000000, 7)
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import typing
from argparse import ArgumentTypeError
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, NoReturn

from ..clusters import KEEPER_POLICIES
from ..minhash import SCHEMES
from ..readers import InputError, check_encoding
from ..settings import SHINGLE_KINDS, Settings
from ..support import limits
from ..support.validate import shown
from .console import printable

__all__ = ["EXIT_OK", "EXIT_SKIPPED", "EXIT_ERROR", "CLI_SCHEMES", "Parser", "number", "whole", "jobs"]
__all__ += ["byte_size", "share_or_count", "delimiter", "encoding", "add_command", "add_max_bytes"]
__all__ += ["SETTING_OPTIONS", "HASH_SETTINGS", "add_setting_options", "add_hash_options", "given_settings"]

#: Exit codes, in order, for done; done with some inputs skipped; a usage or fatal error.
EXIT_OK, EXIT_SKIPPED, EXIT_ERROR = 0, 1, 2
#: Schemes offered on the command line ("small-affine" is a weak hash for teaching).
CLI_SCHEMES = tuple(s for s in SCHEMES if s != "small-affine")


class Parser(argparse.ArgumentParser):
    """An argument parser whose error messages (quoting what was typed) are safe to print.

    >>> Parser(prog="x").parse_args(["\\x1b[2J"])
    Traceback (most recent call last):
        ...
    SystemExit: 2
    """

    def error(self, message: str) -> NoReturn:
        """Print the usage and ``message``, control characters escaped; exit with status 2."""
        super().error(printable(message))


def number(text: str, kind: type[float] | type[int] = float) -> float:
    """A number (``kind=int``: a whole one).

    >>> number("0.7"), number("128", int)
    (0.7, 128)
    """
    try:
        return kind(text)
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        raise ArgumentTypeError(f"expected {what}, got {shown(text)}") from None


def whole(text: str) -> int:
    """A whole number, as for :func:`number`.

    >>> whole("-3")
    -3
    """
    return int(number(text, int))


def jobs(text: str) -> int:
    """A number of workers: 1 to :func:`~neardup_lab.support.limits.most_workers`, or -1 for all cores.

    >>> jobs("-1")
    -1
    """
    value = whole(text)
    if value == 0 or value < -1:
        raise ArgumentTypeError(f"must be a positive number of workers, or -1 for all cores; got {text}")
    most = limits.most_workers()  # the API's cap: every worker is started up front
    if value > most:
        raise ArgumentTypeError(
            f"must be at most {most} on this machine (four per core, at most {limits.MAX_JOBS}), "
            f"got {text}; -1 uses every core"
        )
    return value


def byte_size(text: str) -> int:
    """``10000000``, ``10_000_000``, ``10M``, ``10MB``, ``512k``: bytes (decimal units); 0 for no limit.

    >>> byte_size("512k"), byte_size("0")
    (512000, 0)
    """
    units = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9}
    raw = text.strip().lower().removesuffix("b")
    digits, unit = (raw[:-1], raw[-1]) if raw and raw[-1] in "kmg" else (raw, "")
    try:
        value = int(digits) * units[unit]
    except ValueError:
        raise ArgumentTypeError(
            f"expected a number of bytes such as 10000000 or 10M (0 for no limit), got {text!r}"
        ) from None
    if value < 0:
        raise ArgumentTypeError(f"must not be negative, got {text}")
    if value > sys.maxsize:  # a read that large cannot even be asked for
        raise ArgumentTypeError(f"must be at most {sys.maxsize} (0: no limit), got {text}")
    return value


def share_or_count(text: str) -> float | int:
    """A share of the documents (``0.5``) or a count of them (``3``), as ``max_df`` takes it.

    >>> share_or_count("0.5"), share_or_count("3")
    (0.5, 3)
    """
    try:
        return int(text)
    except ValueError:
        return number(text)


def delimiter(text: str) -> str:
    """A CSV delimiter: one character; ``\\t`` (as typed, unexpanded by the shell) is a tab.

    >>> delimiter(";"), delimiter("\\\\t")
    (';', '\\t')
    """
    value = "\t" if text == "\\t" else text
    if len(value) != 1 or value in '"\r\n':
        raise ArgumentTypeError(
            f"must be one character, not a quote or a line break (\\t for a tab), got {shown(text)}"
        )
    return value


def encoding(text: str) -> str:
    """A text encoding in which ASCII is ASCII (:func:`~neardup_lab.readers.check_encoding`).

    >>> encoding("utf-8-sig")
    'utf-8-sig'
    """
    try:
        return check_encoding(text)
    except InputError as err:
        raise ArgumentTypeError(str(err)) from None


def add_command(commands: Any, name: str, help_text: str, description: str, epilog: str | None = None) -> Any:
    """Add the subcommand ``name`` to ``commands`` (a subparsers action); its help keeps the epilog's lines.

    >>> commands = argparse.ArgumentParser().add_subparsers()
    >>> add_command(commands, "info", "print it", "Print it.").prog.endswith("info")
    True
    """
    texts = {"help": help_text, "description": description, "epilog": epilog}
    return commands.add_parser(name, **texts, formatter_class=argparse.RawDescriptionHelpFormatter)


def add_max_bytes(group: Any, what: str, note: str = "") -> None:
    """Add ``--max-bytes N`` to ``group``: refuse ``what`` larger than N bytes (``note``: more help).

    >>> p = argparse.ArgumentParser()
    >>> add_max_bytes(p, "a file")
    >>> p.parse_args(["--max-bytes", "1k"]).max_bytes
    1000
    """
    most = limits.DEFAULT_MAX_BYTES
    refuse = f"refuse {what} larger than N bytes (default: {most}; 0: no limit){note}"
    group.add_argument("--max-bytes", type=byte_size, default=most, metavar="N", help=refuse)


class _Option(NamedTuple):
    """A Settings field on the command line: flags, metavar (or choices), help, what None means."""

    flags: tuple[str, ...]
    metavar: str | tuple[str, ...]
    help: str
    none: str = ""


#: The fields of Settings the command line offers (by name, each option's dest); types and defaults
#: come from the dataclass.
SETTING_OPTIONS = {
    "threshold": _Option(("--threshold",), "T", "Jaccard similarity from which two documents are duplicates"),
    "k": _Option(("-k", "--shingle-size"), "K", "words (or characters) per shingle"),
    "shingle": _Option(("--shingle",), SHINGLE_KINDS, "shingle kind"),
    "num_perm": _Option(("--num-perm",), "P", "MinHash signature length"),
    "bands": _Option(("--bands",), "B", "LSH bands (give with --rows)", "optimal_params favouring recall"),
    "rows": _Option(("--rows",), "R", "LSH rows per band (give with --bands)"),
    "seed": _Option(("--seed",), "S", "seed of the hash functions"),
    "scheme": _Option(("--scheme",), CLI_SCHEMES, "MinHash hash family"),
    "keeper": _Option(("--keep",), KEEPER_POLICIES, "which document of a cluster to keep: first, or longest"),
    "max_df": _Option(
        ("--max-df",), "DF", "ignore shingles in more than this share (0.5) or number (30) of the documents, "
        "such as shared boilerplate", "keep all"
    ),
}
#: The settings that shape the hashing, which an index stores.
HASH_SETTINGS = ("threshold", "k", "shingle", "num_perm", "bands", "rows", "seed", "scheme")


def _parser_of(hint: object) -> Callable[[str], object] | None:
    """The value parser of a Settings field of type ``hint``; None for strings (their choices say)."""
    kinds = set(typing.get_args(hint)) - {type(None)} or {hint}
    if kinds == {float, int}:
        return share_or_count
    return number if float in kinds else whole if int in kinds else None


def add_setting_options(group: Any, names: Sequence[str], *, from_index: bool = False) -> None:
    """Add to ``group`` the options of the Settings fields ``names`` (``from_index``: no defaults shown).

    >>> p = argparse.ArgumentParser()
    >>> add_setting_options(p, ["keeper", "max_df"])
    >>> vars(p.parse_args(["--keep", "longest", "--max-df", "30"]))
    {'keeper': 'longest', 'max_df': 30}
    """
    hints = typing.get_type_hints(Settings)
    fields = {f.name: f for f in dataclasses.fields(Settings)}
    for name in names:
        option, default = SETTING_OPTIONS[name], fields[name].default
        shown = option.none if default is None else default
        text = option.help if from_index or not shown else f"{option.help} (default: {shown})"
        if isinstance(option.metavar, tuple):
            group.add_argument(*option.flags, dest=name, choices=option.metavar, help=text)
        else:
            kind = _parser_of(hints[name])
            group.add_argument(*option.flags, dest=name, type=kind, metavar=option.metavar, help=text)


def add_hash_options(p: argparse.ArgumentParser, *, from_index: bool) -> None:
    """A group of the options of the :data:`HASH_SETTINGS`, which Settings checks.

    >>> p = argparse.ArgumentParser()
    >>> add_hash_options(p, from_index=False)
    >>> given_settings(p.parse_args(["-k", "3", "--threshold", "0.7"]))
    {'threshold': 0.7, 'k': 3}
    """
    title = "settings (stored in the index; give one only to check it matches)" if from_index else None
    group = p.add_argument_group(title or "similarity and hashing")
    add_setting_options(group, HASH_SETTINGS, from_index=from_index)


def given_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The settings typed on the command line, by their names in :class:`~.settings.Settings`.

    >>> given_settings(argparse.Namespace(threshold=0.7, k=None))
    {'threshold': 0.7}
    """
    names = [f.name for f in dataclasses.fields(Settings)]
    return {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}
