"""Block-bootstrap quantiles from bands of order statistics.

The band engine must give the direct counting engine's numbers exactly: it
draws the same resamples and only skips counting the points far from the
wanted ranks; a resample whose quantile leaves the band is recounted.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as st
from support.engines import direct_quantiles
from support.samples import ar1_lognormal

import perfstats
from perfstats._kernels.threads import fixed_threads, one_thread
from perfstats._rng import stream_key
from perfstats.precision._resampling import (
    TABLE_MAX_N,
    band_stats,
    make_scheme,
    use_band_engine,
    use_table_engine,
)


@pytest.mark.parametrize(
    ("block_length", "block_kind"),
    [(9, "moving"), (9, "circular"), (8.5, "stationary"), (9, "superflow"), (1, "moving")],
)
@pytest.mark.parametrize("spread", [7.0, 0.3])
def test_band_engine_equals_direct_counting(
    block_length: float, block_kind: str, spread: float
) -> None:
    # spread=0.3 makes the band too narrow on purpose: many resamples are
    # recounted, and must still give the same numbers.
    x = np.round(ar1_lognormal(3000, 0.6, 1), 1)  # ties too
    qs = np.array([0.9, 0.01, 0.5, 0.52, 1.0, 0.0])
    scheme = make_scheme(x, block_length, block_kind)
    key = stream_key(17)
    got = band_stats(scheme, qs, 400, key, spread=spread)
    np.testing.assert_array_equal(got, direct_quantiles(scheme, qs, 400, key))


@pytest.mark.parametrize("n", [20_000, 1000])  # bands; window tables
def test_public_block_interval_unchanged_by_the_band_and_table_engines(n: int) -> None:
    x = ar1_lognormal(n, 0.5, 2)
    scheme = make_scheme(x, 25, "moving")
    assert use_band_engine(scheme) if n > TABLE_MAX_N else use_table_engine(scheme, 3)
    ivs = perfstats.percentile_ci(
        x, [0.25, 0.5, 0.75], method="block", block_length=25, n_resamples=500, rng=3
    )
    boot = direct_quantiles(scheme, np.array([0.25, 0.5, 0.75]), 500, stream_key(3))
    tail = (1.0 - 0.95) / 2.0  # as percentile_ci computes it
    ref = np.quantile(boot, [tail, 1.0 - tail], axis=0)
    assert [(iv.low, iv.high) for iv in ivs] == list(zip(ref[0], ref[1], strict=True))


@pytest.mark.parametrize("block_length", [30, 2])  # bands; block classes
def test_band_engines_same_for_any_thread_count(block_length: int) -> None:
    x = ar1_lognormal(30_000, 0.5, 4)
    kw = {"block_length": block_length, "n_resamples": 300, "rng": 1}
    with one_thread():
        a = perfstats.bootstrap_distribution(x, 0.5, **kw)  # type: ignore[arg-type]
    with fixed_threads(2):
        b = perfstats.bootstrap_distribution(x, 0.5, **kw)  # type: ignore[arg-type]
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    ("block_length", "block_kind"), [(2, "moving"), (3, "circular"), (2, "superflow")]
)
@pytest.mark.parametrize("spread", [6.0, 0.3])
def test_block_classes_draw_the_direct_distribution(
    block_length: int, block_kind: str, spread: float
) -> None:
    # Short blocks: plain blocks drawn by class. Not the same resamples as
    # direct counting, the same distribution (spread=0.3 completes and
    # recounts most resamples, which must not change it either).
    x = np.round(ar1_lognormal(4000, 0.3, 5), 2)
    qs = np.array([0.5, 0.1, 0.95])
    scheme = make_scheme(x, block_length, block_kind)
    got = band_stats(scheme, qs, 3000, stream_key(21), spread=spread, classes=True)
    ref = direct_quantiles(scheme, qs, 3000, stream_key(22))
    for i in range(qs.size):
        assert st.ks_2samp(got[:, i], ref[:, i]).pvalue > 1e-3
    again = band_stats(scheme, qs, 3000, stream_key(21), spread=spread, classes=True)
    np.testing.assert_array_equal(got, again)
