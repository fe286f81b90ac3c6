"""perf stat counters of local commands: the -x format, and runs where perf cannot count."""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys

import pytest
from perfstats.adapters import Command
from perfstats.adapters.targets.perf_counters import (
    NOT_SUPPORTED,
    PerfCounters,
    parse_perf_csv,
)

PY = sys.executable
# What `perf stat -x, -o FILE -e task-clock,context-switches,page-faults,cycles,
# instructions,cache-misses -- sh -c true` wrote on a VM without hardware counters.
_VM_OUTPUT = """# started on Fri Nov 27 19:49:57 2026

0.71,msec,task-clock,706227,100.00,225.920,CPUs utilized
0,,context-switches,706227,100.00,0.000,/sec
63,,page-faults,706227,100.00,89.206,K/sec
<not supported>,,cycles,0,100.00,,
<not supported>,,instructions,0,100.00,,
<not supported>,,cache-misses,0,100.00,,
"""
_HARDWARE = ("cycles", "instructions", "cache-misses")


def _perf() -> str:
    perf = shutil.which("perf")
    assert perf is not None, "perf is one of this project's test packages (linux-perf)"
    return perf


def _real_output(tmp_path, events: str) -> str:
    out = tmp_path / "perf.csv"
    subprocess.run(
        [_perf(), "stat", "-x", ",", "-o", str(out), "-e", events, "--", "sh", "-c", "true"],
        check=True,
        capture_output=True,
    )
    return out.read_text()


def test_the_recorded_vm_output_is_read() -> None:
    counts = parse_perf_csv(_VM_OUTPUT)
    assert [c.event for c in counts] == [
        "task-clock",
        "context-switches",
        "page-faults",
        *_HARDWARE,
    ]
    clock = counts[0]
    assert (clock.value, clock.unit, clock.problem, clock.running) == (0.71, "msec", None, 100.0)
    assert counts[2].value == 63.0 and counts[2].unit == ""
    assert all(c.value is None and c.problem == NOT_SUPPORTED for c in counts[3:])


def test_what_perf_prints_here_is_read(tmp_path) -> None:
    events = ["task-clock", "context-switches", "page-faults", *_HARDWARE]
    counts = {
        c.event.split(":")[0]: c
        for c in parse_perf_csv(_real_output(tmp_path, ",".join(events)), events)
    }
    assert sorted(counts) == sorted(events)
    # Software events always count; a hardware one counts or says why not.
    assert counts["task-clock"].value is not None and counts["task-clock"].value > 0
    assert counts["task-clock"].unit == "msec"
    assert counts["page-faults"].value is not None and counts["page-faults"].value > 0
    for event in _HARDWARE:
        c = counts[event]
        assert (c.value is None) == (c.problem is not None)


def test_event_names_with_the_separator_and_modifiers() -> None:
    text = "1234,,cpu/event=0x3c,umask=0x0/,5000,100.00,,\n99,,cycles:u,5000,50.00,,\n"
    counts = parse_perf_csv(text, ["cpu/event=0x3c,umask=0x0/", "cycles"])
    assert [(c.event, c.value, c.running) for c in counts] == [
        ("cpu/event=0x3c,umask=0x0/", 1234.0, 100.0),
        ("cycles:u", 99.0, 50.0),
    ]
    assert parse_perf_csv("junk\n\n# comment\nnot-a-number,,x,1,2\n") == []


def test_counters_perf_cannot_count_give_a_message_and_the_run_goes_on(
    tmp_path, caplog: pytest.LogCaptureFixture
) -> None:
    supported = {
        c.event.split(":")[0]: c.problem is None
        for c in parse_perf_csv(_real_output(tmp_path, ",".join(_HARDWARE)), _HARDWARE)
    }
    with caplog.at_level(logging.WARNING):
        target = Command([PY, "-I", "-S", "-c", "pass"], perf=True)
    m = target.invoke()
    assert m.ok, m.error
    for event in _HARDWARE:
        messages = [r.getMessage() for r in caplog.records if f"counter {event} " in r.getMessage()]
        if supported[event]:
            assert m.series[f"perf_{event}"].value is not None and not messages
        else:
            assert f"perf_{event}" not in m.series
            assert messages == [
                f"perf: counter {event} is {NOT_SUPPORTED} here; it is not recorded, "
                "the run goes on"
            ]
    assert target.config()["perf"]["events"] == list(_HARDWARE)


def test_software_counters_are_series_of_each_run() -> None:
    target = Command(
        [PY, "-I", "-S", "-c", "sum(range(10**6))"], perf=["task-clock", "page-faults"]
    )
    m = target.invoke()
    assert m.ok, m.error
    clock = m.series["perf_task-clock"]
    assert clock.source == "perf" and clock.unit == "msec" and clock.value > 0  # type: ignore[operator]
    assert m.series["perf_page-faults"].value > 0  # type: ignore[operator]
    # rusage still comes with it (perf's own process included).
    assert m.series["cpu_user"].value is not None


def test_missing_perf_gives_a_message(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        counters = PerfCounters(["cycles"], perf="no-such-perf-for-perfstats")
    assert not counters.active
    assert [r.getMessage() for r in caplog.records] == [
        "perf: 'no-such-perf-for-perfstats' not found on PATH; counters cycles are not recorded"
    ]


def test_an_event_perf_refuses_gives_a_message_and_runs_go_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING):
        target = Command(["true"], perf=["no-such-event-for-perfstats"])
    assert target.perf is not None and not target.perf.active
    (message,) = [r.getMessage() for r in caplog.records]
    assert message.startswith("perf: perf stat failed (event syntax error")
    assert message.endswith("counters no-such-event-for-perfstats are not recorded")
    m = target.invoke()
    assert m.ok and not any(k.startswith("perf_") for k in m.series)


@pytest.mark.parametrize(
    ("perf", "message"),
    [("cycles", "non-empty list"), ([], "non-empty list"), (["-o"], "an event name")],
)
def test_bad_perf_options_are_refused(perf, message) -> None:
    with pytest.raises(ValueError, match=message):
        Command(["true"], perf=perf)
