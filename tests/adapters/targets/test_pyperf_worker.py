"""A pyperf script as a target (a new worker process per benchmark per round), and the export."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from perfstats.adapters.targets import TARGETS, PyperfScript, target_by_name
from perfstats.adapters.targets.pyperf_export import series_to_pyperf, write_pyperf
from support.cli import perfstats, rows
from support.tool_suites import (
    PYPERF_QUICK,
    child_process,
    interrupted_round,
    pyperf_script,
    round_of_some,
    round_without,
    set_flag,
    wait_for_pid,
)

BASE = ["quiet", "medium", "noisy"]


@pytest.fixture
def script(tmp_path: Path) -> Path:
    return pyperf_script(tmp_path / "bench")


@pytest.fixture
def faulty(script: Path, tmp_path: Path):
    flags = tmp_path / "flags"
    flags.mkdir()
    env = {"TOOL_FLAGS": str(flags), "TOOL_FAULTS": "1"}
    with PyperfScript([str(script), *PYPERF_QUICK], env=env, timeout=60) as target:
        yield target, flags


def test_each_benchmark_is_a_series_from_a_worker_of_its_own(script: Path) -> None:
    with PyperfScript([str(script), *PYPERF_QUICK]) as target:
        m = target.invoke()
    assert m.ok, m.error
    assert list(m.series) == BASE
    # sum(range(300)) takes microseconds; each series is pyperf's time per loop.
    assert all(s.unit == "s" and s.source == "pyperf" and 1e-7 < s.value < 1e-2
               for s in m.series.values())  # fmt: skip
    assert m.value == m.extra["wall_ns"] > 0


def test_a_round_of_some_series_starts_only_their_workers(faulty) -> None:
    target, flags = faulty
    # One benchmark before the crashing one and one after it.
    round_of_some(target, flags, "crash", ["noisy", "flaky"])


def test_the_kind_from_the_registry_with_fixed_loops(script: Path) -> None:
    assert TARGETS["pyperf"] is PyperfScript
    target = target_by_name("pyperf", [str(script)], {"loops": 8, "values": 2, "warmups": 0})
    with target:
        m = target.invoke()
    assert m.ok and list(m.series) == BASE
    assert target.config()["loops"] == 8


def test_options_each_round_sets_are_refused(script: Path) -> None:
    with pytest.raises(ValueError, match="--processes is set by each round"):
        PyperfScript([str(script), "--processes=3"])
    with pytest.raises(ValueError, match="values must be an integer >= 1"):
        PyperfScript([str(script)], values=0)


def test_a_missing_script_or_interpreter_is_refused_naming_the_tool(
    script: Path, tmp_path: Path
) -> None:
    with pytest.raises(ValueError, match=r"^pyperf: script .* not found"):
        PyperfScript([str(tmp_path / "nothing.py")])
    with pytest.raises(ValueError, match=r"^pyperf: executable 'no-python' not found"):
        PyperfScript([str(script)], python="no-python")


def test_a_script_that_is_not_pyperf_fails_the_round(tmp_path: Path) -> None:
    plain = tmp_path / "plain.py"
    plain.write_text("print('hello')\n")
    with PyperfScript([str(plain)]) as target:
        m = target.invoke()
    assert m.status == "error"
    assert m.error == f"pyperf: {plain} ran no benchmark (is it a pyperf Runner script?)"


def test_a_worker_that_crashes_fails_the_round_naming_the_benchmark(faulty) -> None:
    target, flags = faulty
    assert target.invoke().ok
    set_flag(flags, "crash")
    m = target.invoke()
    assert m.status == "error"
    assert m.error == "pyperf: crashed (SIGABRT) in crash after 3 benchmarks"
    assert m.extra["benchmark"] == "crash"


def test_a_worker_that_hangs_is_killed_at_the_timeout(script: Path, tmp_path: Path) -> None:
    flags = tmp_path / "flags"
    env = {"TOOL_FLAGS": str(flags), "TOOL_FAULTS": "1"}
    with PyperfScript([str(script), *PYPERF_QUICK], env=env, timeout=20) as target:
        target.prepare()  # calibrated before the hang is switched on
        set_flag(flags, "hang")
        target.timeout = 3.0
        m = target.invoke()
    assert m.status == "timeout"
    assert m.error == "pyperf: timed out after 3 s in crash after 3 benchmarks"


def test_sigint_to_a_worker_fails_the_round_naming_the_benchmark(
    script: Path, tmp_path: Path
) -> None:
    flags = tmp_path / "flags"
    env = {"TOOL_FLAGS": str(flags), "TOOL_FAULTS": "1"}
    # The timeout only bounds a test gone wrong: the signal ends the round.
    with PyperfScript([str(script), *PYPERF_QUICK], env=env, timeout=300) as target:
        target.prepare()
        set_flag(flags, "hang")
        m = interrupted_round(target, lambda: _worker_of_task(3))
    assert m.status == "error"
    assert m.error == (
        "pyperf: exit status 1 in crash after 3 benchmarks: Benchmark worker interrupted: exit"
    )


def test_a_benchmark_gone_from_a_later_round_gets_no_value(faulty) -> None:
    target, flags = faulty
    assert round_without(target, flags, "quiet", "flaky").error == (
        "pyperf: flaky is not in this round's output (it was in an earlier round)"
    )


def test_the_export_is_read_by_pyperf_stats_and_compare_to(script: Path, tmp_path: Path) -> None:
    files = []
    for label in ("a", "b"):
        with PyperfScript([str(script), *PYPERF_QUICK]) as target:
            rounds = [target.invoke() for _ in range(4)]
        path = tmp_path / f"{label}.json"
        write_pyperf(rounds, path)
        files.append(path)
    doc = json.loads(files[0].read_text())
    assert [b["metadata"]["name"] for b in doc["benchmarks"]] == BASE
    assert all(len(b["runs"]) == 4 for b in doc["benchmarks"])
    stats = subprocess.run([sys.executable, "-m", "pyperf", "stats", str(files[0])],
                           capture_output=True, text=True, timeout=120)  # fmt: skip
    assert stats.returncode == 0, stats.stderr
    assert stats.stdout.count("Number of run with values: 4") == 3 and "noisy" in stats.stdout
    compare = subprocess.run(
        [sys.executable, "-m", "pyperf", "compare_to", str(files[0]), str(files[1])],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert compare.returncode == 0, compare.stderr
    assert all(name in compare.stdout for name in BASE)


def test_the_export_leaves_out_what_pyperf_cannot_hold() -> None:
    from perfstats.adapters.records import Measurement, SeriesValue, utc_now

    m = Measurement(1.0, "ns", None, utc_now(), series={
        "t": SeriesValue(2e-6, "s"), "rate": SeriesValue(5.0, "MB/s", direction="higher"),
        "zero": SeriesValue(0.0, "B"), "gone": SeriesValue(None, "s", error="missing"),
    })  # fmt: skip
    doc = series_to_pyperf([m])
    assert [b["metadata"]["name"] for b in doc["benchmarks"]] == ["t"]
    with pytest.raises(ValueError, match="pyperf has no unit for 'MB/s'"):
        series_to_pyperf([m], series=["rate"])


def test_perfstats_run_builds_the_pyperf_kind(script: Path, tmp_path: Path) -> None:
    res = perfstats(
        ["run", "--target", "pyperf", "--rule", "fixed", "-r", "n=2", "--record", "run.csv",
         "--no-progress", "--", str(script), *PYPERF_QUICK],
        tmp_path, timeout=300,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert rows(tmp_path / "run.csv") == 2


def _worker_of_task(task: int, timeout: float = 240) -> int:
    """The pid of this process's pyperf worker child for ``--worker-task task``."""
    wanted = [b"--worker-task", str(task).encode()]
    pid = wait_for_pid(
        lambda: child_process(lambda cmd: any(cmd[i : i + 2] == wanted for i in range(len(cmd)))),
        f"a worker of task {task}",
        timeout,
    )
    time.sleep(1.0)  # past the import of pyperf, into the benchmark
    return pid


def test_the_recorded_settings_rebuild_the_target(script: Path) -> None:
    with PyperfScript([str(script), *PYPERF_QUICK], warmups=2) as t:
        config = t.config()
    assert config["argv"] == [str(script), *PYPERF_QUICK] and config["python"] == sys.executable
    options = {k: v for k, v in config.items() if k not in ("kind", "name", "executable", "argv")}
    with target_by_name("pyperf", config["argv"], {**options, "label": config["name"]}) as again:
        assert again.config() == config
