"""Speed cases of the stopping rules: one decision at n = 1,000.

Each rule's ``check`` is timed beside a straightforward NumPy/SciPy
implementation of the same decision. The public reference code took 1.0 ms
(SuperFlow 1), 481 ms (SuperFlow 2), 875 ms (SuperFlow 3), 285 ms (Metior)
and 15 ms (PT4Cloud) per decision on this machine (ANCHORS.md); each case
carries that time as ``reference_s``, so the suite reports the ratio to it
(the goal) beside the ratio to the anchor timed in the same run.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.stats as st
from arch.bootstrap import optimal_block_length as arch_block_length

from benchmarks.speed.cases_comparison import pt4cloud_direct
from benchmarks.speed.harness import SpeedCase
from perfstats.rules import Metior, PT4Cloud, SuperFlow

N = 1000
INTERVAL = 5
QUARTILES = np.array([0.25, 0.5, 0.75])


def _trace(n: int = N) -> np.ndarray:
    # Lognormal with AR(1) dependence, like a warm serverless trace.
    rng = np.random.default_rng(7)
    e = rng.standard_normal(n)
    z = np.empty(n)
    z[0] = e[0]
    for t in range(1, n):
        z[t] = 0.5 * z[t - 1] + e[t]
    return np.exp(3.0 + 0.05 * z)


def _within(low: np.ndarray, high: np.ndarray, observed: np.ndarray, r: float) -> bool:
    return bool(np.all((observed * (1 - r) < low) & (high < observed * (1 + r))))


def superflow1_numpy(x: np.ndarray, r: float = 0.01) -> bool:
    """SuperFlow 1: normal-approximation order-statistic ranks on both sets."""
    for s in (x, x[:-INTERVAL]):
        n = s.size
        srt = np.sort(s)
        half = 1.96 * np.sqrt(n * QUARTILES * (1 - QUARTILES))
        lo = np.rint(n * QUARTILES - half).astype(int)
        hi = np.rint(1 + n * QUARTILES + half).astype(int)
        if lo.min() < 0 or hi.max() > n - 1:
            return False
        if not _within(srt[lo], srt[hi], np.percentile(s, 100 * QUARTILES), r):
            return False
    return True


def superflow2_scipy(x: np.ndarray, r: float = 0.01) -> bool:
    """SuperFlow 2: scipy.stats.bootstrap, the three quartiles at once, per set."""

    def quartiles(sample: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.quantile(sample, QUARTILES, axis=axis)

    ok = True
    for s in (x, x[:-INTERVAL]):
        ci = st.bootstrap(
            (s,),
            quartiles,
            n_resamples=1000,
            method="percentile",
            vectorized=True,
            random_state=1,
        ).confidence_interval
        ok &= _within(ci.low, ci.high, np.quantile(s, QUARTILES), r)
    return ok


def _moving_block_resamples(s: np.ndarray, b: int, rng: np.random.Generator) -> np.ndarray:
    """1,000 moving-block resamples of ``s`` as one (1000, n) matrix."""
    n = s.size
    blocks = math.ceil(n / b)
    starts = rng.integers(0, n - b + 1, size=(1000, blocks))
    idx = (starts[:, :, None] + np.arange(b)).reshape(1000, -1)[:, :n]
    return s[idx]


def superflow3_numpy(x: np.ndarray, r: float = 0.01) -> bool:
    """SuperFlow 3: arch's Politis-White length and a NumPy moving-block bootstrap."""
    rng = np.random.default_rng(1)
    ok = True
    for s in (x, x[:-INTERVAL]):
        b = max(1, math.ceil(arch_block_length(s)["circular"].iloc[0]))
        boot = np.quantile(_moving_block_resamples(s, b, rng), QUARTILES, axis=1)
        low, high = np.quantile(boot, [0.025, 0.975], axis=1)
        ok &= _within(low, high, np.quantile(s, QUARTILES), r)
    return ok


def metior_numpy(x: np.ndarray, error: float = 0.03) -> bool:
    """Metior: block-bootstrap both sets, 95th percentile of |relative change|."""
    rng = np.random.default_rng(1)
    previous = x[:-INTERVAL]
    b = max(1, math.ceil(arch_block_length(previous)["circular"].iloc[0]))
    pre = np.median(_moving_block_resamples(previous, b, rng), axis=1)
    cur = np.median(_moving_block_resamples(x, b, rng), axis=1)
    return bool(np.quantile(np.abs((pre - cur) / cur), 0.95) <= error)


def pt4cloud_scipy(x: np.ndarray, threshold: float = 0.9) -> bool:
    """PT4Cloud: the similarity transcribed with scipy.stats.gaussian_kde."""
    return pt4cloud_direct(x[:-INTERVAL], x) >= threshold


def cases(quick: bool) -> list[SpeedCase]:
    """One decision of each paper's rule at n = 1,000 (1,000 resamples)."""
    x = _trace()
    sf1 = SuperFlow(method="order-normal")
    sf2 = SuperFlow(method="bootstrap", rng=1)
    sf3 = SuperFlow(method="block", rng=1)
    metior = Metior(rng=1)
    pt4cloud = PT4Cloud()
    return [
        SpeedCase(
            "SuperFlow 1 decision, n=1,000 (reference code: 1.0 ms)",
            lambda: sf1.check(x),
            "NumPy order-statistic ranks",
            lambda: superflow1_numpy(x),
            reference_s=1.0e-3,
        ),
        SpeedCase(
            "SuperFlow 2 decision, n=1,000, 1,000 resamples (reference code: 481 ms)",
            lambda: sf2.check(x),
            "scipy.stats.bootstrap, quartiles at once, both sets",
            lambda: superflow2_scipy(x),
            reference_s=0.481,
        ),
        SpeedCase(
            "SuperFlow 3 decision, n=1,000, 1,000 resamples (reference code: 875 ms)",
            lambda: sf3.check(x),
            "arch block length + NumPy moving-block bootstrap",
            lambda: superflow3_numpy(x),
            reference_s=0.875,
        ),
        SpeedCase(
            "Metior decision, n=1,000, 1,000 resample pairs (reference code: 285 ms)",
            lambda: metior.check(x),
            "arch block length + NumPy moving-block bootstrap",
            lambda: metior_numpy(x),
            reference_s=0.285,
        ),
        SpeedCase(
            "PT4Cloud decision, n=1,000, grid 1,000 (reference code: 15 ms)",
            lambda: pt4cloud.check(x),
            "scipy.stats.gaussian_kde transcription",
            lambda: pt4cloud_scipy(x),
            reference_s=0.015,
        ),
    ]
