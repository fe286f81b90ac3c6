"""SHARP's stopping rules: relative CI width of the mean, and KS between halves.

Mittal, Bruel, Faloutsos, Milojicic & Frachtenberg, "SHARP: a
distribution-based framework for reproducible performance evaluation", Section V-C and
Table IV: the CI rule stops when the 95% right-tailed confidence interval of
the mean is narrower than a fraction T of the mean (T = 0.05 or 0.01); the
KS rule stops when the Kolmogorov-Smirnov statistic between the first and
the second half of the runs drops below T = 0.1.

References
----------
.. [Mittal] V. Mittal, P. Bruel, M. Faloutsos, D. Milojicic and E. Frachtenberg,
   "SHARP: A Distribution-Based Framework for Reproducible Performance
   Evaluation", manuscript, Hewlett Packard Labs and University of California,
   Riverside (undated; its newest reference is from 2023).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._deprecation import renamed
from .._validation import check_int, check_level, check_positive, power_of_two_scale
from ..comparison.similarity import ks
from ._wording import pct, reaches
from .base import Rule
from .decision import Decision


class CIWidth(Rule):
    """SHARP's CI rule: stop when ``t(level, n-1) * s / sqrt(n) / mean < threshold``.

    The half-width of the one-sided (right-tailed) Student-t interval of the
    mean, relative to the mean. SHARP reports that this rule, with either
    threshold, runs longer than needed (Mittal et al., Section V-C).

    Parameters
    ----------
    error : float, default 0.05
        Largest accepted relative half-width (SHARP's T1 = 0.05, T2 = 0.01).
    level : float, default 0.95
        One-sided confidence level.
    min_n : int, default 15
        Never stop on fewer runs (at least 2, for a standard deviation).
    interval : int, default 1
        Runs between judgements; SHARP judges after every run.

    Examples
    --------
    >>> from perfstats.rules import CIWidth
    >>> rule = CIWidth(error=0.05, min_n=5)
    >>> rule.check([100.0, 101.0, 99.0, 100.0, 100.5]).stop
    True
    >>> rule.check([100.0, 150.0, 60.0, 100.0, 120.0])  # doctest: +NORMALIZE_WHITESPACE
    Decision(continue at n=5, rule='SHARP-CI':
             the mean's 95% CI reaches 29.6% of the mean; needs under 5.0%)
    """

    name = "SHARP-CI"

    @renamed(threshold="error")
    def __init__(
        self,
        *,
        error: float = 0.05,
        level: float = 0.95,
        min_n: int = 15,
        interval: int = 1,
    ) -> None:
        self.error = check_positive(error, "error")
        self.level = check_level(level)
        self._min_n = check_int(min_n, "min_n", minimum=2)
        self._interval = check_int(interval, "interval", minimum=1)

    def config(self) -> dict[str, Any]:
        return {
            "error": self.error,
            "level": self.level,
            "min_n": self._min_n,
            "interval": self._interval,
        }

    def _decide(self, data: np.ndarray) -> Decision:
        n = int(data.size)
        # A power-of-two scale (exact) keeps the squares finite near 1e160.
        s = power_of_two_scale(data)
        mean = float(np.mean(data * s)) / s
        sd = float(np.std(data * s, ddof=1)) / s
        # Deferred: scipy.stats takes about a second to import, and every
        # ``perfstats`` command imports the rules to list them.
        from scipy import stats

        t = float(stats.t.ppf(self.level, n - 1))
        half = t * sd / math.sqrt(n)
        details: dict[str, Any] = {
            "mean": mean,
            "sd": sd,
            "t": t,
            "half_width": half,
            "threshold": self.error,
        }
        if mean <= 0.0:
            details["relative_half_width"] = math.inf
            reason = f"the mean is {mean:.6g}; a width relative to it needs a positive mean"
            return self._decision(False, n, reason, details)
        rel = half / mean
        details["relative_half_width"] = rel
        stop = rel < self.error
        verdict = (
            f"below the {pct(self.error)} threshold"
            if stop
            else f"needs under {pct(self.error)}"
        )
        reason = f"the mean's {self.level:.0%} CI {reaches(rel, 'of the mean')}; {verdict}"
        return self._decision(stop, n, reason, details)


class KSHalves(Rule):
    """SHARP's KS rule: stop when KS(first half, second half) < threshold.

    With ``n`` runs the halves are ``x[:n // 2]`` and ``x[n // 2:]``; the
    statistic is the two-sample Kolmogorov-Smirnov distance of
    :func:`perfstats.comparison.similarity.ks`. SHARP reports 89.8% fewer runs than a
    1,000-run ground truth with a KS of 0.104 to it (Mittal et al., Section V-C).

    Parameters
    ----------
    threshold : float, default 0.1
        The KS statistic must be strictly below this.
    min_n : int, default 5
        Never stop on fewer runs (at least 2: one per half).
    interval : int, default 1
        As :class:`CIWidth`.

    Examples
    --------
    >>> from perfstats.rules import KSHalves
    >>> rule = KSHalves(threshold=0.1, min_n=4)
    >>> rule.check([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).details["ks"]
    1.0
    >>> rule.check([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])  # doctest: +NORMALIZE_WHITESPACE
    Decision(continue at n=6, rule='SHARP-KS':
             KS between the first 3 and the last 3 runs is 1.000; needs under 0.100)
    """

    name = "SHARP-KS"

    def __init__(self, *, threshold: float = 0.1, min_n: int = 5, interval: int = 1) -> None:
        self.threshold = check_positive(threshold, "threshold")
        self._min_n = check_int(min_n, "min_n", minimum=2)
        self._interval = check_int(interval, "interval", minimum=1)

    def config(self) -> dict[str, Any]:
        return {"threshold": self.threshold, "min_n": self._min_n, "interval": self._interval}

    def _decide(self, data: np.ndarray) -> Decision:
        n = int(data.size)
        half = n // 2
        result = ks(data[:half], data[half:])
        statistic = float(result.statistic)
        stop = statistic < self.threshold
        verdict = (
            f"below the {self.threshold:.3f} threshold"
            if stop
            else f"needs under {self.threshold:.3f}"
        )
        reason = (
            f"KS between the first {half} and the last {n - half} runs is {statistic:.3f}; "
            f"{verdict}"
        )
        details = {"ks": statistic, "pvalue": float(result.pvalue), "threshold": self.threshold}
        return self._decision(stop, n, reason, details)
