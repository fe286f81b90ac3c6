"""Monitor's append-only buffer: O(1) adds, no copies of the history."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from perfstats import Decision, Monitor
from perfstats.replay import replay_test
from perfstats.rules import Fixed, Rule, SuperFlow


class _Spy(Rule):
    """Records the arrays it is shown and never stops."""

    name = "Spy"

    def __init__(self) -> None:
        self._interval = 1
        self._min_n = 1
        self.seen: list[np.ndarray] = []

    def config(self) -> dict[str, Any]:
        return {}

    def _decide(self, data: np.ndarray) -> Decision:
        self.seen.append(data)
        return Decision(False, int(data.size), self.name, "spying")


def test_single_adds_store_every_value_in_order() -> None:
    x = np.random.default_rng(0).lognormal(3.0, 0.5, 1000)
    m = Monitor(Fixed(n=5000))
    for v in x.tolist():
        m.add(v)
    np.testing.assert_array_equal(m.data, x)
    assert m.decision.n == 1000 and not m.decision.stop


def test_mixed_scalars_and_batches() -> None:
    m = Monitor(Fixed(n=1000))
    m.add(1)
    m.add(np.float32(2.5))
    m.add(np.array([3.0, 4.0]))
    m.add([5, 6])
    m.add(np.int64(7))
    m.add(np.arange(200, dtype=np.float64))
    assert m.data[:7].tolist() == [1.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0]
    assert m.data.size == 207 and m.data.dtype == np.float64


def test_the_rule_sees_views_of_one_buffer_not_copies() -> None:
    spy = _Spy()
    m = Monitor(spy)
    for v in range(1, 300):
        m.add(float(v))
    # Each judgement saw exactly the prefix it was due, and (after the last
    # growth of the buffer) shared memory with the monitor's data.
    assert [s.size for s in spy.seen] == list(range(1, 300))
    assert np.shares_memory(spy.seen[-1], m.data)
    for s in spy.seen:
        np.testing.assert_array_equal(s, np.arange(1.0, s.size + 1))


def test_views_handed_out_stay_valid_and_read_only() -> None:
    m = Monitor(Fixed(n=10_000))
    m.add([1.0, 2.0, 3.0])
    early = m.data
    for v in range(4, 2000):
        m.add(float(v))
    assert early.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError):
        early[0] = 9.0
    with pytest.raises(ValueError):
        m.data[0] = 9.0


def test_single_adds_stop_where_a_replay_stops() -> None:
    x = np.random.default_rng(4).lognormal(4.0, 0.03, 200)
    stop_n, stopped, checks, reason = replay_test(SuperFlow(interval=5), x)
    m = Monitor(SuperFlow(interval=5))
    for v in x.tolist():
        if m.add(v).stop:
            break
    assert m.decision.stop == stopped
    if stopped:
        assert (m.decision.n, m.decision.reason, len(m.history)) == (stop_n, reason, checks)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), True, "1.0"])
def test_bad_single_values_are_refused(bad: Any) -> None:
    m = Monitor(Fixed(n=3))
    with pytest.raises(ValueError, match="values"):
        m.add(bad)
    assert m.data.size == 0
