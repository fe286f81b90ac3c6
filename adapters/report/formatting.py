"""Human-readable numbers and tables for the command line."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

_TIME_STEPS = (("s", 1e9), ("ms", 1e6), ("µs", 1e3), ("ns", 1.0))
_FROM_NS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}


def quantity(value: Any, unit: str) -> str:
    """A number with its unit, times scaled to a readable unit.

    Examples
    --------
    >>> from perfstats.adapters.report.formatting import quantity
    >>> quantity(3_021_456.0, "ns"), quantity(12.5, "ms"), quantity(7, "")
    ('3.021 ms', '12.5 ms', '7')
    >>> quantity(float("inf"), "ns")
    'inf'
    """
    if value is None:
        return ""
    v = float(value)
    if not math.isfinite(v):
        return str(v)
    if unit in _FROM_NS:
        ns = v * _FROM_NS[unit]
        for name, scale in _TIME_STEPS:
            if abs(ns) >= scale or name == "ns":
                return f"{ns / scale:.4g} {name}"
    text = f"{v:.6g}"
    return f"{text} {unit}" if unit else text


def table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None) -> str:
    """Rows as an aligned text table (no index).

    Examples
    --------
    >>> from perfstats.adapters.report.formatting import table
    >>> print(table([{"a": 1, "b": "x"}, {"a": 22, "b": "yy"}]))
     a  b
     1  x
    22 yy
    """
    if not rows:
        return "(none)"
    df = pd.DataFrame(list(rows), columns=list(columns) if columns else None)
    return str(df.to_string(index=False))


def percent(value: Any) -> str:
    """A fraction as a percentage with two decimals (``inf`` stays ``inf``).

    Examples
    --------
    >>> from perfstats.adapters.report.formatting import percent
    >>> percent(0.0123), percent(float("inf"))
    ('1.23%', 'inf')
    """
    v = float(value)
    return f"{100 * v:.2f}%" if math.isfinite(v) else str(v)
