"""Metior (ASE 2021, Section III-B): block-bootstrapped change between S and S'."""

from __future__ import annotations

import math

import numpy as np
import pytest
from support.samples import ar1

from perfstats.precision.blocklength import optimal_block_length
from perfstats.rules import Metior


def test_constant_data_do_not_change() -> None:
    decision = Metior(rng=0).check(np.full(30, 7.0))
    assert decision.stop
    assert decision.details["change"] == 0.0
    assert decision.reason == (
        "median of the previous runs differs from all runs by up to 0.0% "
        "(95% quantile of |delta*|); within the allowed 3.0%"
    )


def test_a_shifted_last_interval_is_a_change() -> None:
    x = np.concatenate([np.full(20, 100.0), np.full(20, 150.0)])
    decision = Metior(interval=20, statistic="mean", rng=0).check(x)
    assert not decision.stop
    assert decision.details["change"] > 0.1


def test_change_matches_the_sampling_theory_of_the_mean() -> None:
    # For i.i.d. data (short blocks), theta*(S) and theta*(S') are
    # independent resampled means: delta* is about normal with standard
    # deviation sigma * sqrt(1/n_S + 1/n_S') / mu, so the 95th percentile of
    # |delta*| is about 1.96 times that. Tolerance: 10% (Monte Carlo error of
    # a 95th percentile from 4,000 pairs, plus the sample's own sd).
    x = np.random.default_rng(1).normal(100.0, 10.0, size=1000)
    rule = Metior(statistic="mean", interval=500, n_resamples=4000, rng=2)
    decision = rule.check(x)
    sd = x.std() * math.sqrt(1 / 500 + 1 / 1000) / x.mean()
    assert decision.details["change"] == pytest.approx(1.96 * sd, rel=0.10)


def test_block_length_is_politis_white_of_the_previous_runs_with_a_floor() -> None:
    x = ar1(400, 0.8, 3, loc=100.0)
    rule = Metior(interval=100, rng=0)
    expected = math.ceil(optimal_block_length(x[:300]).circular)
    assert rule.check(x).details["block_length"] == expected
    assert Metior(interval=100, min_block_length=40).block_length(x[:300]) == max(40, expected)
    # Fewer than 11 previous runs: too short for Politis-White, the floor is used.
    assert Metior(interval=5, min_block_length=3).check(x[:15]).details["block_length"] == 3
    assert Metior(interval=5).check(x[:10]).details["block_length"] == 1


def test_dependence_widens_the_change() -> None:
    # The reason Metior exists: blocks keep the autocorrelation, so the
    # bootstrapped change of an AR(1) series is larger than that of the same
    # values in random order (same marginal distribution, no dependence).
    x = ar1(600, 0.9, 4, loc=100.0)
    shuffled = np.random.default_rng(5).permutation(x)
    rule = Metior(statistic="mean", interval=300, rng=5)
    dependent = rule.check(x).details
    independent = rule.check(shuffled).details
    assert dependent["block_length"] > 5 * independent["block_length"]
    assert dependent["change"] > 2 * independent["change"]


def test_interval_form_is_the_papers_two_sided_check() -> None:
    x = np.random.default_rng(6).lognormal(4.0, 0.3, size=200)
    decision = Metior(form="interval", statistic="mean", rng=7).check(x)
    low, high = decision.details["low"], decision.details["high"]
    assert low < 0 < high
    assert decision.stop == (-0.03 < low and high < 0.03)
    assert decision.reason.startswith("95% CI of the mean's relative change is [")
    # Both forms agree where the answer is clear.
    calm = np.random.default_rng(7).lognormal(4.0, 0.01, size=200)
    for form in ("interval", "absolute"):
        assert Metior(form=form, statistic="mean", rng=7).check(calm).stop
        assert not Metior(form=form, statistic="mean", rng=7).check(x[:20]).stop


def test_error_threshold_is_inclusive_at_most() -> None:
    x = np.random.default_rng(8).lognormal(4.0, 0.2, size=100)
    change = Metior(rng=3).check(x).details["change"]
    assert Metior(rng=3, error=change).check(x).stop
    assert not Metior(rng=3, error=change * 0.999).check(x).stop


def test_superflow_block_scheme_is_available() -> None:
    x = ar1(200, 0.5, 9, loc=100.0)
    decision = Metior(block_kind="superflow", interval=100, rng=1, min_block_length=80).check(x)
    # Capped so that one whole block fits the reference scheme.
    assert decision.details["block_length"] == 50


def test_statistic_names() -> None:
    assert Metior(statistic="p90").statistic == 0.9
    assert Metior(statistic=0.5).statistic == 0.5
    x = np.random.default_rng(10).lognormal(4.0, 0.05, size=200)
    assert Metior(statistic=0.9, rng=1).check(x).reason.startswith("P90 of the previous runs")
