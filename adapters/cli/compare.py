"""``perfstats compare``: compare two samples (before / after) with the core's comparison."""

from __future__ import annotations

import argparse

from .output import emit_json, out
from .parser import output_arguments
from .samples import read_sample

HELP = "compare two samples (before / after)"
EXAMPLES = """\
examples:
  perfstats compare before.csv after.csv
  perfstats compare before.csv after.csv --paired --json

Each file is a perfstats record (its successful measured values are used) or
a CSV with one numeric column (or choose one with --column).
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the options of ``perfstats compare`` to its parser."""
    p.add_argument("a", help="baseline: a record or a one-column CSV")
    p.add_argument("b", help="candidate: a record or a one-column CSV")
    p.add_argument("--column", help="the column to use in a CSV with several")
    p.add_argument("--paired", action="store_true", help="a[i] and b[i] were measured together")
    p.add_argument(
        "--per-pair",
        action="store_true",
        help="with --paired: the change is the median of the ratios b[i] / a[i]",
    )
    p.add_argument("--level", type=float, default=0.99, help="level of the change CI (0.99)")
    p.add_argument("--seed", type=int, help="seed of the bootstrap")
    output_arguments(p)


def command(args: argparse.Namespace, command_argv: list[str]) -> int:
    """Run ``perfstats compare`` with parsed arguments; returns the exit status."""
    from perfstats.comparison import compare

    a = read_sample(args.a, args.column)
    b = read_sample(args.b, args.column)
    result = compare(
        a, b, paired=args.paired, per_pair=args.per_pair, level=args.level, rng=args.seed
    )
    frame = result.to_frame().reset_index()
    if args.json:
        emit_json(
            {
                "a": args.a,
                "b": args.b,
                "n_a": result.n_a,
                "n_b": result.n_b,
                "statistics": frame.to_dict("records"),
                "liao_changed": result.liao_changed,
                "change": result.change,
            }
        )
        return 0
    out(f"a (baseline)   {args.a}: n={result.n_a}")
    out(f"b (candidate)  {args.b}: n={result.n_b}")
    out()
    out(repr(result))
    return 0
