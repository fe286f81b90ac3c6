"""A sample's distribution with its percentile intervals: histogram and ECDF."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._deprecation import renamed
from .._quantiles import parse_quantiles
from .._validation import FloatArray, as_sample
from ..characterization.modes import Modes, find_modes
from ..precision.interval import Interval, percentile_ci
from ._axes import color, figure_and_axes, shared_ax_doc
from ._format import number, plain_log_axis

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

QUARTILES = (0.25, 0.5, 0.75)


def _intervals(
    x: FloatArray,
    q: Any,
    level: float,
    method: str,
    ci_options: dict[str, Any] | None,
) -> list[tuple[str, Interval, float, float]]:
    """Per percentile: its colour, its interval, and the interval's bounds as drawn.

    An unbounded side (too few points) is drawn to the sample's edge.
    """
    qs, _ = parse_quantiles(q, "q")
    found = percentile_ci(x, list(qs), level=level, method=method, **(ci_options or {}))
    lo_edge, hi_edge = float(x.min()), float(x.max())
    return [
        (
            color(i),
            iv,
            iv.low if math.isfinite(iv.low) else lo_edge,
            iv.high if math.isfinite(iv.high) else hi_edge,
        )
        for i, iv in enumerate(found if isinstance(found, tuple) else (found,))
    ]


def _finish(
    axes: Axes, x: FloatArray, unit: str, ylabel: str, level: float, method: str, **legend: Any
) -> None:
    """The axis labels, the title (runs, level, method) and the legend."""
    axes.set_xlabel(f"value ({unit})" if unit else "value")
    axes.set_ylabel(ylabel)
    axes.set_title(f"{x.size} runs; {level:.0%} CIs ({method})", fontsize="medium")
    axes.legend(fontsize="small", frameon=False, **legend)


def _sample_and_axes(data: Any, log: bool, ax: Axes | None) -> tuple[FloatArray, Figure, Axes]:
    """The checked sample (positive for a log axis) and the figure and axes to draw on."""
    x = as_sample(data, "data")
    if log and not bool(np.all(x > 0)):
        raise ValueError("data must be positive for log=True")
    fig, axes = figure_and_axes(ax, (7.0, 3.6))
    return x, fig, axes


def _legend(iv: Interval) -> str:
    return f"P{100.0 * iv.q:g} {number(iv.estimate)} [{number(iv.low)}, {number(iv.high)}]"


@renamed(quantiles="q")
@shared_ax_doc
def histogram(
    data: Any,
    *,
    q: float | str | Sequence[float | str] = QUARTILES,
    level: float = 0.95,
    method: str = "order",
    ci_options: dict[str, Any] | None = None,
    modes: bool | Modes = True,
    bins: int | str = "auto",
    log: bool = False,
    unit: str = "",
    ax: Axes | None = None,
) -> Figure:
    """Histogram of a sample with percentile confidence intervals and its modes.

    Each percentile is drawn as a vertical line at its estimate inside a
    shaded band spanning its confidence interval (from
    :func:`perfstats.percentile_ci`); modes (:func:`find_modes`) are marked
    with triangles above the bars. An unbounded interval (too few points)
    is shaded to the edge of the plot.

    Parameters
    ----------
    data : array_like
        1-D finite measurements (for ``log=True``, positive).
    q : quantile or sequence of quantiles, default (0.25, 0.5, 0.75)
        Percentiles to mark, in any spelling of :mod:`perfstats._quantiles`
        (``0.9``, ``"p90"``).
    level : float, default 0.95
        Confidence level of the intervals.
    method : str, default "order"
        Interval method of :func:`perfstats.percentile_ci`.
    ci_options : dict, optional
        Further keyword arguments of :func:`perfstats.percentile_ci`
        (``n_resamples``, ``block_length``, ``rng``, ...).
    modes : bool or Modes, default True
        Mark the modes found by :func:`find_modes` (True), given ones, or
        none (False).
    bins : int or str, default "auto"
        As :func:`numpy.histogram_bin_edges`; with ``log=True`` an int
        number of log-spaced bins (a string means 50).
    log : bool, default False
        Logarithmic value axis, for heavy tails such as cold starts.
    unit : str, default ""
        Unit of the values, for the axis label.
    {ax_and_returns}

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import plots
    >>> x = np.random.default_rng(0).lognormal(3.0, 0.3, size=500)
    >>> fig = plots.histogram(x, unit="ms")
    >>> fig.axes[0].get_xlabel()
    'value (ms)'
    """
    x, fig, axes = _sample_and_axes(data, log, ax)
    if log:
        count = bins if isinstance(bins, int) else 50
        edges: Any = np.geomspace(float(x.min()), float(x.max()), count + 1)
        plain_log_axis(axes.xaxis)
    else:
        edges = np.histogram_bin_edges(x, bins=bins)
    axes.hist(x, bins=edges, color="#BBBBBB", edgecolor="white", linewidth=0.4, label="runs")
    for c, iv, low, high in _intervals(x, q, level, method, ci_options):
        axes.axvspan(low, high, color=c, alpha=0.25, linewidth=0)
        axes.axvline(
            iv.estimate,
            color=c,
            linewidth=1.5,
            label=_legend(iv),
        )
    found = find_modes(x) if modes is True else (modes if isinstance(modes, Modes) else None)
    if found is not None:
        # x in data units, y in axes units: the marks sit at the top whatever
        # the bar heights.
        axes.plot(
            found.locations,
            np.full(found.count, 0.96),
            transform=axes.get_xaxis_transform(),
            linestyle="none",
            marker="v",
            markersize=8,
            color="black",
            label=f"{found.count} mode{'s' if found.multimodal else ''}",
        )
    _finish(axes, x, unit, "runs", level, method)
    return fig


@renamed(quantiles="q")
@shared_ax_doc
def ecdf(
    data: Any,
    *,
    q: float | str | Sequence[float | str] = QUARTILES,
    level: float = 0.95,
    method: str = "order",
    ci_options: dict[str, Any] | None = None,
    log: bool = False,
    unit: str = "",
    ax: Axes | None = None,
) -> Figure:
    """Empirical CDF of a sample with each percentile's confidence interval.

    A percentile ``q`` is where the ECDF crosses height ``q``; its interval
    is drawn as a horizontal bar at that height from ``low`` to ``high``,
    with a dot at the estimate, so the reader sees how much the steps allow
    the percentile to move. Unbounded sides are drawn to the plot's edge
    with an arrow.

    Parameters
    ----------
    data : array_like
        1-D finite measurements (for ``log=True``, positive).
    q : quantile or sequence of quantiles, default (0.25, 0.5, 0.75)
        As for :func:`histogram`.
    level : float, default 0.95
        As for :func:`histogram`.
    method : str, default "order"
        As for :func:`histogram`.
    ci_options : dict, optional
        As for :func:`histogram`.
    log : bool, default False
        Logarithmic value axis.
    unit : str, default ""
        Unit of the values, for the axis label.
    {ax_and_returns}

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import plots
    >>> x = np.random.default_rng(0).normal(100.0, 5.0, size=300)
    >>> fig = plots.ecdf(x, q=[0.5, 0.9], method="bootstrap",
    ...                  ci_options={"rng": 1})
    >>> fig.axes[0].get_ylabel()
    'fraction of runs'
    """
    x, fig, axes = _sample_and_axes(data, log, ax)
    if log:
        plain_log_axis(axes.xaxis)
    xs = np.sort(x)
    heights = np.arange(1, xs.size + 1) / xs.size
    axes.step(xs, heights, where="post", color="#444444", linewidth=1.2, label="ECDF")
    lo_edge, hi_edge = float(xs[0]), float(xs[-1])
    for c, iv, low, high in _intervals(x, q, level, method, ci_options):
        axes.plot([low, high], [iv.q, iv.q], color=c, linewidth=4, alpha=0.6, solid_capstyle="butt")
        axes.plot(
            [iv.estimate],
            [iv.q],
            marker="o",
            color=c,
            label=_legend(iv),
        )
        for side, bound, edge in (("<", iv.low, lo_edge), (">", iv.high, hi_edge)):
            if not math.isfinite(bound):
                axes.plot([edge], [iv.q], marker=side, color=c, markersize=9)
    axes.set_ylim(0.0, 1.02)
    _finish(axes, x, unit, "fraction of runs", level, method, loc="lower right")
    return fig


__all__ = ["ecdf", "histogram"]
