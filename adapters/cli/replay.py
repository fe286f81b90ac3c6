"""``perfstats replay``: replay a stopping rule over recorded traces."""

from __future__ import annotations

import argparse
import sys

import numpy as np

from ..driver.stop_loop import build_rule
from .options import parse_options
from .output import emit_json, out
from .parser import output_arguments, rule_arguments
from .samples import read_traces

HELP = "replay a stopping rule over recorded traces"
EXAMPLES = """\
examples:
  perfstats replay traces.csv --rule superflow
  perfstats replay traces.csv --rule metior -r error=0.03 -r interval=10 --max-n 500 --json

traces.csv has one column per trace (a header row with the trace names);
shorter traces leave their last cells empty.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the options of ``perfstats replay`` to its parser."""
    p.add_argument("traces", help="CSV with one column per trace")
    rule_arguments(p)
    p.add_argument("--max-n", type=int, metavar="N", help="most runs a test may use")
    p.add_argument("--workers", type=int, metavar="W", help="worker processes")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    output_arguments(p)


def command(args: argparse.Namespace, command_argv: list[str]) -> int:
    """Run ``perfstats replay`` with parsed arguments; returns the exit status."""
    from perfstats.replay import replay

    traces = read_traces(args.traces)
    options = parse_options(args.rule_option, "rule option")
    rule = build_rule(args.rule, options, args.seed)
    result = replay(
        rule,
        traces,
        max_n=args.max_n,
        workers=args.workers,
        progress=not args.no_progress and sys.stderr.isatty(),
    )
    if args.json:
        emit_json(
            {
                "rule": {"name": rule.name, "config": rule.config()},
                "tests": result.to_dict("records"),
            }
        )
        return 0
    out(f"rule     {rule!r}")
    out(f"traces   {len(traces)} from {args.traces}")
    out()
    out(str(result.to_string(index=False)))
    stopped = result["stopped"]
    out()
    out(
        f"stopped {int(stopped.sum())} of {len(result)} tests; "
        f"median stop at n={float(np.median(result['stop_n'])):g}"
    )
    return 0
