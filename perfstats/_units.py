"""Time units shared by the system-regression pipeline.

Component tests report seconds, milliseconds or nanoseconds depending on the
tool (``pstats`` seconds, OpenTelemetry nanoseconds). Every measurement that
crosses a module boundary carries its unit so that two samples in different
units are refused instead of being compared.
"""

from __future__ import annotations

from typing import Any

# seconds per unit
TIME_UNITS: dict[str, float] = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def check_unit(unit: Any, name: str = "unit") -> str:
    """One of ``"ns"``, ``"us"``, ``"ms"``, ``"s"``."""
    if not isinstance(unit, str) or unit not in TIME_UNITS:
        options = ", ".join(repr(u) for u in TIME_UNITS)
        raise ValueError(f"{name} must be one of {options}; got {unit!r}")
    return unit


def to_seconds(value: float, unit: str) -> float:
    """``value`` given in ``unit``, in seconds."""
    return value * TIME_UNITS[unit]
