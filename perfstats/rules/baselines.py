"""The two baselines Metior was compared with: BasicBT and CoV.

He et al., "Performance Testing for Cloud Computing with Dependent Data
Bootstrapping" (ASE 2021; He et al. 2021), Section IV-A:
*BasicBT* stops when the i.i.d. bootstrap confidence interval of the
statistic is within the maximum allowed error (Maricq et al., OSDI 2018);
*CoV* stops when the coefficient of variation of the data has stopped
changing (Laaber et al.). Metior found both stop too early on cloud data
(97% / 89% accurate tests on AWS, 78% / 61% on Chameleon for the mean).

References
----------
.. [He2021] He et al., "Performance Testing for Cloud Computing with Dependent Data
   Bootstrapping" (Metior), ASE 2021; see the References of :mod:`perfstats.rules.metior`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._quantiles import Statistic, point_estimate
from .._rng import RNGLike
from .._validation import check_int, check_positive
from ..precision.bootstrap import bootstrap_distribution
from ._options import check_estimate, check_resampling, resampling_config
from ._seeds import CURRENT, judgement_seed
from ._wording import pct, reaches, statistic_label
from .base import Rule
from .decision import Decision


class BasicBootstrap(Rule):
    """BasicBT: stop when the i.i.d. bootstrap CI of the statistic is within ``error``.

    The percentile interval of ``n_resamples`` i.i.d. bootstrap replicates of
    the statistic must lie strictly inside ``estimate * (1 -/+ error)``. It
    ignores the dependence between consecutive runs, which is why Metior
    (He et al., ASE 2021, Section II) finds its intervals too narrow on cloud
    data.

    Parameters
    ----------
    error : float, default 0.03
        Maximum allowed relative error.
    level : float, default 0.95
        Confidence level of the interval.
    statistic : {"mean", "median"} or float, default "mean"
        The statistic; a float is a quantile in (0, 1) (``"p90"`` also works).
    interval : int, default 5
        Runs between judgements.
    min_n : int, default 10
        Never stop on fewer runs (at least 2).
    n_resamples : int, default 1000
        Bootstrap resamples.
    rng : None, int or numpy.random.Generator
        Seeds the resamples. One base seed is drawn when the rule is built, so
        ``check`` is a pure function of the data.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.rules import BasicBootstrap
    >>> x = np.random.default_rng(1).normal(100.0, 1.0, size=50)
    >>> BasicBootstrap(error=0.03, rng=0).check(x).stop
    True
    >>> BasicBootstrap(error=0.0001, rng=0).check(x).reason
    'mean CI reaches 0.3% from the mean; needs under 0.01%'
    """

    name = "BasicBT"

    def __init__(
        self,
        *,
        error: float = 0.03,
        level: float = 0.95,
        statistic: Statistic = "mean",
        interval: int = 5,
        min_n: int = 10,
        n_resamples: int = 1000,
        rng: RNGLike = None,
    ) -> None:
        self.error, self.level, self.statistic = check_estimate(error, level, statistic)
        self._interval = check_int(interval, "interval", minimum=1)
        self._min_n = check_int(min_n, "min_n", minimum=2)
        self.n_resamples, self.seed = check_resampling(n_resamples, rng, minimum=2)

    def config(self) -> dict[str, Any]:
        return {
            "error": self.error,
            "level": self.level,
            "statistic": self.statistic,
            "interval": self._interval,
            "min_n": self._min_n,
            **resampling_config(self),
        }

    def _decide(self, data: np.ndarray) -> Decision:
        n = int(data.size)
        estimate = point_estimate(data, self.statistic)
        replicates = bootstrap_distribution(
            data,
            self.statistic,
            n_resamples=self.n_resamples,
            rng=judgement_seed(self.seed, n, CURRENT),
        )
        alpha = 1.0 - self.level
        low, high = (float(v) for v in np.quantile(replicates, [alpha / 2, 1.0 - alpha / 2]))
        scale = abs(estimate)
        spread = max(estimate - low, high - estimate)
        rel = spread / scale if scale > 0 else math.inf
        band = scale * self.error
        stop = estimate - band < low and high < estimate + band
        label = statistic_label(self.statistic)
        verdict = "within the allowed" if stop else "needs under"
        reason = f"{label} CI {reaches(rel, f'from the {label}')}; {verdict} {pct(self.error)}"
        details = {"estimate": estimate, "low": low, "high": high, "rel_error": rel}
        details["error"] = self.error
        return self._decision(stop, n, reason, details)


class CoV(Rule):
    """CoV: stop when the coefficient of variation has settled.

    At a judgement on ``n`` runs the coefficient of variation (sample standard
    deviation over mean) is computed for the data at each of the last
    ``window`` judgements, ``x[:n]``, ``x[:n - interval]``, ...; the rule
    stops when they differ by at most ``threshold`` (an absolute difference of
    CoV values). The criterion of Laaber et al.'s dynamic reconfiguration of
    microbenchmarks, used as a baseline by Metior (He et al., ASE 2021,
    Section IV-A), where it stopped earliest and was least accurate.

    Parameters
    ----------
    threshold : float, default 0.01
        Largest accepted spread of the last ``window`` CoV values.
    window : int, default 5
        Number of judgements compared (at least 2).
    interval : int, default 5
        Runs between judgements.

    Examples
    --------
    >>> from perfstats.rules import CoV
    >>> rule = CoV(threshold=0.01, window=2, interval=2)
    >>> rule.min_n
    4
    >>> rule.check([10.0, 12.0, 10.0, 12.0]).details["covs"]
    [0.10497277621629558, 0.128564869306645]
    >>> rule.check([10.0, 12.0, 10.0, 12.0]).stop
    False
    """

    name = "CoV"

    def __init__(self, *, threshold: float = 0.01, window: int = 5, interval: int = 5) -> None:
        self.threshold = check_positive(threshold, "threshold")
        self.window = check_int(window, "window", minimum=2)
        self._interval = check_int(interval, "interval", minimum=1)

    @property
    def min_n(self) -> int:
        # The oldest CoV in the window needs a standard deviation: 2 points.
        return max(self.window * self._interval, (self.window - 1) * self._interval + 2)

    def config(self) -> dict[str, Any]:
        return {"threshold": self.threshold, "window": self.window, "interval": self._interval}

    def _decide(self, data: np.ndarray) -> Decision:
        n = int(data.size)
        sizes = [n - k * self._interval for k in range(self.window)]
        covs = [_cov(data[:m]) for m in sizes]
        spread = max(covs) - min(covs)
        stop = spread <= self.threshold
        verdict = (
            f"within the {self.threshold:.4f} threshold"
            if stop
            else f"needs at most {self.threshold:.4f}"
        )
        reason = (
            f"CoV moved by {spread:.4f} over the last {self.window} judgements "
            f"(now {covs[0]:.4f}); {verdict}"
        )
        details = {"covs": covs, "sizes": sizes, "spread": spread, "threshold": self.threshold}
        return self._decision(stop, n, reason, details)


def _cov(x: np.ndarray) -> float:
    mean = float(np.mean(x))
    sd = float(np.std(x, ddof=1))
    if mean == 0.0:
        return 0.0 if sd == 0.0 else math.inf
    return sd / abs(mean)
