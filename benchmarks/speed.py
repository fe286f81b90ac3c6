"""Speed of perfstats against the anchors, timed side by side in one process.

    python benchmarks/speed.py [--quick] [--json out.json] [--only SUBSTRING]

Collects ``cases(quick)`` from every ``benchmarks/cases_*.py``, times each
pair alternately (median of repeats, warm JIT), prints a table and writes
``{"cases": [{"name", "perfstats_s", "anchor", "anchor_s", "ratio"}],
"cold_start": {...}}`` where ``ratio = anchor_s / perfstats_s``.
Also measures the first call in a fresh process (import plus first
interval) with an empty and with a warm numba cache.
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

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.harness import SpeedCase, time_case  # noqa: E402

_FIRST_CALL = """
import time
t0 = time.perf_counter()
import numpy as np
import perfstats
x = np.random.default_rng(0).lognormal(3.0, 0.5, 1000)
perfstats.percentile_ci(x, [0.25, 0.5, 0.75], method="{method}", rng=1)
print(time.perf_counter() - t0)
"""


def collect(quick: bool, only: str | None) -> list[SpeedCase]:
    out: list[SpeedCase] = []
    for path in sorted((ROOT / "benchmarks").glob("cases_*.py")):
        module = importlib.import_module(f"benchmarks.{path.stem}")
        out.extend(module.cases(quick))
    if only:
        out = [c for c in out if only.lower() in c.name.lower()]
    return out


def cold_start(methods: tuple[str, ...] = ("order", "bootstrap", "block")) -> dict[str, float]:
    """Seconds for import plus first interval, in a fresh process."""
    result: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for state in ("empty_cache", "warm_cache"):
            for method in methods:
                t0 = time.perf_counter()
                done = subprocess.run(
                    [sys.executable, "-c", _FIRST_CALL.format(method=method)],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                wall = time.perf_counter() - t0
                result[f"{method}_{state}_s"] = wall
                result[f"{method}_{state}_inner_s"] = float(done.stdout.strip())
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--only", help="run only cases whose name contains this")
    parser.add_argument("--no-cold-start", action="store_true", help="skip the cold-start check")
    args = parser.parse_args(argv)

    rows = []
    print(f"{'case':<58} {'perfstats':>11} {'anchor':>11} {'ratio':>8}  anchor")
    for case in collect(args.quick, args.only):
        row = time_case(case, repeats=3 if args.quick else 7, target_s=0.01 if args.quick else 0.05)
        rows.append(row)
        print(
            f"{case.name:<58} {row['perfstats_s'] * 1e3:>9.3f}ms {row['anchor_s'] * 1e3:>9.3f}ms "
            f"{row['ratio']:>8.1f}  {case.anchor}",
            flush=True,
        )
    report: dict[str, object] = {"cases": rows}
    if not args.no_cold_start:
        cold = cold_start()
        report["cold_start"] = cold
        print("\nfirst call in a fresh process (import + first interval, wall seconds):")
        for key, value in cold.items():
            if not key.endswith("inner_s"):
                print(f"  {key:<32} {value:6.2f} s")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
