"""Whole benchmark suites of real tools under one stop loop, a rule per benchmark.

For a Google Benchmark binary, a ``go test -bench`` package and a pyperf
script, each built here with benchmarks of clearly different noise
(quiet, medium, noisy: ``tests/support/tool_suites.py``), the loop runs
rounds of the tool through its target; each benchmark is judged by its
own :class:`perfstats.Monitor` of the same rule, and once it stops the
next rounds run only the benchmarks still going (``invoke_only``). It
prints when each benchmark stopped and why, and the benchmark executions
against running every benchmark until the last one stops.

It then measures what a round costs beyond the tool's process for a
suite of 50 benchmarks: the target's own work (start the process, read
and parse its output, build 50 series) and the loop's (50 monitors fed),
against an empty round (a plain command target running the same binary
with nothing to read).

    python -m benchmarks.tool_loops --json benchmarks/results/tool_loops.json \\
        > benchmarks/results/tool_loops.txt
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT, ROOT / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from perfstats.adapters.targets import Command, GoogleBenchmark, GoTest, PyperfScript  # noqa: E402
from perfstats.adapters.targets.benchmark_suite import BenchmarkSuite  # noqa: E402
from support.tool_suites import (  # noqa: E402
    GBENCH_WIDE,
    GO_NOISE,
    build_gbench,
    go_env,
    go_module,
    go_wide_source,
    pyperf_script,
)

from perfstats import Monitor  # noqa: E402
from perfstats.rules import SuperFlow  # noqa: E402

TOOLS = ("gbench", "gotest", "pyperf")
MIN_TIME = "--benchmark_min_time=0.05"
# The quiet and the noisy benchmark of each suite, by series name.
PAIRS = {
    "gbench": ("BM_quiet", "BM_noisy"),
    "gotest": ("Quiet-2 {}", "Noisy-2 {}"),
    "pyperf": ("quiet", "noisy"),
}


@dataclass
class SeriesOutcome:
    """How one benchmark's rule ended."""

    name: str
    runs: int
    stopped_round: int | None
    by: str  # "rule", "cap" or "running"
    reason: str


@dataclass
class LoopOutcome:
    """One suite under the loop."""

    tool: str
    rounds: int
    executions: int
    every_until_last: int
    saving: float
    failed_rounds: int
    seconds: float
    series: list[SeriesOutcome] = field(default_factory=list)


def stop_loop(
    target: BenchmarkSuite,
    make_rule: Callable[[], Any],
    *,
    max_rounds: int,
    only: list[str] | None = None,
) -> LoopOutcome:
    """Rounds of ``target`` until each series' own monitor stops (or ``max_rounds``).

    The first round runs every benchmark; the series judged are the ones
    it gives (or ``only``). Later rounds run only the series still going.
    """
    t0 = time.monotonic()
    first = target.invoke()
    if not first.ok:
        raise RuntimeError(f"the first round failed: {first.error}")
    names = [n for n in first.series if only is None or n in only]
    monitors = {n: Monitor(make_rule(), max_n=max_rounds) for n in names}
    stopped: dict[str, SeriesOutcome] = {}
    active = list(names)
    rounds, executions, failed = 1, len(names), 0
    m = first
    while True:
        if m.ok:
            for name in list(active):
                item = m.series.get(name)
                if item is None or not item.ok:
                    continue
                decision = monitors[name].add(item.value)
                if decision.stop:
                    by = "cap" if decision.details.get("max_n_reached") else "rule"
                    stopped[name] = SeriesOutcome(
                        name, decision.n, rounds, by, decision.reason
                    )
                    active.remove(name)
        else:
            failed += 1
            if failed > 5:
                raise RuntimeError(f"rounds keep failing: {m.error}")
        if not active or rounds >= max_rounds * 2:
            break
        m = target.invoke_only(frozenset(active))
        rounds += 1
        executions += len(active)
    for name in active:
        d = monitors[name].decision
        stopped[name] = SeriesOutcome(name, d.n, None, "running", d.reason)
    return LoopOutcome(
        tool=target.kind,
        rounds=rounds,
        executions=executions,
        every_until_last=rounds * len(names),
        saving=1.0 - executions / (rounds * len(names)),
        failed_rounds=failed,
        seconds=time.monotonic() - t0,
        series=[stopped[n] for n in names],
    )


def suite_target(
    tool: str, folder: Path, judge: str = "time"
) -> tuple[BenchmarkSuite, list[str] | None]:
    """The noise suite of ``tool``, built in ``folder``; and the series to judge (None: all).

    ``judge="work"`` judges the work each benchmark reports (a counter of
    Google Benchmark, a ``b.ReportMetric`` of go) instead of its time: the
    spread each process draws, without what the machine's load adds.
    """
    # Each benchmark measures for 50 ms a round: on a loaded machine a
    # shorter one falls within one time slice of another process, or not.
    if tool == "gbench":
        binary = build_gbench(folder / "gbench")
        # CPU time: the process's share of a loaded machine is not its work.
        metric = "cpu_time" if judge == "time" else "work"
        return GoogleBenchmark([str(binary), MIN_TIME], metric=metric), None
    if tool == "gotest":
        module = go_module(folder / "go", {"suite": GO_NOISE})
        env = go_env(folder)
        # The times only: B/op and allocs/op are 0 in every round here, which
        # no relative rule can judge; the other metrics are series all the same.
        target = GoTest(["./suite", "-benchtime=0.05s", "-cpu=2", "-bench=Quiet|Medium|Noisy"],
                        cwd=str(module), env=env,
                        metrics=["sec/op" if judge == "time" else "work/op"])  # fmt: skip
        return target, None
    if tool == "pyperf":
        if judge != "time":
            raise ValueError("a pyperf benchmark reports its time only")
        return PyperfScript([str(pyperf_script(folder / "pyperf")), "--min-time=0.05"]), None
    raise ValueError(f"tool must be one of {', '.join(TOOLS)}; got {tool!r}")


@dataclass
class Overhead:
    """What a round costs beyond the tool's process, in milliseconds (medians)."""

    tool: str
    benchmarks: int
    series: int
    rounds: int
    process_ms: float
    target_ms: float
    monitors_ms: float
    empty_ms: float

    @property
    def total_ms(self) -> float:
        return self.target_ms + self.monitors_ms


def overhead(tool: str, folder: Path, rounds: int, make_rule: Callable[[], Any]) -> Overhead:
    """A 50-benchmark round of ``tool``: its cost beyond the process, and an empty round's."""
    if tool == "gbench":
        binary = build_gbench(folder / "wide", GBENCH_WIDE, "wide")
        suite: BenchmarkSuite = GoogleBenchmark([str(binary), "--benchmark_min_time=0.0001"])
        empty = Command([str(binary), "--benchmark_list_tests=true"])
    elif tool == "gotest":
        module = go_module(folder / "gowide", {"wide": go_wide_source(50)})
        suite = GoTest(["./wide", "-benchtime=10x"], cwd=str(module), env=go_env(folder))
        suite.prepare()
        binary = suite._build()[0]  # the same test binary, running no benchmark
        empty = Command([binary, "-test.run=^$"], cwd=str(module / "wide"))
    else:
        raise ValueError(f"the overhead is measured for gbench and gotest; got {tool!r}")
    with suite, empty:
        suite.invoke()  # listing or building, and the first series
        names = list(suite.series_names)
        monitors = {n: Monitor(make_rule()) for n in names}
        process, target, feed, bare = [], [], [], []
        for _ in range(rounds):
            t0 = time.perf_counter_ns()
            m = suite.invoke()
            t1 = time.perf_counter_ns()
            for name, item in m.series.items():
                if item.ok:
                    monitors[name].add(item.value)
            t2 = time.perf_counter_ns()
            process.append(m.extra["wall_ns"])
            target.append(t1 - t0 - m.extra["wall_ns"])
            feed.append(t2 - t1)
            t0 = time.perf_counter_ns()
            e = empty.invoke()
            bare.append(time.perf_counter_ns() - t0 - e.extra["wall_ns"])
    return Overhead(
        tool=tool,
        benchmarks=len({n.rpartition(" ")[0] if tool == "gotest" else n for n in names}),
        series=len(names),
        rounds=rounds,
        process_ms=statistics.median(process) / 1e6,
        target_ms=statistics.median(target) / 1e6,
        monitors_ms=statistics.median(feed) / 1e6,
        empty_ms=statistics.median(bare) / 1e6,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", default=",".join(TOOLS), help="tools to run (all three)")
    parser.add_argument("--error", type=float, default=0.10,
                        help="SuperFlow's error margin r (0.10)")  # fmt: skip
    parser.add_argument("--quantiles", default="0.25,0.5,0.75",
                        help="the quantiles SuperFlow judges (0.25,0.5,0.75)")  # fmt: skip
    parser.add_argument("--max-rounds", type=int, default=300,
                        help="values a benchmark may take before its cap (300)")  # fmt: skip
    parser.add_argument("--overhead-rounds", type=int, default=40,
                        help="rounds of the 50-benchmark suites (40)")  # fmt: skip
    parser.add_argument("--judge", choices=("time", "work"), default="time",
                        help="judge each benchmark's time (default) or the work it "
                        "reports (gbench, gotest)")  # fmt: skip
    parser.add_argument("--no-overhead", action="store_true",
                        help="skip the rounds of the 50-benchmark suites")  # fmt: skip
    parser.add_argument("--no-loops", action="store_true",
                        help="only the rounds of the 50-benchmark suites")  # fmt: skip
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]

    quantiles = tuple(float(q) for q in args.quantiles.split(","))

    def make_rule() -> SuperFlow:
        return SuperFlow(error=args.error, q=quantiles)

    given = argv if argv is not None else sys.argv[1:]
    command = "python -m benchmarks.tool_loops " + " ".join(given)
    print(f"# command: {command.strip()}")
    print(f"rule: SuperFlow (order-normal, r = {args.error:g}, quantiles "
          f"{', '.join(f'{q:g}' for q in quantiles)}), one monitor per benchmark; "
          f"cap {args.max_rounds} values; judged: each benchmark's {args.judge}")  # fmt: skip
    loops, costs = [], []
    with tempfile.TemporaryDirectory(prefix="tool-loops-") as tmp:
        for tool in [] if args.no_loops else tools:
            target, only = suite_target(tool, Path(tmp) / tool, args.judge)
            with target:
                outcome = stop_loop(target, make_rule, max_rounds=args.max_rounds, only=only)
            loops.append(outcome)
            print(f"\n{tool}: {outcome.rounds} rounds in {outcome.seconds:.0f} s, "
                  f"{outcome.executions} benchmark executions against "
                  f"{outcome.every_until_last} for every benchmark until the last stops "
                  f"({outcome.saving:.0%} fewer); failed rounds: "
                  f"{outcome.failed_rounds}")  # fmt: skip
            for s in outcome.series:
                print(f"  {s.name:<18} {s.runs:>4} values  stopped by {s.by:<7} "
                      f"(round {s.stopped_round}): {s.reason}")  # fmt: skip
            unit = "sec/op" if args.judge == "time" else "work/op"
            quiet, noisy = (name.format(unit) for name in PAIRS[tool])
            runs = {s.name: s.runs for s in outcome.series}
            ok = (
                all(s.by == "rule" for s in outcome.series)
                and runs[noisy] > runs[quiet]
                and outcome.saving >= 0.30
            )
            print(f"  checks: every benchmark stopped by rule, {noisy} after {quiet}, "
                  f">= 30% fewer executions: {'yes' if ok else 'NO'}")  # fmt: skip
        for tool in [t for t in tools if t in ("gbench", "gotest") and not args.no_overhead]:
            cost = overhead(tool, Path(tmp) / f"{tool}-wide", args.overhead_rounds, make_rule)
            costs.append(cost)
            print(f"\n{tool}, {cost.benchmarks} benchmarks ({cost.series} series), median of "
                  f"{cost.rounds} rounds: process {cost.process_ms:.1f} ms; beyond it: target "
                  f"{cost.target_ms:.2f} ms + {cost.series} monitors "
                  f"{cost.monitors_ms:.2f} ms = {cost.total_ms:.2f} ms "
                  f"(<= 5 ms: {'yes' if cost.total_ms <= 5 else 'NO'}); empty round "
                  f"(command target, same binary, nothing read) {cost.empty_ms:.2f} ms, "
                  f"ratio {cost.total_ms / cost.empty_ms:.1f}")  # fmt: skip
    if args.json:
        doc = {
            "command": command.strip(),
            "rule": {"name": "SuperFlow", "error": args.error, "q": list(quantiles),
                     "cap": args.max_rounds},
            "judged": args.judge,
            "loops": [asdict(o) for o in loops],
            "overhead": [{**asdict(c), "total_ms": c.total_ms} for c in costs],
        }
        Path(args.json).write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
