"""Fixed-length block quantiles of small samples from window rank tables (issue 14).

The table engine (``perfstats._kernels.blocktable``) must give the direct
counting engine's numbers exactly: it draws the same blocks from the same
streams and finds the same order statistics, only by table look-ups.
"""

from __future__ import annotations

import numpy as np
import pytest
from support.engines import direct_quantiles
from support.samples import ar1_lognormal

import perfstats
from perfstats._kernels import blocktable as kt
from perfstats._kernels.threads import fixed_threads, one_thread
from perfstats._resampling import (
    TABLE_MAX_N,
    make_scheme,
    table_stats,
    use_table_engine,
)
from perfstats._rng import stream_key

SIZES = [(1000, 18), (1000, 40), (1000, 1), (257, 16), (2047, 5), (300, 150), (64, 64), (12, 3)]
# The reference scheme resamples (n - b) // b whole blocks, so it needs n >= 2 b.
CASES = [
    (n, b, kind)
    for kind in ("moving", "circular", "superflow")
    for n, b in SIZES
    if kind != "superflow" or (n - b) // b >= 1
]


@pytest.mark.parametrize(("n", "block_length", "block_kind"), CASES)
def test_table_engine_equals_direct_counting(n: int, block_length: int, block_kind: str) -> None:
    x = np.round(ar1_lognormal(n, 0.6, n + block_length), 1)  # ties too
    # Unsorted, repeated, extreme and nearly equal quantiles: the group
    # pointers must also step back between neighbouring quantiles.
    qs = np.array([0.9, 0.01, 0.5, 0.5001, 0.5002, 1.0, 0.0, 0.5])
    scheme = make_scheme(x, block_length, block_kind)
    key = stream_key(n * 7 + block_length)
    np.testing.assert_array_equal(
        table_stats(scheme, qs, 300, key), direct_quantiles(scheme, qs, 300, key)
    )


def test_window_tables_match_their_definition() -> None:
    x = ar1_lognormal(700, 0.5, 3)
    scheme = make_scheme(x, 9, "circular")
    n, b = x.size, 9
    coarse, fine, masks, *_ = kt.window_tables(scheme.ranks, b, n, 0)
    # Group-major: the int16 counts of a group of columns of one window lie
    # side by side, the windows one after the other.
    coarse_rows = coarse.view(np.int16).reshape(-1, n, 4).transpose(1, 0, 2).reshape(n, -1)
    fine_rows = fine.view(np.int16).transpose(1, 0, 2).reshape(n, -1)
    for s in (0, 1, 350, n - b, n - 1):  # the last windows wrap around
        window = scheme.ranks[(s + np.arange(b)) % n]
        for rows, shift in ((coarse_rows, kt.COARSE), (fine_rows, kt.FINE)):
            edges = np.arange(rows.shape[1]) << shift
            np.testing.assert_array_equal(rows[s], (window[:, None] < edges).sum(axis=0))
        for g in range(masks.shape[0]):
            bits = [t for t in range(16) if (int(masks[g, s]) >> t) & 1]
            assert bits == sorted(int(r) - 16 * g for r in window if r // 16 == g)


def test_superflow_and_metior_decisions_use_the_tables() -> None:
    x = ar1_lognormal(1000, 0.5, 7)
    scheme = make_scheme(x, "auto", "moving")
    assert use_table_engine(scheme, 3)
    assert use_table_engine(make_scheme(x, 6, "moving"), 1)
    assert not use_table_engine(make_scheme(x, 6, "moving"), 3)  # counting is cheaper
    assert not use_table_engine(make_scheme(x, 4.5, "stationary"), 1)
    assert TABLE_MAX_N <= kt.MAX_N
    big = make_scheme(ar1_lognormal(TABLE_MAX_N + 1, 0.5, 1), 20, "moving")
    assert not use_table_engine(big, 1)


def test_table_engine_same_for_any_thread_count() -> None:
    x = ar1_lognormal(1500, 0.5, 4)
    kw = {"block_length": 12, "n_resamples": 300, "rng": 1}
    with one_thread():
        a = perfstats.bootstrap_distribution(x, 0.5, **kw)  # type: ignore[arg-type]
    with fixed_threads(2):
        b = perfstats.bootstrap_distribution(x, 0.5, **kw)  # type: ignore[arg-type]
    np.testing.assert_array_equal(a, b)
