"""Every mapping a system model or result holds is its own read-only copy."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import fields, is_dataclass
from types import MappingProxyType
from typing import Any

import networkx as nx
import numpy as np
import pytest

from perfstats import CallGraph, detect_system_regression
from perfstats.system._frozen import read_only
from perfstats.system.calibration import Calibration
from perfstats.system.queueing import ClosedNetwork, OpenNetwork, Station


def test_read_only_copies_at_every_depth() -> None:
    inner = {"get": 0.005}
    outer: dict[str, Any] = {"api": inner, "n": 3}
    frozen = read_only(outer)
    inner["get"] = 1.0
    outer["db"] = {}
    assert dict(frozen) == {"api": {"get": 0.005}, "n": 3}
    with pytest.raises(TypeError):
        frozen["api"]["get"] = 2.0
    with pytest.raises(TypeError):
        frozen["db"] = {}  # type: ignore[index]


def _mappings(value: Any, where: str) -> Iterator[tuple[str, Mapping[Any, Any]]]:
    """Each mapping reachable from ``value`` through fields and mapping values."""
    if isinstance(value, Mapping):
        yield where, value
        for k, v in value.items():
            yield from _mappings(v, f"{where}[{k!r}]")
    elif is_dataclass(value) and not isinstance(value, type):
        for f in fields(value):
            yield from _mappings(getattr(value, f.name), f"{where}.{f.name}")


def _graph(*nodes: tuple[str, str, float]) -> CallGraph:
    g = nx.DiGraph()
    for name, sub, t in nodes:
        g.add_node(name, subsystem=sub, calls=1, inclusive=t)
    return CallGraph(g)


def _model() -> OpenNetwork:
    return OpenNetwork(
        [
            Station("catalogue", demands={"browse": 0.010, "buy": 0.010}),
            Station("payments", demands={"buy": 0.020}),
        ],
        arrival_rates={"browse": 10.0, "buy": 5.0},
    )


def _per_class_regression() -> Any:
    rng = np.random.default_rng(0)
    before = {"cat.search": rng.normal(0.010, 0.0003, 40), "pay.charge": rng.normal(0.02, 5e-4, 40)}
    after = {"cat.search": before["cat.search"] * 2.0, "pay.charge": before["pay.charge"]}
    local = _graph(("cat.search", "catalogue", 0.01), ("pay.charge", "payments", 0.02))
    graphs = {
        "browse": _graph(("cat.search", "catalogue", 0.01)),
        "buy": _graph(("pay.charge", "payments", 0.02), ("cat.search", "catalogue", 0.01)),
    }
    return detect_system_regression(before, after, local, graphs, _model(), n_requests=500, rng=1)


RESULTS = {
    "per-class system regression": _per_class_regression,
    "open solution": lambda: _model().solve(),
    "open simulation": lambda: _model().simulate(n_requests=200, rng=0),
    "closed solution": lambda: ClosedNetwork(
        [Station("db", demands={"q": 0.01})], population={"q": 3}, think_times={"q": 0.1}
    ).solve(),
    "calibration": lambda: Calibration(
        stations=("api",),
        demands={"api": {"get": 0.005}},
        scv={"api": 1.0},
        slowdown={"api": None},
        component_cpu={"get": {"route": 0.001}},
        utilisation={"api": 0.5},
        throughput={"get": 100.0},
    ),
}


@pytest.mark.parametrize("build", RESULTS.values(), ids=list(RESULTS))
def test_every_mapping_of_a_result_is_read_only(build: Any) -> None:
    found = dict(_mappings(build(), "result"))
    assert found, "no mapping was looked at"
    writable = [where for where, m in found.items() if not isinstance(m, MappingProxyType)]
    assert not writable, f"writable mappings: {writable}"


def test_a_model_keeps_its_own_copies() -> None:
    demands = {"q": 0.01}
    rates = {"q": 20.0}
    model = OpenNetwork([Station("db", demands=demands)], arrival_rates=rates)
    demands["q"] = 1.0
    rates["q"] = 1.0
    assert model.stations[0].demands["q"] == 0.01 and model.arrival_rates["q"] == 20.0
    with pytest.raises(TypeError):
        model.arrival_rates["q"] = 2.0  # type: ignore[index]
