"""Standard normal and exponential variates by the ziggurat method.

The resampling kernels draw their Gamma gaps (Marsaglia & Tsang) from
normals and exponentials; with Box-Muller and ``-log(u)`` four
transcendental functions per quantile and resample were most of the cost
of an order-statistic chain. The ziggurat covers the density with
:data:`LAYERS` strips of equal area: a draw picks a strip with the low bits
of one 64-bit output and a position in it with the high bits, and is
accepted without any function call unless it falls in a strip's wedge or
in the tail (about 1 % of normal draws, 1.1 % of exponential ones), where
the exact density decides. The variates are exact, not approximations.

The strips are computed here from the densities (no published tables are
copied): for a given outer edge ``r`` each strip's inner edge follows from
the equal-area condition, and ``r`` is found by bisection so that the top
strip closes at the mode.

References
----------
.. [1] G. Marsaglia and W. W. Tsang, "The ziggurat method for generating
   random variables," Journal of Statistical Software 5(8), 2000.
.. [2] J. A. Doornik, "An improved ziggurat method to generate normal
   random samples," University of Oxford technical report, 2005.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numba as nb
import numpy as np

from .random import next_u64, unit_float

LAYERS = 256
_INV53 = 1.0 / 9007199254740992.0
_S11 = np.uint64(11)
_S8 = np.uint64(8)
_LOW8 = np.uint64(LAYERS - 1)
_BIT8 = np.uint64(1 << 8)


def _strips(
    density: Callable[[float], float],
    inverse: Callable[[float], float],
    tail_area: Callable[[float], float],
    lo: float,
    hi: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Edges ``x[0] > x[1] > ... > x[LAYERS] = 0`` and densities ``f[i] = density(x[i])``.

    Strip 0 is the base rectangle ``[0, r] x [0, f(r)]`` plus the tail
    beyond ``r``, given the width ``x[0] = area / f(r)`` of a rectangle of
    the same area; strip ``i >= 1`` spans heights ``f(x[i])`` to
    ``f(x[i + 1])`` over ``[0, x[i]]``.
    """

    def close(r: float) -> tuple[float, np.ndarray]:
        area = r * density(r) + tail_area(r)
        x = np.empty(LAYERS + 1)
        x[0] = area / density(r)
        x[1] = r
        for i in range(1, LAYERS):
            y = density(x[i]) + area / x[i]
            if y >= 1.0:
                # The strips reach the mode too early: r is too small.
                return y - 1.0 + (LAYERS - i), x
            x[i + 1] = inverse(y)
        # How far the last strip overshoots (> 0) or falls short of the mode.
        return density(x[LAYERS - 1]) + area / x[LAYERS - 1] - 1.0, x

    while True:
        mid = 0.5 * (lo + hi)
        if not lo < mid < hi:
            # Adjacent doubles: hi is the first r whose strips all fit.
            break
        excess, _ = close(mid)
        if excess > 0.0:
            lo = mid
        else:
            hi = mid
    _, x = close(hi)
    x[LAYERS] = 0.0
    f = np.array([density(v) for v in x])
    return x, f


def _normal_tables() -> tuple[np.ndarray, np.ndarray]:
    return _strips(
        lambda v: math.exp(-0.5 * v * v),
        lambda y: math.sqrt(-2.0 * math.log(y)),
        lambda r: math.sqrt(math.pi / 2.0) * math.erfc(r / math.sqrt(2.0)),
        3.0,
        4.5,
    )


def _exponential_tables() -> tuple[np.ndarray, np.ndarray]:
    return _strips(lambda v: math.exp(-v), lambda y: -math.log(y), lambda r: math.exp(-r), 6.0, 9.0)


NORMAL_X, NORMAL_F = _normal_tables()
EXP_X, EXP_F = _exponential_tables()
#: Outer edges of the base strips: where the tails start.
NORMAL_R = float(NORMAL_X[1])
EXP_R = float(EXP_X[1])


@nb.njit(cache=True, inline="always")
def _open_unit(state: np.uint64) -> tuple[np.uint64, float]:
    state, v = next_u64(state)
    return state, (np.float64(v >> _S11) + 0.5) * _INV53


@nb.njit(cache=True)
def _normal_slow(state: np.uint64, i: int, x: float) -> tuple[np.uint64, float, bool]:
    """Strip ``i``'s tail or wedge for the candidate ``x`` (> 0): the value, or a rejection."""
    if i == 0:
        # Beyond r: Marsaglia's tail method, exact for the normal tail.
        while True:
            state, u1 = _open_unit(state)
            state, u2 = _open_unit(state)
            a = -math.log(u1) / NORMAL_R
            if -2.0 * math.log(u2) > a * a:
                return state, NORMAL_R + a, True
    state, u = _open_unit(state)
    y = NORMAL_F[i] + u * (NORMAL_F[i + 1] - NORMAL_F[i])
    return state, x, y < math.exp(-0.5 * x * x)


@nb.njit(cache=True, inline="always")
def normal(state: np.uint64) -> tuple[np.uint64, float]:
    """A standard normal variate; advances ``state``."""
    while True:
        state, v = next_u64(state)
        i = np.int64(v & _LOW8)
        negative = (v & _BIT8) != np.uint64(0)
        x = unit_float(v) * NORMAL_X[i]
        if x < NORMAL_X[i + 1]:
            return state, -x if negative else x
        state, x, ok = _normal_slow(state, i, x)
        if ok:
            return state, -x if negative else x


@nb.njit(cache=True)
def _exponential_slow(state: np.uint64, i: int, x: float) -> tuple[np.uint64, float, bool]:
    """Strip ``i``'s tail or wedge for the candidate ``x``: the value, or a rejection."""
    if i == 0:
        # The exponential forgets: beyond r it is r plus a fresh exponential.
        state, u = _open_unit(state)
        return state, EXP_R - math.log(u), True
    state, u = _open_unit(state)
    y = EXP_F[i] + u * (EXP_F[i + 1] - EXP_F[i])
    return state, x, y < math.exp(-x)


@nb.njit(cache=True, inline="always")
def exponential(state: np.uint64) -> tuple[np.uint64, float]:
    """An Exp(1) variate; advances ``state``."""
    while True:
        state, v = next_u64(state)
        i = np.int64(v & _LOW8)
        x = unit_float(v) * EXP_X[i]
        if x < EXP_X[i + 1]:
            return state, x
        state, x, ok = _exponential_slow(state, i, x)
        if ok:
            return state, x
