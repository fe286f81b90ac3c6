"""Why RMIT needs more trials than duet: the speed of each call's process.

The local A-B suite (``python -m benchmarks.reproduce_elastibench suites``)
pairs, under RMIT, the baseline and candidate executions of one trial; each
version runs in its own process (one call). This script runs the A/B+10%
suite on the local command target several times per setting and reports,
besides how many of the five benchmarks were flagged slower with the CI
covering +10%, the *level* of each call: the median of its executions
divided by the median of all executions of the same benchmark and version.
Level 1 is an ordinary process; a process whose whole life ran 40% slower
has level 1.4. Duet runs both versions inside one process, so a call's level
cancels in its ratios; under RMIT it does not, and a 99% interval from few
trials reaches the pairs it spoils.

Per setting (schedule, trials, calls in flight): the flagged count of each
run, the quantiles of the call levels pooled over the runs, the share of
calls more than 10% off level 1, the lag-1 autocorrelation of the levels in
start order (near 0: single slow processes, not slow phases of the machine),
the median spread (max / min) of the executions inside a call, and the
median width of the benchmarks' 99% intervals. The settings take turns
within each run, so the machine's slow spells fall on all of them alike.

Usage::

    python -m benchmarks.ab_call_levels --runs 3 > benchmarks/results/ab_call_levels.txt
    python -m benchmarks.ab_call_levels --quick --runs 1 --benchmarks 1
    python -m benchmarks.ab_call_levels --runs 5 --setting duet:15:2 --setting duet:30:2
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from benchmarks import _ab_suites as suites

SLOWDOWN = 0.10
# (schedule, trials, calls in flight): RMIT as the suite once ran it (15
# trials, two calls in flight), each change alone, as it ran before (30,
# one) and as it runs now (60, one), and duet with ElastiBench's 15 calls
# and as it runs in the suite (30).
SETTINGS = (
    ("rmit", 15, 2),
    ("rmit", 15, 1),
    ("rmit", 30, 2),
    ("rmit", 30, 1),
    ("rmit", 60, 1),
    ("duet", 15, 2),
    ("duet", 30, 2),
)


def parse_setting(text: str) -> tuple[str, int, int]:
    """``"duet:30:2"`` as ``("duet", 30, 2)``: schedule, trials or calls, calls in flight.

    Examples
    --------
    >>> parse_setting("rmit:60:1")
    ('rmit', 60, 1)
    """
    parts = text.split(":")
    if len(parts) != 3 or parts[0] not in ("duet", "rmit"):
        raise argparse.ArgumentTypeError(
            f"a setting is SCHEDULE:TRIALS:FLIGHT with SCHEDULE duet or rmit; got {text!r}"
        )
    try:
        trials, flight = int(parts[1]), int(parts[2])
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"TRIALS and FLIGHT must be integers; got {text!r}"
        ) from None
    if trials < 2 or flight < 1:
        raise argparse.ArgumentTypeError(
            f"a setting needs at least 2 trials and 1 call in flight; got {text!r}"
        )
    return parts[0], trials, flight


def call_levels(measurements: pd.DataFrame) -> pd.DataFrame:
    """One row per call: its start position, level and within-call spread.

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({
    ...     "call": [1, 1, 2, 2, 3, 3], "order": [1, 2, 1, 2, 1, 2],
    ...     "benchmark": "k", "version": "baseline", "status": "ok",
    ...     "value": [10.0, 10.0, 10.0, 10.0, 15.0, 15.0]})
    >>> call_levels(rows)["level"].tolist()
    [1.0, 1.0, 1.5]
    """
    ok = measurements[measurements["status"] == "ok"]
    norm = ok["value"] / ok.groupby(["benchmark", "version"])["value"].transform("median")
    frame = ok.assign(norm=norm)
    out = frame.groupby("call").agg(
        level=("norm", "median"), low=("norm", "min"), high=("norm", "max")
    )
    out["spread"] = out["high"] / out["low"]
    return out.sort_index()[["level", "spread"]]


def lag1(values: np.ndarray) -> float:
    """Lag-1 autocorrelation of ``values`` (``nan`` below three values)."""
    if values.size < 3 or float(np.std(values)) == 0.0:
        return float("nan")
    return float(np.corrcoef(values[:-1], values[1:])[0, 1])


def one_run(
    url: str, schedule: str, trials: int, concurrency: int, count: int, seed: int
) -> dict[str, Any]:
    """One run of the A/B+10% command suite under one setting."""
    suite = suites.Suite(
        suites.benchmarks(SLOWDOWN, "thread", count),
        suites.make_target("command", url, suites.parse_cpus("last")),
        schedule=schedule,
        calls=trials,
        repeats=3,
        concurrency=concurrency,
    )
    started = time.monotonic()
    run = suites.run_suite(suite, rng=seed)
    seconds = time.monotonic() - started
    analysis = run.analyse()
    lv = call_levels(run.measurements)
    return {
        "flagged": suites._covered(analysis, SLOWDOWN),
        "levels": lv["level"].to_numpy(),
        "spreads": lv["spread"].to_numpy(),
        "lag1": lag1(lv["level"].to_numpy()),
        "widths": [v.change.high - v.change.low for v in analysis.verdicts if v.change],
        "seconds": seconds,
    }


def summarise(
    schedule: str, trials: int, concurrency: int, count: int, runs: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """One setting's row over its runs."""
    pooled = np.concatenate([r["levels"] for r in runs])
    widths = [w for r in runs for w in r["widths"]]
    return {
        "schedule": schedule,
        "trials": trials,
        "concurrency": concurrency,
        "flagged": [r["flagged"] for r in runs],
        "benchmarks": count,
        "level_quantiles": np.quantile(pooled, [0.05, 0.25, 0.5, 0.75, 0.95, 1.0]).tolist(),
        "share_off": float(np.mean(np.abs(pooled - 1.0) > 0.10)),
        "lag1": float(np.nanmedian([r["lag1"] for r in runs])),
        "spread": float(np.median(np.concatenate([r["spreads"] for r in runs]))),
        "width": float(np.median(widths)) if widths else float("nan"),
        "seconds": float(np.median([r["seconds"] for r in runs])),
    }


def show(rows: Sequence[dict[str, Any]]) -> str:
    head = (
        f"{'schedule':<8} {'trials':>6} {'flight':>6}  {'flagged per run':<16} "
        f"{'level P5   P25  P50  P75  P95  max':<36} {'>10% off':>8} {'lag-1':>6} "
        f"{'spread':>6} {'width':>6} {'s/run':>6}"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        q = " ".join(f"{x:4.2f}" for x in r["level_quantiles"])
        runs = " ".join(str(f) for f in r["flagged"])
        lines.append(
            f"{r['schedule']:<8} {r['trials']:>6} {r['concurrency']:>6}  {runs:<16} "
            f"      {q:<30} {r['share_off']:>8.2f} {r['lag1']:>6.2f} {r['spread']:>6.2f} "
            f"{r['width']:>6.3f} {r['seconds']:>6.1f}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.ab_call_levels", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--runs", type=int, default=4, help="runs per setting")
    parser.add_argument("--benchmarks", type=int, default=len(suites.WORKLOAD_SET))
    parser.add_argument(
        "--quick", action="store_true", help="one short run of RMIT and duet, for the tests"
    )
    parser.add_argument(
        "--setting",
        action="append",
        type=parse_setting,
        metavar="SCHEDULE:TRIALS:FLIGHT",
        help="a setting to run, e.g. duet:30:2 (repeatable; default: the seven of SETTINGS)",
    )
    parser.add_argument("--seed", type=int, default=777000)
    args = parser.parse_args(argv)
    if args.runs < 1:
        raise SystemExit(f"--runs must be at least 1; got {args.runs}")
    if not 1 <= args.benchmarks <= len(suites.WORKLOAD_SET):
        raise SystemExit(f"--benchmarks must be 1 to {len(suites.WORKLOAD_SET)}")
    settings: tuple[tuple[str, int, int], ...] = tuple(args.setting or SETTINGS)
    if len(set(settings)) != len(settings):
        raise SystemExit("each --setting may be given once")
    if args.quick:
        settings = (("rmit", 4, 2), ("duet", 4, 2))
    # Settings take turns within each run, so a slow spell of the machine
    # falls on all of them rather than on one.
    done: dict[tuple[str, int, int], list[dict[str, Any]]] = {s: [] for s in settings}
    with suites.server(2, suites.parse_cpus("last")) as url:
        for r in range(args.runs):
            for schedule, trials, flight in settings:
                done[(schedule, trials, flight)].append(
                    one_run(url, schedule, trials, flight, args.benchmarks, args.seed + r)
                )
    rows = [summarise(*s, args.benchmarks, runs) for s, runs in done.items()]
    print(
        f"A/B+10% on the local command target, {args.benchmarks} benchmarks, 3 repeats "
        f"per call, pinned to CPU {suites.parse_cpus('last')}; flagged: slower with the "
        f"99% CI covering +10%"
    )
    print(show(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
