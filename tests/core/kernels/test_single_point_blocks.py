"""Blocks of one point are the i.i.d. bootstrap of the points they can start at.

Under ``engine="auto"`` such a scheme draws its quantiles by order-statistic
chains instead of counting every point: the same distribution as the direct
engine, not the same numbers. ``engine="direct"`` keeps the counted numbers.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as st
from support.engines import direct_quantiles
from support.samples import ar1_lognormal

import perfstats
from perfstats._rng import stream_key
from perfstats.precision._resampling import (
    SINGLE_POINT_CHAIN_MIN_N,
    make_scheme,
    resampled_stats,
    single_point_pool,
)

KINDS = ["moving", "circular", "stationary", "superflow"]


@pytest.mark.parametrize("block_kind", KINDS)
@pytest.mark.parametrize(
    ("n", "seed"), [(SINGLE_POINT_CHAIN_MIN_N, 1), (101, 2), (300, 3), (1500, 4)]
)
def test_single_point_blocks_draw_the_direct_distribution(
    block_kind: str, n: int, seed: int
) -> None:
    # Dependent data with ties: only the pool of starts may matter, not the order.
    x = np.round(ar1_lognormal(n, 0.6, seed), 1)
    qs = np.array([0.5, 0.1, 0.9])
    scheme = make_scheme(x, 1, block_kind)
    got = resampled_stats(scheme, qs, False, 4000, stream_key(seed))
    ref = direct_quantiles(scheme, qs, 4000, stream_key(seed + 100))
    assert not np.array_equal(got, ref)  # drawn by chains, not counted
    for i in range(qs.size):
        assert st.ks_2samp(got[:, i], ref[:, i]).pvalue > 1e-3, (block_kind, n, qs[i])


def test_superflow_single_point_blocks_never_draw_the_last_point() -> None:
    # The reference scheme has n - 1 starts: a last point far above the rest
    # must never reach a resampled maximum, in chains as in counting.
    x = np.concatenate([np.linspace(1.0, 2.0, 99), [1000.0]])
    scheme = make_scheme(x, 1, "superflow")
    got = resampled_stats(scheme, np.array([1.0]), False, 2000, stream_key(5))
    assert got.max() <= 2.0
    assert single_point_pool(scheme).size == 99


@pytest.mark.parametrize("block_kind", ["moving", "circular", "stationary"])
def test_single_point_block_interval_is_the_iid_bootstrap_interval(block_kind: str) -> None:
    x = ar1_lognormal(400, 0.4, 6)
    kw = {"n_resamples": 700, "rng": 11}
    block = perfstats.percentile_ci(
        x, [0.25, 0.5, 0.75], method="block", block_length=1, block_kind=block_kind, **kw
    )
    iid = perfstats.percentile_ci(x, [0.25, 0.5, 0.75], method="bootstrap", **kw)
    assert [(b.low, b.high, b.estimate) for b in block] == [
        (i.low, i.high, i.estimate) for i in iid
    ]


@pytest.mark.parametrize(("n", "engine"), [(250, "direct"), (SINGLE_POINT_CHAIN_MIN_N - 1, "auto")])
def test_small_samples_and_the_direct_engine_still_count_single_point_blocks(
    n: int, engine: str
) -> None:
    x = ar1_lognormal(n, 0.5, 7)
    scheme = make_scheme(x, 1, "superflow")
    qs = np.array([0.25, 0.75])
    got = resampled_stats(scheme, qs, False, 300, stream_key(8), engine=engine)
    np.testing.assert_array_equal(got, direct_quantiles(scheme, qs, 300, stream_key(8)))
