"""How the cost of the resampling paths grows with n and B, and their peak memory.

    python -m benchmarks.speed.scaling [--max-n 10000000] [--json out.json] [--plot out.png]
                                       [--no-memory]

Time: each case beside ``np.sort`` of the same data, interleaved repeats,
median (``ratio = case_s / sort_s``: how many sorts of the data one call
costs). Cases: the P25+P50+P75 bootstrap CI (B = 1,000), the median
moving-block CI with the automatic (Politis-White) block length on i.i.d.
and on AR(1) phi = 0.5 data (B = 1,000), and ``relative_change`` of the
medians of two unpaired samples of n points each (B = 10,000), for n = 10^3
.. ``--max-n``; then the same at n = 10^5 for B = 10^2 .. 10^4.

Memory: every case runs once more in a fresh process at n = 10^6 (and a
callable statistic at two values of B), which reports its peak resident set
size above the resident size it had with the input built and the kernels
compiled (the kernel's high-water mark ``VmHWM``, reset through
``/proc/self/clear_refs`` just before the call, minus ``VmRSS`` at that
point; Linux only); tracemalloc's peak is given beside it, but does not see
numba's allocations.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import perfstats  # noqa: E402

QUARTILES = [0.25, 0.5, 0.75]


def ar1(n: int, phi: float = 0.5, seed: int = 2) -> np.ndarray:
    """exp of a Gaussian AR(1) with coefficient ``phi``."""
    from scipy.signal import lfilter

    e = np.random.default_rng(seed).normal(size=n)
    return np.asarray(np.exp(lfilter([1.0], [1.0, -phi], e)))


def iid(n: int, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).lognormal(3.0, 0.5, n)


def case_fns(n: int, b: int) -> dict[str, tuple[Callable[[], object], np.ndarray]]:
    """name -> (call, the data np.sort is timed on)."""
    x = iid(n)
    y = ar1(n)
    base = iid(n, 3)
    cand = iid(n, 4) * 1.01
    return {
        "bootstrap CI, 3 quantiles": (
            lambda: perfstats.percentile_ci(x, QUARTILES, method="bootstrap", n_resamples=b, rng=1),
            x,
        ),
        "moving-block CI, auto length, i.i.d.": (
            lambda: perfstats.percentile_ci(x, 0.5, method="block", n_resamples=b, rng=1),
            x,
        ),
        "moving-block CI, auto length, AR(1) 0.5": (
            lambda: perfstats.percentile_ci(y, 0.5, method="block", n_resamples=b, rng=1),
            y,
        ),
        "relative_change of medians, unpaired": (
            lambda: perfstats.relative_change(base, cand, n_resamples=10 * b, rng=1),
            base,
        ),
    }


def timed(
    fn: Callable[[], object], anchor: Callable[[], object], repeats: int
) -> tuple[float, float]:
    fn()
    anchor()
    tf: list[float] = []
    ta: list[float] = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        tf.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        anchor()
        ta.append(time.perf_counter() - t0)
    return statistics.median(tf), statistics.median(ta)


_MEMORY = """
import json, sys, tracemalloc
import numpy as np
sys.path.insert(0, {root!r})
from benchmarks.speed.scaling import case_fns
import perfstats
name, n, b = {name!r}, {n}, {b}
if name.startswith("callable"):
    x = np.random.default_rng(1).lognormal(3.0, 0.5, n)
    perfstats.bootstrap_distribution(x[:100], np.median, n_resamples=2, rng=1)
    fn = lambda: perfstats.bootstrap_distribution(x, np.median, n_resamples=b, rng=1)
else:
    small = case_fns(5000, 20)[name][0]
    small()
    fn = case_fns(n, b)[name][0]
def status(field):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
# Reset the high-water mark (Linux >= 4.0) so that the JIT and the input
# building before this point do not count.
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")
before = status("VmRSS")
tracemalloc.start()
fn()
traced = tracemalloc.get_traced_memory()[1]
peak = status("VmHWM")
print(json.dumps({{"extra_rss_mb": (peak - before) / 2**20, "tracemalloc_mb": traced / 2**20}}))
"""


def memory(name: str, n: int, b: int) -> dict[str, float]:
    script = _MEMORY.format(root=str(ROOT), name=name, n=n, b=b)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max-n", type=int, default=10**6)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--plot", type=Path)
    parser.add_argument("--no-memory", action="store_true")
    parser.add_argument("--memory-only", action="store_true", help="skip the timings")
    parser.add_argument("--sizes", type=int, nargs="+", help="time only these n (B = 1,000)")
    args = parser.parse_args(argv)

    sizes = [n for n in (10**3, 10**4, 10**5, 10**6, 10**7) if n <= args.max_n]
    rows: list[dict[str, Any]] = []
    print(f"{'case':<42} {'n':>9} {'B':>6} {'seconds':>9} {'np.sort':>9} {'ratio':>8}")

    def run(n: int, b: int, tag: str) -> None:
        for name, (fn, data) in case_fns(n, b).items():
            if name.startswith("relative") and n > 10**6:
                continue  # the goal's case stops at 10^6 per sample
            repeats = 5 if n <= 10**5 else 3 if n <= 10**6 else 1
            t, s = timed(fn, lambda d=data: np.sort(d), repeats)  # type: ignore[misc]
            bb = 10 * b if name.startswith("relative") else b
            rows.append({"case": name, "n": n, "B": bb, "s": t, "sort_s": s, "vary": tag})
            print(f"{name:<42} {n:>9,} {bb:>6,} {t:>9.4f} {s:>9.4f} {t / s:>7.1f}x", flush=True)

    if args.sizes:
        for n in args.sizes:
            run(n, 1000, "n")
    elif not args.memory_only:
        for n in sizes:
            run(n, 1000, "n")
        for b in (100, 10_000):
            run(10**5, b, "B")

    mem: list[dict[str, Any]] = []
    if not args.no_memory:
        print("\npeak memory above the input, n = 10^6 (fresh process each):")
        todo = [(name, 1000) for name in case_fns(10, 10)]
        todo += [("bootstrap CI, 3 quantiles", 10_000), ("callable np.median", 20)]
        todo += [("callable np.median", 100)]
        for name, b in todo:
            got = memory(name, 10**6, b)
            bb = 10 * b if name.startswith("relative") else b
            mem.append({"case": name, "n": 10**6, "B": bb, **got})
            print(
                f"  {name:<42} B={bb:>6,}: {got['extra_rss_mb']:7.1f} MB RSS "
                f"(tracemalloc {got['tracemalloc_mb']:.1f} MB)",
                flush=True,
            )
    if args.json:
        args.json.write_text(json.dumps({"time": rows, "memory": mem}, indent=2))
    if args.plot:
        plot(rows, args.plot)
    return 0


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_n, ax_b) = plt.subplots(1, 2, figsize=(11, 4.2))
    names = sorted({r["case"] for r in rows})
    for name in names:
        by_n = [r for r in rows if r["case"] == name and r["vary"] == "n"]
        ax_n.loglog([r["n"] for r in by_n], [r["s"] for r in by_n], "o-", label=name)
        by_b = sorted(
            [r for r in rows if r["case"] == name and r["n"] == 10**5], key=lambda r: r["B"]
        )
        ax_b.loglog([r["B"] for r in by_b], [r["s"] for r in by_b], "o-", label=name)
    sort_rows = {r["n"]: r["sort_s"] for r in rows if r["vary"] == "n"}
    ns = sorted(sort_rows)
    ax_n.loglog(ns, [sort_rows[n] for n in ns], "k--", label="np.sort of the data")
    ax_n.set(
        xlabel="n",
        ylabel="seconds per call",
        title="cost vs n (B = 1,000; 10,000 for relative_change)",
    )
    ax_b.set(xlabel="B (resamples)", ylabel="seconds per call", title="cost vs B at n = 10^5")
    ax_n.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    raise SystemExit(main())
