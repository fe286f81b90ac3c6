"""Speed cases of the core statistics."""

from __future__ import annotations

import numpy as np
import scipy.stats as st
from arch.bootstrap import MovingBlockBootstrap
from arch.bootstrap import optimal_block_length as arch_block_length

import perfstats
from benchmarks.speed.harness import SpeedCase

QUARTILES = [0.25, 0.5, 0.75]


def _lognormal(n: int) -> np.ndarray:
    return np.random.default_rng(1).lognormal(3.0, 0.5, n)


def _ar1(n: int, phi: float = 0.6) -> np.ndarray:
    rng = np.random.default_rng(2)
    e = rng.normal(size=n)
    x = np.empty(n)
    x[0] = e[0]
    for i in range(1, n):
        x[i] = phi * x[i - 1] + e[i]
    return np.exp(x)


def _scipy_quartiles(x: np.ndarray) -> object:
    return st.bootstrap(
        (x,),
        lambda s, axis=-1: np.quantile(s, QUARTILES, axis=axis),
        n_resamples=1000,
        method="percentile",
        vectorized=True,
        random_state=1,
    ).confidence_interval


def _scipy_median(x: np.ndarray) -> object:
    return st.bootstrap(
        (x,), np.median, n_resamples=1000, method="percentile", vectorized=True, random_state=1
    ).confidence_interval


def _arch_block_median(x: np.ndarray) -> object:
    return MovingBlockBootstrap(8, x, seed=1).conf_int(np.median, reps=1000, method="percentile")


def _n_cases(n: int, tag: str) -> list[SpeedCase]:
    iid = _lognormal(n)
    dep = _ar1(n)
    return [
        SpeedCase(
            f"P25+P50+P75 bootstrap CI, 1000 resamples{tag}",
            lambda: perfstats.percentile_ci(iid, QUARTILES, method="bootstrap", rng=1),
            "scipy.stats.bootstrap (vectorized, percentile)",
            lambda: _scipy_quartiles(iid),
        ),
        SpeedCase(
            f"median moving-block CI, block 8, 1000 resamples{tag}",
            lambda: perfstats.percentile_ci(
                dep, 0.5, method="block", block_length=8, block_kind="moving", rng=1
            ),
            "arch MovingBlockBootstrap.conf_int (percentile)",
            lambda: _arch_block_median(dep),
        ),
        SpeedCase(
            f"median exact-bootstrap CI{tag}",
            lambda: perfstats.percentile_ci(iid, 0.5, method="exact-bootstrap"),
            "scipy.stats.bootstrap, median, 1000 resamples",
            lambda: _scipy_median(iid),
        ),
    ]


def cases(quick: bool) -> list[SpeedCase]:
    """Cases of the core statistics; n = 1,000 unless the name says otherwise."""
    dep = _ar1(1000)
    iid = _lognormal(1000)
    out = _n_cases(1000, "")
    out += [
        SpeedCase(
            "Politis-White block length",
            lambda: perfstats.optimal_block_length(dep),
            "arch.bootstrap.optimal_block_length",
            lambda: arch_block_length(dep),
        ),
        SpeedCase(
            "'order' CI of the median",
            lambda: perfstats.percentile_ci(iid, 0.5, method="order"),
            "scipy.stats.quantile_test(...).confidence_interval()",
            lambda: st.quantile_test(iid, q=0, p=0.5).confidence_interval(0.95),
        ),
    ]
    out += _n_cases(10_000, " (n=10,000)")
    return out
