"""Relative-change results made by hand, for the analyses and plots that read them."""

from __future__ import annotations

from perfstats import RelativeChange


def change_of(estimate: float, low: float, high: float) -> RelativeChange:
    """A median change with this estimate and interval (99%, paired, 45 runs a side).

    The analyses and plots given it read only the three numbers; the rest
    describes a plausible resampling, so the result prints like a real one.
    """
    return RelativeChange(estimate, low, high, 0.99, "median", True, False, 45, 45, 1000)
