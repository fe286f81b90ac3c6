"""How ``perfstats.characterize`` scales with the length of a series.

For each size (default 1e4, 1e5, 1e6 runs) two series: a flat one (normal
noise, no change: the case where PELT's own pruning removes nothing) and a
warm-up (the first tenth 30% slower). Reports the wall time of
``characterize`` (first call excluded: numba compiles its kernels), of the
change-point search alone, and the segment costs the search evaluated per
run (``perfstats._kernels.pelt.pelt_l2_counted``), which should stay near
constant as the size grows.

Not part of a paper's reproduction: a check of the library's cost.

Usage::

    python -m benchmarks.characterize_scaling [--sizes 10000 100000 1000000] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from perfstats import characterize
from perfstats._kernels.pelt import pelt_l2_counted
from perfstats.characterization.segmentation import default_penalty, noise_scale


def _series(kind: str, n: int) -> np.ndarray:
    rng = np.random.default_rng(n)
    x = rng.normal(100.0, 4.0, n)
    if kind == "warm-up":
        x[: n // 10] *= 1.3
    return x


def run(sizes: list[int]) -> list[dict[str, object]]:
    characterize(_series("flat", 2_000))  # compile the kernels first
    rows: list[dict[str, object]] = []
    for n in sizes:
        for kind in ("flat", "warm-up"):
            x = _series(kind, n)
            t0 = time.perf_counter()
            c = characterize(x)
            t1 = time.perf_counter()
            z = (x - x.mean()) / noise_scale(x)
            t2 = time.perf_counter()
            _, evaluations = pelt_l2_counted(z, default_penalty(n), 10)
            t3 = time.perf_counter()
            rows.append(
                {
                    "n": n,
                    "series": kind,
                    "characterize_s": round(t1 - t0, 3),
                    "pelt_s": round(t3 - t2, 3),
                    "costs_per_run": round(evaluations / n, 1),
                    "change_points": len(c.change_points),
                    "steady_state": c.steady_state,
                }
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--json", type=Path, help="write the rows here")
    args = parser.parse_args(argv)
    rows = run(args.sizes)
    head = f"{'n':>9} {'series':>8} {'characterize s':>15} {'pelt s':>8} {'costs/run':>10} changes"
    print(head)
    for r in rows:
        print(
            f"{r['n']:>9} {r['series']:>8} {r['characterize_s']:>15} {r['pelt_s']:>8} "
            f"{r['costs_per_run']:>10} {r['change_points']} ({r['steady_state']})"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
