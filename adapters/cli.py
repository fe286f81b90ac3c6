"""The ``perfstats`` command: run, replay, compare, report and ab.

Errors are one line on standard error and a non-zero exit status: 2 for
bad input (unknown rule or target, bad option values, missing files), 1 when
the target kept failing, 130 when interrupted. ``--debug`` shows the
traceback instead.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

import numpy as np
import pandas as pd

from perfstats.decision import Decision

from . import ab_cli
from .builtin import builtin_target
from .driver import build_rule, run
from .failures import TargetFailed
from .formatting import percent, quantity, table
from .options import parse_options
from .plain import plain
from .record import COLUMNS, read_metadata, read_record
from .result import RunResult, judged_values
from .summary import counts, percentile_rows, report
from .target import Target
from .targets import TARGETS, target_by_name

PROG = "perfstats"
# Runs the built-in workload may use when --max-n is not given.
BUILTIN_MAX_N = 500
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
_TRAJECTORY_HEAD = 3
_TRAJECTORY_TAIL = 12

RUN_EXAMPLES = """\
examples:
  # the built-in workload (a short Python computation) under SuperFlow
  perfstats run --builtin
  # a local command, judged by Metior, recorded
  perfstats run --rule metior --rule-option error=0.03 --record run.csv -- ./bench --quick
  # resume that record after an interruption
  perfstats run --rule metior --rule-option error=0.03 --record run.csv --resume -- ./bench --quick
  # a container, warm mode
  perfstats run --target container -t image=localhost/bb:latest -t mode=warm -- /bin/true
  # a VM over SSH, host key checked against known_hosts
  perfstats run --target ssh -t host=10.0.0.5 -t user=bench -t key=~/.ssh/id_ed25519 \\
      -t known_hosts=./known_hosts -- ./bench
  # an HTTP function, 16 requests in flight
  perfstats run --target http --concurrency 16 -t payload='{"n": 100}' -- http://127.0.0.1:8080/
  # AWS Lambda, cold starts 30 minutes apart
  perfstats run --target lambda -t region=eu-west-1 -t force_cold=true --spacing 1800 -- thumbnail

target options (-t key=value) are the keyword arguments of the target classes
in perfstats.adapters: command (timeout, env, cwd, regex, json_field, unit),
container (image, engine, mode, network, ...), ssh (host, port, user, key,
known_hosts, ...), http (method, payload, headers, timeout, ...), lambda
(region, payload, force_cold, metric, endpoint_url, ...). Values are Python
literals when they parse as one (0.01, true, (0.25, 0.5), {"a": "1"}), else
strings.
"""

REPLAY_EXAMPLES = """\
examples:
  perfstats replay traces.csv --rule superflow
  perfstats replay traces.csv --rule metior -r error=0.03 -r interval=10 --max-n 500 --json

traces.csv has one column per trace (a header row with the trace names);
shorter traces leave their last cells empty.
"""

COMPARE_EXAMPLES = """\
examples:
  perfstats compare before.csv after.csv
  perfstats compare before.csv after.csv --paired --json

Each file is a perfstats record (its successful measured values are used) or
a CSV with one numeric column (or choose one with --column).
"""

REPORT_EXAMPLES = """\
examples:
  perfstats report run.csv
  perfstats report run.csv --json
  perfstats report run.csv -o report.html
"""


class UsageError(ValueError):
    """Bad command-line input."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One line, not argparse's usage block: the help is one flag away.
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Trustworthy performance measurements: run targets under stopping rules, "
        "replay rules over traces, compare and report.",
        epilog="Run 'perfstats COMMAND --help' for a command's options and examples.",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    def command(name: str, help_text: str, examples: str) -> argparse.ArgumentParser:
        return sub.add_parser(
            name,
            help=help_text,
            description=help_text,
            epilog=examples,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )

    p = command("run", "run a target under a stopping rule and record every run", RUN_EXAMPLES)
    p.usage = "perfstats run [options] [-- ARGV ...]"
    _rule_arguments(p)
    p.add_argument(
        "--target",
        default="command",
        metavar="KIND",
        help=f"target kind: {', '.join(TARGETS)} (default: command)",
    )
    p.add_argument(
        "-t",
        "--target-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a target option (repeatable)",
    )
    p.add_argument(
        "--builtin",
        action="store_true",
        help="run the built-in workload (also the default without ARGV); "
        "at most 500 runs unless --max-n says otherwise",
    )
    p.add_argument("--record", metavar="CSV", help="append every invocation to this CSV")
    p.add_argument("--resume", action="store_true", help="continue an interrupted --record")
    p.add_argument("--max-n", type=int, metavar="N", help="stop after N successful runs")
    p.add_argument(
        "--max-seconds", type=float, metavar="S", help="start no invocation after S seconds"
    )
    p.add_argument(
        "--concurrency", type=int, default=1, metavar="C", help="invocations in flight (default 1)"
    )
    p.add_argument(
        "--spacing",
        type=float,
        metavar="S",
        help="seconds between invocations (SuperFlow: 1800 cold, 5 warm)",
    )
    p.add_argument(
        "--warmup", type=int, default=0, metavar="N", help="runs recorded first but not judged"
    )
    p.add_argument(
        "--max-failures",
        type=int,
        default=5,
        metavar="K",
        help="stop after K failures in a row (default 5)",
    )
    _output_arguments(p)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")

    p = command("replay", "replay a stopping rule over recorded traces", REPLAY_EXAMPLES)
    p.add_argument("traces", help="CSV with one column per trace")
    _rule_arguments(p)
    p.add_argument("--max-n", type=int, metavar="N", help="most runs a test may use")
    p.add_argument("--workers", type=int, metavar="W", help="worker processes")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    _output_arguments(p)

    p = command("compare", "compare two samples (before / after)", COMPARE_EXAMPLES)
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
    _output_arguments(p)

    p = command("report", "summarise a recorded run", REPORT_EXAMPLES)
    p.add_argument("record", help="a record CSV written by perfstats run")
    p.add_argument(
        "-o",
        "--output",
        metavar="HTML",
        help="write a self-contained HTML report (figures embedded) instead of the summary",
    )
    _output_arguments(p)

    ab_cli.add_arguments(command("ab", ab_cli.HELP, ab_cli.EXAMPLES))
    return parser


def _rule_arguments(p: argparse.ArgumentParser) -> None:
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


def _output_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="machine-readable JSON on stdout")


def _split_argv(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    items = list(argv)
    if "--" in items:
        i = items.index("--")
        return items[:i], items[i + 1 :]
    return items, []


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``perfstats`` console script; returns the exit status.

    Examples
    --------
    >>> from perfstats.adapters.cli import main
    >>> main(["report", "no-such-file.csv"])  # doctest: +SKIP
    perfstats: error: record no-such-file.csv does not exist
    2
    """
    own, command_argv = _split_argv(sys.argv[1:] if argv is None else argv)
    parser = _parser()
    args = parser.parse_args(own)
    if command_argv and args.command != "run":
        parser.error(f"'--' and a command make sense only for 'run', not {args.command!r}")
    logging.basicConfig(level=logging.WARNING, format=f"{PROG}: %(message)s")
    handlers = {
        "run": _run,
        "replay": _replay,
        "compare": _compare,
        "report": _report,
        "ab": ab_cli.command,
    }
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        return handlers[args.command](args, command_argv)
    except KeyboardInterrupt:
        _err("interrupted" + _record_hint(args))
        return EXIT_INTERRUPTED
    except TargetFailed as exc:
        if args.debug:
            raise
        _err(f"{exc}{_record_hint(args)}")
        return EXIT_FAILED
    except (ValueError, OSError) as exc:
        if args.debug:
            raise
        _err(str(exc) if isinstance(exc, ValueError) else f"{exc.strerror}: {exc.filename}")
        return EXIT_USAGE
    except Exception as exc:
        if args.debug:
            raise
        _err(f"internal error: {type(exc).__name__}: {exc} (rerun with --debug for details)")
        return EXIT_FAILED
    finally:
        signal.signal(signal.SIGTERM, previous)


def _terminate(signum: int, frame: FrameType | None) -> None:
    # Turn SIGTERM into the same clean shutdown as Ctrl-C: containers are
    # removed and the metadata is finished.
    raise KeyboardInterrupt


def _record_hint(args: argparse.Namespace) -> str:
    path = getattr(args, "record", None)
    if args.command == "run" and path:
        return f"; measurements so far are in {path} (continue with --resume)"
    return ""


def _out(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def _err(text: str) -> None:
    sys.stderr.write(f"{PROG}: error: {text}\n")


def _emit_json(data: Any) -> None:
    _out(json.dumps(plain(data), indent=2))


# -- run -------------------------------------------------------------------


def _run(args: argparse.Namespace, command_argv: list[str]) -> int:
    target_options = parse_options(args.target_option, "target option")
    rule_options = parse_options(args.rule_option, "rule option")
    if args.builtin or (not command_argv and args.target == "command" and not target_options):
        if command_argv or target_options or args.target != "command":
            raise UsageError("--builtin takes no command, target options or other --target")
        target: Target = builtin_target()
        if args.max_n is None:
            # The demo must end on a busy machine too, where a 1% precision
            # on P75 may never come: cap it (about 20 s of runs).
            args.max_n = BUILTIN_MAX_N
    else:
        target = target_by_name(args.target, command_argv, target_options)
    if args.resume and not args.record:
        raise UsageError("--resume needs --record")
    progress = not args.no_progress and sys.stderr.isatty()
    result = run(
        target,
        args.rule,
        rule_options=rule_options,
        max_n=args.max_n,
        max_seconds=args.max_seconds,
        concurrency=args.concurrency,
        spacing=args.spacing,
        warmup=args.warmup,
        record=args.record,
        resume=args.resume,
        progress=progress,
        rng=args.seed,
        max_failures=args.max_failures,
    )
    _show_run(result, as_json=args.json)
    return 0


def _show_run(result: RunResult, *, as_json: bool) -> None:
    values = result.values
    unit = _unit(result.measurements)
    intervals = percentile_rows(values)
    tally = counts(result.measurements)
    if as_json:
        _emit_json(
            {
                "stopped_by": result.stopped_by,
                "decision": result.decision,
                "history": [d.to_dict() for d in result.history],
                "counts": tally,
                "unit": unit,
                "percentiles": intervals,
                "record": str(result.record) if result.record else None,
                "seed": result.seed,
                "elapsed_s": result.elapsed,
                "target": result.metadata.get("target"),
                "rule": result.metadata.get("rule"),
            }
        )
        return
    target = result.metadata.get("target", {})
    rule = result.metadata.get("rule", {})
    _out(f"target   {target.get('name')} ({target.get('kind')})")
    _out(f"rule     {_rule_text(rule)}")
    if result.record:
        _out(f"record   {result.record}")
    _out()
    _out("decision trajectory")
    _out(_trajectory(result.history))
    _out()
    _out(
        f"stopped by {result.stopped_by} after {tally['measured']} measured runs "
        f"({tally['ok']} ok, {tally['error']} failed, {tally['timeout']} timed out"
        + (f", {tally['warmup']} warm-up" if tally["warmup"] else "")
        + f") in {result.elapsed:.1f} s"
    )
    _out(f"decision: {result.decision.reason}")
    _out()
    _out(_intervals_text(intervals, unit))


def _rule_text(rule: Any) -> str:
    if not isinstance(rule, dict):
        return str(rule)
    config = ", ".join(f"{k}={v!r}" for k, v in (rule.get("config") or {}).items())
    return f"{rule.get('name')}({config})"


def _trajectory(history: Sequence[Decision]) -> str:
    lines = [f"{d.n:>7}  {'stop' if d.stop else 'go':<4}  {d.reason}" for d in history]
    if len(lines) > _TRAJECTORY_HEAD + _TRAJECTORY_TAIL + 1:
        skipped = len(lines) - _TRAJECTORY_HEAD - _TRAJECTORY_TAIL
        gap = f"{'...':>7}        ({skipped} more judgements)"
        lines = [*lines[:_TRAJECTORY_HEAD], gap, *lines[-_TRAJECTORY_TAIL:]]
    if not lines:
        return "(no judgement)"
    return "\n".join([f"{'n':>7}  {'':<4}  reason", *lines])


def _intervals_text(rows: list[dict[str, Any]], unit: str) -> str:
    if not rows:
        return "no successful measurement, so no interval"
    first = rows[0]
    head = f"final intervals ({100 * first['level']:g}% CI, {first['method']}, n={first['n']})"
    shown = [
        {
            "percentile": r["percentile"],
            "estimate": quantity(r["estimate"], unit),
            "low": quantity(r["low"], unit),
            "high": quantity(r["high"], unit),
            "±": percent(r["rel_error"]),
        }
        for r in rows
    ]
    return head + "\n" + table(shown)


def _unit(measurements: pd.DataFrame) -> str:
    ok = measurements[measurements["status"] == "ok"]
    units = sorted(set(ok["unit"]))
    return units[0] if len(units) == 1 else ""


# -- replay ----------------------------------------------------------------


def _replay(args: argparse.Namespace, command_argv: list[str]) -> int:
    from perfstats.replay import replay

    traces = _read_traces(args.traces)
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
        _emit_json(
            {
                "rule": {"name": rule.name, "config": rule.config()},
                "tests": result.to_dict("records"),
            }
        )
        return 0
    _out(f"rule     {rule!r}")
    _out(f"traces   {len(traces)} from {args.traces}")
    _out()
    _out(str(result.to_string(index=False)))
    stopped = result["stopped"]
    _out()
    _out(
        f"stopped {int(stopped.sum())} of {len(result)} tests; "
        f"median stop at n={float(np.median(result['stop_n'])):g}"
    )
    return 0


def _read_traces(path: str) -> dict[str, np.ndarray]:
    df = _read_csv(path)
    traces: dict[str, np.ndarray] = {}
    for column in df.columns:
        values = pd.to_numeric(df[column], errors="coerce")
        bad = values.isna() & df[column].notna()
        if bad.any():
            row = int(np.argmax(bad.to_numpy())) + 2
            raise UsageError(
                f"{path}: column {column!r} line {row} is not a number: {df[column][bad].iloc[0]!r}"
            )
        series = values.to_numpy(dtype=np.float64)
        # Only trailing empties pad a short trace; a hole inside is an error.
        last = int(np.flatnonzero(~np.isnan(series))[-1]) + 1 if (~np.isnan(series)).any() else 0
        if np.isnan(series[:last]).any():
            raise UsageError(f"{path}: column {column!r} has an empty cell before its end")
        if last == 0:
            raise UsageError(f"{path}: column {column!r} is empty")
        traces[str(column)] = series[:last]
    if not traces:
        raise UsageError(f"{path}: no trace columns")
    return traces


def _read_csv(path: str) -> pd.DataFrame:
    if not os.path.exists(path):
        raise UsageError(f"file {path} does not exist")
    try:
        return pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path} is not a readable CSV: {exc}") from None


# -- compare ---------------------------------------------------------------


def _compare(args: argparse.Namespace, command_argv: list[str]) -> int:
    from perfstats.comparison import compare

    a = _sample(args.a, args.column)
    b = _sample(args.b, args.column)
    result = compare(
        a, b, paired=args.paired, per_pair=args.per_pair, level=args.level, rng=args.seed
    )
    frame = result.to_frame().reset_index()
    if args.json:
        _emit_json(
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
    _out(f"a (baseline)   {args.a}: n={result.n_a}")
    _out(f"b (candidate)  {args.b}: n={result.n_b}")
    _out()
    _out(repr(result))
    return 0


def _sample(path: str, column: str | None) -> np.ndarray:
    df = _read_csv(path)
    if tuple(df.columns) == COLUMNS:
        values = judged_values(read_record(path))
        if values.size == 0:
            raise UsageError(f"{path}: the record has no successful measured run")
        return values
    if column is not None:
        if column not in df.columns:
            raise UsageError(f"{path} has no column {column!r}")
        series = df[column]
    elif df.shape[1] == 1:
        series = df.iloc[:, 0]
    else:
        raise UsageError(
            f"{path} has {df.shape[1]} columns; choose one with --column "
            f"({', '.join(map(str, df.columns))})"
        )
    numbers = pd.to_numeric(series, errors="coerce")
    if numbers.isna().any():
        raise UsageError(f"{path}: column {series.name!r} has empty or non-numeric cells")
    return numbers.to_numpy(dtype=np.float64)


# -- report ----------------------------------------------------------------


def _report(args: argparse.Namespace, command_argv: list[str]) -> int:
    if args.output:
        # Imported here: only the HTML report needs matplotlib.
        from .html_report import write_html_report

        _out(f"wrote {write_html_report(Path(args.record), Path(args.output))}")
        return 0
    measurements = read_record(args.record)
    metadata = read_metadata(args.record)
    data = report(measurements, metadata)
    if args.json:
        _emit_json({"record": args.record, **data})
        return 0
    unit = data["values"].get("unit", "")
    target = data["target"] or {}
    machine = data["machine"] or {}
    c = data["counts"]
    _out(f"record     {args.record}")
    _out(f"target     {target.get('name', '?')} ({target.get('kind', '?')})")
    _out(f"rule       {_rule_text(data['rule'])}")
    _out(f"seed       {data['seed']}")
    _out(
        f"machine    {machine.get('cpu_model', '?')}, {machine.get('cores_logical', '?')} cores, "
        f"{machine.get('os', '?')}, kernel {machine.get('kernel', '?')}"
    )
    _out(f"time       {data['started_at']} .. {data['ended_at']} ({data['sessions']} session(s))")
    decision = data["decision"] or {}
    _out(f"stopped by {data['stopped_by']}: {decision.get('reason', '?')}")
    _out(
        f"runs       {c['measured']} measured ({c['ok']} ok, {c['error']} error, "
        f"{c['timeout']} timeout), {c['warmup']} warm-up, {c['intervals']} intervals, "
        f"{c['cold']} cold, {c['warm']} warm"
    )
    v = data["values"]
    if v.get("n"):
        _out(
            f"values     min {quantity(v['min'], unit)}, mean {quantity(v['mean'], unit)}, "
            f"max {quantity(v['max'], unit)}"
        )
    _out()
    _out(_intervals_text(data["percentiles"], unit))
    if data["errors"]:
        _out()
        _out("most frequent failures")
        _out(table(data["errors"], ["count", "status", "error"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
