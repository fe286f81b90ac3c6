"""percentile_ci: reference equality, exactness of the resampling kernels, properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats as st
from hypothesis import given, settings
from hypothesis import strategies as hs

import perfstats
from perfstats._kernels.resample import resample_positions
from perfstats._rng import stream_key
from perfstats.precision._resampling import make_scheme


def _samples(seed: int, count: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        n = int(rng.integers(1, 400))
        kind = i % 4
        if kind == 0:
            x = rng.normal(100, 10, n)
        elif kind == 1:
            x = rng.lognormal(3, 1, n)
        elif kind == 2:
            x = rng.integers(0, 5, n).astype(float)  # heavy ties
        else:
            x = rng.pareto(2.5, n) + 1
        out.append(x)
    return out


def test_order_equals_scipy_quantile_test() -> None:
    rng = np.random.default_rng(11)
    checked = 0
    for x in _samples(1, 300):
        q = float(rng.choice([rng.uniform(), 0.5, 0.9, 0.99, 0.01]))
        level = float(rng.choice([0.5, 0.8, 0.9, 0.95, 0.99, rng.uniform(0.01, 0.999)]))
        ours = perfstats.percentile_ci(x, q, level=level, method="order")
        ref = st.quantile_test(x, q=0, p=q).confidence_interval(level)
        for mine, theirs, inf in ((ours.low, ref.low, -math.inf), (ours.high, ref.high, math.inf)):
            if np.isnan(theirs):
                assert mine == inf
            else:
                assert mine == theirs
                checked += 1
    assert checked > 300


def test_order_at_the_extremes() -> None:
    """SciPy refuses q = 0 and 1; the limits are one-sided intervals at the sample ends."""
    x = np.array([3.0, 1.0, 2.0])
    assert (perfstats.percentile_ci(x, 0.0).low, perfstats.percentile_ci(x, 0.0).high) == (
        -math.inf,
        1.0,
    )
    assert (perfstats.percentile_ci(x, 1.0).low, perfstats.percentile_ci(x, 1.0).high) == (
        3.0,
        math.inf,
    )


def _transcribed_order_normal(x: np.ndarray, p: float, z: float) -> tuple[float, float]:
    s = np.sort(x)
    n = len(s)
    lo = np.rint(n * p - z * np.sqrt(n * p * (1 - p)))
    hi = np.rint(1 + n * p + z * np.sqrt(n * p * (1 - p)))
    if lo <= 0 or hi >= n:
        return -math.inf, math.inf
    return float(s[int(lo)]), float(s[int(hi)])


def test_order_normal_equals_transcription() -> None:
    rng = np.random.default_rng(5)
    for x in _samples(2, 200):
        for q in (0.25, 0.5, 0.75, 0.9, float(rng.uniform())):
            iv = perfstats.percentile_ci(x, q, method="order-normal")
            assert (iv.low, iv.high) == _transcribed_order_normal(x, q, 1.96)
        iv = perfstats.percentile_ci(x, 0.5, level=0.9, method="order-normal")
        assert (iv.low, iv.high) == _transcribed_order_normal(x, 0.5, st.norm.ppf(0.95))


def test_estimate_is_numpy_percentile() -> None:
    for x in _samples(3, 100):
        qs = [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0]
        ivs = perfstats.percentile_ci(x, qs, method="order")
        assert [iv.estimate for iv in ivs] == list(np.percentile(x, np.array(qs) * 100))


@pytest.mark.parametrize(
    ("block_length", "block_kind"),
    [
        (None, "moving"),
        (7, "moving"),
        (7, "circular"),
        (7.5, "stationary"),
        (7, "superflow"),
        # Blocks of one to four points are counted by unrolled loops.
        *((b, kind) for b in (1, 2, 3, 4) for kind in ("moving", "superflow")),
    ],
)
def test_resampling_kernel_equals_numpy_on_the_same_resamples(
    block_length: float | None, block_kind: str
) -> None:
    """The count-based kernel gives numpy.quantile of the very same resamples."""
    x = np.random.default_rng(8).lognormal(2, 0.7, 301)
    qs = np.array([0.25, 0.5, 0.75, 0.9])
    boot = np.column_stack(
        [
            perfstats.bootstrap_distribution(
                x,
                float(q),
                n_resamples=300,
                block_length=block_length,
                block_kind=block_kind,
                rng=42,
                engine="direct",
            )
            for q in qs
        ]
    )
    scheme = make_scheme(x, block_length, block_kind)
    positions = resample_positions(
        x.size,
        300,
        stream_key(42),
        scheme.kind,
        1.0 if scheme.block is None else scheme.block,
        scheme.order,
    )
    ref = np.quantile(x[positions], qs, axis=1).T
    np.testing.assert_array_equal(boot, ref)
    means = perfstats.bootstrap_distribution(
        x, "mean", n_resamples=300, block_length=block_length, block_kind=block_kind, rng=42
    )
    np.testing.assert_allclose(means, x[positions].mean(axis=1), rtol=1e-13)


def test_bootstrap_interval_is_the_percentile_of_the_bootstrap_distribution() -> None:
    x = np.random.default_rng(9).gamma(2.0, 3.0, 250)
    ivs = perfstats.percentile_ci(x, [0.5, 0.9], method="bootstrap", n_resamples=2000, rng=7)
    for iv in ivs:
        boot = perfstats.bootstrap_distribution(x, iv.q, n_resamples=2000, rng=7)
        assert (iv.low, iv.high) == tuple(np.quantile(boot, [0.025, 0.975]))


def test_bootstrap_agrees_with_scipy_bootstrap_statistically() -> None:
    x = np.random.default_rng(10).lognormal(1, 0.8, 400)
    ours = perfstats.percentile_ci(x, 0.5, method="bootstrap", n_resamples=20000, rng=1)
    ref = st.bootstrap(
        (x,), np.median, n_resamples=20000, method="percentile", random_state=2
    ).confidence_interval
    iqr = np.subtract(*np.percentile(x, [75, 25]))
    assert abs(ours.low - ref.low) < 0.02 * iqr
    assert abs(ours.high - ref.high) < 0.02 * iqr


def test_block_auto_uses_politis_white() -> None:
    rng = np.random.default_rng(4)
    e = rng.normal(size=800)
    x = np.empty(800)
    x[0] = e[0]
    for i in range(1, 800):
        x[i] = 0.7 * x[i - 1] + e[i]
    x = np.exp(x)
    pw = perfstats.optimal_block_length(x)
    iv = perfstats.percentile_ci(x, 0.5, method="block", rng=3)
    assert iv.block_length == math.ceil(pw.circular)
    iv = perfstats.percentile_ci(x, 0.5, method="block", block_kind="stationary", rng=3)
    assert iv.block_length == pytest.approx(pw.stationary)


def test_scalar_and_sequence_shapes() -> None:
    x = np.arange(1.0, 101.0)
    assert isinstance(perfstats.percentile_ci(x, 0.5), perfstats.Interval)
    out = perfstats.percentile_ci(x, (0.25, 0.75), method="bootstrap", rng=0)
    assert isinstance(out, tuple) and [iv.q for iv in out] == [0.25, 0.75]
    # unsorted quantiles come back in the order asked
    out = perfstats.percentile_ci(x, [0.9, 0.1, 0.5], method="bootstrap", rng=0)
    assert [iv.q for iv in out] == [0.9, 0.1, 0.5]
    assert out[0].estimate > out[2].estimate > out[1].estimate


def test_too_few_points_give_unbounded_intervals() -> None:
    x = [1.0, 2.0, 3.0]
    iv = perfstats.percentile_ci(x, 0.5, method="order")
    assert iv.low == -math.inf and iv.high == math.inf and not iv.within(0.5)
    iv = perfstats.percentile_ci(x, 0.5, method="order-normal")
    assert not iv.bounded


def test_interval_helpers() -> None:
    iv = perfstats.Interval(100.0, 99.5, 100.8, 0.95, "order", 500, 0.5)
    assert iv.width == pytest.approx(1.3)
    assert iv.contains(100.0) and not iv.contains(101.0)
    assert iv.within(0.01) and not iv.within(0.008)
    assert iv.rel_error == pytest.approx(0.008)
    assert "q=0.5" in repr(iv)


METHODS = ["order", "order-normal", "bootstrap", "exact-bootstrap", "block"]
finite = hs.floats(min_value=1e-3, max_value=1e6, allow_nan=False, allow_infinity=False)


@settings(max_examples=40, deadline=None)
@given(
    x=hs.lists(finite, min_size=20, max_size=200),
    q=hs.sampled_from([0.1, 0.25, 0.5, 0.75, 0.9]),
    method=hs.sampled_from(METHODS),
)
def test_contains_its_estimate(x: list[float], q: float, method: str) -> None:
    iv = perfstats.percentile_ci(x, q, method=method, block_length=2, rng=0)
    assert iv.low <= iv.estimate <= iv.high


@settings(max_examples=40, deadline=None)
@given(
    x=hs.lists(finite, min_size=5, max_size=200),
    q=hs.floats(0.0, 1.0),
    levels=hs.tuples(hs.floats(0.05, 0.99), hs.floats(0.05, 0.99)),
    method=hs.sampled_from(METHODS),
)
def test_does_not_shrink_when_the_level_grows(
    x: list[float], q: float, levels: tuple[float, float], method: str
) -> None:
    lo, hi = sorted(levels)
    a = perfstats.percentile_ci(x, q, level=lo, method=method, block_length=1, rng=5)
    b = perfstats.percentile_ci(x, q, level=hi, method=method, block_length=1, rng=5)
    assert b.low <= a.low and a.high <= b.high


@settings(max_examples=40, deadline=None)
@given(
    x=hs.lists(finite, min_size=1, max_size=150),
    q=hs.floats(0.0, 1.0),
    method=hs.sampled_from(["order", "order-normal", "exact-bootstrap"]),
    seed=hs.integers(0, 1000),
)
def test_invariant_to_permutation(x: list[float], q: float, method: str, seed: int) -> None:
    y = np.random.default_rng(seed).permutation(np.asarray(x))
    a = perfstats.percentile_ci(x, q, method=method)
    b = perfstats.percentile_ci(y, q, method=method)
    assert (a.low, a.high, a.estimate) == (b.low, b.high, b.estimate)


@settings(max_examples=40, deadline=None)
@given(
    x=hs.lists(finite, min_size=2, max_size=150),
    q=hs.floats(0.0, 1.0),
    c=hs.floats(1e-3, 1e3),
    method=hs.sampled_from(METHODS),
)
def test_scales_with_the_data(x: list[float], q: float, c: float, method: str) -> None:
    a = perfstats.percentile_ci(x, q, method=method, block_length=1, rng=9)
    b = perfstats.percentile_ci(np.asarray(x) * c, q, method=method, block_length=1, rng=9)
    for u, v in ((a.low, b.low), (a.high, b.high), (a.estimate, b.estimate)):
        if math.isinf(u):
            assert v == u
        else:
            assert v == pytest.approx(u * c, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"data": [1.0, float("nan")]}, "data"),
        ({"data": [1.0, float("inf")]}, "data"),
        ({"data": []}, "data"),
        ({"data": [[1.0, 2.0], [3.0, 4.0]]}, "data"),
        ({"data": ["a", "b"]}, "data"),
        ({"data": "123"}, "data"),
        ({"level": 0.0}, "level"),
        ({"level": 1.0}, "level"),
        ({"level": 1.5}, "level"),
        ({"q": 1.5}, "q"),
        ({"q": -0.1}, "q"),
        ({"q": [0.5, 2.0]}, "q"),
        ({"n_resamples": 0}, "n_resamples"),
        ({"method": "block", "block_length": 0}, "block_length"),
        ({"method": "block", "block_length": 11}, "block_length"),
        ({"method": "block", "block_length": 2.5}, "block_length"),
        ({"method": "block", "block_kind": "weird"}, "block_kind"),
        ({"method": "nope"}, "method"),
        ({"rng": "seed"}, "rng"),
    ],
)
def test_bad_input_names_the_parameter(kwargs: dict[str, object], needle: str) -> None:
    args: dict[str, object] = {"data": np.arange(1.0, 11.0), "q": 0.5, "method": "bootstrap"}
    args.update(kwargs)
    data = args.pop("data")
    q = args.pop("q")
    with pytest.raises(ValueError, match=needle):
        perfstats.percentile_ci(data, q, **args)  # type: ignore[call-overload]


def test_bad_statistic_for_bootstrap_distribution() -> None:
    with pytest.raises(ValueError, match="statistic"):
        perfstats.bootstrap_distribution([1.0, 2.0, 3.0], "mode")
    with pytest.raises(ValueError, match="statistic"):
        perfstats.bootstrap_distribution([1.0, 2.0, 3.0], 1.5)
    with pytest.raises(ValueError, match="block_length"):
        perfstats.bootstrap_distribution(
            [1.0, 2.0, 3.0], "mean", block_length=2, block_kind="superflow"
        )
