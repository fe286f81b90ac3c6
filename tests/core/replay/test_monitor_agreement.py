"""Monitor and replay give the same decisions, whatever max_n and the batch sizes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfstats import Decision, Monitor
from perfstats.replay import replay_test
from perfstats.rules import CIWidth, Fixed, KSHalves, Rule, SuperFlow

RULES = [
    Fixed(n=12),
    CIWidth(error=0.02),
    KSHalves(),
    SuperFlow(method="order", error=0.02),
]


@settings(max_examples=40, deadline=None)
@given(
    rule_index=st.integers(min_value=0, max_value=len(RULES) - 1),
    max_n=st.integers(min_value=1, max_value=140),
    batch=st.integers(min_value=1, max_value=17),
    seed=st.integers(min_value=0, max_value=10_000),
)
def test_monitor_matches_replay(rule_index: int, max_n: int, batch: int, seed: int) -> None:
    rule = RULES[rule_index]
    x = np.random.default_rng(seed).lognormal(0.0, 0.2, 200)
    stop_n, stopped, _, reason = replay_test(rule, x, max_n=max_n)

    monitor = Monitor(rule, max_n=max_n)
    for i in range(0, x.size, batch):
        if monitor.add(x[i : i + batch]).stop:
            break
    decision = monitor.decision
    assert decision.stop
    assert decision.n == stop_n, (decision, stop_n, reason)
    assert bool(decision.details.get("max_n_reached", False)) == (not stopped)
    if stopped:
        assert decision.reason == reason


class _StopsFrom(Rule):
    """Stops at any size from ``k`` on; judged every 5 runs."""

    name = "StopsFrom"

    def __init__(self, k: int) -> None:
        self.k = k
        self._interval = 5
        self._min_n = 5

    def config(self) -> dict[str, Any]:
        return {"k": self.k}

    def _decide(self, data: np.ndarray) -> Decision:
        return Decision(bool(data.size >= self.k), int(data.size), self.name, f"{data.size} runs")


@pytest.mark.parametrize("max_n", [6, 7, 8, 9, 11, 13, 23])
@pytest.mark.parametrize("batch", [1, 3, 50])
def test_off_grid_max_n_is_not_a_judgement(max_n: int, batch: int) -> None:
    rule = _StopsFrom(k=6)
    x = np.arange(1.0, 60.0)
    stop_n, stopped, _, _ = replay_test(rule, x, max_n=max_n)
    monitor = Monitor(rule, max_n=max_n)
    for i in range(0, x.size, batch):
        if monitor.add(x[i : i + batch]).stop:
            break
    assert monitor.decision.n == stop_n
    assert bool(monitor.decision.details.get("max_n_reached", False)) == (not stopped)
