"""CPU time and peak memory of local commands, from wait4 through the small launcher."""

from __future__ import annotations

import logging
import os
import resource
import sys
from collections.abc import Iterator

import pytest
from perfstats.adapters import Command
from perfstats.adapters.targets.processes import ProcessRunner
from perfstats.adapters.targets.rusage import Launcher, default_launcher, parse_report

PY = sys.executable
MIB = 2**20
# A child that reports its own CPU time, as its own getrusage sees it, at exit.
_OWN_USAGE = (
    "import json, resource\n"
    "r = resource.getrusage(resource.RUSAGE_SELF)\n"
    "while r.ru_utime < 0.4:\n"
    "    sum(range(10000)); r = resource.getrusage(resource.RUSAGE_SELF)\n"
    "print(json.dumps({'user': r.ru_utime, 'system': r.ru_stime}))\n"
)


@pytest.fixture
def large_driver() -> Iterator[bytearray]:
    """This test process made large (400 MiB touched), as a driver holding data would be."""
    block = bytearray(400 * MIB)
    block[:: resource.getpagesize()] = b"\x01" * len(range(0, len(block), resource.getpagesize()))
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 >= 400 * MIB
    yield block
    del block


def _peak(argv: list[str]) -> float:
    m = Command(argv).invoke()
    assert m.ok, m.error
    assert m.series["max_rss"].unit == "B" and m.series["max_rss"].source == "rusage"
    value = m.series["max_rss"].value
    assert value is not None
    return value


def test_a_direct_child_would_report_the_drivers_peak(large_driver: bytearray) -> None:
    # Why the launcher exists: a child started straight from a large process
    # carries that process's peak through exec.
    pid = os.posix_spawn("/bin/true", ["true"], os.environ)
    _, status, usage = os.wait4(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert usage.ru_maxrss * 1024 >= 400 * MIB


def test_an_empty_child_reports_its_own_small_peak(large_driver: bytearray) -> None:
    driver_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    true_peak = _peak(["true"])
    python_peak = _peak([PY, "-I", "-S", "-c", "pass"])
    assert 0 < true_peak < 16 * MIB
    assert 0 < python_peak < 64 * MIB
    assert max(true_peak, python_peak) < driver_peak / 6


def test_peak_of_a_child_that_allocates_200_mib(large_driver: bytearray) -> None:
    base = _peak([PY, "-I", "-S", "-c", "pass"])
    peak = _peak([PY, "-I", "-S", "-c", f"block = b'x' * {200 * MIB}"])
    expected = 200 * MIB + base
    assert abs(peak - expected) <= 0.05 * expected, (peak / MIB, base / MIB)


def test_cpu_time_equals_the_childs_own_getrusage() -> None:
    target = Command(
        [PY, "-I", "-S", "-c", _OWN_USAGE],
        metrics=[
            {"name": "own_user", "json_field": "user", "unit": "s"},
            {"name": "own_system", "json_field": "system", "unit": "s"},
        ],
    )
    m = target.invoke()
    assert m.ok, m.error
    own_user = m.series["own_user"].value
    own_system = m.series["own_system"].value
    user, system = m.series["cpu_user"].value, m.series["cpu_system"].value
    assert None not in (own_user, own_system, user, system)
    assert m.series["cpu_user"].unit == m.series["cpu_system"].unit == "ns"
    own_total = (own_user + own_system) * 1e9  # type: ignore[operator]
    assert abs(user + system - own_total) <= 0.05 * own_total  # type: ignore[operator]
    assert abs(user - own_user * 1e9) <= 0.05 * own_user * 1e9  # type: ignore[operator]


def test_the_whole_process_tree_is_counted() -> None:
    # A shell whose child allocates and burns CPU: the usage is the tree's.
    code = f"block = b'x' * {100 * MIB}; sum(range(3_000_000))"
    m = Command(["sh", "-c", f'{PY} -I -S -c "{code}"; true']).invoke()
    assert m.ok, m.error
    assert m.series["max_rss"].value >= 100 * MIB  # type: ignore[operator]
    assert m.series["cpu_user"].value > 0  # type: ignore[operator]


def test_exit_status_and_signal_pass_through_the_launcher() -> None:
    runner, launcher = ProcessRunner(), default_launcher()
    out = runner.run(["sh", "-c", "echo no >&2; exit 3"], usage=launcher)
    assert out.returncode == 3 and out.failure() == "exit status 3: no"
    assert out.usage is not None
    killed = runner.run(["sh", "-c", "kill -TERM $$"], usage=launcher)
    assert killed.returncode == -15 and killed.usage is not None


def test_a_program_that_cannot_start_is_a_start_error() -> None:
    name = "no-such-program-for-perfstats"
    out = ProcessRunner().run([name], usage=default_launcher())
    assert out.failure() == f"cannot start {name!r}: No such file or directory"
    assert out.usage is None


def test_a_timed_out_run_has_no_usage() -> None:
    out = ProcessRunner().run(["sleep", "30"], timeout=0.3, usage=default_launcher())
    assert out.timed_out and out.usage is None


def test_the_launcher_pins_before_the_command_starts() -> None:
    cpu = max(os.sched_getaffinity(0))
    code = "import os; print(sorted(os.sched_getaffinity(0)))"
    out = ProcessRunner().run([PY, "-I", "-S", "-c", code], cpus=(cpu,), usage=default_launcher())
    assert out.stdout.strip() == f"[{cpu}]"


def test_without_a_compiler_runs_go_on_without_usage(
    tmp_path, caplog: pytest.LogCaptureFixture
) -> None:
    launcher = Launcher(cache_dir=tmp_path / "cache", compiler="no-such-compiler-for-perfstats")
    with caplog.at_level(logging.WARNING):
        out = ProcessRunner().run(["sh", "-c", "echo ok"], usage=launcher)
    assert out.returncode == 0 and out.stdout == "ok\n" and out.usage is None
    assert launcher.problem is not None and "no C compiler" in launcher.problem
    assert any("rusage" in r.getMessage() and "not recorded" in r.getMessage()
               for r in caplog.records)  # fmt: skip


def test_a_cache_folder_others_may_write_is_refused(tmp_path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    launcher = Launcher(cache_dir=shared)
    assert launcher.path() is None
    assert launcher.problem is not None and "writable by others" in launcher.problem


def test_rusage_off_gives_no_series() -> None:
    m = Command(["true"], rusage=False).invoke()
    assert m.ok and dict(m.series) == {}
    assert Command(["true"], rusage=False).config()["rusage"] is False
    # The default leaves the configuration as records written before it have it.
    assert "rusage" not in Command(["true"]).config()
    with pytest.raises(ValueError, match="rusage must be True or False"):
        Command(["true"], rusage="yes")  # type: ignore[arg-type]


def test_a_failed_run_has_no_series() -> None:
    m = Command(["sh", "-c", "exit 1"]).invoke()
    assert not m.ok and dict(m.series) == {}


def test_report_lines() -> None:
    assert parse_report("garbage") is None
    assert parse_report("usage 0 x 0 0 0 0") is None
    report = parse_report("affinity 22\n")
    assert report is not None and report.start_error is not None
    assert report.start_error.startswith("affinity: ")


class _SlowStart(Launcher):
    """The real launcher behind a script that dawdles before it: a slow launcher start-up."""

    def __init__(self, folder, delay: float) -> None:  # type: ignore[no-untyped-def]
        super().__init__()
        self._script = folder / "slow-launcher"
        real = default_launcher().path()
        assert real is not None, default_launcher().problem
        self._script.write_text(f'#!/bin/sh\nsleep {delay}\nexec "{real}" "$@"\n')
        self._script.chmod(0o700)

    def path(self) -> str | None:
        return str(self._script)


def test_the_wall_time_is_the_commands_own_not_the_launchers(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # The launcher clocks the command from just before it starts to its exit,
    # so whatever the launcher costs to start stays out of the value.
    out = ProcessRunner().run(["sleep", "0.05"], usage=_SlowStart(tmp_path, 0.5))
    assert out.returncode == 0 and out.usage is not None
    assert 0.05e9 <= out.wall_ns < 0.45e9


def test_recorded_metrics_do_not_decide_when_a_run_stops(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # CPU time and peak memory are recorded on every run but never judged:
    # the rule stops on the command's time alone, here a fixed count.
    from perfstats.adapters import run

    result = run(Command(["true"]), "fixed", rule_options={"n": 5}, progress=False,
                 record=tmp_path / "r.csv")  # fmt: skip
    assert result.decision.stop and result.decision.n == 5
    assert set(result.decisions) == {"value"}
    assert {"cpu_user", "cpu_system", "max_rss"} <= set(result.series["series"])
    # Naming one in stop_when judges it.
    named = run(Command(["true"]), "fixed", rule_options={"n": 5}, progress=False,
                stop_when="max_rss")  # fmt: skip
    assert set(named.decisions) == {"value", "max_rss"} and named.decisions["max_rss"].stop


def test_the_run_summary_shows_the_recorded_metrics(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from support.cli import perfstats

    done = perfstats(["run", "--rule", "fixed", "-r", "n=5", "--no-progress", "--",
                      PY, "-c", "x = bytearray(64 * 2**20)"], tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    tail = done.stdout.split("recorded beside the value, not judged", 1)[1]
    peak = next(line for line in tail.splitlines() if "max_rss" in line)
    median = float(peak.split("median", 1)[1].split("MiB")[0])
    assert 64 < median < 64 + 32, peak
    assert "cpu_user" in tail and "cpu_system" in tail
