"""The fused bounds kernel (quickselect) against numpy.quantile, value for value."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from perfstats._kernels.select import percentile_bounds, select
from perfstats.intervals import percentile_ci, quantile_intervals

_values = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
_elements = st.sampled_from([0.0, 1.0, 2.5, -3.0]) | _values
_METHODS = ["order", "order-normal", "exact-bootstrap", "bootstrap", "block"]


@settings(max_examples=300, deadline=None)
@given(
    boot=st.integers(1, 60).flatmap(lambda m: arrays(np.float64, (m, 3), elements=_elements)),
    tail=st.floats(0.0, 0.5),
)
def test_bounds_equal_numpy_quantile(boot: np.ndarray, tail: float) -> None:
    qs = np.array([0.1, 0.5, 0.9])
    sorted_x = np.sort(boot[:, 0].copy())
    rows = percentile_bounds(boot, tail, sorted_x, qs)
    assert np.array_equal(rows[:2], np.quantile(boot, [tail, 1.0 - tail], axis=0))
    assert np.array_equal(rows[2], np.quantile(sorted_x, qs))


@pytest.mark.parametrize("m", [1, 2, 3, 40, 1000, 4001])
@pytest.mark.parametrize("distinct", [1, 2, 7, None])
def test_bounds_with_heavy_ties(m: int, distinct: int | None) -> None:
    # Resampled quantiles take few distinct values: the case a quickselect
    # that does not split ties evenly degrades on.
    rng = np.random.default_rng(m)
    if distinct is None:
        boot = rng.normal(size=(m, 4))
    else:
        boot = rng.integers(0, distinct, size=(m, 4)).astype(float)
    for tail in (0.0, 0.005, 0.025, 0.05, 0.25, 0.5):
        rows = percentile_bounds(boot, tail, np.arange(5.0), np.array([0.3, 0.5, 0.7, 1.0]))
        assert np.array_equal(rows[:2], np.quantile(boot, [tail, 1.0 - tail], axis=0))


def test_nan_column_gives_nan() -> None:
    boot = np.arange(30.0).reshape(10, 3)
    boot[4, 1] = np.nan
    rows = percentile_bounds(boot, 0.025, np.arange(3.0), np.array([0.1, 0.5, 0.9]))
    assert np.isnan(rows[:2, 1]).all()
    assert np.array_equal(rows[:2, [0, 2]], np.quantile(boot[:, [0, 2]], [0.025, 0.975], axis=0))


def test_select_partitions_around_k() -> None:
    rng = np.random.default_rng(3)
    for _ in range(50):
        a = rng.integers(0, 5, size=int(rng.integers(1, 200))).astype(float)
        k = int(rng.integers(0, a.size))
        want = np.sort(a)[k]
        b = a.copy()
        assert select(b, 0, b.size - 1, k) == want
        assert (b[:k] <= want).all() and (b[k + 1 :] >= want).all()
        assert np.array_equal(np.sort(b), np.sort(a))


@pytest.mark.parametrize("method", _METHODS)
def test_validated_entry_point_equals_percentile_ci(method: str) -> None:
    x = np.random.default_rng(5).lognormal(3.0, 0.4, size=257)
    qs = np.array([0.25, 0.5, 0.75])
    got = quantile_intervals(x, qs, 0.9, method, 400, "auto", "moving", "auto", rng=11)
    assert got == percentile_ci(x, qs, level=0.9, method=method, n_resamples=400, rng=11)
