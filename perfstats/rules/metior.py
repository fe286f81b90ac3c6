"""Metior: stop when more runs no longer move the statistic, by block bootstrap.

He, Liu, Lama et al., "Performance Testing for Cloud Computing with
Dependent Data Bootstrapping" (ASE 2021; He et al. 2021),
Section III-B and Figure 6b. ``S`` holds the runs of the previous intervals
and ``S'`` all runs. Both are block-bootstrapped (the Politis-White block
length, so the dependence between consecutive runs survives resampling; by
default the larger of the lengths of ``S`` and ``S'``, as the paper says, or
that of ``S`` alone, as the reference code does);
for each pair of resamples the relative difference of the statistic,
``delta* = (theta*(S) - theta*(S')) / theta*(S')``, is taken, and the test
stops when the maximum possible change is below the allowed error ``e``
with confidence ``cl``.

Two forms of "maximum possible change" exist. The public reference code
requires the ``cl`` quantile of ``|delta*|`` to be at most ``e``
(``form="absolute"``, the default); the paper requires the central ``cl``
interval ``(L, H)`` of ``delta*`` to satisfy ``-e < L`` and ``H < e``
(``form="interval"``).

References
----------
.. [He2021] S. He, T. Liu, P. Lama, J. Lee, I. K. Kim and W. Wang, "Performance
   Testing for Cloud Computing with Dependent Data Bootstrapping", 36th
   IEEE/ACM International Conference on Automated Software Engineering
   (ASE), 2021.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._kernels.select import relative_change_quantiles
from .._quantiles import Statistic
from .._rng import RNGLike
from .._validation import check_choice, check_int
from ..precision.blocklength import BLOCK_KINDS, MIN_SIZE, optimal_block_length
from ..precision.bootstrap import nested_named_distributions
from ._options import check_estimate, check_resampling
from ._seeds import CURRENT, PREVIOUS, judgement_key
from ._wording import pct, statistic_label
from .base import Rule
from .decision import Decision

FORMS = ("absolute", "interval")
#: Sets the Politis-White block length is estimated from: the previous runs
#: ``S`` only (the public reference code), or ``S`` and all runs ``S'`` with
#: the larger length kept (the paper, Section III-B: "the block sizes are
#: automatically selected based on the data of S and S'").
BLOCK_FROM = ("both", "previous")


class Metior(Rule):
    """Stop when the block-bootstrapped change of the statistic is within ``error``.

    Parameters
    ----------
    error : float, default 0.03
        Maximum allowed relative change ``e``.
    level : float, default 0.95
        Confidence level ``cl``.
    statistic : {"median", "mean"} or float, default "median"
        The performance result; a float is a quantile in (0, 1) (``"p90"``
        also works). SuperFlow evaluated Metior on the median, Metior's paper
        on the mean and the 90th percentile.
    interval : int, default 5
        Runs per run interval (Metior: one day of runs); the first judgement
        is at ``2 * interval``.
    n_resamples : int, default 1000
        Resample pairs.
    min_block_length : int, default 1
        Floor on the block length ``max(ceil(b*_circular), min_block_length)``;
        Metior's own evaluation floors it at six hours of runs. Sets too short
        for Politis-White (fewer than 11 points) use this floor.
    form : {"absolute", "interval"}, default "absolute"
        ``"absolute"``: the ``level`` quantile of ``|delta*|`` is at most
        ``error`` (the reference code); ``"interval"``: ``-error < L`` and
        ``H < error`` for the central ``level`` interval ``(L, H)`` of
        ``delta*`` (the paper).
    block_kind : {"moving", "circular", "stationary", "superflow"}, default "moving"
        Block scheme of :func:`perfstats.precision.bootstrap.bootstrap_distribution`;
        ``"superflow"`` is the moving-block variant of SuperFlow's reference
        code.
    block_from : {"both", "previous"}, default "both"
        Where ``b*_circular`` comes from: the larger of the lengths of the
        previous runs ``S`` and of all runs ``S'`` (the paper: "the block
        sizes are automatically selected based on the data of S and S'"), or
        ``S`` only (the public reference code). One length serves both
        resamples either way. Both are compared on the cloud traces in
        ``benchmarks/results/reproduce_metior_block_both_stride10.txt`` and
        ``reproduce_metior_block_previous_stride10.txt``.
    rng : None, int or numpy.random.Generator
        Seeds the resamples. One base seed is drawn when the rule is built, so
        ``check`` is a pure function of the data.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.rules import Metior
    >>> x = np.random.default_rng(0).normal(100.0, 5.0, size=300)
    >>> Metior(rng=0).check(x).stop
    True
    >>> print(Metior(error=0.001, rng=0).check(x).reason)  # doctest: +NORMALIZE_WHITESPACE
    median of the previous runs differs from all runs by up to 1.1%
    (95% quantile of |delta*|); needs at most 0.1%
    """

    name = "Metior"

    def __init__(
        self,
        *,
        error: float = 0.03,
        level: float = 0.95,
        statistic: Statistic = "median",
        interval: int = 5,
        n_resamples: int = 1000,
        min_block_length: int = 1,
        form: str = "absolute",
        block_kind: str = "moving",
        block_from: str = "both",
        rng: RNGLike = None,
    ) -> None:
        self.error, self.level, self.statistic = check_estimate(error, level, statistic)
        self._interval = check_int(interval, "interval", minimum=1)
        self.min_block_length = check_int(min_block_length, "min_block_length", minimum=1)
        self.form = check_choice(form, "form", FORMS)
        self.block_kind = check_choice(block_kind, "block_kind", BLOCK_KINDS)
        self.block_from = check_choice(block_from, "block_from", BLOCK_FROM)
        # Last: drawing the seed advances a Generator, which a rejected
        # argument must not do.
        self.n_resamples, self.seed = check_resampling(n_resamples, rng, minimum=2)

    @property
    def min_n(self) -> int:
        return 2 * self._interval

    def config(self) -> dict[str, Any]:
        return {
            "error": self.error,
            "level": self.level,
            "statistic": self.statistic,
            "interval": self._interval,
            "n_resamples": self.n_resamples,
            "min_block_length": self.min_block_length,
            "form": self.form,
            "block_kind": self.block_kind,
            "block_from": self.block_from,
            "rng": self.seed,
        }

    def block_length(self, previous: np.ndarray, current: np.ndarray | None = None) -> int:
        """The block length used for both sets.

        It is estimated from ``previous`` and, when ``block_from="both"`` and
        ``current`` (all runs) is given, also from ``current``; the larger
        wins.

        Parameters
        ----------
        previous : numpy.ndarray
            The runs of the previous intervals, ``S``.
        current : numpy.ndarray or None, default None
            All runs, ``S'``; used only with ``block_from="both"``.

        Returns
        -------
        int
            The largest of ``min_block_length`` and the rounded-up circular
            Politis-White length of each set of at least 11 runs (a shorter set
            gives none), capped at the size of ``previous`` (half of it for
            ``block_kind="superflow"``) but never below 1.

        Examples
        --------
        >>> import numpy as np
        >>> from perfstats.rules import Metior
        >>> Metior(min_block_length=4).block_length(np.arange(8.0))  # too short for P-W
        4
        """
        sets = [previous]
        if self.block_from == "both" and current is not None:
            sets.append(current)
        b = self.min_block_length
        for values in sets:
            if values.size >= MIN_SIZE:
                b = max(optimal_block_length(values).block("circular"), b)
        # The reference scheme needs room for one whole block after the
        # n - b possible starts.
        cap = previous.size // 2 if self.block_kind == "superflow" else previous.size
        return max(1, min(b, int(cap)))

    def _decide(self, data: np.ndarray) -> Decision:
        n = int(data.size)
        previous = data[: n - self._interval]
        b = self.block_length(previous, data)
        # The data were validated by ``check`` and the options when the rule
        # was built, so the resamples skip bootstrap_distribution's checks.
        # The previous runs are a prefix of all runs: one sort, and when
        # window tables serve, one set of tables, serve both.
        theta_pre, theta_cur = nested_named_distributions(
            data, int(previous.size), self.statistic, self.n_resamples, b, self.block_kind,
            (judgement_key(self.seed, int(previous.size), PREVIOUS),
             judgement_key(self.seed, n, CURRENT)),
        )  # fmt: skip
        label = statistic_label(self.statistic)
        details: dict[str, Any] = {"block_length": b, "error": self.error, "form": self.form}
        absolute = self.form == "absolute"
        alpha = 1.0 - self.level
        qs = np.array([self.level] if absolute else [alpha / 2, 1.0 - alpha / 2])
        values = relative_change_quantiles(theta_pre, theta_cur, qs, absolute)
        if values.size == 0:
            # A resampled statistic of zero leaves the relative change undefined.
            details["change"] = math.inf
            reason = f"a resampled {label} is zero, so its relative change is undefined"
            return self._decision(False, n, reason, details)
        if absolute:
            change = float(values[0])
            details["change"] = change
            stop = change <= self.error
            verdict = "within the allowed" if stop else "needs at most"
            reason = (
                f"{label} of the previous runs differs from all runs by up to {pct(change)} "
                f"({self.level:.0%} quantile of |delta*|); {verdict} {pct(self.error)}"
            )
        else:
            low, high = float(values[0]), float(values[1])
            details.update({"low": low, "high": high, "change": max(-low, high)})
            stop = -self.error < low and high < self.error
            verdict = "within the allowed" if stop else "needs within"
            reason = (
                f"{self.level:.0%} CI of the {label}'s relative change is "
                f"[{pct(low)}, {pct(high)}]; {verdict} ±{pct(self.error)}"
            )
        return self._decision(stop, n, reason, details)
