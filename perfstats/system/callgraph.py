"""Call graphs of components with per-call times and the subsystem they belong to.

A :class:`CallGraph` is the dependency graph of Liao et al.'s Section III-C:
a directed acyclic graph whose nodes are components (functions, operations)
and whose edges are calls. Per node it keeps how often the component runs
per invocation of the root (one request, one component test), its
*inclusive* time per call (everything until it returns, callees included)
and *exclusive* time per call (inclusive minus the callees' inclusive time),
and its ``subsystem`` (the service, i.e. the station of the queueing model).
Times are stored in seconds.
"""

from __future__ import annotations

import math
import numbers
import sysconfig
from collections.abc import Callable, Iterable, Mapping
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from .._docstrings import fill_doc
from .._units import check_unit, to_seconds

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["CallGraph"]

Func = tuple[str, int, str]  # pstats' (filename, line number, function name)

# Accepted spellings, including OTLP JSON's camelCase (which encodes the
# 64-bit nanosecond times as strings of digits).
_SPAN_FIELDS: dict[str, tuple[str, ...]] = {
    "id": ("span_id", "spanId", "id"),
    "parent": ("parent_id", "parent_span_id", "parentSpanId", "parent"),
    "name": ("name",),
    "service": ("service", "service_name", "service.name"),
    "start": ("start", "start_time", "start_time_unix_nano", "startTimeUnixNano"),
    "end": ("end", "end_time", "end_time_unix_nano", "endTimeUnixNano"),
}


def _library_roots() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    return tuple({paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths})


def default_component_name(func: Func) -> str | None:
    """``"module.function"`` for code of the project, None for the rest.

    Built-ins, ``<string>``-like pseudo files, the standard library and
    installed packages are not components: their time stays inside the
    calling component's exclusive time.
    """
    filename, _, funcname = func
    if filename == "~" or filename.startswith("<") or not filename.endswith(".py"):
        return None
    if filename.startswith(_library_roots()) or "site-packages" in filename:
        return None
    return f"{PurePath(filename).stem}.{funcname}"


def _number(value: Any, what: str, *, positive: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{what} must be a number, got {value!r}")
    out = float(value)
    ok = math.isfinite(out) and (out > 0.0 if positive else out >= 0.0)
    if not ok:
        bound = "> 0" if positive else ">= 0"
        raise ValueError(f"{what} must be a finite number {bound}, got {out!r}")
    return out


def _subsystem_of(subsystem: Any, names: Iterable[str]) -> dict[str, str]:
    names = list(names)
    if isinstance(subsystem, str):
        if not subsystem:
            raise ValueError("subsystem must be a non-empty string")
        return dict.fromkeys(names, subsystem)
    if isinstance(subsystem, Mapping):
        missing = [n for n in names if n not in subsystem]
        if missing:
            raise ValueError(f"subsystem has no entry for component(s) {missing[:10]}")
        return {n: str(subsystem[n]) for n in names}
    if callable(subsystem):
        return {n: str(subsystem(n)) for n in names}
    raise ValueError(
        f"subsystem must be a string, a mapping or a callable, got {type(subsystem).__name__}"
    )


# The accessors of one component take the same argument and fail alike;
# their sections are written once here.
_accessor_doc = fill_doc(
    component="""
    Parameters
    ----------
    name : str
        A component of the call graph (one of :attr:`nodes`).
    """,
    unknown_component="""
    Raises
    ------
    ValueError
        If ``name`` is not a component of the call graph.
    """,
)


class CallGraph:
    """A directed acyclic call graph of components.

    Parameters
    ----------
    graph : networkx.DiGraph
        Nodes are component names with attributes ``subsystem`` (str),
        ``calls`` (calls per root invocation, > 0) and ``inclusive``
        (seconds per call); ``exclusive`` (seconds per call) is optional and
        defaults to ``inclusive`` minus the callees' inclusive time per call,
        floored at 0 (callees that ran in parallel). An edge ``u -> v`` may
        carry ``calls`` (calls of ``v`` by ``u`` per root invocation); it
        defaults to ``v``'s calls when ``u`` is ``v``'s only caller.

    Raises
    ------
    ValueError
        For an empty graph, a cycle (named), missing or invalid attributes.

    Notes
    -----
    The graph must be acyclic: a component that calls itself is one
    component whose recursive calls are inside its inclusive time (the
    constructors :meth:`from_pstats` and :meth:`from_spans` fold direct
    recursion that way); mutual recursion between components is refused.

    References
    ----------
    Liao et al., "Early Detection of Performance Regressions by Bridging Local Performance
    Data and Architectural Models", ICSE 2025, Section III-C; see the References of
    :mod:`perfstats.system.propagation`.

    Examples
    --------
    >>> import networkx as nx
    >>> from perfstats import CallGraph
    >>> g = nx.DiGraph()
    >>> g.add_node("api", subsystem="gateway", calls=1, inclusive=0.030)
    >>> g.add_node("query", subsystem="db", calls=2, inclusive=0.010)
    >>> g.add_edge("api", "query")
    >>> cg = CallGraph(g)
    >>> round(cg.exclusive("api"), 6), cg.top_level("db"), round(cg.subsystem_time("db"), 6)
    (0.01, ('query',), 0.02)
    """

    def __init__(self, graph: nx.DiGraph) -> None:
        import networkx as nx

        if not isinstance(graph, nx.DiGraph):
            raise ValueError(f"graph must be a networkx.DiGraph, got {type(graph).__name__}")
        if graph.number_of_nodes() == 0:
            raise ValueError("the call graph is empty (no components)")
        loops = list(nx.selfloop_edges(graph))
        if loops:
            raise ValueError(f"the call graph has a cycle: {loops[0][0]!r} calls itself")
        try:
            cycle = nx.find_cycle(graph)
        except nx.NetworkXNoCycle:
            cycle = None
        if cycle:
            path = " -> ".join(repr(u) for u, _ in cycle) + f" -> {cycle[0][0]!r}"
            raise ValueError(f"the call graph has a cycle: {path}; it must be acyclic")
        g = nx.DiGraph()
        for n, attrs in graph.nodes(data=True):
            if not isinstance(n, str) or not n:
                raise ValueError(f"component names must be non-empty strings, got {n!r}")
            sub = attrs.get("subsystem")
            if not isinstance(sub, str) or not sub:
                raise ValueError(f"component {n!r} needs a non-empty 'subsystem', got {sub!r}")
            g.add_node(
                n,
                subsystem=sub,
                calls=_number(attrs.get("calls"), f"calls of component {n!r}", positive=True),
                inclusive=_number(
                    attrs.get("inclusive"), f"inclusive time of component {n!r}", positive=False
                ),
            )
            if "exclusive" in attrs:
                g.nodes[n]["exclusive"] = _number(
                    attrs["exclusive"], f"exclusive time of component {n!r}", positive=False
                )
        for u, v, attrs in graph.edges(data=True):
            if "calls" in attrs:
                count = _number(attrs["calls"], f"calls on edge {u!r} -> {v!r}", positive=True)
            elif graph.in_degree(v) == 1:
                count = g.nodes[v]["calls"]
            else:
                raise ValueError(
                    f"edge {u!r} -> {v!r} needs a 'calls' attribute: {v!r} has several callers"
                )
            g.add_edge(u, v, calls=count)
        for n in g:
            if "exclusive" not in g.nodes[n]:
                per_call = g.nodes[n]["calls"]
                children = sum(
                    g.edges[n, c]["calls"] / per_call * g.nodes[c]["inclusive"]
                    for c in g.successors(n)
                )
                g.nodes[n]["exclusive"] = max(0.0, g.nodes[n]["inclusive"] - children)
        self._g: nx.DiGraph = nx.freeze(g)

    # -- access ----------------------------------------------------------------

    @property
    def graph(self) -> nx.DiGraph:
        """The frozen ``networkx.DiGraph`` (node and edge attributes as above)."""
        return self._g

    @property
    def nodes(self) -> tuple[str, ...]:
        """Component names."""
        return tuple(self._g.nodes)

    @property
    def subsystems(self) -> tuple[str, ...]:
        """Subsystem names in order of first appearance."""
        return tuple(dict.fromkeys(self._g.nodes[n]["subsystem"] for n in self._g))

    @property
    def roots(self) -> tuple[str, ...]:
        """Components nobody calls."""
        return tuple(n for n in self._g if self._g.in_degree(n) == 0)

    def _node(self, name: str) -> dict[str, Any]:
        if name not in self._g:
            raise ValueError(f"unknown component {name!r}: not in the call graph")
        return dict(self._g.nodes[name])

    @_accessor_doc
    def subsystem(self, name: str) -> str:
        """Subsystem of a component.

        {component}

        Returns
        -------
        str
            The subsystem (service, station of the queueing model) the
            component belongs to.

        {unknown_component}
        """
        return str(self._node(name)["subsystem"])

    @_accessor_doc
    def calls(self, name: str) -> float:
        """Calls per root invocation.

        {component}

        Returns
        -------
        float
            How often the component runs per invocation of the root (one
            request, one component test), from all its callers; above 0.

        {unknown_component}
        """
        return float(self._node(name)["calls"])

    @_accessor_doc
    def inclusive(self, name: str) -> float:
        """Inclusive seconds per call.

        {component}

        Returns
        -------
        float
            Seconds from the component's call until it returns, callees
            included, per call.

        {unknown_component}
        """
        return float(self._node(name)["inclusive"])

    @_accessor_doc
    def exclusive(self, name: str) -> float:
        """Exclusive seconds per call.

        {component}

        Returns
        -------
        float
            Seconds per call spent in the component itself: as given, or its
            inclusive time minus its callees' inclusive time per call,
            floored at 0.

        {unknown_component}
        """
        return float(self._node(name)["exclusive"])

    def edge_calls(self, caller: str, callee: str) -> float:
        """Calls of ``callee`` by ``caller`` per root invocation.

        Parameters
        ----------
        caller : str
            The calling component.
        callee : str
            The called component.

        Returns
        -------
        float
            Calls made on that edge per invocation of the root; above 0.

        Raises
        ------
        ValueError
            If ``caller`` does not call ``callee`` in the call graph (or
            either is not a component of it).
        """
        if not self._g.has_edge(caller, callee):
            raise ValueError(f"unknown call {caller!r} -> {callee!r}: not in the call graph")
        return float(self._g.edges[caller, callee]["calls"])

    def _check_subsystem(self, subsystem: str) -> None:
        if subsystem not in self.subsystems:
            raise ValueError(
                f"unknown subsystem {subsystem!r}; the call graph has {list(self.subsystems)}"
            )

    @_accessor_doc
    def outside_calls(self, name: str) -> float:
        """Calls per root invocation that come from outside the component's subsystem.

        {component}

        Returns
        -------
        float
            The component's calls minus those made by callers of its own
            subsystem, floored at 0: all its calls for a root, 0 for a
            component called only from inside its subsystem.

        {unknown_component}
        """
        sub = self.subsystem(name)
        inside = sum(
            self._g.edges[p, name]["calls"]
            for p in self._g.predecessors(name)
            if self._g.nodes[p]["subsystem"] == sub
        )
        return max(0.0, self.calls(name) - inside)

    def top_level(self, subsystem: str) -> tuple[str, ...]:
        """Entry points of a subsystem: its components called from outside it (or roots).

        Parameters
        ----------
        subsystem : str
            A subsystem of the call graph (one of :attr:`subsystems`).

        Returns
        -------
        tuple of str
            The subsystem's components whose :meth:`outside_calls` are above
            0, in the order of :attr:`nodes`.

        Raises
        ------
        ValueError
            If ``subsystem`` is not a subsystem of the call graph.
        """
        self._check_subsystem(subsystem)
        return tuple(
            n
            for n in self._g
            if self._g.nodes[n]["subsystem"] == subsystem and self.outside_calls(n) > 0.0
        )

    @_accessor_doc
    def own_time(self, name: str) -> float:
        """Seconds per call spent inside the component's own subsystem.

        Exclusive time plus the own time of callees of the same subsystem;
        time in other subsystems (remote calls) belongs to their demand.

        {component}

        Returns
        -------
        float
            Seconds per call of the component: its exclusive time plus, for
            each callee of the same subsystem, its calls per call of the
            component times its own time.

        {unknown_component}
        """
        self._node(name)
        return self._within(name, {}, True, {})

    def _within(
        self, name: str, fixed: Mapping[str, float], own: bool, memo: dict[str, float]
    ) -> float:
        """Per-call sum over ``name``'s same-subsystem call tree.

        ``fixed`` values replace a component's whole subtree (an observed
        inclusive change already covers its callees); otherwise a component
        contributes its exclusive time (``own``) or nothing, plus its
        callees weighted by calls per call.
        """
        if name in memo:
            return memo[name]
        if name in fixed:
            memo[name] = fixed[name]
            return memo[name]
        g = self._g
        sub = g.nodes[name]["subsystem"]
        per_call = g.nodes[name]["calls"]
        total = g.nodes[name]["exclusive"] if own else 0.0
        for c in g.successors(name):
            if g.nodes[c]["subsystem"] == sub:
                total += g.edges[name, c]["calls"] / per_call * self._within(c, fixed, own, memo)
        memo[name] = total
        return total

    def subsystem_time(self, subsystem: str) -> float:
        """Seconds per root invocation the subsystem works: its top-level components' sum.

        Parameters
        ----------
        subsystem : str
            As for :meth:`CallGraph.top_level`.

        Returns
        -------
        float
            The sum over the subsystem's top-level components of their
            :meth:`outside_calls` times their :meth:`own_time`: the
            subsystem's service demand per root invocation, in seconds.

        Raises
        ------
        ValueError
            As for :meth:`CallGraph.top_level`.
        """
        memo: dict[str, float] = {}
        return sum(
            self.outside_calls(t) * self._within(t, {}, True, memo)
            for t in self.top_level(subsystem)
        )

    def subsystem_change(self, subsystem: str, changes: Mapping[str, float]) -> float:
        """Change of :meth:`subsystem_time` when components' inclusive times change.

        ``changes`` maps components to the change of their inclusive time
        per call (seconds). Each change is carried up through the callers of
        the same subsystem to its top-level components, weighted by calls
        per call; a changed component's callees are not added again (its
        observed change already contains theirs).

        Parameters
        ----------
        subsystem : str
            As for :meth:`CallGraph.top_level`.
        changes : mapping of str to float
            Per component, the change of its inclusive time per call in
            seconds (negative when faster). Components of other subsystems
            change nothing here.

        Returns
        -------
        float
            Change of the subsystem's time in seconds per root invocation; 0
            when no changed component belongs to the subsystem.

        Raises
        ------
        ValueError
            If a key of ``changes`` is not a component of the call graph, or
            as for :meth:`CallGraph.top_level`.
        """
        for n in changes:
            self._node(n)
        memo: dict[str, float] = {}
        return sum(
            self.outside_calls(t) * self._within(t, changes, False, memo)
            for t in self.top_level(subsystem)
        )

    def __contains__(self, name: object) -> bool:
        return name in self._g

    def __len__(self) -> int:
        return int(self._g.number_of_nodes())

    def __repr__(self) -> str:
        return (
            f"CallGraph({len(self)} components, {self._g.number_of_edges()} calls, "
            f"subsystems={list(self.subsystems)})"
        )

    # -- constructors ----------------------------------------------------------

    @classmethod
    def from_pstats(
        cls,
        stats: Any,
        *,
        subsystem: str | Mapping[str, str] | Callable[[str], str],
        root: str | None = None,
        name: Callable[[Func], str | None] | None = None,
    ) -> CallGraph:
        """Call graph of a ``cProfile`` profile (a component test).

        Parameters
        ----------
        stats : pstats.Stats or cProfile.Profile
            The profile, already loaded (``pstats.Stats(path)`` reads a
            file; this function does no I/O).
        subsystem : str, mapping or callable
            The subsystem of every component, of each name, or a function
            of the name.
        root : str, optional
            The component whose invocations are counted (e.g. the tested
            entry point); components it does not reach are left out, and
            the calls of the others are those made from inside its tree. By
            default the only component without a caller; with several,
            counts are per profiled run.
        name : callable, optional
            ``(filename, line, function) -> component name`` or None to
            leave a function out (its time stays in its caller, and its
            callees are attributed to its callers in proportion to its
            calls from each). Default :func:`default_component_name`:
            ``"module.function"`` for project code, None for the standard
            library, installed packages and built-ins.

        Notes
        -----
        Inclusive time per call is ``cumtime / primitive calls``: cProfile
        counts the time of a recursive function once, so direct recursion
        folds into one component. Mutual recursion is refused (a cycle).
        Exclusive time subtracts what the component's own calls took
        (cProfile's time per caller), not its callees' average over all
        their callers, so the exclusive times of a tree add up to its
        root's inclusive time.

        Examples
        --------
        >>> import cProfile, pstats
        >>> from perfstats import CallGraph
        >>> def leaf(): return sum(range(2000))
        >>> def entry(): return [leaf() for _ in range(3)]
        >>> prof = cProfile.Profile()
        >>> _ = prof.runcall(entry)
        >>> cg = CallGraph.from_pstats(pstats.Stats(prof), subsystem="svc",
        ...                            name=lambda f: f[2] if f[2] in ("entry", "leaf") else None)
        >>> cg.roots, cg.calls("leaf"), cg.edge_calls("entry", "leaf")
        (('entry',), 3.0, 3.0)
        """
        raw, names = _from_pstats_iv(stats, name)
        g = _pstats_graph(raw, names)
        g, invocations = _per_invocation(g, root)
        subs = _subsystem_of(subsystem, g.nodes)
        for n in g:
            g.nodes[n]["calls"] /= invocations
            g.nodes[n]["subsystem"] = subs[n]
        for u, v in g.edges:
            g.edges[u, v]["calls"] /= invocations
        return cls(g)

    @classmethod
    def from_spans(
        cls,
        spans: Iterable[Any],
        *,
        unit: str = "s",
        root: str | None = None,
        name: Callable[[Any], str] | None = None,
    ) -> CallGraph:
        """Call graph of OpenTelemetry-style spans (traces of requests).

        Parameters
        ----------
        spans : iterable of mappings or objects
            Each with an id (``span_id``, ``spanId`` or ``id``), a parent id
            (``parent_id``, ``parent_span_id``, ``parentSpanId`` or
            ``parent``; None or ``""`` for a trace's root), ``name``,
            ``service`` (or ``service_name``, ``service.name``), ``start``
            and ``end`` (or ``start_time``, ``end_time``,
            ``*_time_unix_nano``, OTLP's ``startTimeUnixNano`` and
            ``endTimeUnixNano``, also as strings of digits).
        unit : str
            Unit of ``start`` and ``end``: ``"s"``, ``"ms"``, ``"us"`` or
            ``"ns"`` (OpenTelemetry exports nanoseconds).
        root : str, optional
            Keep only traces whose root component is ``root`` (one request
            class); by default all traces, counts per trace.
        name : callable, optional
            Component name of a span; default its ``name``. A name must
            belong to one service.

        Notes
        -----
        A span whose name equals its parent's is direct recursion and is
        folded into the parent (its time is already inside the parent's);
        its children become the parent's.

        Examples
        --------
        >>> from perfstats import CallGraph
        >>> spans = [
        ...     {"span_id": 1, "parent_id": None, "name": "GET /item", "service": "gateway",
        ...      "start": 0.000, "end": 0.050},
        ...     {"span_id": 2, "parent_id": 1, "name": "lookup", "service": "catalogue",
        ...      "start": 0.010, "end": 0.030},
        ... ]
        >>> cg = CallGraph.from_spans(spans)
        >>> cg.subsystem("lookup"), round(cg.exclusive("GET /item"), 6)
        ('catalogue', 0.03)
        """
        import networkx as nx

        scale = to_seconds(1.0, check_unit(unit))
        records = [_span(s, i) for i, s in enumerate(spans)]
        if not records:
            raise ValueError("spans is empty: no span to build a call graph from")
        by_id: dict[Any, dict[str, Any]] = {}
        for r in records:
            if r["id"] in by_id:
                raise ValueError(f"span id {r['id']!r} appears twice")
            by_id[r["id"]] = r
        children: dict[Any, list[Any]] = {}
        trace_roots: list[Any] = []
        for r in records:
            parent = r["parent"]
            if parent is None or parent == "":
                trace_roots.append(r["id"])
            elif parent not in by_id:
                raise ValueError(
                    f"span {r['id']!r} ({r['name']!r}) has unknown parent id {parent!r}"
                )
            else:
                children.setdefault(parent, []).append(r["id"])
        service_of: dict[str, str] = {}
        comp_of: dict[Any, str] = {}
        for r in records:
            comp = name(r["raw"]) if name is not None else r["name"]
            if not isinstance(comp, str) or not comp:
                raise ValueError(
                    f"component name of span {r['id']!r} must be a string, got {comp!r}"
                )
            known = service_of.setdefault(comp, r["service"])
            if known != r["service"]:
                raise ValueError(
                    f"span name {comp!r} appears in services {known!r} and {r['service']!r}; "
                    f"component names must be unique: pass name= (e.g. service + name)"
                )
            comp_of[r["id"]] = comp
        if root is not None:
            trace_roots = [t for t in trace_roots if comp_of[t] == root]
            if not trace_roots:
                raise ValueError(f"unknown root {root!r}: no trace starts with that component")
        if not trace_roots:
            raise ValueError("the spans have no root span (every span has a parent): a cycle")
        calls: dict[str, int] = {}
        total: dict[str, float] = {}
        edges: dict[tuple[str, str], int] = {}
        # iterative walk: (span id, component of the effective parent span)
        stack: list[tuple[Any, str | None]] = [(t, None) for t in trace_roots]
        visited = 0
        while stack:
            sid, parent_comp = stack.pop()
            visited += 1
            if visited > len(records):
                raise ValueError("the span parent ids form a cycle")
            comp = comp_of[sid]
            if comp == parent_comp:
                effective = comp  # direct recursion: folded into the parent
            else:
                r = by_id[sid]
                calls[comp] = calls.get(comp, 0) + 1
                total[comp] = total.get(comp, 0.0) + float(r["end"] - r["start"]) * scale
                if parent_comp is not None:
                    edges[(parent_comp, comp)] = edges.get((parent_comp, comp), 0) + 1
                effective = comp
            stack.extend((c, effective) for c in children.get(sid, ()))
        n_traces = len(trace_roots)
        g = nx.DiGraph()
        for comp, k in calls.items():
            g.add_node(
                comp,
                subsystem=service_of[comp],
                calls=k / n_traces,
                inclusive=total[comp] / k,
            )
        for (u, v), k in edges.items():
            g.add_edge(u, v, calls=k / n_traces)
        return cls(g)


def _count(entry: Any) -> float:
    """Calls on a caller edge: cProfile stores (nc, cc, tt, ct), ``profile`` a count."""
    return float(entry[0] if isinstance(entry, tuple) else entry)


def _pstats_table(stats: Any) -> dict[Func, Any]:
    import cProfile
    import pstats

    if isinstance(stats, cProfile.Profile):
        stats = pstats.Stats(stats)
    table = getattr(stats, "stats", None)
    if not isinstance(table, dict):
        raise ValueError(
            f"stats must be a pstats.Stats or cProfile.Profile, got {type(stats).__name__}"
        )
    if not table:
        raise ValueError("empty profile: the pstats.Stats object holds no function")
    return table


def _from_pstats_iv(
    stats: Any, name: Callable[[Func], str | None] | None
) -> tuple[dict[Func, Any], dict[Func, str]]:
    """The profile's table and the component name of each function kept (validated)."""
    raw = _pstats_table(stats)
    namer = default_component_name if name is None else name
    names: dict[Func, str] = {}
    owner: dict[str, Func] = {}
    for func in raw:
        comp = namer(func)
        if comp is None:
            continue
        if not isinstance(comp, str) or not comp:
            raise ValueError(f"name must return a non-empty string or None, got {comp!r}")
        if comp in owner:
            raise ValueError(
                f"two functions map to component {comp!r}: {owner[comp]} and {func}; "
                f"pass name= to tell them apart"
            )
        owner[comp] = func
        names[func] = comp
    if not names:
        raise ValueError(
            "empty profile: no function of the profile is a component "
            f"({len(raw)} function(s) in it, all left out by name=)"
        )
    return raw, names


def _kept_callers(
    raw: dict[Func, Any],
    names: dict[Func, str],
    share: dict[Func, dict[str, float]],
    func: Func,
    seen: frozenset[Func],
) -> dict[str, float]:
    """Share of ``func``'s calls attributable to each kept ancestor (memoised in ``share``)."""
    if func in share:
        return share[func]
    callers = {c: _count(v) for c, v in raw[func][4].items() if c != func and c not in seen}
    total = sum(callers.values())
    out: dict[str, float] = {}
    for c, v in callers.items():
        w = v / total if total else 0.0
        if c in names:
            out[names[c]] = out.get(names[c], 0.0) + w
        elif c in raw:
            for k, f in _kept_callers(raw, names, share, c, seen | {func}).items():
                out[k] = out.get(k, 0.0) + w * f
    share[func] = out
    return out


def _pstats_graph(raw: dict[Func, Any], names: dict[Func, str]) -> nx.DiGraph:
    """The components, their calls and times over the whole profile.

    A function left out passes its calls on to its kept callers, in
    proportion to its calls from each.
    """
    import networkx as nx

    share: dict[Func, dict[str, float]] = {}
    g = nx.DiGraph()
    for func, comp in names.items():
        cc, _nc, _tt, ct, _callers = raw[func]
        if cc <= 0:
            continue
        g.add_node(comp, calls=float(cc), inclusive=float(ct) / cc, seconds=float(ct))
    for func, comp in names.items():
        if comp not in g:
            continue
        for caller, entry in raw[func][4].items():
            nc = _count(entry)
            if caller == func:
                continue  # direct recursion: inside the inclusive time
            sources = (
                {names[caller]: 1.0}
                if caller in names
                else _kept_callers(raw, names, share, caller, frozenset({func}))
                if caller in raw
                else {}
            )
            # cProfile also keeps the time of each caller's calls, so a
            # caller's exclusive time can subtract what its own calls
            # took rather than the callee's average over all callers
            # (which, under noise, can exceed a thin caller's inclusive
            # time and then be clamped, breaking the subtree's sum).
            seconds = float(entry[3]) if isinstance(entry, tuple) else math.nan
            for src, frac in sources.items():
                if src == comp or src not in g:
                    continue
                if g.has_edge(src, comp):
                    g.edges[src, comp]["calls"] += nc * frac
                    g.edges[src, comp]["seconds"] += seconds * frac
                else:
                    g.add_edge(src, comp, calls=nc * frac, seconds=seconds * frac)
    for comp in g:
        callees = sum(g.edges[comp, c]["seconds"] for c in g.successors(comp))
        if not math.isnan(callees):
            own = g.nodes[comp]["seconds"] - callees
            g.nodes[comp]["exclusive"] = max(0.0, own) / g.nodes[comp]["calls"]
    return g


def _per_invocation(g: nx.DiGraph, root: str | None) -> tuple[nx.DiGraph, float]:
    """The graph below ``root`` (all of it by default) and the invocations its counts are per."""
    import networkx as nx

    if root is None:
        tops = [n for n in g if g.in_degree(n) == 0]
        return g, g.nodes[tops[0]]["calls"] if len(tops) == 1 else 1.0
    if root not in g:
        raise ValueError(
            f"unknown root {root!r}: not a component of the profile "
            f"(components: {sorted(g)[:10]}...)"
        )
    g = g.subgraph({root} | nx.descendants(g, root)).copy()
    # A function also called outside root's tree counts only the calls made
    # from inside it (pstats keeps one level of callers).
    for n in nx.topological_sort(g):
        if n != root:
            g.nodes[n]["calls"] = sum(g.edges[p, n]["calls"] for p in g.predecessors(n))
    return g, g.nodes[root]["calls"]


def _field(span: Any, key: str, index: int) -> Any:
    for alias in _SPAN_FIELDS[key]:
        if isinstance(span, Mapping):
            if alias in span:
                return span[alias]
        elif hasattr(span, alias):
            return getattr(span, alias)
    if key == "parent":
        return None
    raise ValueError(f"span {index} has no {key!r} (looked for {', '.join(_SPAN_FIELDS[key])})")


def _span(span: Any, index: int) -> dict[str, Any]:
    out = {k: _field(span, k, index) for k in _SPAN_FIELDS}
    for key in ("name", "service"):
        if not isinstance(out[key], str) or not out[key]:
            raise ValueError(f"span {index} needs a non-empty string {key!r}, got {out[key]!r}")
    for key in ("start", "end"):
        if isinstance(out[key], str) and out[key].isdigit():
            out[key] = int(out[key])
    _number(out["start"], f"start of span {index}", positive=False)
    _number(out["end"], f"end of span {index}", positive=False)
    start, end = out["start"], out["end"]
    if end < start:
        raise ValueError(f"span {index} ({out['name']!r}) ends before it starts: {start} > {end}")
    # kept as given: integer nanoseconds since the epoch subtract exactly,
    # while as floats they would lose a quarter of a microsecond
    out["raw"] = span
    return out
