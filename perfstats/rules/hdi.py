"""SHARP's HDI rule: stop when the highest-density interval is narrow."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._deprecation import renamed
from .._rng import RNGLike
from .._validation import check_choice, check_fraction, check_positive
from ..precision.bootstrap import bootstrap_distribution
from ..precision.highest_density import hdi
from ._limits import check_limits, limits_config, settle_under
from ._options import check_resampling, resampling_config
from ._seeds import CURRENT, judgement_seed
from ._wording import pct
from .base import Rule
from .decision import Decision

OF = ("sample", "mean")


class HDI(Rule):
    """Stop when the HDI's width over the mean is below ``threshold``.

    The HDI is :func:`perfstats.hdi` (ArviZ's definition), SHARP's rule for
    log-normal data.

    ``of="sample"`` (default) takes it of the runs themselves, as SHARP's
    code does. That interval estimates where ``probability`` of the runs
    fall, a property of the distribution: it does **not** shrink as runs are
    added. So the rule either stops at ``min_n`` (the distribution is
    narrower than ``threshold`` of its mean) or runs to ``max_n``; it judges
    the spread, not how well the runs pin it down.

    ``of="mean"`` takes it of the i.i.d. bootstrap distribution of the mean
    (``n_resamples`` resamples), whose width falls like ``1/sqrt(n)``: the
    variant that converges.

    Parameters
    ----------
    error : float, default 0.1
        Largest accepted ``(high - low) / mean``.
    probability : float, default 0.89
        Probability mass of the HDI (ArviZ's and SHARP's default).
    of : {"sample", "mean"}, default "sample"
        The distribution whose HDI is taken (see above).
    min_n : int, default 15
        Never stop on fewer runs.
    max_n : int, default 200
        Stop here in any case, saying so.
    interval : int, default 1
        Runs between judgements; SHARP judges after every run.
    n_resamples : int, default 1000
        Bootstrap resamples for ``of="mean"``.
    rng : None, int or numpy.random.Generator
        Seeds the bootstrap of ``of="mean"``; each judgement is seeded from
        one base seed and the sample size, so ``check`` is pure.

    References
    ----------
    Mittal et al., "SHARP: A Distribution-Based Framework for Reproducible Performance
    Evaluation", manuscript (undated): its stopping rules, Section IV-c; the full entry is
    in the References of :mod:`perfstats.rules.sharp`.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.rules import HDI
    >>> x = np.random.default_rng(0).lognormal(4.0, 0.2, size=200)
    >>> HDI().check(x[:15]).stop          # the runs spread over ~60% of the mean
    False
    >>> HDI().check(x).reason
    'reached max_n = 200 runs without the HDI of the sample narrowing under 10.0% of the mean'
    >>> HDI(of="mean", rng=0).check(x[:40])  # doctest: +NORMALIZE_WHITESPACE
    Decision(stop at n=40, rule='SHARP-HDI':
             the 89% HDI of the bootstrapped mean spans 7.5% of the mean,
             below the 10.0% threshold)
    """

    name = "SHARP-HDI"

    @renamed(threshold="error")
    def __init__(
        self,
        *,
        error: float = 0.1,
        probability: float = 0.89,
        of: str = "sample",
        min_n: int = 15,
        max_n: int = 200,
        interval: int = 1,
        n_resamples: int = 1000,
        rng: RNGLike = None,
    ) -> None:
        self.error = check_positive(error, "error")
        self.probability = check_fraction(probability, "probability")
        if not 0.0 < self.probability < 1.0:
            raise ValueError(f"probability must be in (0, 1), got {probability!r}")
        self.of = check_choice(of, "of", OF)
        # floor(probability * n) must be at least 1 for an interval to exist.
        self._min_n, self.max_n, self._interval = check_limits(
            min_n, max_n, interval, least_min_n=max(2, int(np.ceil(1 / self.probability)))
        )
        self.n_resamples, self.seed = check_resampling(n_resamples, rng, minimum=10)

    def config(self) -> dict[str, Any]:
        return {
            "error": self.error,
            "probability": self.probability,
            "of": self.of,
            **limits_config(self),
            **resampling_config(self),
        }

    def _decide(self, data: np.ndarray) -> Decision:
        n = int(data.size)
        mean = float(np.mean(data))
        if self.of == "sample":
            draws = data
            what = "HDI of the sample"
        else:
            draws = bootstrap_distribution(
                data,
                "mean",
                n_resamples=self.n_resamples,
                rng=judgement_seed(self.seed, n, CURRENT),
            )
            what = "HDI of the bootstrapped mean"
        low, high = hdi(draws, probability=self.probability)
        width = (high - low) / mean if mean > 0.0 else float("inf")
        details = {
            "low": low,
            "high": high,
            "mean": mean,
            "relative_width": width,
            "threshold": self.error,
            "of": self.of,
        }
        label = f"{self.probability:.0%} {what}"
        return settle_under(
            self,
            n,
            width,
            self.error,
            said=f"the {label} spans {pct(width)} of the mean",
            mean=mean,
            relative="a width relative to it",
            details=details,
            what=f"the {what} narrowing under {pct(self.error)} of the mean",
        )
