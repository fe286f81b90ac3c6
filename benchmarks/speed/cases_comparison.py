"""Speed cases of the comparison statistics."""

from __future__ import annotations

import numpy as np
import scipy.stats as st

from benchmarks.speed.harness import SpeedCase
from perfstats.comparison.change import relative_change
from perfstats.comparison.effects import cliffs_delta
from perfstats.comparison.similarity import kl_similarity


def _pair(n: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.lognormal(3.0, 0.5, n), rng.lognormal(3.05, 0.5, n)


def pt4cloud_direct(a: np.ndarray, b: np.ndarray, grid: int = 1000) -> float:
    """PT4Cloud's similarity transcribed directly, with scipy's KDE."""
    lo = min(a.min(), b.min())
    hi = max(a.max(), b.max())
    step = (hi - lo) / grid
    x = lo + step * np.arange(1, grid + 1)
    p = st.gaussian_kde(a)(x)
    q = st.gaussian_kde(b)(x)
    sym_kl = np.sum(p * step * np.log2(p / q) + q * step * np.log2(q / p))
    return float(2.0**-sym_kl)


def _scipy_cliffs_delta(a: np.ndarray, b: np.ndarray) -> float:
    u = st.mannwhitneyu(a, b).statistic
    return float(2 * u / (a.size * b.size) - 1)


def _scipy_relative_change(a: np.ndarray, b: np.ndarray, n_resamples: int) -> object:
    def stat(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.median(y, axis=axis) / np.median(x, axis=axis) - 1

    return st.bootstrap(
        (a, b), stat, n_resamples=n_resamples, confidence_level=0.99,
        method="percentile", vectorized=True, random_state=1,
    ).confidence_interval  # fmt: skip


def cases(quick: bool) -> list[SpeedCase]:
    """KL similarity at n = 1,000; Cliff's delta at 10^6 (10^5 quick); relative change."""
    a, b = _pair(1000)
    big = 100_000 if quick else 1_000_000
    ba, bb = (np.round(v, 2) for v in _pair(big, 2))
    ra, rb = _pair(100, 3)
    resamples = 2000 if quick else 10_000
    return [
        SpeedCase(
            "kl_similarity (PT4Cloud), n=1,000, grid 1,000",
            lambda: kl_similarity(a, b),
            "direct transcription with scipy.stats.gaussian_kde",
            lambda: pt4cloud_direct(a, b),
        ),
        SpeedCase(
            f"cliffs_delta, n={big:,} per sample",
            lambda: cliffs_delta(ba, bb),
            "2U/(n_a n_b) - 1 from scipy.stats.mannwhitneyu",
            lambda: _scipy_cliffs_delta(ba, bb),
        ),
        SpeedCase(
            f"relative_change of the median, 99%, n=100, {resamples:,} resamples",
            lambda: relative_change(ra, rb, level=0.99, n_resamples=resamples, rng=1),
            "scipy.stats.bootstrap, two samples, vectorized, percentile",
            lambda: _scipy_relative_change(ra, rb, resamples),
        ),
    ]
