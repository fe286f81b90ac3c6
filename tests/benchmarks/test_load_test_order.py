"""The order of the oracle's load tests (benchmarks/reproduce_liao.py)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks.reproduce_liao import (
    SCENARIOS,
    VERSIONS,
    load_tests_in,
    oracle_load_tests,
    oracle_schedule,
    round_order,
)


def test_nine_versions_three_rounds() -> None:
    rounds = [round_order(VERSIONS, r, 3, 3) for r in range(3)]
    # Each round: the original, then three versions, three times; the last
    # round ends with one more original.
    assert [len(r) for r in rounds] == [12, 12, 13]
    assert [i for i, v in enumerate(rounds[0]) if v == "original"] == [0, 4, 8]
    assert rounds[2][-1] == "original"
    # The versions move: L1-Low runs first, then fourth, then seventh.
    assert [r.index("L1-Low") for r in rounds] == [1, 9, 5]
    assert sum(r.count("original") for r in rounds) == 10
    assert load_tests_in(9, 3, 3) == 37
    # The fixed workload is always measured (the model's load tests).
    assert oracle_load_tests(["fixed", "variant1"], 9, 3, 3) == 74
    assert oracle_load_tests(["variant1"], 9, 3, 3) == 37 + 3


def test_original_first_only() -> None:
    assert round_order(["a", "b"], 2, 3, 0) == ["original", "a", "b"]
    assert round_order([], 0, 3, 3) == ["original"]
    assert load_tests_in(9, 3, 0) == 30


@given(
    k=st.integers(min_value=1, max_value=12),
    reps=st.integers(min_value=1, max_value=5),
    every=st.integers(min_value=0, max_value=13),
)
def test_every_version_once_per_round(k: int, reps: int, every: int) -> None:
    versions = [f"v{i}" for i in range(k)]
    for rep in range(reps):
        order = round_order(versions, rep, reps, every)
        counts = Counter(order)
        assert all(counts[v] == 1 for v in versions)
        assert order[0] == "original"
        # Between two originals: at least one version, at most `every`.
        segments: list[list[str]] = [[]]
        for v in order[1:]:
            if v == "original":
                segments.append([])
            else:
                segments[-1].append(v)
        if order[-1] == "original":
            segments.pop()
        assert all(segments)
        if every > 0:
            assert all(len(s) <= every for s in segments)


@pytest.mark.parametrize("reps", [1, 3])
def test_counts_match_the_orders(reps: int) -> None:
    assert load_tests_in(4, reps, 2) == sum(
        len(round_order(["a", "b", "c", "d"], r, reps, 2)) for r in range(reps)
    )


@given(
    names=st.lists(st.sampled_from(list(SCENARIOS)), min_size=1, max_size=4, unique=True),
    k=st.integers(min_value=0, max_value=9),
    reps=st.integers(min_value=1, max_value=4),
    every=st.integers(min_value=0, max_value=4),
)
def test_schedule_takes_the_scenarios_in_turn(
    names: list[str], k: int, reps: int, every: int
) -> None:
    versions = [f"v{i}" for i in range(k)]
    order = oracle_schedule(names, versions, reps, every)
    assert len(order) == oracle_load_tests(names, k, reps, every)
    # Round by round: no load test of round r after one of round r + 1.
    rounds = [rep for _, rep, _ in order]
    assert rounds == sorted(rounds)
    expected_names = ["fixed"] + [s for s in names if s != "fixed"]
    for rep in range(reps):
        # Within a round, each scenario once, in one block, fixed first.
        seen = [s for s, r, _ in order if r == rep]
        blocks = [s for i, s in enumerate(seen) if i == 0 or seen[i - 1] != s]
        assert blocks == expected_names
        for name in expected_names:
            tests = [v for s, r, v in order if s == name and r == rep]
            if name in names:
                assert tests == round_order(versions, rep, reps, every)
            else:
                # The model's load test only.
                assert tests == ["original"]


def test_nine_versions_four_scenarios() -> None:
    order = oracle_schedule(list(SCENARIOS), VERSIONS, 3, 3)
    assert len(order) == 4 * 37
    # The first round of each scenario, then the second: the fixed workload's
    # original (the model's) and variant3's come from the same minutes.
    starts = [(s, r) for i, (s, r, _) in enumerate(order) if i == 0 or order[i - 1][:2] != (s, r)]
    assert starts == [(s, r) for r in range(3) for s in SCENARIOS]
