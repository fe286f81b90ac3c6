"""What the ``perfstats`` subcommands share: exit codes, a one-line error parser, options."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import NoReturn

PROG = "perfstats"
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
# 128 + SIGPIPE, what a shell reports for a writer whose reader went away.
EXIT_BROKEN_PIPE = 141


class UsageError(ValueError):
    """Bad command-line input."""


def one_line(text: str) -> str:
    """``text`` with line breaks, control characters and terminal escapes spelled out.

    An error quotes what the user gave (a file's header, an argument); it
    stays one line and cannot drive the terminal.

    Examples
    --------
    >>> print(one_line("bad header 'a\\nb\\x1b[2J'"))
    bad header 'a\\nb\\x1b[2J'
    """
    return "".join(
        c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text
    )


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, not argparse's usage block."""

    def error(self, message: str) -> NoReturn:
        # One line: the help is one flag away.
        message = one_line(message)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def rule_arguments(p: argparse.ArgumentParser) -> None:
    """Add ``--rule``, ``--rule-option`` and ``--seed``."""
    p.add_argument(
        "--rule",
        default="superflow",
        metavar="NAME",
        help="stopping rule (default: superflow); see perfstats.rules.RULES",
    )
    p.add_argument(
        "-r",
        "--rule-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a rule option, e.g. error=0.02 (repeatable)",
    )
    p.add_argument("--seed", type=int, help="seed for randomised rules (recorded)")


def output_arguments(p: argparse.ArgumentParser) -> None:
    """Add ``--json``."""
    p.add_argument("--json", action="store_true", help="machine-readable JSON on stdout")


def metric_argument(p: argparse.ArgumentParser) -> None:
    """``--metric NAME``: which series of a record with several to read (default the primary)."""
    p.add_argument(
        "--metric",
        default="value",
        metavar="NAME",
        help="for a record with several series (benchmarks, metrics): the series to read "
        "(default: value, the primary value)",
    )


def names_argument(p: argparse.ArgumentParser) -> None:
    """``--names``: how a record's benchmark is named (the gate and history read records alike)."""
    from ..ab.inputs import NAMES

    p.add_argument(
        "--names",
        choices=NAMES,
        default="target",
        help="name a record's benchmark by its target (default) or its file's stem",
    )


def split_argv(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """Split the command line at ``--``: perfstats' own arguments, and the target's command.

    Examples
    --------
    >>> split_argv(["run", "--rule", "fixed", "--", "./bench", "--", "x"])
    (['run', '--rule', 'fixed'], ['./bench', '--', 'x'])
    """
    items = list(argv)
    if "--" in items:
        i = items.index("--")
        return items[:i], items[i + 1 :]
    return items, []
