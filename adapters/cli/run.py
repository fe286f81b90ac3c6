"""``perfstats run``: run a target under a stopping rule and show what it found."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, NamedTuple

import numpy as np

from perfstats.planning.faas_cost import FaasPrices
from perfstats.rules.decision import Decision

from ..driver.cap import diagnose_cap
from ..driver.rerun import experiment_from_metadata, read_experiment_metadata
from ..driver.result import RunResult
from ..driver.stop_loop import run
from ..driver.warmup import AUTO
from ..records.terminal import for_terminal
from ..report.billing import cost_text, load_prices, run_cost
from ..report.formatting import quantity
from ..report.summary import counts, percentile_rows
from ..report.units import record_unit
from ..targets.base import Target
from ..targets.builtin import builtin_target
from ..targets.registry import TARGETS, target_by_name
from .options import parse_options
from .output import emit_json, intervals_text, out, rule_text
from .parser import UsageError, output_arguments, rule_arguments

# Runs the built-in workload may use when --max-n is not given.
BUILTIN_MAX_N = 500
_TRAJECTORY_HEAD = 3
_TRAJECTORY_TAIL = 12

HELP = "run a target under a stopping rule and record every run"
EXAMPLES = """\
examples:
  # the built-in workload (a short Python computation, pinned to one CPU) under SuperFlow
  perfstats run --builtin
  # a local command pinned to CPU 1 (on a VM whose CPUs differ in speed)
  perfstats run -t cpus=[1] -- ./bench --quick
  # a local command, judged by Metior, recorded
  perfstats run --rule metior --rule-option error=0.03 --record run.csv -- ./bench --quick
  # discard the measured warm-up (found as the runs arrive) instead of a fixed count
  perfstats run --warmup auto --rule ci-width --record run.csv -- ./bench
  # run that experiment again from its metadata (the record CSV or its .meta.json file)
  perfstats run --from-metadata run.csv --record again.csv
  # resume that record after an interruption
  perfstats run --rule metior --rule-option error=0.03 --record run.csv --resume -- ./bench --quick
  # (a record is written by one run at a time; resuming checks its format,
  # target, rule and unit, and a record without metadata needs --force)
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
in perfstats.adapters: command (timeout, env, cwd, regex, json_field, unit,
cpus: pin each run to these CPUs, e.g. -t cpus=[1]; a command is not pinned
unless asked; series beside the value: CPU time and peak memory always
(-t rusage=False turns them off), -t perf=True or -t "perf=['task-clock']"
for perf counters, -t energy=True for RAPL energy, -t "metrics=[{'name':
'rps', 'regex': 'rps=(\\d+)', 'direction': 'higher'}]" for more numbers read
from the output),
container (image, engine, mode, network, cgroup=True for a warm container's
CPU time and memory peak, metrics, ...), ssh (host, port, user, key,
known_hosts, ...), http (method, payload, headers, timeout, ...), lambda
(region, payload, force_cold, metric, endpoint_url, ...). Values are Python
literals when they parse as one (0.01, true, (0.25, 0.5), {"a": "1"}), else
strings.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the options of ``perfstats run`` to its parser."""
    p.usage = "perfstats run [options] [-- ARGV ...]"
    rule_arguments(p)
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
        help="run the built-in workload (also the default without ARGV), pinned to one CPU "
        "(the last usable; -t cpus=[N] picks another, -t cpus=None none); "
        "at most 500 runs unless --max-n says otherwise",
    )
    p.add_argument("--record", metavar="CSV", help="append every invocation to this CSV")
    p.add_argument(
        "--from-metadata",
        metavar="META",
        help="run again the experiment of a record's metadata file (or of the record CSV): "
        "its target, "
        "rule and options, seed, warm-up and limits; give a new --record, and re-supply "
        "redacted secrets (env entries from your environment, others as -t KEY=VALUE)",
    )
    p.add_argument("--resume", action="store_true", help="continue an interrupted --record")
    p.add_argument(
        "--force",
        action="store_true",
        help="with --resume: continue a record whose metadata is missing or incomplete",
    )
    for limit in _LIMITS:
        p.add_argument(
            limit.flag, type=limit.type, default=limit.default, metavar=limit.metavar,
            help=limit.help,
        )  # fmt: skip
    p.add_argument(
        "--prices",
        metavar="FILE",
        help="price table for FaaS targets (JSON or TOML with date and region)",
    )
    p.add_argument(
        "--memory-mb", type=int, metavar="MB", help="memory of an HTTP function, to price the run"
    )
    p.add_argument(
        "--architecture", metavar="ARCH", help="architecture of an HTTP function (x86_64, arm64)"
    )
    output_arguments(p)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def command(args: argparse.Namespace, command_argv: list[str]) -> int:
    """Run ``perfstats run`` with parsed arguments; returns the exit status."""
    if args.from_metadata:
        return _from_metadata(args, command_argv)
    prices = load_prices(args.prices)  # a bad table fails before anything runs
    target_options = parse_options(args.target_option, "target option")
    rule_options = parse_options(args.rule_option, "rule option")
    builtin_options = set(target_options) <= {"cpus"}
    if args.builtin or (not command_argv and args.target == "command" and builtin_options):
        if command_argv or not builtin_options or args.target != "command":
            raise UsageError(
                "--builtin takes no command, no other --target and no target option but cpus"
            )
        target: Target = builtin_target(**target_options)
        if args.max_n is None:
            # The demo must end on a busy machine too, where a 1% precision
            # on P75 may never come: cap it (a short demo's worth of runs).
            args.max_n = BUILTIN_MAX_N
    else:
        target = target_by_name(args.target, command_argv, target_options)
    if args.resume and not args.record:
        raise UsageError("--resume needs --record")
    if args.force and not args.resume:
        raise UsageError("--force applies only with --resume")
    progress = not args.no_progress and sys.stderr.isatty()
    result = run(
        target,
        args.rule,
        rule_options=rule_options,
        record=args.record,
        resume=args.resume,
        force=args.force,
        progress=progress,
        rng=args.seed,
        **_limits(args),
    )
    show_run(
        result, as_json=args.json, prices=prices, memory_mb=args.memory_mb,
        architecture=args.architecture,
    )  # fmt: skip
    return 0


# What --from-metadata takes from the metadata besides the limits: these
# options must keep their defaults.
_RECORDED: tuple[tuple[str, Any, str], ...] = (
    ("rule", "superflow", "--rule"),
    ("rule_option", [], "--rule-option"),
    ("seed", None, "--seed"),
    ("target", "command", "--target"),
    ("builtin", False, "--builtin"),
    ("resume", False, "--resume"),
)


def _from_metadata(args: argparse.Namespace, command_argv: list[str]) -> int:
    """``perfstats run --from-metadata META``: the recorded experiment, run again."""
    recorded = [*_RECORDED, *((_dest(limit.flag), limit.default, limit.flag) for limit in _LIMITS)]
    given = [flag for name, default, flag in recorded if getattr(args, name) != default]
    if command_argv:
        given.append("a command after --")
    if given:
        raise UsageError(
            f"--from-metadata takes the target, rule, seed, warm-up and limits from the "
            f"metadata; do not give {', '.join(given)} (only --record, -t to re-supply a "
            "redacted option, --json and --no-progress)"
        )
    overrides = parse_options(args.target_option, "target option")
    experiment = experiment_from_metadata(
        read_experiment_metadata(args.from_metadata), target_options=overrides
    )
    progress = not args.no_progress and sys.stderr.isatty()
    result = run(
        experiment.target(), record=args.record, progress=progress, **experiment.run_arguments()
    )
    show_run(result, as_json=args.json)
    return 0


def _warmup(text: str) -> int | str:
    """``--warmup``: a count of runs, or ``auto``."""
    if text.strip().lower() == AUTO:
        return AUTO
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number of runs or 'auto'; got {text!r}"
        ) from None


# The run's limits, pacing and warm-up: options of perfstats run that go to
# run() under their own names, and that --from-metadata takes from the
# metadata (so they must keep their defaults there).
class _Limit(NamedTuple):
    """An option of perfstats run that limits or paces the run (a keyword of run())."""

    flag: str
    default: Any
    type: Callable[[str], Any]
    metavar: str
    help: str


_LIMITS = (
    _Limit("--max-n", None, int, "N", "stop after N successful runs"),
    _Limit("--max-seconds", None, float, "S", "start no invocation after S seconds"),
    _Limit("--concurrency", 1, int, "C", "invocations in flight (default 1)"),
    _Limit("--spacing", None, float, "S",
           "seconds between invocations (SuperFlow: 1800 cold, 5 warm)"),
    _Limit("--warmup", 0, _warmup, "N|auto",
           "runs recorded first but not judged; 'auto': the measured warm-up, found by "
           "perfstats.characterize and re-checked every 10 runs (all runs stay in the record)"),
    _Limit("--max-warmup", None, int, "N",
           "with --warmup auto: at most N runs of warm-up (default 200)"),
    _Limit("--max-failures", 5, int, "K", "stop after K failures in a row (default 5)"),
    _Limit("--stop-when", "all", str, "all|any|SERIES",
           "for a target that gives several series (benchmarks, metrics), each judged by "
           "its own copy of the rule: stop when all have stopped (default), any has, or the "
           "series SERIES has ('value' is the primary value)"),
)  # fmt: skip


def _dest(flag: str) -> str:
    """The attribute argparse stores ``flag`` under (``--max-n``: ``max_n``)."""
    return flag.lstrip("-").replace("-", "_")


def _limits(args: argparse.Namespace) -> dict[str, Any]:
    """The limits given to ``perfstats run``, as keywords of :func:`run`."""
    return {_dest(limit.flag): getattr(args, _dest(limit.flag)) for limit in _LIMITS}


def show_run(
    result: RunResult,
    *,
    as_json: bool,
    prices: FaasPrices | None = None,
    memory_mb: int | None = None,
    architecture: str | None = None,
) -> None:
    """Write what a run found: its trajectory, decision and intervals (or JSON).

    A run on a FaaS target (Lambda, HTTP function) shows its cost too.
    """
    values = result.values
    unit = record_unit(result.measurements)
    intervals = percentile_rows(values)
    tally = counts(result.measurements)
    target_config = result.metadata.get("target") or {}
    cost = run_cost(
        result.measurements, target_config, prices=prices, memory_mb=memory_mb,
        architecture=architecture,
    )  # fmt: skip
    priced = cost_text(cost, target_config)
    capped = diagnose_cap(result)
    if len(result.decisions) > 1 and result.capped:
        # Each capped series is diagnosed in the series section below.
        shown_cap = None
    else:
        shown_cap = capped
    if as_json:
        emit_json(
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
                "cost": cost,
                "warmup": _auto_warmup(result),
                "cap": None if capped is None else capped.to_dict(),
                "stop_when": result.stop_when,
                "series": _series_json(result),
            }
        )
        return
    target = result.metadata.get("target", {})
    rule = result.metadata.get("rule", {})
    cpus = target.get("cpus")
    pinned = (
        f", pinned to CPU{'s' if len(cpus) > 1 else ''} {', '.join(map(str, cpus))}" if cpus else ""
    )
    out(f"target   {target.get('name')} ({target.get('kind')}{pinned})")
    out(f"rule     {rule_text(rule)}")
    if result.record:
        out(f"record   {result.record}")
    out()
    several = len(result.decisions) > 1
    own = result.stop_when if result.stop_when not in ("all", "any") else result.series_names[0]
    primary_judged = bool(result.metadata.get("primary_judged", True))
    if not primary_judged and own == result.series_names[0]:
        # A suite's run is decided by the benchmark that stopped last.
        own = next(
            (n for n, h in result.histories.items() if tuple(h) == tuple(result.history)), own
        )
    out("decision trajectory" + (f" of {for_terminal(own)}" if several else ""))
    out(trajectory(result.history))
    out()
    out(
        f"stopped by {result.stopped_by} after {tally['measured']} measured runs "
        f"({tally['ok']} ok, {tally['error']} failed, {tally['timeout']} timed out"
        + (f", {tally['warmup']} warm-up" if tally["warmup"] else "")
        + f") in {result.elapsed:.1f} s"
    )
    if priced is not None:
        out(f"cost: {priced}")
    out(f"decision: {result.decision.reason}")
    if shown_cap is not None:
        for line in shown_cap.lines(lambda v: quantity(v, unit)):
            out(line)
    warmup = _auto_warmup(result)
    if warmup:
        found = (
            f"{warmup['start']} runs, judged from run {warmup['start_run']}"
            if warmup.get("start") is not None
            else "no steady state found"
        )
        out(f"warm-up (auto): {found}" + (" (capped)" if warmup.get("capped") else ""))
    out()
    if not primary_judged:
        out(f"{result.series_names[0]}: the round's time, recorded and not judged")
    out(intervals_text(intervals, unit))
    recorded = recorded_text(result)
    if recorded:
        out()
        out(recorded)
    if len(result.decisions) > 1:
        out()
        out(series_text(result))
        described = result.metadata.get("series") or {}
        for name in result.capped:
            diagnosis = diagnose_cap(result, name)
            if diagnosis is None or result.stopped_by != "max_n":
                continue
            its_unit = str((described.get(name) or {}).get("unit", unit))
            out()
            out(f"series {for_terminal(name)}:")
            for line in diagnosis.lines(partial(_show_in, unit=its_unit)):
                out(f"  {line}")


def _show_in(value: float, unit: str) -> str:
    return quantity(value, unit)


def _series_json(result: RunResult) -> dict[str, Any]:
    """Every series' decision, judgements and judged runs (JSON output)."""
    return {
        name: {
            "decision": decision,
            "history": [d.to_dict() for d in result.histories.get(name, ())],
            "n": int(result.series_values(name).size),
            "capped": name in result.capped,
            "abandoned": result.abandoned.get(name),
        }
        for name, decision in result.decisions.items()
    }


def series_text(result: RunResult) -> str:
    """One line per series: stopped or going, after how many runs, why; the capped named.

    Then each series' decision trajectory.
    """
    width = max(len(n) for n in result.series_names)
    lines = [f"series (stop when {result.stop_when})"]
    for name in result.series_names:
        d = result.decisions[name]
        state = "stop" if d.stop else "go"
        if name in result.abandoned:
            state = "gone"
        lines.append(f"  {for_terminal(name):<{width}}  {state:<4}  n={d.n:<6} {d.reason}")
    if result.capped:
        names = ", ".join(for_terminal(n) for n in result.capped)
        lines.append(f"reached the cap before their rule stopped: {names}")
    for name, reason in result.abandoned.items():
        lines.append(f"no longer waited for: {for_terminal(name)} ({reason})")
    for name in result.series_names[1:]:
        lines += ["", f"decision trajectory of {for_terminal(name)}"]
        lines.append(trajectory(result.histories.get(name, ())))
    return "\n".join(lines)


def recorded_text(result: RunResult) -> str:
    """The metrics recorded beside the value and not judged: median and range of each."""
    described = result.metadata.get("series") or {}
    names = [
        str(n)
        for n, d in described.items()
        if isinstance(d, Mapping) and not d.get("judged", True) and n not in result.decisions
    ]
    lines = []
    for name in names:
        values = result.series_values(name)
        if values.size == 0:
            continue
        unit = str(described[name].get("unit", ""))
        show = _mebibytes if unit == "B" else partial(quantity, unit=unit)
        lines.append(
            f"  {for_terminal(name):<{max(map(len, names))}}  median "
            f"{show(float(np.median(values)))}, {show(float(values.min()))} .. "
            f"{show(float(values.max()))}"
        )
    if not lines:
        return ""
    return "\n".join(["recorded beside the value, not judged", *lines])


def _mebibytes(value: float) -> str:
    return f"{value / 2**20:.4g} MiB"


def _auto_warmup(result: RunResult) -> dict[str, Any] | None:
    """What the automatic warm-up found (None for a fixed warm-up)."""
    sessions = result.metadata.get("sessions") or [{}]
    warmup = sessions[-1].get("warmup")
    return warmup if isinstance(warmup, dict) else None


def trajectory(history: Sequence[Decision]) -> str:
    """The rule's judgements, one line each, the middle elided when there are many."""
    lines = [f"{d.n:>7}  {'stop' if d.stop else 'go':<4}  {d.reason}" for d in history]
    if len(lines) > _TRAJECTORY_HEAD + _TRAJECTORY_TAIL + 1:
        skipped = len(lines) - _TRAJECTORY_HEAD - _TRAJECTORY_TAIL
        gap = f"{'...':>7}        ({skipped} more judgements)"
        lines = [*lines[:_TRAJECTORY_HEAD], gap, *lines[-_TRAJECTORY_TAIL:]]
    if not lines:
        return "(no judgement)"
    return "\n".join([f"{'n':>7}  {'':<4}  reason", *lines])
