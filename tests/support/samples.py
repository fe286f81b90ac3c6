"""Simulated samples: four shapes for engine-against-engine tests, and AR(1) series."""

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


def ar1(
    n: int, phi: float, seed: int, *, loc: float = 0.0, stationary_start: bool = False
) -> np.ndarray:
    """``loc`` plus a standard-normal AR(1) series ``y[t] = phi * y[t - 1] + e[t]``.

    ``y[0] = e[0]``, or ``e[0] / sqrt(1 - phi**2)`` with ``stationary_start``
    (the start drawn from the stationary law, so the series has no warm-up).
    """
    e = np.random.default_rng(seed).standard_normal(n)
    if stationary_start and n:
        e[0] /= np.sqrt(1.0 - phi**2)
    # The recursion as a recursive filter: the same operations as the loop.
    return loc + lfilter([1.0], [1.0, -phi], e)


def ar1_lognormal(n: int, phi: float, seed: int) -> np.ndarray:
    """``exp`` of a standard-normal AR(1) series: positive, dependent data."""
    return np.exp(ar1(n, phi, seed))
