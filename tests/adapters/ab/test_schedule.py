"""Duet and RMIT plans: pairs stay in their call, orders are random, counts are exact."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from perfstats.adapters.ab import duet_plan, plan_suite, rmit_plan

NAMES = ["a", "b", "c", "d"]


def _check_duet(plan, names, calls, repeats) -> None:
    assert [c.call for c in plan] == list(range(1, len(plan) + 1))
    assert Counter(c.benchmark for c in plan) == {n: calls for n in names}
    for trial in range(1, calls + 1):
        in_trial = [c for c in plan if c.trial == trial]
        assert sorted(c.benchmark for c in in_trial) == sorted(names)
        assert [c.slot for c in in_trial] == list(range(1, len(names) + 1))
    for c in plan:
        ex = c.executions
        assert len(ex) == 2 * repeats
        # Each repeat is a baseline-candidate pair, back to back in the call.
        for k in range(repeats):
            pair = ex[2 * k : 2 * k + 2]
            assert {e.version for e in pair} == {"baseline", "candidate"}
            assert {e.repeat for e in pair} == {k + 1}


def _check_rmit(plan, names, calls, repeats) -> None:
    assert [c.call for c in plan] == list(range(1, len(plan) + 1))
    for trial in range(1, calls + 1):
        in_trial = [c for c in plan if c.trial == trial]
        units = sorted((c.benchmark, c.executions[0].version) for c in in_trial)
        assert units == sorted((n, v) for n in names for v in ("baseline", "candidate"))
        assert [c.slot for c in in_trial] == list(range(1, 2 * len(names) + 1))
    for c in plan:
        assert len(c.versions) == 1
        assert [e.repeat for e in c.executions] == list(range(1, repeats + 1))


def test_duet_plan_elastibench_shape() -> None:
    plan = duet_plan(NAMES, calls=15, repeats=3, rng=7)
    _check_duet(plan, NAMES, 15, 3)
    # Neither version always runs first in a pair.
    firsts = Counter(c.executions[2 * k].version for c in plan for k in range(3))
    assert firsts["baseline"] > 0 and firsts["candidate"] > 0


def test_rmit_orders_differ_between_trials() -> None:
    plan = rmit_plan(NAMES, calls=15, repeats=3, rng=7)
    _check_rmit(plan, NAMES, 15, 3)
    orders = {
        tuple((c.benchmark, c.versions[0]) for c in plan if c.trial == t) for t in range(1, 16)
    }
    assert len(orders) == 15


def test_plans_are_deterministic_per_seed() -> None:
    assert duet_plan(NAMES, calls=3, repeats=2, rng=1) == duet_plan(
        NAMES, calls=3, repeats=2, rng=1
    )
    assert rmit_plan(NAMES, calls=3, repeats=2, rng=1) != rmit_plan(
        NAMES, calls=3, repeats=2, rng=2
    )


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 6),
    calls=st.integers(1, 6),
    repeats=st.integers(1, 4),
    seed=st.integers(0, 2**32),
)
def test_plan_invariants(n: int, calls: int, repeats: int, seed: int) -> None:
    names = [f"b{i}" for i in range(n)]
    _check_duet(
        plan_suite("duet", names, calls=calls, repeats=repeats, rng=seed), names, calls, repeats
    )
    _check_rmit(
        plan_suite("rmit", names, calls=calls, repeats=repeats, rng=seed), names, calls, repeats
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"benchmarks": ["a"], "calls": 0, "repeats": 1}, "calls must be a positive integer"),
        ({"benchmarks": ["a"], "calls": 1, "repeats": 1.5}, "repeats must be a positive integer"),
        ({"benchmarks": ["a", "a"], "calls": 1, "repeats": 1}, "'a' appears twice"),
        ({"benchmarks": [], "calls": 1, "repeats": 1}, "at least one benchmark"),
    ],
)
def test_bad_plans_are_refused(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        duet_plan(**kwargs)
    with pytest.raises(ValueError, match="schedule must be one of duet, rmit"):
        plan_suite("random", ["a"], calls=1, repeats=1)
