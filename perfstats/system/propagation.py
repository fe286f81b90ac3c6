"""Carry local deviations to the system graph and to subsystem service demands.

Steps 3 and 4 of Liao et al.'s pipeline (Section III-C). The deviated
components of the local call graph are mapped onto the system call graph by
the largest common subgraph of the two graphs (names first, structure
deciding the renamed components), each one's mean difference (MD) is
carried across, and the changes are propagated bottom-up to the top-level
components of each subsystem; a subsystem's demand is the sum of its
top-level components, and its relative change is the factor by which the
architectural model's service demand changes.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._units import to_seconds
from ._frozen import freeze_mappings
from .callgraph import CallGraph
from .deviation import LocalDeviation

__all__ = ["ClassPropagation", "Propagation", "propagate", "propagate_per_class"]

# Equally large structural matches looked at to decide whether a renamed
# component's image is unique; beyond this many it is called ambiguous.
_MAX_MATCHES = 200
# Subgraph matcher runs allowed per group of renamed components that compete
# for system components; past it the group falls back to the images its
# callers and callees alone decide (see _search).
_MAX_MATCHER_RUNS = 512


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

    Examples
    --------
    A one-call graph whose call became a millisecond slower:

    >>> import networkx as nx
    >>> from perfstats import CallGraph, propagate
    >>> g = nx.DiGraph()
    >>> g.add_node("db.query", subsystem="db", calls=1, inclusive=0.004)
    >>> res = propagate({"db.query": 0.001}, CallGraph(g), CallGraph(g))
    >>> dict(res.mapping), dict(res.carried_md), dict(res.demand_factors)
    ({'db.query': 'db.query'}, {'db.query': 0.001}, {'db': 1.25})
    """

    mapping: Mapping[str, str]
    unmapped: Mapping[str, str]
    carried_md: Mapping[str, float]
    demand_before: Mapping[str, float]
    demand_after: Mapping[str, float]
    demand_factors: Mapping[str, float]

    def __post_init__(self) -> None:
        freeze_mappings(self)

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


@dataclass(frozen=True)
class _Mapping:
    """The image of every local component, or why it has none.

    ``searched`` counts the renamed components the structural search
    looked at and ``runs`` the subgraph matcher runs it made: the mapping's
    cost, bounded by the groups' sizes and ``_MAX_MATCHER_RUNS``.
    """

    image: dict[str, str]
    why: dict[str, str]
    searched: int
    runs: int


def _relations(g: Any, n: str, anchors: set[str]) -> tuple[set[str], set[str]]:
    """The anchors (transitively) calling ``n`` and called by ``n`` in ``g``."""
    import networkx as nx

    return nx.ancestors(g, n) & anchors, nx.descendants(g, n) & anchors


def _candidates(
    local: CallGraph, system: CallGraph, anchors: set[str]
) -> tuple[dict[str, list[str]], dict[str, int], dict[str, str]]:
    """Per renamed local component, the system components its named neighbours favour.

    A renamed component (a name the system graph lacks) may be a system
    component of its subsystem that the local graph does not know by name.
    Of those, its candidates are the ones that keep the most of its calls
    with anchors (components both graphs name): an anchor calling it in the
    component tests, transitively, that calls the candidate in the system,
    and an anchor it calls that the candidate calls. Calls the tests make
    and the system does not (a harness) are left out of the common
    subgraph, not held against a candidate; calls the system makes and the
    tests do not are allowed (a test sees part of the system). Returns the
    candidates, the anchor calls they keep, and why a component has none.
    """
    import networkx as nx

    lg, sg = local.graph, system.graph
    unknown: dict[str, list[str]] = {}
    for s in sg:
        if s not in lg:
            unknown.setdefault(sg.nodes[s]["subsystem"], []).append(s)
    sys_rel = {
        s: (nx.ancestors(sg, s) & anchors, nx.descendants(sg, s) & anchors)
        for group in unknown.values()
        for s in group
    }
    out: dict[str, list[str]] = {}
    kept: dict[str, int] = {}
    why: dict[str, str] = {}
    for n in lg:
        if n in sg:
            continue
        sub = lg.nodes[n]["subsystem"]
        pool = unknown.get(sub, [])
        if not pool:
            why[n] = (
                f"no component of that name in the system graph and no component of subsystem "
                f"{sub!r} unknown to the local graph"
            )
            continue
        up, down = _relations(lg, n, anchors)
        score = {s: len(up & sys_rel[s][0]) + len(down & sys_rel[s][1]) for s in pool}
        kept[n] = max(score.values())
        out[n] = sorted(s for s in pool if score[s] == kept[n])
    return out, kept, why


def _groups(local: CallGraph, cands: Mapping[str, list[str]]) -> list[list[str]]:
    """Renamed components that constrain each other: shared candidates or calls between them."""
    import networkx as nx

    link = nx.Graph()
    link.add_nodes_from(cands)
    by_image: dict[str, list[str]] = {}
    for n, images in cands.items():
        for s in images:
            by_image.setdefault(s, []).append(n)
        for m in nx.descendants(local.graph, n):
            if m in cands:
                link.add_edge(n, m)
    for ns in by_image.values():
        link.add_edges_from(itertools.pairwise(ns))
    return [sorted(c) for c in nx.connected_components(link)]


# Renamed components in one group beyond which no structural search is
# tried (its subsets alone would be too many to rank): the anchors decide.
_MAX_GROUP = 14


def _search(
    group: list[str],
    cands: Mapping[str, list[str]],
    weight: Mapping[str, int],
    local: CallGraph,
    system: CallGraph,
) -> tuple[list[dict[str, str]], int, bool]:
    """The largest common subgraphs of one group of renamed components.

    A subset of the group, with the (transitive) calls among its members,
    is matched into the system's transitive closure over their candidates,
    each component only onto a candidate of its own; calls the system makes
    and the tests do not are allowed (a monomorphism: a test sees part of
    the system). The common subgraph's size counts its components and the
    calls it keeps, the calls to and from anchors included (``weight``: one
    plus the anchor calls a component's candidates keep), so a component
    its callers place outweighs one nothing places. Subsets are
    tried from the largest size down, and the search stops at the first
    size some match reaches. Returns every match of that size, the matcher
    runs made, and whether the search ended within ``_MAX_MATCHER_RUNS``.
    """
    import networkx as nx
    from networkx.algorithms.isomorphism import DiGraphMatcher

    if len(group) > _MAX_GROUP:
        return [], 0, False
    pool = sorted({s for n in group for s in cands[n]})
    target = nx.transitive_closure_dag(system.graph).subgraph(pool).copy()
    for s in target:
        target.nodes[s]["name"] = s
    local_closure = nx.transitive_closure_dag(local.graph).subgraph(group)
    subsets = [
        (sum(weight[n] for n in subset) + local_closure.subgraph(subset).number_of_edges(), subset)
        for k in range(len(group), 0, -1)
        for subset in itertools.combinations(group, k)
    ]
    subsets.sort(key=lambda x: -x[0])
    runs = 0
    best: int | None = None
    solutions: list[dict[str, str]] = []
    for size, subset in subsets:
        if best is not None and size < best:
            break
        if runs >= _MAX_MATCHER_RUNS:
            return solutions, runs, False
        runs += 1
        pattern = local_closure.subgraph(subset).copy()
        for n in pattern:
            pattern.nodes[n]["allowed"] = frozenset(cands[n])
        matcher = DiGraphMatcher(target, pattern, node_match=lambda t, p: t["name"] in p["allowed"])
        for found in matcher.subgraph_monomorphisms_iter():
            best = size
            solutions.append({loc: sysn for sysn, loc in found.items()})
            if len(solutions) >= _MAX_MATCHES:
                return solutions, runs, True
    return solutions, runs, True


def _map_components(local: CallGraph, system: CallGraph) -> _Mapping:
    """Map every local component onto the system graph, structure deciding the renamed ones.

    A component the system graph knows by name is that component (an
    anchor), whatever its calls in the component tests: a test harness may
    call it from elsewhere, and a change to it is a change to that system
    component. The others are searched for only among the system components
    of their subsystem that the local graph does not name, placed by the
    whole local graph: the anchors calling them or called by them
    (:func:`_candidates`), and the calls among themselves, as a largest
    common subgraph (:func:`_search`). The mapping does not depend on which
    components deviated, so more deviated components never unmap another.
    """
    lg, sg = local.graph, system.graph
    anchors = {n for n in lg if n in sg}
    image = {n: n for n in anchors}
    cands, kept, why = _candidates(local, system, anchors)
    weight = {n: 1 + kept[n] for n in cands}
    searched = runs = 0
    for group in _groups(local, cands):
        if len(group) == 1 and len(cands[group[0]]) == 1:
            image[group[0]] = cands[group[0]][0]
            continue
        searched += len(group)
        solutions, used, complete = _search(group, cands, weight, local, system)
        runs += used
        for n in group:
            images = [sol.get(n) for sol in solutions]
            found = sorted({i for i in images if i is not None})
            if complete and solutions and None not in images and len(found) == 1:
                image[n] = found[0]
            elif (
                not complete
                and len(cands[n]) == 1
                and all(cands[n][0] not in cands[m] for m in group if m != n)
            ):
                # the search was cut: keep what the anchors alone decide
                image[n] = cands[n][0]
            elif not complete:
                why[n] = (
                    f"the structural search among {len(group)} renamed components was cut after "
                    f"{used} matcher runs; candidates {cands[n][:10]}"
                )
            elif len(found) > 1:
                why[n] = f"ambiguous: it matches several system components {found}"
            else:
                why[n] = (
                    f"its calls to other renamed components differ from the system graph, so it "
                    f"cannot be mapped together with them (candidates {cands[n][:10]})"
                )
    return _Mapping(image, why, searched, runs)


def _match(
    names: list[str], local: CallGraph, system: CallGraph
) -> tuple[dict[str, str], dict[str, str]]:
    """The deviated components' images in the system graph, and why the others have none."""
    found = _map_components(local, system)
    mapping = {n: found.image[n] for n in names if n in found.image}
    unmapped = {n: found.why[n] for n in names if n not in found.image}
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
        Which deviated components were mapped onto the system graph (and
        why the others were not), the MD carried to each, and per changed
        subsystem its demand before and after and their ratio.

    Raises
    ------
    ValueError
        For components unknown to the local graph, non-finite MDs, or a
        change that would make a subsystem's demand zero or negative.

    Notes
    -----
    Mapping: a component whose name the system graph holds is that
    component, whatever its calls in the component tests (a test harness
    may call it from elsewhere): a larger change never unmaps it. A
    component the system graph does not name (an implementation class, a
    test double) may be a system component of its subsystem that the local
    graph does not name; the whole local graph decides which, as the
    largest common subgraph of the two transitive closures with the named
    components fixed: it keeps as many of the calls between the component
    and named components (its callers and callees in the component tests,
    transitively) as the system makes, and the renamed components' calls
    among themselves must hold in the system (a monomorphism: the system
    may make calls the tests do not; a call only the tests make, such as a
    harness's, is left out of the common subgraph). It is mapped when all
    largest common subgraphs agree on its image, and otherwise reported as
    ambiguous or as not fitting the structure, with why. The mapping does
    not depend on which components deviated. The search runs over the
    renamed components only, in groups that compete for the same system
    components; it is bounded (at most a fixed number of subgraph matcher
    runs per group) and, past the bound, maps only what the named callers
    and callees alone decide, reporting the rest.

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
    Symmetries (ISMAGS)", PLoS ONE 9(5), 2014 (the paper's matcher; it
    matches induced subgraphs of equally labelled nodes, where a component
    test's partial view needs a monomorphism onto per-component candidates).

    L. P. Cordella, P. Foggia, C. Sansone and M. Vento, "A (Sub)Graph
    Isomorphism Algorithm for Matching Large Graphs", IEEE Transactions on
    Pattern Analysis and Machine Intelligence 26(10), 2004 (VF2, networkx's
    ``DiGraphMatcher``).

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

    def __post_init__(self) -> None:
        freeze_mappings(self)


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
        c: {s: float(f) for s, f in p.demand_factors.items()}
        for c, p in propagations.items()
        if p.demand_factors
    }
    return ClassPropagation(by_class=propagations, demand_factors=factors, unmapped=unmapped)
