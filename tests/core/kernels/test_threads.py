"""Thread choice per call: serial below the size where threads pay,
no more threads than free cores, the same numbers for any thread count."""

from __future__ import annotations

import numpy as np
import pytest

import perfstats
from perfstats._kernels import threads


def test_small_work_and_forbidden_threads_run_serially() -> None:
    assert threads.threads_for(1000) == 1
    assert threads.threads_for(threads.PARALLEL_WORK) == 1
    with threads.one_thread():
        assert threads.threads_for(10**9) == 1
    with threads.fixed_threads(2):
        assert threads.threads_for(10) == 2


def test_never_more_threads_than_usable_cores_left_free() -> None:
    cores = threads.usable_cores()
    for work in (10**6, 10**8, 10**10):
        n = threads.threads_for(work)
        assert 1 <= n <= cores
        assert n <= max(1, work // threads.PARALLEL_WORK)


def test_other_runnable_is_a_count() -> None:
    assert threads.other_runnable() >= 0


def test_results_identical_for_one_and_two_threads() -> None:
    x = np.random.default_rng(3).lognormal(3.0, 0.6, 4000)
    y = x * np.random.default_rng(4).lognormal(0.02, 0.1, 4000)

    def everything() -> list[object]:
        out: list[object] = []
        for method in ("bootstrap", "block"):
            ivs = perfstats.percentile_ci(x, [0.1, 0.5, 0.9], method=method, rng=11)
            out += [(iv.low, iv.high) for iv in ivs]
        for paired in (False, True):
            rc = perfstats.relative_change(x, y, paired=paired, n_resamples=500, rng=3)
            out.append((rc.low, rc.high))
        out.append(
            perfstats.bootstrap_distribution(
                x, "mean", n_resamples=300, block_length=7, block_kind="circular", rng=2
            ).tolist()
        )
        return out

    with threads.one_thread():
        serial = everything()
    with threads.fixed_threads(2):
        parallel = everything()
    assert serial == parallel


def test_run_queue_snapshot_is_shared_by_calls_close_in_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    readings = iter([3, 0])
    monkeypatch.setattr(threads, "_read_other_runnable", lambda: next(readings))
    monkeypatch.setattr(threads, "_snapshot", (-float("inf"), 0))
    assert threads.other_runnable() == 3
    assert threads.other_runnable() == 3  # within SNAPSHOT_S: no second read
    taken, value = threads._snapshot
    monkeypatch.setattr(threads, "_snapshot", (taken - 2 * threads.SNAPSHOT_S, value))
    assert threads.other_runnable() == 0  # stale: read again
