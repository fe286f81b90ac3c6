"""Speed of perfstats against the anchors, timed side by side in one process.

    python -m benchmarks.speed [--quick] [--json out.json] [--only SUBSTRING ...]
                               [--conditions idle,twin,hog]

Collects ``cases(quick)`` from every ``benchmarks/speed/cases_*.py`` and times each
case under three conditions, one after another in the same run:

* ``idle``: nothing started beside the benchmark (on a shared machine, other
  users' load is still there);
* ``twin``: beside a second process running the same benchmark cases in a
  loop (``--as-load``);
* ``hog``: beside one busy-looping process per usable core.

In each condition the sides of a case (perfstats, the same call with every
kernel on one thread, the anchor) are timed in interleaved rounds and each
side's time is the median of its rounds (see ``benchmarks/speed/harness.py``).
Writes ``{"conditions": {condition: [{"name", "perfstats_s", "one_thread_s",
"anchor", "anchor_s", "ratio", "vs_one_thread", "reference_s",
"vs_reference"}]}, "cold_start": {...}}`` where ``ratio = anchor_s /
perfstats_s``, ``vs_one_thread`` the median over rounds of each round's
one-thread time over its default time (``vs_one_thread_of_medians`` is
``one_thread_s / perfstats_s``) and, for the
rules whose public reference code was timed on this machine (ANCHORS.md),
``vs_reference = reference_s / perfstats_s`` (the "vs ref" column; the
reference time is the idle one, so under load the column says how far the
default is from the paper's code on a quiet machine). Also measures the
first call in a fresh process (import plus first interval, and import plus
first SuperFlow decision beside ``import numpy, scipy.stats``) with an
empty and with a warm numba cache.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.speed.harness import SpeedCase, time_case  # noqa: E402

_FIRST_CALL = """
import time
t0 = time.perf_counter()
import numpy as np
import perfstats
x = np.random.default_rng(0).lognormal(3.0, 0.5, 1000)
perfstats.percentile_ci(x, [0.25, 0.5, 0.75], method="{method}", rng=1)
print(time.perf_counter() - t0)
"""

_FIRST_DECISION = """
import time
t0 = time.perf_counter()
import numpy as np
from perfstats.rules import SuperFlow
x = np.random.default_rng(0).lognormal(3.0, 0.05, 1000)
SuperFlow(ci="bootstrap", rng=1).check(x)
print(time.perf_counter() - t0)
"""

_IMPORT_ANCHOR = """
import time
t0 = time.perf_counter()
import numpy, scipy.stats
print(time.perf_counter() - t0)
"""

_HOG = "while True:\n    pass\n"
CONDITIONS = ("idle", "twin", "hog")


def collect(quick: bool, only: list[str] | None) -> list[SpeedCase]:
    """Every case, or those whose name contains one of the ``only`` substrings."""
    out: list[SpeedCase] = []
    for path in sorted((ROOT / "benchmarks" / "speed").glob("cases_*.py")):
        module = importlib.import_module(f"benchmarks.speed.{path.stem}")
        out.extend(module.cases(quick))
    if only:
        wanted = [w.lower() for w in only]
        out = [c for c in out if any(w in c.name.lower() for w in wanted)]
    return out


def cold_start(methods: tuple[str, ...] = ("order", "bootstrap", "block")) -> dict[str, float]:
    """Seconds for import plus first interval (or decision), in a fresh process."""
    scripts = {m: _FIRST_CALL.format(method=m) for m in methods}
    scripts["superflow_decision"] = _FIRST_DECISION
    scripts["import_numpy_scipy_stats"] = _IMPORT_ANCHOR
    result: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for state in ("empty_cache", "warm_cache"):
            for name, script in scripts.items():
                t0 = time.perf_counter()
                done = subprocess.run(
                    [sys.executable, "-c", script],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                wall = time.perf_counter() - t0
                result[f"{name}_{state}_s"] = wall
                result[f"{name}_{state}_inner_s"] = float(done.stdout.strip())
    return result


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def start_load(condition: str, quick: bool, only: list[str] | None) -> list[subprocess.Popen[str]]:
    """Start the processes that make ``condition``; return them once they run."""
    if condition == "idle":
        return []
    if condition == "hog":
        return [
            subprocess.Popen([sys.executable, "-c", _HOG], text=True)
            for _ in range(_usable_cores())
        ]
    cmd = [sys.executable, str(Path(__file__).resolve()), "--as-load"]
    if quick:
        cmd.append("--quick")
    for substring in only or ():
        cmd += ["--only", substring]
    twin = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    assert twin.stdout is not None
    twin.stdout.readline()  # "ready": warmed up, now looping
    return [twin]


def stop_load(procs: list[subprocess.Popen[str]]) -> None:
    for proc in procs:
        proc.kill()
    for proc in procs:
        proc.wait()


def run_as_load(quick: bool, only: list[str] | None) -> int:
    """Loop over the cases forever (the ``twin`` condition's second process)."""
    todo = collect(quick, only)
    for case in todo:
        case.perfstats()
        case.anchor_fn()
    print("ready", flush=True)
    while True:
        for case in todo:
            case.perfstats()
            case.anchor_fn()


def _ratio(r: float) -> str:
    return f"{r:.1f}x" if r >= 1 else f"1/{1 / r:.0f}"


def _vs_ref(row: dict[str, Any]) -> str:
    value = row.get("vs_reference")
    return "-" if value is None else _ratio(float(value))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.speed", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument(
        "--only",
        action="append",
        help="run only cases whose name contains this (repeat for several)",
    )
    parser.add_argument("--no-cold-start", action="store_true", help="skip the cold-start check")
    parser.add_argument(
        "--conditions",
        default=",".join(CONDITIONS),
        help="comma-separated subset of " + ", ".join(CONDITIONS),
    )
    parser.add_argument(
        "--repeats", type=int, help="interleaved rounds per side (default 7, quick 3)"
    )
    parser.add_argument("--as-load", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.as_load:
        return run_as_load(args.quick, args.only)
    conditions = [c for c in args.conditions.split(",") if c]
    for c in conditions:
        if c not in CONDITIONS:
            parser.error(f"unknown condition {c!r}")

    todo = collect(args.quick, args.only)
    by_condition: dict[str, list[dict[str, Any]]] = {}
    for condition in conditions:
        procs = start_load(condition, args.quick, args.only)
        rows = []
        try:
            cols = (
                f"{'perfstats':>10} {'1 thread':>10} {'anchor':>10} {'ratio':>7} {'vs 1t':>6} "
                f"{'vs ref':>7}"
            )
            print(f"\n[{condition}] {'case':<70} {cols}")
            for case in todo:
                repeats = args.repeats or (3 if args.quick else 7)
                row = time_case(case, repeats=repeats, target_s=0.01 if args.quick else 0.05)
                rows.append(row)
                print(
                    f"[{condition}] {case.name:<70} {row['perfstats_s'] * 1e3:>8.3f}ms "
                    f"{row['one_thread_s'] * 1e3:>8.3f}ms {row['anchor_s'] * 1e3:>8.3f}ms "
                    f"{_ratio(row['ratio']):>7} {row['vs_one_thread']:>6.2f} "
                    f"{_vs_ref(row):>7}",
                    flush=True,
                )
        finally:
            stop_load(procs)
        by_condition[condition] = rows

    print(
        "\nratio against the anchor (anchor_s / perfstats_s; 1/x: x times slower), "
        "default vs one thread (median over rounds of one-thread time / default time) "
        "and against the paper's "
        "reference code (reference_s / perfstats_s, ANCHORS.md), per condition:"
    )
    head = "".join(f" {c + ' ratio':>11} {c + ' vs1t':>10} {c + ' vsref':>11}" for c in conditions)
    print(f"{'case':<70}{head}  anchor")
    for i, case in enumerate(todo):
        cells = ""
        for c in conditions:
            row = by_condition[c][i]
            cells += (
                f" {_ratio(float(row['ratio'])):>11} {float(row['vs_one_thread']):>10.2f}"
                f" {_vs_ref(row):>11}"
            )
        print(f"{case.name:<70}{cells}  {case.anchor}")
    report: dict[str, object] = {"conditions": by_condition}
    if not args.no_cold_start:
        cold = cold_start()
        report["cold_start"] = cold
        print("\nfirst call in a fresh process (import + first interval/decision, wall seconds):")
        for key, value in cold.items():
            if not key.endswith("inner_s"):
                print(f"  {key:<48} {value:6.2f} s")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
