"""Cliff's delta and the Wilcoxon tests against SciPy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from perfstats.comparison.effects import cliffs_delta, wilcoxon_ranksum, wilcoxon_signedrank

finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
continuous = st.lists(finite, min_size=1, max_size=80)
tied = st.lists(st.integers(0, 6).map(float), min_size=1, max_size=80)
any_sample = st.one_of(continuous, tied)
alternatives = st.sampled_from(["two-sided", "less", "greater"])


def scipy_delta(a: list[float] | np.ndarray, b: list[float] | np.ndarray) -> float:
    u = stats.mannwhitneyu(a, b).statistic
    return float(2 * u / (len(a) * len(b)) - 1)


@settings(max_examples=200, deadline=None)
@given(any_sample, any_sample)
def test_cliffs_delta_equals_mannwhitney_u(a: list[float], b: list[float]) -> None:
    res = cliffs_delta(a, b)
    assert res.delta == pytest.approx(scipy_delta(a, b), rel=1e-12, abs=1e-12)
    # and the definition P(a > b) - P(a < b), by brute force
    x, y = np.array(a)[:, None], np.array(b)[None, :]
    assert res.delta == pytest.approx(np.mean(x > y) - np.mean(x < y), abs=1e-12)
    assert (res.n_a, res.n_b) == (len(a), len(b))


@settings(max_examples=100, deadline=None)
@given(any_sample, any_sample)
def test_cliffs_delta_antisymmetric(a: list[float], b: list[float]) -> None:
    assert cliffs_delta(a, b).delta == -cliffs_delta(b, a).delta
    assert cliffs_delta(a, b).magnitude == cliffs_delta(b, a).magnitude


def test_cliffs_delta_extremes() -> None:
    assert cliffs_delta([5.0, 6.0], [1.0, 2.0, 3.0]).delta == 1.0
    assert cliffs_delta([1.0, 2.0], [5.0, 6.0]).delta == -1.0
    assert cliffs_delta([1.0, 1.0], [1.0]).delta == 0.0


@pytest.mark.parametrize(
    ("delta", "magnitude"),
    [
        (0.0, "negligible"),
        (0.1469, "negligible"),
        (0.147, "small"),
        (-0.3299, "small"),
        (0.33, "medium"),
        (0.4739, "medium"),
        (-0.474, "large"),
        (1.0, "large"),
    ],
)
def test_romano_thresholds(delta: float, magnitude: str) -> None:
    # Build samples with an exact delta: a = k ones and (n-k) threes against b = 2s,
    # so that delta = (n - k - k) / n.
    n = 20000
    k = round(n * (1 - delta) / 2)
    a = np.r_[np.ones(k), np.full(n - k, 3.0)]
    res = cliffs_delta(a, [2.0])
    assert res.delta == pytest.approx((n - 2 * k) / n)
    assert res.delta == pytest.approx(delta, abs=1e-12)
    assert res.magnitude == magnitude
    assert res.negligible == (magnitude == "negligible")


def test_cliffs_delta_million_points() -> None:
    rng = np.random.default_rng(11)
    a = np.round(rng.lognormal(3.0, 0.5, 1_000_000), 2)  # realistic ties
    b = np.round(rng.lognormal(3.01, 0.5, 1_000_000), 2)
    # O(n log n) is what makes this call finish at all (an O(n^2) count
    # would take hours); its speed is measured in benchmarks/, not here.
    res = cliffs_delta(a, b)
    assert res.delta == pytest.approx(scipy_delta(a, b), rel=1e-9, abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(any_sample, any_sample, alternatives)
def test_ranksum_equals_scipy(a: list[float], b: list[float], alternative: str) -> None:
    res = wilcoxon_ranksum(a, b, alternative=alternative)
    ref = stats.mannwhitneyu(a, b, alternative=alternative)
    assert res.statistic == ref.statistic
    assert res.pvalue == ref.pvalue
    assert res.alternative == alternative
    assert res.test == "wilcoxon rank-sum"


def test_ranksum_large_and_exact_cases() -> None:
    rng = np.random.default_rng(2)
    for n_a, n_b in [(3, 4), (7, 7), (8, 9), (30, 30), (500, 700)]:
        a, b = rng.normal(size=n_a), rng.normal(0.3, size=n_b)
        ref = stats.mannwhitneyu(a, b)
        res = wilcoxon_ranksum(a, b)
        assert (res.statistic, res.pvalue) == (ref.statistic, ref.pvalue)
    assert wilcoxon_ranksum(a, b).significant(0.05) == (ref.pvalue < 0.05)


# SciPy runs an exhaustive permutation test for tied samples of up to 13
# differences (slow), so fewer examples here.
@settings(max_examples=50, deadline=None)
@given(st.data(), alternatives)
def test_signedrank_equals_scipy_paired(data: st.DataObject, alternative: str) -> None:
    n = data.draw(st.integers(1, 60))
    values = st.one_of(finite, st.integers(0, 4).map(float))
    a = data.draw(st.lists(values, min_size=n, max_size=n))
    b = data.draw(st.lists(values, min_size=n, max_size=n))
    with np.errstate(all="ignore"):
        try:
            ref = stats.wilcoxon(a, b, alternative=alternative)
        except ValueError:  # SciPy refuses some inputs; so must we
            with pytest.raises(ValueError, match="the differences a - b cannot be tested"):
                wilcoxon_signedrank(a, b, alternative=alternative)
            return
        res = wilcoxon_signedrank(a, b, alternative=alternative)
    assert res.statistic == ref.statistic or (
        math.isnan(res.statistic) and math.isnan(ref.statistic)
    )
    assert res.pvalue == ref.pvalue or (math.isnan(res.pvalue) and math.isnan(ref.pvalue))


@settings(max_examples=40, deadline=None)
@given(st.lists(finite, min_size=1, max_size=60), alternatives)
def test_signedrank_one_sample_equals_scipy(d: list[float], alternative: str) -> None:
    with np.errstate(all="ignore"):
        try:
            ref = stats.wilcoxon(d, alternative=alternative)
        except ValueError:
            with pytest.raises(ValueError, match="the differences a cannot be tested"):
                wilcoxon_signedrank(d, alternative=alternative)
            return
        res = wilcoxon_signedrank(d, alternative=alternative)
    assert res.statistic == ref.statistic or (
        math.isnan(res.statistic) and math.isnan(ref.statistic)
    )
    assert res.pvalue == ref.pvalue or (math.isnan(res.pvalue) and math.isnan(ref.pvalue))


def test_signedrank_large_sample() -> None:
    rng = np.random.default_rng(6)
    a = rng.lognormal(size=400)
    b = a * rng.normal(1.01, 0.02, size=400)
    ref = stats.wilcoxon(b, a)
    res = wilcoxon_signedrank(b, a)
    assert (res.statistic, res.pvalue) == (ref.statistic, ref.pvalue)
    assert res.pvalue < 1e-6


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: cliffs_delta([], [1.0]), "a is empty"),
        (lambda: cliffs_delta([1.0], [math.nan]), r"b\[0\]"),
        (lambda: cliffs_delta([[1.0]], [1.0]), "a must be 1-D"),
        (lambda: wilcoxon_ranksum(["x"], [1.0]), "a must be a 1-D array of numbers"),
        (lambda: wilcoxon_ranksum([1.0], [2.0], alternative="bigger"), "alternative"),
        (lambda: wilcoxon_signedrank([1.0, 2.0], [1.0]), "equal length.*2 and 1"),
        (lambda: wilcoxon_signedrank([1.0], alternative=None), "alternative"),
        (lambda: wilcoxon_signedrank([1.0, math.inf]), r"a\[1\]"),
        (lambda: wilcoxon_signedrank([1.0], [1.0]), "differences a - b cannot be tested"),
    ],
)
def test_bad_input(call: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()  # type: ignore[operator]


def test_result_reprs() -> None:
    assert "magnitude='large'" in repr(cliffs_delta([3.0, 4.0], [1.0, 2.0]))
    text = repr(wilcoxon_ranksum([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]))
    assert text.startswith("RankTest(test='wilcoxon rank-sum'") and "pvalue=0.1" in text
