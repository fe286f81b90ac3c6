"""The change table of an A-B suite: one row per benchmark, its change and verdict."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..comparison.change import change_bounds
from ._axes import FASTER, SLOWER, UNCHANGED, figure_and_axes, shared_ax_doc

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

SORTS = ("estimate", "name", "none")


def _bounds(name: str, result: Any) -> tuple[float, float, float]:
    # A Comparison carries its RelativeChange as .change.
    source = getattr(result, "change", result)
    keys = ("estimate", "low", "high")
    if isinstance(source, Mapping):
        fields = [source.get(key) for key in keys]
    else:
        fields = [getattr(source, key, None) for key in keys]
    return change_bounds(
        result,
        f"results[{name!r}]",
        fields=fields,
        accepts="a RelativeChange, a Comparison or a mapping",
    )


def change_frame(results: Mapping[str, Any] | pd.DataFrame) -> pd.DataFrame:
    """Results of a suite as a frame: ``benchmark, estimate, low, high, verdict``.

    Parameters
    ----------
    results : mapping of str to result, or pandas.DataFrame
        Per benchmark a :class:`perfstats.RelativeChange`, a
        :class:`perfstats.Comparison` or a mapping with ``estimate``,
        ``low`` and ``high``; or a frame with those columns (names in a
        ``benchmark`` column, else the index).

    Returns
    -------
    pandas.DataFrame
        ``verdict`` is ``"slower"`` (CI above 0), ``"faster"`` (below 0) or
        ``"no change"``.

    Examples
    --------
    >>> from perfstats.plots import change_frame
    >>> change_frame({"a": {"estimate": 0.1, "low": 0.05, "high": 0.2}})
      benchmark  estimate   low  high verdict
    0         a       0.1  0.05   0.2  slower
    """
    if isinstance(results, pd.DataFrame):
        missing = {"estimate", "low", "high"} - set(results.columns)
        if missing:
            raise ValueError(f"results lacks the column(s) {sorted(missing)}")
        names = results["benchmark"] if "benchmark" in results.columns else results.index
        items = [
            (str(k), {"estimate": e, "low": lo, "high": hi})
            for k, e, lo, hi in zip(
                names, results["estimate"], results["low"], results["high"], strict=True
            )
        ]
    elif isinstance(results, Mapping):
        items = [(str(k), v) for k, v in results.items()]
    else:
        raise ValueError(
            f"results must be a mapping of benchmark names to results or a DataFrame; "
            f"got {type(results).__name__}"
        )
    if not items:
        raise ValueError("results is empty")
    rows = []
    for name, result in items:
        est, low, high = _bounds(name, result)
        verdict = "slower" if low > 0 else "faster" if high < 0 else "no change"
        rows.append({"benchmark": name, "estimate": est, "low": low, "high": high,
                     "verdict": verdict})  # fmt: skip
    return pd.DataFrame(rows)


@shared_ax_doc
def change_table(
    results: Mapping[str, Any] | pd.DataFrame,
    *,
    sort: str = "estimate",
    ax: Axes | None = None,
) -> Figure:
    """Plot a suite's relative changes as a table of intervals (a forest plot).

    One row per benchmark: the estimate as a dot, its confidence interval
    as a bar, coloured by verdict (slower / faster / no change, i.e. the
    interval above, below or across 0), and the numbers written beside it.

    Parameters
    ----------
    results : mapping or pandas.DataFrame
        As :func:`change_frame`.
    sort : {"estimate", "name", "none"}, default "estimate"
        Row order, top to bottom.
    {ax_and_returns}

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import plots, relative_change
    >>> rng = np.random.default_rng(0)
    >>> base = rng.lognormal(3, 0.1, 100)
    >>> suite = {"same": relative_change(base, rng.lognormal(3, 0.1, 100), rng=1),
    ...          "slower": relative_change(base, base * 1.2, rng=1)}
    >>> fig = plots.change_table(suite)
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
    ['slower', 'same']
    """
    if sort not in SORTS:
        raise ValueError(f"sort must be one of {', '.join(map(repr, SORTS))}; got {sort!r}")
    frame = change_frame(results)
    if sort == "estimate":
        frame = frame.sort_values("estimate", ascending=False, kind="stable")
    elif sort == "name":
        frame = frame.sort_values("benchmark", kind="stable")
    frame = frame.reset_index(drop=True)
    from matplotlib.ticker import PercentFormatter

    rows = len(frame)
    fig, axes = figure_and_axes(ax, (8.0, 1.0 + 0.32 * rows))
    y = np.arange(rows)[::-1].astype(float)
    colours = {"slower": SLOWER, "faster": FASTER, "no change": UNCHANGED}
    for yi, row in zip(y, frame.itertuples(index=False), strict=True):
        c = colours[str(row.verdict)]
        low = float(row.low)
        high = float(row.high)
        axes.plot([low, high], [yi, yi], color=c, linewidth=3, solid_capstyle="butt")
        axes.plot([float(row.estimate)], [yi], marker="o", color=c)
        axes.text(
            1.02,
            yi,
            f"{row.estimate:+.2%} [{low:+.2%}, {high:+.2%}] {row.verdict}",
            transform=axes.get_yaxis_transform(),
            va="center",
            fontsize="small",
            color=c,
        )
    axes.axvline(0.0, color="black", linewidth=1, linestyle="--")
    axes.set_yticks(y, list(frame["benchmark"]))
    axes.set_ylim(-0.7, rows - 0.3)
    axes.xaxis.set_major_formatter(PercentFormatter(xmax=1.0))
    axes.set_xlabel("relative change (candidate / baseline - 1)")
    counts = frame["verdict"].value_counts()
    axes.set_title(
        f"{rows} benchmarks: {counts.get('slower', 0)} slower, {counts.get('faster', 0)} "
        f"faster, {counts.get('no change', 0)} unchanged",
        fontsize="medium",
    )
    return fig


__all__ = ["change_frame", "change_table"]
