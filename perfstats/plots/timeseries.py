"""Values by run, with the detected warm-up, change points and the characterisation."""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validation import as_sample
from ..characterization.describe import Characterization, characterize
from ._axes import FASTER, SLOWER, UNCHANGED, figure_and_axes, shared_ax_doc

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


@shared_ax_doc
def run_series(
    data: Any,
    *,
    characterization: Characterization | None = None,
    unit: str = "",
    log: bool = False,
    summary: bool = True,
    ax: Axes | None = None,
) -> Figure:
    """Each run's value against its index, with the warm-up and change points marked.

    The runs are dots; the warm-up (the runs before the steady state of
    :func:`perfstats.characterize`) is shaded, each change point is a dashed
    vertical line, each segment's mean a horizontal step, and the
    characterisation's summary is printed in the corner. A series without a
    steady state is shaded in full and says so.

    Parameters
    ----------
    data : array_like
        1-D finite measurements in collection order (at least 5).
    characterization : Characterization, optional
        A result of :func:`perfstats.characterize` for ``data`` (default:
        computed here with its defaults).
    unit : str, default ""
        Unit of the values, for the axis label.
    log : bool, default False
        Logarithmic value axis (data must be positive).
    summary : bool, default True
        Print the characterisation's summary on the plot.
    {ax_and_returns}

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import plots
    >>> rng = np.random.default_rng(0)
    >>> x = np.concatenate([rng.normal(150, 5, 40), rng.normal(100, 5, 300)])
    >>> fig = plots.run_series(x, unit="ms")
    >>> fig.axes[0].get_xlabel(), fig.axes[0].get_ylabel()
    ('run', 'value (ms)')
    """
    x = as_sample(data, "data", min_size=5)
    c = characterize(x) if characterization is None else characterization
    if c.n != x.size:
        raise ValueError(
            f"characterization describes {c.n} runs but data has {x.size}; pass the same runs"
        )
    if log and not bool(np.all(x > 0)):
        raise ValueError("data must be positive for log=True")
    fig, axes = figure_and_axes(ax, (8.0, 3.6))
    runs = np.arange(x.size)
    axes.plot(runs, x, linestyle="none", marker=".", markersize=3, color="#555555", label="runs")
    warm = c.warmup
    if warm > 0:
        label = "no steady state" if c.steady_state_start is None else f"warm-up ({warm} runs)"
        axes.axvspan(-0.5, warm - 0.5, color=SLOWER, alpha=0.12, linewidth=0, label=label)
    bounds = (0, *c.change_points, c.n)
    for i, (a, b) in enumerate(pairwise(bounds)):
        axes.hlines(
            c.segment_means[i],
            a - 0.5,
            b - 0.5,
            colors=FASTER,
            linewidth=2,
            label="segment means" if i == 0 else "_nolegend_",
        )
    for j, cp in enumerate(c.change_points):
        axes.axvline(
            cp - 0.5,
            color=UNCHANGED,
            linestyle="--",
            linewidth=1,
            label="change points" if j == 0 else "_nolegend_",
        )
    if log:
        axes.set_yscale("log")
    axes.set_xlabel("run")
    axes.set_ylabel(f"value ({unit})" if unit else "value")
    axes.set_xlim(-0.5, c.n - 0.5)
    axes.legend(loc="upper right", fontsize="small", frameon=False)
    if summary:
        axes.text(
            0.01,
            0.98,
            str(c),
            transform=axes.transAxes,
            va="top",
            ha="left",
            fontsize="x-small",
            family="monospace",
            bbox={"facecolor": "white", "alpha": 0.8, "edgecolor": "none"},
        )
    return fig
