"""Metior's baselines (ASE 2021, Section IV-A): BasicBT and CoV."""

from __future__ import annotations

import numpy as np
import pytest

from perfstats import bootstrap_distribution
from perfstats.rules import BasicBootstrap, CoV
from perfstats.rules._seeds import CURRENT, judgement_seed


def test_basic_bootstrap_interval_is_the_percentile_interval() -> None:
    x = np.random.default_rng(0).lognormal(4.0, 0.2, size=80)
    rule = BasicBootstrap(statistic="p90", n_resamples=500, rng=4)
    decision = rule.check(x)
    boot = bootstrap_distribution(
        x, 0.9, n_resamples=500, rng=judgement_seed(rule.seed, 80, CURRENT)
    )
    assert decision.details["low"] == pytest.approx(np.quantile(boot, 0.025))
    assert decision.details["high"] == pytest.approx(np.quantile(boot, 0.975))
    assert decision.details["estimate"] == pytest.approx(np.quantile(x, 0.9))


def test_basic_bootstrap_verdicts() -> None:
    rng = np.random.default_rng(1)
    calm = rng.normal(100.0, 1.0, size=50)
    wild = rng.lognormal(4.0, 1.0, size=50)
    ok = BasicBootstrap(rng=0).check(calm)
    assert ok.stop
    assert ok.reason.startswith("mean CI reaches ")
    assert ok.reason.endswith("within the allowed 3.0%")
    bad = BasicBootstrap(rng=0).check(wild)
    assert not bad.stop
    assert bad.reason.endswith("needs under 3.0%")
    assert bad.details["rel_error"] > 0.03


def test_basic_bootstrap_ignores_dependence() -> None:
    # Metior's criticism (Section II): on autocorrelated data the i.i.d.
    # interval is too narrow, so BasicBT stops where the truth is still far.
    rng = np.random.default_rng(2)
    level = np.repeat(rng.normal(100.0, 5.0, size=4), 25)  # four regimes of 25 runs
    x = level + rng.normal(0.0, 0.5, size=100)
    decision = BasicBootstrap(rng=0, error=0.03).check(x[:50])
    assert decision.stop
    truth = 100.0
    # Two regimes seen: the estimate is off by more than the interval says.
    assert abs(decision.details["estimate"] - truth) / truth > decision.details["rel_error"]


def test_cov_hand_checked() -> None:
    rule = CoV(threshold=0.01, window=3, interval=2)
    assert rule.min_n == 6
    x = [10.0, 12.0, 10.0, 12.0, 11.0, 11.0]
    decision = rule.check(x)
    # CoV of the first 6, 4 and 2 runs.
    expected = [np.std(x[:m], ddof=1) / np.mean(x[:m]) for m in (6, 4, 2)]
    assert decision.details["covs"] == pytest.approx(expected)
    assert decision.details["sizes"] == [6, 4, 2]
    spread = max(expected) - min(expected)
    assert decision.details["spread"] == pytest.approx(spread)
    assert not decision.stop
    assert CoV(threshold=spread, window=3, interval=2).check(x).stop


def test_cov_settles_on_stationary_data() -> None:
    x = np.random.default_rng(3).normal(100.0, 2.0, size=400)
    rule = CoV()
    first = next(n for n in range(rule.min_n, 401, 5) if rule.check(x[:n]).stop)
    assert first < 100
    assert rule.check(x[:first]).reason.endswith("within the 0.0100 threshold")


def test_cov_of_zero_mean_never_stops() -> None:
    x = np.array([-1.0, 1.0] * 15)
    assert not CoV().check(x).stop
