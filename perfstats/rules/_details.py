"""Entries of a decision's details that several rules report alike."""

from __future__ import annotations

from collections.abc import Sequence

from ..precision.interval import Interval
from ._wording import quantile_label


def interval_details(intervals: Sequence[Interval]) -> dict[str, dict[str, float]]:
    """Each interval's estimate, bounds and relative error, keyed by its quantile's label.

    Examples
    --------
    >>> from perfstats.precision.interval import Interval
    >>> from perfstats.rules._details import interval_details
    >>> interval_details([Interval(10.0, 9.0, 12.0, 0.95, "order", 40, 0.5)])
    {'P50': {'estimate': 10.0, 'low': 9.0, 'high': 12.0, 'rel_error': 0.2}}
    """
    return {
        quantile_label(iv.q): {
            "estimate": iv.estimate,
            "low": iv.low,
            "high": iv.high,
            "rel_error": iv.rel_error,
        }
        for iv in intervals
    }
