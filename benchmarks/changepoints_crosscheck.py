"""Cross-check perfstats.change_points against MongoDB's signal-processing-algorithms.

The reference (``signal_processing_algorithms.energy_statistics.e_divisive``,
the e-divisive means MongoDB runs on its performance history) pins an older
NumPy than perfstats needs, so it runs in its own virtual environment, which
this script creates on first use (``benchmarks/.venv-ref``, git-ignored;
``pip install signal-processing-algorithms`` from the configured index) and
drives through a subprocess. Both sides use the same settings: p-value 0.05,
100 permutations, segments of one value or more (``min_size=1``, as the
reference allows).

Checks:

1. Synthetic steps: 30 series of 200-600 points with 1-5 steps of 5-15%
   (at least 30 points apart) and 0.5-2% log-normal noise, so that every
   step is at least 2.5 noise standard deviations: every real step must be
   found within +-1 position (by perfstats; the reference's hits are
   reported beside). Smaller steps in more noise are located less exactly
   by both (a 3% step in 2% noise lands 2 positions off now and then).
2. Real 8-week cloud traces (PT4Cloud, 33 traces): each trace averaged over
   blocks of consecutive measurements (300 blocks a trace): at least 80% of
   the reference's change points must be found by perfstats within +-1.
3. Speed: the same 2,000-point series (the first 2,000 runs of a real
   trace) through both, alternately, three times; perfstats at least 5x
   faster; and perfstats on 10,000 points (the first 10,000 runs of the
   same trace) in at most 25x its own 2,000-point time. The reference is not
   run on 10,000 points: its distance matrix alone is 800 MB, copied once
   per permutation.

Not part of a paper's reproduction: it checks the change-point search that
``perfstats.change_points`` offers beside the papers' methods. The cloud
traces are read by ``benchmarks/_traces.py``.

Usage::

    PERFSTATS_DATA=/work/shared/data python -m benchmarks.changepoints_crosscheck \\
        [--venv benchmarks/.venv-ref] [--quick] [--json out.json]
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

from benchmarks._traces import pt4cloud_by_name  # noqa: E402
from perfstats import change_points  # noqa: E402

SETTINGS = {"pvalue": 0.05, "permutations": 100}
BLOCKS = 300

# Runs inside the reference's environment: series in, change points and times out.
DRIVER = r"""
import json, sys, time
import numpy as np
from signal_processing_algorithms.energy_statistics.energy_statistics import e_divisive
job = json.load(open(sys.argv[1]))
out = []
for i, series in enumerate(job["series"]):
    np.random.seed(job["seed"] + i)  # the reference shuffles with NumPy's global generator
    x = np.asarray(series, dtype=float)
    t0 = time.perf_counter()
    cps = e_divisive(x, pvalue=job["pvalue"], permutations=job["permutations"])
    out.append({"cps": sorted(int(c) for c in cps), "seconds": time.perf_counter() - t0})
json.dump(out, open(sys.argv[2], "w"))
"""


def ensure_reference(venv: Path) -> Path:
    """The reference environment's python, created and installed if missing."""
    py = venv / "bin" / "python"
    probe = "import signal_processing_algorithms.energy_statistics.energy_statistics"
    if py.exists() and subprocess.run([py, "-c", probe], capture_output=True).returncode == 0:
        return py
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    res = subprocess.run(
        [py, "-m", "pip", "install", "-q", "signal-processing-algorithms"],
        capture_output=True, text=True,
    )  # fmt: skip
    if res.returncode != 0:
        raise RuntimeError(f"installing signal-processing-algorithms failed:\n{res.stderr[-3000:]}")
    return py


def run_reference(py: Path, series: list[np.ndarray], seed: int) -> list[dict[str, Any]]:
    """Change points and times from the reference, one subprocess for all series."""
    with tempfile.TemporaryDirectory() as tmp:
        job, out, drv = Path(tmp, "job.json"), Path(tmp, "out.json"), Path(tmp, "driver.py")
        drv.write_text(DRIVER)
        job.write_text(json.dumps({"series": [s.tolist() for s in series], "seed": seed,
                                   **SETTINGS}))  # fmt: skip
        subprocess.run([py, drv, job, out], check=True)
        result: list[dict[str, Any]] = json.loads(out.read_text())
        return result


def ours(x: np.ndarray, seed: int) -> tuple[list[int], float]:
    t0 = time.perf_counter()
    res = change_points(x, min_size=1, n_resamples=1, rng=seed, **SETTINGS)
    return list(res.indices), time.perf_counter() - t0


def matched(wanted: list[int], found: list[int], tol: int = 1) -> int:
    """How many of ``wanted`` have a position in ``found`` within ``tol``."""
    return sum(any(abs(w - f) <= tol for f in found) for w in wanted)


def block_means(x: np.ndarray, blocks: int) -> np.ndarray:
    """Means of ``blocks`` consecutive blocks of equal length (the tail dropped)."""
    size = x.size // blocks
    return x[: size * blocks].reshape(blocks, size).mean(axis=1)


def synthetic(n_series: int, seed: int) -> list[tuple[np.ndarray, list[int]]]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_series):
        n = int(rng.integers(200, 601))
        k = int(rng.integers(1, 6))
        # Steps at least 30 apart and 30 from the ends.
        while True:
            steps = sorted(int(s) for s in rng.choice(np.arange(30, n - 30), k, replace=False))
            if all(b - a >= 30 for a, b in itertools.pairwise(steps)):
                break
        sizes = rng.uniform(0.05, 0.15, k) * rng.choice([-1, 1], k)
        level = np.ones(n)
        for s, d in zip(steps, sizes, strict=True):
            level[s:] *= 1 + d
        noise = rng.uniform(0.005, 0.02)
        out.append((100 * level * rng.lognormal(0, noise, n), steps))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--venv", type=Path, default=HERE / ".venv-ref")
    ap.add_argument("--quick", action="store_true", help="fewer series, one timing round")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    py = ensure_reference(args.venv)
    ver = subprocess.run(
        [py, "-c", "import importlib.metadata as m, numpy; "
         "print(m.version('signal-processing-algorithms'), numpy.__version__)"],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    report: dict[str, Any] = {"reference": f"signal-processing-algorithms {ver[0]}",
                              "reference_numpy": ver[1], "settings": SETTINGS}  # fmt: skip

    # 1. synthetic steps
    cases = synthetic(8 if args.quick else 30, seed=17)
    ref = run_reference(py, [x for x, _ in cases], seed=1000)
    steps_total = sum(len(s) for _, s in cases)
    ours_hit = ref_hit = extra_ours = extra_ref = 0
    for i, ((x, steps), r) in enumerate(zip(cases, ref, strict=True)):
        mine, _ = ours(x, seed=i)
        ours_hit += matched(steps, mine)
        ref_hit += matched(steps, r["cps"])
        extra_ours += len(mine) - matched(mine, steps)
        extra_ref += len(r["cps"]) - matched(r["cps"], steps)
    report["synthetic"] = {
        "series": len(cases), "steps": steps_total,
        "perfstats_found_within_1": ours_hit, "reference_found_within_1": ref_hit,
        "perfstats_extra": extra_ours, "reference_extra": extra_ref,
        "pass": ours_hit == steps_total,
    }  # fmt: skip
    print(
        f"synthetic: {steps_total} steps in {len(cases)} series; perfstats found "
        f"{ours_hit} within +-1 ({extra_ours} extra), reference {ref_hit} ({extra_ref} extra)"
    )

    # 2. real traces, averaged over blocks
    cloud = pt4cloud_by_name()
    names = list(cloud)[:6] if args.quick else list(cloud)
    traces = {name: block_means(cloud[name], BLOCKS) for name in names}
    ref = run_reference(py, list(traces.values()), seed=2000)
    rows = []
    for i, ((name, x), r) in enumerate(zip(traces.items(), ref, strict=True)):
        mine, _ = ours(x, seed=i)
        rows.append({"trace": name, "reference": r["cps"], "perfstats": mine,
                     "matched": matched(r["cps"], mine)})  # fmt: skip
    total_ref = sum(len(r["reference"]) for r in rows)
    total_match = sum(r["matched"] for r in rows)
    total_ours = sum(len(r["perfstats"]) for r in rows)
    back = sum(matched(r["perfstats"], r["reference"]) for r in rows)
    share = total_match / total_ref if total_ref else float("nan")
    report["real"] = {
        "traces": len(rows), "blocks": BLOCKS, "reference_points": total_ref,
        "perfstats_points": total_ours, "reference_found_by_perfstats": total_match,
        "perfstats_found_by_reference": back, "share": share, "pass": share >= 0.8,
        "per_trace": rows,
    }  # fmt: skip
    print(
        f"real: {len(rows)} traces of {BLOCKS} block means; reference {total_ref} change "
        f"points, perfstats found {total_match} of them within +-1 ({share:.1%}); perfstats "
        f"{total_ours}, of which the reference found {back}"
    )

    # 3. speed
    raw = cloud["AWS-JPS-L"]
    x2k, x10k = raw[:2000], raw[:10000]
    ours(x2k, seed=0)  # JIT (or cache load) outside the timing
    rounds = 1 if args.quick else 3
    t_ref, t_ours, t_ours10 = [], [], []
    cps_ref: list[int] = []
    cps2: list[int] = []
    cps10: list[int] = []
    for k in range(rounds):
        r = run_reference(py, [x2k], seed=3000 + k)[0]
        t_ref.append(r["seconds"])
        cps_ref = r["cps"]
        cps2, t = ours(x2k, seed=k)
        t_ours.append(t)
        cps10, t = ours(x10k, seed=k)
        t_ours10.append(t)
    ref_s, ours_s, ours10_s = (statistics.median(v) for v in (t_ref, t_ours, t_ours10))
    report["speed"] = {
        "series": "AWS-JPS-L, first 2,000 / 10,000 runs", "rounds": rounds,
        "reference_2000_s": ref_s, "perfstats_2000_s": ours_s, "perfstats_10000_s": ours10_s,
        "speedup_2000": ref_s / ours_s, "scaling_10000_over_2000": ours10_s / ours_s,
        "change_points_2000": {"reference": len(cps_ref), "perfstats": len(cps2)},
        "change_points_10000": len(cps10),
        "pass": ref_s / ours_s >= 5 and ours10_s / ours_s <= 25,
    }  # fmt: skip
    print(
        f"speed: 2,000 points: reference {ref_s:.2f} s ({len(cps_ref)} points), perfstats "
        f"{ours_s:.3f} s ({len(cps2)} points): {ref_s / ours_s:.0f}x; 10,000 points: "
        f"perfstats {ours10_s:.3f} s ({len(cps10)} points) = {ours10_s / ours_s:.1f}x its "
        f"2,000-point time"
    )
    ok = all(report[k]["pass"] for k in ("synthetic", "real", "speed"))
    print("PASS" if ok else "FAIL")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
