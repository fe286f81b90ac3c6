"""SuperFlow (000_*, Section 4): accuracy check on S_cur and S_pre."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfstats import percentile_ci
from perfstats.rules import SuperFlow


def reference_superflow1(x: np.ndarray, interval: int = 5, r: float = 0.01) -> bool:
    """SuperFlow 1 transcribed from ANCHORS.md: normal-approximation ranks, z = 1.96."""

    def accurate(s: np.ndarray) -> bool:
        n = s.size
        srt = np.sort(s)
        for p in (0.25, 0.5, 0.75):
            half = 1.96 * np.sqrt(n * p * (1 - p))
            lo = int(np.rint(n * p - half))
            hi = int(np.rint(1 + n * p + half))
            if lo < 0 or hi > n - 1:
                return False
            observed = np.percentile(s, 100 * p)
            if not (observed * (1 - r) < srt[lo] and srt[hi] < observed * (1 + r)):
                return False
        return True

    return accurate(x) and accurate(x[:-interval])


def test_first_stop_on_flat_data_is_where_the_ranks_fit() -> None:
    # P75's upper rank rint(1 + 0.75 n + 1.96 sqrt(0.1875 n)) first fits in a
    # sample of 25 (it is 24); with 20 points it is 20, past the end. So on
    # data that are all within 0.1% the first stop is at n = 30 (S_pre = 25).
    x = 100.0 + np.random.default_rng(0).uniform(0.0, 0.1, size=60)
    rule = SuperFlow()
    assert [rule.check(x[:n]).stop for n in (10, 15, 20, 25, 30)] == [False] * 4 + [True]
    decision = rule.check(x[:25])
    assert decision.reason == "P75 CI of the previous runs is unbounded; needs within 1.0%"
    assert not decision.details["previous_accurate"]
    assert decision.details["current_accurate"]
    assert rule.check(x[:30]).reason.startswith(
        "P25, P50 and P75 CIs of the current and previous runs are within 1.0%"
    )


def test_reason_names_the_widest_failing_interval() -> None:
    # Alternating 90 / 110: P25 = 90, P75 = 110 with CIs far from 1%.
    x = np.tile([90.0, 110.0], 50)
    decision = SuperFlow().check(x)
    assert not decision.stop
    worst = max(
        (v["rel_error"], q, role)
        for role in ("current", "previous")
        for q, v in decision.details[role].items()
    )
    assert worst[0] > 0.01
    assert decision.reason.startswith(f"{worst[1]} CI of the")
    assert "needs within 1.0%" in decision.reason


@settings(deadline=None, max_examples=60)
@given(
    st.integers(min_value=10, max_value=400),
    st.floats(min_value=0.001, max_value=0.05),
    st.integers(min_value=0, max_value=2**31),
)
def test_superflow1_matches_a_transcription_of_the_reference(
    n: int, spread: float, seed: int
) -> None:
    x = np.random.default_rng(seed).lognormal(np.log(100.0), spread, size=n)
    assert SuperFlow().check(x).stop == reference_superflow1(x)


def test_transcription_covers_both_verdicts() -> None:
    rng = np.random.default_rng(3)
    tight = rng.lognormal(np.log(100.0), 0.01, size=300)
    loose = rng.lognormal(np.log(100.0), 0.2, size=300)
    assert reference_superflow1(tight) and SuperFlow().check(tight).stop
    assert not reference_superflow1(loose) and not SuperFlow().check(loose).stop


def test_intervals_come_from_percentile_ci() -> None:
    x = np.random.default_rng(5).lognormal(4.0, 0.1, size=300)
    for ci in ("order", "order-normal", "exact-bootstrap"):
        details = SuperFlow(method=ci).check(x).details
        expected = percentile_ci(x, [0.25, 0.5, 0.75], method=ci)
        for iv in expected:
            got = details["current"][f"P{100 * iv.q:g}"]
            assert (got["low"], got["high"], got["estimate"]) == (iv.low, iv.high, iv.estimate)
        previous = percentile_ci(x[:-5], 0.5, method=ci)
        assert details["previous"]["P50"]["low"] == previous.low


def test_error_margin_is_respected() -> None:
    x = np.random.default_rng(6).lognormal(4.0, 0.1, size=300)
    details = SuperFlow(error=0.5).check(x).details
    widest = max(v["rel_error"] for role in ("current", "previous") for v in details[role].values())
    assert SuperFlow(error=widest * 1.0001).check(x).stop
    assert not SuperFlow(error=widest).check(x).stop  # strictly inside


@pytest.mark.parametrize("ci", ["bootstrap", "block"])
def test_memo_gives_the_fresh_verdict(ci: str) -> None:
    # The verdict on S_pre is reused from the previous judgement; it must be
    # exactly what a fresh rule computes.
    x = np.random.default_rng(7).lognormal(4.0, 0.05, size=200)
    warm = SuperFlow(method=ci, rng=9, n_resamples=300)
    for n in range(10, 201, 5):
        got = warm.check(x[:n])
        fresh = SuperFlow(method=ci, rng=9, n_resamples=300).check(x[:n])
        assert repr(got.details) == repr(fresh.details)
        assert got.reason == fresh.reason


def test_block_variant_handles_short_sets_and_reference_scheme() -> None:
    x = np.random.default_rng(8).lognormal(4.0, 0.01, size=120)
    short = SuperFlow(method="block", rng=1).check(x[:10])
    assert short.n == 10
    for kind in ("moving", "superflow"):
        decision = SuperFlow(method="block", block_kind=kind, rng=1).check(x)
        assert decision.stop
    # The reference scheme's resamples are shorter, so its intervals are
    # wider on average.
    widths = {
        kind: np.mean(
            [
                SuperFlow(method="block", block_kind=kind, rng=s)
                .check(x)
                .details["current"]["P50"]["rel_error"]
                for s in range(20)
            ]
        )
        for kind in ("moving", "superflow")
    }
    assert widths["superflow"] > widths["moving"]


def test_custom_quantiles() -> None:
    x = np.random.default_rng(9).lognormal(4.0, 0.02, size=400)
    decision = SuperFlow(q=(0.5, 0.9)).check(x)
    assert set(decision.details["current"]) == {"P50", "P90"}
    assert SuperFlow(q=0.5).q == (0.5,)


def test_runs_that_are_all_zero_stop_like_any_constant_series() -> None:
    # No allocations in any run (go's B/op = 0): every percentile is known
    # exactly, as for runs that are all 7; the rule must not wait forever.
    for value in (0.0, 7.0):
        decision = SuperFlow(error=0.01).check(np.full(30, value))
        assert decision.stop, (value, decision.reason)
