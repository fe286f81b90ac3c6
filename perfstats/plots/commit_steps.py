"""A performance history with its change points and the level of each segment."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._direction import check_better, worse_sign
from .._validation import as_sample
from ._axes import FASTER, SLOWER, UNCHANGED, figure_and_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ..comparison.history import ChangePoints


def history(
    series: Any,
    result: ChangePoints | None = None,
    *,
    ax: Axes | None = None,
    unit: str | None = None,
    title: str | None = None,
    better: str = "lower",
    **kwargs: Any,
) -> Figure:
    """Plot a history, its change points and each segment's level.

    Parameters
    ----------
    series : array_like or pandas.Series
        The values in history order (as given to
        :func:`perfstats.change_points`).
    result : ChangePoints, optional
        Change points to draw; computed with ``change_points(series,
        **kwargs)`` when not given.
    ax : matplotlib.axes.Axes, optional
        Where to draw (default: a new figure).
    unit : str, optional
        Unit for the y-axis label.
    title : str, optional
        Title of the axes; none when not given.
    better : {"lower", "higher"}, default "lower"
        Which values are better: a change point is drawn in the "slower"
        colour when it is for the worse (a rise of a time, a fall of a
        throughput).
    **kwargs
        Passed to :func:`perfstats.change_points` when ``result`` is None.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on: a new one, or the figure that holds ``ax``.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import plots
    >>> x = np.r_[np.full(30, 10.0), np.full(30, 11.0)] + np.random.default_rng(0).normal(0, .1, 60)
    >>> fig = plots.history(x, unit="ms", rng=0)
    >>> len(fig.axes[0].lines)  # the series, two levels, one change point
    4
    """
    x = as_sample(series, "series")
    check_better(better)
    if result is None:
        from ..comparison.history import change_points

        result = change_points(series, **kwargs)
    elif kwargs:
        raise ValueError(f"options {sorted(kwargs)} apply only when result is None")
    if result.n != x.size:
        raise ValueError(f"result is for a series of {result.n} values, series has {x.size}")
    fig, axes = figure_and_axes(ax, (8.0, 3.5))
    pos = np.arange(x.size)
    axes.plot(pos, x, ".", color=UNCHANGED, markersize=3, label="results")
    for a, b in result.segments:
        stat = result.statistic
        seg = x[a:b]
        level = (
            float(np.mean(seg)) if stat == "mean"
            else float(np.quantile(seg, 0.5 if stat == "median" else float(stat[2:])))
        )  # fmt: skip
        axes.plot([a - 0.5, b - 0.5], [level, level], color="black", linewidth=1.5)
    for p in result.points:
        colour = SLOWER if worse_sign(better) * p.change > 0 else FASTER
        axes.axvline(p.index - 0.5, color=colour, linestyle="--", linewidth=1.0)
        text = f"{p.change:+.1%}" if p.relative else f"{p.change:+.3g}"
        axes.annotate(
            f"{text}\np={p.pvalue:.2g}", xy=(p.index - 0.5, 1.0),
            xycoords=("data", "axes fraction"), ha="left", va="top", fontsize=8, color=colour,
        )  # fmt: skip
    axes.set_xlabel("position in history")
    axes.set_ylabel(f"value ({unit})" if unit else "value")
    if title:
        axes.set_title(title)
    return fig
