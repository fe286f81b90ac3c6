"""A sweep of rule configurations over protocol A's traces on Dask: serial, 1 and 2 workers.

Nine configurations (SuperFlow's bootstrap rule at r = 1%, 2%, 3%; Metior at
r = 2%, 3%, 5%; PT4Cloud at thresholds 0.85, 0.90, 0.95; interval 5, seed 0)
replay the prefixes of all 130 serverless traces of protocol A (65 functions
x cold/warm, 1,000 runs each) with :func:`perfstats.replay.sweep`: one task
per trace that replays all nine configurations on it (130 tasks of a few
hundred milliseconds each).

* **serial**: in this process, numba single-threaded (``one_thread``), so
  that it is a serial baseline and not two cores in disguise.
* **Dask 1 / 2 workers**: a ``distributed.LocalCluster`` of 1 and of 2
  worker processes, one thread each, through ``Client.get_executor()``.
  Every worker is warmed up before timing (a small sweep of all nine
  configurations through ``Client.run`` on each worker loads numba's cached
  kernels there); start-up and warm-up are timed apart from the sweep.

Every frame must equal the serial one exactly. For each phase the script
reports the wall time, the CPU time of this process (client and scheduler)
and of the workers, the workers' idle time (workers x wall - their CPU), and
(on Linux, from ``/proc/stat``) the CPU time the whole machine spent busy
and how much of it went to other processes: on a shared machine a worker
waiting for a core counts as idle.
``--per-config`` also times the old granularity on each cluster: one
``replay`` per configuration, one task per (configuration, trace), the
configurations one after another. The load average (``os.getloadavg``) is
recorded before and after: the machine is shared.

Not part of a paper's reproduction: it times protocol A's traces (SuperFlow,
read by ``benchmarks/_traces.py``) through ``perfstats.replay`` on Dask.

Usage::

    PERFSTATS_DATA=/work/shared/data python -m benchmarks.replay_dask \\
        [--quick] [--per-config] [--traces-per-task K] [--json out.json]

``--quick`` (for the tests) keeps every fifth function and the first 200
runs of each trace.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._traces import data_root, load_scope  # noqa: E402
from perfstats._kernels.threads import one_thread  # noqa: E402
from perfstats.replay import COLUMNS, replay, sweep  # noqa: E402
from perfstats.rules import Metior, PT4Cloud, Rule, SuperFlow  # noqa: E402

QUICK_RUNS = 200


def configs() -> dict[str, Rule]:
    """The nine configurations of the sweep: three rules x three parameter values."""
    out: dict[str, Rule] = {}
    for error in (0.01, 0.02, 0.03):
        out[f"SuperFlow-2 r={error:g}"] = SuperFlow(
            method="bootstrap", error=error, interval=5, rng=0
        )
    for error in (0.02, 0.03, 0.05):
        out[f"Metior r={error:g}"] = Metior(
            error=error,
            statistic="median",
            interval=5,
            block_kind="superflow",
            block_from="previous",
            rng=0,
        )
    for threshold in (0.85, 0.90, 0.95):
        out[f"PT4Cloud t={threshold:g}"] = PT4Cloud(threshold=threshold, interval=5)
    return out


def protocol_a_traces(*, quick: bool) -> dict[str, np.ndarray]:
    """``{"cold/Func1": runs, ...}``; quick: every fifth function, first 200 runs."""
    scope = load_scope(data_root(), quick=quick)
    traces = {f"{s}/{k}": v for s, d in scope.items() for k, v in d.items()}
    if quick:
        traces = {k: v[:QUICK_RUNS] for k, v in traces.items()}
    return traces


def warm_up_traces(traces: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Two short traces: enough for every kernel of every configuration to load."""
    return {k: v[:120] for k, v in list(traces.items())[:2]}


def per_config(
    rules: dict[str, Rule], traces: dict[str, np.ndarray], executor: Any
) -> pd.DataFrame:
    """The old granularity: one replay per configuration, one task per trace."""
    frames = [
        replay(rule, traces, progress=False, executor=executor).assign(rule=name)
        for name, rule in rules.items()
    ]
    return pd.concat(frames, ignore_index=True)[["rule", *COLUMNS]]


def _workers_cpu(client: Any) -> float:
    return float(sum(client.run(time.process_time).values()))


def machine_busy() -> float | None:
    """CPU seconds all cores of the machine have spent busy since boot (Linux), else None."""
    try:
        with open("/proc/stat") as fh:
            fields = [int(v) for v in fh.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # user nice system idle iowait irq softirq steal: all but idle and iowait.
    busy = sum(fields[:3]) + sum(fields[5:8])
    return busy / os.sysconf("SC_CLK_TCK")


class Clock:
    """Wall, this process's CPU and the machine's busy CPU since construction."""

    def __init__(self) -> None:
        self.wall, self.cpu, self.busy = time.perf_counter(), time.process_time(), machine_busy()

    def phase(self, cpu_workers: float | None, n: int) -> dict[str, Any]:
        wall = time.perf_counter() - self.wall
        cpu_here = time.process_time() - self.cpu
        out: dict[str, Any] = {"wall_s": wall, "cpu_this_process_s": cpu_here}
        if cpu_workers is not None:
            out["cpu_workers_s"] = cpu_workers
            out["idle_workers_s"] = max(0.0, n * wall - cpu_workers)
        now = machine_busy()
        if now is not None and self.busy is not None:
            out["cpu_machine_busy_s"] = now - self.busy
            out["cpu_other_processes_s"] = max(0.0, now - self.busy - cpu_here - (cpu_workers or 0))
        return out


def on_cluster(
    n: int,
    rules: dict[str, Rule],
    traces: dict[str, np.ndarray],
    serial: pd.DataFrame,
    *,
    traces_per_task: int,
    old_granularity: bool,
) -> dict[str, Any]:
    """Start, warm up and time a LocalCluster of ``n`` single-threaded workers."""
    import distributed

    report: dict[str, Any] = {"workers": n}
    clock = Clock()
    with (
        distributed.LocalCluster(
            n_workers=n, processes=True, threads_per_worker=1, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        client.wait_for_workers(n)
        cpu_w = _workers_cpu(client)
        report["startup"] = clock.phase(cpu_w, n)

        clock = Clock()
        warm = partial(sweep, rules, warm_up_traces(traces), workers=1, progress=False)
        client.run(warm)
        cpu_w2 = _workers_cpu(client)
        report["warm_up"] = clock.phase(cpu_w2 - cpu_w, n)

        executor = client.get_executor()
        clock = Clock()
        frame = sweep(
            rules, traces, progress=False, executor=executor, traces_per_task=traces_per_task
        )
        cpu_w3 = _workers_cpu(client)
        report["sweep"] = clock.phase(cpu_w3 - cpu_w2, n)
        report["sweep"]["tasks"] = -(-len(traces) // traces_per_task)
        report["sweep"]["identical_to_serial"] = bool(frame.equals(serial))

        if old_granularity:
            clock = Clock()
            frame = per_config(rules, traces, executor)
            cpu_w4 = _workers_cpu(client)
            report["per_config"] = clock.phase(cpu_w4 - cpu_w3, n)
            report["per_config"]["tasks"] = len(rules) * len(traces)
            report["per_config"]["identical_to_serial"] = bool(frame.equals(serial))
    return report


def _line(what: str, phase: dict[str, Any]) -> str:
    text = (
        f"  {what:10} wall {phase['wall_s']:7.1f} s   CPU here {phase['cpu_this_process_s']:6.1f} s"
    )
    if "cpu_workers_s" in phase:
        text += (
            f"   CPU workers {phase['cpu_workers_s']:6.1f} s"
            f"   workers idle {phase['idle_workers_s']:6.1f} s"
        )
    if "cpu_other_processes_s" in phase:
        text += f"   CPU other processes {phase['cpu_other_processes_s']:6.1f} s"
    if "tasks" in phase:
        text += f"   {phase['tasks']} tasks"
    if "identical_to_serial" in phase:
        text += f"   identical to serial: {phase['identical_to_serial']}"
    return text


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="26 traces of 200 runs (for tests)")
    ap.add_argument(
        "--per-config", action="store_true", help="also time one task per (configuration, trace)"
    )
    ap.add_argument("--traces-per-task", type=int, default=1, metavar="K")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)

    rules = configs()
    traces = protocol_a_traces(quick=args.quick)
    report: dict[str, Any] = {
        "traces": len(traces),
        "runs_per_trace": int(max(v.size for v in traces.values())),
        "configurations": list(rules),
        "traces_per_task": args.traces_per_task,
        "cpus": os.cpu_count(),
        "load_average_before": list(os.getloadavg()),
    }
    print(
        f"{len(rules)} configurations x {len(traces)} traces "
        f"({report['runs_per_trace']} runs each), {args.traces_per_task} trace(s) per task; "
        f"load average before: {' '.join(f'{x:.2f}' for x in report['load_average_before'])}"
    )

    with one_thread():
        sweep(rules, warm_up_traces(traces), workers=1, progress=False)
        clock = Clock()
        serial = sweep(rules, traces, workers=1, progress=False)
        report["serial"] = clock.phase(None, 1)
    print("serial (this process, numba single-threaded, warmed up)")
    print(_line("sweep", report["serial"]))

    for n in (1, 2):
        run = on_cluster(
            n,
            rules,
            traces,
            serial,
            traces_per_task=args.traces_per_task,
            old_granularity=args.per_config,
        )
        report[f"dask_{n}"] = run
        print(f"Dask LocalCluster, {n} worker(s), 1 thread each")
        for what in ("startup", "warm_up", "sweep", "per_config"):
            if what in run:
                print(_line(what, run[what]))

    report["load_average_after"] = list(os.getloadavg())
    serial_s = report["serial"]["wall_s"]
    one, two = report["dask_1"]["sweep"]["wall_s"], report["dask_2"]["sweep"]["wall_s"]
    report["speedup"] = {
        "serial_over_dask_1": serial_s / one,
        "serial_over_dask_2": serial_s / two,
        "dask_1_over_dask_2": one / two,
    }
    print(
        f"sweep speed-up: serial / 2 workers {serial_s / two:.2f}x, "
        f"1 worker / 2 workers {one / two:.2f}x, serial / 1 worker {serial_s / one:.2f}x"
    )
    if args.per_config:
        old1 = report["dask_1"]["per_config"]["wall_s"]
        old2 = report["dask_2"]["per_config"]["wall_s"]
        report["speedup"]["per_config_dask_1_over_dask_2"] = old1 / old2
        report["speedup"]["per_config_serial_over_dask_2"] = serial_s / old2
        print(
            f"per-config speed-up: serial / 2 workers {serial_s / old2:.2f}x, "
            f"1 worker / 2 workers {old1 / old2:.2f}x"
        )
    identical = [report[f"dask_{n}"][w]["identical_to_serial"] for n in (1, 2)
                 for w in ("sweep", "per_config") if w in report[f"dask_{n}"]]  # fmt: skip
    report["all_identical_to_serial"] = all(identical)
    print(
        f"load average after: {' '.join(f'{x:.2f}' for x in report['load_average_after'])}; "
        f"all frames identical to serial: {all(identical)}"
    )
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0 if all(identical) else 1


if __name__ == "__main__":
    sys.exit(main())
