"""MultiMonitor: one independent Monitor per named series, stopped by stop_when."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfstats import Monitor, MultiMonitor
from perfstats.rules import Fixed, SuperFlow


@settings(deadline=None, max_examples=25)
@given(
    st.lists(st.integers(min_value=0, max_value=30), min_size=1, max_size=40),
    st.integers(min_value=0, max_value=1000),
    st.sampled_from(["all", "any", "only"]),
)
def test_one_series_decides_exactly_as_a_monitor(
    batches: list[int], seed: int, stop_when: str
) -> None:
    x = np.random.default_rng(seed).lognormal(4.0, 0.05, size=sum(batches))
    single = Monitor(SuperFlow(interval=5), max_n=60)
    multi = MultiMonitor(SuperFlow(interval=5), max_n=60, stop_when=stop_when)
    used = 0
    for size in batches:
        chunk = x[used : used + size]
        used += size
        expected = single.add(chunk)
        got = multi.add({"only": chunk})["only"]
        assert got == expected and got.reason == expected.reason
        assert multi.stopped == expected.stop
    assert [d.n for d in multi["only"].history] == [d.n for d in single.history]
    assert multi.active == (() if single.stopped else ("only",))


@settings(deadline=None, max_examples=20)
@given(st.permutations(["quiet", "noisy", "mid"]), st.integers(min_value=0, max_value=500))
def test_the_order_of_series_changes_no_decision(order: list[str], seed: int) -> None:
    rng = np.random.default_rng(seed)
    sigma = {"quiet": 0.01, "mid": 0.1, "noisy": 0.5}
    data = {name: rng.lognormal(3.0, s, size=120) for name, s in sigma.items()}
    forward = MultiMonitor(SuperFlow(interval=5))
    shuffled = MultiMonitor(SuperFlow(interval=5))
    for start in range(0, 120, 7):
        forward.add({n: data[n][start : start + 7] for n in sigma})
        shuffled.add({n: data[n][start : start + 7] for n in order})
    for name in sigma:
        assert forward.decisions[name] == shuffled.decisions[name]
        assert forward[name].history == shuffled[name].history
    assert set(forward.active) == set(shuffled.active)
    assert forward.stopped == shuffled.stopped


def test_quiet_series_stop_before_noisy_ones_and_all_waits_for_the_last() -> None:
    rng = np.random.default_rng(3)
    mm = MultiMonitor(SuperFlow(interval=5), max_n=400)
    stopped_at: dict[str, int] = {}
    for i in range(400):
        mm.add({"quiet": [rng.lognormal(3.0, 0.005)], "noisy": [rng.lognormal(3.0, 0.4)]})
        for name in ("quiet", "noisy"):
            if mm[name].stopped and name not in stopped_at:
                stopped_at[name] = i + 1
        if mm.stopped:
            break
    assert stopped_at["quiet"] < stopped_at["noisy"]
    assert mm.stopped and mm.active == ()


def test_stop_when_any_and_a_named_series() -> None:
    any_ = MultiMonitor(Fixed(n=2), stop_when="any")
    named = MultiMonitor(Fixed(n=2), stop_when="b")
    for mm in (any_, named):
        mm.add({"a": [1.0, 2.0], "b": [1.0]})
    assert any_.stopped and any_.active == ("b",)
    assert not named.stopped
    named.add({"b": [3.0]})
    assert named.stopped


def test_a_late_series_and_a_missing_one() -> None:
    mm = MultiMonitor(Fixed(n=2), names=["a"])
    assert not mm.stopped and mm.active == ("a",)
    mm.add({"a": [1.0, 2.0]})
    assert mm.stopped  # every known series has stopped
    mm.add({"late": [1.0]})
    assert not mm.stopped and mm.active == ("late",) and mm.names == ("a", "late")
    assert mm["a"].data.size == 2  # nothing given to a series missing from a batch


def test_max_n_names_the_capped_series() -> None:
    mm = MultiMonitor(Fixed(n=10), max_n=3)
    mm.add({"a": [1.0, 2.0, 3.0], "b": [1.0]})
    assert mm.capped == ("a",)
    assert mm.decisions["a"].details["max_n_reached"] is True


def test_each_series_has_its_own_rule_copy_or_a_factory_rule() -> None:
    rule = Fixed(n=2)
    mm = MultiMonitor(rule, names=["a", "b"])
    assert mm["a"].rule is not rule and mm["a"].rule is not mm["b"].rule
    seeds = iter(range(10))
    made = MultiMonitor(lambda: SuperFlow(rng=next(seeds)), names=["a", "b"])
    assert made["a"].rule is not made["b"].rule


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rule": 3}, "rule must be a perfstats.rules.Rule or a factory"),
        ({"rule": lambda: 3}, "the rule factory must return"),
        ({"rule": Fixed(n=2), "stop_when": ""}, "stop_when must be"),
    ],
)
def test_bad_input_is_named(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        MultiMonitor(names=["a"], **kwargs)


def test_add_needs_a_mapping() -> None:
    with pytest.raises(ValueError, match="values must be a mapping"):
        MultiMonitor(Fixed(n=2)).add([1.0, 2.0])  # type: ignore[arg-type]
