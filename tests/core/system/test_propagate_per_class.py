"""Per-class propagation: one system graph per request class, as the pipeline uses it."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from perfstats import CallGraph, detect_system_regression, local_deviation, propagate
from perfstats.system.propagation import propagate_per_class
from perfstats.system.queueing import OpenNetwork, Station


def _graph(*nodes: tuple[str, str, float]) -> CallGraph:
    g = nx.DiGraph()
    for name, sub, t in nodes:
        g.add_node(name, subsystem=sub, calls=1, inclusive=t)
    return CallGraph(g)


LOCAL = _graph(("cat.search", "catalogue", 0.01), ("pay.charge", "payments", 0.02))
GRAPHS = {
    "browse": _graph(("cat.search", "catalogue", 0.01)),
    "buy": _graph(("pay.charge", "payments", 0.02), ("cat.search", "catalogue", 0.01)),
}


def test_each_class_gets_the_factors_of_its_own_path() -> None:
    res = propagate_per_class({"pay.charge": 0.01}, LOCAL, GRAPHS)
    assert set(res.by_class) == {"browse", "buy"}
    assert dict(res.demand_factors) == {"buy": {"payments": pytest.approx(1.5)}}
    assert dict(res.unmapped) == {}
    # the same as propagating onto each graph alone
    alone = propagate({"pay.charge": 0.01}, LOCAL, GRAPHS["buy"])
    assert dict(res.by_class["buy"].demand_factors) == dict(alone.demand_factors)


def test_per_class_deviations_and_baselines_are_used_per_class() -> None:
    deviations = {"browse": {"cat.search": 0.01}, "buy": {"cat.search": 0.02}}
    base = {"browse": {"catalogue": 0.02}, "buy": {"catalogue": 0.04}}
    res = propagate_per_class(deviations, LOCAL, GRAPHS, demand_before=base)
    assert res.demand_factors["browse"]["catalogue"] == pytest.approx(1.5)
    assert res.demand_factors["buy"]["catalogue"] == pytest.approx(1.5)


def test_a_component_on_no_class_path_is_reported_once() -> None:
    local = _graph(
        ("cat.search", "catalogue", 0.01),
        ("pay.charge", "payments", 0.02),
        ("mail.send", "mail", 0.01),
    )
    res = propagate_per_class({"mail.send": 0.01, "cat.search": 0.01}, local, GRAPHS)
    assert list(res.unmapped) == ["mail.send"]
    assert "cat.search" not in res.unmapped


def test_the_pipeline_uses_the_same_per_class_propagation() -> None:
    rng = np.random.default_rng(0)
    before = {
        "cat.search": rng.normal(0.010, 0.0003, 40),
        "pay.charge": rng.normal(0.02, 0.0005, 40),
    }
    after = {"cat.search": before["cat.search"] * 2.0, "pay.charge": before["pay.charge"]}
    model = OpenNetwork(
        [
            Station("catalogue", demands={"browse": 0.010, "buy": 0.010}),
            Station("payments", demands={"buy": 0.020}),
        ],
        arrival_rates={"browse": 10.0, "buy": 5.0},
    )
    res = detect_system_regression(
        before, after, LOCAL, GRAPHS, model, n_requests=2_000, rng=1, baseline="model"
    )
    deviations = {c: local_deviation(before[c], after[c]) for c in before}
    base = {c: {s.name: s.demands[c] for s in model.stations if c in s.demands} for c in GRAPHS}
    direct = propagate_per_class(deviations, LOCAL, GRAPHS, demand_before=base)
    assert {c: dict(f) for c, f in res.demand_factors.items() if f} == {
        c: dict(f) for c, f in direct.demand_factors.items()
    }


@pytest.mark.parametrize(
    ("deviations", "graphs", "base", "message"),
    [
        ({"cat.search": 0.01}, {}, None, "system_graphs must be a non-empty mapping"),
        ([1.0], GRAPHS, None, "deviations must be a mapping"),
        (
            {"browse": {"cat.search": 0.01}},
            GRAPHS,
            None,
            r"no entry for request class\(es\) \['buy'\]",
        ),
        ({"cat.search": 0.01}, GRAPHS, [0.1], "demand_before must be None or a mapping"),
    ],
)
def test_bad_inputs_are_named(
    deviations: object, graphs: object, base: object, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        propagate_per_class(deviations, LOCAL, graphs, demand_before=base)  # type: ignore[arg-type]
