"""Coverage of percentile intervals by simulation.

    python -m benchmarks.interval_coverage [--reps 1000] [--json out.json] [--quick]
                                           [--methods bootstrap ...] [--engine order]

For n in {30, 100, 1000}, five generators with known quantiles (normal,
lognormal sigma 1, Pareto alpha 2.5, a two-mode mixture, and a lognormal
AR(1) with phi 0.6 whose marginal is lognormal), q in {0.25, 0.5, 0.9}:
the fraction of 95% intervals that contain the true quantile, per method.
``--engine`` picks the resampling engine of ``"bootstrap"`` (default
``auto``; ``order`` forces the order-statistic engine at every n, ``chain``
the order-statistic chains SuperFlow 2 uses). Not part of a paper's
reproduction: it checks the intervals every rule builds on.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import optimize, stats

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import perfstats  # noqa: E402

QS = (0.25, 0.5, 0.9)
SIZES = (30, 100, 1000)
METHODS = ("order", "order-normal", "bootstrap", "exact-bootstrap", "block")
PHI = 0.6


@dataclass(frozen=True)
class Generator:
    name: str
    draw: Callable[[np.random.Generator, int], np.ndarray]
    quantile: Callable[[float], float]
    iid: bool = True


def _mixture_quantile(q: float) -> float:
    def cdf(x: float) -> float:
        return float(0.7 * stats.norm.cdf(x, 10, 1) + 0.3 * stats.norm.cdf(x, 15, 1)) - q

    return float(optimize.brentq(cdf, 0.0, 25.0, xtol=1e-12))


def _mixture(rng: np.random.Generator, n: int) -> np.ndarray:
    second = rng.random(n) < 0.3
    return np.where(second, rng.normal(15, 1, n), rng.normal(10, 1, n))


def _lognormal_ar1(rng: np.random.Generator, n: int) -> np.ndarray:
    # Innovations scaled so that the stationary marginal is N(0, 1).
    e = rng.normal(0.0, math.sqrt(1 - PHI**2), n)
    y = np.empty(n)
    y[0] = rng.normal()
    for i in range(1, n):
        y[i] = PHI * y[i - 1] + e[i]
    return np.exp(y)


GENERATORS = (
    Generator("normal", lambda r, n: r.normal(100, 10, n), lambda q: 100 + 10 * stats.norm.ppf(q)),
    Generator(
        "lognormal", lambda r, n: r.lognormal(0, 1, n), lambda q: math.exp(stats.norm.ppf(q))
    ),
    Generator("pareto", lambda r, n: r.pareto(2.5, n) + 1, lambda q: (1 - q) ** (-1 / 2.5)),
    Generator("mixture", _mixture, _mixture_quantile),
    Generator("lognormal-AR1", _lognormal_ar1, lambda q: math.exp(stats.norm.ppf(q)), iid=False),
)


def coverage(
    gen: Generator,
    n: int,
    method: str,
    reps: int,
    seed: int = 0,
    n_resamples: int = 1000,
    engine: str = "auto",
) -> dict[float, float]:
    """Fraction of ``reps`` 95% intervals covering the true quantiles ``QS``."""
    rng = np.random.default_rng([seed, n, len(method), sum(map(ord, gen.name + method))])
    truth = [gen.quantile(q) for q in QS]
    hits = np.zeros(len(QS))
    for _ in range(reps):
        x = gen.draw(rng, n)
        ivs = perfstats.percentile_ci(
            x,
            QS,
            method=method,
            n_resamples=n_resamples,
            rng=rng,
            engine=engine if method == "bootstrap" else "auto",
        )
        hits += [iv.contains(t) for iv, t in zip(ivs, truth, strict=True)]
    return {q: float(h / reps) for q, h in zip(QS, hits, strict=True)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="coverage of 95% percentile intervals")
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--quick", action="store_true", help="200 repetitions")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    parser.add_argument("--engine", default="auto", choices=("auto", "order", "direct", "chain"))
    args = parser.parse_args(argv)
    reps = 200 if args.quick else args.reps
    rows = []
    t0 = time.perf_counter()
    print(
        f"coverage of 95% intervals, {reps} repetitions each (MC s.e. about "
        f"{100 * math.sqrt(0.95 * 0.05 / reps):.1f} points)"
    )
    print(f"{'data':<14} {'n':>5} {'method':<16} " + " ".join(f"q={q:<5}" for q in QS))
    for gen in GENERATORS:
        for n in SIZES:
            for method in args.methods:
                cov = coverage(gen, n, method, reps, engine=args.engine)
                rows.append(
                    {
                        "data": gen.name,
                        "n": n,
                        "method": method,
                        "coverage": {str(q): c for q, c in cov.items()},
                    }
                )
                print(
                    f"{gen.name:<14} {n:>5} {method:<16} "
                    + " ".join(f"{100 * cov[q]:6.1f}%" for q in QS),
                    flush=True,
                )
    print(f"{time.perf_counter() - t0:.0f} s")
    if args.json:
        report = {"reps": reps, "level": 0.95, "engine": args.engine, "rows": rows}
        args.json.write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
