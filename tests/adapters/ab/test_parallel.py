"""Calls in flight: a suite finishes sooner, and no measurement is lost or duplicated."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from perfstats.adapters.ab import ReportingHttp, Suite, read_ab_record, run_suite
from support.ab_server import suite_function
from support.suites import benchmark, workload_command

# Sixteen duet calls of two 60 ms executions each: about 2 s one after the
# other, a fraction of that with 16 in flight.
BENCHES = [benchmark(f"s{i}", "sleep", size=60, units=1) for i in range(4)]


def _planned(run) -> list[tuple[int, str, int]]:
    return sorted((c.call, e.version, e.repeat) for c in run.plan for e in c.executions)


def _recorded(df) -> list[tuple[int, str, int]]:
    return sorted(zip(df["call"], df["version"], df["repeat"], strict=True))


@pytest.fixture(scope="module")
def threaded_function(tmp_path_factory) -> Iterator[str]:
    with suite_function(tmp_path_factory.mktemp("ff"), workers=1, threads=16) as url:
        yield url


@pytest.mark.timing
@pytest.mark.parametrize("kind", ["command", "http"])
def test_sixteen_in_flight_beat_one_and_lose_nothing(kind, threaded_function, tmp_path) -> None:
    elapsed = {}
    for flight in (1, 16):
        target = workload_command() if kind == "command" else ReportingHttp(threaded_function)
        suite = Suite(BENCHES, target, calls=4, repeats=1, concurrency=flight)
        path = tmp_path / f"{kind}-{flight}.csv"
        run = run_suite(suite, record=path, rng=8)
        elapsed[flight] = run.elapsed
        assert set(run.measurements["status"]) == {"ok"}
        assert _recorded(run.measurements) == _planned(run)
        assert _recorded(read_ab_record(path)) == _planned(run)
    assert elapsed[16] < 0.5 * elapsed[1], elapsed
