"""Liao et al.'s whole pipeline in one call: component measurements to a system verdict."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._frozen import freeze_mappings
from .callgraph import CallGraph
from .deviation import LocalDeviation, local_deviation
from .prediction import DEFAULT_PREDICTION_REQUESTS, RegressionPrediction, predict_regression
from .propagation import Propagation, propagate, propagate_per_class
from .queueing import ClosedNetwork, OpenNetwork
from .queueing.simulation import check_requests

__all__ = ["SystemRegression", "detect_system_regression"]


@dataclass(frozen=True)
class SystemRegression:
    """Outcome of :func:`detect_system_regression`.

    Parameters
    ----------
    regression : bool
        The model's verdict (:attr:`RegressionPrediction.regression`).
    reason : str
        One sentence: what deviated locally and what the model predicts.
    deviations : mapping of str to LocalDeviation
        Step 1, per component.
    propagation : Propagation or mapping of str to Propagation
        Steps 3-4; per request class when the system graph was given per
        class.
    demand_factors : mapping
        What was applied to the model: ``{station: factor}`` or
        ``{request_class: {station: factor}}``.
    prediction : RegressionPrediction
        Steps 5-6.

    Examples
    --------
    One component on one station, 30% slower after the change:

    >>> import networkx as nx
    >>> import numpy as np
    >>> from perfstats import CallGraph, detect_system_regression
    >>> from perfstats.system.queueing import OpenNetwork, Station
    >>> model = OpenNetwork([Station("db", demands={"q": 0.004})], arrival_rates={"q": 100.0})
    >>> g = nx.DiGraph()
    >>> g.add_node("db.query", subsystem="db", calls=1, inclusive=0.004)
    >>> one = CallGraph(g)
    >>> x = np.random.default_rng(0).normal(0.004, 0.0001, size=30)
    >>> res = detect_system_regression({"db.query": x}, {"db.query": x * 1.3}, one, one, model,
    ...                                n_requests=2_000, rng=1)
    >>> res.deviations["db.query"].deviated, round(res.demand_factors["db"], 2)
    (True, 1.3)
    >>> res.regression, res.prediction.magnitude
    (True, 'small')
    """

    regression: bool
    reason: str
    deviations: Mapping[str, LocalDeviation]
    propagation: Propagation | Mapping[str, Propagation]
    demand_factors: Mapping[str, Any]
    prediction: RegressionPrediction

    def __post_init__(self) -> None:
        freeze_mappings(self)

    @property
    def unmapped(self) -> dict[str, str]:
        """Deviated components that could not be mapped to the system graph, with why."""
        return _unmapped(self.propagation)

    def __repr__(self) -> str:
        deviated = [n for n, d in self.deviations.items() if d.deviated]
        return (
            f"SystemRegression(regression={self.regression}, deviated={deviated!r}, "
            f"demand_factors={dict(self.demand_factors)!r}, reason={self.reason!r})"
        )


def _stations_exist(factors: Mapping[str, float], model: OpenNetwork | ClosedNetwork) -> None:
    names = [s.name for s in model.stations]
    missing = [k for k in factors if k not in names]
    if missing:
        raise ValueError(
            f"subsystem(s) {missing} of the system graph changed but are not stations of the "
            f"model (stations: {names}); name the stations after the subsystems"
        )


def _mean_demands(model: OpenNetwork | ClosedNetwork) -> dict[str, float]:
    """Per station, the service demand of an average request (throughput-weighted)."""
    rates = (
        dict(model.arrival_rates)
        if isinstance(model, OpenNetwork)
        else dict(model.solve().throughput)
    )
    total = sum(rates.values())
    return {s.name: sum(rates[c] * d for c, d in s.demands.items()) / total for s in model.stations}


def _unmapped(propagation: Propagation | Mapping[str, Propagation]) -> dict[str, str]:
    """Deviated components mapped to no system graph, with why.

    With one graph per request class, a component that is on one class's
    path and not on another's is mapped, not lost: only those that no
    class's graph holds are reported.
    """
    if isinstance(propagation, Propagation):
        return dict(propagation.unmapped)
    mapped = {n for p in propagation.values() for n in p.mapping}
    out: dict[str, str] = {}
    for p in propagation.values():
        for n, why in p.unmapped.items():
            if n not in mapped:
                out.setdefault(n, why)
    return out


def detect_system_regression(
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    local_graph: CallGraph,
    system_graph: CallGraph | Mapping[str, CallGraph],
    model: OpenNetwork | ClosedNetwork,
    *,
    alpha: float = 0.05,
    unit: str = "s",
    n_requests: int = DEFAULT_PREDICTION_REQUESTS,
    rng: Any = None,
    baseline: str = "graph",
) -> SystemRegression:
    """From component measurements of two versions to a system-level verdict.

    Runs Liao et al.'s steps in order: :func:`local_deviation` per component,
    :func:`propagate` onto the system graph (common-subgraph mapping, bottom-up
    propagation to subsystem demand factors), and :func:`predict_regression`
    on the architectural model.

    Parameters
    ----------
    before, after : mapping of str to array_like
        Per component, the execution times of its component test on the
        original and the changed version (same components in both).
    local_graph : CallGraph
        Call graph of the component tests.
    system_graph : CallGraph or mapping of str to CallGraph
        Call graph of the system per request, or one per request class of
        the model (then each class gets its own demand factors, so a change
        on one class's path does not slow the others).
    model : OpenNetwork or ClosedNetwork
        The architectural model; its stations are named after the
        subsystems of the system graph.
    alpha : float
        Significance level of both statistical tests.
    unit : str
        Time unit of the component measurements.
    n_requests : int, default 10000
        Requests simulated per version by :func:`predict_regression` (fewer
        when the changed demands saturate a station); checked before the
        local analyses run.
    rng : None, int or numpy.random.Generator
        Seeds the simulations of :func:`predict_regression`; both versions
        use the same stream.
    baseline : {"graph", "model"}
        What a subsystem's change is divided by to give its demand factor:
        its time in the system graph (the sum over its top-level
        components, as in the paper), or the model's service demand of
        that station (per class with per-class graphs; else the mean over
        classes weighted by throughput). Use ``"model"`` when the system
        graph's times include waiting, e.g. spans recorded under load.

    Returns
    -------
    SystemRegression
        The verdict and its reason, with every step's result: the local
        deviations, their propagation, the demand factors applied to the
        model and the model's prediction.

    Raises
    ------
    ValueError
        For components missing from one version or from the local graph,
        changed subsystems that are not stations of the model, unknown
        request classes, and everything the steps refuse.

    References
    ----------
    Liao et al., "Early Detection of Performance Regressions by Bridging Local Performance
    Data and Architectural Models", ICSE 2025; see the References of
    :mod:`perfstats.system.propagation`.

    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> from perfstats import CallGraph, detect_system_regression
    >>> from perfstats.system.queueing import OpenNetwork, Station
    >>> g = nx.DiGraph()
    >>> g.add_node("gw.route", subsystem="gateway", calls=1, inclusive=0.012)
    >>> g.add_node("cat.search", subsystem="catalogue", calls=1, inclusive=0.010)
    >>> g.add_edge("gw.route", "cat.search")
    >>> system = CallGraph(g)
    >>> model = OpenNetwork([Station("gateway", demands={"r": 0.002}),
    ...                      Station("catalogue", demands={"r": 0.010})],
    ...                     arrival_rates={"r": 50.0})
    >>> rng = np.random.default_rng(0)
    >>> base = rng.normal(0.010, 0.0003, size=30)
    >>> res = detect_system_regression({"cat.search": base}, {"cat.search": base * 2.5},
    ...                                system, system, model, n_requests=5_000, rng=1)
    >>> res.regression, round(res.demand_factors["catalogue"], 1)
    (True, 2.5)
    """
    if not isinstance(model, (OpenNetwork, ClosedNetwork)):
        raise ValueError(
            f"model must be a perfstats.system.queueing OpenNetwork or ClosedNetwork, "
            f"got {type(model).__name__}"
        )
    # Refused before the local analyses run, not after.
    check_requests(n_requests)
    for what, value in (("before", before), ("after", after)):
        if not isinstance(value, Mapping) or not value:
            raise ValueError(
                f"{what} must be a non-empty mapping {{component: execution times}}, got {value!r}"
            )
    only_before = [c for c in before if c not in after]
    only_after = [c for c in after if c not in before]
    if only_before or only_after:
        raise ValueError(
            f"before and after must measure the same components; only in before: "
            f"{only_before}, only in after: {only_after}"
        )
    deviations = {c: local_deviation(before[c], after[c], alpha=alpha, unit=unit) for c in before}
    if baseline not in ("graph", "model"):
        raise ValueError(f"baseline must be 'graph' or 'model', got {baseline!r}")
    propagation: Propagation | Mapping[str, Propagation]
    factors: Mapping[str, Any]
    if isinstance(system_graph, CallGraph):
        base = _mean_demands(model) if baseline == "model" else None
        propagation = propagate(deviations, local_graph, system_graph, demand_before=base)
        factors = dict(propagation.demand_factors)
        _stations_exist(factors, model)
    elif isinstance(system_graph, Mapping):
        unknown = [c for c in system_graph if c not in model.classes]
        if unknown:
            raise ValueError(
                f"system_graph names request class(es) {unknown} the model does not have "
                f"(classes: {list(model.classes)})"
            )
        per_class = propagate_per_class(
            deviations,
            local_graph,
            system_graph,
            demand_before=(
                {
                    c: {s.name: s.demands[c] for s in model.stations if c in s.demands}
                    for c in system_graph
                }
                if baseline == "model"
                else None
            ),
        )
        for p in per_class.by_class.values():
            _stations_exist(p.demand_factors, model)
        propagation = per_class.by_class
        factors = {c: dict(p.demand_factors) for c, p in per_class.by_class.items()}
    else:
        raise ValueError(
            f"system_graph must be a CallGraph or a mapping {{request_class: CallGraph}}, "
            f"got {type(system_graph).__name__}"
        )
    prediction = predict_regression(model, factors, n_requests=n_requests, rng=rng, alpha=alpha)
    deviated = [c for c, d in deviations.items() if d.deviated]
    unmapped = sorted(_unmapped(propagation))
    if deviated:
        local = ", ".join(f"{c} {deviations[c].relative_difference:+.0%}" for c in deviated[:3]) + (
            " ..." if len(deviated) > 3 else ""
        )
        head = f"{len(deviated)} component(s) deviated locally ({local})"
    else:
        head = "no component deviated locally"
    tail = f"; not mapped to the system graph: {unmapped}" if unmapped else ""
    reason = f"{head}; {prediction.reason}{tail}"
    return SystemRegression(
        regression=prediction.regression,
        reason=reason,
        deviations=deviations,
        propagation=propagation,
        demand_factors=factors,
        prediction=prediction,
    )
