"""A-B suites through the Functions Framework: both versions in one function instance."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from perfstats.adapters.ab import ReportingHttp, Suite, run_suite
from support.ab_server import suite_function
from support.services import free_port
from support.suites import benchmark


@pytest.fixture(scope="module")
def url(tmp_path_factory) -> Iterator[str]:
    # Two single-threaded workers: two instances, each serving one call at a time.
    with suite_function(tmp_path_factory.mktemp("ff"), workers=2, threads=1) as address:
        yield address


@pytest.mark.timing
def test_duet_over_http_shares_the_instance_and_finds_the_slowdown(url) -> None:
    suite = Suite(
        [benchmark("same", "table", size=2000, units=5),
         benchmark("plus50", "strings", size=2000, units=10, extra_units=15)],
        ReportingHttp(url, unit="ns", headers={"Authorization": "Bearer hunter2"}),
        calls=15, repeats=2, concurrency=2,
    )  # fmt: skip
    run = run_suite(suite, rng=4)
    df = run.measurements
    assert set(df["status"]) == {"ok"} and set(df["unit"]) == {"ns"}
    extra = df["extra"].map(json.loads)
    assert set(extra.map(lambda e: e["http_status"])) == {200}
    pids = extra.map(lambda e: e["pid"])
    # Every call ran in one instance; the calls spread over the instances.
    assert (pids.groupby(df["call"]).nunique() == 1).all()
    assert pids.nunique() == 2
    a = run.analyse()
    plus = a.verdict("plus50")
    assert plus.verdict == "slower" and plus.change.contains(0.5), plus
    assert a.verdict("same").verdict == "no change", a.verdict("same")
    assert "hunter2" not in json.dumps(run.suite.config())


def test_http_failures_fail_every_execution_of_the_call(url) -> None:
    crash = Suite([benchmark("c", candidate={"crash": True})], ReportingHttp(url), calls=2,
                  repeats=2)  # fmt: skip
    df = run_suite(crash, rng=1).measurements
    assert len(df) == 8 and set(df["status"]) == {"error"}
    assert set(df["error"]) == {"HTTP 500 INTERNAL SERVER ERROR: the workload crashed"}
    nobody = Suite([benchmark("c")], ReportingHttp(f"http://127.0.0.1:{free_port()}/"), calls=2,
                   repeats=1)  # fmt: skip
    df = run_suite(nobody, rng=1).measurements
    assert len(df) == 4 and set(df["status"]) == {"error"}
    assert df["error"].str.startswith("cannot reach").all()
