"""perfstats.change_points: e-divisive statistic, search, magnitudes, bad input, plot."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfstats import change_points, plots
from perfstats._kernels.edivisive import (
    all_splits,
    best_split,
    permutation_maxima_parallel,
    permutation_maxima_serial,
)


def _by_distance_matrix(x: np.ndarray) -> np.ndarray:
    """q(t) from the full distance matrix, as the definition reads."""
    n = x.size
    d = np.abs(x[:, None] - x[None, :])
    out = np.zeros(n)
    for t in range(1, n):
        m = n - t
        e = 2 * d[:t, t:].mean() - d[:t, :t].sum() / t**2 - d[t:, t:].sum() / m**2
        out[t] = t * m / n * e
    return out


@given(
    st.lists(st.integers(-5, 5), min_size=2, max_size=40).map(lambda v: np.asarray(v, float))
    | st.lists(st.floats(-1e3, 1e3), min_size=2, max_size=40).map(lambda v: np.asarray(v))
)
@settings(max_examples=150, deadline=None)
def test_split_statistic_matches_distance_matrix(x: np.ndarray) -> None:
    ours = all_splits(x)
    ref = _by_distance_matrix(x)
    np.testing.assert_allclose(ours, ref, rtol=1e-9, atol=1e-9 * (1 + np.abs(x).max()) * x.size)
    _t, q = best_split(x, 1)
    assert q == pytest.approx(ref[1:].max(), rel=1e-9, abs=1e-9 * (1 + np.abs(x).max()) * x.size)


def test_permutations_same_serial_and_parallel() -> None:
    x = np.random.default_rng(1).normal(size=300)
    bounds = np.array([0, 120, 300])
    a = permutation_maxima_serial(x, bounds, 2, 64, np.uint64(9))
    b = permutation_maxima_parallel(x, bounds, 2, 64, np.uint64(9))
    np.testing.assert_array_equal(a, b)
    # A shuffle keeps the values: its best split can be no better than the
    # best split of the values sorted (the largest separation possible).
    assert np.all(a <= best_split(np.sort(x[:120]), 2)[1] + best_split(np.sort(x[120:]), 2)[1])


@pytest.mark.parametrize("seed", range(5))
def test_synthetic_steps_found_within_one(seed: int) -> None:
    rng = np.random.default_rng(seed)
    steps = sorted(rng.choice(np.arange(40, 460, 40), size=4, replace=False))
    levels = 100.0 * np.cumprod(rng.choice([0.92, 0.95, 1.05, 1.08], size=5))
    x = np.concatenate([np.full(b - a, lv) for a, b, lv in
                        zip([0, *steps], [*steps, 500], levels, strict=True)])  # fmt: skip
    x = x * rng.lognormal(0, 0.01, x.size)
    res = change_points(x, rng=seed)
    assert len(res) == len(steps)
    for true, got in zip(steps, res.indices, strict=True):
        assert abs(true - got) <= 1
    for p, lo, hi in zip(res.points, levels[:-1], levels[1:], strict=True):
        # 1% noise: the estimated step is within a point of the true one, and
        # its CI is a narrow one around the estimate.
        assert p.relative and abs(p.change - (hi / lo - 1)) < 0.01
        assert p.low < p.change < p.high and p.high - p.low < 0.02
        assert p.pvalue <= 0.05


def test_no_change_in_noise_and_determinism() -> None:
    found = 0
    for seed in range(20):
        x = np.random.default_rng(100 + seed).lognormal(3, 0.1, 200)
        res = change_points(x, rng=seed)
        found += len(res)
        assert res == change_points(x, rng=seed)
    # Each test is at 5%; twenty noise series give about one false split.
    assert found <= 4


def test_labels_max_points_and_absolute_changes() -> None:
    x = np.r_[np.zeros(30), np.full(30, 3.0), np.full(30, -2.0)]
    x = x + np.random.default_rng(2).normal(0, 0.2, 90)
    dates = pd.date_range("2026-01-01", periods=90, freq="D")
    res = change_points(pd.Series(x, index=dates), pvalue=0.01, permutations=199, rng=0)
    assert res.indices == (30, 60)
    assert res.points[0].label == dates[30]
    assert not res.points[0].relative
    assert res.points[0].low <= 3.0 <= res.points[0].high
    assert res.to_dict()["change_points"][0]["label"].startswith("2026-01-31")
    assert list(res.to_frame()["index"]) == [30, 60]
    assert res.segments == ((0, 30), (30, 60), (60, 90))
    assert len(change_points(x, max_points=1, rng=0)) == 1


@pytest.mark.parametrize(
    ("series", "kwargs", "match"),
    [
        ([1.0, float("nan"), 2.0, 3.0], {}, "series"),
        ([1.0, 2.0, 3.0], {}, "needs at least 4"),
        ([1.0, 2.0, 3.0, 4.0], {"labels": ["a"]}, "labels"),
        ([1.0, 2.0, 3.0, 4.0], {"pvalue": 2}, "pvalue"),
        ([1.0, 2.0, 3.0, 4.0], {"permutations": 0}, "permutations"),
        ([1.0, 2.0, 3.0, 4.0], {"statistic": "mode"}, "statistic"),
    ],
)
def test_bad_input(series: list[float], kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        change_points(series, **kwargs)


def test_history_plot() -> None:
    x = np.r_[np.full(25, 5.0), np.full(25, 6.0)] + np.random.default_rng(1).normal(0, 0.05, 50)
    res = change_points(x, pvalue=0.01, permutations=199, rng=0)
    assert res.indices == (25,)
    fig = plots.history(x, res, unit="s", title="t")
    ax = fig.axes[0]
    assert [round(line.get_xdata()[0], 1) for line in ax.lines[3:]] == [24.5]
    with pytest.raises(ValueError, match="series has 10"):
        plots.history(x[:10], res)
    with pytest.raises(ValueError, match="only when result is None"):
        plots.history(x, res, rng=0)


def test_history_change_points_groups_orders_and_labels() -> None:
    from perfstats import history_change_points

    rng = np.random.default_rng(4)
    dates = pd.date_range("2026-03-01", periods=30, freq="D")
    rows = []
    for i, d in enumerate(dates):
        for bench, factor in (("fast", 1.0), ("slow", 1.2 if i >= 20 else 1.0)):
            rows += [(bench, f"sha{i:02d}", d, 5.0 * factor * rng.lognormal(0, 0.005))
                     for _ in range(4)]  # fmt: skip
    frame = pd.DataFrame(rows, columns=["benchmark", "commit", "date", "value"])
    shuffled = frame.sample(frac=1.0, random_state=1)
    res = history_change_points(shuffled, order_by="date", pvalue=0.01, permutations=199, rng=0)
    assert list(res) == list(dict.fromkeys(shuffled["benchmark"]))
    assert res["slow"].indices == (20,) and res["slow"].points[0].label == "sha20"
    assert res["fast"].indices == ()
    with pytest.raises(ValueError, match="missing \\['date'\\]"):
        history_change_points(frame.drop(columns="date"), order_by="date")
    with pytest.raises(ValueError, match="benchmark 'fast'"):
        history_change_points(frame[frame["commit"] == "sha00"])
