"""``perfstats history --plot`` on a suite of 300 benchmarks stays a readable image."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from perfstats.adapters.cli import main
from perfstats.adapters.cli.history import MAX_PANELS, _plot, plotted

from perfstats import history_change_points
from perfstats.plots import history
from perfstats.plots._axes import FASTER, SLOWER

STEPPED = {f"b{i:03d}" for i in (7, 90, 150, 151, 299)}


@pytest.fixture
def suite_csv(tmp_path: Path) -> Path:
    """300 benchmarks x 16 commits x 2 runs; five get 30% slower from commit 8."""
    rng = np.random.default_rng(2)
    rows = []
    for b in range(300):
        name = f"b{b:03d}"
        for c in range(16):
            step = 1.3 if name in STEPPED and c >= 8 else 1.0
            for _ in range(2):
                rows.append((f"c{c:02d}", name, 5.0 * step * rng.lognormal(0, 0.005), "ms"))
    path = tmp_path / "suite.csv"
    pd.DataFrame(rows, columns=["commit", "benchmark", "value", "unit"]).to_csv(path, index=False)
    return path


def test_300_benchmarks_plot_as_capped_small_multiples(
    capsys: pytest.CaptureFixture[str], suite_csv: Path, tmp_path: Path
) -> None:
    import matplotlib.image

    plot = tmp_path / "history.png"
    code = main(["history", str(suite_csv), "--permutations", "30", "--seed", "1",
                 "--format", "json", "--plot", str(plot)])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0
    assert f"{MAX_PANELS} of 300 benchmarks drawn (those with change points first); " \
        f"{300 - MAX_PANELS} left out" in err  # fmt: skip
    assert out.lstrip().startswith("{")  # stdout stays JSON
    height, width = matplotlib.image.imread(plot).shape[:2]
    # 12 rows of 4 panels: a page a screen can scroll, not 800 x 90000.
    assert width <= 1700 and height <= 3300, (width, height)


def test_the_benchmarks_with_change_points_are_drawn_first(suite_csv: Path, tmp_path: Path) -> None:
    frame = pd.read_csv(suite_csv)
    results = history_change_points(frame, position="commit", permutations=30, rng=1)
    found = {n for n, r in results.items() if len(r)}
    assert STEPPED <= found
    names, left_out = plotted(results)
    assert len(names) == MAX_PANELS and left_out == 300 - MAX_PANELS
    assert set(names[: len(found)]) == found
    series = {str(n): g.groupby("commit", sort=False)["value"].median()
              for n, g in frame.groupby("benchmark", sort=False)}  # fmt: skip
    fig = _plot(str(tmp_path / "h.svg"), series, results, dict.fromkeys(series, "ms"),
                dict.fromkeys(series, "lower"))  # fmt: skip
    drawn = [ax for ax in fig.axes if ax.get_visible()]
    assert len(drawn) == MAX_PANELS and [ax.get_title() for ax in drawn] == names
    # A short suite stays one panel per row, as before.
    few = {n: results[n] for n in list(results)[:2]}
    fig = _plot(str(tmp_path / "few.png"), series, few, dict.fromkeys(series, "ms"),
                dict.fromkeys(series, "lower"))  # fmt: skip
    assert [ax.get_subplotspec().get_geometry()[:2] for ax in fig.axes] == [(2, 1), (2, 1)]


def test_history_plot_colours_a_throughput_fall_as_slower() -> None:
    rng = np.random.default_rng(0)
    ops = np.r_[np.full(30, 100.0), np.full(30, 80.0)] * rng.lognormal(0, 0.005, 60)
    colours = {}
    for way in ("lower", "higher"):
        fig = history(ops, better=way, rng=0)
        (line,) = [ln for ln in fig.axes[0].lines if ln.get_linestyle() == "--"]
        colours[way] = line.get_color()
    assert colours == {"lower": FASTER, "higher": SLOWER}
    with pytest.raises(ValueError, match="better must be 'lower' or 'higher'"):
        history(ops, better="up", rng=0)
