"""``perfstats export``: write a record's judged values in another tool's format (pyperf JSON)."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import pandas as pd

from .output import emit_json, out
from .parser import UsageError, output_arguments

HELP = "write a record's values as pyperf JSON"
FORMATS = ("pyperf",)
EXAMPLES = """\
examples:
  perfstats export run.csv -o run.json
  python -m pyperf stats run.json
  # two records of one benchmark, compared by pyperf
  perfstats export base.csv -o base.json && perfstats export new.csv -o new.json
  python -m pyperf compare_to base.json new.json
  # a suite record: one pyperf benchmark per series; or only some of them
  perfstats export suite.csv -o suite.json --metric BM_parse --metric BM_render
  # records of differently named commands, under one pyperf name
  perfstats export a.csv -o a.json --name sort && perfstats export b.csv -o b.json --name sort

The values are those the rule judged: the successful measurement runs, in
run order (warm-up and failed runs left out). By default the benchmarks are
those perfstats gate reads from the record, under its names (the primary
value after the target, a suite's benchmarks as themselves); --metric
names series, each written under its own name. Times are written in
seconds; series pyperf cannot hold (a unit other than a time, bytes or a
count, or a value <= 0) are left out, and named, or refused when asked for
with --metric. A run of a command (a new process) is a pyperf run of its
own; the calls of a pytest benchmark are one run, with its warm-up calls as
pyperf warm-ups. The output is written atomically and is never one of the
record's own files.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the options of ``perfstats export`` to its parser."""
    p.add_argument("record", help="a record CSV written by perfstats run or the pytest plugin")
    p.add_argument(
        "-o", "--output", required=True, metavar="FILE", help="the file to write (replaced)"
    )
    p.add_argument(
        "--format", choices=FORMATS, default="pyperf", help="the format to write (default: pyperf)"
    )
    p.add_argument(
        "--metric",
        action="append",
        metavar="NAME",
        help="a series to write ('value': the primary value; repeatable); default: the "
        "benchmarks perfstats gate reads (the judged series)",
    )
    p.add_argument(
        "--name",
        metavar="NAME",
        help="the pyperf name of the primary value's benchmark (default: the target's name)",
    )
    output_arguments(p)


def command(args: argparse.Namespace, command_argv: list[str]) -> int:
    """Run ``perfstats export`` with parsed arguments; returns the exit status."""
    from ..records.files import write_atomic
    from ..records.outputs import check_output
    from ..records.record import is_empty, record_inputs
    from ..targets.pyperf_export import pyperf_suite

    record, output = Path(args.record), Path(args.output)
    if not record.is_file():
        raise UsageError(f"record {args.record} does not exist or is not a file")
    check_output(output, record_inputs(record), what="the pyperf export")
    if not output.parent.is_dir():
        folder = os.fspath(output.parent)
        raise UsageError(f"--output {args.output}: folder {folder} does not exist")
    if is_empty(record):
        raise UsageError(f"record {args.record} is empty: a header and no rows, nothing to export")
    if args.name is not None and not args.name.strip():
        raise UsageError(f"--name must be a non-empty name; got {args.name!r}")
    frame, warmups = _values(record, args.metric, args.name)
    try:
        suite, left_out = pyperf_suite(frame, strict=args.metric is not None, warmups=warmups)
    except ValueError as exc:
        raise UsageError(f"{args.record}: {exc}") from None
    write_atomic(output, json.dumps(suite, indent=1) + "\n")
    benchmarks = [
        {
            "name": b["metadata"]["name"],
            "unit": b["metadata"]["unit"],
            "runs": len(b["runs"]),
            "values": sum(len(r["values"]) for r in b["runs"]),
            "warmups": sum(len(r.get("warmups", ())) for r in b["runs"]),
        }
        for b in suite["benchmarks"]
    ]
    if args.json:
        emit_json(
            {"record": args.record, "output": args.output, "format": args.format,
             "benchmarks": benchmarks, "left_out": left_out},
            secret_keys=False,
        )  # fmt: skip
        return 0
    out(f"wrote {args.output}: {len(benchmarks)} pyperf benchmark(s) from {args.record}")
    for b in benchmarks:
        warm = f", {b['warmups']} warm-up(s)" if b["warmups"] else ""
        out(f"  {b['name']}  {b['values']} value(s) in {b['runs']} run(s) ({b['unit']}){warm}")
    for name, why in left_out.items():
        out(f"  left out {name}: {why}")
    return 0


def _values(
    record: Path, metrics: list[str] | None, name: str | None
) -> tuple[pd.DataFrame, dict[str, list[float]]]:
    """The record's judged values as benchmarks (the gate's), and a pytest record's warm-ups.

    By default the benchmarks ``perfstats gate`` reads from the record;
    with ``metrics``, each series named, under its own name (the primary
    under the target's). ``name`` replaces the target's name.
    """
    from ..ab.inputs import read_results
    from ..records.record import WARMUP, read_metadata, read_record
    from ..records.series_table import PRIMARY
    from ..targets.pyperf_export import ONE_PROCESS_KINDS

    rows = read_record(record)  # refuses a file that is not a record, naming it
    target = read_metadata(record).get("target")
    target = target if isinstance(target, dict) else {}
    if metrics is None:
        frame = read_results(record)
    else:
        parts = []
        for metric in dict.fromkeys(metrics):
            part = read_results(record, metric=metric)
            if metric != PRIMARY:
                part = part.assign(benchmark=metric)
            parts.append(part)
        frame = pd.concat(parts, ignore_index=True)
    own = str(target.get("name") or frame["benchmark"].iloc[0])
    if name is not None:
        # The target's name, alone or as the prefix of its judged metrics (the gate's names).
        frame["benchmark"] = [
            name if b == own else f"{name}/{b[len(own) + 1 :]}" if b.startswith(own + "/") else b
            for b in frame["benchmark"]
        ]
    named = name if name is not None else own
    if metrics is not None and frame["benchmark"].nunique() < len(dict.fromkeys(metrics)):
        raise UsageError(
            f"{record}: the primary value's name {named!r} is also a series' name; give the "
            "primary another with --name"
        )
    warmups: dict[str, list[float]] = {}
    if target.get("kind") in ONE_PROCESS_KINDS:
        # Calls in one process: one pyperf run, with the warm-up calls as its warm-ups.
        frame["process"] = 0
        warm = rows[(rows["phase"] == WARMUP) & (rows["status"] == "ok")].sort_values("run")
        if named in set(frame["benchmark"]) and len(warm):
            warmups[named] = warm["value"].astype(float).tolist()
    else:
        frame["process"] = frame.groupby("benchmark", sort=False).cumcount()
    return frame[["benchmark", "unit", "value", "process"]], warmups
