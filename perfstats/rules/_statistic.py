"""The point statistics a rule may be asked to pin down: mean, median, a quantile."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

Statistic = str | float


def check_statistic(value: Any, name: str = "statistic") -> Statistic:
    """``"mean"``, ``"median"`` or a quantile strictly between 0 and 1.

    ``"p90"``-style strings are accepted as the quantile 0.9 so that a
    command line can name a percentile.
    """
    if isinstance(value, str):
        low = value.lower()
        if low in ("mean", "median"):
            return low
        if low.startswith("p"):
            try:
                q = float(low[1:]) / 100.0
            except ValueError:
                q = -1.0
            if 0.0 < q < 1.0:
                return q
    elif isinstance(value, numbers.Real) and not isinstance(value, bool):
        q = float(value)
        if 0.0 < q < 1.0:
            return q
    raise ValueError(
        f"{name} must be 'mean', 'median', a quantile in (0, 1) or a name like 'p90'; got {value!r}"
    )


def point_estimate(x: np.ndarray, statistic: Statistic) -> float:
    """The statistic of ``x`` (quantiles by NumPy's default linear interpolation)."""
    if statistic == "mean":
        return float(np.mean(x))
    if statistic == "median":
        return float(np.median(x))
    return float(np.quantile(x, float(statistic)))
