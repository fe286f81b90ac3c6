"""The bootstrap distribution of a relative change between two versions, with its CI."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validation import FloatArray
from ..comparison.change import relative_change, resampled_changes
from ._axes import FASTER, SLOWER, UNCHANGED, figure_and_axes, shared_ax_doc

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def change_replicates(
    baseline: Any,
    candidate: Any,
    *,
    statistic: str | float = "median",
    paired: bool = False,
    n_resamples: int = 10000,
    rng: Any = None,
) -> FloatArray:
    """Bootstrap replicates of ``stat(candidate) / stat(baseline) - 1``.

    The replicates :func:`perfstats.relative_change` reads its interval
    from: the same resampling scheme and, for the same ``rng``, the same
    draws (unpaired samples resampled independently, paired ones pair by
    pair), so their percentile interval is that function's ``low`` and
    ``high``.

    Parameters
    ----------
    baseline, candidate : array_like
        The two samples (baseline positive).
    statistic : {"median", "mean"} or quantile, default "median"
        The statistic compared; a quantile in [0, 1] in any spelling of
        :mod:`perfstats._quantiles` (``0.9``, ``"p90"``).
    paired : bool, default False
        ``baseline[i]`` and ``candidate[i]`` were run together: pairs are
        resampled jointly (the samples must have equal length).
    n_resamples : int, default 10000
        Number of bootstrap resamples, the length of the result.
    rng : None, int or numpy.random.Generator
        Seed for the resampling; the same seed as given to
        :func:`perfstats.relative_change` gives the same draws.

    Returns
    -------
    numpy.ndarray
        ``n_resamples`` relative changes, drawn by
        :func:`perfstats.comparison.change.resampled_changes` (which also
        takes ``groups``, ``per_pair`` and ``engine``).

    Raises
    ------
    ValueError
        For input that :func:`perfstats.relative_change` refuses.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.plots import change_replicates
    >>> rng = np.random.default_rng(0)
    >>> a, b = rng.normal(100, 5, 300), rng.normal(110, 5, 300)
    >>> reps = change_replicates(a, b, n_resamples=2000, rng=1)
    >>> bool(0.08 < np.median(reps) < 0.12)
    True
    """
    return resampled_changes(
        baseline, candidate, statistic=statistic, paired=paired,
        n_resamples=n_resamples, rng=rng,
    )  # fmt: skip


@shared_ax_doc
def change_distribution(
    baseline: Any,
    candidate: Any,
    *,
    statistic: str | float = "median",
    level: float = 0.95,
    paired: bool = False,
    n_resamples: int = 10000,
    rng: Any = None,
    ax: Axes | None = None,
) -> Figure:
    """Histogram of the bootstrapped relative change, with the CI and the verdict.

    The interval, estimate and verdict are those of
    :func:`perfstats.relative_change` (ElastiBench's rule: a change when
    the CI excludes 0); the histogram shows the resamples that interval
    is read from (:func:`change_replicates`). The band is coloured by the
    verdict: slower, faster or unchanged.

    Parameters
    ----------
    baseline, candidate : array_like
        Measurements of the old and new version (baseline positive).
    statistic : {"median", "mean"} or quantile, default "median"
        The statistic compared; a quantile in [0, 1] in any spelling of
        :mod:`perfstats._quantiles` (``0.9``, ``"p90"``).
    level : float, default 0.95
        Confidence level of the interval drawn as the band.
    paired : bool, default False
        ``baseline[i]`` and ``candidate[i]`` were run together.
    n_resamples : int, default 10000
        Number of bootstrap resamples, for the interval and the histogram.
    rng : None, int or numpy.random.Generator
        Seed for the resampling. One seed is drawn from it and used for
        both the interval and the histogram, so they come from the same
        resamples.
    {ax_and_returns}

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import plots
    >>> rng = np.random.default_rng(3)
    >>> old, new = rng.lognormal(3, 0.1, 200), rng.lognormal(3, 0.1, 200) * 1.05
    >>> fig = plots.change_distribution(old, new, n_resamples=2000, rng=1)
    >>> fig.axes[0].get_title()
    'median: +4.42% [+2.39%, +7.59%] at 95%, slower'
    """
    # A Generator would move on between the two calls; one seed gives both
    # the same draws, so the histogram holds the resamples of the interval.
    seed = int(np.random.default_rng(rng).integers(0, 2**63 - 1))
    rc = relative_change(
        baseline, candidate, statistic=statistic, level=level, paired=paired,
        n_resamples=n_resamples, rng=seed,
    )  # fmt: skip
    reps = change_replicates(
        baseline, candidate, statistic=statistic, paired=paired,
        n_resamples=n_resamples, rng=seed,
    )  # fmt: skip
    from matplotlib.ticker import PercentFormatter

    fig, axes = figure_and_axes(ax, (7.0, 3.4))
    shade = {"slower": SLOWER, "faster": FASTER}.get(rc.direction, UNCHANGED)
    finite = reps[np.isfinite(reps)]
    axes.hist(finite, bins=60, color="#BBBBBB", edgecolor="white", linewidth=0.3,
              label=f"{finite.size} resamples")  # fmt: skip
    axes.axvspan(rc.low, rc.high, color=shade, alpha=0.25, linewidth=0,
                 label=f"{rc.level:.0%} CI [{rc.low:+.2%}, {rc.high:+.2%}]")  # fmt: skip
    axes.axvline(rc.estimate, color=shade, linewidth=2, label=f"estimate {rc.estimate:+.2%}")
    axes.axvline(0.0, color="black", linewidth=1, linestyle="--", label="no change")
    axes.xaxis.set_major_formatter(PercentFormatter(xmax=1.0))
    axes.set_xlabel(f"relative change of the {rc.statistic} (candidate / baseline - 1)")
    axes.set_ylabel("resamples")
    verdict = rc.direction if rc.changed else "no change"
    axes.set_title(
        f"{rc.statistic}: {rc.estimate:+.2%} [{rc.low:+.2%}, {rc.high:+.2%}] "
        f"at {rc.level * 100:g}%, {verdict}",
        fontsize="medium",
    )
    if not math.isfinite(rc.low) or not math.isfinite(rc.high):
        axes.set_xlim(float(finite.min()), float(finite.max()))
    axes.legend(fontsize="small", frameon=False)
    return fig


__all__ = ["change_distribution", "change_replicates"]
