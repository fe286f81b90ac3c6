"""Percentile-bootstrap bounds from sorted replicate columns.

``resample_bounds`` replaces ``numpy.quantile(boot, [tail, 1 - tail],
axis=0)`` in :func:`perfstats.percentile_ci` and must give its numbers
exactly, so no interval changes.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as hs

import perfstats
from perfstats._kernels.select import column_quantiles
from perfstats.precision.interval import resample_bounds


@settings(max_examples=200, deadline=None)
@given(
    m=hs.integers(1, 3000),
    k=hs.integers(1, 5),
    tail=hs.one_of(hs.sampled_from([0.0, 0.005, 0.025, 0.05, 0.5]), hs.floats(0.0, 0.5)),
    decimals=hs.sampled_from([None, 0, 2]),
    seed=hs.integers(0, 2**32 - 1),
)
def test_bounds_equal_numpy_quantile(
    m: int, k: int, tail: float, decimals: int | None, seed: int
) -> None:
    boot = np.random.default_rng(seed).lognormal(0.0, 2.0, (m, k))
    if decimals is not None:
        boot = np.round(boot, decimals)  # ties
    lows, highs = resample_bounds(boot, tail)
    want = np.quantile(boot, [tail, 1.0 - tail], axis=0)
    np.testing.assert_array_equal(lows, want[0])
    np.testing.assert_array_equal(highs, want[1])


@settings(max_examples=300, deadline=None)
@given(
    m=hs.integers(1, 2000),
    k=hs.integers(1, 4),
    qs=hs.lists(
        hs.one_of(hs.sampled_from([0.0, 0.05, 0.5, 0.95, 1.0]), hs.floats(0.0, 1.0)),
        min_size=1,
        max_size=6,
    ),
    decimals=hs.sampled_from([None, 0, 1]),
    seed=hs.integers(0, 2**32 - 1),
)
def test_column_quantiles_equal_numpy_quantile(
    m: int, k: int, qs: list[float], decimals: int | None, seed: int
) -> None:
    # Unsorted and repeated quantiles, ranks next to each other and ties:
    # the cases where a selection right of the last one can go wrong.
    boot = np.random.default_rng(seed).lognormal(0.0, 1.0, (m, k))
    if decimals is not None:
        boot = np.round(boot, decimals)
    q = np.array(qs)
    np.testing.assert_array_equal(column_quantiles(boot, q), np.quantile(boot, q, axis=0))


def test_column_quantiles_give_nan_for_a_column_with_nan_as_numpy_does() -> None:
    boot = np.arange(30.0).reshape(10, 3)
    boot[4, 1] = np.nan
    qs = np.array([0.1, 0.5, 0.9])
    np.testing.assert_array_equal(column_quantiles(boot, qs), np.quantile(boot, qs, axis=0))


def test_intervals_are_the_numpy_percentiles_of_their_resamples() -> None:
    x = np.random.default_rng(2).lognormal(3.0, 0.5, 700)
    for method, extra in (("bootstrap", {}), ("block", {"block_length": 9})):
        ivs = perfstats.percentile_ci(
            x, [0.9, 0.25, 0.5], method=method, n_resamples=1500, rng=6, level=0.9, **extra
        )
        for iv in ivs:
            boot = perfstats.bootstrap_distribution(
                x, iv.q, n_resamples=1500, rng=6, block_length=extra.get("block_length")
            )
            assert (iv.low, iv.high) == tuple(np.quantile(boot, [0.05, 0.95]))
