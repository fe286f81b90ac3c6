"""Exact-bootstrap percentile interval: infinitely many resamples, in closed form.

The statistic of a resample is NumPy's default (linear) quantile at ``q``:
with ``h = (n - 1) * q``, ``k = floor(h)``, ``g = h - k``, it is
``lerp(X*_(k), X*_(k+1), g)``. The interval is ``[F^-1(a), F^-1(1 - a)]``
with ``F`` the CDF of that statistic under i.i.d. resampling and
``F^-1(p) = inf{t : F(t) >= p}``; no random numbers are involved.

Everything is done on ranks: a resample draws indices ``J`` into the
sorted sample ``s``, and ``C_i``, the number of draws ``<= i``, is
``Binomial(n, (i + 1) / n)``. Write ``J_(k)`` for the order statistics of
the drawn indices. Then

* ``P(J_(k) <= i) = P(C_i >= k + 1)`` (a binomial tail), and
* for ``i < j``, ``P(J_(k) = i, J_(k+1) = j)`` factorises: exactly ``k + 1``
  draws are ``<= i`` with at least one at ``i`` and the other
  ``m = n - k - 1`` are ``>= j`` with at least one at ``j``:
  ``C(n, k+1) [((i+1)/n)^(k+1) - (i/n)^(k+1)] [((n-j)/n)^m - ((n-1-j)/n)^m]``.

Hence, with ``I(t)`` the last index with ``s_I <= t``,
``F(t) = P(J_(k+1) <= I) + sum_{i <= I} A_i (E_I - E_{J_i(t)})`` where
``J_i(t)`` is the last ``j`` with ``lerp(s_i, s_j, g) <= t`` and ``A_i``,
``E_j`` are the two factors above (rescaled). The answer lies between
``s_i1`` and ``s_i2``, the first indices where ``P(J_(k) <= i)`` and
``P(J_(k+1) <= i)`` reach ``p``; inside that bracket only a window of
indices around it carries probability above ``1e-19`` (the gap
``J_(k+1) - J_(k)`` is geometric-like), so each evaluation of ``F`` costs
O(window), independent of ``n``. A bisection on ``t`` that tracks the
atoms just below and above the probe returns the exact atom value.

The binomial tails use the continued fraction of the regularised
incomplete beta function (modified Lentz) with its prefactor written as a
binomial probability computed by Loader's saddle-point method (Stirling
errors and the deviance ``bd0``), which keeps about 1e-14 relative
accuracy at ``n = 10**6`` where ``lgamma`` differences would lose five
digits.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .quantile import lerp

_LOG_2PI = math.log(2.0 * math.pi)
# Probability mass below which the window of ranks is cut; far below the
# rounding error of the binomial tails it is added to.
_NEGLIGIBLE = 1e-19
_CF_TOL = 1e-15
_CF_TINY = 1e-300
_CF_MAXIT = 1_000_000
_STIRLING_CUT = 15


def _small_stirling_errors() -> np.ndarray:
    """``stirlerr(j)`` for ``j = 0 .. 15`` without cancellation.

    ``stirlerr(j) - stirlerr(j + 1) = (2j + 1) atanh(1 / (2j + 1)) - 1``,
    a series of positive terms in ``u = 1 / (2j + 1)``; summing those down
    from the asymptotic value at 15 keeps full relative precision, where
    ``lgamma(j + 1) - (j + 1/2) log j + j - log(2 pi) / 2`` cancels ten
    digits away.
    """
    table = np.zeros(_STIRLING_CUT + 1)
    table[_STIRLING_CUT] = _stirling_series(float(_STIRLING_CUT))
    for j in range(_STIRLING_CUT - 1, 0, -1):
        u2 = 1.0 / (2.0 * j + 1.0) ** 2
        term = u2
        total = 0.0
        odd = 3.0
        while term > 1e-20:
            total += term / odd
            term *= u2
            odd += 2.0
        table[j] = table[j + 1] + total
    # stirlerr(0) is never used (the pmf handles r = 0 and r = n apart).
    return table


def _stirling_series(x: float) -> float:
    """Asymptotic Stirling error for ``x >= 15`` (error below 1e-17)."""
    xx = x * x
    return (
        1.0 / 12.0
        - (1.0 / 360.0 - (1.0 / 1260.0 - (1.0 / 1680.0 - (1.0 / 1188.0) / xx) / xx) / xx) / xx
    ) / x


_SMALL_STIRLERR = _small_stirling_errors()


@nb.njit(cache=True)
def _stirlerr(j: int) -> float:
    """``log(j!) - ((j + 1/2) log j - j + log(2 pi) / 2)`` for integer ``j >= 1``."""
    if j <= _STIRLING_CUT:
        return _SMALL_STIRLERR[j]
    x = float(j)
    xx = x * x
    return (
        1.0 / 12.0
        - (1.0 / 360.0 - (1.0 / 1260.0 - (1.0 / 1680.0 - (1.0 / 1188.0) / xx) / xx) / xx) / xx
    ) / x


@nb.njit(cache=True)
def _bd0(x: float, mean: float) -> float:
    """Deviance term ``x log(x / mean) + mean - x``, accurate when ``x ~ mean``.

    Near ``mean`` the closed form cancels; the series in
    ``v = (x - mean) / (x + mean)`` keeps relative precision there.
    """
    if x == 0.0:
        return mean
    diff = x - mean
    if abs(diff) < 0.1 * (x + mean):
        v = diff / (x + mean)
        total = diff * v
        ej = 2.0 * x * v
        v2 = v * v
        for j in range(1, 1000):
            ej *= v2
            nxt = total + ej / (2 * j + 1)
            if nxt == total:
                return nxt
            total = nxt
        return total
    return x * math.log(x / mean) + mean - x


@nb.njit(cache=True)
def binom_pmf(r: int, n: int, nx: float, ny: float) -> float:
    """``P(X = r)`` for ``X ~ Binomial(n, nx / n)``, given ``nx + ny = n``.

    Parameters
    ----------
    r, n : int
        Count and number of trials, ``0 <= r <= n``.
    nx, ny : float
        ``n * p`` and ``n * (1 - p)``, passed separately so that callers on
        the grid ``p = (i + 1) / n`` give them exactly.

    Returns
    -------
    float
        The probability, to about 1e-15 relative (Loader's method).
    """
    if nx <= 0.0:
        return 1.0 if r == 0 else 0.0
    if ny <= 0.0:
        return 1.0 if r == n else 0.0
    if r == 0:
        return math.exp(-_bd0(float(n), ny) - nx)
    if r == n:
        return math.exp(-_bd0(float(n), nx) - ny)
    lc = (
        _stirlerr(n) - _stirlerr(r) - _stirlerr(n - r) - _bd0(float(r), nx) - _bd0(float(n - r), ny)
    )
    lf = _LOG_2PI + math.log(float(r)) + math.log1p(-float(r) / n)
    return math.exp(lc - 0.5 * lf)


@nb.njit(cache=True, inline="always")
def _lentz_step(aa: float, c: float, d: float) -> tuple[float, float]:
    """One term ``aa`` of a continued fraction into Lentz's ``c`` and ``d`` (``d`` inverted)."""
    d = 1.0 + aa * d
    if abs(d) < _CF_TINY:
        d = _CF_TINY
    c = 1.0 + aa / c
    if abs(c) < _CF_TINY:
        c = _CF_TINY
    return c, 1.0 / d


@nb.njit(cache=True)
def _beta_cf(a: float, b: float, x: float) -> float:
    """Continued fraction of ``I_x(a, b)`` (modified Lentz), without prefactor."""
    qab = a + b
    qap = a + 1.0
    qam = a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    if abs(d) < _CF_TINY:
        d = _CF_TINY
    d = 1.0 / d
    h = d
    for it in range(1, _CF_MAXIT):
        m = float(it)
        m2 = 2.0 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        c, d = _lentz_step(aa, c, d)
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        c, d = _lentz_step(aa, c, d)
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _CF_TOL:
            break
    return h


@nb.njit(cache=True)
def binom_upper_tail(r: int, n: int, nx: float, ny: float) -> float:
    """``P(X >= r)`` for ``X ~ Binomial(n, nx / n)``, given ``nx + ny = n``.

    Parameters
    ----------
    r, n : int
        Threshold and number of trials.
    nx, ny : float
        ``n * p`` and ``n * (1 - p)`` (see :func:`binom_pmf`).

    Returns
    -------
    float
        The tail probability: ``I_p(r, n - r + 1)``, accurate to about
        1e-14 relative for ``n`` up to 10**6 (the continued fraction is
        used on the side where it converges and is not a difference).
    """
    if r <= 0:
        return 1.0
    if r > n:
        return 0.0
    if nx <= 0.0:
        return 0.0
    if ny <= 0.0:
        return 1.0
    x = nx / n
    y = ny / n
    a = float(r)
    b = float(n - r + 1)
    if x * (a + b + 2.0) < a + 1.0:
        # x^a y^b / (a B(a, b)) equals y * P(X = r).
        return y * binom_pmf(r, n, nx, ny) * _beta_cf(a, b, x)
    # 1 - I_y(b, a); x^a y^b / (b B(a, b)) equals x * P(X = r - 1).
    return 1.0 - x * binom_pmf(r - 1, n, nx, ny) * _beta_cf(b, a, y)


@nb.njit(cache=True)
def _rank_tail(n: int, r: int, i: int) -> float:
    """``P(C_i >= r)``: at least ``r`` of ``n`` draws have index ``<= i``."""
    if i < 0:
        return 0.0 if r > 0 else 1.0
    if i >= n - 1:
        return 1.0 if r <= n else 0.0
    return binom_upper_tail(r, n, float(i + 1), float(n - 1 - i))


@nb.njit(cache=True)
def _normal_quantile_guess(p: float) -> float:
    """Standard normal quantile to about 5e-4 (Abramowitz & Stegun 26.2.23).

    Only a starting rank for the search, so a rough value suffices.
    """
    tail = p if p < 0.5 else 1.0 - p
    if tail <= 0.0:
        return -40.0 if p < 0.5 else 40.0
    t = math.sqrt(-2.0 * math.log(tail))
    z = t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (
        1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t
    )
    return -z if p < 0.5 else z


@nb.njit(cache=True)
def _first_rank(n: int, r: int, p: float) -> tuple[int, float]:
    """Smallest ``i`` with ``P(C_i >= r) >= p``, and that probability.

    Starts from a normal approximation of the Beta(r, n - r + 1) quantile,
    gallops away from it and finishes by bisection, so a good guess costs
    two or three tail evaluations.
    """
    lo = -1  # P(C_-1 >= r) = 0 < p
    hi = n - 1  # P(C_{n-1} >= r) = 1 >= p
    tail_hi = 1.0
    mu = r / (n + 1.0)
    sd = math.sqrt(mu * (1.0 - mu) / (n + 2.0))
    xg = mu + _normal_quantile_guess(p) * sd
    guess = int(math.ceil(n * min(max(xg, 0.0), 1.0))) - 1
    guess = min(max(guess, 0), hi)
    value = _rank_tail(n, r, guess)
    if value >= p:
        hi = guess
        tail_hi = value
        step = 1
        while hi - step > lo:
            j = hi - step
            value = _rank_tail(n, r, j)
            if value >= p:
                hi = j
                tail_hi = value
                step *= 2
            else:
                lo = j
                break
    else:
        lo = guess
        step = 1
        while lo + step < hi:
            j = lo + step
            value = _rank_tail(n, r, j)
            if value >= p:
                hi = j
                tail_hi = value
                break
            lo = j
            step *= 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        value = _rank_tail(n, r, mid)
        if value >= p:
            hi = mid
            tail_hi = value
        else:
            lo = mid
    return hi, tail_hi


@nb.njit(cache=True)
def _cdf_probe(
    s: np.ndarray,
    g: float,
    t: float,
    i1: int,
    whi: int,
    ilo: int,
    jhi: int,
    tail1: np.ndarray,
    ahat: np.ndarray,
    e: np.ndarray,
) -> tuple[float, float, float]:
    """``F(t)`` for ``s_i1 <= t < s_i2``, the largest atom ``<= t``, the smallest ``> t``.

    ``whi = i2 - 1``; ``tail1[I - i1] = P(J_(k+1) <= I)``; ``ahat[i - ilo]`` and ``e[w - ilo]``
    are the rescaled factors of the pair probabilities (see the module
    docstring). Pairs outside ``[ilo, jhi]`` carry less than 1e-19.
    """
    top = i1
    while top < whi and s[top + 1] <= t:
        top += 1
    cdf = tail1[top - i1]
    below = s[top]
    above = s[top + 1]
    e_top = e[top - ilo]
    j = top
    for i in range(top, ilo - 1, -1):
        si = s[i]
        while j < jhi and lerp(si, s[j + 1], g) <= t:
            j += 1
        # Rounding may break monotonicity in i by an ulp; re-check downwards.
        while j > top and lerp(si, s[j], g) > t:
            j -= 1
        if j > top:
            cdf += ahat[i - ilo] * (e_top - e[j - ilo])
            v = lerp(si, s[j], g)
            if v > below:
                below = v
        if j < jhi:
            v = lerp(si, s[j + 1], g)
            if v < above:
                above = v
    return cdf, below, above


@nb.njit(cache=True)
def _inverse_cdf_order(s: np.ndarray, k: int, p: float) -> float:
    """``F^-1(p)`` when the statistic is the order statistic ``X*_(k)``."""
    n = s.shape[0]
    return s[_first_rank(n, k + 1, p)[0]]


@nb.njit(cache=True)
def _inverse_cdf_lerp(s: np.ndarray, k: int, g: float, p: float) -> float:
    """``F^-1(p)`` for ``lerp(X*_(k), X*_(k+1), g)`` with ``0 < g < 1``."""
    n = s.shape[0]
    m = n - k - 1
    i1, tail0 = _first_rank(n, k + 1, p)
    if s[i1] == s[n - 1]:
        return s[i1]
    # i2: first i with P(J_(k+1) <= i) >= p; it is i1 or a few ranks above
    # (the two tails differ by one binomial probability, about the
    # increment per rank), so scan up, getting P(C_i >= k + 2) as
    # P(C_i >= k + 1) - P(C_i = k + 1): one pmf instead of a second tail.
    tail1 = np.empty(8)
    i2 = i1
    while True:
        below1 = tail0 - binom_pmf(k + 1, n, float(i2 + 1), float(n - 1 - i2))
        if below1 >= p:
            break
        if i2 - i1 == tail1.shape[0]:
            grown = np.empty(2 * tail1.shape[0])
            grown[: tail1.shape[0]] = tail1
            tail1 = grown
        tail1[i2 - i1] = below1
        i2 += 1
        tail0 = _rank_tail(n, k + 1, i2)
    if s[i1] == s[i2]:
        return s[i1]
    whi = i2 - 1

    # Window: P(J_(k) < ilo, J_(k+1) > i1) and P(J_(k) <= whi,
    # J_(k+1) > jhi) are both below _NEGLIGIBLE.
    ref = i1
    p_ref = binom_pmf(k + 1, n, float(ref + 1), float(n - 1 - ref))
    log_neg = math.log(_NEGLIGIBLE)
    if p_ref > _NEGLIGIBLE:
        scale = math.exp((log_neg - math.log(p_ref)) / (k + 1))
        ilo = int(math.floor((ref + 1) * scale))
    else:
        ilo = ref
    ilo = min(max(ilo, 0), ref)
    reach = (n - 1 - whi) * (1.0 - math.exp(log_neg / m))
    jhi = min(n - 1, whi + 1 + int(math.ceil(reach)))

    # e[w] = ((n-1-w) / (n-1-ref))^m, ahat[i] = p_ref * (c_i - c_{i-1}) with
    # c_w = ((w+1) / (ref+1))^(k+1): both as powers of 1 + small integer
    # ratios, so log1p keeps their relative precision at any n.
    e = np.empty(jhi - ilo + 1)
    span = float(n - 1 - ref)
    for w in range(ilo, jhi + 1):
        if w == n - 1:
            e[w - ilo] = 0.0
        else:
            e[w - ilo] = math.exp(m * math.log1p(-(w - ref) / span))
    ahat = np.empty(whi - ilo + 1)
    kp1 = float(k + 1)
    denom = float(ref + 1)
    c_prev = 0.0
    if ilo > 0:
        c_prev = math.exp(kp1 * math.log1p((ilo - 1 - ref) / denom))
    for i in range(ilo, whi + 1):
        c_cur = math.exp(kp1 * math.log1p((i - ref) / denom))
        ahat[i - ilo] = p_ref * (c_cur - c_prev)
        c_prev = c_cur

    lo_t = s[i1]
    hi_t = s[i2]
    cdf, _, above_lo = _cdf_probe(s, g, lo_t, i1, whi, ilo, jhi, tail1, ahat, e)
    if cdf >= p:
        return lo_t
    # Invariant: F(lo_t) < p <= F(hi_t), hi_t an atom, above_lo the first
    # atom after lo_t; done when no atom lies strictly between.
    while above_lo < hi_t:
        mid = 0.5 * lo_t + 0.5 * hi_t
        if mid <= lo_t or mid >= hi_t:
            mid = above_lo
        cdf, below, above = _cdf_probe(s, g, mid, i1, whi, ilo, jhi, tail1, ahat, e)
        if cdf >= p:
            hi_t = below
        else:
            lo_t = mid
            above_lo = above
    return hi_t


@nb.njit(cache=True)
def exact_bootstrap_bounds(
    sorted_x: np.ndarray, qs: np.ndarray, level: float
) -> tuple[np.ndarray, np.ndarray]:
    """Exact i.i.d. percentile-bootstrap interval of sample quantiles.

    Parameters
    ----------
    sorted_x : numpy.ndarray
        The sample, float64, sorted ascending, at least one value.
    qs : numpy.ndarray
        Quantiles in ``[0, 1]`` (float64); the statistic is
        ``numpy.quantile(resample, q)`` (linear method).
    level : float
        Confidence level in ``(0, 1)``.

    Returns
    -------
    low, high : numpy.ndarray
        ``F^-1(a)`` and ``F^-1(1 - a)`` with ``a = (1 - level) / 2`` and
        ``F`` the exact CDF of the statistic over all ``n**n`` equally
        likely resamples; each bound is an attainable value of the
        statistic.

    Notes
    -----
    No validation: the caller checks the inputs. Cost per quantile is a
    handful of binomial tails (O(sqrt(n)) each) plus O(1) work on a window
    of about a hundred ranks.
    """
    n = sorted_x.shape[0]
    a = (1.0 - level) / 2.0
    nq = qs.shape[0]
    low = np.empty(nq)
    high = np.empty(nq)
    for idx in range(nq):
        h = (n - 1) * qs[idx]
        k = int(math.floor(h))
        g = h - k
        if k >= n - 1:
            # NumPy takes the last element when h reaches n - 1.
            k = n - 1
            g = 0.0
        if g == 0.0:
            low[idx] = _inverse_cdf_order(sorted_x, k, a)
            high[idx] = _inverse_cdf_order(sorted_x, k, 1.0 - a)
        else:
            low[idx] = _inverse_cdf_lerp(sorted_x, k, g, a)
            high[idx] = _inverse_cdf_lerp(sorted_x, k, g, 1.0 - a)
    return low, high
