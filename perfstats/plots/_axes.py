"""Where a plot draws: a fresh Figure, or an Axes the caller gives.

Figures are built with :class:`matplotlib.figure.Figure` directly, not
through ``pyplot``: a library must not register figures with pyplot's
global state (they would never be freed in a long session, and a headless
process would need a GUI backend). Jupyter still shows a returned Figure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._docstrings import fill_doc

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Colours that stay distinct for the common colour-vision deficiencies
#: (Okabe & Ito), in the order the plots use them; the pale yellow comes last
#: because it is hard to see on white.
PALETTE = (
    "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#F0E442",
)  # fmt: skip
SLOWER = "#D55E00"
FASTER = "#0072B2"
UNCHANGED = "#7F7F7F"

# Every plot takes ``ax`` and returns the Figure alike; written once here so
# the wording cannot drift between the plots. A plot's docstring names it
# ``{ax_and_returns}``.
shared_ax_doc = fill_doc(
    ax_and_returns="""
    ax : matplotlib.axes.Axes, optional
        Draw here instead of on a new figure.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on: a new one, or the figure that holds ``ax``.
    """
)


def figure_and_axes(ax: Axes | None, size: tuple[float, float]) -> tuple[Figure, Axes]:
    """The Figure and Axes to draw on: ``ax`` and its figure, or a new pair.

    Examples
    --------
    >>> from perfstats.plots._axes import figure_and_axes
    >>> fig, ax = figure_and_axes(None, (4.0, 3.0))
    >>> ax.figure is fig
    True
    """
    from matplotlib.figure import Figure

    if ax is None:
        fig = Figure(figsize=size, layout="constrained")
        return fig, fig.add_subplot()
    owner: Any = ax.figure
    # An Axes on a SubFigure: the root Figure is what can be saved and shown.
    while owner is not None and not isinstance(owner, Figure):
        owner = getattr(owner, "figure", None)
    if owner is None:
        raise ValueError("ax must belong to a matplotlib Figure")
    return owner, ax


def color(i: int) -> str:
    """The ``i``-th palette colour, cycling.

    Examples
    --------
    >>> from perfstats.plots._axes import color
    >>> color(0) == color(8)
    True
    """
    return PALETTE[i % len(PALETTE)]
