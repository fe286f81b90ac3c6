"""Politis-White automatic block length: autocovariances, lag choice, b_opt.

The numbers follow ``arch.bootstrap.optimal_block_length`` (arch 8.0), which
is the contract; :mod:`perfstats.precision.blocklength` documents where arch departs
from the papers. Work is O(n * m) for the lags actually needed: arch computes
every lag up to ``m_max`` (three dot products each), while here lags are
computed only until the lag search has settled and the lag window is
covered, so an i.i.d.-like series needs about ten lags, not ``m_max``, and
the sums of squares that normalise the autocorrelations cost O(n) in all.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .._validation import unit_scale

_unit_scale = nb.njit(cache=True)(unit_scale)


@nb.njit(cache=True)
def centred(x: np.ndarray) -> np.ndarray:
    """``x`` minus its mean; the mean is summed with Neumaier compensation."""
    n = x.shape[0]
    total = 0.0
    comp = 0.0
    for i in range(n):
        v = x[i]
        t = total + v
        if abs(total) >= abs(v):
            comp += (total - t) + v
        else:
            comp += (v - t) + total
        total = t
    mean = (total + comp) / n
    out = np.empty(n)
    for i in range(n):
        out[i] = x[i] - mean
    return out


@nb.njit(cache=True, fastmath={"reassoc"})
def lag_product(eps: np.ndarray, k: int) -> float:
    """``sum_j eps[j] * eps[j - k]`` over ``j = k .. n-1``.

    ``reassoc`` (and nothing else from fastmath) lets LLVM split the sum into
    SIMD lanes: as fast as single-threaded BLAS ``ddot``. BLAS itself (what
    arch calls) is not used on purpose: OpenBLAS splits dot products above
    10,000 points over threads, which makes the last bits depend on the
    thread count and oversubscribes the cores when replays already run one
    trace per core.
    """
    n = eps.shape[0]
    a = eps[k:]
    b = eps[: n - k]
    s = 0.0
    for j in range(n - k):
        s += a[j] * b[j]
    return s


@nb.njit(cache=True)
def limits(n: int) -> tuple[int, int, float]:
    """``(K_N, m_max, b_max)`` for a series of ``n`` points, as arch sets them."""
    kn = max(5, int(math.log10(n)))
    m_max = math.ceil(math.sqrt(n)) + kn
    b_max = float(math.ceil(min(3.0 * math.sqrt(n), n / 3.0)))
    return kn, m_max, b_max


@nb.njit(cache=True)
def block_lengths(x: np.ndarray) -> tuple[float, float, int, int, float]:
    """:func:`politis_white` of any finite series, constant or not, in one call.

    A constant series gets 1 for both lengths and ``m = 0``. Otherwise the
    series is scaled by the power of two of
    :func:`perfstats._validation.power_of_two_scale` (exact, so the lengths
    are those of the unscaled series wherever its squares neither overflow
    nor underflow) before :func:`politis_white`. One compiled call replaces
    four NumPy passes and their Python overhead, which cost several times
    the lengths themselves at a thousand points.
    """
    n = x.shape[0]
    lo = x[0]
    hi = x[0]
    for i in range(1, n):
        v = x[i]
        if v < lo:
            lo = v
        if v > hi:
            hi = v
    if lo == hi:
        _, m_max, b_max = limits(n)
        return 1.0, 1.0, 0, m_max, b_max
    return politis_white(x * _unit_scale(max(abs(lo), abs(hi))))


@nb.njit(cache=True)
def politis_white(x: np.ndarray) -> tuple[float, float, int, int, float]:
    """Optimal stationary and circular block lengths of a non-constant series.

    Returns ``(b_sb, b_cb, m, m_max, b_max)``. The caller guarantees
    ``len(x) >= m_max + 2`` (true for n >= 11) and that ``x`` is not
    constant.
    """
    n = x.shape[0]
    eps = centred(x)
    kn, m_max, b_max = limits(n)
    cv = 2.0 * math.sqrt(math.log10(n) / n)

    # arch normalises the lag-i cross product by the sums of squares of
    # eps[i+1:] and eps[:n-i-1]. Both are accumulated from the shortest
    # segment outwards (adding, never subtracting from the total) so that
    # short segments keep their precision.
    sq_after = np.empty(m_max + 1)  # sum(eps[i+1:] ** 2)
    sq_before = np.empty(m_max + 1)  # sum(eps[:n-i-1] ** 2)
    s = 0.0
    for j in range(m_max + 1, n):
        s += eps[j] * eps[j]
    sq_after[m_max] = s
    for i in range(m_max - 1, -1, -1):
        s += eps[i + 1] * eps[i + 1]
        sq_after[i] = s
    s = 0.0
    for j in range(n - m_max - 1):
        s += eps[j] * eps[j]
    sq_before[m_max] = s
    for i in range(m_max - 1, -1, -1):
        s += eps[n - i - 2] * eps[n - i - 2]
        sq_before[i] = s

    cross = np.empty(m_max + 1)
    opt_m = -1
    searched = 0  # lags [0, searched) of ``cross`` are filled
    run = 0  # consecutive insignificant autocorrelations ending at lag k
    # arch tests windows of kn lags starting at 0 .. m_max - kn.
    for k in range(m_max):
        cross[k] = lag_product(eps, k)
        searched = k + 1
        denom = math.sqrt(sq_after[k] * sq_before[k])
        # A zero denominator makes arch's correlation nan or inf, which is
        # never "insignificant"; numba would raise on the division instead.
        if denom > 0.0 and abs(cross[k]) / denom < cv:
            run += 1
        else:
            run = 0
        if run == kn:
            opt_m = k - kn + 1
            break

    if opt_m >= 0:
        m = min(2 * max(opt_m, 1), m_max)
    else:
        m = m_max
    for k in range(searched, m + 1):
        cross[k] = lag_product(eps, k)

    # Flat-top (trapezoidal) lag window lambda(t) = min(1, 2(1 - |t|)).
    g = 0.0
    lr_acv = cross[0] / n
    for k in range(1, m + 1):
        lam = 1.0 if k / m <= 0.5 else 2.0 * (1.0 - k / m)
        acv = cross[k] / n
        g += 2.0 * lam * k * acv
        lr_acv += 2.0 * lam * acv
    d_sb = 2.0 * lr_acv**2
    d_cb = 4.0 / 3.0 * lr_acv**2
    if d_sb == 0.0:
        # Long-run variance estimated as exactly zero: the ratio is unbounded
        # (arch: inf, capped to b_max; or nan if g is zero too).
        return b_max, b_max, m, m_max, b_max
    cube_n = n ** (1.0 / 3.0)
    b_sb = ((2.0 * g**2) / d_sb) ** (1.0 / 3.0) * cube_n
    b_cb = ((2.0 * g**2) / d_cb) ** (1.0 / 3.0) * cube_n
    return min(b_sb, b_max), min(b_cb, b_max), m, m_max, b_max
