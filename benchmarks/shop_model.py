"""The shop's architectural model, built from a measured load test (Liao et al., IV-E).

* The system graph is the call graph of the spans the services exported
  (:meth:`perfstats.CallGraph.from_spans`).
* The queueing model has one single-server station per service (a CPython
  process runs its CPU-bound work one thread at a time) and one request
  class per request type. Its demands come from the utilisation law: a
  service's demand over all classes is its CPU busy time divided by the
  completions; the spans split it between the classes in proportion to each
  class's exclusive (own) time in that service.
* A station's service-time variability (``Station.scv``) comes from the
  visits that had the service to themselves: a visit's own time is its
  service time only when no other request was inside the same service
  meanwhile (otherwise it also holds time spent waiting for the
  interpreter or a core), so only those visits are used.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from examples.shop.cluster import ORDER

from .shop_loadtest import LoadTestRun


def trace_classes(spans: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Trace id -> request type (the name of its root span)."""
    return {s["trace_id"]: s["name"] for s in spans if s["parent_id"] is None}


def exclusive_seconds(spans: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], float]:
    """(request type, service) -> total own time of that service in those traces.

    A span's own time is its duration minus its children's, wherever the
    children ran (a remote call's time belongs to the callee).
    """
    child_time: dict[str, float] = defaultdict(float)
    for s in spans:
        if s["parent_id"] is not None:
            child_time[s["parent_id"]] += s["end"] - s["start"]
    classes = trace_classes(spans)
    out: dict[tuple[str, str], float] = defaultdict(float)
    for s in spans:
        kind = classes.get(s["trace_id"])
        if kind is None:
            continue
        out[(kind, s["service"])] += max(0.0, s["end"] - s["start"] - child_time[s["id"]])
    return dict(out)


def estimate_demands(runs: Sequence[LoadTestRun]) -> dict[str, dict[str, float]]:
    """Service -> request type -> CPU seconds per request, from load tests with spans.

    Utilisation law per service: ``sum_c N_c D_c = busy``, with ``D_c``
    proportional to the class's own time in the service per request.
    """
    if not runs:
        raise ValueError("runs must hold at least one load test")
    busy: dict[str, float] = defaultdict(float)
    completions: dict[str, int] = defaultdict(int)
    own: dict[tuple[str, str], float] = defaultdict(float)
    traces: dict[str, int] = defaultdict(int)
    for run in runs:
        if not run.spans:
            raise ValueError("every load test must have kept its spans (keep_spans=True)")
        for name, value in run.busy_s.items():
            busy[name] += value
        for kind, n in run.completions.items():
            completions[kind] += n
        for key, value in exclusive_seconds(run.spans).items():
            own[key] += value
        for kind in trace_classes(run.spans).values():
            traces[kind] += 1
    demands: dict[str, dict[str, float]] = {}
    for service in ORDER:
        per_request = {
            kind: own.get((kind, service), 0.0) / traces[kind]
            for kind in completions
            if traces.get(kind) and own.get((kind, service), 0.0) > 0.0
        }
        weight = sum(completions[k] * e for k, e in per_request.items())
        if weight <= 0.0:
            raise ValueError(f"no span time measured in service {service!r}")
        scale = busy[service] / weight
        demands[service] = {kind: e * scale for kind, e in per_request.items()}
    return demands


def component_cpu(spans: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """Request type -> component -> mean thread CPU seconds per call (the spans' ``cpu``)."""
    classes = trace_classes(spans)
    total: dict[tuple[str, str], float] = defaultdict(float)
    calls: dict[tuple[str, str], int] = defaultdict(int)
    for s in spans:
        kind = classes.get(s["trace_id"])
        if kind is None or s.get("cpu") is None:
            continue
        total[(kind, s["name"])] += float(s["cpu"])
        calls[(kind, s["name"])] += 1
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for (kind, name), value in total.items():
        out[kind][name] = value / calls[(kind, name)]
    return dict(out)


MIN_ALONE_VISITS = 20


def _visits(spans: Sequence[Mapping[str, Any]]) -> list[tuple[str, str, str, float, float, float]]:
    """Every entry into a service: (service, request type, entry span name, start, end, own s).

    An entry is a span whose parent ran in another service (or that has no
    parent); its own time leaves out its calls to other services.
    """
    by_id = {s["id"]: s for s in spans}
    classes = trace_classes(spans)
    remote: dict[str, float] = defaultdict(float)
    for s in spans:
        parent = by_id.get(s["parent_id"]) if s["parent_id"] is not None else None
        if parent is not None and parent["service"] != s["service"]:
            # the callee's span lies inside the caller's entry span
            entry = parent
            while entry["parent_id"] is not None and by_id.get(entry["parent_id"], {}).get(
                "service"
            ) == entry["service"]:
                entry = by_id[entry["parent_id"]]
            remote[entry["id"]] += s["end"] - s["start"]
    out = []
    for s in spans:
        parent = by_id.get(s["parent_id"]) if s["parent_id"] is not None else None
        if parent is not None and parent["service"] == s["service"]:
            continue
        kind = classes.get(s["trace_id"])
        if kind is None:
            continue
        own = max(0.0, s["end"] - s["start"] - remote[s["id"]])
        out.append((s["service"], kind, s["name"], s["start"], s["end"], own))
    return out


def estimate_scv(runs: Sequence[LoadTestRun]) -> dict[str, float]:
    """Service -> squared coefficient of variation of a request's service time.

    From the visits that were alone in their service (no other visit of the
    same service overlapped them): per request type the variances and means
    of its visits add up (a request that enters a service twice), and the
    station's value weighs the types by their share of its busy time. A
    service with fewer than ``MIN_ALONE_VISITS`` such visits of a type keeps
    the exponential's 1.
    """
    samples: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    traces: dict[str, int] = defaultdict(int)
    for run in runs:
        for kind in trace_classes(run.spans).values():
            traces[kind] += 1
        visits = _visits(run.spans)
        for service in {v[0] for v in visits}:
            mine = sorted((v for v in visits if v[0] == service), key=lambda v: v[3])
            latest_end = float("-inf")
            for i, v in enumerate(mine):
                nxt = mine[i + 1][3] if i + 1 < len(mine) else float("inf")
                if v[3] >= latest_end and v[4] <= nxt:
                    samples[(service, v[1], v[2])].append(v[5])
                latest_end = max(latest_end, v[4])
    out: dict[str, float] = {}
    for service in ORDER:
        per_type: dict[str, tuple[float, float, int]] = {}
        for (svc, kind, _), xs in samples.items():
            if svc != service:
                continue
            x = np.asarray(xs)
            mean, var, n = per_type.get(kind, (0.0, 0.0, 1 << 30))
            per_type[kind] = (mean + float(x.mean()), var + float(x.var(ddof=1)), min(n, x.size))
        usable = {k: v for k, v in per_type.items() if v[2] >= MIN_ALONE_VISITS and v[0] > 0}
        if not usable:
            out[service] = 1.0
            continue
        weight = {k: traces[k] * m for k, (m, _, _) in usable.items()}
        total = sum(weight.values())
        out[service] = sum(weight[k] / total * var / m**2 for k, (m, var, _) in usable.items())
    return out


def system_graphs(spans: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Request type -> its system call graph (:meth:`perfstats.CallGraph.from_spans`).

    Span times are wall-clock and leave out the CPU a service spends outside
    any span (its HTTP stack), so they are not the model's demands: the
    propagation divides each change by the model's demand instead
    (``perfstats.propagate(..., demand_before=...)``).
    """
    from perfstats import CallGraph

    return {
        kind: CallGraph.from_spans(spans, root=kind)
        for kind in sorted(set(trace_classes(spans).values()))
    }


def local_graph(profile: Any) -> Any:
    """The call graph of the shop's component tests (one node per shop component)."""
    from examples.shop.component_tests import SUITES
    from perfstats import CallGraph

    service_of = {name: service for service, suite in SUITES.items() for name in suite}
    modules = {f"{service}.py" for service in SUITES}

    def name(func: tuple[str, int, str]) -> str | None:
        filename, _, funcname = func
        if funcname in service_of and filename.rsplit("/", 1)[-1] in modules:
            return funcname
        return None

    return CallGraph.from_pstats(profile, subsystem=service_of, name=name)
