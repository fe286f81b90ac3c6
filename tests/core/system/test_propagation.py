"""perfstats.propagate: mapping (ISMAGS) and bottom-up propagation, Liao et al.'s Figure 3."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import perfstats
from perfstats import CallGraph, LocalDeviation, propagate


def figure1_system() -> CallGraph:
    """The running example: subsystem A (3 functions) calls subsystem B (4 functions).

    B's top-level functions are B1 (0.2 s per request) and B2 (0.1 s), so
    Microservice B's demand is 0.3 s. B1 calls B3 once; B3 calls B4 twice.
    """
    g = nx.DiGraph()
    g.add_node("Function_A1", subsystem="A", calls=1, inclusive=0.45)
    g.add_node("Function_A2", subsystem="A", calls=1, inclusive=0.25)
    g.add_node("Function_A3", subsystem="A", calls=1, inclusive=0.15)
    g.add_node("Function_B1", subsystem="B", calls=1, inclusive=0.20)
    g.add_node("Function_B2", subsystem="B", calls=1, inclusive=0.10)
    g.add_node("Function_B3", subsystem="B", calls=1, inclusive=0.08)
    g.add_node("Function_B4", subsystem="B", calls=2, inclusive=0.02)
    g.add_edges_from(
        [
            ("Function_A1", "Function_A2"),
            ("Function_A1", "Function_A3"),
            ("Function_A2", "Function_B1"),
            ("Function_A3", "Function_B2"),
            ("Function_B1", "Function_B3"),
            ("Function_B3", "Function_B4"),
        ]
    )
    return CallGraph(g)


def component_tests() -> CallGraph:
    """Local graph of B's component tests (test of B3 runs B3 -> B4; B2 alone)."""
    g = nx.DiGraph()
    g.add_node("Function_B3", subsystem="B", calls=1, inclusive=0.08)
    g.add_node("Function_B4", subsystem="B", calls=2, inclusive=0.02)
    g.add_node("Function_B2", subsystem="B", calls=1, inclusive=0.10)
    g.add_edge("Function_B3", "Function_B4")
    return CallGraph(g)


def measured(before_mean: float, md: float, seed: int) -> LocalDeviation:
    rng = np.random.default_rng(seed)
    before = rng.normal(before_mean, before_mean * 0.02, size=30)
    return perfstats.local_deviation(before, before + md)


def test_figure3_microservice_b_demand_from_0_3_to_0_5_seconds() -> None:
    deviations = {
        # B3's test measures its own +0.1 s and B4's 2 x +0.05 s
        "Function_B3": measured(0.08, 0.20, 1),
        "Function_B4": measured(0.02, 0.05, 2),
        "Function_B2": measured(0.10, 0.0, 3),  # unchanged: not carried
    }
    assert deviations["Function_B3"].deviated and deviations["Function_B4"].deviated
    assert not deviations["Function_B2"].deviated
    res = propagate(deviations, component_tests(), figure1_system())
    assert dict(res.mapping) == {"Function_B3": "Function_B3", "Function_B4": "Function_B4"}
    assert dict(res.unmapped) == {}
    assert res.carried_md["Function_B3"] == pytest.approx(0.20, abs=1e-12)
    assert res.demand_before["B"] == pytest.approx(0.3, abs=1e-12)
    assert res.demand_after["B"] == pytest.approx(0.5, abs=1e-12)
    assert res.demand_factors["B"] == pytest.approx(0.5 / 0.3, rel=1e-12)
    assert "A" not in res.demand_factors
    # counting B4's change again on top of B3's would give 0.6 s
    assert res.demand_after["B"] != pytest.approx(0.6)


def test_change_is_weighted_by_calls_per_invocation() -> None:
    res = propagate({"Function_B4": 0.05}, component_tests(), figure1_system())
    # B4 runs twice per request: +0.1 s on B's 0.3 s
    assert res.demand_after["B"] == pytest.approx(0.4)


def test_improvement_lowers_demand_and_too_large_one_is_refused() -> None:
    res = propagate({"Function_B2": -0.05}, component_tests(), figure1_system())
    assert res.demand_factors["B"] == pytest.approx(0.25 / 0.3)
    with pytest.raises(ValueError, match="subsystem 'B''s demand"):
        propagate({"Function_B2": -0.5}, component_tests(), figure1_system())


def test_unmapped_components_are_reported() -> None:
    local = nx.DiGraph()
    local.add_node("Function_B4", subsystem="B", calls=1, inclusive=0.02)
    local.add_node("Function_Z9", subsystem="Z", calls=1, inclusive=0.01)
    res = propagate({"Function_B4": 0.05, "Function_Z9": 0.01}, CallGraph(local), figure1_system())
    assert dict(res.mapping) == {"Function_B4": "Function_B4"}
    assert list(res.unmapped) == ["Function_Z9"]
    assert "no component of that name" in res.unmapped["Function_Z9"]
    assert res.demand_after["B"] == pytest.approx(0.4)


def test_renamed_component_is_mapped_by_structure_when_unique() -> None:
    local = nx.DiGraph()
    local.add_node("Function_B3", subsystem="B", calls=1, inclusive=0.08)
    local.add_node("b4_renamed", subsystem="B", calls=2, inclusive=0.02)
    local.add_edge("Function_B3", "b4_renamed")
    res = propagate({"Function_B3": 0.1, "b4_renamed": 0.01}, CallGraph(local), figure1_system())
    assert res.mapping["b4_renamed"] == "Function_B4"


def test_ambiguous_match_is_reported_not_guessed() -> None:
    local = nx.DiGraph()
    local.add_node("b3_renamed", subsystem="B", calls=1, inclusive=0.08)
    local.add_node("Function_B4", subsystem="B", calls=2, inclusive=0.02)
    local.add_edge("b3_renamed", "Function_B4")
    res = propagate({"b3_renamed": 0.1, "Function_B4": 0.01}, CallGraph(local), figure1_system())
    # B1 and B3 both (transitively) call B4 in the system
    assert "ambiguous" in res.unmapped["b3_renamed"]
    assert "Function_B1" in res.unmapped["b3_renamed"]
    assert res.mapping["Function_B4"] == "Function_B4"


def test_named_components_are_mapped_whatever_their_local_calls() -> None:
    # The component test calls B2 from B4 (a harness), the system does not:
    # both are known by name, so both are mapped and both changes carried.
    local = nx.DiGraph()
    local.add_node("Function_B4", subsystem="B", calls=1, inclusive=0.02)
    local.add_node("Function_B2", subsystem="B", calls=1, inclusive=0.1)
    local.add_edge("Function_B4", "Function_B2")  # not so in the system
    res = propagate({"Function_B4": 0.01, "Function_B2": 0.01}, CallGraph(local), figure1_system())
    assert dict(res.mapping) == {"Function_B4": "Function_B4", "Function_B2": "Function_B2"}
    assert dict(res.unmapped) == {}
    # B4 twice per request, B2 once: +0.03 s on B's 0.3 s
    assert res.demand_after["B"] == pytest.approx(0.33)


def test_two_large_changes_are_no_weaker_than_one() -> None:
    # Each at +200% of its own time; together they must raise B's demand
    # at least as much as either alone (the larger change, the stronger verdict).
    local = nx.DiGraph()
    local.add_node("Function_B4", subsystem="B", calls=1, inclusive=0.02)
    local.add_node("Function_B2", subsystem="B", calls=1, inclusive=0.1)
    local.add_edge("Function_B4", "Function_B2")
    cg, system = CallGraph(local), figure1_system()
    one = propagate({"Function_B2": 0.2}, cg, system)
    both = propagate({"Function_B2": 0.2, "Function_B4": 0.04}, cg, system)
    assert one.demand_factors["B"] == pytest.approx(0.5 / 0.3)
    assert both.demand_factors["B"] == pytest.approx(0.58 / 0.3)
    assert both.demand_factors["B"] > one.demand_factors["B"]


def shop_with_two_unknown_catalogue_components() -> CallGraph:
    """The system: a catalogue with two components the component tests do not name."""
    g = nx.DiGraph()
    g.add_node("route", subsystem="gateway", calls=1, inclusive=0.005)
    g.add_node("get_item", subsystem="catalogue", calls=1, inclusive=0.002)
    g.add_node("fetch_row", subsystem="catalogue", calls=1, inclusive=0.001)
    g.add_node("audit_log", subsystem="catalogue", calls=1, inclusive=0.001)
    g.add_edges_from([("route", "get_item"), ("get_item", "fetch_row"), ("route", "audit_log")])
    return CallGraph(g)


def test_renamed_component_is_decided_by_its_caller_that_did_not_deviate() -> None:
    # lookup_item is fetch_row under another name: its caller get_item (known
    # by name, unchanged) calls fetch_row in the system, not audit_log.
    local = nx.DiGraph()
    local.add_node("get_item", subsystem="catalogue", calls=1, inclusive=0.002)
    local.add_node("lookup_item", subsystem="catalogue", calls=1, inclusive=0.001)
    local.add_edge("get_item", "lookup_item")
    res = propagate(
        {"lookup_item": 0.001}, CallGraph(local), shop_with_two_unknown_catalogue_components()
    )
    assert dict(res.mapping) == {"lookup_item": "fetch_row"}
    assert dict(res.unmapped) == {}
    # catalogue: get_item 0.002 + audit_log 0.001 per request, + 0.001
    assert res.demand_after["catalogue"] == pytest.approx(0.004)


def test_renamed_component_with_no_deciding_structure_stays_ambiguous() -> None:
    # Tested alone, lookup_item could be either unknown catalogue component.
    local = nx.DiGraph()
    local.add_node("get_item", subsystem="catalogue", calls=1, inclusive=0.002)
    local.add_node("lookup_item", subsystem="catalogue", calls=1, inclusive=0.001)
    res = propagate(
        {"lookup_item": 0.001}, CallGraph(local), shop_with_two_unknown_catalogue_components()
    )
    assert dict(res.mapping) == {}
    assert "ambiguous" in res.unmapped["lookup_item"]
    assert "audit_log" in res.unmapped["lookup_item"] and "fetch_row" in res.unmapped["lookup_item"]


def test_nothing_deviated() -> None:
    res = propagate({"Function_B2": measured(0.1, 0.0, 4)}, component_tests(), figure1_system())
    assert dict(res.demand_factors) == {} and dict(res.mapping) == {}


def test_bad_input() -> None:
    with pytest.raises(ValueError, match=r"unknown component\(s\) \['Function_X'\]"):
        propagate({"Function_X": 0.1}, component_tests(), figure1_system())
    with pytest.raises(ValueError, match="must be finite"):
        propagate({"Function_B4": float("nan")}, component_tests(), figure1_system())
    with pytest.raises(ValueError, match="LocalDeviation or an MD"):
        propagate({"Function_B4": "slow"}, component_tests(), figure1_system())  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="CallGraph objects"):
        propagate({}, component_tests(), nx.DiGraph())  # type: ignore[arg-type]


def test_units_are_converted() -> None:
    rng = np.random.default_rng(5)
    before_ms = rng.normal(20.0, 0.4, size=30)
    dev = perfstats.local_deviation(before_ms, before_ms + 50.0, unit="ms")
    res = propagate({"Function_B4": dev}, component_tests(), figure1_system())
    assert res.carried_md["Function_B4"] == pytest.approx(0.05)
    assert res.demand_after["B"] == pytest.approx(0.4)


def test_demand_before_from_elsewhere() -> None:
    deviations = {"Function_B3": 0.2, "Function_B4": 0.05}
    res = propagate(
        deviations, component_tests(), figure1_system(), demand_before={"B": 0.6, "A": 1.0}
    )
    assert res.demand_before["B"] == 0.6
    assert res.demand_after["B"] == pytest.approx(0.8)
    assert res.demand_factors["B"] == pytest.approx(0.8 / 0.6)
    with pytest.raises(ValueError, match="demand_before has no entry for subsystem 'B'"):
        propagate(deviations, component_tests(), figure1_system(), demand_before={"A": 1.0})
    with pytest.raises(ValueError, match="demand_before of subsystem 'B' must be positive"):
        propagate(deviations, component_tests(), figure1_system(), demand_before={"B": 0.0})


def shop_catalogue_local() -> CallGraph:
    """Component tests of a catalogue with two look-alike paths."""
    g = nx.DiGraph()
    g.add_node("list_items", subsystem="catalogue", calls=1, inclusive=0.004)
    g.add_node("filter_items", subsystem="catalogue", calls=1, inclusive=0.003)
    g.add_node("get_item", subsystem="catalogue", calls=1, inclusive=0.002)
    g.add_node("lookup_item", subsystem="catalogue", calls=1, inclusive=0.001)
    g.add_edges_from([("list_items", "filter_items"), ("get_item", "lookup_item")])
    return CallGraph(g)


def product_path() -> CallGraph:
    """One request type's system graph: only the get_item path runs."""
    g = nx.DiGraph()
    g.add_node("route", subsystem="gateway", calls=1, inclusive=0.005)
    g.add_node("get_item", subsystem="catalogue", calls=1, inclusive=0.002)
    g.add_node("lookup_item", subsystem="catalogue", calls=1, inclusive=0.001)
    g.add_edges_from([("route", "get_item"), ("get_item", "lookup_item")])
    return CallGraph(g)


def test_component_of_another_path_is_not_taken_for_a_look_alike() -> None:
    # list_items -> filter_items has get_item -> lookup_item's shape, but the
    # local graph knows get_item by name: it is not a renamed list_items.
    res = propagate(
        {"list_items": 0.002, "filter_items": 0.001}, shop_catalogue_local(), product_path()
    )
    assert dict(res.mapping) == {}
    assert set(res.unmapped) == {"list_items", "filter_items"}
    assert all("unknown to the local graph" in why for why in res.unmapped.values())
    assert dict(res.demand_factors) == {}


def test_renamed_component_still_maps_beside_named_ones() -> None:
    # the system renamed lookup_item: the local name is absent, and the
    # system's name is unknown locally, so structure decides (uniquely)
    g = nx.DiGraph()
    g.add_node("route", subsystem="gateway", calls=1, inclusive=0.005)
    g.add_node("get_item", subsystem="catalogue", calls=1, inclusive=0.002)
    g.add_node("fetch_row", subsystem="catalogue", calls=1, inclusive=0.001)
    g.add_edges_from([("route", "get_item"), ("get_item", "fetch_row")])
    res = propagate({"get_item": 0.002, "lookup_item": 0.001}, shop_catalogue_local(), CallGraph(g))
    assert dict(res.mapping) == {"get_item": "get_item", "lookup_item": "fetch_row"}
    assert res.demand_after["catalogue"] == pytest.approx(0.004)


def test_result_keeps_its_own_read_only_copies_of_the_mappings() -> None:
    factors = {"B": 5.0 / 3.0}
    result = perfstats.Propagation({"b": "B"}, {}, {"B": 0.2}, {"B": 0.3}, {"B": 0.5}, factors)
    factors["B"] = 99.0
    assert result.demand_factors["B"] == pytest.approx(5.0 / 3.0)
    with pytest.raises(TypeError):
        result.demand_after["B"] = 1.0  # type: ignore[index]
