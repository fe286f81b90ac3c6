"""Shared wording of decision reasons, so every rule speaks alike."""

from __future__ import annotations

import math


def runs(n: int) -> str:
    """``1 -> "1 run"``, ``5 -> "5 runs"``."""
    return f"{n} run" if n == 1 else f"{n} runs"


def pct(value: float, digits: int = 1) -> str:
    """``0.0134 -> "1.3%"``; infinite values read ``"unbounded"``."""
    if not math.isfinite(value):
        return "unbounded"
    return f"{100.0 * value:.{digits}f}%"


def quantile_label(q: float) -> str:
    """``0.75 -> "P75"``, ``0.999 -> "P99.9"``."""
    return f"P{100.0 * q:g}"


def statistic_label(statistic: str | float) -> str:
    """``"median"`` stays, ``0.9 -> "P90"``."""
    return statistic if isinstance(statistic, str) else quantile_label(statistic)
