"""``perfstats report``: summarise a recorded run, or write its HTML report."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..records.record import is_empty, read_metadata
from ..report.billing import cost_text, load_prices, run_cost
from ..report.formatting import quantity, table
from ..report.summary import report
from .output import emit_json, intervals_text, out, rule_text
from .parser import UsageError, metric_argument, output_arguments
from .samples import read_metric

HELP = "summarise a recorded run"
EXAMPLES = """\
examples:
  perfstats report run.csv
  perfstats report run.csv --json
  perfstats report run.csv -o report.html
  # a run on AWS Lambda or an HTTP function, priced with another dated table
  perfstats report run.csv --prices prices.json
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the options of ``perfstats report`` to its parser."""
    p.add_argument("record", help="a record CSV written by perfstats run")
    p.add_argument(
        "-o",
        "--output",
        metavar="HTML",
        help="write a self-contained HTML report (figures embedded) instead of the summary",
    )
    p.add_argument(
        "--prices",
        metavar="FILE",
        help="price table for a FaaS target's cost (JSON or TOML with date and region)",
    )
    metric_argument(p)
    output_arguments(p)


def command(args: argparse.Namespace, command_argv: list[str]) -> int:
    """Run ``perfstats report`` with parsed arguments; returns the exit status."""
    if is_empty(args.record):
        raise UsageError(f"record {args.record} is empty: a header and no rows, nothing to report")
    prices = load_prices(args.prices)
    if args.output:
        # Imported here: only the HTML report needs matplotlib.
        from ..report.html import write_html_report

        written = write_html_report(Path(args.record), Path(args.output), prices=prices)
        out(f"wrote {written}")
        return 0
    measurements, better = read_metric(args.record, args.metric)
    metadata = read_metadata(args.record)
    data = report(measurements, metadata)
    target_config = metadata.get("target") or {}
    cost = run_cost(measurements, target_config, prices=prices)
    if args.json:
        emit_json({"record": args.record, "metric": args.metric, "better": better, **data,
                   "cost": cost})  # fmt: skip
        return 0
    unit = data["values"].get("unit", "")
    target = data["target"] or {}
    machine = data["machine"] or {}
    c = data["counts"]
    out(f"record     {args.record}")
    if args.metric != "value":
        out(f"series     {args.metric} ({better} is better)")
    out(f"target     {target.get('name', '?')} ({target.get('kind', '?')})")
    out(f"rule       {rule_text(data['rule'])}")
    out(f"seed       {data['seed']}")
    warmup = data["warmup"]
    if isinstance(warmup, dict):
        found = (
            f"{warmup['start']} runs, judged from run {warmup.get('start_run')}"
            if warmup.get("start") is not None
            else "no steady state found"
        )
        out(f"warm-up    auto: {found}" + (" (capped)" if warmup.get("capped") else ""))
    git = data["git"]
    if isinstance(git, dict) and git.get("commit"):
        dirty = " (uncommitted changes)" if git.get("dirty") else ""
        out(f"git        {git['commit']}{dirty} in {git.get('work_tree') or git.get('directory')}")
    out(
        f"machine    {machine.get('cpu_model', '?')}, {machine.get('cores_logical', '?')} cores, "
        f"{machine.get('os', '?')}, kernel {machine.get('kernel', '?')}"
    )
    out(f"time       {data['started_at']} .. {data['ended_at']} ({data['sessions']} session(s))")
    priced = cost_text(cost, target_config)
    if priced is not None:
        out(f"cost       {priced}")
    decision = data["decision"] or {}
    out(f"stopped by {data['stopped_by']}: {decision.get('reason', '?')}")
    out(
        f"runs       {c['measured']} measured ({c['ok']} ok, {c['error']} error, "
        f"{c['timeout']} timeout), {c['warmup']} warm-up, {c['intervals']} intervals, "
        f"{c['cold']} cold, {c['warm']} warm"
    )
    v = data["values"]
    if v.get("n"):
        out(
            f"values     min {quantity(v['min'], unit)}, mean {quantity(v['mean'], unit)}, "
            f"max {quantity(v['max'], unit)}"
        )
    if data["characterization_text"]:
        out()
        out("characterisation of every successful run in order (warm-up included)")
        out(data["characterization_text"])
    out()
    out(intervals_text(data["percentiles"], unit))
    if data["errors"]:
        out()
        out("most frequent failures")
        out(table(data["errors"], ["count", "status", "error"]))
    return 0
