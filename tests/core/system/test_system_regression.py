"""perfstats.predict_regression and perfstats.detect_system_regression (steps 5-6, 1-6)."""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np
import pytest

import perfstats
from perfstats import CallGraph, detect_system_regression, predict_regression
from perfstats.system.queueing import ClosedNetwork, OpenNetwork, Station


def shop_model() -> OpenNetwork:
    # class a: gateway -> catalogue; class b: gateway -> pricing
    return OpenNetwork(
        [
            Station("gateway", demands={"a": 0.002, "b": 0.002}),
            Station("catalogue", demands={"a": 0.010}),
            Station("pricing", demands={"b": 0.008}),
        ],
        arrival_rates={"a": 40.0, "b": 30.0},
    )


def test_unchanged_demands_give_identical_samples() -> None:
    model = shop_model()
    for factors in ({}, {"catalogue": 1.0}):
        res = predict_regression(model, factors, n_requests=2_000, rng=1)
        assert not res.regression
        assert res.cliffs_delta == 0.0 and res.pvalue == 1.0 and res.mpd == 0.0
        assert res.reason == "no regression: no service demand changed"
        assert all(v == 0.0 for v in res.cpu_mpd.values())


def test_large_change_is_a_regression_with_cpu_from_the_utilisation_law() -> None:
    model = shop_model()
    res = predict_regression(model, {"catalogue": 2.0}, n_requests=5_000, rng=4)
    assert res.regression and res.cliffs_delta > 0.147 and res.pvalue < 0.05
    assert res.reason.startswith("regression predicted: mean response time +")
    # CPU: 40 requests/s x 10 ms more = 40 percentage points
    assert res.cpu_mpd["catalogue"] == pytest.approx(40.0, abs=2.0)
    assert res.cpu_mpd["gateway"] == 0.0 and res.cpu_mpd["pricing"] == 0.0
    # class b never visits the catalogue: with common random numbers it is untouched
    assert res.mpd_by_class["b"] == 0.0 and res.cliffs_delta_by_class["b"] == 0.0
    analytic = (
        model.with_demand_factors({"catalogue": 2.0}).solve().response_time["a"]
        - model.solve().response_time["a"]
    )
    assert res.mpd_by_class["a"] == pytest.approx(analytic, rel=0.3)
    assert res.mpd == pytest.approx(res.mean_after - res.mean_before)
    assert res.relative_mpd == pytest.approx(res.mpd / res.mean_before)


def test_small_change_is_significant_but_negligible() -> None:
    res = predict_regression(shop_model(), {"catalogue": 1.1}, n_requests=5_000, rng=4)
    assert res.pvalue < 0.05  # the test alone would flag it ...
    assert res.magnitude == "negligible" and not res.regression  # ... the effect size does not
    assert "negligible" in res.reason
    assert res.cpu_mpd["catalogue"] == pytest.approx(4.0, abs=0.5)


def test_improvement_is_not_a_regression() -> None:
    res = predict_regression(shop_model(), {"catalogue": 0.5}, n_requests=5_000, rng=4)
    assert res.cliffs_delta < -0.147 and res.pvalue < 0.05
    assert not res.regression and "improvement" in res.reason


def test_per_class_factors() -> None:
    model = OpenNetwork(
        [Station("shared", demands={"a": 0.005, "b": 0.005})],
        arrival_rates={"a": 20.0, "b": 20.0},
    )
    res = predict_regression(model, {"a": {"shared": 3.0}}, n_requests=4_000, rng=2)
    assert res.mpd_by_class["a"] > res.mpd_by_class["b"] > 0.0
    assert res.cpu_mpd["shared"] == pytest.approx(100 * 20 * 0.010, abs=1.5)


def test_saturating_change_is_reported() -> None:
    res = predict_regression(shop_model(), {"catalogue": 3.0}, n_requests=3_000, rng=5)
    assert res.saturated == ("catalogue",)
    assert res.regression and "'catalogue' (utilisation 1.2) saturate" in res.reason


@pytest.mark.parametrize(("factor", "expected"), [(3.0, 2449), (10.0, 1154), (1.5, 10_000)])
def test_saturated_runs_are_shortened_by_the_backlog_growth(factor: float, expected: int) -> None:
    # load 0.4 * factor at the catalogue: n = sqrt(1e6 / (1 - 1/load)) when it is >= 1
    res = predict_regression(shop_model(), {"catalogue": factor}, n_requests=10_000, rng=5)
    assert res.n_requests == expected
    # The stable original completes every request; a saturated version
    # leaves part of its backlog unfinished at the end of the run.
    assert res.before.all_response_times().size == expected
    assert res.after.all_response_times().size <= expected
    assert res.regression
    assert bool(res.saturated) is (factor * 0.4 >= 1.0)


def test_load_dependent_station_raises_the_cpu_change_and_saturates_sooner() -> None:
    def model(slowdown: list[float] | None) -> OpenNetwork:
        return OpenNetwork(
            [Station("gateway", demands={"a": 0.002, "b": 0.002}),
             Station("pricing", demands={"b": 0.008}, slowdown=slowdown)],
            arrival_rates={"a": 40.0, "b": 30.0},
        )  # fmt: skip

    slow = model([1.0, 1.1, 1.2, 1.3])
    res = predict_regression(slow, {"pricing": 3.0}, n_requests=20_000, rng=6)
    analytic = 100 * (
        slow.with_demand_factors({"pricing": 3.0}).solve().utilization["pricing"]
        - slow.solve().utilization["pricing"]
    )
    assert res.cpu_mpd["pricing"] == pytest.approx(analytic, abs=2.5)
    plain = predict_regression(model(None), {"pricing": 3.0}, n_requests=20_000, rng=6)
    # offered work alone: 30/s x 16 ms more = 48 points; the slowdown adds to it
    assert plain.cpu_mpd["pricing"] == pytest.approx(48.0, abs=2.0)
    assert res.cpu_mpd["pricing"] > plain.cpu_mpd["pricing"] + 10.0
    # offered load 0.86, but 1.12 at the slowdown of 1.3 under load
    over = predict_regression(slow, {"pricing": 3.6}, n_requests=4_000, rng=6)
    assert over.saturated == ("pricing",) and over.regression
    assert not predict_regression(model(None), {"pricing": 3.6}, n_requests=4_000, rng=6).saturated


def test_closed_model() -> None:
    model = ClosedNetwork(
        [Station("cpu", demands={"u": 0.05}), Station("db", demands={"u": 0.03})],
        population={"u": 10},
        think_times={"u": 0.5},
    )
    res = predict_regression(model, {"db": 3.0}, n_requests=3_000, rng=6)
    assert res.regression and res.mpd > 0


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        (("not a model", {}), {}, "model must be a perfstats.system.queueing"),
        ((None, {"nope": 1.2}), {}, r"unknown station\(s\) \['nope'\]"),
        ((None, {"catalogue": 0.0}), {}, "demand factor of station 'catalogue'"),
        ((None, {"catalogue": -1.0}), {}, "demand factor of station 'catalogue'"),
        ((None, {"z": {"catalogue": 1.2}}), {}, r"unknown request class\(es\) \['z'\]"),
        ((None, {}), {"alpha": 0.0}, "alpha"),
        ((None, {}), {"n_requests": 5}, "n_requests"),
        ((None, {}), {"n_requests": 10**12}, "n_requests must be at most 10_000_000"),
    ],
)
def test_predict_bad_input(args: tuple[Any, Any], kwargs: dict[str, Any], match: str) -> None:
    model = shop_model() if args[0] is None else args[0]
    with pytest.raises(ValueError, match=match):
        predict_regression(model, args[1], **kwargs)


# -- the whole pipeline -----------------------------------------------------------


def system_graph() -> CallGraph:
    g = nx.DiGraph()
    g.add_node("gw.route", subsystem="gateway", calls=1, inclusive=0.014)
    g.add_node("cat.search", subsystem="catalogue", calls=1, inclusive=0.010)
    g.add_node("cat.rank", subsystem="catalogue", calls=4, inclusive=0.001)
    g.add_node("price.quote", subsystem="pricing", calls=1, inclusive=0.002)
    g.add_edge("gw.route", "cat.search")
    g.add_edge("cat.search", "cat.rank")
    g.add_edge("gw.route", "price.quote")
    return CallGraph(g)


def local_graph() -> CallGraph:
    g = nx.DiGraph()
    g.add_node("cat.search", subsystem="catalogue", calls=1, inclusive=0.010)
    g.add_node("cat.rank", subsystem="catalogue", calls=4, inclusive=0.001)
    g.add_node("price.quote", subsystem="pricing", calls=1, inclusive=0.002)
    g.add_node("legacy.unused", subsystem="legacy", calls=1, inclusive=0.002)
    g.add_edge("cat.search", "cat.rank")
    return CallGraph(g)


def model() -> OpenNetwork:
    return OpenNetwork(
        [
            Station("gateway", demands={"r": 0.002}),
            Station("catalogue", demands={"r": 0.010}),
            Station("pricing", demands={"r": 0.002}),
        ],
        arrival_rates={"r": 50.0},
    )


def measurements(slow: dict[str, float], seed: int = 0) -> tuple[dict[str, Any], dict[str, Any]]:
    rng = np.random.default_rng(seed)
    means = {"cat.search": 0.010, "cat.rank": 0.001, "price.quote": 0.002, "legacy.unused": 0.002}
    before = {c: rng.normal(m, m * 0.03, size=30) for c, m in means.items()}
    after = {c: rng.normal(m, m * 0.03, size=30) + slow.get(c, 0.0) for c, m in means.items()}
    return before, after


def test_pipeline_detects_a_large_local_slowdown() -> None:
    # cat.rank gets 2.5 ms slower per call; cat.search's test sees 4 x 2.5 ms
    before, after = measurements({"cat.rank": 0.0025, "cat.search": 0.010})
    res = detect_system_regression(
        before, after, local_graph(), system_graph(), model(), n_requests=4_000, rng=1
    )
    assert res.deviations["cat.rank"].deviated and res.deviations["cat.search"].deviated
    assert not res.deviations["price.quote"].deviated
    # catalogue's 10 ms become about 20 ms: nested change counted once
    assert res.demand_factors["catalogue"] == pytest.approx(2.0, abs=0.05)
    assert res.regression and res.prediction.regression
    assert res.reason.startswith("2 component(s) deviated locally")
    assert res.unmapped == {}


def test_pipeline_small_local_slowdown_is_no_system_regression() -> None:
    # a large local deviation of a component that matters little (pricing, 2 ms)
    before, after = measurements({"price.quote": 0.0002})
    res = detect_system_regression(
        before, after, local_graph(), system_graph(), model(), n_requests=4_000, rng=1
    )
    assert res.deviations["price.quote"].deviated
    assert res.demand_factors["pricing"] == pytest.approx(1.1, abs=0.02)
    assert not res.regression


def test_pipeline_without_deviation() -> None:
    before, after = measurements({})
    res = detect_system_regression(
        before, after, local_graph(), system_graph(), model(), n_requests=2_000, rng=1
    )
    assert not res.regression and dict(res.demand_factors) == {}
    assert res.reason.startswith("no component deviated locally; no regression")


def test_pipeline_reports_unmapped_components() -> None:
    before, after = measurements({"legacy.unused": 0.002})
    res = detect_system_regression(
        before, after, local_graph(), system_graph(), model(), n_requests=2_000, rng=1
    )
    assert "legacy.unused" in res.unmapped
    assert "not mapped to the system graph: ['legacy.unused']" in res.reason
    assert not res.regression


def test_pipeline_with_system_graphs_per_request_class() -> None:
    two = OpenNetwork(
        [
            Station("gateway", demands={"search": 0.002, "quote": 0.002}),
            Station("catalogue", demands={"search": 0.010}),
            Station("pricing", demands={"quote": 0.002}),
        ],
        arrival_rates={"search": 30.0, "quote": 30.0},
    )
    g_quote = nx.DiGraph()
    g_quote.add_node("gw.route", subsystem="gateway", calls=1, inclusive=0.004)
    g_quote.add_node("price.quote", subsystem="pricing", calls=1, inclusive=0.002)
    g_quote.add_edge("gw.route", "price.quote")
    graphs = {"search": system_graph(), "quote": CallGraph(g_quote)}
    before, after = measurements({"cat.rank": 0.0025, "cat.search": 0.010})
    res = detect_system_regression(
        before, after, local_graph(), graphs, two, n_requests=4_000, rng=1
    )
    assert res.demand_factors["search"]["catalogue"] == pytest.approx(2.0, abs=0.05)
    assert dict(res.demand_factors["quote"]) == {}
    assert res.prediction.mpd_by_class["quote"] == 0.0
    assert res.regression
    # on the search path, not on quote's: mapped, so not reported as lost
    assert res.unmapped == {}
    assert set(res.propagation["quote"].unmapped) == {"cat.rank", "cat.search"}
    assert "not mapped" not in res.reason


def test_pipeline_bad_input() -> None:
    before, after = measurements({"cat.rank": 0.0025})
    del after["cat.rank"]
    with pytest.raises(ValueError, match=r"only in before: \['cat.rank'\]"):
        detect_system_regression(before, after, local_graph(), system_graph(), model())
    before, after = measurements({"cat.rank": 0.0025})
    no_catalogue = OpenNetwork(
        [Station("gateway", demands={"r": 0.002})], arrival_rates={"r": 10.0}
    )
    with pytest.raises(ValueError, match=r"subsystem\(s\) \['catalogue'\] .* not stations"):
        detect_system_regression(before, after, local_graph(), system_graph(), no_catalogue)
    with pytest.raises(ValueError, match=r"request class\(es\) \['zzz'\]"):
        detect_system_regression(before, after, local_graph(), {"zzz": system_graph()}, model())
    with pytest.raises(ValueError, match="different units"):
        perfstats.local_deviation([1.0], [1.0], unit=("s", "ms"))


def test_prediction_as_dict_is_json_ready() -> None:
    import json

    res = predict_regression(shop_model(), {"a": {"catalogue": 1.5}}, n_requests=1_000, rng=3)
    row = json.loads(json.dumps(res.as_dict()))
    assert row["regression"] == res.regression and row["mpd"] == res.mpd
    assert row["cpu_mpd"]["catalogue"] == res.cpu_mpd["catalogue"]
    assert row["demand_factors"] == {"a": {"catalogue": 1.5}}
    assert "before" not in row and "after" not in row


def test_pipeline_baseline_from_the_model() -> None:
    # spans under load: catalogue's 10 ms of work took 20 ms (half of it waiting)
    g = nx.DiGraph()
    g.add_node("gw.route", subsystem="gateway", calls=1, inclusive=0.030)
    g.add_node("cat.search", subsystem="catalogue", calls=1, inclusive=0.020)
    g.add_edge("gw.route", "cat.search")
    loaded = CallGraph(g)
    before, after = measurements({"cat.search": 0.010})
    by_graph = detect_system_regression(
        before, after, local_graph(), loaded, model(), n_requests=1_000, rng=1
    )
    by_model = detect_system_regression(
        before, after, local_graph(), loaded, model(), n_requests=1_000, rng=1, baseline="model"
    )
    assert by_graph.demand_factors["catalogue"] == pytest.approx(1.5, abs=0.02)
    assert by_model.demand_factors["catalogue"] == pytest.approx(2.0, abs=0.03)
    per_class = detect_system_regression(
        before,
        after,
        local_graph(),
        {"r": loaded},
        model(),
        n_requests=1_000,
        rng=1,
        baseline="model",
    )
    assert per_class.demand_factors["r"]["catalogue"] == pytest.approx(2.0, abs=0.03)
    with pytest.raises(ValueError, match="baseline must be 'graph' or 'model'"):
        detect_system_regression(before, after, local_graph(), loaded, model(), baseline="x")


def test_a_slower_class_is_a_regression_even_when_the_mix_dilutes_it() -> None:
    from perfstats.system.queueing import OpenNetwork, Station

    net = OpenNetwork(
        [
            Station("gateway", demands={"browse": 0.004, "checkout": 0.006}),
            Station("pricing", demands={"checkout": 0.010}),
        ],
        arrival_rates={"browse": 40.0, "checkout": 20.0},
    )
    res = perfstats.predict_regression(net, {"pricing": 3.0}, rng=1)
    # Pooled over both classes the effect is "negligible"; checkout's is large.
    assert abs(res.cliffs_delta) < 0.147
    assert res.cliffs_delta_by_class["checkout"] > 0.474
    assert res.cliffs_delta_by_class["browse"] == 0.0
    assert res.regression
    assert "'checkout'" in res.reason and "diluted" in res.reason
    same = perfstats.predict_regression(net, {"pricing": 1.0}, rng=1)
    assert not same.regression
    # The paper's pooled verdict alone does not see it.
    pooled = perfstats.predict_regression(net, {"pricing": 3.0}, rng=1, per_class=False)
    assert not pooled.regression and "diluted" not in pooled.reason


@pytest.mark.parametrize(
    ("which", "kwargs", "match"),
    [
        ("none", {}, "model must be a perfstats.system.queueing OpenNetwork or ClosedNetwork"),
        ("model", {"n_requests": 10**12}, "n_requests must be at most 10_000_000"),
    ],
)
def test_pipeline_names_a_bad_model_or_too_many_requests(
    which: str, kwargs: dict[str, Any], match: str
) -> None:
    before, after = measurements({"cat.rank": 0.0025})
    the_model = None if which == "none" else model()
    with pytest.raises(ValueError, match=match):
        detect_system_regression(
            before, after, local_graph(), system_graph(), the_model, rng=1, **kwargs  # type: ignore[arg-type]
        )


def test_simulate_refuses_more_requests_than_its_maximum() -> None:
    from perfstats.system.queueing.simulation import MAX_REQUESTS

    with pytest.raises(ValueError, match="n_requests must be at most 10_000_000"):
        model().simulate(n_requests=MAX_REQUESTS + 1, rng=1)


def test_two_large_changes_give_no_weaker_verdict_than_one() -> None:
    # The component tests call price.quote from cat.search (a harness); the
    # system calls both from the gateway. Both are known by name: at +200%
    # each, the two together are a regression as cat.search alone is.
    g = nx.DiGraph()
    g.add_node("cat.search", subsystem="catalogue", calls=1, inclusive=0.010)
    g.add_node("cat.rank", subsystem="catalogue", calls=4, inclusive=0.001)
    g.add_node("price.quote", subsystem="pricing", calls=1, inclusive=0.002)
    g.add_node("legacy.unused", subsystem="legacy", calls=1, inclusive=0.002)
    g.add_edge("cat.search", "cat.rank")
    g.add_edge("cat.search", "price.quote")
    harness = CallGraph(g)
    one = detect_system_regression(
        *measurements({"cat.search": 0.020}), harness, system_graph(), model(),
        n_requests=4_000, rng=1,
    )  # fmt: skip
    both = detect_system_regression(
        *measurements({"cat.search": 0.020, "price.quote": 0.004}), harness, system_graph(),
        model(), n_requests=4_000, rng=1,
    )  # fmt: skip
    assert one.regression and one.unmapped == {}
    assert both.unmapped == {}
    assert both.regression
    assert both.prediction.cliffs_delta >= one.prediction.cliffs_delta
    assert both.demand_factors["catalogue"] == pytest.approx(one.demand_factors["catalogue"])
    assert both.demand_factors["pricing"] == pytest.approx(3.0, abs=0.1)
