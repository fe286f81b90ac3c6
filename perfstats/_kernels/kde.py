"""Gaussian kernel density on a regular grid, exact to rounding, without n x grid exp calls.

The direct evaluation (``scipy.stats.gaussian_kde``) calls ``exp`` once per
(sample point, grid point) pair. On a regular grid the kernel of one sample
point satisfies a two-term recurrence: moving one grid step away multiplies
the term by a ratio ``r``, and ``r`` itself is multiplied by a constant
``g = exp(-delta**2)`` (``delta`` the step in bandwidth units). So we sweep
the grid once to the right and once to the left; each sweep keeps, for a
window of sorted sample points, the current term and ratio (two
multiplications and one addition per pair, vectorised over the window).

Exactness: the recurrence is restarted from ``exp`` every ``RESTART`` steps,
which bounds its relative rounding error by about ``RESTART**2 * eps / 2``
(about 1.5e-11). A sample point leaves the window once its term falls below
``REL`` times the term of the nearest point on its side; it stays negligible
(it is farther, so its term decays faster), and all dropped terms together
are below ``n * REL`` (1e-12 for a million points) of the density. Grid
points whose density is below ``DEEP`` (far tails and gaps between
clusters, where the reference's ``exp`` underflows into subnormals or to
exactly 0) are recomputed term by term in the reference's own order of
operations, so that a density is 0 exactly where the reference gives 0.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .._validation import FloatArray

RESTART = 512
REL = 1e-18
DEEP = 1e-200
# exp(-x/2) is exactly 0 for x > 2 * 745.14; beyond this distance (in
# bandwidths) every term the reference adds is 0.
_REACH = 38.7


# Reassociating the sum lets LLVM vectorise it (the order of additions moves
# the result by a few ulps); slicing first lets it prove every index >= 0.
@nb.njit(cache=True, fastmath={"reassoc"})
def _window_sum_step(t: FloatArray, r: FloatArray, first: int, stop: int, g: float) -> float:
    """Sum the window's terms, then move every term one grid step further."""
    tw = t[first:stop]
    rw = r[first:stop]
    acc = 0.0
    for j in range(tw.size):
        acc += tw[j]
        tw[j] *= rw[j]
        rw[j] *= g
    return acc


@nb.njit(cache=True, inline="always")
def _sweep_buffers(n: int, delta: float) -> tuple[FloatArray, FloatArray, float, float]:
    """A sweep's work arrays and step constants.

    The terms and their step factors (one each per sample point), then
    ``delta**2 / 2`` and ``exp(-delta**2)``, the factor's own change per step.
    """
    return np.empty(n), np.empty(n), 0.5 * delta * delta, math.exp(-delta * delta)


@nb.njit(cache=True, inline="always")
def _start_terms(
    t: FloatArray, r: FloatArray, j: int, u: float, delta: float, half_d2: float
) -> None:
    """Term ``j`` at distance ``u`` from the grid point, and its factor for the next step."""
    t[j] = math.exp(-0.5 * u * u)
    r[j] = math.exp(-u * delta - half_d2)


@nb.njit(cache=True)
def _sweep_right(s: FloatArray, xg: FloatArray, delta: float, out: FloatArray) -> None:
    """Add, at every grid point, the terms of the sample points at or left of it."""
    n = s.size
    t, r, half_d2, g = _sweep_buffers(n, delta)
    first = 0
    stop = 0
    for k in range(xg.size):
        x = xg[k]
        restart = k % RESTART == 0
        lo = first if restart else stop
        while stop < n and s[stop] <= x:
            stop += 1
        for j in range(lo, stop):
            _start_terms(t, r, j, x - s[j], delta, half_d2)
        # Sorted points: terms grow towards the nearest point, stop - 1.
        while first < stop and t[first] < REL * t[stop - 1]:
            first += 1
        out[k] += _window_sum_step(t, r, first, stop, g)


@nb.njit(cache=True)
def _sweep_left(s: FloatArray, xg: FloatArray, delta: float, out: FloatArray) -> None:
    """Add, at every grid point, the terms of the sample points strictly right of it."""
    n = s.size
    t, r, half_d2, g = _sweep_buffers(n, delta)
    last = n  # active window is s[start:last]
    start = n
    m = xg.size
    for i in range(m):
        k = m - 1 - i
        x = xg[k]
        restart = i % RESTART == 0
        hi = last if restart else start
        while start > 0 and s[start - 1] > x:
            start -= 1
        for j in range(start, hi):
            _start_terms(t, r, j, s[j] - x, delta, half_d2)
        while last > start and t[last - 1] < REL * t[start]:
            last -= 1
        out[k] += _window_sum_step(t, r, start, last, g)


@nb.njit(cache=True)
def _direct(s: FloatArray, x: float, weight: float, norm: float) -> float:
    """One grid point exactly as scipy's gaussian_kernel_estimate sums it."""
    lo = np.searchsorted(s, x - _REACH)
    hi = np.searchsorted(s, x + _REACH, side="right")
    est = 0.0
    for j in range(lo, hi):
        residual = s[j] - x
        arg = residual * residual
        est += weight * (math.exp(-arg / 2) * norm)
    return est


@nb.njit(cache=True)
def grid_density(s: FloatArray, xg: FloatArray, delta: float, norm: float) -> FloatArray:
    """Gaussian KDE of the sorted, whitened sample ``s`` at the whitened grid ``xg``.

    ``xg`` is regular with spacing ``delta`` (both in bandwidth units);
    ``norm`` is ``1 / (sqrt(2 pi) * bandwidth)``. Each point has weight 1/n.
    """
    acc = np.zeros(xg.size)
    _sweep_right(s, xg, delta, acc)
    _sweep_left(s, xg, delta, acc)
    weight = 1.0 / s.size
    out = np.empty(xg.size)
    for k in range(xg.size):
        if acc[k] < DEEP:
            out[k] = _direct(s, xg[k], weight, norm)
        else:
            out[k] = acc[k] * norm * weight
    return out


@nb.njit(cache=True)
def symmetric_kl_bits(p: FloatArray, q: FloatArray, step: float) -> float:
    """Sum over the grid of ``p*step*log2(p/q) + q*step*log2(q/p)``, as PT4Cloud writes it.

    Kept in that form (not ``(p-q)*step*log2(p/q)``) so that a ratio that
    overflows makes the divergence infinite exactly where the reference's
    does. A point where exactly one density is 0, or whose term is not
    finite, makes the divergence infinite; a point where both are 0 adds
    nothing (0 log 0/0 = 0). Each term is non-negative in exact arithmetic;
    the total is clamped at 0 against rounding.
    """
    total = 0.0
    for k in range(p.size):
        pk = p[k]
        qk = q[k]
        if pk == 0.0 or qk == 0.0:
            if pk != qk:
                return math.inf
            continue
        term = pk * step * math.log2(pk / qk) + qk * step * math.log2(qk / pk)
        if not term < math.inf:  # +inf, or nan from inf - inf
            return math.inf
        total += term
    return max(total, 0.0)
