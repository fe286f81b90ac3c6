"""``perfstats replay --scheduler``: a Dask cluster gives the serial run's result, bit for bit."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from perfstats.adapters.cli import main


def _replay(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["replay", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_replay_on_a_local_dask_cluster_equals_the_serial_run(
    capsys, tmp_path: Path, scope_traces: dict[str, np.ndarray]
) -> None:
    import distributed

    names = ["cold/Func1", "cold/Func17", "warm/Func2", "warm/Func40"]
    path = tmp_path / "traces.csv"
    pd.DataFrame({k: scope_traces[k][:300] for k in names}).to_csv(path, index=False)
    argv = [str(path), "--rule", "superflow", "--seed", "7", "--json", "--no-progress"]
    code, out, err = _replay(capsys, *argv, "--workers", "1")
    assert code == 0, err
    serial = json.loads(out)
    with distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        code, out, err = _replay(capsys, *argv, "--scheduler", cluster.scheduler_address)
        assert code == 0, err
        on_dask = json.loads(out)
        code, out, err = _replay(
            capsys, *argv, "--scheduler", cluster.scheduler_address, "--traces-per-task", "3"
        )
        assert code == 0, err
        assert json.loads(out) == serial
    assert on_dask == serial
    assert [t["trace"] for t in on_dask["tests"]] == names
    code, _, err = _replay(capsys, str(path), "--scheduler", "tcp://127.0.0.1:1", "--workers", "2")
    assert code == 2 and "--workers and --scheduler exclude each other" in err
