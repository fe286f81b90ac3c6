"""The order of the oracle's load tests (benchmarks/system_regression.py)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks.system_regression import (
    VERSIONS,
    load_tests_in,
    oracle_load_tests,
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
