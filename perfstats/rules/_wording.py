"""Wording of decision reasons shared by the rules and the Monitor, so every reason reads alike."""

from __future__ import annotations

import math


def runs(n: int) -> str:
    """``1 -> "1 run"``, ``5 -> "5 runs"``."""
    return f"{n} run" if n == 1 else f"{n} runs"


def pct(value: float, digits: int = 1) -> str:
    """``0.0134 -> "1.3%"``, ``0.00012 -> "0.012%"``; infinite values read ``"unbounded"``.

    Small non-zero values keep two significant digits, so that a threshold of
    0.01% never reads "0.0%".
    """
    if not math.isfinite(value):
        return "unbounded"
    percent = 100.0 * value
    if percent != 0.0 and abs(percent) < 10.0 ** -digits:
        return f"{percent:.2g}%"
    return f"{percent:.{digits}f}%"


def reaches(value: float, where: str = "") -> str:
    """``"reaches 1.3% from the P50"``, or ``"is unbounded"`` for an infinite value.

    An interval that the data cannot bound (too few runs for its ranks) has no
    distance to "reach"; saying so reads right.
    """
    if not math.isfinite(value):
        return "is unbounded (too few runs for its ranks)"
    return f"reaches {pct(value)}{' ' + where if where else ''}"


def quantile_label(q: float) -> str:
    """``0.75 -> "P75"``, ``0.999 -> "P99.9"``."""
    return f"P{100.0 * q:g}"


def statistic_label(statistic: str | float) -> str:
    """``"median"`` stays, ``0.9 -> "P90"``."""
    return statistic if isinstance(statistic, str) else quantile_label(statistic)
