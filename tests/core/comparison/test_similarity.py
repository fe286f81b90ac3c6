"""KS, NAMD and PT4Cloud's KL similarity against SciPy and a direct transcription."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from perfstats.comparison.similarity import kl_similarity, ks, namd

finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
positive = st.floats(0.1, 1e4, allow_nan=False, allow_infinity=False)
samples = st.lists(finite, min_size=1, max_size=60)
# Few distinct values force ties.
tied = st.lists(st.integers(0, 5).map(float), min_size=1, max_size=60)


def pt4cloud_transcription(a: np.ndarray, b: np.ndarray, grid: int = 1000) -> float:
    """PT4Cloud's similarity exactly as ANCHORS.md defines it, with scipy's KDE."""
    lo = min(a.min(), b.min())
    hi = max(a.max(), b.max())
    step = (hi - lo) / grid
    x = lo + step * np.arange(1, grid + 1)
    p = stats.gaussian_kde(a)(x)
    q = stats.gaussian_kde(b)(x)
    if np.any((p == 0) != (q == 0)):
        return 0.0  # one density underflows where the other does not: symKL = inf
    keep = p > 0
    p, q = p[keep], q[keep]
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        sym_kl = np.sum(p * step * np.log2(p / q) + q * step * np.log2(q / p))
    if np.isnan(sym_kl):  # p/q overflowed while q/p underflowed: inf - inf
        return 0.0
    return float(2.0**-sym_kl)


def _random_pair(rng: np.random.Generator, kind: int) -> tuple[np.ndarray, np.ndarray]:
    n1, n2 = (int(v) for v in rng.integers(2, 400, size=2))
    if kind == 0:
        return rng.normal(size=n1), rng.normal(rng.normal(), rng.uniform(0.5, 2), size=n2)
    if kind == 1:  # skewed, latency-like
        return 100 * rng.lognormal(size=n1), 100 * rng.lognormal(0.3, 1.2, size=n2)
    if kind == 2:  # heavy ties
        return np.round(rng.exponential(size=n1), 1), np.round(rng.exponential(size=n2), 1)
    if kind == 3:  # bimodal with a far outlier: long stretches of tiny density
        a = np.r_[rng.normal(size=n1), rng.normal(40, 1, size=n1 // 3), 400.0]
        return a, np.r_[rng.normal(size=n2), rng.normal(40, 1, size=n2 // 4)]
    # location far from zero relative to the spread (large whitened values)
    return 5000 + rng.normal(size=n1), 5000.5 + rng.normal(size=n2)


@pytest.mark.parametrize("kind", range(5))
def test_kl_similarity_matches_transcription(kind: int) -> None:
    rng = np.random.default_rng(100 + kind)
    for _ in range(30):
        a, b = _random_pair(rng, kind)
        if a.var() == 0 or b.var() == 0:
            continue
        expected = pt4cloud_transcription(a, b)
        got = kl_similarity(a, b)
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-300), (kind, a.size, b.size)


@pytest.mark.parametrize("grid", [1, 2, 10, 257, 5000])
def test_kl_similarity_other_grids(grid: int) -> None:
    rng = np.random.default_rng(grid)
    a, b = rng.gamma(2.0, size=300), rng.gamma(2.5, size=200)
    got = kl_similarity(a, b, grid=grid)
    assert got == pytest.approx(pt4cloud_transcription(a, b, grid), rel=1e-9)


def test_kl_similarity_underflow_gives_zero_like_the_reference() -> None:
    rng = np.random.default_rng(5)
    a = rng.normal(size=200)
    b = np.r_[rng.normal(size=200), 1e4]  # b's KDE reaches 1e4; a's underflows there
    p = stats.gaussian_kde(a)(np.array([1e4]))
    assert p[0] == 0.0  # the situation under test really occurs
    assert pt4cloud_transcription(a, b) == 0.0
    assert kl_similarity(a, b) == 0.0


def test_kl_similarity_subnormal_tail_matches_reference() -> None:
    # b has a point far beyond a, where a's density is subnormal or exactly 0
    # and q/p may overflow: the reference's own floating-point behaviour.
    rng = np.random.default_rng(8)
    a = rng.normal(size=300)
    h = stats.gaussian_kde(a).factor * a.std(ddof=1)
    overflowed = 0
    for z in np.linspace(36.0, 39.0, 25):
        b = np.r_[rng.normal(size=300), a.max() + z * h]
        lo, hi = min(a.min(), b.min()), max(a.max(), b.max())
        x = lo + (hi - lo) / 1000 * np.arange(1, 1001)
        p, q = stats.gaussian_kde(a)(x), stats.gaussian_kde(b)(x)
        with np.errstate(over="ignore", divide="ignore"):
            overflowed += bool(np.any((p > 0) & np.isinf(q / p)))
        expected = pt4cloud_transcription(a, b)
        assert kl_similarity(a, b) == pytest.approx(expected, rel=1e-9, abs=1e-300), z
    assert overflowed > 0  # the case under test occurred


def test_kl_similarity_large_sample_matches() -> None:
    rng = np.random.default_rng(9)
    a, b = rng.lognormal(size=5000), rng.lognormal(0.05, size=3000)
    assert kl_similarity(a, b) == pytest.approx(pt4cloud_transcription(a, b), rel=1e-9)


def test_kl_similarity_identical_and_shifted() -> None:
    x = np.random.default_rng(3).lognormal(size=500)
    assert kl_similarity(x, x) == 1.0
    assert kl_similarity(x, x + 0.01) > kl_similarity(x, x + 0.5) > kl_similarity(x, x + 5)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(positive, min_size=2, max_size=50, unique=True),
    st.lists(positive, min_size=2, max_size=50, unique=True),
)
def test_kl_similarity_symmetric_and_bounded(a: list[float], b: list[float]) -> None:
    ab = kl_similarity(a, b)
    ba = kl_similarity(b, a)
    assert 0.0 <= ab <= 1.0
    assert ab == pytest.approx(ba, rel=1e-9, abs=1e-300)


def test_kl_similarity_zero_variance_is_an_error() -> None:
    with pytest.raises(ValueError, match="a has zero variance"):
        kl_similarity([2.0, 2.0, 2.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="b has zero variance"):
        kl_similarity([1.0, 2.0], [5.0] * 10)
    # the reference cannot evaluate it either
    with pytest.raises(np.linalg.LinAlgError):
        stats.gaussian_kde(np.array([2.0, 2.0, 2.0]))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"a": [1.0], "b": [1.0, 2.0]}, "a has 1 value"),
        ({"a": [1.0, 2.0], "b": [1.0, math.nan]}, r"b\[1\]"),
        ({"a": [1.0, 2.0], "b": [1.0, 3.0], "grid": 0}, "grid must be >= 1"),
        ({"a": [1.0, 2.0], "b": [1.0, 3.0], "grid": 2.5}, "grid must be an integer"),
        ({"a": "12", "b": [1.0, 3.0]}, "a must be a 1-D array"),
    ],
)
def test_kl_similarity_bad_input(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        kl_similarity(**kwargs)


@settings(max_examples=150, deadline=None)
@given(st.one_of(samples, tied), st.one_of(samples, tied))
def test_ks_equals_scipy(a: list[float], b: list[float]) -> None:
    res = ks(a, b)
    ref = stats.ks_2samp(a, b)
    assert res.statistic == ref.statistic
    assert res.pvalue == ref.pvalue
    assert (res.n_a, res.n_b) == (len(a), len(b))


@settings(max_examples=80, deadline=None)
@given(samples, samples)
def test_ks_symmetric(a: list[float], b: list[float]) -> None:
    assert ks(a, b).statistic == ks(b, a).statistic
    assert ks(a, b).pvalue == pytest.approx(ks(b, a).pvalue, rel=1e-12)


def test_ks_large_samples_use_scipy_auto_method() -> None:
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=20000), rng.normal(0.02, size=15000)
    ref = stats.ks_2samp(a, b)
    res = ks(a, b)
    assert (res.statistic, res.pvalue) == (ref.statistic, ref.pvalue)


def test_ks_bad_input() -> None:
    with pytest.raises(ValueError, match="a is empty"):
        ks([], [1.0])
    with pytest.raises(ValueError, match="b must be 1-D"):
        ks([1.0], [[1.0, 2.0]])


def test_namd_default_form() -> None:
    a, b = np.array([10.0, 12.0]), np.array([11.0, 13.0, 12.0])
    diff = abs(a.mean() - b.mean())
    assert namd(a, b) == pytest.approx(0.5 * (diff / a.mean() + diff / b.mean()), rel=1e-15)
    # SHARP's case: equal means, different shapes, NAMD 0
    assert namd([1.0, 3.0], [2.0, 2.0, 2.0, 2.0]) == 0.0


def test_namd_paired_form() -> None:
    a = np.array([10.0, 11.0, 12.0, 9.0])
    b = np.array([11.0, 10.0, 12.5, 9.5])
    mad = np.mean(np.abs(a - b))
    expected = 0.5 * (mad / a.mean() + mad / b.mean())
    assert namd(a, b, paired=True) == pytest.approx(expected, rel=1e-15)
    # the printed SHARP formula is this times n (a sum over the pairs)
    printed = 0.5 * (np.sum(np.abs(a - b)) / a.mean() + np.sum(np.abs(a - b)) / b.mean())
    assert namd(a, b, paired=True) * a.size == pytest.approx(printed, rel=1e-14)
    # paired sees per-pair differences that the means hide
    assert namd([1.0, 3.0], [3.0, 1.0]) == 0.0
    assert namd([1.0, 3.0], [3.0, 1.0], paired=True) == 1.0


@settings(max_examples=100, deadline=None)
@given(st.lists(positive, min_size=1, max_size=40), st.lists(positive, min_size=1, max_size=40))
def test_namd_symmetric_nonnegative_scale_free(a: list[float], b: list[float]) -> None:
    value = namd(a, b)
    assert value >= 0.0
    assert value == pytest.approx(namd(b, a), rel=1e-12)
    assert namd(np.array(a) * 7.0, np.array(b) * 7.0) == pytest.approx(value, rel=1e-9, abs=1e-15)
    if len(a) == len(b):
        assert namd(a, b, paired=True) == pytest.approx(namd(b, a, paired=True), rel=1e-12)


def test_namd_bad_input() -> None:
    with pytest.raises(ValueError, match="equal length, got 2 and 3"):
        namd([1.0, 2.0], [1.0, 2.0, 3.0], paired=True)
    with pytest.raises(ValueError, match="mean of a is"):
        namd([-1.0, 0.5], [1.0])
    with pytest.raises(ValueError, match=r"mean of b is 0\.0"):
        namd([1.0], [0.0, 0.0])
    with pytest.raises(ValueError, match=r"a\[0\] is .*inf"):
        namd([math.inf], [1.0])
