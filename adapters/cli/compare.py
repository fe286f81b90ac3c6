"""``perfstats compare``: compare two samples (before / after) with the core's comparison."""

from __future__ import annotations

import argparse

from .output import emit_json, out
from .parser import UsageError, metric_argument, output_arguments
from .samples import read_judged_sample

HELP = "compare two samples (before / after)"
EXAMPLES = """\
examples:
  perfstats compare before.csv after.csv
  perfstats compare before.csv after.csv --paired --json
  perfstats compare main-jmh.json pr-jmh.json --column org.bench.Put.put
  perfstats compare before.csv after.csv --higher-is-better

Each file is a perfstats record (its successful measured values are used), a
CSV with one numeric column (or choose one with --column), or a results file
of another tool (pyperf, hyperfine, Google Benchmark, pytest-benchmark, asv,
JMH, criterion, 'go test -bench') with one benchmark (or choose one with
--column). The relative change reads "slower" or "faster" in the direction
the values go: a throughput (JMH thrpt, Go MB/s, a Google Benchmark
*_per_second counter, or --higher-is-better) is faster when it rises.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the options of ``perfstats compare`` to its parser."""
    p.add_argument("a", help="baseline: a record or a one-column CSV")
    p.add_argument("b", help="candidate: a record or a one-column CSV")
    p.add_argument(
        "--column",
        help="the column to use in a CSV with several, or the benchmark of a tool's results file",
    )
    p.add_argument("--paired", action="store_true", help="a[i] and b[i] were measured together")
    p.add_argument(
        "--per-pair",
        action="store_true",
        help="with --paired: the change is the median of the ratios b[i] / a[i]",
    )
    p.add_argument("--level", type=float, default=0.99, help="level of the change CI (0.99)")
    p.add_argument("--seed", type=int, help="seed of the bootstrap")
    p.add_argument(
        "--higher-is-better",
        action="store_true",
        help="higher values are better (a throughput, a rate) where the files do not say",
    )
    metric_argument(p)
    output_arguments(p)


def command(args: argparse.Namespace, command_argv: list[str]) -> int:
    """Run ``perfstats compare`` with parsed arguments; returns the exit status."""
    from perfstats.comparison import compare

    a, better_a = read_judged_sample(args.a, args.column, args.metric)
    b, better_b = read_judged_sample(args.b, args.column, args.metric)
    if better_a != better_b and not args.higher_is_better:
        raise UsageError(
            f"{better_a} values are better in {args.a} but {better_b} in {args.b} (a time on "
            "one side, a throughput on the other?)"
        )
    better = "higher" if args.higher_is_better else better_a
    result = compare(
        a, b, paired=args.paired, per_pair=args.per_pair, level=args.level, rng=args.seed,
        better=better,
    )  # fmt: skip
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
                "better": better,
                "change": result.change,
            }
        )
        return 0
    out(f"a (baseline)   {args.a}: n={result.n_a}")
    out(f"b (candidate)  {args.b}: n={result.n_b}")
    out(f"better         {better} values")
    out()
    out(repr(result))
    return 0
