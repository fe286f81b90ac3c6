"""CPU per component call against the requests in flight in the same service.

Liao et al.'s queueing model takes a service's demand per request as fixed,
whatever the load; so does ``benchmarks/reproduce_liao.py`` with
``--slowdown none``. This diagnostic measures how far the shop departs from
that: open-loop load tests with spans (``--reps`` per version,
interleaved), and for every leaf component call (a span with no children:
CPU-bound work, no downstream call) its CPU time against the time-averaged
number of leaf calls of the same service running meanwhile, itself
included (:func:`perfstats.system.calibration.relative_cpu_by_concurrency`).
Each component's CPU is divided by its median when it ran alone, so
components of different size pool into one curve per service.

A CPython service runs one thread at a time and switches threads every
switch interval (0.5 ms in the shop), so the calls in flight take turns on
the interpreter; a call whose turns alternate with others' runs slower on
its core (its caches were refilled by the other threads meanwhile). The
model does not know this. The injected busy waits are shares of the
component's own CPU time, measured in the same call, so they grow with it.

Usage::

    python -m benchmarks.shop_concurrency --scenario variant2 --version L1-High --reps 3 \
        --json benchmarks/results/shop_concurrency.json

References: L. Liao, S. Eismann, H. Li, C.-P. Bezemer, D. E. Costa, A. van
Hoorn and W. Shang, "Early Detection of Performance Regressions by Bridging
Local Performance Data and Architectural Models", ICSE 2025 (Section IV-E:
the model built from one load test).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from examples.shop.cluster import ORDER
from examples.shop.injection import Injection
from examples.shop.loadtest import LoadTestRun, run_load_test
from perfstats.system.calibration import relative_cpu_by_concurrency

from .reproduce_liao import SCENARIOS, VERSIONS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="variant2", choices=list(SCENARIOS))
    parser.add_argument("--version", default="L1-High", choices=["original", *VERSIONS])
    parser.add_argument("--duration", type=float, default=12.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--reps", type=int, default=3,
                        help="load tests per version, interleaved; their calls are pooled")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.reps < 1:
        parser.error(f"--reps must be >= 1, got {args.reps}")
    out: dict[str, Any] = {
        "scenario": args.scenario, "duration_s": args.duration, "reps": args.reps, "runs": {}
    }
    versions = ["original"] if args.version == "original" else ["original", args.version]
    lines = [
        f"{args.scenario}: CPU per leaf component call relative to running alone, "
        f"by calls in flight in the same service (calls, mean); "
        f"{args.reps} load test(s) of {args.duration:g} s per version, pooled"
    ]
    runs: dict[str, list[LoadTestRun]] = {v: [] for v in versions}
    # Versions alternate, so a drift of the machine's speed hits both alike.
    for rep in range(args.reps):
        for version in versions:
            injection = Injection() if version == "original" else Injection.parse(version)
            runs[version].append(run_load_test(
                injection, SCENARIOS[args.scenario], duration=args.duration,
                warmup=args.warmup, seed=args.seed + rep, keep_spans=True,
            ))  # fmt: skip
    for version in versions:
        spans = [run.spans for run in runs[version]]
        curves = {svc: relative_cpu_by_concurrency(spans, svc) for svc in ORDER}
        cpu_runs = {svc: [r.cpu_percent[svc] for r in runs[version]] for svc in ORDER}
        out["runs"][version] = {"cpu_percent": cpu_runs, "curves": curves}
        lines.append(f"== {version}: CPU % per load test " + "; ".join(
            f"{svc} " + ", ".join(f"{v:.1f}" for v in cpu_runs[svc]) for svc in ORDER
        ))  # fmt: skip
        for svc, curve in curves.items():
            cells = "  ".join(f"{k}:{v:.3f} ({n})" for k, (n, v) in curve.items())
            lines.append(f"   {svc:<10} {cells}")
    text = "\n".join(lines)
    print(text)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=1) + "\n")
        args.json.with_suffix(".txt").write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
