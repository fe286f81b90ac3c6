"""benchmarks/replay_dask.py in quick mode: it runs, and every Dask frame equals the serial one."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from support.benchmark_scripts import load_benchmark


def test_quick_replay_dask_benchmark(
    tmp_path: Path, perfstats_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    module = load_benchmark("replay_dask")
    out = tmp_path / "replay_dask.json"
    argv = ["--quick", "--per-config", "--traces-per-task", "2", "--json", str(out)]
    assert module.main(argv) == 0
    report = json.loads(out.read_text())
    assert report["traces"] == 26 and report["runs_per_trace"] == 200
    assert len(report["configurations"]) == 9
    assert report["all_identical_to_serial"] is True
    for n in (1, 2):
        run = report[f"dask_{n}"]
        assert run["workers"] == n
        assert run["sweep"]["identical_to_serial"] is True
        assert run["per_config"]["identical_to_serial"] is True
        assert run["sweep"]["tasks"] == 13  # 26 traces, 2 per task, every configuration in each
        assert run["per_config"]["tasks"] == 9 * 26
        for phase in ("startup", "warm_up", "sweep", "per_config"):
            assert run[phase]["wall_s"] > 0
            # The workers did the sweep's work: it cost them CPU time.
            assert run[phase]["cpu_workers_s"] > 0
            if sys.platform.startswith("linux"):
                # The machine's busy time covers at least the workers' and ours.
                busy = run[phase]["cpu_machine_busy_s"]
                assert busy >= 0.9 * (
                    run[phase]["cpu_workers_s"] + run[phase]["cpu_this_process_s"]
                )
    assert report["serial"]["wall_s"] > 0
    assert len(report["load_average_before"]) == len(report["load_average_after"]) == 3
    assert set(report["speedup"]) >= {"serial_over_dask_2", "dask_1_over_dask_2"}
    printed = capsys.readouterr().out
    assert "all frames identical to serial: True" in printed
