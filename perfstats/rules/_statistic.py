"""The point statistics a rule may be asked to pin down: mean, median, a quantile."""

from __future__ import annotations

import numpy as np

from ..quantile_spec import Statistic

__all__ = ["Statistic", "point_estimate"]


def point_estimate(x: np.ndarray, statistic: Statistic) -> float:
    """The statistic of ``x`` (quantiles by NumPy's default linear interpolation)."""
    if statistic == "mean":
        return float(np.mean(x))
    if statistic == "median":
        return float(np.median(x))
    return float(np.quantile(x, float(statistic)))
