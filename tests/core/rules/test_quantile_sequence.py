"""QuantileSequence: beta-binomial confidence sequences for quantiles (Howard & Ramdas)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from perfstats import Monitor
from perfstats.replay import replay_test
from perfstats.rules import QuantileSequence, by_name
from perfstats.rules.confidence_sequence import count_bounds, quantile_sequence_interval

SEQUENCES, HORIZON = 2000, 500


def _bounds(p: float, alpha: float, r: float, horizon: int = HORIZON) -> np.ndarray:
    return np.array([count_bounds(t, p, alpha, r) for t in range(1, horizon + 1)])


def _ever_outside(counts: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Per sequence (row): does the count leave [a_t, b_t] at some t?"""
    return ((counts < bounds[:, 0]) | (counts > bounds[:, 1])).any(axis=1)


def _margin(alpha: float, trials: int) -> float:
    # Three binomial standard deviations: a correct sequence exceeds it
    # about once in 700 runs of the test.
    return alpha + 3.0 * math.sqrt(alpha * (1.0 - alpha) / trials)


@settings(deadline=None, max_examples=6)
@given(
    st.sampled_from([0.1, 0.25, 0.5, 0.75, 0.9]),
    st.sampled_from([0.05, 0.1]),
    st.sampled_from([30.0, 300.0, 2000.0]),
    st.integers(min_value=0, max_value=2**31),
)
def test_time_uniform_coverage_of_the_true_quantile(
    p: float, alpha: float, r: float, seed: int
) -> None:
    # X_i = F^-1(U_i) lies at or below the true quantile exactly when
    # U_i <= p, so the count walk of any continuous distribution is the
    # Binomial(t, p) walk of uniforms; the sequence misses the quantile at t
    # exactly when that count leaves [a_t, b_t] (see the interval test below).
    u = np.random.default_rng(seed).random((SEQUENCES, HORIZON))
    counts = np.cumsum(u <= p, axis=1)
    missed = _ever_outside(counts, _bounds(p, alpha, r)).mean()
    assert missed <= _margin(alpha, SEQUENCES)


def test_the_coverage_check_rejects_fixed_size_intervals_under_optional_stopping() -> None:
    # The same check on 95% fixed-size (normal-approximation) count ranges:
    # looked at after every run up to 500, they miss far more often than 5%.
    p, alpha = 0.5, 0.05
    u = np.random.default_rng(7).random((SEQUENCES, HORIZON))
    counts = np.cumsum(u <= p, axis=1)
    t = np.arange(1, HORIZON + 1)
    half = 1.96 * np.sqrt(t * p * (1 - p))
    fixed = np.column_stack([np.ceil(t * p - half), np.floor(t * p + half)])
    assert _ever_outside(counts, fixed).mean() > 0.3
    assert _ever_outside(counts, _bounds(p, alpha, 300.0)).mean() <= _margin(alpha, SEQUENCES)


@settings(deadline=None, max_examples=40)
@given(
    st.integers(min_value=1, max_value=600),
    st.floats(min_value=0.05, max_value=0.95),
    st.sampled_from([0.01, 0.05, 0.2]),
    st.floats(min_value=1.0, max_value=5000.0),
)
def test_bounds_are_the_beta_binomial_to_binomial_likelihood_ratio(
    t: int, p: float, alpha: float, r: float
) -> None:
    # M_t(s) is the beta-binomial pmf over the binomial pmf (the binomial
    # coefficients cancel); scipy computes both independently of the module.
    s = np.arange(t + 1)
    log_ratio = stats.betabinom.logpmf(s, t, r * p, r * (1 - p)) - stats.binom.logpmf(s, t, p)
    accepted = np.flatnonzero(log_ratio < math.log(1 / alpha))
    margin = np.abs(log_ratio - math.log(1 / alpha)) > 1e-9  # no knife-edge cases
    a, b = count_bounds(t, p, alpha, r)
    if margin.all():
        assert (a, b) == (accepted[0], accepted[-1])
    # M_t <= 1 at s = t p (the prior's mean is p), so the range holds it.
    assert a <= math.ceil(t * p) and b >= math.floor(t * p)


def test_known_value_at_the_median() -> None:
    # By hand from the ratio of pmfs at t = 300, p = 1/2, r = 300, alpha = 5%.
    s = np.arange(301)
    ratio = stats.betabinom.pmf(s, 300, 150.0, 150.0) / stats.binom.pmf(s, 300, 0.5)
    inside = np.flatnonzero(ratio < 20.0)
    assert count_bounds(300, 0.5, 0.05, 300.0) == (inside[0], inside[-1]) == (119, 181)


def test_interval_is_the_order_statistics_at_the_count_bounds() -> None:
    x = np.random.default_rng(3).permutation(np.arange(1.0, 401.0))
    a, b = count_bounds(400, 0.25, 0.05, 300.0)
    iv = quantile_sequence_interval(x, 0.25)
    assert (iv.low, iv.high) == (float(a), float(b + 1))  # X_(k) = k here
    assert iv.estimate == pytest.approx(np.quantile(x, 0.25))
    assert iv.method == "confidence-sequence" and iv.n == 400 and iv.level == 0.95
    # In the interval exactly when the count at or below it is in [a, b].
    for q in np.linspace(0.5, 400.5, 801):
        count = int((x <= q).sum())
        assert (iv.low <= q < iv.high) == (a <= count <= b)


def test_unbounded_while_too_few_runs() -> None:
    iv = quantile_sequence_interval(np.arange(10.0), 0.5)
    assert iv.low == -math.inf and iv.high == math.inf and not iv.bounded


def test_coverage_holds_with_ties() -> None:
    # Integer-valued runs: many ties at the quantile. Checked after every
    # 10th run up to 300, on the rule's own intervals.
    rng = np.random.default_rng(11)
    true_median = stats.poisson.ppf(0.5, 3.0)
    misses = 0
    trials = 400
    for _ in range(trials):
        x = rng.poisson(3.0, size=300).astype(np.float64)
        for n in range(10, 301, 10):
            iv = quantile_sequence_interval(x[:n], 0.5, level=0.9)
            if not iv.contains(true_median):
                misses += 1
                break
    assert misses / trials <= _margin(0.1, trials)


def test_sequence_is_wider_than_a_fixed_size_interval() -> None:
    # Validity at every size costs width at any one size.
    for t in (50, 200, 1000):
        a, b = count_bounds(t, 0.5, 0.05, 300.0)
        lo, hi = stats.binom.interval(0.95, t, 0.5)
        assert a < lo and b > hi


def test_rule_stops_on_tight_data_and_reports_its_intervals() -> None:
    x = np.random.default_rng(0).normal(100.0, 1.0, size=600)
    rule = QuantileSequence()
    decision = rule.check(x)
    assert decision.stop
    assert decision.reason.startswith("every sequence interval is within 1.0%")
    assert set(decision.details["intervals"]) == {"P25", "P50", "P75"}
    early = rule.check(x[:20])
    assert not early.stop and "unbounded" in early.reason


def test_joint_splits_the_level_over_the_quantiles() -> None:
    x = np.random.default_rng(2).lognormal(4.0, 0.1, size=400)
    single = QuantileSequence().intervals(x)
    joint = QuantileSequence(joint=True).intervals(x)
    assert QuantileSequence(joint=True).quantile_level == pytest.approx(1 - 0.05 / 3)
    for s, j in zip(single, joint, strict=True):
        assert j.low <= s.low and j.high >= s.high
    assert any(j.width > s.width for s, j in zip(single, joint, strict=True))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"level": 1.0}, "level"),
        ({"error": 0.0}, "error"),
        ({"q": [0.5, 1.0]}, "q"),
        ({"q": 0.0}, "q"),
        ({"intrinsic_time": -1.0}, "intrinsic_time"),
        ({"joint": "yes"}, "joint"),
        ({"interval": 0}, "interval"),
        ({"min_n": 0}, "min_n"),
    ],
)
def test_bad_options_are_named(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        QuantileSequence(**options)


def test_bad_inputs_of_the_functions_are_named() -> None:
    with pytest.raises(ValueError, match="t must"):
        count_bounds(0, 0.5, 0.05, 300.0)
    with pytest.raises(ValueError, match="alpha"):
        count_bounds(10, 0.5, 1.5, 300.0)
    with pytest.raises(ValueError, match="data"):
        quantile_sequence_interval([1.0, math.nan], 0.5)


def test_registered_by_name() -> None:
    rule = by_name("quantile-cs", error=0.02, intrinsic_time=100.0)
    assert isinstance(rule, QuantileSequence)
    assert rule.error == 0.02 and rule.intrinsic_time == 100.0
    assert "intrinsic_time=100.0" in repr(rule)


@settings(deadline=None, max_examples=25)
@given(
    st.lists(st.integers(min_value=1, max_value=60), min_size=1, max_size=40),
    st.integers(min_value=0, max_value=1000),
)
def test_batches_stop_where_a_replay_stops(batches: list[int], seed: int) -> None:
    x = np.random.default_rng(seed).lognormal(4.0, 0.02, size=sum(batches))
    stop_n, stopped, checks, reason = replay_test(QuantileSequence(), x)
    m = Monitor(QuantileSequence())
    used = 0
    for size in batches:
        decision = m.add(x[used : used + size])
        used += size
        if decision.stop:
            break
    assert m.decision.stop == stopped
    if stopped:
        assert m.decision.n == stop_n
        assert m.decision.reason == reason
        assert len(m.history) == checks
    assert [d.n for d in m.history] == list(range(10, 10 + 5 * len(m.history), 5))
