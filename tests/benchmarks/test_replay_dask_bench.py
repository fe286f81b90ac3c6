"""benchmarks/replay_dask.py in quick mode: it runs, and every Dask frame equals the serial one."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_quick_replay_dask_benchmark(
    tmp_path: Path, perfstats_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    module = _load("replay_dask")
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
