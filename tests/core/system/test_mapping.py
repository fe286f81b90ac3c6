"""The mapping of local components onto the system graph: monotone and bounded."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfstats import CallGraph, propagate
from perfstats.system import propagation
from perfstats.system.propagation import _map_components


def call_graph(
    nodes: dict[str, str], edges: list[tuple[str, str]], exclusive: float = 0.005
) -> CallGraph:
    """Every component 10 ms inclusive, ``exclusive`` of it its own; one call per caller."""
    g = nx.DiGraph()
    for n, sub in nodes.items():
        callers = sum(1 for _, v in edges if v == n)
        g.add_node(n, subsystem=sub, calls=max(1, callers), inclusive=0.01, exclusive=exclusive)
    g.add_edges_from(edges, calls=1)
    return CallGraph(g)


@st.composite
def graphs_and_changes(draw: st.DrawFn) -> tuple[CallGraph, CallGraph, dict, dict]:
    """A system graph, a partial and partly renamed local view, two nested sets of changes.

    Calls join different subsystems only, so each subsystem's demand is a
    sum over its components. The local graph keeps some components, renames
    some (to a name the system lacks), drops some of the system's calls and
    adds calls of its own (a test harness). The second set of changes holds
    the first, each change at least as large.
    """
    n = draw(st.integers(3, 9))
    subs = {f"c{i}": f"s{draw(st.integers(0, 2))}" for i in range(n)}
    names = list(subs)
    edges = [
        (names[i], names[j])
        for i in range(n)
        for j in range(i + 1, n)
        if subs[names[i]] != subs[names[j]] and draw(st.booleans())
    ]
    system = call_graph(subs, edges)
    kept = [c for c in names if draw(st.booleans())] or [names[0]]
    local_name = {c: (f"x{c}" if draw(st.integers(0, 3)) == 0 else c) for c in kept}
    closure = nx.transitive_closure_dag(system.graph)
    local_edges = [
        (local_name[u], local_name[v])
        for i, u in enumerate(kept)
        for v in kept[i + 1 :]
        if (closure.has_edge(u, v) and draw(st.integers(0, 3)) > 0)
        or (not closure.has_edge(u, v) and draw(st.integers(0, 5)) == 0)
    ]
    local = call_graph({local_name[c]: subs[c] for c in kept}, local_edges)
    md = st.floats(0.0005, 0.02, allow_nan=False)
    small = {c: draw(md) for c in local.nodes if draw(st.booleans())}
    large = {
        c: small.get(c, 0.0) + draw(md) for c in local.nodes if c in small or draw(st.booleans())
    }
    return local, system, small, large


@settings(max_examples=150, deadline=None)
@given(graphs_and_changes())
def test_more_or_larger_changes_never_weaken_the_result(case: tuple) -> None:
    local, system, small, large = case
    a = propagate(small, local, system)
    b = propagate(large, local, system)
    # a component mapped for the smaller change stays mapped to the same image
    for comp, image in a.mapping.items():
        assert b.mapping[comp] == image
    # a component the system knows by name is always mapped
    assert all(b.mapping[c] == c for c in large if c in system)
    for sub in set(a.demand_factors) | set(b.demand_factors):
        assert b.demand_factors.get(sub, 1.0) >= a.demand_factors.get(sub, 1.0) - 1e-12
    assert sum(b.carried_md.values()) >= sum(a.carried_md.values()) - 1e-12


def forty_components(renamed: dict[str, str]) -> tuple[CallGraph, CallGraph]:
    """A 40-component system of 4 subsystems and its component tests' view.

    Each subsystem's 10 components form a chain of callers; the gateway's
    chain calls the first component of each other chain. The component
    tests rename some components (``renamed``: system name -> local name)
    and add a harness call from each chain's last to the next chain's last.
    """
    subs = {f"{s}{i}": s for s in ("gw", "cat", "price", "user") for i in range(10)}
    edges = [(f"{s}{i}", f"{s}{i + 1}") for s in ("gw", "cat", "price", "user") for i in range(9)]
    edges += [("gw9", "cat0"), ("gw9", "price0"), ("gw9", "user0")]
    # in one subsystem no call between its components: each is top level
    system = call_graph(subs, edges, exclusive=0.001)
    local_subs = {renamed.get(c, c): s for c, s in subs.items()}
    local_edges = [(renamed.get(u, u), renamed.get(v, v)) for u, v in edges]
    local_edges += [("cat9", "price9"), ("price9", "user9")]
    return call_graph(local_subs, local_edges, exclusive=0.001), system


def test_forty_components_map_with_a_bounded_search() -> None:
    renamed = {"cat3": "CatImpl3", "cat4": "CatImpl4", "price5": "PriceDouble5", "user7": "U7"}
    local, system = forty_components(renamed)
    found = _map_components(local, system)
    # every named component is itself, every renamed one its system counterpart
    assert {n: found.image[n] for n in local.nodes if n in system} == {
        n: n for n in local.nodes if n in system
    }
    assert {found.image[v] for v in renamed.values()} == set(renamed)
    assert all(found.image[v] == k for k, v in renamed.items())
    assert found.why == {}
    # the search looks at the renamed components only, with few matcher runs
    assert found.searched <= len(renamed)
    assert found.runs <= len(renamed) * propagation._MAX_MATCHER_RUNS
    # all forty changed: every change is carried
    res = propagate(dict.fromkeys(local.nodes, 0.001), local, system)
    assert len(res.mapping) == 40 and dict(res.unmapped) == {}


def test_a_search_cut_at_its_bound_keeps_what_the_anchors_decide(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Two renamed catalogue components both fit two unknown system
    # components, so they must be searched together; with no matcher run
    # allowed the search is cut and both are reported, not guessed.
    system = call_graph({"route": "gw", "a": "cat", "b": "cat"}, [("route", "a"), ("route", "b")])
    local = call_graph(
        {"route": "gw", "ra": "cat", "rb": "cat"}, [("route", "ra"), ("route", "rb")]
    )
    assert _map_components(local, system).why["ra"].startswith("ambiguous")
    monkeypatch.setattr(propagation, "_MAX_MATCHER_RUNS", 0)
    found = _map_components(local, system)
    assert found.runs == 0 and set(found.why) == {"ra", "rb"}
    assert all("was cut after 0 matcher runs" in why for why in found.why.values())
