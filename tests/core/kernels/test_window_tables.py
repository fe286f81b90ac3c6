"""Fixed-length block quantiles of small samples from window rank tables.

The table engine (``perfstats._kernels.blocktable``) must give the direct
counting engine's numbers exactly: it draws the same blocks from the same
streams and finds the same order statistics, only by table look-ups.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from support.engines import direct_quantiles
from support.samples import ar1_lognormal

import perfstats
from perfstats._kernels import blocktable as kt
from perfstats._kernels.threads import fixed_threads, one_thread
from perfstats._rng import stream_key
from perfstats.precision._resampling import (
    TABLE_MAX_N,
    make_scheme,
    named_distribution,
    nested_named_distributions,
    table_quantiles,
    table_stats,
    use_table_engine,
)

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
    coarse, fine, masks = kt.window_tables(scheme.ranks, b, n)
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


def test_tables_serve_where_they_are_the_faster_engine() -> None:
    x = ar1_lognormal(1000, 0.5, 7)
    # Metior's median at its automatic block length: tables.
    assert use_table_engine(make_scheme(x, "auto", "moving"), 1)
    assert use_table_engine(make_scheme(x, 6, "moving"), 1)
    assert not use_table_engine(make_scheme(x, 5, "moving"), 1)  # counting is cheaper
    # Three quartiles read three fine rows and three masks per block:
    # counting is cheaper up to blocks of about 20 points.
    assert not use_table_engine(make_scheme(x, 18, "moving"), 3)
    assert use_table_engine(make_scheme(x, 22, "moving"), 3)
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


# Prefixes whose last, shorter block differs from the whole sample's (or
# that have none), for both schemes whose windows do not wrap.
NESTED = [
    (1000, 995, 18, "moving"),
    (1000, 990, 18, "moving"),
    (1000, 996, 10, "moving"),
    (640, 600, 40, "superflow"),
    (2047, 2040, 7, "moving"),
    (300, 150, 75, "superflow"),
]


@pytest.mark.parametrize(("n", "n_first", "block_length", "block_kind"), NESTED)
def test_prefix_reads_the_whole_samples_tables(
    n: int, n_first: int, block_length: int, block_kind: str
) -> None:
    # Metior resamples the previous runs and all runs: the prefix's numbers
    # must be those of resampling it alone, ranks, tail and all.
    x = np.round(ar1_lognormal(n, 0.6, n_first), 1)  # ties too
    keys = (stream_key(n_first), stream_key(n))
    for stat in ("median", 0.9, 0.03):
        first, whole = nested_named_distributions(
            x, n_first, stat, 400, block_length, block_kind, keys
        )
        alone = named_distribution(x[:n_first], stat, 400, block_length, block_kind, keys[0])
        np.testing.assert_array_equal(first, alone)
        np.testing.assert_array_equal(
            whole, named_distribution(x, stat, 400, block_length, block_kind, keys[1])
        )
        scheme = make_scheme(x[:n_first], block_length, block_kind)
        np.testing.assert_array_equal(
            first, direct_quantiles(scheme, np.array([0.5 if stat == "median" else stat]),
                                    400, keys[0])[:, 0],
        )  # fmt: skip


def test_nested_falls_back_where_tables_cannot_serve_a_prefix() -> None:
    x = ar1_lognormal(800, 0.5, 2)
    keys = (stream_key(5), stream_key(6))
    # Circular windows of the prefix wrap at its own end; the mean has no
    # table; short blocks are counted.
    cases = (("median", 12, "circular"), ("mean", 12, "moving"), ("median", 3, "moving"))
    for stat, b, kind in cases:
        first, whole = nested_named_distributions(x, 790, stat, 200, b, kind, keys)
        alone = named_distribution(x[:790], stat, 200, b, kind, keys[0])
        np.testing.assert_array_equal(first, alone)
        np.testing.assert_array_equal(whole, named_distribution(x, stat, 200, b, kind, keys[1]))
    with pytest.raises(ValueError, match="circular windows of a prefix"):
        table_quantiles(make_scheme(x, 12, "circular"), np.array([0.5]), 10, [790, 800],
                        [keys[0], keys[1]])  # fmt: skip


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(24, 600),
    cut=st.integers(0, 30),
    block=st.integers(6, 40),  # from 6 the tables serve (one quantile)
    kind=st.sampled_from(["moving", "superflow"]),
    q=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_nested_equals_separate_for_any_prefix(
    n: int, cut: int, block: int, kind: str, q: float, seed: int
) -> None:
    n_first = max(n - cut, 2 * block, 12)
    assume(n_first <= n)
    x = np.round(ar1_lognormal(n, 0.5, seed % 1000), 2)
    keys = (stream_key(seed), stream_key(seed + 1))
    first, whole = nested_named_distributions(x, n_first, q, 60, block, kind, keys)
    np.testing.assert_array_equal(
        first, named_distribution(x[:n_first], q, 60, block, kind, keys[0])
    )
    np.testing.assert_array_equal(whole, named_distribution(x, q, 60, block, kind, keys[1]))
