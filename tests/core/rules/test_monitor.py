"""Monitor: a run loop's view of a rule, judged exactly as a replay would be."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfstats import Monitor
from perfstats.replay import replay_test
from perfstats.rules import CIWidth, Fixed, PT4Cloud, SuperFlow


def test_fixed_example() -> None:
    m = Monitor(Fixed(n=4))
    assert not m.add([1.0, 2.0]).stop
    decision = m.add([3.0, 4.0, 5.0])
    assert decision.stop and decision.n == 4
    assert m.data.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]


@settings(deadline=None, max_examples=30)
@given(
    st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=60),
    st.integers(min_value=0, max_value=1000),
)
def test_batches_stop_where_a_replay_stops(batches: list[int], seed: int) -> None:
    x = np.random.default_rng(seed).lognormal(4.0, 0.03, size=sum(batches))
    rule = SuperFlow(interval=5)
    stop_n, stopped, checks, reason = replay_test(rule, x)
    m = Monitor(SuperFlow(interval=5))
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
    # Every judgement happened on the interval grid, from min_n on.
    assert [d.n for d in m.history] == list(range(10, 10 + 5 * len(m.history), 5))


def test_max_n_stops_with_its_own_reason() -> None:
    x = np.random.default_rng(1).lognormal(4.0, 1.0, size=50)
    m = Monitor(SuperFlow(), max_n=23)
    decision = m.add(x)
    assert decision.stop
    assert decision.n == 23  # not on the grid of 5: judged there anyway
    assert decision.reason.startswith("reached max_n=23 before the rule stopped (")
    assert decision.details["max_n_reached"] is True
    assert [d.n for d in m.history] == [10, 15, 20, 23]
    # Data keep arriving but are not judged any more.
    m.add([1.0, 2.0])
    assert m.data.size == 52
    assert m.decision is decision


def test_waiting_between_boundaries() -> None:
    m = Monitor(SuperFlow())
    decision = m.add([100.0] * 7)
    assert not decision.stop
    assert decision.n == 7
    assert decision.details["next_check"] == 10
    assert m.history == []
    m.add(101.0)  # a scalar is one value
    assert m.data.size == 8
    assert m.add([]).n == 8


def test_min_n_override_delays_judgement() -> None:
    m = Monitor(CIWidth(interval=1, min_n=2), min_n=6)
    for v in [5.0, 5.0, 5.0, 5.0, 5.0]:
        assert not m.add(v).stop
    assert m.history == []
    assert m.add(5.0).stop
    assert [d.n for d in m.history] == [6]


def test_rule_stops_on_the_first_boundary_of_a_large_batch() -> None:
    x = np.random.default_rng(2).normal(100.0, 1.0, size=300)
    m = Monitor(PT4Cloud())
    decision = m.add(x)
    assert decision.stop
    assert decision.n == replay_test(PT4Cloud(), x)[0]


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="rule"):
        Monitor("superflow")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_n"):
        Monitor(Fixed(), max_n=0)
    with pytest.raises(ValueError, match="values"):
        Monitor(Fixed()).add([1.0, float("inf")])
