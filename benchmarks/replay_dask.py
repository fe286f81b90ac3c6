"""Protocol A's replay on a Dask cluster: time with 1 and 2 workers, same frames as serial.

The SuperFlow bootstrap rule (SuperFlow-2, the slowest of protocol A's
first five techniques) and Metior replay the prefixes of all 130 serverless
traces (65 functions x cold/warm, 1,000 runs each), first in this process
(``workers=1``), then on a ``distributed.LocalCluster`` of 1 and of 2 worker
processes (one thread each) through ``Client.get_executor()``. Each frame
must equal the serial one exactly; the times show what a second worker buys
on this 2-core machine. Cluster start-up is timed apart from the replay.

Usage::

    PERFSTATS_DATA=/work/shared/data python benchmarks/replay_dask.py [--quick] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import pandas as pd

from benchmarks.reproduce_superflow import data_root, load_scope, techniques
from perfstats.replay import replay

RULES = ("SuperFlow-2", "Metior")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="every fifth function only")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    import distributed

    scope = load_scope(data_root(), quick=args.quick)
    traces = {f"{s}/{k}": v for s, d in scope.items() for k, v in d.items()}
    rules = {k: v for k, v in techniques().items() if k in RULES}
    report: dict[str, Any] = {"traces": len(traces), "rules": list(RULES), "runs": {}}

    serial: dict[str, pd.DataFrame] = {}
    t0 = time.perf_counter()
    for name, rule in rules.items():
        serial[name] = replay(rule, traces, workers=1, progress=False)
    report["runs"]["serial"] = {"replay_s": time.perf_counter() - t0}
    print(f"serial (this process): {report['runs']['serial']['replay_s']:.1f} s")

    for n in (1, 2):
        t0 = time.perf_counter()
        with distributed.LocalCluster(
            n_workers=n, processes=True, threads_per_worker=1, dashboard_address=None
        ) as cluster, distributed.Client(cluster) as client:
            started = time.perf_counter() - t0
            executor = client.get_executor()
            # A first small replay loads numba's cached kernels in every worker.
            replay(rules["SuperFlow-2"], dict(list(traces.items())[: 2 * n]), progress=False,
                   executor=executor)  # fmt: skip
            t1 = time.perf_counter()
            same = True
            for name, rule in rules.items():
                frame = replay(rule, traces, progress=False, executor=executor)
                same &= frame.equals(serial[name])
            took = time.perf_counter() - t1
        report["runs"][f"dask_{n}"] = {"startup_s": started, "replay_s": took,
                                        "identical_to_serial": bool(same)}  # fmt: skip
        print(f"Dask LocalCluster, {n} worker(s): start-up {started:.1f} s, replay "
              f"{took:.1f} s, frames identical to serial: {same}")
    one, two = report["runs"]["dask_1"]["replay_s"], report["runs"]["dask_2"]["replay_s"]
    report["speedup_2_over_1"] = one / two
    print(f"2 workers / 1 worker: {one / two:.2f}x faster")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
