"""Metior's block length from the previous set only, or from the previous and the current set."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.signal import lfilter

from perfstats.precision.blocklength import optimal_block_length
from perfstats.rules import Metior


def series() -> np.ndarray:
    # Independent previous runs, then a strongly dependent last interval:
    # the current set (all runs) has a much longer block than the previous.
    rng = np.random.default_rng(11)
    previous = 100.0 + rng.standard_normal(200)
    last = 100.0 + lfilter([1.0], [1.0, -0.97], rng.standard_normal(200))
    return np.concatenate([previous, last])


def test_both_takes_the_larger_of_the_two_lengths() -> None:
    x = series()
    prev_b = math.ceil(optimal_block_length(x[:200]).circular)
    all_b = math.ceil(optimal_block_length(x).circular)
    assert all_b > prev_b + 5
    reference = Metior(interval=200, rng=0, block_from="previous").check(x)
    paper = Metior(interval=200, rng=0, block_from="both").check(x)
    assert reference.details["block_length"] == max(prev_b, 1)
    assert paper.details["block_length"] == all_b
    # Reversed (dependent first): the previous set's length is already the larger.
    y = np.concatenate([x[200:], x[:200]])
    prev_y = math.ceil(optimal_block_length(y[:200]).circular)
    all_y = math.ceil(optimal_block_length(y).circular)
    expected = max(prev_y, all_y)
    assert Metior(interval=200, rng=0, block_from="both").check(y).details["block_length"] == (
        expected
    )


def test_floor_and_short_sets_apply_to_both_options() -> None:
    x = series()
    for block_from in ("previous", "both"):
        rule = Metior(interval=5, min_block_length=3, block_from=block_from, rng=0)
        # Both sets shorter than 11 runs: too short for Politis-White, the floor.
        assert rule.check(x[:10]).details["block_length"] == 3
        assert Metior(min_block_length=500, block_from=block_from).block_length(x[:300], x) == 300


def test_a_current_set_long_enough_counts_when_the_previous_is_not() -> None:
    x = series()[:15]
    own = max(3, math.ceil(optimal_block_length(x).circular))
    check = Metior(interval=5, min_block_length=3, rng=0, block_from="both").check(x)
    assert check.details["block_length"] == own
    assert own > 3
    assert Metior(interval=5, min_block_length=3, rng=0, block_from="previous").check(x).details[
        "block_length"
    ] == 3


def test_option_is_validated_and_recorded() -> None:
    with pytest.raises(ValueError, match="block_from"):
        Metior(block_from="current")
    assert Metior(block_from="both").config()["block_from"] == "both"
    # The paper's choice is the default; the reference code's is the option.
    assert Metior().config()["block_from"] == "both"
    x = series()
    assert Metior(interval=200, rng=0).check(x).details == Metior(
        interval=200, rng=0, block_from="both"
    ).check(x).details
