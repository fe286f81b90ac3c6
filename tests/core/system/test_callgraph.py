"""perfstats.CallGraph: validation, subsystem times, and the pstats/span constructors."""

from __future__ import annotations

import cProfile
import pstats
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfstats import CallGraph


def shop_graph() -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_node("gw.handle", subsystem="gateway", calls=1, inclusive=0.100)
    g.add_node("cat.list", subsystem="catalogue", calls=1, inclusive=0.060)
    g.add_node("cat.row", subsystem="catalogue", calls=10, inclusive=0.004)
    g.add_node("price.get", subsystem="pricing", calls=10, inclusive=0.002)
    g.add_edge("gw.handle", "cat.list")
    g.add_edge("cat.list", "cat.row")
    g.add_edge("cat.row", "price.get")
    return g


def test_exclusive_and_subsystem_times() -> None:
    cg = CallGraph(shop_graph())
    assert cg.exclusive("gw.handle") == pytest.approx(0.040)
    assert cg.exclusive("cat.list") == pytest.approx(0.020)
    assert cg.exclusive("cat.row") == pytest.approx(0.002)
    # own time leaves out the remote pricing calls
    assert cg.own_time("cat.list") == pytest.approx(0.020 + 10 * 0.002)
    assert cg.top_level("catalogue") == ("cat.list",)
    assert cg.subsystem_time("catalogue") == pytest.approx(0.040)
    assert cg.subsystem_time("pricing") == pytest.approx(0.020)
    assert cg.subsystem_time("gateway") == pytest.approx(0.040)
    assert cg.roots == ("gw.handle",)
    assert cg.subsystems == ("gateway", "catalogue", "pricing")
    assert cg.edge_calls("cat.list", "cat.row") == 10


def test_subsystem_change_does_not_count_nested_changes_twice() -> None:
    cg = CallGraph(shop_graph())
    # cat.row measured +1 ms per call, cat.list +12 ms (which contains the rows' 10 ms)
    assert cg.subsystem_change("catalogue", {"cat.row": 0.001}) == pytest.approx(0.010)
    assert cg.subsystem_change("catalogue", {"cat.row": 0.001, "cat.list": 0.012}) == (
        pytest.approx(0.012)
    )
    assert cg.subsystem_change("gateway", {"cat.row": 0.001}) == 0.0


def test_entry_point_called_from_inside_and_outside() -> None:
    g = nx.DiGraph()
    g.add_node("a.entry", subsystem="a", calls=1, inclusive=0.010)
    g.add_node("b.top", subsystem="b", calls=1, inclusive=0.020)
    g.add_node("b.util", subsystem="b", calls=3, inclusive=0.002)
    g.add_edge("a.entry", "b.top", calls=1)
    g.add_edge("b.top", "b.util", calls=2)
    g.add_edge("a.entry", "b.util", calls=1)
    cg = CallGraph(g)
    assert set(cg.top_level("b")) == {"b.top", "b.util"}
    assert cg.outside_calls("b.util") == 1
    # all exclusive time of b per invocation: 0.016 + 3 * 0.002
    assert cg.subsystem_time("b") == pytest.approx(0.016 + 3 * 0.002)


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (lambda g: g.add_edge("price.get", "gw.handle", calls=1), "cycle: 'gw.handle' -> "),
        (lambda g: g.add_edge("cat.row", "cat.row", calls=1), "'cat.row' calls itself"),
        (lambda g: g.nodes["cat.row"].pop("subsystem"), "'cat.row' needs a non-empty 'subsystem'"),
        (lambda g: g.nodes["cat.row"].update(calls=0), "calls of component 'cat.row'"),
        (lambda g: g.nodes["cat.row"].update(inclusive=-1.0), "inclusive time of component"),
        (
            lambda g: g.add_edge("gw.handle", "price.get"),
            "edge 'gw.handle' -> 'price.get' needs a 'calls'",
        ),
    ],
)
def test_bad_graphs(edit: Callable[[nx.DiGraph], Any], match: str) -> None:
    g = shop_graph()
    edit(g)
    with pytest.raises(ValueError, match=match):
        CallGraph(g)


def test_empty_graph_and_unknown_names() -> None:
    with pytest.raises(ValueError, match="empty"):
        CallGraph(nx.DiGraph())
    cg = CallGraph(shop_graph())
    with pytest.raises(ValueError, match="unknown component 'nope'"):
        cg.calls("nope")
    with pytest.raises(ValueError, match="unknown subsystem 'db'"):
        cg.subsystem_time("db")
    with pytest.raises(ValueError, match="unknown component 'x'"):
        cg.subsystem_change("catalogue", {"x": 0.1})


# -- pstats --------------------------------------------------------------------


def spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def leaf() -> None:
    spin(0.0005)


def middle() -> None:
    leaf()
    leaf()


def entry() -> None:
    spin(0.001)
    for _ in range(3):
        middle()
    leaf()


def countdown(n: int) -> None:
    spin(0.0002)
    if n:
        countdown(n - 1)


def ping(n: int) -> None:
    if n:
        pong(n - 1)


def pong(n: int) -> None:
    if n:
        ping(n - 1)


OURS = ("entry", "middle", "leaf", "countdown", "ping", "pong")


def only_ours(func: tuple[str, int, str]) -> str | None:
    return f"shop.{func[2]}" if func[0] == __file__ and func[2] in OURS else None


def profile(fn: Callable[[], Any]) -> pstats.Stats:
    prof = cProfile.Profile()
    prof.runcall(fn)
    return pstats.Stats(prof)


def test_from_pstats_counts_and_times() -> None:
    stats = profile(lambda: [entry() for _ in range(2)])
    cg = CallGraph.from_pstats(stats, subsystem="catalogue", name=only_ours)
    assert set(cg.nodes) == {"shop.entry", "shop.middle", "shop.leaf"}
    assert cg.roots == ("shop.entry",)
    assert cg.calls("shop.entry") == 1.0
    assert cg.calls("shop.middle") == 3.0
    assert cg.calls("shop.leaf") == 7.0
    assert cg.edge_calls("shop.entry", "shop.middle") == 3.0
    assert cg.edge_calls("shop.middle", "shop.leaf") == 6.0
    assert cg.edge_calls("shop.entry", "shop.leaf") == 1.0
    table = stats.stats  # type: ignore[attr-defined]
    key = next(f for f in table if f[0] == __file__ and f[2] == "entry")
    assert cg.inclusive("shop.entry") == pytest.approx(table[key][3] / 2)
    # Exclusive time subtracts the time of entry's own calls (cProfile keeps
    # it per caller), not the callees' averages: a leaf slowed by the
    # machine while called from middle must not shrink entry's own time.
    own_calls = sum(
        table[f][4][key][3] for f in table if f[0] == __file__ and f[2] in ("middle", "leaf")
    )
    assert cg.exclusive("shop.entry") == pytest.approx((table[key][3] - own_calls) / 2)
    assert cg.subsystem_time("catalogue") == pytest.approx(cg.inclusive("shop.entry"))


def test_from_pstats_attributes_calls_through_left_out_functions() -> None:
    stats = profile(entry)

    def drop_middle(f: tuple[str, int, str]) -> str | None:
        return None if f[2] == "middle" else only_ours(f)

    cg = CallGraph.from_pstats(stats, subsystem="s", name=drop_middle)
    assert set(cg.nodes) == {"shop.entry", "shop.leaf"}
    assert cg.edge_calls("shop.entry", "shop.leaf") == 7.0
    # middle's own time is now inside entry's exclusive time
    assert cg.exclusive("shop.entry") == pytest.approx(
        cg.inclusive("shop.entry") - 7 * cg.inclusive("shop.leaf")
    )


def test_from_pstats_folds_direct_recursion() -> None:
    cg = CallGraph.from_pstats(profile(lambda: countdown(4)), subsystem="s", name=only_ours)
    assert cg.nodes == ("shop.countdown",)
    assert cg.calls("shop.countdown") == 1.0
    assert cg.inclusive("shop.countdown") >= 5 * 0.0002


def test_from_pstats_refuses_mutual_recursion() -> None:
    with pytest.raises(ValueError, match="cycle"):
        CallGraph.from_pstats(profile(lambda: ping(4)), subsystem="s", name=only_ours)


def test_from_pstats_root_and_subsystem_mapping() -> None:
    stats = profile(entry)
    cg = CallGraph.from_pstats(
        stats,
        subsystem={"shop.middle": "a", "shop.leaf": "b"},
        name=only_ours,
        root="shop.middle",
    )
    assert set(cg.nodes) == {"shop.middle", "shop.leaf"}
    assert cg.calls("shop.middle") == 1.0 and cg.calls("shop.leaf") == 2.0
    with pytest.raises(ValueError, match=r"unknown root 'shop\.nope'"):
        CallGraph.from_pstats(stats, subsystem="s", name=only_ours, root="shop.nope")
    with pytest.raises(ValueError, match=r"subsystem has no entry for component\(s\)"):
        CallGraph.from_pstats(stats, subsystem={"shop.entry": "a"}, name=only_ours)


def test_from_pstats_default_names_keep_project_code_only() -> None:
    cg = CallGraph.from_pstats(profile(entry), subsystem="s")
    assert "test_callgraph.entry" in cg and "test_callgraph.leaf" in cg
    assert not any("perf_counter" in n for n in cg.nodes)


def test_from_pstats_bad_input() -> None:
    with pytest.raises(ValueError, match="empty profile"):
        CallGraph.from_pstats(pstats.Stats(), subsystem="s")
    with pytest.raises(ValueError, match="empty profile: no function"):
        CallGraph.from_pstats(profile(entry), subsystem="s", name=lambda f: None)
    with pytest.raises(ValueError, match="two functions map to component 'x'"):
        CallGraph.from_pstats(profile(entry), subsystem="s", name=lambda f: "x")
    with pytest.raises(ValueError, match=r"pstats\.Stats or cProfile\.Profile"):
        CallGraph.from_pstats({"a": 1}, subsystem="s")


def test_from_pstats_accepts_a_profile_object() -> None:
    prof = cProfile.Profile()
    prof.runcall(entry)
    assert CallGraph.from_pstats(prof, subsystem="s", name=only_ours).calls("shop.leaf") == 7


# -- spans ---------------------------------------------------------------------


@dataclass
class Span:
    span_id: int
    parent_id: int | None
    name: str
    service: str
    start: int
    end: int


def traces() -> list[Span]:
    """Two requests in nanoseconds, as OpenTelemetry exports them."""
    ms = 1_000_000
    out = []
    for t, base in ((0, 0), (100, 1000 * ms)):
        out += [
            Span(t + 1, None, "GET /list", "gateway", base, base + 40 * ms),
            Span(t + 2, t + 1, "catalogue.list", "catalogue", base + 5 * ms, base + 35 * ms),
            Span(t + 3, t + 2, "pricing.get", "pricing", base + 10 * ms, base + 14 * ms),
            Span(t + 4, t + 2, "pricing.get", "pricing", base + 20 * ms, base + 24 * ms),
            # direct recursion inside pricing.get: folded
            Span(t + 5, t + 4, "pricing.get", "pricing", base + 21 * ms, base + 22 * ms),
        ]
    out.append(Span(201, None, "GET /other", "gateway", 0, 10 * ms))
    return out


def test_from_spans_counts_and_times() -> None:
    cg = CallGraph.from_spans(traces(), unit="ns", root="GET /list")
    assert set(cg.nodes) == {"GET /list", "catalogue.list", "pricing.get"}
    assert cg.calls("GET /list") == 1.0 and cg.calls("pricing.get") == 2.0
    assert cg.edge_calls("catalogue.list", "pricing.get") == 2.0
    assert cg.inclusive("catalogue.list") == pytest.approx(0.030)
    assert cg.inclusive("pricing.get") == pytest.approx(0.004)
    assert cg.exclusive("catalogue.list") == pytest.approx(0.022)
    assert cg.exclusive("GET /list") == pytest.approx(0.010)
    assert cg.subsystem("pricing.get") == "pricing"
    assert cg.subsystem_time("pricing") == pytest.approx(0.008)
    every = CallGraph.from_spans(traces(), unit="ns")
    assert every.calls("pricing.get") == pytest.approx(4 / 3)
    assert set(every.roots) == {"GET /list", "GET /other"}


def test_from_spans_accepts_mappings_and_aliases() -> None:
    spans = [
        {
            "id": "a",
            "parent_span_id": "",
            "name": "r",
            "service.name": "s",
            "start_time": 1.0,
            "end_time": 1.5,
        },
    ]
    cg = CallGraph.from_spans(spans)
    assert cg.inclusive("r") == 0.5


@pytest.mark.parametrize(
    ("spans", "kwargs", "match"),
    [
        ([], {}, "spans is empty"),
        ([Span(1, 9, "a", "s", 0, 1)], {}, "unknown parent id 9"),
        ([Span(1, None, "a", "s", 0, 1), Span(1, None, "b", "s", 0, 1)], {}, "appears twice"),
        ([Span(1, None, "a", "s", 2, 1)], {}, "ends before it starts"),
        (
            [Span(1, None, "a", "s", 0, 3), Span(2, 1, "a", "t", 1, 2)],
            {},
            "span name 'a' appears in services 's' and 't'",
        ),
        ([Span(1, None, "a", "s", 0, 1)], {"root": "b"}, "unknown root 'b'"),
        ([Span(1, None, "a", "s", 0, 1)], {"unit": "min"}, "unit must be one of"),
        ([{"span_id": 1, "name": "a", "service": "s", "start": 0}], {}, "has no 'end'"),
        (
            [Span(1, None, "a", "s", 0, 3), Span(2, 1, "b", "s", 0, 1), Span(3, 2, "a", "s", 0, 1)],
            {},
            "cycle",
        ),
    ],
)
def test_from_spans_bad_input(spans: list[Any], kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        CallGraph.from_spans(spans, **kwargs)


def test_from_spans_accepts_otlp_json_spelling() -> None:
    spans = [
        {"spanId": "a1", "parentSpanId": "", "name": "GET /x", "service": "gw",
         "startTimeUnixNano": "1700000000000000000", "endTimeUnixNano": "1700000000030000000"},
        {"spanId": "b2", "parentSpanId": "a1", "name": "db.q", "service": "db",
         "startTimeUnixNano": "1700000000005000000", "endTimeUnixNano": "1700000000015000000"},
    ]  # fmt: skip
    cg = CallGraph.from_spans(spans, unit="ns")
    assert cg.inclusive("GET /x") == pytest.approx(0.030)
    assert cg.exclusive("GET /x") == pytest.approx(0.020)


def test_from_spans_custom_names_disambiguate_services() -> None:
    spans = [Span(1, None, "GET /x", "gateway", 0, 3), Span(2, 1, "GET /x", "catalogue", 1, 2)]
    cg = CallGraph.from_spans(spans, name=lambda s: f"{s.service}:{s.name}")
    assert cg.edge_calls("gateway:GET /x", "catalogue:GET /x") == 1.0


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(min_value=1, max_value=12))
def test_subsystem_time_and_change_on_random_call_dags(data: st.DataObject, n: int) -> None:
    """One subsystem, consistent counts: demand = sum of calls x exclusive; a change x calls."""
    g = nx.DiGraph()
    calls = [1.0]
    excl = [data.draw(st.floats(0.0, 1.0))]
    g.add_node(0, subsystem="s")
    for i in range(1, n):
        parents = data.draw(st.sets(st.integers(0, i - 1), min_size=1, max_size=3))
        total = 0.0
        for p in parents:
            per_call = data.draw(st.integers(1, 3))
            g.add_edge(p, i, calls=calls[p] * per_call)
            total += calls[p] * per_call
        calls.append(total)
        excl.append(data.draw(st.floats(0.0, 1.0)))
    incl = [0.0] * n
    for i in reversed(range(n)):
        incl[i] = excl[i] + sum(
            g.edges[i, c]["calls"] / calls[i] * incl[c] for c in g.successors(i)
        )
    named = nx.relabel_nodes(g, {i: f"f{i}" for i in range(n)})
    for i in range(n):
        named.nodes[f"f{i}"].update(calls=calls[i], inclusive=incl[i], subsystem="s")
    cg = CallGraph(named)
    for i in range(n):
        assert cg.exclusive(f"f{i}") == pytest.approx(excl[i], abs=1e-9)
    assert cg.top_level("s") == ("f0",)
    assert cg.subsystem_time("s") == pytest.approx(
        sum(c * e for c, e in zip(calls, excl, strict=True)), rel=1e-9, abs=1e-9
    )
    v = data.draw(st.integers(0, n - 1))
    md = data.draw(st.floats(-0.5, 0.5))
    assert cg.subsystem_change("s", {f"f{v}": md}) == pytest.approx(
        calls[v] * md, rel=1e-9, abs=1e-12
    )
