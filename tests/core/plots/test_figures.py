"""perfstats.plots: the figures draw exactly the numbers the statistics compute.

Each test reads the drawn artists back (lines, spans, markers) and compares
them with the results of the public statistics, so a plot that shows the
wrong interval, mode or stop point fails.
"""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
from typing import Any

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from PIL import Image
from scipy.stats import gaussian_kde
from support.changes import change_of

import perfstats
from perfstats import Monitor, plots
from perfstats.characterization.modes import density_grid, silverman_bandwidth
from perfstats.replay import judgement_grid
from perfstats.rules import (
    BasicBootstrap,
    CIWidth,
    CoV,
    Fixed,
    KSHalves,
    Metior,
    PT4Cloud,
    SuperFlow,
)


def span_x(patch: Any) -> tuple[float, float]:
    """Data x-range of an axvspan patch (a Rectangle or a Polygon, by version)."""
    xs = patch.get_path().transformed(patch.get_patch_transform()).vertices[:, 0]
    return float(xs.min()), float(xs.max())


def labelled(ax: Any, prefix: str) -> list[Any]:
    return [line for line in ax.lines if str(line.get_label()).startswith(prefix)]


def png_pixels(fig: Figure) -> np.ndarray:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=60)
    return np.asarray(Image.open(io.BytesIO(buffer.getvalue())).convert("RGB"))


@pytest.fixture(scope="module")
def lognormal() -> np.ndarray:
    return np.random.default_rng(11).lognormal(3.0, 0.3, size=400)


# -- import discipline -------------------------------------------------------


def test_importing_perfstats_and_finding_modes_does_not_load_matplotlib() -> None:
    code = (
        "import sys, perfstats, perfstats.plots as p\n"
        "p.find_modes([1.0, 2.0, 2.5, 9.0]); p.criterion\n"
        "assert 'matplotlib' not in sys.modules, 'matplotlib was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_perfstats_plots_is_reachable_from_perfstats() -> None:
    assert perfstats.plots is plots
    assert callable(plots.trajectory) and callable(plots.change_table)


# -- modes -------------------------------------------------------------------


@pytest.mark.parametrize(
    "centres",
    [(100.0,), (100.0, 130.0), (50.0, 80.0, 120.0)],
)
def test_find_modes_locates_each_component_of_a_mixture(centres: tuple[float, ...]) -> None:
    rng = np.random.default_rng(len(centres))
    x = np.concatenate([rng.normal(c, 3.0, 500) for c in centres])
    found = plots.find_modes(x)
    assert found.count == len(centres)
    assert np.allclose(found.locations, centres, atol=1.5)
    assert found.multimodal == (len(centres) > 1)


def test_find_modes_ignores_a_small_bump_below_the_prominence() -> None:
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.normal(100, 3, 1000), rng.normal(130, 3, 40)])
    assert plots.find_modes(x, prominence=0.1).count == 1
    assert plots.find_modes(x, prominence=0.02).count == 2


def test_find_modes_of_a_constant_sample_is_its_value() -> None:
    found = plots.find_modes([7.0] * 20)
    assert found.count == 1 and found.main == 7.0 and found.bandwidth == 0.0


def test_binned_density_matches_scipys_gaussian_kde() -> None:
    x = np.random.default_rng(5).gamma(3.0, 10.0, size=800)
    h = silverman_bandwidth(x)
    grid, density = density_grid(x, h)
    exact = gaussian_kde(x, bw_method=h / np.std(x, ddof=1))(grid)
    # Binning moves each point by at most half a bin (h / 10).
    assert np.max(np.abs(density - exact)) < 0.02 * exact.max()
    assert abs(density.sum() * (grid[1] - grid[0]) - 1.0) < 1e-6


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"prominence": 0.0}, "prominence"),
        ({"prominence": 1.5}, "prominence"),
        ({"bandwidth": -1.0}, "bandwidth"),
        ({"bandwidth": math.nan}, "bandwidth"),
    ],
)
def test_find_modes_rejects_bad_options(kwargs: dict[str, float], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        plots.find_modes([1.0, 2.0, 3.0], **kwargs)


def test_find_modes_rejects_bad_data() -> None:
    with pytest.raises(ValueError, match="data"):
        plots.find_modes([1.0, math.nan])


def test_modes_of_the_real_traces_lie_on_density_peaks(
    scope_traces: dict[str, np.ndarray],
) -> None:
    for name, x in scope_traces.items():
        found = plots.find_modes(x)
        assert found.count >= 1, name
        assert x.min() <= found.locations.min() and found.locations.max() <= x.max(), name
        _, density = density_grid(x, found.bandwidth)
        # The highest mode is the density's maximum.
        assert found.densities.max() == pytest.approx(density.max()), name


# -- distribution ------------------------------------------------------------


def test_histogram_draws_each_interval_and_mode(lognormal: np.ndarray) -> None:
    qs = [0.25, 0.5, 0.9]
    fig = plots.histogram(lognormal, q=qs, method="order")
    ax = fig.axes[0]
    intervals = perfstats.percentile_ci(lognormal, qs, method="order")
    spans = [span_x(p) for p in ax.patches if p.get_alpha() == 0.25]
    assert len(spans) == len(qs)
    for iv, span in zip(intervals, spans, strict=True):
        (line,) = labelled(ax, f"P{100 * iv.q:g} ")
        assert line.get_xdata()[0] == pytest.approx(iv.estimate)
        assert span == pytest.approx((iv.low, iv.high))
    (marks,) = labelled(ax, "1 mode") or labelled(ax, "2 modes") or labelled(ax, "3 modes")
    assert np.allclose(marks.get_xdata(), plots.find_modes(lognormal).locations)


def test_histogram_passes_interval_options_and_can_skip_modes(lognormal: np.ndarray) -> None:
    fig = plots.histogram(
        lognormal, q=[0.5], method="bootstrap", ci_options={"rng": 3}, modes=False
    )
    iv = perfstats.percentile_ci(lognormal, 0.5, method="bootstrap", rng=3)
    (span,) = [span_x(p) for p in fig.axes[0].patches if p.get_alpha() == 0.25]
    assert span == pytest.approx((iv.low, iv.high))
    assert not [line for line in fig.axes[0].lines if "mode" in str(line.get_label())]


def test_histogram_draws_on_a_given_axes(lognormal: np.ndarray) -> None:
    fig = Figure()
    left, right = fig.subplots(1, 2)
    assert plots.histogram(lognormal, ax=right) is fig
    assert len(fig.axes) == 2 and right.lines and not left.lines


def test_histogram_log_axis_needs_positive_data(lognormal: np.ndarray) -> None:
    assert plots.histogram(lognormal, log=True).axes[0].get_xscale() == "log"
    with pytest.raises(ValueError, match="positive"):
        plots.histogram(lognormal - 30.0, log=True)


def test_ecdf_draws_the_staircase_and_each_interval_as_a_bar(lognormal: np.ndarray) -> None:
    # 30 points: the order interval of P90 has no upper rank, so an arrow
    # must point off the edge.
    x = lognormal[:30]
    fig = plots.ecdf(x, q=[0.5, 0.9])
    ax = fig.axes[0]
    (stairs,) = labelled(ax, "ECDF")
    assert np.array_equal(stairs.get_xdata(), np.sort(x))
    assert np.allclose(stairs.get_ydata(), np.arange(1, 31) / 30)
    median, p90 = perfstats.percentile_ci(x, [0.5, 0.9])
    bars = [line for line in ax.lines if line.get_linewidth() == 4]
    assert np.allclose(bars[0].get_xdata(), [median.low, median.high])
    assert np.allclose(bars[0].get_ydata(), [0.5, 0.5])
    assert math.isinf(p90.high)
    assert bars[1].get_xdata()[1] == pytest.approx(x.max())
    assert [line for line in ax.lines if line.get_marker() == ">"]


# -- stop trajectory -----------------------------------------------------------

# Rules whose decision is exactly "criterion against threshold", and how.
EXACT_RULES = [
    (Metior(rng=1), lambda v, t: v <= t),
    (PT4Cloud(threshold=0.99), lambda v, t: v >= t),
    (CIWidth(error=0.02, interval=5, min_n=10), lambda v, t: v < t),
    (KSHalves(threshold=0.2, interval=5, min_n=10), lambda v, t: v < t),
    (BasicBootstrap(error=0.02, rng=1), lambda v, t: v < t),
    (CoV(threshold=0.01, window=3, interval=5), lambda v, t: v <= t),
]


@pytest.mark.parametrize(("rule", "stops"), EXACT_RULES, ids=lambda r: type(r).__name__)
def test_criterion_is_the_number_each_rule_decides_on(rule: Any, stops: Any) -> None:
    x = np.random.default_rng(2).lognormal(3.0, 0.1, size=300)
    decisions = plots.judgements(rule, x)
    assert any(d.stop for d in decisions) and not all(d.stop for d in decisions)
    for d in decisions:
        c = plots.criterion(d)
        assert c is not None
        (value,) = c.values.values()
        assert d.stop == stops(value, c.threshold), d


def test_superflow_criterion_holds_every_percentile_of_the_current_runs() -> None:
    x = np.random.default_rng(4).lognormal(3.0, 0.1, size=400)
    for d in plots.judgements(SuperFlow(error=0.01), x):
        c = plots.criterion(d)
        assert c is not None and set(c.values) == {"P25", "P50", "P75"}
        assert c.threshold == 0.01 and not c.stop_above
        if d.stop:
            assert max(c.values.values()) < 0.01


def test_criterion_of_waiting_and_fixed_decisions_is_none() -> None:
    assert plots.criterion(Fixed(n=5).check(np.arange(1.0, 10.0))) is None
    assert plots.criterion(SuperFlow().check([1.0, 2.0])) is None


def test_judgements_follow_the_replay_grid() -> None:
    x = np.random.default_rng(6).normal(50.0, 2.0, size=87)
    rule = PT4Cloud(interval=10)
    decisions = plots.judgements(rule, x, max_n=70)
    assert [d.n for d in decisions] == list(judgement_grid(rule, 70))
    assert decisions == [rule.check(x[: d.n]) for d in decisions]


def _plain(decisions: list[Any]) -> list[dict[str, Any]]:
    # As a run's metadata keeps them: JSON, with non-finite floats as strings.
    def fix(obj: Any) -> Any:
        if isinstance(obj, float) and not math.isfinite(obj):
            return str(obj)
        if isinstance(obj, dict):
            return {k: fix(v) for k, v in obj.items()}
        return obj

    return json.loads(json.dumps([fix(d.to_dict()) for d in decisions]))


def test_trajectory_draws_criterion_threshold_and_first_stop() -> None:
    x = np.random.default_rng(8).lognormal(3.0, 0.15, size=600)
    monitor = Monitor(SuperFlow(error=0.03))
    assert monitor.add(x).stop
    history = monitor.history
    ax = plots.trajectory(monitor).axes[0]
    for name in ("P25", "P50", "P75"):
        (line,) = labelled(ax, name)
        values = [plots.criterion(d).values[name] for d in history]  # type: ignore[union-attr]
        ns = [d.n for d, v in zip(history, values, strict=True) if math.isfinite(v)]
        assert list(line.get_xdata()) == ns
        assert np.allclose(line.get_ydata(), [v for v in values if math.isfinite(v)])
    (threshold,) = labelled(ax, "threshold")
    assert threshold.get_ydata()[0] == 0.03
    (stop,) = labelled(ax, "stop at")
    assert stop.get_xdata()[0] == history[-1].n == monitor.decision.n
    # The unbounded first judgements are marked, not dropped silently.
    assert labelled(ax, "not bounded yet")
    # Log scale exactly when the values span more than a factor of 20.
    drawn = np.concatenate([line.get_ydata() for line in labelled(ax, "P")] + [[0.03]])
    assert (ax.get_yscale() == "log") == (drawn.max() / drawn.min() > 20)
    assert plots.trajectory(history, log=True).axes[0].get_yscale() == "log"


def test_trajectory_of_recorded_dicts_equals_that_of_decisions() -> None:
    x = np.random.default_rng(9).lognormal(3.0, 0.3, size=200)
    decisions = plots.judgements(SuperFlow(error=0.02), x)
    from_objects = plots.trajectory(decisions).axes[0]
    from_json = plots.trajectory(_plain(decisions)).axes[0]
    assert len(from_objects.lines) == len(from_json.lines)
    for a, b in zip(from_objects.lines, from_json.lines, strict=True):
        assert a.get_label() == b.get_label()
        assert np.array_equal(a.get_xdata(), b.get_xdata())
        assert np.array_equal(a.get_ydata(), b.get_ydata())


def test_trajectory_of_a_similarity_rule_is_linear_and_marks_max_n() -> None:
    x = np.random.default_rng(10).normal(100.0, 20.0, size=60)
    monitor = Monitor(PT4Cloud(threshold=0.999), max_n=40)
    monitor.add(x)
    ax = plots.trajectory(monitor.history).axes[0]
    assert ax.get_yscale() == "linear"
    (stop,) = labelled(ax, "max_n reached at")
    assert stop.get_xdata()[0] == 40


def test_trajectory_without_criterion_shows_the_judgements() -> None:
    ax = plots.trajectory(plots.judgements(Fixed(n=3), np.arange(1.0, 12.0))).axes[0]
    (marks,) = labelled(ax, "judgements")
    assert list(marks.get_xdata()) == [3, 6, 9]


@pytest.mark.parametrize("history", [[], [object()], "decisions", 3])
def test_trajectory_rejects_what_is_no_history(history: Any) -> None:
    with pytest.raises(ValueError, match=r"decision|history"):
        plots.trajectory(history)


# -- relative change -----------------------------------------------------------


@pytest.mark.parametrize("paired", [False, True])
def test_change_replicates_reproduce_the_relative_change_interval(paired: bool) -> None:
    rng = np.random.default_rng(12)
    a = rng.lognormal(3.0, 0.2, 150)
    b = a * rng.lognormal(0.05, 0.05, 150) if paired else rng.lognormal(3.05, 0.2, 150)
    rc = perfstats.relative_change(a, b, paired=paired, level=0.99, n_resamples=20000, rng=1)
    reps = plots.change_replicates(a, b, paired=paired, n_resamples=20000, rng=2)
    low, high = np.quantile(reps, [0.005, 0.995])
    # Two Monte Carlo draws of the same bootstrap: the 0.5% and 99.5% points
    # agree to a small part of the interval's width.
    assert abs(low - rc.low) < 0.1 * (rc.high - rc.low)
    assert abs(high - rc.high) < 0.1 * (rc.high - rc.low)
    # With the same seed they are the very draws the interval is read from.
    same = plots.change_replicates(a, b, paired=paired, n_resamples=20000, rng=1)
    alpha = (1.0 - 0.99) / 2.0  # as relative_change computes it, to the last bit
    assert np.quantile(same, [alpha, 1.0 - alpha]).tolist() == [rc.low, rc.high]


def test_paired_replicates_of_identical_samples_are_zero() -> None:
    a = np.random.default_rng(13).lognormal(3.0, 0.2, 50)
    assert np.all(plots.change_replicates(a, a, paired=True, n_resamples=200, rng=1) == 0.0)


def test_change_distribution_shows_relative_changes_interval() -> None:
    rng = np.random.default_rng(14)
    a, b = rng.lognormal(3.0, 0.1, 120), rng.lognormal(3.0, 0.1, 120) * 1.08
    ax = plots.change_distribution(a, b, n_resamples=4000, rng=5).axes[0]
    seed = int(np.random.default_rng(5).integers(0, 2**63 - 1, size=2)[0])
    rc = perfstats.relative_change(a, b, n_resamples=4000, rng=seed)
    (span,) = [span_x(p) for p in ax.patches if p.get_alpha() == 0.25]
    assert span == pytest.approx((rc.low, rc.high))
    (estimate,) = labelled(ax, "estimate")
    assert estimate.get_xdata()[0] == pytest.approx(rc.estimate)
    assert ax.get_title().endswith("slower") and rc.direction == "slower"
    # the histogram holds the very resamples the interval is read from
    reps = plots.change_replicates(a, b, n_resamples=4000, rng=seed)
    counts, _ = np.histogram(reps, bins=60)
    bars = [p.get_height() for p in ax.patches if p.get_alpha() != 0.25]
    assert bars == counts.tolist()


def test_change_replicates_reject_unequal_pairs() -> None:
    with pytest.raises(ValueError, match="equal length"):
        plots.change_replicates([1.0, 2.0], [1.0, 2.0, 3.0], paired=True)


# -- A-B suite -------------------------------------------------------------------


def test_change_frame_gives_elastibenchs_verdicts() -> None:
    frame = plots.change_frame(
        {
            "up": change_of(0.1, 0.05, 0.15),
            "down": change_of(-0.1, -0.15, -0.05),
            "flat": change_of(0.0, -0.01, 0.02),
        }
    )
    assert dict(zip(frame["benchmark"], frame["verdict"], strict=True)) == {
        "up": "slower",
        "down": "faster",
        "flat": "no change",
    }


def test_change_frame_accepts_comparisons_and_frames() -> None:
    rng = np.random.default_rng(15)
    a = rng.lognormal(3.0, 0.1, 60)
    comparison = perfstats.compare(a, a * 1.3, paired=True, n_resamples=500, rng=1)
    frame = plots.change_frame({"x": comparison})
    assert frame.loc[0, "estimate"] == pytest.approx(comparison.change.estimate)
    table = pd.DataFrame({"benchmark": ["b"], "estimate": [0.2], "low": [0.1], "high": [0.3]})
    assert list(plots.change_frame(table)["verdict"]) == ["slower"]


@pytest.mark.parametrize(
    "results",
    [{}, {"x": object()}, {"x": change_of(0.0, 0.1, -0.1)}, pd.DataFrame({"estimate": [0.1]}), [1]],
)
def test_change_frame_rejects_bad_results(results: Any) -> None:
    with pytest.raises(ValueError):
        plots.change_frame(results)


def test_change_table_rows_follow_the_sort_and_show_the_numbers() -> None:
    suite = {
        "a": change_of(0.02, -0.01, 0.05),
        "b": change_of(0.3, 0.2, 0.4),
        "c": change_of(-0.2, -0.3, -0.1),
    }
    ax = plots.change_table(suite).axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["b", "a", "c"]
    texts = [t.get_text() for t in ax.texts]
    assert "+30.00% [+20.00%, +40.00%] slower" in texts
    assert "-20.00% [-30.00%, -10.00%] faster" in texts
    assert "1 slower, 1 faster, 1 unchanged" in ax.get_title()
    by_name = plots.change_table(suite, sort="name").axes[0]
    assert [t.get_text() for t in by_name.get_yticklabels()] == ["a", "b", "c"]
    with pytest.raises(ValueError, match="sort"):
        plots.change_table(suite, sort="size")


# -- accuracy against cost -------------------------------------------------------


def test_accuracy_cost_plots_the_mean_per_technique_and_group() -> None:
    tests = pd.DataFrame(
        {
            "technique": ["A", "A", "A", "B", "B", "B"],
            "start": ["cold", "cold", "warm", "cold", "warm", "warm"],
            "accuracy": [0.9, 0.7, 0.6, 0.5, 0.4, 0.2],
            "stop_n": [100, 300, 50, 10, 20, 40],
        }
    )
    ax = plots.accuracy_cost(tests, group="start").axes[0]
    points = sorted(
        (line.get_xdata()[0], line.get_ydata()[0], line.get_marker()) for line in ax.lines
    )
    assert [(x, m) for x, _, m in points] == [(10.0, "o"), (30.0, "s"), (50.0, "s"), (200.0, "o")]
    assert [y for _, y, _ in points] == pytest.approx([0.5, 0.3, 0.6, 0.8])
    assert sorted(t.get_text() for t in ax.texts) == ["A", "B"]
    assert ax.get_xlabel().startswith("cost: stop_n")


def test_accuracy_cost_finds_columns_or_says_which_are_missing() -> None:
    rows = [{"technique": "M", "accurate": True, "mean_executions": 290.0}]
    ax = plots.accuracy_cost(rows).axes[0]
    assert ax.get_ylabel() == "accuracy: accurate"
    with pytest.raises(ValueError, match="cost"):
        plots.accuracy_cost([{"technique": "M", "accuracy": 0.9}])
    with pytest.raises(ValueError, match="technique"):
        plots.accuracy_cost([{"name": "M", "accuracy": 0.9, "cost": 3}])
    with pytest.raises(ValueError, match="empty"):
        plots.accuracy_cost([])


# -- rendering ---------------------------------------------------------------------


def test_every_plot_renders_to_a_non_blank_png(lognormal: np.ndarray) -> None:
    rng = np.random.default_rng(16)
    other = lognormal * rng.lognormal(0.05, 0.02, lognormal.size)
    figures = [
        plots.histogram(lognormal),
        plots.ecdf(lognormal, log=True),
        plots.trajectory(plots.judgements(Metior(rng=1), lognormal)),
        plots.change_distribution(lognormal, other, paired=True, n_resamples=500, rng=1),
        plots.change_table({"x": change_of(0.05, 0.01, 0.09)}),
        plots.accuracy_cost([{"technique": "T", "accuracy": 0.5, "cost": 10.0}]),
    ]
    for fig in figures:
        pixels = png_pixels(fig)
        non_white = np.any(pixels < 250, axis=2).mean()
        assert 0.02 < non_white < 0.9
