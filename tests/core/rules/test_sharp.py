"""SHARP's rules (003_*, Section V-C, Table IV): CI width of the mean, KS of halves."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from perfstats.rules import CIWidth, KSHalves


def test_ci_width_hand_checked() -> None:
    x = [100.0, 101.0, 99.0, 100.0, 100.5]
    # mean 100.1, squared deviations 0.01 + 0.81 + 1.21 + 0.01 + 0.16 = 2.2,
    # s = sqrt(2.2 / 4) = 0.7416, t_0.95,4 = 2.1318,
    # half width = 2.1318 * 0.7416 / sqrt(5) = 0.7070 -> 0.706% of the mean
    decision = CIWidth(error=0.05, min_n=5).check(x)
    assert decision.details["mean"] == pytest.approx(100.1)
    assert decision.details["sd"] == pytest.approx(math.sqrt(2.2 / 4))
    assert decision.details["t"] == pytest.approx(2.131847, rel=1e-6)
    assert decision.details["relative_half_width"] == pytest.approx(0.0070634, rel=1e-4)
    assert decision.stop
    assert decision.reason == "the mean's 95% CI reaches 0.7% of the mean; below the 5.0% threshold"
    assert not CIWidth(error=0.005, min_n=5).check(x).stop


def test_ci_width_matches_scipy_t_interval() -> None:
    x = np.random.default_rng(0).lognormal(3.0, 0.5, size=50)
    _, high = stats.t.interval(0.90, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
    # A 90% two-sided interval has the 95% one-sided half width.
    rel = CIWidth(level=0.95).check(x).details["relative_half_width"]
    assert rel == pytest.approx((high - x.mean()) / x.mean(), rel=1e-12)


def test_ci_width_refuses_a_non_positive_mean() -> None:
    decision = CIWidth(min_n=3).check([-1.0, -2.0, -3.0])
    assert not decision.stop
    assert "positive mean" in decision.reason


def test_ci_width_waits_for_min_n() -> None:
    x = np.full(20, 3.0)
    rule = CIWidth()
    assert not rule.check(x[:14]).stop
    assert rule.check(x[:15]).stop


def test_ks_halves_hand_checked() -> None:
    rule = KSHalves(threshold=0.1, min_n=4)
    apart = rule.check([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    assert apart.details["ks"] == 1.0
    assert not apart.stop
    assert apart.reason == (
        "KS between the first 3 and the last 3 runs is 1.000; needs under 0.100"
    )
    same = rule.check([1.0, 2.0, 3.0, 4.0, 4.0, 3.0, 2.0, 1.0])  # equal halves
    assert same.details["ks"] == pytest.approx(0.0)
    assert same.stop
    assert same.reason.endswith("below the 0.100 threshold")


def test_ks_halves_odd_length_and_scipy() -> None:
    x = np.random.default_rng(1).lognormal(size=41)
    decision = KSHalves().check(x)
    expected = stats.ks_2samp(x[:20], x[20:])
    assert decision.details["ks"] == pytest.approx(expected.statistic)
    assert decision.details["pvalue"] == pytest.approx(expected.pvalue)
    assert "first 20 and the last 21" in decision.reason
