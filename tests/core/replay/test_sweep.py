"""replay.sweep: every rule configuration per task, the same frame as one replay per rule."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any

import numpy as np
import pandas as pd
import pytest

from perfstats.replay import COLUMNS, replay, sweep
from perfstats.rules import CIWidth, Metior, PT4Cloud, Rule, SuperFlow

NAMES = ["cold/Func1", "cold/Func17", "cold/Func33", "warm/Func2", "warm/Func40", "warm/Func65"]


class CountingExecutor(Executor):
    """Threads that count the tasks submitted to them."""

    def __init__(self) -> None:
        self.pool = ThreadPoolExecutor(2)
        self.submitted: list[int] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.submitted.append(len(args[0]))  # jobs (configuration x trace) in the task
        return self.pool.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, **kwargs: Any) -> None:
        self.pool.shutdown(wait=wait)


@pytest.fixture(scope="module")
def part(scope_traces: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {k: scope_traces[k][:250] for k in NAMES}


@pytest.fixture(scope="module")
def serial_sweep(part: dict[str, np.ndarray]) -> pd.DataFrame:
    """The in-process sweep of :func:`configs` from starts 0 and 30 (the tests' reference)."""
    return sweep(configs(), part, starts=[0, 30], workers=1, progress=False)


@pytest.fixture(scope="module")
def serial_metior(part: dict[str, np.ndarray]) -> pd.DataFrame:
    """The in-process replay of the Metior configuration."""
    return replay(configs()["Metior"], part, workers=1, progress=False)


def configs() -> dict[str, Rule]:
    """A small sweep: SuperFlow's bootstrap at two errors, PT4Cloud, Metior."""
    return {
        "SuperFlow-2 r=1%": SuperFlow(method="bootstrap", error=0.01, interval=5, rng=0),
        "SuperFlow-2 r=3%": SuperFlow(method="bootstrap", error=0.03, interval=5, rng=0),
        "PT4Cloud": PT4Cloud(threshold=0.90, interval=5),
        "Metior": Metior(error=0.03, statistic="median", interval=5, block_kind="superflow", rng=0),
    }


def one_replay_per_rule(rules: dict[str, Any], traces: dict[str, np.ndarray], **kw: Any) -> Any:
    frames = [
        replay(rule, traces, workers=1, progress=False, **kw).assign(rule=name)
        for name, rule in rules.items()
    ]
    return pd.concat(frames, ignore_index=True)[["rule", *COLUMNS]]


def test_sweep_equals_one_replay_per_rule(part: dict[str, np.ndarray]) -> None:
    rules: dict[str, Any] = configs()
    # A configuration may give each trace its own rule, as replay's rule may.
    rules["CIWidth per trace"] = {
        k: CIWidth(error=0.01 * (1 + i % 3), interval=5, min_n=10) for i, k in enumerate(NAMES)
    }
    kw: dict[str, Any] = {"starts": [0, 60], "max_n": 150}
    expected = one_replay_per_rule(rules, part, **kw)
    got = sweep(rules, part, workers=1, progress=False, **kw)
    pd.testing.assert_frame_equal(got, expected, check_exact=True)
    assert list(got.columns) == ["rule", *COLUMNS]
    assert len(got) == len(rules) * len(part) * 2
    # Configurations differ, so the comparison is not between identical blocks.
    by_rule = got.groupby("rule", sort=False)["stop_n"].apply(tuple)
    assert by_rule.nunique() == len(rules)
    # Local worker processes give the same frame.
    parallel = sweep(rules, part, workers=2, progress=False, **kw)
    pd.testing.assert_frame_equal(parallel, expected, check_exact=True)


@pytest.mark.parametrize("per_task", [1, 2, 4, 6, 50])
def test_traces_per_task_does_not_change_the_result(
    part: dict[str, np.ndarray], serial_sweep: pd.DataFrame, per_task: int
) -> None:
    rules = configs()
    serial = serial_sweep
    executor = CountingExecutor()
    with executor:
        got = sweep(
            rules, part, starts=[0, 30], progress=False, executor=executor, traces_per_task=per_task
        )
    pd.testing.assert_frame_equal(got, serial, check_exact=True)
    # One task per group of traces, each carrying every configuration.
    groups = -(-len(part) // per_task)
    assert len(executor.submitted) == groups
    assert sum(executor.submitted) == len(rules) * len(part)
    # The serial path cuts the same tasks and agrees too.
    in_process = sweep(
        rules, part, starts=[0, 30], workers=1, progress=False, traces_per_task=per_task
    )
    pd.testing.assert_frame_equal(in_process, serial, check_exact=True)


@pytest.mark.parametrize("per_task", [1, 4, 6])
def test_replay_traces_per_task(
    part: dict[str, np.ndarray], serial_metior: pd.DataFrame, per_task: int
) -> None:
    rule = configs()["Metior"]
    serial = serial_metior
    executor = CountingExecutor()
    with executor:
        got = replay(rule, part, progress=False, executor=executor, traces_per_task=per_task)
    pd.testing.assert_frame_equal(got, serial, check_exact=True)
    assert executor.submitted == sorted(executor.submitted, reverse=True)
    assert len(executor.submitted) == -(-len(part) // per_task)
    pd.testing.assert_frame_equal(
        replay(rule, part, workers=2, progress=False, traces_per_task=per_task), serial,
        check_exact=True,
    )  # fmt: skip


def test_sweep_on_a_dask_cluster_is_bit_identical(part: dict[str, np.ndarray]) -> None:
    import distributed

    rules = configs()
    serial = sweep(rules, part, workers=1, progress=False)
    with (
        distributed.LocalCluster(
            n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        got = sweep(rules, part, progress=False, executor=client.get_executor(), traces_per_task=2)
    pd.testing.assert_frame_equal(got, serial, check_exact=True)


@pytest.mark.parametrize(
    ("rules", "kw", "message"),
    [
        (
            [PT4Cloud()],
            {},
            "rules must be a non-empty mapping of configuration names to rules; got list",
        ),
        ({}, {}, "rules must be a non-empty mapping .* got an empty mapping"),
        ({"a": "PT4Cloud"}, {}, r"rule must be a perfstats\.rules\.Rule .* got str for trace 'x'"),
        ({"a": {"y": PT4Cloud()}}, {}, "rule has no entry for trace 'x'"),
        ({1: PT4Cloud(), "1": PT4Cloud()}, {}, "rules has duplicate names"),
        ({"a": PT4Cloud()}, {"traces_per_task": 0}, "traces_per_task must be >= 1, got 0"),
        ({"a": PT4Cloud()}, {"traces_per_task": 1.5}, "traces_per_task must be an integer"),
        ({"a": PT4Cloud()}, {"traces_per_task": True}, "traces_per_task must be an integer"),
        ({"a": PT4Cloud()}, {"executor": "tcp://127.0.0.1:8786"}, "executor must be a concurrent"),
        ({"a": PT4Cloud()}, {"workers": 0}, "workers must be >= 1"),
        ({"a": PT4Cloud()}, {"starts": [100]}, r"starts must be in \[0, 50\) for trace 'x'"),
    ],
)
def test_sweep_says_what_is_wrong(rules: Any, kw: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        sweep(rules, {"x": np.linspace(1.0, 2.0, 50)}, progress=False, **kw)


def test_replay_checks_traces_per_task() -> None:
    with pytest.raises(ValueError, match="traces_per_task must be >= 1, got -1"):
        replay(PT4Cloud(), {"x": np.ones(50)}, progress=False, traces_per_task=-1)
