"""benchmarks/reproduce_liao.py's calibration load tests: the workload of each station."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from benchmarks import reproduce_liao as rl
from examples.shop.loadtest import LoadTestRun
from perfstats.system.calibration import Calibration

# Fixed mix 50 % browse, 30 % product, 20 % checkout at 50/s: pricing is busiest
# (16 %), then the catalogue (12 %), then the gateway (11.5 %).
DEMANDS = {
    "pricing": {"product": 0.004, "checkout": 0.010},
    "catalogue": {"product": 0.003, "browse": 0.003},
    "gateway": {"browse": 0.002, "product": 0.003, "checkout": 0.002},
}


def _model(demands: dict[str, dict[str, float]]) -> rl.Model:
    cal = Calibration(stations=tuple(demands), demands=demands, scv=dict.fromkeys(demands, 1.0),
                      slowdown=dict.fromkeys(demands), component_cpu={}, utilisation={},
                      throughput={})  # fmt: skip
    return rl.Model({}, cal, 0.0)


def _run(wall_s: float = 1.0) -> LoadTestRun:
    return LoadTestRun(
        response_ms=np.zeros(1), kinds=np.array(["checkout"]), cpu_percent={}, busy_s={},
        window_s=1.0, completions={}, errors=0, spans=[], wall_s=wall_s, pids={},
    )  # fmt: skip


def test_every_station_is_driven_by_the_type_that_loads_it_most() -> None:
    model = _model(DEMANDS)
    # checkout spends 10 / 12 of its demand at pricing; browse 3 / 5 at the
    # catalogue and 2 / 5 at the gateway (product 3 / 10 at either)
    assert rl.station_driver(model, "pricing") == "checkout"
    assert rl.station_driver(model, "catalogue") == "browse"
    assert rl.station_driver(model, "gateway") == "browse"
    targets = rl.calibration_targets(model, 0.8)
    # browse drives two stations: it runs once, at the rate that puts the
    # more loaded of them (the catalogue, 3 ms a browse) at 0.8
    assert [(s, dict(w.mix)) for s, w in targets] == [
        ("pricing", {"checkout": 1.0}),
        ("catalogue", {"browse": 1.0}),
    ]
    assert targets[0][1].rate == pytest.approx(80.0)
    assert targets[1][1].rate == pytest.approx(0.8 / 0.003)
    # the busiest station's workload is the one calibration already ran
    only = rl.calibration_targets(model, 0.8, "busiest")
    assert len(only) == 1 and only[0][0] == "pricing"
    assert only[0][1] == rl.calibration_workload(model, 0.8) == targets[0][1]


def test_a_type_driving_the_gateway_alone_gets_its_own_workload() -> None:
    # product heavy at the gateway: it drives it, browse still the catalogue
    demands = {**DEMANDS, "gateway": {"browse": 0.001, "product": 0.020, "checkout": 0.001}}
    targets = rl.calibration_targets(_model(demands), 0.5)
    assert [(s, dict(w.mix)) for s, w in targets] == [
        ("gateway", {"product": 1.0}),
        ("pricing", {"checkout": 1.0}),
        ("catalogue", {"browse": 1.0}),
    ]
    assert targets[0][1].rate == pytest.approx(0.5 / 0.020)


def test_the_busier_station_has_its_workload_run_first() -> None:
    # browse heavier: 50/s x (0.3 x 3 + 0.5 x 8) ms puts the catalogue at
    # 24.5 %, above pricing's 16 % (the gateway, 21.5 %, is browse's too and
    # needs a higher rate), so the catalogue's workload runs first
    demands = {
        **DEMANDS,
        "catalogue": {"product": 0.003, "browse": 0.008},
        "gateway": {"browse": 0.006, "product": 0.003, "checkout": 0.002},
    }
    targets = rl.calibration_targets(_model(demands), 0.8)
    assert [(s, dict(w.mix)) for s, w in targets] == [
        ("catalogue", {"browse": 1.0}),
        ("pricing", {"checkout": 1.0}),
    ]
    assert rl.busiest_station(_model(demands)) == "catalogue"


def test_with_types_every_request_type_runs_alone_at_its_busiest_station() -> None:
    targets = rl.calibration_targets(_model(DEMANDS), 0.8, "types")
    # product spends most at pricing (4 ms), checkout there too (10 ms),
    # browse at the catalogue (3 ms); pricing is the busiest station
    assert [(s, dict(w.mix)) for s, w in targets] == [
        ("pricing", {"product": 1.0}),
        ("pricing", {"checkout": 1.0}),
        ("catalogue", {"browse": 1.0}),
    ]
    assert [w.rate for _, w in targets] == pytest.approx([0.8 / 0.004, 0.8 / 0.010, 0.8 / 0.003])


@pytest.mark.parametrize(
    ("load", "drives", "match"),
    [(1.0, "every", r"calibration load must be in \(0, 1\)"),
     (0.0, "busiest", r"calibration load must be in \(0, 1\)"),
     (0.5, "all", "drives must be one of")],
)  # fmt: skip
def test_bad_calibration_settings_are_named(load: float, drives: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        rl.calibration_targets(_model(DEMANDS), load, drives)


def test_calibration_workloads_take_turns_with_their_own_seeds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # calibrated_model runs each workload's tests (run_calibration) in order,
    # with seeds apart, and checks that given tests match the workloads.
    calls: list[tuple[Any, int, str | None]] = []

    def fake_run_calibration(workload: Any, *, seed: int, station: str | None = None,
                             **_: Any) -> list[LoadTestRun]:  # fmt: skip
        calls.append((workload, seed, station))
        return [tests[str(station)]]

    tests = {"pricing": _run(2.0), "catalogue": _run(3.0)}
    seen: list[Any] = []
    monkeypatch.setattr(rl, "build_model", lambda runs, **_: _model(DEMANDS))
    monkeypatch.setattr(rl, "run_calibration", fake_run_calibration)
    def fake_with_calibration(model: rl.Model, runs: Any, groups: Any) -> rl.Model:
        seen.append(groups)
        return model

    monkeypatch.setattr(rl, "with_calibration", fake_with_calibration)
    monkeypatch.setattr(rl, "run_summary", lambda run: {"wall_s": run.wall_s})
    settings = rl.Settings(duration=1.0, warmup=0.0, reps=1, calibration_load=0.8)
    _, doc = rl.calibrated_model([], settings, seed=7)
    assert [(dict(w.mix), s) for w, _, s in calls] == [
        ({"checkout": 1.0}, "pricing"),
        ({"browse": 1.0}, "catalogue"),
    ]
    assert calls[0][1] == 7 and calls[1][1] != 7
    assert seen == [[[tests["pricing"]], [tests["catalogue"]]]]
    assert doc is not None and doc["drives"] == "every"
    assert doc["workload"] == {"rate": pytest.approx(80.0), "mix": {"checkout": 1.0}}
    assert [w["station"] for w in doc["workloads"]] == ["pricing", "catalogue"]
    assert [w["load_tests_s"] for w in doc["workloads"]] == [2.0, 3.0]
    assert doc["runs"] == [{"wall_s": 2.0}, {"wall_s": 3.0}] and doc["load_tests_s"] == 5.0
    # given tests: one list per workload; a flat list is a single workload
    with pytest.raises(ValueError, match=r"1 calibration workload\(s\) given, the model needs 2"):
        rl.calibrated_model([], settings, seed=7, calibration_runs=[[_run()]])
    busiest = rl.Settings(duration=1.0, warmup=0.0, reps=1, calibration_drives="busiest")
    one, two = _run(), _run()
    rl.calibrated_model([], busiest, seed=7, calibration_runs=[one, two])
    assert len(calls) == 2 and seen[-1] == [[one, two]]
