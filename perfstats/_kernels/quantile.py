"""NumPy's default ("linear", Hyndman & Fan type 7) quantile, for numba.

Kept bit-for-bit equal to ``numpy.quantile`` so that an interval's estimate
and the resampled statistics use the same definition.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np


@nb.njit(cache=True, inline="always")
def lerp(a: float, b: float, t: float) -> float:
    """NumPy's interpolation: exact at both ends, evaluated from the nearer end."""
    diff = b - a
    if t >= 0.5:
        return b - diff * (1.0 - t)
    return a + diff * t


@nb.njit(cache=True, inline="always")
def linear_position(m: int, q: float) -> tuple[int, int, float]:
    """Lower rank, upper rank and weight of quantile ``q`` among ``m`` sorted values."""
    h = (m - 1) * q
    lo = int(math.floor(h))
    g = h - lo
    if lo >= m - 1:
        return m - 1, m - 1, 0.0
    if lo < 0:
        return 0, 0, 0.0
    return lo, lo + 1, g


@nb.njit(cache=True, inline="always")
def column_into(values: np.ndarray, j: int, col: np.ndarray) -> bool:
    """Copy column ``j`` of ``values`` into ``col``; whether it holds a NaN."""
    nan = False
    # Unsigned indices: numba then tests none for being negative.
    uj = np.uint64(j)
    for i in range(values.shape[0]):
        ui = np.uint64(i)
        v = values[ui, uj]
        col[ui] = v
        if v != v:
            nan = True
    return nan


@nb.njit(cache=True)
def sorted_quantiles(sorted_x: np.ndarray, qs: np.ndarray) -> np.ndarray:
    """Quantiles ``qs`` of an already sorted sample."""
    m = sorted_x.size
    out = np.empty(qs.size)
    for i in range(qs.size):
        lo, hi, g = linear_position(m, qs[i])
        out[i] = lerp(sorted_x[lo], sorted_x[hi], g)
    return out
