"""SHARP's BB rule: block-bootstrapped means of the current and previous runs agree."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._rng import RNGLike
from .._validation import check_fraction, check_positive
from ..precision.autocorrelation import acf
from ..precision.bootstrap import bootstrap_distribution
from ._limits import check_limits, limits_config, settle
from ._options import check_resampling, resampling_config
from ._seeds import CURRENT, PREVIOUS, judgement_seed
from ._wording import pct, runs
from .base import Rule
from .decision import Decision


def decorrelation_lag(data: np.ndarray, *, cutoff: float = 0.01) -> int:
    """First lag whose |autocorrelation| is below ``cutoff`` (at most ``n // 2``).

    The autocorrelation is :func:`perfstats.acf` (the biased estimator); a
    constant series has none and gets 1.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.rules.block_means import decorrelation_lag
    >>> x = np.arange(40.0) % 4            # autocorrelations 1, -0.155, -0.57, ...
    >>> decorrelation_lag(x, cutoff=0.2), decorrelation_lag(x, cutoff=0.01)
    (1, 20)
    """
    n = int(data.size)
    cap = max(1, n // 2)
    if n < 3 or float(data.max()) == float(data.min()):
        return 1
    r = acf(data, nlags=min(cap, n - 1))
    below = np.flatnonzero(np.abs(r[1:]) < cutoff)
    return int(below[0]) + 1 if below.size else cap


class BlockBootstrapMeans(Rule):
    """Stop when block-bootstrapped means of the current and previous runs agree.

    SHARP's rule for autocorrelated data ("BB"). At ``n`` runs the block
    length ``b`` is the first lag whose absolute autocorrelation (the biased
    estimator, :func:`perfstats.acf`, of the current runs) is below
    ``acf_cutoff``; the current runs and the previous runs (all but the last
    ``interval``) are each moving-block bootstrapped ``n_resamples`` times
    with blocks of ``b``, and the rule stops when the two averages of the
    resampled means differ by at most ``error`` of the previous one.

    Parameters
    ----------
    error : float, default 0.03
        Largest accepted relative difference (SHARP: 3%).
    acf_cutoff : float, default 0.01
        Absolute autocorrelation below which a lag counts as decorrelated.
    min_n : int, default 20
        Never stop on fewer runs.
    max_n : int, default 200
        Stop here in any case, saying so.
    interval : int, default 1
        Runs between judgements; the previous runs are the current runs
        without the last ``interval`` of them.
    n_resamples : int, default 1000
        Resamples per set.
    rng : None, int or numpy.random.Generator
        One base seed; each set is resampled with a seed derived from it, its
        size and its role, so ``check`` is pure.

    References
    ----------
    Mittal et al., "SHARP: A Distribution-Based Framework for Reproducible Performance
    Evaluation", manuscript (undated); see the References of :mod:`perfstats.rules.sharp`.

    H. R. Kunsch, "The Jackknife and the Bootstrap for General Stationary
    Observations", The Annals of Statistics 17(3), 1217-1241, 1989.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.rules import BlockBootstrapMeans
    >>> x = np.random.default_rng(0).normal(100.0, 5.0, size=60)
    >>> d = BlockBootstrapMeans(rng=0).check(x)
    >>> d.stop, d.details["block_length"]
    (True, 15)
    """

    name = "SHARP-BB"

    def __init__(
        self,
        *,
        error: float = 0.03,
        acf_cutoff: float = 0.01,
        min_n: int = 20,
        max_n: int = 200,
        interval: int = 1,
        n_resamples: int = 1000,
        rng: RNGLike = None,
    ) -> None:
        self.error = check_positive(error, "error")
        self.acf_cutoff = check_fraction(acf_cutoff, "acf_cutoff")
        self._min_n, self.max_n, self._interval = check_limits(
            min_n, max_n, interval, least_min_n=3
        )
        self.n_resamples, self.seed = check_resampling(n_resamples, rng, minimum=10)

    def config(self) -> dict[str, Any]:
        return {
            "error": self.error,
            "acf_cutoff": self.acf_cutoff,
            **limits_config(self),
            **resampling_config(self),
        }

    def _boot_mean(self, x: np.ndarray, b: int, role: int) -> float:
        boot = bootstrap_distribution(
            x,
            "mean",
            n_resamples=self.n_resamples,
            block_length=min(b, int(x.size)),
            block_kind="moving",
            rng=judgement_seed(self.seed, int(x.size), role),
        )
        return float(np.mean(boot))

    def _decide(self, data: np.ndarray) -> Decision:
        n = int(data.size)
        previous = data[: n - self._interval]
        if previous.size < 2:
            reason = (
                f"{runs(n)} so far; comparing with the previous runs needs more than "
                f"{runs(self._interval + 1)}"
            )
            return self._decision(False, n, reason, {})
        b = decorrelation_lag(data, cutoff=self.acf_cutoff)
        cur = self._boot_mean(data, b, CURRENT)
        pre = self._boot_mean(previous, b, PREVIOUS)
        change = abs(cur - pre) / abs(pre) if pre != 0.0 else math.inf
        details = {
            "block_length": b,
            "current_mean": cur,
            "previous_mean": pre,
            "change": change,
            "error": self.error,
        }
        said = (
            f"block-bootstrapped means (blocks of {b}) of the current and previous runs "
            f"differ by {pct(change)}"
        )
        return settle(
            self,
            n,
            settled=change <= self.error,
            details=details,
            stop_reason=f"{said}, within {pct(self.error)}",
            wait_reason=f"{said}; needs at most {pct(self.error)}",
            what=f"the block-bootstrapped means agreeing within {pct(self.error)}",
        )
