"""The value-by-run panel marks what the characterisation found."""

from __future__ import annotations

import io

import numpy as np
import pytest
from matplotlib.collections import LineCollection

from perfstats import characterize, plots


def series() -> np.ndarray:
    rng = np.random.default_rng(0)
    return np.concatenate([rng.normal(150, 5, 40), rng.normal(100, 5, 300)])


def test_warmup_change_points_and_summary_are_drawn() -> None:
    x = series()
    c = characterize(x)
    fig = plots.run_series(x, characterization=c, unit="ms")
    ax = fig.axes[0]
    labels = ax.get_legend_handles_labels()[1]
    assert f"warm-up ({c.steady_state_start} runs)" in labels
    assert "change points" in labels and "segment means" in labels
    # One dashed line per change point, at the boundary before the run.
    dashed = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
    assert [line.get_xdata()[0] for line in dashed] == [cp - 0.5 for cp in c.change_points]
    steps = [col for col in ax.collections if isinstance(col, LineCollection)]
    assert len(steps) == len(c.segment_means)
    assert any(str(c).splitlines()[0] in t.get_text() for t in ax.texts)
    fig.savefig(io.BytesIO(), format="png")


def test_a_flat_series_has_no_warmup_band_and_the_summary_can_be_left_out() -> None:
    x = np.random.default_rng(1).normal(10.0, 1.0, 300)
    fig = plots.run_series(x, summary=False)
    ax = fig.axes[0]
    assert not ax.texts
    assert not any(label.startswith("warm-up") for label in ax.get_legend_handles_labels()[1])


def test_a_characterisation_of_other_runs_is_refused() -> None:
    with pytest.raises(ValueError, match="characterization describes"):
        plots.run_series(series(), characterization=characterize(series()[:100]))
