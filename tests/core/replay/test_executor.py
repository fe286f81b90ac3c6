"""replay(..., executor=...): any concurrent.futures.Executor, Dask included, bit for bit."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest

from perfstats.replay import replay
from perfstats.rules import Metior, PT4Cloud, SuperFlow


def _protocol_a_part(scope_traces: dict[str, np.ndarray]) -> tuple[dict, dict]:
    """Protocol A's rules (SuperFlow's bootstrap variant, PT4Cloud, Metior) on 6 real traces."""
    names = ["cold/Func1", "cold/Func17", "cold/Func33", "warm/Func2", "warm/Func40", "warm/Func65"]
    traces = {k: scope_traces[k][:300] for k in names}
    rules = {
        "SuperFlow-2": SuperFlow(method="bootstrap", error=0.01, interval=5, rng=0),
        "PT4Cloud": PT4Cloud(threshold=0.90, interval=5),
        "Metior": Metior(error=0.03, statistic="median", interval=5, block_kind="superflow", rng=0),
    }
    return traces, rules


def test_replay_on_a_dask_cluster_is_bit_identical(scope_traces: dict[str, np.ndarray]) -> None:
    import distributed
    traces, rules = _protocol_a_part(scope_traces)
    serial = {k: replay(r, traces, workers=1, progress=False) for k, r in rules.items()}
    with distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        executor = client.get_executor()
        for name, rule in rules.items():
            on_dask = replay(rule, traces, progress=False, executor=executor)
            pd.testing.assert_frame_equal(on_dask, serial[name], check_exact=True)
        # Both workers took part.
        assert len(client.scheduler_info()["workers"]) == 2


def test_replay_on_other_executors(scope_traces: dict[str, np.ndarray]) -> None:
    traces, rules = _protocol_a_part(scope_traces)
    rule = rules["SuperFlow-2"]
    serial = replay(rule, traces, starts=[0, 100], workers=1, progress=False)
    with ThreadPoolExecutor(2) as threads:
        pd.testing.assert_frame_equal(
            replay(rule, traces, starts=[0, 100], progress=False, executor=threads), serial,
            check_exact=True,
        )  # fmt: skip


def test_executor_must_be_an_executor() -> None:
    with pytest.raises(ValueError, match=r"executor must be a concurrent\.futures\.Executor"):
        replay(PT4Cloud(), {"a": np.ones(50)}, executor="tcp://127.0.0.1:8786", progress=False)


def test_single_threaded_is_per_thread_and_restored() -> None:
    import threading

    from perfstats._kernels.threads import fixed_threads, single_threaded, use_threads

    big = 10**9
    # Two threads whatever the machine's load, so only single_threaded decides.
    with fixed_threads(2):
        assert use_threads(big)
        with single_threaded():
            assert not use_threads(big)
            with single_threaded():
                assert not use_threads(big)
            assert not use_threads(big)
            seen: list[bool] = []
            worker = threading.Thread(target=lambda: seen.append(use_threads(big)))
            worker.start()
            worker.join()
            assert seen == [True]  # another thread of the process is not affected
        assert use_threads(big)


def test_one_worker_pool_serves_many_replays_bit_for_bit(
    scope_traces: dict[str, np.ndarray],
) -> None:
    from perfstats.replay import worker_pool

    traces, rules = _protocol_a_part(scope_traces)
    with worker_pool(2) as pool:
        for rule in rules.values():
            shared = replay(rule, traces, progress=False, executor=pool)
            pd.testing.assert_frame_equal(
                shared, replay(rule, traces, workers=1, progress=False), check_exact=True
            )


def test_worker_pool_rejects_a_bad_count() -> None:
    from perfstats.replay import worker_pool

    with pytest.raises(ValueError, match="workers"):
        worker_pool(0)
