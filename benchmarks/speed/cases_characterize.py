"""Speed case of the characterisation: 1,000 values against a bootstrap of the median.

Goal: ``perfstats.characterize`` of 1,000 values in at most 2.5 times the
time of ``scipy.stats.bootstrap`` of their median (1,000 resamples,
percentile method), i.e. a ratio ``anchor_s / perfstats_s`` of at least
0.4. Three series: i.i.d. log-normal (one mode, no change), a warm-up
(change points), and a bimodal mixture (the Gaussian-mixture confirmation
of the modes runs).
"""

from __future__ import annotations

import numpy as np

import perfstats
from benchmarks.speed.cases_core import _scipy_median
from benchmarks.speed.harness import SpeedCase

N = 1000


def _series() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(16)
    lognormal = rng.lognormal(3.0, 0.5, N)
    warmup = np.concatenate([rng.normal(150.0, 5.0, 50), rng.normal(100.0, 5.0, N - 50)])
    bimodal = np.where(rng.random(N) < 0.6, rng.normal(100.0, 4.0, N), rng.normal(140.0, 4.0, N))
    return {"log-normal": lognormal, "warm-up": warmup, "bimodal": bimodal}


def cases(quick: bool) -> list[SpeedCase]:
    """characterize(x) beside scipy.stats.bootstrap of the median of the same x."""
    out = []
    for name, x in _series().items():
        out.append(
            SpeedCase(
                f"characterize, {name}",
                lambda x=x: perfstats.characterize(x),
                "scipy.stats.bootstrap, median, 1000 resamples",
                lambda x=x: _scipy_median(x),
            )
        )
    return out
