"""SHARP's RSE rule: stop when the relative standard error of the mean is small."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._deprecation import renamed
from .._validation import check_positive, power_of_two_scale
from ._limits import check_limits, limits_config, settle_under
from ._wording import pct
from .base import Rule
from .decision import Decision


class RSE(Rule):
    """Stop when ``s / sqrt(n) / mean < threshold`` (``s`` with ``ddof=1``).

    The relative standard error of the mean, SHARP's rule for normal-like
    data. Unlike :class:`CIWidth` it has no t quantile: the threshold bounds
    one standard error, not a confidence half-width.

    Parameters
    ----------
    error : float, default 0.1
        Largest accepted relative standard error (SHARP's default).
    min_n : int, default 15
        Never stop on fewer runs (at least 2, for a standard deviation).
    max_n : int, default 100
        Stop here in any case, saying so.
    interval : int, default 1
        Runs between judgements; SHARP judges after every run.

    References
    ----------
    Mittal et al., "SHARP: A Distribution-Based Framework for Reproducible Performance
    Evaluation", manuscript (undated), Section IV-c; see the References of
    :mod:`perfstats.rules.sharp`.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.rules import RSE
    >>> x = np.random.default_rng(0).normal(100.0, 30.0, size=100)
    >>> RSE(error=0.02).check(x[:20])  # doctest: +NORMALIZE_WHITESPACE
    Decision(continue at n=20, rule='SHARP-RSE':
             the relative standard error of the mean is 6.2%; needs under 2.0%)
    >>> RSE(error=0.02).check(x).reason
    'reached max_n = 100 runs without the relative standard error falling under 2.0%'
    """

    name = "SHARP-RSE"

    @renamed(threshold="error")
    def __init__(
        self,
        *,
        error: float = 0.1,
        min_n: int = 15,
        max_n: int = 100,
        interval: int = 1,
    ) -> None:
        self.error = check_positive(error, "error")
        self._min_n, self.max_n, self._interval = check_limits(
            min_n, max_n, interval, least_min_n=2
        )

    def config(self) -> dict[str, Any]:
        return {
            "error": self.error,
            **limits_config(self),
        }

    def _decide(self, data: np.ndarray) -> Decision:
        n = int(data.size)
        # A power-of-two scale (exact) keeps the squares finite near 1e160.
        s = power_of_two_scale(data)
        mean = float(np.mean(data * s)) / s
        sd = float(np.std(data * s, ddof=1)) / s
        rse = sd / math.sqrt(n) / mean if mean > 0.0 else math.inf
        details = {"mean": mean, "sd": sd, "rse": rse, "threshold": self.error}
        return settle_under(
            self,
            n,
            rse,
            self.error,
            said=f"the relative standard error of the mean is {pct(rse)}",
            mean=mean,
            relative="a relative standard error",
            details=details,
            what=f"the relative standard error falling under {pct(self.error)}",
        )
