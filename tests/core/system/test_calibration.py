"""A queueing model calibrated from load tests (perfstats.system.calibration).

Textbook checks on constructed load tests (the utilisation law U = X D, a
known slowdown table, the demands of a request served alone), the checks of
the inputs, and the real example shop's load test as the benchmarks use it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import perfstats
from perfstats.system.calibration import (
    MIN_ALONE_VISITS,
    MIN_BIN_CALLS,
    Calibration,
    calibrate,
    relative_cpu_by_concurrency,
    service_scv,
    slowdown_table,
    slowdown_tables,
    utilisation_demands,
)
from perfstats.system.queueing import OpenNetwork


def _span(
    sid: str, name: str, service: str, start: float, end: float, *,
    trace: str, parent: str | None = None, cpu: float | None = None,
) -> dict[str, Any]:  # fmt: skip
    out = {"trace_id": trace, "id": sid, "parent_id": parent, "name": name,
           "service": service, "start": start, "end": end}  # fmt: skip
    if cpu is not None:
        out["cpu"] = cpu
    return out


def _two_tier(n: int, offset: float = 0.0) -> list[dict[str, Any]]:
    """``n`` requests each of "buy" and "look", one at a time.

    buy: api 2 ms of its own around a db call of 6 ms; look: api 1 ms, db 2 ms.
    """
    spans: list[dict[str, Any]] = []
    for i in range(n):
        t = offset + 10.0 * i
        spans += [
            _span(f"b{i}", "buy", "api", t, t + 0.008, trace=f"tb{i}"),
            _span(f"bq{i}", "query", "db", t + 0.001, t + 0.007, trace=f"tb{i}", parent=f"b{i}"),
        ]
        t += 5.0
        spans += [
            _span(f"l{i}", "look", "api", t, t + 0.003, trace=f"tl{i}"),
            _span(f"lq{i}", "query", "db", t + 0.0005, t + 0.0025, trace=f"tl{i}",
                  parent=f"l{i}"),
        ]  # fmt: skip
    return spans


def _load_test(spans: list[dict[str, Any]], busy: dict[str, float], completions: dict[str, int],
               window: float) -> dict[str, Any]:  # fmt: skip
    return {"spans": spans, "busy_s": busy, "completions": completions, "window_s": window}


# --- the utilisation law ------------------------------------------------------


def test_demands_follow_the_utilisation_law() -> None:
    # 100 s, 2,000 buys and 6,000 looks; the api busy 30 %, the db 60 %.
    run = _load_test(_two_tier(50), {"api": 30.0, "db": 60.0}, {"buy": 2000, "look": 6000}, 100.0)
    cal = calibrate([run])
    assert cal.stations == ("api", "db")
    x = {"buy": 20.0, "look": 60.0}
    assert dict(cal.throughput) == pytest.approx(x)
    assert dict(cal.utilisation) == pytest.approx({"api": 0.3, "db": 0.6})
    for station in cal.stations:
        d = cal.demands[station]
        # U = sum_c X_c D_c, the classes split by their own span time per request
        assert sum(x[c] * d[c] for c in d) == pytest.approx(cal.utilisation[station], rel=1e-12)
    # own time: buy 2 ms and look 1 ms at the api (the db's time is the db's), 6 and 2 ms at the db
    assert cal.demands["api"]["buy"] / cal.demands["api"]["look"] == pytest.approx(2.0)
    assert cal.demands["db"]["buy"] / cal.demands["db"]["look"] == pytest.approx(3.0)
    # so: api 20 * 2a + 60 * a = 0.3 -> a = 3 ms; db 20 * 3b + 60 * b = 0.6 -> b = 5 ms
    assert cal.demands["api"]["look"] == pytest.approx(0.003)
    assert cal.demands["db"]["look"] == pytest.approx(0.005)
    # The model at the measured throughput is as busy as the load test.
    util = cal.network().solve().utilization
    assert util["api"] == pytest.approx(0.3, rel=1e-9)
    assert util["db"] == pytest.approx(0.6, rel=1e-9)
    # Load-independent without a calibration, the paper's model
    assert all(t is None for t in cal.slowdown.values())
    assert cal.notes == ()


def test_several_load_tests_pool_busy_time_and_completions() -> None:
    one = _load_test(_two_tier(30), {"api": 30.0, "db": 60.0}, {"buy": 2000, "look": 6000}, 100.0)
    two = _load_test(_two_tier(30), {"api": 10.0, "db": 20.0}, {"buy": 1000, "look": 1000}, 50.0)
    demands = utilisation_demands([one, two])
    # sum_c N_c D_c = busy over both tests
    done = {"buy": 3000, "look": 7000}
    assert sum(done[c] * v for c, v in demands["api"].items()) == pytest.approx(40.0)
    assert sum(done[c] * v for c, v in demands["db"].items()) == pytest.approx(80.0)


def test_station_order_and_a_subset() -> None:
    run = _load_test(_two_tier(5), {"api": 3.0, "db": 6.0}, {"buy": 200, "look": 600}, 10.0)
    assert calibrate([run], stations=["db", "api"]).stations == ("db", "api")
    only = calibrate([run], stations=["db"])
    assert only.stations == ("db",) and set(only.demands) == {"db"}


def test_network_at_other_arrival_rates_leaves_out_classes_without_arrivals() -> None:
    run = _load_test(_two_tier(5), {"api": 3.0, "db": 6.0}, {"buy": 200, "look": 600}, 10.0)
    cal = calibrate([run])
    net = cal.network({"buy": 10.0})
    assert isinstance(net, OpenNetwork)
    assert all(set(s.demands) == {"buy"} for s in net.stations)
    assert net.solve().utilization["db"] == pytest.approx(10.0 * cal.demands["db"]["buy"])


def test_top_level_names() -> None:
    assert perfstats.calibrate is calibrate
    assert perfstats.Calibration is Calibration
    assert perfstats.system.calibrate is calibrate


# --- service-time variability ---------------------------------------------------


def test_scv_of_constant_and_of_gamma_service_times() -> None:
    rng = np.random.default_rng(3)
    own = rng.gamma(2.0, 0.002, size=300)  # scv 1/2
    spans = [_span(f"s{i}", "get", "api", 2.0 * i, 2.0 * i + float(x), trace=f"t{i}")
             for i, x in enumerate(own)]  # fmt: skip
    run = _load_test(spans, {"api": float(own.sum())}, {"get": 300}, 600.0)
    assert calibrate([run]).scv["api"] == pytest.approx(own.var(ddof=1) / own.mean() ** 2)
    assert calibrate([run], service_times="exponential").scv["api"] == 1.0
    constant = [_span(f"c{i}", "get", "api", 2.0 * i, 2.0 * i + 0.25, trace=f"c{i}")
                for i in range(MIN_ALONE_VISITS)]  # fmt: skip
    assert service_scv(constant, ["api"]) == {"api": 0.0}
    assert service_scv(constant[:-1], ["api"]) == {"api": 1.0}  # too few: the exponential's


def test_overlapping_visits_do_not_enter_the_scv() -> None:
    alone = [_span(f"a{i}", "get", "api", 2.0 * i, 2.0 * i + 0.25, trace=f"a{i}")
             for i in range(30)]  # fmt: skip
    # pairs that waited for each other: much longer, and not service times
    waited = [_span(f"w{i}", "get", "api", 1000.0 + 2.0 * (i // 2), 1000.0 + 2.0 * (i // 2) + 1.5,
                    trace=f"w{i}") for i in range(20)]  # fmt: skip
    assert service_scv(alone + waited, ["api"]) == {"api": 0.0}


# --- slowdown ---------------------------------------------------------------------


def _concurrent(groups: dict[int, float], calls: int, offset: float = 0.0) -> list[dict[str, Any]]:
    """``calls`` leaf calls at each in-flight count k, each costing groups[k] CPU seconds."""
    spans = []
    t = offset
    for k, cpu in groups.items():
        for g in range(calls // k):
            spans += [_span(f"{offset}-{k}-{g}-{j}", "work", "api", t, t + 1.0, trace=f"{k}{g}{j}",
                            cpu=cpu) for j in range(k)]  # fmt: skip
            t += 2.0
    return spans


def test_a_known_slowdown_table_comes_back() -> None:
    spans = _concurrent({1: 0.010, 2: 0.011, 3: 0.0125, 4: 0.013}, 120)
    assert relative_cpu_by_concurrency(spans, "api", weight="cpu") == {
        1: (120, 1.0), 2: (120, 1.1), 3: (120, 1.25), 4: (120, 1.3)
    }  # fmt: skip
    assert slowdown_tables(spans, ["api", "db"]) == {"api": (1.0, 1.1, 1.25, 1.3), "db": None}
    # a bin with too few calls ends the table
    thin = _concurrent({1: 0.010, 2: 0.011, 3: 0.0125}, 120)[: 240 + 3 * ((MIN_BIN_CALLS - 1) // 3)]
    assert slowdown_table(relative_cpu_by_concurrency(thin, "api", weight="cpu")) == (1.0, 1.1)


def test_load_tests_apart_are_not_in_flight_together() -> None:
    # Two tests on the same clock (both start at 0): pooled as separate tests,
    # their calls alone stay alone.
    one = _concurrent({1: 0.010}, 120)
    two = [{**s, "id": "x" + s["id"]} for s in one]
    assert relative_cpu_by_concurrency([one, two], "api") == {1: (240, 1.0)}
    assert relative_cpu_by_concurrency(one + two, "api") == {2: (240, 1.0)}


def test_calibrated_demands_keep_both_measured_utilisations() -> None:
    # The model's load test (mixed, 100 s) and a calibration at a higher load
    # (buys alone, 50 s). api: slowdown 1, 1.1, 1.25, 1.3 with 1..4 calls in flight.
    model_run = _load_test(_two_tier(50), {"api": 30.0, "db": 60.0},
                           {"buy": 2000, "look": 6000}, 100.0)  # fmt: skip
    spans = _concurrent({1: 0.010, 2: 0.011, 3: 0.0125, 4: 0.013}, 120)
    cal_run = _load_test(spans, {"api": 30.0, "db": 0.0}, {"buy": 3000}, 50.0)
    cal = calibrate([model_run], [cal_run])
    assert cal.slowdown["api"] == (1.0, 1.1, 1.25, 1.3)
    assert cal.slowdown["db"] is None
    # the api's utilisations in both load tests come back from the load-dependent model
    for rates, busy in (({"buy": 60.0}, 0.6), ({"buy": 20.0, "look": 60.0}, 0.3)):
        util = cal.network(rates).solve().utilization["api"]
        assert util == pytest.approx(busy, abs=1e-8)
    uncal = calibrate([model_run])
    # the db, load-independent and not in the calibration, keeps its demands
    assert dict(cal.demands["db"]) == pytest.approx(dict(uncal.demands["db"]))
    # the calibration's calls carry no request type of the model: no speed to compare
    assert any("speed" in note for note in cal.notes)


# --- the inputs -------------------------------------------------------------------


GOOD = _load_test(_two_tier(3), {"api": 3.0, "db": 6.0}, {"buy": 200, "look": 600}, 10.0)


@pytest.mark.parametrize(
    ("runs", "kwargs", "match"),
    [
        ([], {}, "at least one load test"),
        (GOOD, {}, "sequence of load tests"),
        ([{**GOOD, "spans": []}], {}, "has no spans"),
        ([{k: v for k, v in GOOD.items() if k != "window_s"}], {}, "no 'window_s'"),
        ([object()], {}, "has no 'spans'"),
        ([{**GOOD, "window_s": 0.0}], {}, "window_s must be > 0"),
        ([{**GOOD, "window_s": float("nan")}], {}, "must be finite"),
        ([{**GOOD, "busy_s": {"api": -1.0, "db": 6.0}}], {}, "busy_s must be >= 0"),
        ([{**GOOD, "completions": {"buy": 2.5}}], {}, "must be a count"),
        ([{**GOOD, "spans": [{"id": 1}]}], {}, "lacks"),
        ([{**GOOD, "spans": [{**GOOD["spans"][0], "end": -1.0}]}], {}, "ends before it starts"),
        ([{**GOOD, "spans": [{**GOOD["spans"][0], "cpu": -0.1}]}], {}, "cpu must be >= 0"),
        ([GOOD], {"stations": ["api", "cache"]}, r"no busy_s for station\(s\) \['cache'\]"),
        ([GOOD], {"stations": ["api", "api"]}, "unique"),
        ([GOOD], {"service_times": "gamma"}, "service_times must be"),
        ([{**GOOD, "busy_s": {"api": 3.0, "db": 6.0, "cache": 1.0}}], {}, "no span time"),
        ([GOOD], {"calibration": [{**GOOD, "busy_s": {"api": 1.0}}]}, "calibration load tests"),
    ],
)
def test_bad_input_is_named(runs: Any, kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        calibrate(runs, **kwargs)


def test_bad_curve_and_weight() -> None:
    with pytest.raises(ValueError, match="weight must be 'call' or 'cpu'"):
        relative_cpu_by_concurrency(GOOD["spans"], "api", weight="time")
    with pytest.raises(ValueError, match="curve must be a mapping"):
        slowdown_table([(1, 1.0)])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="stations must be a sequence"):
        service_scv(GOOD["spans"], "api")


def test_calibration_needs_demands_for_every_station() -> None:
    with pytest.raises(ValueError, match=r"no demands for station\(s\) \['db'\]"):
        Calibration(stations=("api", "db"), demands={"api": {"a": 0.1}}, scv={}, slowdown={},
                    component_cpu={}, utilisation={}, throughput={})  # fmt: skip
    cal = Calibration(stations=("api",), demands={"api": {"a": 0.1}}, scv={}, slowdown={},
                      component_cpu={}, utilisation={}, throughput={"a": 1.0})  # fmt: skip
    with pytest.raises(ValueError, match="no station 'db'"):
        cal.station("db")


# --- the real shop ------------------------------------------------------------------


@pytest.mark.service
def test_the_real_shops_load_test_calibrates_its_model() -> None:
    # The data path of benchmarks/reproduce_liao.py: a load test of the
    # example shop (three service processes on 127.0.0.1) with its spans and
    # the processes' CPU time, calibrated into the model.
    from examples.shop.cluster import ORDER
    from examples.shop.injection import Injection
    from examples.shop.loadgen import Workload
    from examples.shop.loadtest import run_load_test

    workload = Workload(40.0, {"browse": 0.5, "product": 0.3, "checkout": 0.2})
    run = run_load_test(Injection(), workload, duration=3.0, warmup=0.5, seed=11, keep_spans=True)
    cal = calibrate([run], stations=ORDER)
    assert cal.stations == tuple(ORDER)
    rates = {k: n / run.window_s for k, n in run.completions.items()}
    assert dict(cal.throughput) == pytest.approx(rates)
    for station in ORDER:
        # U = X D: the demands times the completions give back the busy time
        d = cal.demands[station]
        assert sum(run.completions[k] * v for k, v in d.items()) == pytest.approx(
            run.busy_s[station], rel=1e-9
        )
        assert all(v > 0 for v in d.values())
        assert 0.0 <= cal.scv[station] < 10.0
    # a browse never reaches pricing, a checkout never the catalogue
    assert "browse" not in cal.demands["pricing"]
    assert "checkout" not in cal.demands["catalogue"]
    util = cal.network().solve().utilization
    for station in ORDER:
        assert util[station] == pytest.approx(run.busy_s[station] / run.window_s, rel=1e-9)
    # every component call of the spans has its CPU time per request type
    assert cal.component_cpu["checkout"]["compute_price"] > 0


def test_a_calibration_of_one_request_type_fixes_its_demand_by_the_utilisation_law() -> None:
    # Calls alone only: no slowdown table, and the single-type test's law is
    # exact: buy needs 0.6 / 60 = 10 ms at the api; look takes what is left of
    # the mixed test's 30 %: (0.3 - 20 x 10 ms) / 60.
    model_run = _load_test(_two_tier(50), {"api": 30.0, "db": 60.0},
                           {"buy": 2000, "look": 6000}, 100.0)  # fmt: skip
    cal_run = _load_test(_concurrent({1: 0.010}, 120), {"api": 30.0, "db": 0.0}, {"buy": 3000},
                         50.0)  # fmt: skip
    cal = calibrate([model_run], [cal_run])
    assert cal.slowdown["api"] is None
    assert cal.demands["api"]["buy"] == pytest.approx(0.010, rel=1e-9)
    assert cal.demands["api"]["look"] == pytest.approx(0.1 / 60, rel=1e-9)


# --- several calibration workloads ---------------------------------------------------


def _leaf_calls(kind: str, service: str, groups: dict[int, float], calls: int, tag: str
                ) -> list[dict[str, Any]]:  # fmt: skip
    """Requests of ``kind``, one leaf call at ``service`` each, ``calls`` at each in-flight k."""
    spans = []
    t = 0.0
    for k, cpu in groups.items():
        for g in range(calls // k):
            spans += [_span(f"{tag}{k}-{g}-{j}", kind, service, t, t + 1.0,
                            trace=f"{tag}{k}-{g}-{j}", cpu=cpu) for j in range(k)]  # fmt: skip
            t += 2.0
    return spans


def _three_types(n: int) -> list[dict[str, Any]]:
    """``n`` requests each of buy, look and ping, one at a time: an api span around a db query.

    Own times (api, db): buy 2 and 6 ms, look 1 and 2 ms, ping 3 and 4 ms.
    """
    own = {"buy": (0.002, 0.006), "look": (0.001, 0.002), "ping": (0.003, 0.004)}
    spans: list[dict[str, Any]] = []
    t = 0.0
    for i in range(n):
        for kind, (api, db) in own.items():
            root, trace = f"{kind}{i}", f"t{kind}{i}"
            spans += [
                _span(root, kind, "api", t, t + api + db, trace=trace),
                _span(f"q{root}", "query", "db", t + api / 2, t + api / 2 + db, trace=trace,
                      parent=root),
            ]  # fmt: skip
            t += 1.0
    return spans


def test_each_calibration_workload_fixes_its_own_types_demands() -> None:
    # The model's load test: buy 20/s, look 30/s, ping 10/s over 100 s; the
    # api busy 30 %, the db 40 %. Two calibration workloads of one type each:
    # buys at 60/s (api 60 %, db 24 %), whose api calls slow down 1, 1.1, 1.25,
    # 1.3 with 1..4 in flight, and looks at 100/s (api 20 %, db 50 %), whose db
    # calls slow down 1, 1.2, 1.4.
    model_run = _load_test(_three_types(40), {"api": 30.0, "db": 40.0},
                           {"buy": 2000, "look": 3000, "ping": 1000}, 100.0)  # fmt: skip
    api_table, db_table = (1.0, 1.1, 1.25, 1.3), (1.0, 1.2, 1.4)
    buys = _load_test(
        _leaf_calls("buy", "api", {1: 0.010, 2: 0.011, 3: 0.0125, 4: 0.013}, 120, "b"),
        {"api": 30.0, "db": 12.0}, {"buy": 3000}, 50.0,
    )  # fmt: skip
    looks = _load_test(_leaf_calls("look", "db", {1: 0.004, 2: 0.0048, 3: 0.0056}, 120, "l"),
                       {"api": 8.0, "db": 20.0}, {"look": 4000}, 40.0)  # fmt: skip
    cal = calibrate([model_run], [[buys], [looks]])
    # each station's table comes from the workload that drives it
    assert cal.slowdown == {"api": api_table, "db": db_table}
    # every load test's utilisation at every station comes back from the model:
    # each calibration workload's from its own type's demands, the model's
    # load test's with ping taking the rest
    for rates, busy in (
        ({"buy": 60.0}, {"api": 0.6, "db": 0.24}),
        ({"look": 100.0}, {"api": 0.2, "db": 0.5}),
        ({"buy": 20.0, "look": 30.0, "ping": 10.0}, {"api": 0.3, "db": 0.4}),
    ):
        util = cal.network(rates).solve().utilization
        for station, u in busy.items():
            assert util[station] == pytest.approx(u, abs=1e-8), (rates, station)
    # without the model's cpu times no component times the machine's speed
    assert {n.split(":")[0] for n in cal.notes} == {"api", "db"}
    assert all("calibration workload" in n for n in cal.notes)
    # The same load tests as one workload: one factor for buy and look, split
    # by the mixed test's span times, misses each type's own utilisation.
    pooled = calibrate([model_run], [buys, looks])
    assert pooled.slowdown == cal.slowdown
    util = pooled.network({"buy": 60.0}).solve().utilization["api"]
    assert abs(util - 0.6) > 0.05


def test_a_type_fixed_by_an_earlier_workload_is_held_in_a_later_mixed_one() -> None:
    # Calls alone only (no slowdown tables): the first workload runs buy alone
    # at 60/s with the api busy 60 %, so buy needs 10 ms there; the second
    # runs buy and look at 20/s each with the api busy 30 %: look needs
    # (0.3 - 20 x 10 ms) / 20 = 5 ms, not a share of one factor with buy.
    # The model's load test (api 45 %) leaves ping (0.45 - 20 x 10 ms - 30 x
    # 5 ms) / 10 = 10 ms.
    model_run = _load_test(_three_types(40), {"api": 45.0, "db": 40.0},
                           {"buy": 2000, "look": 3000, "ping": 1000}, 100.0)  # fmt: skip
    buys = _load_test(_leaf_calls("buy", "api", {1: 0.010}, 120, "b"), {"api": 30.0, "db": 0.0},
                      {"buy": 3000}, 50.0)  # fmt: skip
    both = _load_test(_leaf_calls("look", "api", {1: 0.005}, 120, "l"), {"api": 15.0, "db": 0.0},
                      {"buy": 1000, "look": 1000}, 50.0)  # fmt: skip
    cal = calibrate([model_run], [[buys], [both]], stations=["api"])
    assert cal.slowdown == {"api": None}
    assert cal.demands["api"]["buy"] == pytest.approx(0.010, rel=1e-9)
    assert cal.demands["api"]["look"] == pytest.approx(0.005, rel=1e-9)
    assert cal.demands["api"]["ping"] == pytest.approx(0.010, rel=1e-9)


@pytest.mark.parametrize(
    ("calibration", "match"),
    [
        ([[GOOD], GOOD], "not both"),
        ([[GOOD], []], r"calibration\[1\] must hold at least one load test"),
        ([[{**GOOD, "spans": []}]], r"calibration\[0\]\[0\] has no spans"),
        ("tests", "sequence of load tests, or of lists"),
    ],
)
def test_bad_calibration_workloads_are_named(calibration: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        calibrate([GOOD], calibration)
