"""Numbers in legends and labels: a few significant digits, no exponent for everyday sizes."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def number(value: float, digits: int = 4) -> str:
    """``value`` with ``digits`` significant digits, positional below a billion.

    Latencies in ns or ms are read more easily as ``71470`` than as
    ``7.147e+04``; infinities stay ``inf``.

    Examples
    --------
    >>> from perfstats.plots._format import number
    >>> number(71470.31), number(0.0012345), number(float("-inf")), number(3.0)
    ('71470', '0.001234', '-inf', '3')
    """
    v = float(value)
    if not math.isfinite(v):
        return str(v)
    if v != 0 and not (1e-4 <= abs(v) < 1e9):
        return f"{v:.{digits - 1}e}"
    return str(np.format_float_positional(v, precision=digits, unique=False, fractional=False,
                                          trim="-"))  # fmt: skip


def plain_log_axis(axis: Any) -> None:
    """Make ``axis`` logarithmic with plain tick labels (``20``, not ``2 x 10^1``).

    Between the decades, ticks are labelled at 2x and 5x when the axis spans
    more than a decade, and at every integer multiple when it spans less
    (otherwise such an axis would show one or two labels).

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> from perfstats.plots._format import plain_log_axis
    >>> ax = Figure().add_subplot()
    >>> plain_log_axis(ax.xaxis)
    >>> ax.get_xscale()
    'log'
    """
    from matplotlib.ticker import FuncFormatter

    def minor(value: float, _: Any) -> str:
        if value <= 0:
            return ""
        low, high = sorted(axis.get_view_interval())
        lead = round(value / 10 ** math.floor(math.log10(value)))
        narrow = low > 0 and high / low < 10
        return f"{value:g}" if narrow or lead in (2, 5) else ""

    getattr(axis.axes, f"set_{axis.axis_name}scale")("log")
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(FuncFormatter(minor))
