"""The reporting protocol: requests carry the plan, answers must match it exactly."""

from __future__ import annotations

import json

import pytest
from perfstats.adapters.ab import Benchmark, duet_plan, rmit_plan
from perfstats.adapters.ab.protocol import read_results, request_of
from perfstats.adapters.records.measurement import utc_now

BENCH = Benchmark("k", {"units": 10}, {"units": 15})


def _answer(call, **overrides) -> dict:
    results = [{"version": e.version, "repeat": e.repeat, "value": 100 + i}
               for i, e in enumerate(call.executions)]  # fmt: skip
    return {"results": results, **overrides}


def _read(text: str, call):
    return read_results(text, call, unit="ns", started_at=utc_now(), extra={"call_wall_ns": 7})


def test_requests_carry_the_versions_the_call_runs() -> None:
    duet = duet_plan(["k"], calls=1, repeats=2, rng=3)[0]
    req = request_of(duet, BENCH)
    assert req["versions"] == {"baseline": {"units": 10}, "candidate": {"units": 15}}
    assert req["executions"] == [[e.version, e.repeat] for e in duet.executions]
    assert (req["benchmark"], req["call"], req["trial"]) == ("k", 1, 1)
    rmit = rmit_plan(["k"], calls=1, repeats=2, rng=3)[0]
    assert list(request_of(rmit, BENCH)["versions"]) == [rmit.versions[0]]


def test_values_errors_units_and_extra_fields() -> None:
    call = duet_plan(["k"], calls=1, repeats=2, rng=0)[0]
    answer = _answer(call, unit="us", pid=42)
    answer["results"][1] = {**answer["results"][1], "error": "boom"}
    del answer["results"][1]["value"]
    ms = _read(json.dumps(answer), call)
    assert [m.status for m in ms] == ["ok", "error", "ok", "ok"]
    assert [m.value for m in ms] == [100.0, None, 102.0, 103.0]
    assert ms[1].error == "boom"
    assert {m.unit for m in ms} == {"us"}
    assert all(m.extra == {"call_wall_ns": 7, "pid": 42} for m in ms)


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda a: "not json", "the answer is not JSON"),
        (lambda a: json.dumps({"values": []}), "no list of results"),
        (lambda a: json.dumps({"results": a["results"][:-1]}), "3 results for 4 executions"),
        (lambda a: json.dumps({"results": a["results"][::-1]}), "result 1 is for"),
        (lambda a: json.dumps({"results": [*a["results"][:3], {"version": a["results"][3][
            "version"], "repeat": 2, "value": float("nan")}]}), "not finite"),
        (lambda a: json.dumps({"results": [*a["results"][:3], {"version": a["results"][3][
            "version"], "repeat": 2, "value": True}]}), "not a number"),
        (lambda a: json.dumps({"results": [*a["results"][:3], {"version": a["results"][3][
            "version"], "repeat": 2}]}), "neither a value nor an error"),
    ],
)  # fmt: skip
def test_an_answer_that_does_not_match_fails_the_whole_call(mangle, message) -> None:
    call = duet_plan(["k"], calls=1, repeats=2, rng=0)[0]
    ms = _read(mangle(_answer(call)), call)
    assert len(ms) == len(call.executions)
    assert all(m.status == "error" and m.value is None for m in ms)
    assert message in (ms[0].error or "")
