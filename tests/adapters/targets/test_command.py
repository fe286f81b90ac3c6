"""The Command target on real local processes."""

from __future__ import annotations

import os
import sys
import time

import pytest
from perfstats.adapters import Command
from perfstats.adapters.targets.builtin import builtin_target
from perfstats.adapters.targets.processes import ProcessRunner

PY = sys.executable


def test_a_real_python_workload_is_timed() -> None:
    fast = Command([PY, "-I", "-S", "-c", "pass"])
    slow = Command([PY, "-I", "-S", "-c", "import time; time.sleep(0.3)"])
    a, b = fast.invoke(), slow.invoke()
    assert a.ok and b.ok and a.unit == b.unit == "ns" and a.cold is None
    assert b.value is not None and b.value >= 0.3e9
    assert a.value is not None and 0 < a.value < b.value
    assert b.extra["returncode"] == 0


def test_reported_value_from_the_builtin_workload() -> None:
    m = builtin_target(size=2000, repeat=2).invoke()
    assert m.ok and m.unit == "ns"
    # The reported computation time excludes interpreter start-up.
    assert m.value is not None and 0 < m.value < m.extra["wall_ns"]


def test_json_field_and_environment(tmp_path) -> None:
    code = "import json, os; print(json.dumps({'v': float(os.environ['X']) * 2}))"
    target = Command([PY, "-c", code], env={"X": "21"}, json_field="v", unit="ms", cwd=tmp_path)
    m = target.invoke()
    assert m.ok and m.value == 42.0 and m.unit == "ms"


def test_timeout_kills_the_whole_process_group(tmp_path) -> None:
    marker = tmp_path / "child-survived"
    # A shell whose child would write the marker after 2 s unless killed too.
    script = f"(sleep 2; touch {marker}) & sleep 30"
    target = Command(["sh", "-c", script], timeout=0.5)
    t0 = time.monotonic()
    m = target.invoke()
    assert time.monotonic() - t0 < 5
    assert m.status == "timeout" and m.value is None and "0.5 s" in (m.error or "")
    time.sleep(2.5)
    assert not marker.exists()


def test_failing_command_is_an_error_with_its_message() -> None:
    m = Command(["sh", "-c", "echo broken pipe fitting >&2; exit 3"]).invoke()
    assert m.status == "error" and m.value is None
    assert m.error == "exit status 3: broken pipe fitting"
    assert m.extra["returncode"] == 3


def test_missing_value_in_output_is_an_error() -> None:
    m = Command(["echo", "no number"], regex=r"t=(\d+)").invoke()
    assert m.status == "error" and "found nothing" in (m.error or "")


@pytest.mark.parametrize(
    ("argv", "kwargs", "message"),
    [
        (["definitely-not-a-program-x9"], {}, "not found"),
        (["./missing.sh"], {}, "not found"),
        ("echo hi", {}, "list of strings"),
        ([], {}, "must not be empty"),
        (["true"], {"timeout": -1}, "timeout"),
        (["true"], {"timeout": "soon"}, "timeout"),
        (["true"], {"cwd": "/no/such/dir"}, "not a directory"),
        (["true"], {"env": {"A": 1}}, "string values"),
        (["true"], {"cpus": []}, "non-empty list of CPU numbers"),
        (["true"], {"cpus": [-1]}, "non-empty list of CPU numbers"),
        (["true"], {"cpus": "0"}, "list of CPU numbers or None"),
        (["true"], {"cpus": [True]}, "non-empty list of CPU numbers"),
        (["true"], {"cpus": [4096]}, "CPU 4096 is not one this process may use"),
    ],
)
def test_bad_input_fails_before_running(argv, kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        Command(argv, **kwargs)


def test_secret_environment_is_redacted_in_config() -> None:
    target = Command(["true"], env={"API_TOKEN": "hunter2", "MODE": "fast"})
    config = target.config()
    assert config["env"] == {"API_TOKEN": "<redacted>", "MODE": "fast"}
    assert config["kind"] == "command"
    assert os.path.basename(config["executable"]) == "true"


def test_pinned_runs_see_only_their_cpus() -> None:
    cpu = max(os.sched_getaffinity(0))
    script = "grep Cpus_allowed_list /proc/self/status | tr -dc 0-9,-; echo; echo t=1"
    target = Command(["sh", "-c", script], regex=r"t=(\d)", cpus=[cpu])
    assert target.invoke().status == "ok"
    assert target.config()["cpus"] == [cpu]
    out = ProcessRunner().run(["sh", "-c", "read x; grep Cpus_allowed_list /proc/self/status"],
                              stdin=b"go\n", cpus=(cpu,))  # fmt: skip
    assert out.stdout.split()[-1] == str(cpu)
    free = ProcessRunner().run(["sh", "-c", "grep Cpus_allowed_list /proc/self/status"])
    usable = sorted(os.sched_getaffinity(0))
    if len(usable) > 1:
        assert free.stdout.split()[-1] != str(cpu)


def test_kill_all_stops_a_process_that_was_still_starting(monkeypatch: pytest.MonkeyPatch) -> None:
    # An interrupt can close the target between an invocation's start of its
    # process and its registration; that process must die too, or its
    # thread waits on it forever and the interpreter cannot exit.
    import subprocess
    import threading
    import uuid

    from perfstats.adapters.targets import processes

    real_popen = subprocess.Popen
    started, go = threading.Event(), threading.Event()

    def slow_to_register(*args: object, **kwargs: object) -> subprocess.Popen[bytes]:
        proc = real_popen(*args, **kwargs)  # type: ignore[call-overload]
        if not started.is_set():
            started.set()
            go.wait(10)
        return proc

    monkeypatch.setattr(processes.subprocess, "Popen", slow_to_register)
    runner = ProcessRunner()
    marker = f"sleep 4{uuid.uuid4().int % 10**6:06d}"
    outcomes: list[processes.Outcome] = []
    worker = threading.Thread(
        target=lambda: outcomes.append(runner.run(["sh", "-c", f"{marker} & {marker}; wait"]))
    )
    worker.start()
    try:
        assert started.wait(10)
        runner.kill_all()
        go.set()
        worker.join(10)
        assert not worker.is_alive() and outcomes[0].returncode == -9
        # Calls made after kill_all (a target's clean-up) run as usual.
        assert runner.run(["sh", "-c", "echo done"]).stdout == "done\n"
    finally:
        go.set()
        left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout
        for pid in left.split():
            os.kill(int(pid), 9)
        worker.join(10)
    assert not left.split()
