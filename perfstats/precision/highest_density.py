"""Highest-density interval of a sample, as ArviZ defines it.

The HDI at probability ``p`` is the narrowest interval that holds
``floor(p * n) + 1`` of the ``n`` sorted values: with ``k = floor(p * n)``,
among the ``n - k`` windows ``[x(i), x(i + k)]`` of the sorted sample the one
of least width (the first, on ties) is returned. This is
``arviz.hdi(values, hdi_prob=p)`` for a 1-D array (non-circular); sorting
makes it O(n log n).

References
----------
R. J. Hyndman, "Computing and Graphing Highest Density Regions", The
American Statistician 50(2), 120-126, 1996.

R. Kumar, C. Carroll, A. Hartikainen and O. Martin, "ArviZ a unified library
for exploratory analysis of Bayesian models in Python", Journal of Open
Source Software 4(33), 1143, 2019.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._validation import as_sample, check_fraction

__all__ = ["hdi"]


def hdi(values: Any, *, probability: float = 0.89) -> tuple[float, float]:
    """Narrowest interval holding a share ``probability`` of the values.

    Parameters
    ----------
    values : array_like
        1-D finite numbers (a sample, or draws of a bootstrap distribution).
    probability : float, default 0.89
        Share of the values inside, in (0, 1); 0.89 is ArviZ's default and
        SHARP's.

    Returns
    -------
    tuple of float
        ``(low, high)``, both values of the sample.

    Raises
    ------
    ValueError
        For invalid values, a probability outside (0, 1), or a sample so
        small that ``floor(probability * n)`` is 0 (no interval of two
        values exists).

    Examples
    --------
    >>> from perfstats import hdi
    >>> hdi([1.0, 2.0, 3.0, 4.0, 100.0], probability=0.6)
    (1.0, 4.0)
    """
    x = as_sample(values, "values")
    p = check_fraction(probability, "probability")
    if not 0.0 < p < 1.0:
        raise ValueError(f"probability must be in (0, 1), got {probability!r}")
    n = int(x.size)
    k = int(math.floor(p * n))
    if k == 0:
        raise ValueError(
            f"values has {n} value(s); an HDI at probability {p:g} needs at least "
            f"{math.ceil(1.0 / p)}"
        )
    s = np.sort(x)
    with np.errstate(over="ignore"):
        widths = s[k:] - s[: n - k]
    if not np.isfinite(widths).all():
        # Values near the float range overflow a width; halves never do, and
        # halving keeps the order of the widths.
        widths = s[k:] * 0.5 - s[: n - k] * 0.5
    i = int(np.argmin(widths))
    return float(s[i]), float(s[i + k])
