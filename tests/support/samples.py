"""Samples of four shapes for engine-against-engine distribution tests."""

from __future__ import annotations

import numpy as np
from scipy.signal import lfilter

KINDS = 4


def sample(kind: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """Normal (0), log-normal (1), heavily tied integers (2) or Pareto (3) values."""
    if kind == 0:
        return rng.normal(100.0, 10.0, n)
    if kind == 1:
        return rng.lognormal(3.0, 1.0, n)
    if kind == 2:
        return rng.integers(0, 6, n).astype(float)
    return rng.pareto(2.5, n) + 1.0


def ar1_lognormal(n: int, phi: float, seed: int) -> np.ndarray:
    """``exp`` of a standard-normal AR(1) series: positive, dependent data."""
    e = np.random.default_rng(seed).normal(size=n)
    # y[i] = phi * y[i - 1] + e[i], as a recursive filter.
    return np.exp(lfilter([1.0], [1.0, -phi], e))
