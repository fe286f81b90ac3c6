"""A stopping rule on confidence sequences for quantiles: intervals that survive optional stopping.

A rule that looks at its intervals every few runs and stops at the first
narrow one reports an interval chosen *because* it was narrow; a fixed-size
95% interval seen at a data-dependent time covers less often than 95%. A
*confidence sequence* is a sequence of intervals ``C_1, C_2, ...`` with
``P(q in C_t for every t) >= level``, so the interval at any stopping time,
however it was chosen, keeps its level.

For a quantile ``q_p`` of i.i.d. runs the count ``S_t = #{i <= t: X_i <= q_p}``
is a Binomial(t, p) walk. Mixing its likelihood ratio over a Beta prior on
the success probability gives the beta-binomial martingale

``M_t(s) = B(r p + s, r (1 - p) + t - s) / B(r p, r (1 - p)) / (p^s (1 - p)^(t - s))``,

and by Ville's inequality ``P(sup_t M_t(S_t) >= 1 / alpha) <= alpha``. The
counts ``s`` with ``M_t(s) < 1 / alpha`` form an integer range ``[a_t, b_t]``
(``log M_t`` is convex in ``s``), and ``S_t(q) in [a_t, b_t]`` holds exactly
for ``q`` between the order statistics ``X_(a_t)`` and ``X_(b_t + 1)``: that is
the confidence sequence of Howard & Ramdas (Theorem 1 with the beta-binomial
boundary). Ties cannot hurt it: ``#{X_i <= q_p}`` is at least, and
``#{X_i < q_p}`` at most, a Binomial(t, p) walk driven by the same uniforms.

The prior's strength ``r`` (``intrinsic_time``) is the number of runs at
which the boundary is tightest: a prior as strong as ``r`` runs spends the
error budget where tests usually stop.

References
----------
.. [HR2022] S. R. Howard and A. Ramdas, "Sequential estimation of quantiles
   with applications to A/B-testing and best-arm identification",
   Bernoulli 28(3), 2022.
.. [HRMS2021] S. R. Howard, A. Ramdas, J. McAuliffe and J. Sekhon,
   "Time-uniform, nonparametric, nonasymptotic confidence sequences",
   The Annals of Statistics 49(2), 2021.
.. [Ville1939] J. Ville, "Etude critique de la notion de collectif",
   Gauthier-Villars, 1939.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
from scipy.special import gammaln

from .._quantiles import parse_quantiles
from .._validation import check_int, check_level, check_positive
from ..precision.interval import Interval
from ._details import interval_details
from ._wording import pct, quantile_label, reaches
from .base import Rule
from .decision import Decision

METHOD = "confidence-sequence"


def count_bounds(t: int, p: float, alpha: float, intrinsic_time: float) -> tuple[int, int]:
    """The counts ``s`` of ``t`` runs at or below ``q_p`` that the sequence accepts.

    Parameters
    ----------
    t : int
        Runs so far (at least 1).
    p : float
        The quantile, in (0, 1).
    alpha : float
        Error probability over all ``t`` at once, in (0, 1).
    intrinsic_time : float
        Strength ``r`` of the Beta(``r p``, ``r (1 - p)``) mixing prior.

    Returns
    -------
    tuple of int
        ``(a, b)``: ``M_t(s) < 1 / alpha`` exactly for ``a <= s <= b``. The
        quantile's interval is ``[X_(a), X_(b + 1)]`` (order statistics counted
        from 1; ``X_(0) = -inf`` and ``X_(t + 1) = inf``).

    Examples
    --------
    >>> from perfstats.rules.confidence_sequence import count_bounds
    >>> count_bounds(300, 0.5, 0.05, 300.0)
    (119, 181)
    >>> count_bounds(10, 0.5, 0.05, 300.0)  # too few runs to bound either side
    (0, 10)
    """
    t = check_int(t, "t", minimum=1)
    p = check_level(p, "p")
    alpha = check_level(alpha, "alpha")
    r = check_positive(intrinsic_time, "intrinsic_time")
    return _count_bounds(t, p, alpha, r)


@lru_cache(maxsize=8192)
def _count_bounds(t: int, p: float, alpha: float, r: float) -> tuple[int, int]:
    # The bounds depend on t and the options only, never on the data: a
    # replay asks for the same few hundred again and again.
    s = np.arange(t + 1, dtype=np.float64)
    a0, b0 = r * p, r * (1.0 - p)
    log_m = (
        gammaln(a0 + s)
        + gammaln(b0 + t - s)
        - gammaln(r + t)
        - (gammaln(a0) + gammaln(b0) - gammaln(r))
        - s * math.log(p)
        - (t - s) * math.log1p(-p)
    )
    inside = np.flatnonzero(log_m < math.log(1.0 / alpha))
    # s = t p (rounded either way) is near the minimum of log M_t, which is
    # at most 0 there, so the accepted range is never empty.
    return int(inside[0]), int(inside[-1])


def quantile_sequence_interval(
    data: Any, q: float, *, level: float = 0.95, intrinsic_time: float = 300.0
) -> Interval:
    """The confidence sequence's interval for quantile ``q`` after all of ``data``.

    Parameters
    ----------
    data : array_like
        1-D finite runs, i.i.d. from the distribution whose quantile is sought.
    q : float
        The quantile, in (0, 1).
    level : float, default 0.95
        Probability that the quantile lies in the interval at every size at once.
    intrinsic_time : float, default 300.0
        Strength of the mixing prior: the size at which the intervals are tightest.

    Returns
    -------
    Interval
        With ``method="confidence-sequence"``; a bound is infinite while the
        data are too few to support it.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.rules.confidence_sequence import quantile_sequence_interval
    >>> x = np.arange(1.0, 301.0)
    >>> iv = quantile_sequence_interval(x, 0.5)
    >>> iv.low, iv.high  # X_(119) and X_(182)
    (119.0, 182.0)
    """
    x = np.asarray(data, dtype=np.float64)
    if x.ndim != 1 or x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError("data must be a non-empty 1-D array of finite numbers")
    p = check_level(q, "q")
    return _interval(x, p, check_level(level), check_positive(intrinsic_time, "intrinsic_time"))


def _interval(x: np.ndarray, p: float, level: float, r: float) -> Interval:
    t = int(x.size)
    a, b = _count_bounds(t, p, 1.0 - level, r)
    ranks = [k for k in (a - 1, b) if 0 <= k < t]
    part = np.partition(x, ranks) if ranks else x
    low = float(part[a - 1]) if a >= 1 else -math.inf
    high = float(part[b]) if b + 1 <= t else math.inf
    return Interval(
        estimate=float(np.quantile(x, p)),
        low=low,
        high=high,
        level=level,
        method=METHOD,
        n=t,
        q=p,
    )


class QuantileSequence(Rule):
    """Stop when every quantile's confidence-sequence interval lies within ``error``.

    The same accuracy check as SuperFlow's (each interval strictly inside
    ``(p (1 - r), p (1 + r))`` around its observed percentile ``p``), on
    intervals that keep their level at whatever time the check passes: the
    sequence covers the quantile at every size at once, so the interval the
    rule stops on is as trustworthy as a fixed-size one. No stability check
    on the previous runs is needed for that.

    Parameters
    ----------
    level : float, default 0.95
        Time-uniform level of each quantile's sequence (of all of them at
        once with ``joint=True``).
    error : float, default 0.01
        The allowed relative half-width, as SuperFlow's ``r``.
    q : quantile or sequence of quantiles, default (0.25, 0.5, 0.75)
        The quantiles checked, in any spelling of :mod:`perfstats._quantiles`.
    intrinsic_time : float, default 300.0
        Strength of the Beta mixing prior in runs: the sequence is tightest
        near this many runs and a little wider elsewhere.
    joint : bool, default False
        Split ``1 - level`` evenly over the quantiles (Bonferroni), so that
        all of them are covered at once.
    interval : int, default 5
        Runs per run interval.
    min_n : int, default 10
        The fewest runs on which to stop.

    References
    ----------
    S. R. Howard and A. Ramdas, "Sequential estimation of quantiles with
    applications to A/B-testing and best-arm identification", Bernoulli
    28(3), 2022; see :mod:`perfstats.rules.confidence_sequence`.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.rules import QuantileSequence
    >>> x = np.random.default_rng(0).normal(100.0, 1.0, size=600)
    >>> rule = QuantileSequence()
    >>> rule.check(x).stop
    True
    >>> rule.check(x[:20])  # doctest: +NORMALIZE_WHITESPACE
    Decision(continue at n=20, rule='Quantile-CS':
             P25 sequence interval is unbounded (too few runs for its ranks);
             needs within 1.0%)
    """

    name = "Quantile-CS"

    def __init__(
        self,
        *,
        level: float = 0.95,
        error: float = 0.01,
        q: float | str | Sequence[float | str] = (0.25, 0.5, 0.75),
        intrinsic_time: float = 300.0,
        joint: bool = False,
        interval: int = 5,
        min_n: int = 10,
    ) -> None:
        self.level = check_level(level)
        self.error = check_positive(error, "error")
        qs, scalar = parse_quantiles(q, "q")
        self.q = (float(qs[0]),) if scalar else tuple(float(v) for v in qs)
        if any(not (0.0 < v < 1.0) for v in self.q):
            raise ValueError(f"q must lie strictly between 0 and 1, got {self.q!r}")
        self.intrinsic_time = check_positive(intrinsic_time, "intrinsic_time")
        if not isinstance(joint, bool):
            raise ValueError(f"joint must be True or False, got {joint!r}")
        self.joint = joint
        self._interval = check_int(interval, "interval", minimum=1)
        self._min_n = check_int(min_n, "min_n", minimum=1)

    @property
    def quantile_level(self) -> float:
        """The level of each quantile's sequence (Bonferroni-split when ``joint``)."""
        if self.joint:
            return 1.0 - (1.0 - self.level) / len(self.q)
        return self.level

    def config(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "error": self.error,
            "q": self.q,
            "intrinsic_time": self.intrinsic_time,
            "joint": self.joint,
            "interval": self._interval,
            "min_n": self._min_n,
        }

    def intervals(self, data: Any) -> tuple[Interval, ...]:
        """Every quantile's sequence interval after all of ``data``.

        Parameters
        ----------
        data : array_like
            1-D finite runs, in any order (the interval depends on the counts
            only).

        Returns
        -------
        tuple of Interval
            One per quantile of ``q``, in that order, at :attr:`quantile_level`
            and with ``method="confidence-sequence"``; a bound is infinite while
            the runs are too few to support it.

        Raises
        ------
        ValueError
            If ``data`` is not a non-empty 1-D array of finite numbers.

        Examples
        --------
        >>> from perfstats.rules import QuantileSequence
        >>> [iv.q for iv in QuantileSequence(q=[0.5, 0.9]).intervals(range(1, 101))]
        [0.5, 0.9]
        """
        x = np.asarray(data, dtype=np.float64)
        if x.ndim != 1 or x.size == 0 or not np.all(np.isfinite(x)):
            raise ValueError("data must be a non-empty 1-D array of finite numbers")
        level = self.quantile_level
        return tuple(_interval(x, p, level, self.intrinsic_time) for p in self.q)

    def _decide(self, data: np.ndarray) -> Decision:
        n = int(data.size)
        intervals = self.intervals(data)
        stop = all(iv.within(self.error) for iv in intervals)
        widest = max(intervals, key=lambda iv: iv.rel_error)
        label = quantile_label(widest.q)
        if stop:
            reason = (
                f"every sequence interval is within {pct(self.error)} "
                f"(widest: {label}, {pct(widest.rel_error)})"
            )
        else:
            reach = (
                "is unbounded (too few runs for its ranks)"
                if not widest.bounded
                else reaches(widest.rel_error, f"from the {label}")
            )
            reason = f"{label} sequence interval {reach}; needs within {pct(self.error)}"
        details = {
            "intervals": interval_details(intervals),
            "error": self.error,
            "level": self.quantile_level,
        }
        return self._decision(stop, n, reason, details)
