"""Carry local deviations to the system graph and to subsystem service demands.

Steps 3 and 4 of Liao et al.'s pipeline (Section III-C). The deviated
components of the local call graph are mapped onto the system call graph by
the maximum common subgraph (ISMAGS), each one's mean difference (MD) is
carried across, and the changes are propagated bottom-up to the top-level
components of each subsystem; a subsystem's demand is the sum of its
top-level components, and its relative change is the factor by which the
architectural model's service demand changes.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Any

from .._units import to_seconds
from .callgraph import CallGraph
from .deviation import LocalDeviation

__all__ = ["ClassPropagation", "Propagation", "propagate", "propagate_per_class"]

# Largest common subgraphs looked at to decide whether a component's image
# is unique; beyond this many equally large matches it is called ambiguous.
_MAX_MATCHES = 200


@dataclass(frozen=True)
class Propagation:
    """Local deviations carried to a system graph and its subsystems.

    Parameters
    ----------
    mapping : mapping of str to str
        Deviated local component -> the system component it maps to.
    unmapped : mapping of str to str
        Deviated local component that could not be mapped -> why. These
        are reported, never silently dropped: their change is *not* in the
        demand factors.
    carried_md : mapping of str to float
        System component -> the MD carried to it (seconds per call).
    demand_before, demand_after : mapping of str to float
        Per changed subsystem, seconds of work per root invocation (one
        request) before and after: the sum over its top-level components.
    demand_factors : mapping of str to float
        Per changed subsystem, ``demand_after / demand_before``: the factor
        for that station's service demand in the queueing model.
    """

    mapping: Mapping[str, str]
    unmapped: Mapping[str, str]
    carried_md: Mapping[str, float]
    demand_before: Mapping[str, float]
    demand_after: Mapping[str, float]
    demand_factors: Mapping[str, float]

    def __post_init__(self) -> None:
        # Read-only views of private copies: a result cannot change later,
        # whoever built it and whatever they do with their dicts.
        for name in (f.name for f in fields(self)):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))

    def __repr__(self) -> str:
        f = ", ".join(
            f"{k}: {self.demand_before[k]:.4g} s -> {self.demand_after[k]:.4g} s (x{v:.4g})"
            for k, v in self.demand_factors.items()
        )
        return (
            f"Propagation(mapped={dict(self.mapping)!r}, unmapped={list(self.unmapped)!r}, "
            f"demand={{{f}}})"
        )


def _md_seconds(name: str, value: Any) -> float | None:
    """The MD to carry (seconds), or None when the component did not deviate."""
    if isinstance(value, LocalDeviation):
        return to_seconds(value.md, value.unit) if value.deviated else None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(
            f"deviation of {name!r} must be a LocalDeviation or an MD in seconds, got {value!r}"
        )
    md = float(value)
    if not math.isfinite(md):
        raise ValueError(f"MD of {name!r} must be finite, got {md!r}")
    return md


def _demand(value: Any, sub: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"demand_before of subsystem {sub!r} must be a number, got {value!r}")
    out = float(value)
    if not (math.isfinite(out) and out > 0.0):
        raise ValueError(f"demand_before of subsystem {sub!r} must be positive, got {out!r}")
    return out


def _match(
    names: list[str], local: CallGraph, system: CallGraph
) -> tuple[dict[str, str], dict[str, str]]:
    """Map deviated local components onto the system graph (ISMAGS)."""
    import networkx as nx
    from networkx.algorithms.isomorphism import ISMAGS

    lg, sg = local.graph, system.graph
    # Who (transitively) calls whom: a component test may call a callee
    # directly that the instrumented system reaches through intermediates.
    sub = nx.DiGraph()
    sub.add_nodes_from(names)
    for u in names:
        below = nx.descendants(lg, u)
        sub.add_edges_from((u, v) for v in names if v in below)
    # Labels make node matching an equivalence, as ISMAGS needs: a name
    # present in both graphs must match itself; a deviated component whose
    # name the system graph lacks may match a system component of the same
    # subsystem that the local graph does not know by name, structure
    # deciding. A system component the local graph names is that component,
    # never the image of another: with one system graph per request type, a
    # component on another type's path must not be taken for a look-alike
    # on this one.
    for n in sub:
        sub.nodes[n]["label"] = ("name", n) if n in sg else ("sub", lg.nodes[n]["subsystem"])
    closure = nx.transitive_closure_dag(sg)
    for n in closure:
        closure.nodes[n]["label"] = ("name", n) if n in lg else ("sub", sg.nodes[n]["subsystem"])
    ismags = ISMAGS(closure, sub, node_match=lambda a, b: a["label"] == b["label"])
    solutions: list[dict[str, str]] = []
    for found in ismags.largest_common_subgraph(symmetry=False):
        solutions.append({loc: sysn for sysn, loc in found.items()})
        if len(solutions) >= _MAX_MATCHES:
            break
    mapping: dict[str, str] = {}
    unmapped: dict[str, str] = {}
    for n in names:
        images = [s.get(n) for s in solutions] or [None]
        found = sorted({str(i) for i in images if i is not None})
        if None not in images and len(found) == 1:
            mapping[n] = found[0]
        elif len(found) > 1:
            unmapped[n] = f"ambiguous: it matches several system components {found}"
        elif found:
            unmapped[n] = (
                "its calls to the other deviated components differ from the system graph, "
                "so it cannot be mapped together with them"
            )
        elif n in sg:
            unmapped[n] = "its calls to the other deviated components differ from the system graph"
        else:
            unmapped[n] = (
                f"no component of that name in the system graph and no component of subsystem "
                f"{lg.nodes[n]['subsystem']!r} unknown to the local graph with a matching call "
                f"structure"
            )
    return mapping, unmapped


def propagate(
    deviations: Mapping[str, LocalDeviation | float],
    local_graph: CallGraph,
    system_graph: CallGraph,
    *,
    demand_before: Mapping[str, float] | None = None,
) -> Propagation:
    """Propagate local deviations to subsystem demand factors.

    Parameters
    ----------
    deviations : mapping of str to LocalDeviation or float
        Per local component, its :func:`local_deviation` (only those that
        ``deviated`` are carried) or directly an MD in seconds per call.
        The MD is the change of the component's *inclusive* time, as its
        component test measures it.
    local_graph : CallGraph
        Call graph of the component tests (e.g. :meth:`CallGraph.from_pstats`).
    system_graph : CallGraph
        Call graph of the system, per request (e.g.
        :meth:`CallGraph.from_spans` of a load test's traces).
    demand_before : mapping of str to float, optional
        Per subsystem, its demand before the change in seconds per root
        invocation, when it is known better than the system graph's times
        tell, e.g. the model's service demand from the utilisation law.
        Span durations recorded under load include waiting (for a CPU, a
        lock, a connection); a change of work divided by them gives too
        small a factor. By default the system graph's top-level sum.

    Returns
    -------
    Propagation

    Raises
    ------
    ValueError
        For components unknown to the local graph, non-finite MDs, or a
        change that would make a subsystem's demand zero or negative.

    Notes
    -----
    Mapping: the deviated components, with who-calls-whom among them
    (transitively) in the local graph, are matched to the transitive
    closure of the system graph with ISMAGS's largest common subgraph. A
    component whose name exists in the system graph can only match that
    component; one whose name does not may match an unnamed component of the
    same subsystem with the same call structure, provided the local graph does
    not know that system component by its own name, and is mapped only if
    that match is unique.

    Propagation: within each subsystem, from the bottom up, a component's
    change per call is its carried MD if it deviated, else the sum of its
    same-subsystem callees' changes times their calls per call. A deviated
    component thus replaces, not adds to, the changes nested below it:
    its observed inclusive change already contains them. The subsystem's
    change is the sum over its top-level components (called from outside
    it) of their calls per request times their change; its demand before
    is the same sum over their own-subsystem times (or ``demand_before``).

    References
    ----------
    L. Liao, S. Eismann, H. Li, C.-P. Bezemer, D. E. Costa, A. van Hoorn and
    W. Shang, "Early Detection of Performance Regressions by Bridging Local
    Performance Data and Architectural Models", Proceedings of the IEEE/ACM
    47th International Conference on Software Engineering (ICSE), 2025,
    Section III-C.

    P. Houbraken, S. Demeyer, T. Michoel, P. Audenaert, D. Colle and
    M. Pickavet, "The Index-Based Subgraph Matching Algorithm with General
    Symmetries (ISMAGS)", PLoS ONE 9(5), 2014.

    Examples
    --------
    >>> import networkx as nx
    >>> from perfstats import CallGraph, propagate
    >>> g = nx.DiGraph()
    >>> g.add_node("b.top", subsystem="b", calls=1, inclusive=0.2)
    >>> g.add_node("b.inner", subsystem="b", calls=2, inclusive=0.05)
    >>> g.add_edge("b.top", "b.inner")
    >>> system = CallGraph(g)
    >>> res = propagate({"b.inner": 0.05}, system, system)
    >>> round(res.demand_before["b"], 6), round(res.demand_after["b"], 6)
    (0.2, 0.3)
    """
    if not isinstance(local_graph, CallGraph) or not isinstance(system_graph, CallGraph):
        raise ValueError("local_graph and system_graph must be CallGraph objects")
    if not isinstance(deviations, Mapping):
        raise ValueError(
            f"deviations must be a mapping {{component: LocalDeviation}}, got {deviations!r}"
        )
    unknown = [n for n in deviations if n not in local_graph]
    if unknown:
        raise ValueError(f"unknown component(s) {unknown}: not in the local call graph")
    md_local = {n: md for n, v in deviations.items() if (md := _md_seconds(n, v)) is not None}
    if md_local:
        mapping, unmapped = _match(list(md_local), local_graph, system_graph)
    else:
        mapping, unmapped = {}, {}
    carried = {mapping[n]: md_local[n] for n in mapping}
    before: dict[str, float] = {}
    after: dict[str, float] = {}
    factors: dict[str, float] = {}
    for sub in dict.fromkeys(system_graph.subsystem(s) for s in carried):
        changes = {s: md for s, md in carried.items() if system_graph.subsystem(s) == sub}
        if demand_before is None:
            base = system_graph.subsystem_time(sub)
        elif sub in demand_before:
            base = _demand(demand_before[sub], sub)
        else:
            raise ValueError(
                f"demand_before has no entry for subsystem {sub!r}, whose components deviated"
            )
        delta = system_graph.subsystem_change(sub, changes)
        if base <= 0.0:
            raise ValueError(
                f"subsystem {sub!r} has no time in the system graph; its demand cannot change "
                f"by a factor"
            )
        if base + delta <= 0.0:
            raise ValueError(
                f"the deviations would make subsystem {sub!r}'s demand {base + delta:.4g} s "
                f"(from {base:.4g} s): the local MDs do not fit the system graph's times"
            )
        before[sub], after[sub] = base, base + delta
        factors[sub] = (base + delta) / base
    return Propagation(mapping, unmapped, carried, before, after, factors)


@dataclass(frozen=True)
class ClassPropagation:
    """Local deviations carried to one system graph per request class.

    Parameters
    ----------
    by_class : mapping of str to Propagation
        Per request class, the propagation onto that class's graph.
    demand_factors : mapping of str to mapping of str to float
        Per request class, per changed subsystem, its demand factor (only
        classes with a changed subsystem).
    unmapped : mapping of str to str
        Deviated components that no class's graph holds, with why. A
        component on one class's path and not on another's is mapped, not
        lost.
    """

    by_class: Mapping[str, Propagation]
    demand_factors: Mapping[str, Mapping[str, float]]
    unmapped: Mapping[str, str]


def _per_class_iv(
    deviations: Mapping[str, Any],
    system_graphs: Mapping[str, CallGraph],
    demand_before: Mapping[str, Mapping[str, float]] | None,
) -> tuple[dict[str, Mapping[str, Any]], dict[str, Mapping[str, float] | None]]:
    if not isinstance(system_graphs, Mapping) or not system_graphs:
        raise ValueError(
            f"system_graphs must be a non-empty mapping {{request_class: CallGraph}}, "
            f"got {system_graphs!r}"
        )
    if not isinstance(deviations, Mapping):
        raise ValueError(
            f"deviations must be a mapping {{component: LocalDeviation}} or "
            f"{{request_class: {{component: LocalDeviation}}}}, got {deviations!r}"
        )
    per_class_input = bool(deviations) and all(isinstance(v, Mapping) for v in deviations.values())
    if per_class_input:
        missing = [c for c in system_graphs if c not in deviations]
        if missing:
            raise ValueError(f"deviations has no entry for request class(es) {missing}")
        by_class = {c: deviations[c] for c in system_graphs}
    else:
        by_class = dict.fromkeys(system_graphs, deviations)
    if demand_before is None:
        bases: dict[str, Mapping[str, float] | None] = dict.fromkeys(system_graphs)
    elif isinstance(demand_before, Mapping):
        bases = {c: demand_before.get(c) for c in system_graphs}
    else:
        raise ValueError(
            f"demand_before must be None or a mapping {{request_class: {{subsystem: demand}}}}, "
            f"got {demand_before!r}"
        )
    return by_class, bases


def propagate_per_class(
    deviations: Mapping[str, Any],
    local_graph: CallGraph,
    system_graphs: Mapping[str, CallGraph],
    *,
    demand_before: Mapping[str, Mapping[str, float]] | None = None,
) -> ClassPropagation:
    """Propagate local deviations onto one system graph per request class.

    Each request class's graph gets the deviations; :func:`propagate` maps
    only those on that class's path, so a change on one class's path does
    not slow the others.

    Parameters
    ----------
    deviations : mapping
        Per local component its :func:`local_deviation` (or MD in seconds),
        the same for every class; or per request class such a mapping, when
        a component's change differs by class (e.g. carried at each class's
        own speed).
    local_graph : CallGraph
        Call graph of the component tests.
    system_graphs : mapping of str to CallGraph
        Per request class, the system's call graph of one request.
    demand_before : mapping of str to mapping of str to float, optional
        Per request class, per subsystem, the demand a change is relative
        to (e.g. the model's service demands); by default each subsystem's
        time in that class's graph.

    Returns
    -------
    ClassPropagation

    Raises
    ------
    ValueError
        For inputs of the wrong shape, a request class with no deviations,
        and everything :func:`propagate` refuses.

    References
    ----------
    L. Liao et al., "Early Detection of Performance Regressions by Bridging Local
    Performance Data and Architectural Models", ICSE 2025, Section III-C.

    Examples
    --------
    >>> import networkx as nx
    >>> from perfstats import CallGraph
    >>> from perfstats.system.propagation import propagate_per_class
    >>> def graph(*nodes):
    ...     g = nx.DiGraph()
    ...     for name, sub in nodes:
    ...         g.add_node(name, subsystem=sub, calls=1, inclusive=0.1)
    ...     return CallGraph(g)
    >>> local = graph(("cat.search", "catalogue"), ("pay.charge", "payments"))
    >>> graphs = {"browse": graph(("cat.search", "catalogue")),
    ...           "buy": graph(("pay.charge", "payments"))}
    >>> res = propagate_per_class({"cat.search": 0.05}, local, graphs)
    >>> {c: {s: round(f, 6) for s, f in fs.items()} for c, fs in res.demand_factors.items()}
    {'browse': {'catalogue': 1.5}}
    """
    by_class, bases = _per_class_iv(deviations, system_graphs, demand_before)
    propagations = {
        c: propagate(by_class[c], local_graph, g, demand_before=bases[c])
        for c, g in system_graphs.items()
    }
    mapped = {n for p in propagations.values() for n in p.mapping}
    unmapped: dict[str, str] = {}
    for p in propagations.values():
        for n, why in p.unmapped.items():
            if n not in mapped:
                unmapped.setdefault(n, why)
    factors = {
        c: MappingProxyType({s: float(f) for s, f in p.demand_factors.items()})
        for c, p in propagations.items()
        if p.demand_factors
    }
    return ClassPropagation(
        by_class=MappingProxyType(propagations),
        demand_factors=MappingProxyType(factors),
        unmapped=MappingProxyType(unmapped),
    )
