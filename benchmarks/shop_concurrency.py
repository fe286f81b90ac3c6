"""CPU per component call against the requests in flight in the same service.

The queueing model of ``benchmarks/system_regression.py`` takes a service's
demand per request as fixed, whatever the load (as Liao et al.'s model
does). This diagnostic measures how far the shop departs from that: open-loop
load tests with spans (``--reps`` per version, interleaved), and for every
leaf component call (a span with no children: CPU-bound work, no downstream
call) its CPU time against
the time-averaged number of leaf calls of the same service running
meanwhile, itself included. Each component's CPU is divided by its median
when it ran alone, so components of different size pool into one curve per
service.

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
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from examples.shop.cluster import ORDER
from examples.shop.injection import Injection

from .shop_loadtest import run_load_test
from .system_regression import SCENARIOS, VERSIONS

#: Calls with more in flight than this are pooled into the last bin.
MAX_BIN = 10


def relative_cpu_by_concurrency(
    spans: Sequence[Mapping[str, Any]], service: str
) -> dict[int, tuple[int, float]]:
    """In-flight count (rounded, 1..MAX_BIN) -> (calls, mean CPU relative to running alone).

    Examples
    --------
    >>> alone = [
    ...     {"id": str(i), "parent_id": None, "name": "f", "service": "s",
    ...      "start": 2.0 * i, "end": 2.0 * i + 1.0, "cpu": 1.0}
    ...     for i in range(10)
    ... ]
    >>> together = [
    ...     {"id": f"t{i}", "parent_id": None, "name": "f", "service": "s",
    ...      "start": 100.0, "end": 101.0, "cpu": 1.2}
    ...     for i in range(2)
    ... ]
    >>> relative_cpu_by_concurrency(alone + together, "s")
    {1: (10, 1.0), 2: (2, 1.2)}
    """
    mine = [s for s in spans if s["service"] == service]
    parents = {s["parent_id"] for s in mine}
    leaves = [s for s in mine if s["id"] not in parents and s["end"] > s["start"]]
    if not leaves:
        return {}
    start = np.array([s["start"] for s in leaves])
    end = np.array([s["end"] for s in leaves])
    by_name: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for s in leaves:
        a, b = s["start"], s["end"]
        overlap = np.clip(np.minimum(end, b) - np.maximum(start, a), 0.0, None).sum()
        by_name[s["name"]].append((overlap / (b - a), s["cpu"]))
    rel: list[float] = []
    conc: list[float] = []
    for calls in by_name.values():
        v = np.array(calls)
        alone = v[:, 0] < 1.5
        # Too few calls alone: the component's own median stands in.
        ref = float(np.median(v[alone, 1] if alone.sum() >= 10 else v[:, 1]))
        if ref <= 0.0:
            continue
        rel.extend((v[:, 1] / ref).tolist())
        conc.extend(v[:, 0].tolist())
    bins = np.clip(np.rint(np.array(conc)), 1, MAX_BIN).astype(int)
    values = np.array(rel)
    return {
        int(k): (int(np.sum(bins == k)), round(float(values[bins == k].mean()), 4))
        for k in np.unique(bins)
    }


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
    spans: dict[str, list[dict[str, Any]]] = {v: [] for v in versions}
    cpu: dict[str, list[dict[str, float]]] = {v: [] for v in versions}
    # Versions alternate, so a drift of the machine's speed hits both alike.
    for rep in range(args.reps):
        for version in versions:
            injection = Injection() if version == "original" else Injection.parse(version)
            run = run_load_test(
                injection, SCENARIOS[args.scenario], duration=args.duration,
                warmup=args.warmup, seed=args.seed + rep, keep_spans=True,
            )  # fmt: skip
            # Span ids are unique per process only: tag them with the repetition.
            spans[version].extend(
                {**s, "id": f"{rep}:{s['id']}", "parent_id": None if s["parent_id"] is None
                 else f"{rep}:{s['parent_id']}"}
                for s in run.spans
            )  # fmt: skip
            cpu[version].append(run.cpu_percent)
    for version in versions:
        curves = {svc: relative_cpu_by_concurrency(spans[version], svc) for svc in ORDER}
        cpu_runs = {svc: [c[svc] for c in cpu[version]] for svc in ORDER}
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
