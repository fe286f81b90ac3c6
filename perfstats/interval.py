"""The confidence-interval result type.

References
----------
.. [Wen2023] Wen et al., SuperFlow, 2023; see the References of
   :mod:`perfstats.rules.superflow`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Interval:
    """A confidence interval for one quantile of a sample.

    Parameters
    ----------
    estimate : float
        The sample quantile (NumPy's default linear interpolation).
    low, high : float
        The bounds; ``-inf`` / ``inf`` where the data cannot support a bound
        (too few points for the ranks), so that the interval fails any
        precision check without a special case.
    level : float
        Confidence level in (0, 1).
    method : str
        How the interval was computed (see :func:`perfstats.percentile_ci`).
    n : int
        Sample size.
    q : float
        The quantile, in [0, 1].
    block_length : float or None
        Block length used by the ``"block"`` method, else None.

    Examples
    --------
    >>> from perfstats import Interval
    >>> iv = Interval(estimate=100.0, low=99.5, high=100.8, level=0.95,
    ...               method="order", n=500, q=0.5)
    >>> iv.width
    1.2999999999999972
    >>> iv.within(0.01), iv.contains(100.7)
    (True, True)
    """

    estimate: float
    low: float
    high: float
    level: float
    method: str
    n: int
    q: float
    block_length: float | None = None

    @property
    def width(self) -> float:
        """``high - low`` (``inf`` when a bound is unbounded)."""
        return self.high - self.low

    @property
    def bounded(self) -> bool:
        """True when both bounds are finite."""
        return math.isfinite(self.low) and math.isfinite(self.high)

    @property
    def rel_error(self) -> float:
        """The largest distance from the estimate to a bound, relative to ``|estimate|``.

        ``within(r)`` holds exactly when ``rel_error < r``; rules use it to
        say how far a sample is from the requested precision.
        """
        scale = abs(self.estimate)
        spread = max(self.estimate - self.low, self.high - self.estimate)
        if scale == 0.0:
            return math.inf if spread > 0 else 0.0
        return spread / scale

    def contains(self, value: float) -> bool:
        """True when ``low <= value <= high``."""
        return bool(self.low <= value <= self.high)

    def within(self, rel_error: float) -> bool:
        """True when the interval lies strictly inside ``estimate * (1 -/+ rel_error)``.

        This is SuperFlow's accuracy check (Wen et al. 2023): the CI of a
        percentile must be within ``r`` of the observed percentile. For a
        negative estimate the band is ``estimate -/+ |estimate| * rel_error``.
        """
        band = abs(self.estimate) * rel_error
        return bool(self.estimate - band < self.low and self.high < self.estimate + band)

    def __repr__(self) -> str:
        return (
            f"Interval(q={self.q:g}, estimate={self.estimate:.6g}, "
            f"[{self.low:.6g}, {self.high:.6g}], level={self.level:g}, "
            f"method={self.method!r}, n={self.n})"
        )
