"""Ranks of order-statistic intervals (exact binomial and normal approximation)."""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .binomial import binomial_quantile_ranks


@nb.njit(cache=True)
def order_bounds(
    sorted_x: np.ndarray, qs: np.ndarray, tail: float
) -> tuple[np.ndarray, np.ndarray]:
    """Exact distribution-free bounds: ranks ``ppf(tail) - 1`` and ``isf(tail)``.

    The same ranks as ``scipy.stats.quantile_test(...).confidence_interval``;
    a rank outside the sample gives an infinite bound.
    """
    n = sorted_x.size
    lows = np.empty(qs.size)
    highs = np.empty(qs.size)
    for i in range(qs.size):
        ppf, isf = binomial_quantile_ranks(n, qs[i], tail)
        lo = ppf - 1
        lows[i] = sorted_x[lo] if lo >= 0 else -math.inf
        highs[i] = sorted_x[isf] if isf < n else math.inf
    return lows, highs


@nb.njit(cache=True)
def normal_order_bounds(
    sorted_x: np.ndarray, qs: np.ndarray, z: float
) -> tuple[np.ndarray, np.ndarray]:
    """SuperFlow's "general" interval: normal-approximation ranks (Le Boudec 2010).

    0-based ranks ``rint(n p - z sqrt(n p (1-p)))`` and
    ``rint(1 + n p + z sqrt(n p (1-p)))``, as in SuperFlow's reference code;
    where that code refuses (lower rank <= 0 or upper rank >= n) the whole
    interval is unbounded.
    """
    n = sorted_x.size
    lows = np.empty(qs.size)
    highs = np.empty(qs.size)
    for i in range(qs.size):
        p = qs[i]
        half = z * math.sqrt(n * p * (1.0 - p))
        lo = np.rint(n * p - half)
        hi = np.rint(1.0 + n * p + half)
        if lo <= 0 or hi >= n:
            lows[i] = -math.inf
            highs[i] = math.inf
        else:
            lows[i] = sorted_x[int(lo)]
            highs[i] = sorted_x[int(hi)]
    return lows, highs
