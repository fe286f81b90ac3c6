"""Block-bootstrap quantiles of small samples from rank buckets (issue 14).

The bucket engine must give the direct counting engine's numbers exactly:
it draws the same blocks from the same streams and only counts, per
quantile, the one bucket of ranks that holds it.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import perfstats
from perfstats._kernels import bucket as kbu
from perfstats._kernels import resample as kr
from perfstats._kernels.threads import fixed_threads, one_thread
from perfstats._resampling import Scheme, bucket_stats, make_scheme, use_bucket_engine
from perfstats._rng import stream_key

KINDS = ("moving", "circular", "stationary", "superflow")


def _direct(scheme: Scheme, qs: np.ndarray, b: int, key: np.uint64) -> np.ndarray:
    """The counting kernel itself (it wants ascending quantiles)."""
    order = np.argsort(qs, kind="stable")
    block = float(scheme.block or 1.0)
    got = kr._serial_stats(
        scheme.sorted_x, scheme.ranks, qs[order], False, b, key, scheme.kind, block
    )
    out = np.empty_like(got)
    out[:, order] = got
    return out


def _buckets(scheme: Scheme, qs: np.ndarray, b: int, key: np.uint64, n_buckets: int) -> np.ndarray:
    order = np.argsort(qs, kind="stable")
    edges, below, members = kbu.bucket_tables(scheme.ranks, n_buckets)
    got = kbu.bucket_serial(
        scheme.sorted_x, np.ascontiguousarray(qs[order]), edges, below, members, b, key,
        scheme.kind, float(scheme.block or 1.0),
    )  # fmt: skip
    out = np.empty_like(got)
    out[:, order] = got
    return out


@settings(max_examples=60, deadline=None)
@given(
    n=hs.integers(2, 600),
    kind=hs.sampled_from(KINDS),
    block_frac=hs.floats(0.0, 1.0),
    qs=hs.lists(hs.floats(0.0, 1.0), min_size=1, max_size=4),
    levels=hs.sampled_from([0, 3, 40]),
    n_buckets=hs.integers(1, 70),
    seed=hs.integers(0, 2**32 - 1),
)
def test_bucket_engine_equals_direct_counting(
    n: int,
    kind: str,
    block_frac: float,
    qs: list[float],
    levels: int,
    n_buckets: int,
    seed: int,
) -> None:
    rng = np.random.default_rng(seed)
    x = rng.lognormal(2.0, 0.8, n)
    if levels:
        x = np.floor(x * levels / x.max())  # ties
    top = n // 2 if kind == "superflow" else n
    if top < 1:
        return
    block: float = 1 + int(block_frac * (top - 1))
    if kind == "stationary":
        block = 1.0 + block_frac * (n - 1)
    scheme = make_scheme(x, block, kind)
    q = np.array(qs)
    key = stream_key(seed)
    want = _direct(scheme, q, 40, key)
    np.testing.assert_array_equal(_buckets(scheme, q, 40, key, min(n_buckets, n)), want)
    np.testing.assert_array_equal(bucket_stats(scheme, q, 40, key), want)


@pytest.mark.parametrize("kind", KINDS)
def test_public_block_interval_uses_buckets_and_keeps_its_numbers(kind: str) -> None:
    x = np.random.default_rng(3).lognormal(3.0, 0.4, 1000)
    block = 9.5 if kind == "stationary" else 9
    scheme = make_scheme(x, block, kind)
    qs = np.array([0.75, 0.25, 0.5])
    assert use_bucket_engine(scheme, qs.size)
    ivs = perfstats.percentile_ci(
        x, qs, method="block", block_length=block, block_kind=kind, n_resamples=500, rng=11
    )
    boot = _direct(scheme, qs, 500, stream_key(11))
    bounds = np.quantile(boot, [0.025, 0.975], axis=0)
    assert [(iv.low, iv.high) for iv in ivs] == list(zip(bounds[0], bounds[1], strict=True))


def test_bucket_engine_only_where_it_pays() -> None:
    x = np.random.default_rng(4).normal(size=1000)
    assert not use_bucket_engine(make_scheme(x, 7, "moving"), 1)
    assert not use_bucket_engine(make_scheme(x, 8, "moving"), 5)
    assert not use_bucket_engine(make_scheme(x, None, "moving"), 1)
    big = np.random.default_rng(4).normal(size=4096)
    assert not use_bucket_engine(make_scheme(big, 8, "moving"), 1)


@pytest.mark.parametrize("kind", KINDS)
def test_bucket_engine_same_for_any_thread_count(kind: str) -> None:
    x = np.random.default_rng(5).lognormal(3.0, 0.4, 1500)
    scheme = make_scheme(x, 10, kind)
    qs = np.array([0.5, 0.9])
    with one_thread():
        a = bucket_stats(scheme, qs, 3000, stream_key(2))
    with fixed_threads(2):
        b = bucket_stats(scheme, qs, 3000, stream_key(2))
    np.testing.assert_array_equal(a, b)
