"""A service's slowdown with the calls in flight (perfstats.system.calibration)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from examples.shop.loadtest import LoadTestRun
from perfstats.system.calibration import (
    MAX_BIN,
    MIN_BIN_CALLS,
    Calibration,
    alone_demands,
    relative_cpu_by_concurrency,
    slowdown_table,
    slowdown_tables,
)
from perfstats.system.queueing import OpenNetwork, Station


def _span(sid: str, name: str, start: float, end: float, cpu: float, *,
          parent: str | None = None, service: str = "pricing") -> dict[str, Any]:
    return {"id": sid, "parent_id": parent, "trace_id": sid, "name": name,
            "service": service, "start": start, "end": end, "cpu": cpu}


def _alone(first: tuple[str, float], second: tuple[str, float]) -> list[dict[str, Any]]:
    """Twelve calls each of two (name, CPU seconds), one at a time (1 in flight)."""
    spans = []
    for i in range(12):
        spans.append(_span(f"a{i}", first[0], 10.0 * i, 10.0 * i + 1.0, first[1]))
        spans.append(_span(f"b{i}", second[0], 10.0 * i + 5.0, 10.0 * i + 6.0, second[1]))
    return spans


def test_components_are_scaled_by_their_own_time_alone() -> None:
    # Two components of different size, each 12 times alone ...
    spans = _alone(("small", 0.001), ("large", 0.004))
    # ... and then three at once, each 30 % dearer than alone.
    spans.append(_span("c0", "small", 500.0, 501.0, 0.0013))
    spans.append(_span("c1", "large", 500.0, 501.0, 0.0052))
    spans.append(_span("c2", "large", 500.0, 501.0, 0.0052))
    curve = relative_cpu_by_concurrency(spans, "pricing")
    assert curve[1] == (24, 1.0)
    assert curve[3][0] == 3
    assert np.isclose(curve[3][1], 1.3)


def test_only_leaves_of_the_service_count() -> None:
    spans = []
    for i in range(12):
        # A parent that overlaps its child must not count as a second call
        # in flight, nor be a call of its own (its time holds the child's).
        spans.append(_span(f"p{i}", "quote", 10.0 * i, 10.0 * i + 2.0, 0.009))
        spans.append(_span(f"l{i}", "compute_price", 10.0 * i + 0.5, 10.0 * i + 1.5, 0.002,
                           parent=f"p{i}"))
        # Another service's work at the same time is not company either.
        spans.append(_span(f"g{i}", "render_page", 10.0 * i, 10.0 * i + 2.0, 0.003,
                           service="gateway"))
    assert relative_cpu_by_concurrency(spans, "pricing") == {1: (12, 1.0)}
    assert relative_cpu_by_concurrency(spans, "gateway") == {1: (12, 1.0)}
    assert relative_cpu_by_concurrency(spans, "catalogue") == {}


@settings(max_examples=50, deadline=None)
@given(st.integers(min_value=1, max_value=25), st.floats(min_value=0.5, max_value=3.0))
def test_k_identical_calls_at_once_are_k_in_flight(k: int, slowdown: float) -> None:
    spans = [_span(f"a{i}", "f", 3.0 * i, 3.0 * i + 1.0, 0.002) for i in range(10)]
    spans += [_span(f"b{i}", "f", 100.0, 101.0, 0.002 * slowdown) for i in range(k)]
    curve = relative_cpu_by_concurrency(spans, "pricing")
    if k == 1:
        # One more call alone: the median stays that of the ten, the mean moves.
        assert curve == {1: (11, round((10.0 + slowdown) / 11.0, 4))}
        return
    assert curve[1] == (10, 1.0)
    assert curve[min(k, MAX_BIN)] == (k, round(slowdown, 4))


def test_slowdown_table_stops_at_the_first_thin_bin() -> None:
    curve = {1: (900, 0.95), 2: (500, 1.0), 3: (MIN_BIN_CALLS, 1.045), 4: (MIN_BIN_CALLS - 1, 1.3),
             5: (400, 1.4)}  # fmt: skip
    assert slowdown_table(curve) == (1.0, round(1.0 / 0.95, 4), round(1.045 / 0.95, 4))
    assert slowdown_table({1: (900, 1.0)}) is None
    assert slowdown_table({1: (900, 1.0), 2: (3, 1.2)}) is None
    assert slowdown_table({}) is None
    assert slowdown_table({2: (900, 1.2), 3: (900, 1.3)}) is None  # nothing alone to scale by


def _run(busy: dict[str, float], completions: dict[str, int], window: float) -> LoadTestRun:
    return LoadTestRun(
        response_ms=np.zeros(1), kinds=np.array(["x"]), cpu_percent={}, busy_s=busy,
        window_s=window, completions=completions, errors=0, spans=[], wall_s=window, pids={},
    )  # fmt: skip


def test_alone_demands_keep_the_measured_utilisation() -> None:
    # 60 s at 50 + 30 requests/s: pricing busy 60 %, gateway 20 %
    runs = [_run({"pricing": 18.0, "gateway": 6.0}, {"a": 1500, "b": 900}, 30.0)] * 2
    demands = {"pricing": {"a": 0.006, "b": 0.01}, "gateway": {"a": 0.0025, "b": 0.0025}}
    table = (1.0, 1.05, 1.1, 1.2)
    out = alone_demands(demands, {"pricing": table, "gateway": None}, runs)
    assert out["gateway"] == demands["gateway"]
    scale = out["pricing"]["a"] / demands["pricing"]["a"]
    assert out["pricing"]["b"] / demands["pricing"]["b"] == pytest.approx(scale, rel=1e-12)
    assert 1 / 1.2 < scale < 1.0
    net = OpenNetwork([Station("pricing", demands=out["pricing"], slowdown=table)],
                      arrival_rates={"a": 50.0, "b": 30.0})  # fmt: skip
    assert net.solve().utilization["pricing"] == pytest.approx(0.6, abs=1e-8)


@settings(max_examples=30, deadline=None)
@given(st.floats(min_value=0.05, max_value=0.9), st.floats(min_value=0.6, max_value=2.0))
def test_a_constant_slowdown_divides_the_demands(load: float, g: float) -> None:
    runs = [_run({"s": 100.0 * load}, {"a": 1000}, 100.0)]
    out = alone_demands({"s": {"a": load / 10.0}}, {"s": (g,)}, runs)
    assert out["s"]["a"] == pytest.approx(load / 10.0 / g, rel=1e-7)


def test_calibration_drives_the_busiest_station_with_its_own_request_type() -> None:
    from benchmarks.reproduce_liao import Model, calibration_workload

    # Fixed mix 50 % browse, 30 % product, 20 % checkout at 50/s: pricing is busiest
    # (0.3 * 50 * 4 ms + 0.2 * 50 * 10 ms = 16 %); checkout spends 10 / 12 of its
    # demand there, product 4 / 10.
    demands = {
        "pricing": {"product": 0.004, "checkout": 0.010},
        "catalogue": {"product": 0.003, "browse": 0.003},
        "gateway": {"browse": 0.002, "product": 0.003, "checkout": 0.002},
    }
    cal = Calibration(stations=tuple(demands), demands=demands, scv=dict.fromkeys(demands, 1.0),
                      slowdown=dict.fromkeys(demands), component_cpu={}, utilisation={},
                      throughput={})  # fmt: skip
    model = Model({}, cal, 0.0)
    w = calibration_workload(model, 0.8)
    assert dict(w.mix) == {"checkout": 1.0}
    assert w.rate == pytest.approx(80.0)
    with pytest.raises(ValueError, match=r"calibration load must be in \(0, 1\)"):
        calibration_workload(model, 1.0)


def test_cpu_weight_is_a_ratio_of_means() -> None:
    # A cheap and a dear call of the same component, alone ...
    spans = _alone(("f", 0.001), ("f", 0.003))
    # ... then two at once: the cheap one at its alone cost, the dear one 20 % dearer
    spans.append(_span("c0", "f", 500.0, 501.0, 0.001))
    spans.append(_span("c1", "f", 500.0, 501.0, 0.0036))
    per_cpu = relative_cpu_by_concurrency(spans, "pricing", weight="cpu")
    assert per_cpu[1] == (24, 1.0)
    assert per_cpu[2] == (2, round(0.0046 / 0.004, 4))  # the CPU of two calls, against two means
    per_call = relative_cpu_by_concurrency(spans, "pricing")
    assert per_call[2] == (2, round((0.001 / 0.002 + 0.0036 / 0.002) / 2, 4))  # median 0.002
    with pytest.raises(ValueError, match="weight must be 'call' or 'cpu'"):
        relative_cpu_by_concurrency(spans, "pricing", weight="time")


def test_the_calibration_fixes_its_own_request_type_and_the_rest_share_the_remainder() -> None:
    # Mixed load test: a 20/s, b 30/s, service busy 50 %; its span times split
    # it 10 ms / 10 ms. The calibration runs a alone at 60/s: busy 48 %, so a
    # request of type a needs 8 ms there, and b the remaining 34 % / 30 = 11.33 ms.
    runs = [_run({"s": 25.0, "g": 5.0}, {"a": 1000, "b": 1500}, 50.0)]
    calibration = [_run({"s": 9.6, "g": 1.2}, {"a": 1200}, 20.0)]
    demands = {"s": {"a": 0.010, "b": 0.010}, "g": {"a": 0.001, "b": 0.002}}
    out = alone_demands(demands, {"s": None, "g": None}, runs, calibration)
    assert out["s"]["a"] == pytest.approx(0.008, rel=1e-9)
    assert out["s"]["b"] == pytest.approx(0.34 / 30, rel=1e-9)
    # g: a at 1.2 / 20 / 60 = 1 ms (as split), b fills 10 % - 2 % at 30/s
    assert out["g"]["a"] == pytest.approx(0.001, rel=1e-9)
    assert out["g"]["b"] == pytest.approx(0.08 / 30, rel=1e-9)
    # With a slowdown both load tests' utilisations come back from the model.
    table = (1.0, 1.1, 1.2)
    slow = alone_demands(demands, {"s": table, "g": None}, runs, calibration)["s"]
    for rates, busy in (({"a": 60.0}, 0.48), ({"a": 20.0, "b": 30.0}, 0.5)):
        net = OpenNetwork([Station("s", demands={k: slow[k] for k in rates}, slowdown=table)],
                          arrival_rates=rates)  # fmt: skip
        assert net.solve().utilization["s"] == pytest.approx(busy, abs=1e-8)
    assert slow["a"] < 0.008 and slow["b"] < 0.34 / 30


def _timed(run: LoadTestRun, cpu: float, tag: str) -> LoadTestRun:
    """``run`` with spans: twelve requests of type a served alone at service s, ``cpu`` each."""
    spans = [_span(f"{tag}{i}", "a", 10.0 * i, 10.0 * i + 1.0, cpu, service="s")
             for i in range(12)]  # fmt: skip
    return LoadTestRun(**{**run.__dict__, "spans": spans})


def test_calibration_demands_move_to_the_speed_of_the_model_load_tests() -> None:
    # As above, but the machine ran 25 % slower during the calibration: the
    # same calls alone took 1.25 times the CPU. Type a's 8 ms there are
    # 6.4 ms at the mixed test's speed, and b takes the rest: (50 % - 20/s
    # x 6.4 ms) / 30/s.
    runs = [_timed(_run({"s": 25.0, "g": 5.0}, {"a": 1000, "b": 1500}, 50.0), 0.004, "m")]
    calibration = [_timed(_run({"s": 9.6, "g": 1.2}, {"a": 1200}, 20.0), 0.005, "c")]
    demands = {"s": {"a": 0.010, "b": 0.010}, "g": {"a": 0.001, "b": 0.002}}
    out = alone_demands(demands, {"s": None, "g": None}, runs, calibration)
    assert out["s"]["a"] == pytest.approx(0.0064, rel=1e-9)
    assert out["s"]["b"] == pytest.approx((0.5 - 20 * 0.0064) / 30, rel=1e-9)
    # g has no timed calls in either: its calibration demand stays as measured.
    assert out["g"]["a"] == pytest.approx(0.001, rel=1e-9)
    # At equal speed nothing moves.
    same = [_timed(calibration[0], 0.004, "c")]
    assert alone_demands(demands, {"s": None, "g": None}, runs, same)["s"]["a"] == pytest.approx(
        0.008, rel=1e-9
    )


def test_calibration_adds_load_tests_until_the_busiest_station_has_a_second_bin(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from benchmarks import reproduce_liao as sr

    seeds: list[int] = []

    def fake_load_test(injection: Any, workload: Any, *, seed: int, **_: Any) -> LoadTestRun:
        # Each test: 120 pricing calls alone and 40 pairs in flight, i.e. 80
        # calls with two in flight, below MIN_BIN_CALLS until a second test.
        k = len(seeds)
        seeds.append(seed)
        t0 = 1e5 * k  # tests follow one another
        spans = [_span(f"{k}a{i}", "f", t0 + 10.0 * i, t0 + 10.0 * i + 1.0, 0.001)
                 for i in range(120)]  # fmt: skip
        for i in range(40):
            t = t0 + 5000.0 + 10.0 * i
            spans += [_span(f"{k}p{i}{j}", "f", t, t + 1.0, 0.0012) for j in range(2)]
        run = _run({}, {}, 1.0)
        return LoadTestRun(**{**run.__dict__, "spans": spans})

    assert 40 * 2 < MIN_BIN_CALLS <= 2 * 40 * 2
    monkeypatch.setattr(sr, "run_load_test", fake_load_test)
    kw: dict[str, Any] = {"duration": 1.0, "warmup": 0.0, "seed": 5}
    runs = sr.run_calibration(None, reps=1, station="pricing", **kw)  # type: ignore[arg-type]
    assert len(runs) == 2 and len(set(seeds)) == 2
    assert slowdown_tables([r.spans for r in runs], ["pricing"])["pricing"] == (1.0, 1.2)
    # Without a station, or at the cap, the count of tests is fixed.
    assert len(sr.run_calibration(None, reps=1, **kw)) == 1  # type: ignore[arg-type]
    one = sr.run_calibration(None, reps=1, station="pricing", max_reps=1, **kw)  # type: ignore[arg-type]
    assert len(one) == 1 and slowdown_tables([r.spans for r in one], ["pricing"])["pricing"] is None
    with pytest.raises(ValueError, match="reps"):
        sr.run_calibration(None, reps=0, station="pricing", **kw)  # type: ignore[arg-type]
