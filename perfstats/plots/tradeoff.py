"""Accuracy against cost of stopping rules: one point per technique, as the papers' tables."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from ._axes import color, figure_and_axes, shared_ax_doc
from ._format import plain_log_axis

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Column names tried, in order, when ``cost`` / ``accuracy`` are not given:
#: those of :mod:`perfstats.replay.scoring` frames and of the reproduction scripts.
COST_COLUMNS = ("cost", "stop_n", "mean_stop_n", "mean_executions")
ACCURACY_COLUMNS = ("accuracy", "accurate", "accurate_pct")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X")
# Height of a line of small text, in points.
_LINE = 11.0


def _pick(frame: pd.DataFrame, given: str | None, tried: Sequence[str], what: str) -> str:
    if given is not None:
        if given not in frame.columns:
            raise ValueError(f"summary has no column {given!r} for {what}")
        return given
    for name in tried:
        if name in frame.columns:
            return name
    raise ValueError(
        f"summary needs a {what} column ({', '.join(tried)}) or the {what} argument; "
        f"it has {', '.join(map(str, frame.columns))}"
    )


def _label_points(axes: Any, best: Mapping[str, tuple[float, float]]) -> None:
    """Name each point, moving a name down while it would cover one already placed."""
    axes.autoscale_view()
    to_points = 72.0 / axes.figure.dpi
    placed: list[tuple[float, float]] = []
    for name, (x, y) in best.items():
        px, py = (float(v) * to_points for v in axes.transData.transform((x, y)))
        width = 5.5 * len(name)
        dy = 5.0
        while any(abs(px - qx) < width and abs(py + dy - qy) < _LINE for qx, qy in placed):
            dy -= _LINE
        placed.append((px, py + dy))
        leader = {"arrowstyle": "-", "color": "#999999", "linewidth": 0.6} if dy < 0 else None
        axes.annotate(name, (x, y), xytext=(7, dy), textcoords="offset points",
                      fontsize="small", arrowprops=leader)  # fmt: skip


@shared_ax_doc
def accuracy_cost(
    summary: pd.DataFrame | Sequence[Mapping[str, Any]],
    *,
    cost: str | None = None,
    accuracy: str | None = None,
    technique: str = "technique",
    group: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """Scatter accuracy against cost, one point per technique (and group).

    Rows sharing a technique (and group) are averaged first, so the input
    can be a summary table (one row per technique, as
    ``benchmarks/reproduce_superflow.py`` prints) or a scored replay with
    one row per test (:func:`perfstats.replay.scoring.score_distribution` plus a
    technique column): the point is then the mean accuracy and mean runs,
    the papers' "accuracy" and "cost".

    Parameters
    ----------
    summary : pandas.DataFrame or sequence of mappings
        Rows with a technique name, a cost and an accuracy.
    cost : str, optional
        Cost column (default: the first of :data:`COST_COLUMNS` present).
    accuracy : str, optional
        Accuracy column (default: the first of :data:`ACCURACY_COLUMNS`
        present). Values in [0, 1] are shown as percentages.
    technique : str, default "technique"
        Column naming the technique (one colour each).
    group : str, optional
        Column splitting each technique's points (one marker each), e.g.
        ``"start"`` for cold and warm traces.
    {ax_and_returns}

    Examples
    --------
    >>> from perfstats import plots
    >>> rows = [{"technique": "SuperFlow", "accuracy": 0.97, "stop_n": 282.0},
    ...         {"technique": "PT4Cloud", "accuracy": 0.61, "stop_n": 12.6}]
    >>> fig = plots.accuracy_cost(rows)
    >>> fig.axes[0].get_xlabel()
    'cost: stop_n (runs per test)'
    """
    frame = summary if isinstance(summary, pd.DataFrame) else pd.DataFrame(list(summary))
    if len(frame) == 0:
        raise ValueError("summary is empty")
    if technique not in frame.columns:
        raise ValueError(f"summary has no column {technique!r} naming the techniques")
    if group is not None and group not in frame.columns:
        raise ValueError(f"summary has no column {group!r} for group")
    x_col = _pick(frame, cost, COST_COLUMNS, "cost")
    y_col = _pick(frame, accuracy, ACCURACY_COLUMNS, "accuracy")
    keys = [technique] if group is None else [technique, group]
    points = (
        frame.assign(**{y_col: frame[y_col].astype(float), x_col: frame[x_col].astype(float)})
        .groupby(keys, sort=False)[[x_col, y_col]]
        .mean()
        .reset_index()
    )
    from matplotlib.lines import Line2D
    from matplotlib.ticker import PercentFormatter

    fig, axes = figure_and_axes(ax, (7.0, 4.2))
    techniques = list(dict.fromkeys(points[technique]))
    groups = list(dict.fromkeys(points[group])) if group is not None else [None]
    best: dict[str, tuple[float, float]] = {}
    for row in points.sort_values(y_col, ascending=False).to_dict("records"):
        i = techniques.index(row[technique])
        j = groups.index(row[group]) if group is not None else 0
        axes.plot(
            [row[x_col]], [row[y_col]], marker=_MARKERS[j % len(_MARKERS)],
            markersize=9, color=color(i), linestyle="none",
        )  # fmt: skip
        # The name once per technique, by its best point: the markers say
        # which group a point is, and repeated names would overlap.
        best.setdefault(str(row[technique]), (float(row[x_col]), float(row[y_col])))
    if group is not None:
        handles = [
            Line2D([], [], marker=_MARKERS[j % len(_MARKERS)], color="#555555", linestyle="none")
            for j in range(len(groups))
        ]
        axes.legend(handles, [str(g) for g in groups], title=group, fontsize="small",
                    frameon=False)  # fmt: skip
    if float(points[y_col].max()) <= 1.0:
        axes.yaxis.set_major_formatter(PercentFormatter(xmax=1.0))
    low, high = float(points[x_col].min()), float(points[x_col].max())
    if low > 0 and high / low > 20:
        plain_log_axis(axes.xaxis)
    axes.margins(x=0.12, y=0.08)
    _label_points(axes, best)
    axes.set_xlabel(f"cost: {x_col} (runs per test)")
    axes.set_ylabel(f"accuracy: {y_col}")
    axes.set_title(f"{len(techniques)} techniques: accuracy against cost", fontsize="medium")
    axes.grid(True, alpha=0.3)
    return fig


__all__ = ["accuracy_cost"]
