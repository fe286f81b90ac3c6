"""The fused bounds kernel (quickselect, tail brackets) against numpy.quantile, value for value."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from perfstats._kernels.select import (
    TAIL_MIN_ROWS,
    TAIL_SAMPLE,
    column_quantiles,
    percentile_bounds,
    select,
    tail_brackets,
)
from perfstats.precision.interval import percentile_ci, quantile_intervals

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


_TAIL_LAYOUTS = ["random", "ascending", "descending", "few values", "infinities", "sample lowest"]


def _tail_column(layout: str, m: int, rng: np.random.Generator) -> np.ndarray:
    col = rng.lognormal(0.0, 1.0, m)
    if layout == "ascending":
        col.sort()
    elif layout == "descending":
        col = -np.sort(-col)
    elif layout == "few values":
        col = rng.integers(0, 3, m).astype(float)
    elif layout == "infinities":
        col[rng.choice(m, 7, replace=False)] = np.inf
        col[rng.choice(m, 5, replace=False)] = -np.inf
    elif layout == "sample lowest":
        # The values at the sampled rows are the column's smallest, so the
        # low bracket holds too few values and the column is selected whole.
        rows = np.arange(TAIL_SAMPLE) * m // TAIL_SAMPLE
        col[rows] = -1.0 - np.arange(TAIL_SAMPLE, dtype=float)
    return col


@pytest.mark.parametrize("layout", _TAIL_LAYOUTS)
@pytest.mark.parametrize("m", [TAIL_MIN_ROWS, 1000, 4001])
def test_tail_brackets_give_the_bounds_of_numpy_quantile(layout: str, m: int) -> None:
    rng = np.random.default_rng(m)
    boot = np.column_stack([_tail_column(layout, m, rng) for _ in range(3)])
    qs = np.array([0.25, 0.5, 0.75])
    for tail in (0.0, 0.001, 0.005, 0.025, 0.05, 0.1):
        rows = percentile_bounds(boot, tail, np.arange(5.0), qs)
        want = np.quantile(boot, [tail, 1.0 - tail], axis=0)
        np.testing.assert_array_equal(rows[:2], want)
    for q in ([0.95], [0.01, 0.99], [0.0, 0.02, 1.0], [0.9, 0.5]):
        np.testing.assert_array_equal(
            column_quantiles(boot, np.array(q)), np.quantile(boot, q, axis=0)
        )


def test_tail_brackets_hold_the_tails_or_report_a_miss() -> None:
    m = 1000
    low, high = np.empty(m), np.empty(m)
    col = np.random.default_rng(2).permutation(m).astype(float)
    n_low, n_high = tail_brackets(col, 26, 40, low, high)
    # Everything at or below the low bracket, everything at or above the
    # high one: the smallest n_low and the largest n_high values.
    assert 26 <= n_low < m // 4 and 40 <= n_high < m // 4
    assert np.array_equal(np.sort(low[:n_low]), np.arange(float(n_low)))
    assert np.array_equal(np.sort(high[:n_high]), np.arange(float(m - n_high), float(m)))
    assert tail_brackets(col, 0, 40, low, high)[0] == 0
    # A sample of the lowest values brackets too few of them.
    col[np.arange(TAIL_SAMPLE) * m // TAIL_SAMPLE] = -1.0 - np.arange(TAIL_SAMPLE)
    assert tail_brackets(col, 26, 40, low, high) == (-1, -1)
    # Tails too wide for the sample: no bracket.
    assert tail_brackets(col, 700, 1, low, high) == (-1, -1)


def test_tail_brackets_refuse_buffers_shorter_than_the_column() -> None:
    col = np.arange(1000.0)
    with pytest.raises(ValueError, match="room for the whole column"):
        tail_brackets(col, 0, 10, np.empty(0), np.empty(1000))
