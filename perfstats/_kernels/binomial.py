"""Binomial tail quantiles for the distribution-free order-statistic interval.

The number of sample points below the true q-quantile is Binomial(n, q), so
the ranks of an exact interval are binomial quantiles (Le Boudec 2010,
"Performance Evaluation of Computer and Communication Systems", Sec. 2.2).
"""

from __future__ import annotations

import math

import numba as nb

# Probabilities beyond this many standard deviations from the mode are below
# exp(-800): zero in float64, so the sums skip them.
_SPAN_SD = 40.0


@nb.njit(cache=True)
def binomial_quantile_ranks(n: int, p: float, tail: float) -> tuple[int, int]:
    """``(ppf(tail), isf(tail))`` of Binomial(n, p), as SciPy defines them.

    ``ppf(t)`` is the smallest k with ``P(X <= k) >= t``; ``isf(t)`` the
    smallest k with ``P(X > k) <= t``. Both tails are summed from their own
    end so that small probabilities keep full relative precision.
    """
    if p <= 0.0:
        return 0, 0
    if p >= 1.0:
        return n, n
    mode = int(math.floor((n + 1) * p))
    if mode > n:
        mode = n
    sd = math.sqrt(n * p * (1.0 - p))
    span = int(_SPAN_SD * sd) + 40
    lo = max(0, mode - span)
    hi = min(n, mode + span)
    log_p = math.log(p)
    log_q = math.log1p(-p)
    lg_n = math.lgamma(n + 1.0)

    # ppf: cumulate from the left end of the window.
    cdf = 0.0
    ppf = hi
    for k in range(lo, hi + 1):
        cdf += math.exp(
            lg_n - math.lgamma(k + 1.0) - math.lgamma(n - k + 1.0) + k * log_p + (n - k) * log_q
        )
        if cdf >= tail:
            ppf = k
            break
    # isf: P(X > k) cumulated from the right end.
    sf = 0.0
    isf = lo
    for k in range(hi, lo - 1, -1):
        if sf > tail:
            isf = k + 1
            break
        sf += math.exp(
            lg_n - math.lgamma(k + 1.0) - math.lgamma(n - k + 1.0) + k * log_p + (n - k) * log_q
        )
    else:
        isf = lo
    return ppf, isf
