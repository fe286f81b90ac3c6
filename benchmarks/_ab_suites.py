"""ElastiBench's A-B suites on real local targets: A/A and A/B with known slowdowns.

The ``suites`` part of ElastiBench's reproduction
(``python -m benchmarks.reproduce_elastibench suites``), and the machinery
(workloads, targets, duet schedule) its ``--generate`` step runs.

Five deterministic Python workloads of different lengths
(``tests/support/workloads.py``) form a suite. In the A/A suite the
candidate is the baseline; in the A/B suites the candidate runs the very
same kernel 1.1x or 1.5x as many times as the baseline (11 or 15 units for
10, ...), so the injected slowdown is known exactly, and each execution is
timed inside the process, so process start-up does not dilute it (Liao et
al., 004_*, injected 10%, 50% and 250%).

Each suite runs under both schedules (duet: both versions in one call;
RMIT: every benchmark and version once per trial, in a fresh random order)
on two targets: a local command (one process per call) and the Functions
Framework on loopback (one request per call, the function holding both
versions, as ElastiBench deploys them). Per benchmark the verdict is
ElastiBench's: the 99% bootstrap CI of the relative median change above or
below 0, read from the median of the per-pair ratios: for duet a pair is
both versions' executions of one repeat in one call, resampled by call; for
RMIT it is both versions' executions of one repeat in one trial, resampled by
trial. ``covered`` counts the flagged benchmarks whose CI contains the
injected change (0.10, 0.50). RMIT rows also carry the unpaired analysis
(``"unpaired"``), resampled by call, for comparison.

RMIT runs 60 trials (``--rmit-trials``, four times ElastiBench's 15
calls), one call at a time (``--rmit-concurrency``, 1 against
duet's 2: two RMIT calls on the one pinned CPU save little time, and how
they overlap differs from call to call). One RMIT trial pairs two
processes, and on this VM a process now and then runs its whole life
30-100% slower than the other calls of its benchmark and version; with 15
or 30 trials the 99% interval of the median ratio often reaches the pairs
they spoil, with 60 seldom. Duet pairs both versions inside one process,
so the same outliers cancel in its ratios. Duet runs 30 calls of 3
repeats (``--duet-calls``), twice ElastiBench's 15: with 15 its interval
now and then reached 0 on the command target, with 30 it is narrower
(``ab_duet_calls.txt``, ``ab_idle_rmit60.txt``).
``python -m benchmarks.ab_call_levels`` shows the calls' levels under
each setting (``benchmarks/results/ab_call_levels.txt``; the suite's
sensitivity run after run: ``ab_idle_duet30.txt``, with duet's 15 calls
``ab_idle_rmit60.txt``, and with RMIT's 30 and 15 trials ``ab_idle.txt``
and ``ab_idle_rmit15.txt``). ``--suite`` runs one suite
(or a few) with the seeds it has in the full run.

By default the workloads report the CPU time of the executing thread
(``--clock thread``), which a machine shared with other jobs does not
inflate with time slices given to them; ``--clock wall`` reports wall time
instead, to see what such noise does. The targets (every command call, the
function's server and its workers) are pinned to one CPU (``--cpus``): on
this VM the same work takes about 33 ms on one virtual CPU and 45-50 ms on
the other, depending on the host, so unpinned calls are bimodal.

Usage::

    python -m benchmarks.reproduce_elastibench suites [--quick] [--clock thread|wall]
                                                      [--cpus last|none|0,1] [--suite NAME]
                                                      [--duet-calls N] [--rmit-trials N]
                                                      [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from perfstats.adapters.ab import (  # noqa: E402
    Benchmark,
    ReportingCommand,
    ReportingHttp,
    Suite,
    SuiteAnalysis,
    SuiteTarget,
    analyse,
    run_suite,
    suite_agreement,
)
from perfstats.adapters.records.plain import plain  # noqa: E402
from support.ab_server import suite_function  # noqa: E402

WORKLOADS = REPO / "tests" / "support" / "workloads.py"
# name, kernel, size (work per unit), baseline units: about 2 to 40 ms each.
WORKLOAD_SET = (
    ("lcg-short", "lcg", 1000, 10),
    ("sort", "sort", 5000, 10),
    ("table", "table", 3000, 20),
    ("strings", "strings", 3000, 20),
    ("lcg-long", "lcg", 4000, 40),
)
# ElastiBench runs each benchmark in 15 calls of 3 repeats (45 results).
ELASTIBENCH_CALLS = 15
SUITES = (("A/A", 0.0), ("A/B+10%", 0.10), ("A/B+50%", 0.50))
SCHEDULES = ("duet", "rmit")
TARGETS = ("command", "http")


def benchmarks(slowdown: float, clock: str, count: int) -> list[Benchmark]:
    """The workloads with the candidate doing ``1 + slowdown`` times the baseline's units."""
    out = []
    for name, kernel, size, units in WORKLOAD_SET[:count]:
        extra = round(units * (1.0 + slowdown))
        if abs(extra / units - 1.0 - slowdown) > 1e-12:
            raise ValueError(f"{name}: {units} units cannot be scaled by {1 + slowdown}")
        params = {"kernel": kernel, "size": size, "clock": clock}
        out.append(Benchmark(name, {**params, "units": units}, {**params, "units": extra}))
    return out


def make_target(kind: str, url: str, cpus: list[int] | None = None) -> SuiteTarget:
    if kind == "command":
        argv = [sys.executable, "-I", "-S", str(WORKLOADS)]
        return ReportingCommand(argv, unit="ns", cpus=cpus)
    return ReportingHttp(url, unit="ns")


@contextmanager
def server(workers: int, cpus: list[int] | None = None) -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="ab-local-") as tmp:
        with suite_function(Path(tmp), workers=workers, threads=1, cpus=cpus) as url:
            yield url


def run_row(
    suite_name: str,
    slowdown: float,
    schedule: str,
    target: str,
    url: str,
    args: argparse.Namespace,
    seed: int,
) -> tuple[dict[str, Any], SuiteAnalysis]:
    suite = Suite(
        benchmarks(slowdown, args.clock, args.benchmarks),
        make_target(target, url, args.cpus),
        schedule=schedule,
        calls=args.rmit_trials if schedule == "rmit" else args.calls,
        repeats=args.repeats,
        concurrency=args.rmit_concurrency if schedule == "rmit" else args.concurrency,
    )
    run = run_suite(suite, rng=seed)
    analysis = run.analyse()
    counts = analysis.counts()
    covered = _covered(analysis, slowdown)
    lost = run.suite.calls * run.suite.repeats * 2 * len(suite.benchmarks) - len(run.measurements)
    row = {
        "suite": suite_name,
        "schedule": schedule,
        "target": target,
        "benchmarks": len(suite.benchmarks),
        "slower": counts["slower"],
        "faster": counts["faster"],
        "unchanged": counts["no change"],
        "covered": covered,
        "too_few": counts["too few results"],
        "injected": slowdown,
        "failed": int((run.measurements["status"] != "ok").sum()),
        "lost": lost,
        "elapsed_s": round(run.elapsed, 2),
        "seed": seed,
        "pairing": analysis.pairing,
        "details": [
            {
                "benchmark": v.benchmark,
                "verdict": v.verdict,
                "estimate": v.change.estimate if v.change else None,
                "low": v.change.low if v.change else None,
                "high": v.change.high if v.change else None,
                "liao_changed": v.liao_changed,
            }
            for v in analysis.verdicts
        ],
    }
    if schedule == "rmit":
        unpaired = analyse(
            run.measurements,
            paired=False,
            by_trial=False,
            benchmarks=[b.name for b in suite.benchmarks],
            rng=run.seed,
        )
        row["unpaired"] = {
            "slower": unpaired.counts()["slower"],
            "faster": unpaired.counts()["faster"],
            "unchanged": unpaired.counts()["no change"],
            "covered": _covered(unpaired, slowdown),
        }
    return row, analysis


def _covered(analysis: SuiteAnalysis, slowdown: float) -> int:
    """Flagged benchmarks whose CI contains the injected change."""
    flagged = [v for v in analysis.verdicts if v.verdict in ("slower", "faster")]
    return sum(1 for v in flagged if v.change is not None and v.change.contains(slowdown))


def agreements(analyses: dict[tuple[str, str, str], SuiteAnalysis]) -> list[dict[str, Any]]:
    """ElastiBench's agreement and coverage between the runs of each suite (001_*, VI-A)."""
    out = []
    for suite_name, _ in SUITES:
        pairs = [(("duet", t), ("rmit", t)) for t in TARGETS]
        pairs += [((s, "command"), (s, "http")) for s in SCHEDULES]
        for first, second in pairs:
            a = analyses.get((suite_name, *first))
            b = analyses.get((suite_name, *second))
            # A row whose benchmarks all had too few results has nothing to agree on.
            if a is None or b is None or not set(a.changes()) & set(b.changes()):
                continue
            agreement = suite_agreement(a, b)
            out.append(
                {
                    "suite": suite_name,
                    "first": "/".join(first),
                    "second": "/".join(second),
                    "n": agreement.n,
                    "agree": agreement.agree,
                    "one_sided": agreement.one_sided,
                    "one_sided_reverse": agreement.one_sided_reverse,
                    "two_sided": agreement.two_sided,
                }
            )
    return out


def parallel_check(url: str, args: argparse.Namespace) -> dict[str, Any]:
    """The A/A duet command suite with 1 and with 16 calls in flight.

    Unpinned: calls in flight can only overlap on more than one CPU.
    """
    out: dict[str, Any] = {}
    for flight in (1, 16):
        suite = Suite(
            benchmarks(0.0, args.clock, args.benchmarks),
            make_target("command", url),
            calls=args.calls,
            repeats=args.repeats,
            concurrency=flight,
        )
        run = run_suite(suite, rng=args.seed)
        keys = run.measurements[["call", "version", "repeat"]].apply(tuple, axis=1)
        out[f"in_flight_{flight}"] = {
            "elapsed_s": round(run.elapsed, 2),
            "executions": len(run.measurements),
            "planned": sum(len(c.executions) for c in run.plan),
            "duplicated": int(keys.duplicated().sum()),
        }
    out["speedup"] = round(out["in_flight_1"]["elapsed_s"] / out["in_flight_16"]["elapsed_s"], 2)
    return out


def show(rows: list[dict[str, Any]], *, header: bool = True) -> None:
    if header:
        head = f"{'suite':<9} {'schedule':<8} {'target':<8} {'bench':>5} {'slower':>6} "
        head += f"{'faster':>6} {'unchanged':>9} {'covered':>7} {'time s':>7}"
        head += "  unpaired: slower/covered"
        print(head)
    for r in rows:
        print(
            f"{r['suite']:<9} {r['schedule']:<8} {r['target']:<8} {r['benchmarks']:>5} "
            f"{r['slower']:>6} {r['faster']:>6} {r['unchanged']:>9} {r['covered']:>7} "
            f"{r['elapsed_s']:>7.1f}"
            + (f"  {r['unpaired']['slower']}/{r['unpaired']['covered']}" if "unpaired" in r else "")
        )


def parse_cpus(text: str) -> list[int] | None:
    if text == "none":
        return None
    if text == "last":
        return [max(os.sched_getaffinity(0))]
    try:
        return [int(c) for c in text.split(",")]
    except ValueError:
        raise SystemExit(
            f"--cpus must be 'last', 'none' or a comma list of CPUs; got {text!r}"
        ) from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.reproduce_elastibench suites",
        description=__doc__.splitlines()[0],
    )
    parser.add_argument("--quick", action="store_true", help="small suites, for CI")
    parser.add_argument("--clock", choices=("thread", "wall"), default="thread")
    parser.add_argument("--concurrency", type=int, default=2, help="calls in flight")
    parser.add_argument(
        "--cpus",
        default="last",
        help="CPUs the targets are pinned to: 'last' (default: the last usable CPU, "
        "leaving the others to this driver), 'none', or a comma list like 0,1",
    )
    parser.add_argument(
        "--duet-calls",
        type=int,
        default=None,
        help="duet calls per suite (default: 30, twice ElastiBench's 15; 5 with --quick)",
    )
    parser.add_argument(
        "--rmit-trials",
        type=int,
        default=None,
        help="RMIT trials per suite (default: four times ElastiBench's 15 calls, 60; "
        "5 with --quick)",
    )
    parser.add_argument(
        "--rmit-concurrency",
        type=int,
        default=1,
        help="RMIT calls in flight (default 1: its pairs are two processes)",
    )
    parser.add_argument(
        "--suite",
        action="append",
        choices=[name for name, _ in SUITES],
        help="run only this suite (repeatable; default: all three); seeds stay those "
        "of the full run",
    )
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--json", metavar="PATH", help="write the results here")
    args = parser.parse_args(argv)
    args.cpus = parse_cpus(args.cpus)
    if args.quick:
        args.calls, args.repeats, args.benchmarks = 5, 2, 2
    else:
        args.calls, args.repeats, args.benchmarks = ELASTIBENCH_CALLS, 3, len(WORKLOAD_SET)
    if args.rmit_trials is None:
        args.rmit_trials = args.calls if args.quick else 4 * args.calls
    if args.duet_calls is None and not args.quick:
        args.duet_calls = 2 * ELASTIBENCH_CALLS
    if args.duet_calls is not None:
        if args.duet_calls < 2:
            raise SystemExit(f"--duet-calls must be at least 2; got {args.duet_calls}")
        args.calls = args.duet_calls
    if args.rmit_trials < 2:
        raise SystemExit(f"--rmit-trials must be at least 2; got {args.rmit_trials}")
    if args.rmit_concurrency < 1 or args.concurrency < 1:
        raise SystemExit("--concurrency and --rmit-concurrency must be at least 1")
    t0 = time.monotonic()
    rows = []
    analyses: dict[tuple[str, str, str], SuiteAnalysis] = {}
    with server(max(2, args.concurrency), args.cpus) as url:
        for i, (suite_name, slowdown) in enumerate(SUITES):
            if args.suite and suite_name not in args.suite:
                continue
            for j, schedule in enumerate(SCHEDULES):
                for k, target in enumerate(TARGETS):
                    seed = args.seed + 100 * i + 10 * j + k
                    row, analysis = run_row(suite_name, slowdown, schedule, target, url, args, seed)
                    rows.append(row)
                    analyses[(suite_name, schedule, target)] = analysis
                    show(rows[-1:], header=len(rows) == 1)
        parallel = parallel_check(url, args)
    elapsed = time.monotonic() - t0
    agreement = agreements(analyses)
    print("\nagreement between runs of a suite (ElastiBench VI-A)")
    for a in agreement:
        print(
            f"{a['suite']:<9} {a['first']:<13} vs {a['second']:<13} n={a['n']} "
            f"agree {a['agree']:.0%}, one-sided {a['one_sided']:.0%}/"
            f"{a['one_sided_reverse']:.0%}, two-sided {a['two_sided']:.0%}"
        )
    print(f"\nparallel calls (A/A duet, command): {json.dumps(parallel)}")
    print(f"total {elapsed:.1f} s")
    if args.json:
        out = {
            "rows": rows,
            "agreement": agreement,
            "parallel": parallel,
            "settings": {
                "quick": args.quick,
                "clock": args.clock,
                "calls": args.calls,
                "rmit_trials": args.rmit_trials,
                "rmit_concurrency": args.rmit_concurrency,
                "repeats": args.repeats,
                "concurrency": args.concurrency,
                "cpus": args.cpus,
                "level": 0.99,
                "seed": args.seed,
                "suites": args.suite or [name for name, _ in SUITES],
            },
            "elapsed_s": round(elapsed, 1),
        }
        Path(args.json).write_text(json.dumps(plain(out), indent=2) + "\n", encoding="utf-8")
    return 0
