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
* A station's slowdown with the requests present (``Station.slowdown``)
  comes from a calibration load test of the same version at a higher load:
  the CPU time of each component call against the calls in flight in the
  same service (:func:`relative_cpu_by_concurrency`). A CPython service
  switches threads every switch interval, so calls in flight take turns
  and each refills the caches the others used: its CPU per call grows with
  the calls it serves at once. The demands then become those of a request
  served alone (:func:`alone_demands`), so that the model's utilisation at
  the measured workload stays the measured one.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy.optimize import brentq

from examples.shop.cluster import ORDER

from .shop_loadtest import LoadTestRun

logger = logging.getLogger(__name__)


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


#: Calls with more in flight than this are pooled into the last bin.
MAX_BIN = 10
#: A slowdown entry needs this many calls; the table stops at the first bin with fewer.
MIN_BIN_CALLS = 100


def leaf_calls(
    spans: Sequence[Mapping[str, Any]], service: str
) -> list[tuple[Mapping[str, Any], float]]:
    """Every leaf call of ``service`` with the time-averaged leaf calls in flight meanwhile.

    A leaf is a span with no children (CPU-bound work, no downstream call);
    the count includes the call itself, so a call that ran alone has 1.
    """
    mine = [s for s in spans if s["service"] == service]
    parents = {s["parent_id"] for s in mine}
    leaves = [s for s in mine if s["id"] not in parents and s["end"] > s["start"]]
    start = np.array([s["start"] for s in leaves])
    end = np.array([s["end"] for s in leaves])
    out = []
    for s in leaves:
        a, b = s["start"], s["end"]
        overlap = np.clip(np.minimum(end, b) - np.maximum(start, a), 0.0, None).sum()
        out.append((s, float(overlap / (b - a))))
    return out


def relative_cpu_by_concurrency(
    spans: Sequence[Mapping[str, Any]], service: str, *, weight: str = "call"
) -> dict[int, tuple[int, float]]:
    """In-flight count (rounded, 1..MAX_BIN) -> (calls, CPU relative to running alone).

    Every leaf call of ``service`` (a span with no children: CPU-bound
    work, no downstream call) is placed by the time-averaged number of leaf
    calls of the same service running meanwhile, itself included. Its CPU
    time is compared with its component's calls that ran alone, so that
    components of different size pool into one curve:

    * ``weight="call"``: the mean over calls of CPU / the component's median
      alone (each call counts once: how a typical call fares);
    * ``weight="cpu"``: the calls' total CPU / their components' mean CPU
      alone (each call counts by its size: how a service's CPU per request,
      its demand, grows; a ratio of means, not a mean of ratios, so the
      cheap calls of a component do not pull it down).

    Examples
    --------
    >>> alone = [
    ...     {"id": str(i), "parent_id": None, "name": "f", "service": "s",
    ...      "start": 2.0 * i, "end": 2.0 * i + 1.0, "cpu": 1.0}
    ...     for i in range(10)
    ... ]
    >>> together = [
    ...     {"id": f"t{i}", "parent_id": None, "name": "f", "service": "s",
    ...      "start": 100.0, "end": 101.0, "cpu": 1.2}
    ...     for i in range(2)
    ... ]
    >>> relative_cpu_by_concurrency(alone + together, "s")
    {1: (10, 1.0), 2: (2, 1.2)}
    """
    if weight not in ("call", "cpu"):
        raise ValueError(f"weight must be 'call' or 'cpu', got {weight!r}")
    by_name: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for s, in_flight in leaf_calls(spans, service):
        by_name[s["name"]].append((in_flight, s["cpu"]))
    if not by_name:
        return {}
    cpu: list[float] = []
    ref: list[float] = []
    conc: list[float] = []
    for calls in by_name.values():
        v = np.array(calls)
        alone = v[:, 0] < 1.5
        # Too few calls alone: the component's own calls stand in.
        base = v[alone, 1] if alone.sum() >= 10 else v[:, 1]
        r = float(np.median(base) if weight == "call" else np.mean(base))
        if r <= 0.0:
            continue
        cpu.extend(v[:, 1].tolist())
        ref.extend([r] * len(v))
        conc.extend(v[:, 0].tolist())
    bins = np.clip(np.rint(np.array(conc)), 1, MAX_BIN).astype(int)
    x, y = np.array(cpu), np.array(ref)
    out = {}
    for k in np.unique(bins):
        sel = bins == k
        value = (x[sel] / y[sel]).mean() if weight == "call" else x[sel].sum() / y[sel].sum()
        out[int(k)] = (int(sel.sum()), round(float(value), 4))
    return out


def pooled_spans(runs: Sequence[LoadTestRun]) -> list[dict[str, Any]]:
    """The spans of several load tests, their ids tagged with the test (unique per process only)."""
    out: list[dict[str, Any]] = []
    for rep, run in enumerate(runs):
        out.extend(
            {**s, "id": f"{rep}:{s['id']}",
             "parent_id": None if s["parent_id"] is None else f"{rep}:{s['parent_id']}"}
            for s in run.spans
        )  # fmt: skip
    return out


def slowdown_table(curve: Mapping[int, tuple[int, float]]) -> tuple[float, ...] | None:
    """A station's slowdown from a concurrency curve: values relative to the first bin.

    Bins run from 1 request in flight up to the last one before a bin with
    fewer than ``MIN_BIN_CALLS`` calls (the station holds that last value
    beyond); ``None`` (load-independent) when only the first bin qualifies.

    Examples
    --------
    >>> slowdown_table({1: (500, 0.95), 2: (300, 1.0), 3: (120, 1.045), 4: (20, 1.3)})
    (1.0, 1.0526, 1.1)
    >>> slowdown_table({1: (500, 1.0), 2: (12, 1.1)}) is None
    True
    """
    values: list[float] = []
    for k in range(1, MAX_BIN + 1):
        if k not in curve or curve[k][0] < MIN_BIN_CALLS:
            break
        values.append(curve[k][1])
    if len(values) < 2 or values[0] <= 0.0:
        return None
    return tuple(round(v / values[0], 4) for v in values)


def estimate_slowdown(runs: Sequence[LoadTestRun]) -> dict[str, tuple[float, ...] | None]:
    """Service -> its slowdown per requests in flight, from calibration load tests with spans.

    The CPU-weighted curve (:func:`relative_cpu_by_concurrency` with
    ``weight="cpu"``): a station's demand is a mean CPU time, so its
    slowdown is a ratio of mean CPU times.
    """
    if not runs or not all(run.spans for run in runs):
        raise ValueError("calibration needs at least one load test with spans (keep_spans=True)")
    spans = pooled_spans(runs)
    return {
        svc: slowdown_table(relative_cpu_by_concurrency(spans, svc, weight="cpu"))
        for svc in ORDER
    }


def _rates(runs: Sequence[LoadTestRun]) -> tuple[dict[str, float], float]:
    """Completions per second of each request type, and the total window, over load tests."""
    window = sum(run.window_s for run in runs)
    rates: dict[str, float] = defaultdict(float)
    for run in runs:
        for kind, n in run.completions.items():
            rates[kind] += n / window
    return dict(rates), window


def _fit_scale(
    svc: str,
    kept: Mapping[str, float],
    scaled: Mapping[str, float],
    rates: Mapping[str, float],
    table: tuple[float, ...] | None,
    target: float,
) -> float | None:
    """The factor of the ``scaled`` demands that gives the station utilisation ``target``.

    The station serves ``kept`` and ``scaled`` demands at ``rates`` with the
    slowdown ``table``; ``None`` when no factor reaches ``target`` (the kept
    demands alone load it more, or it saturates first).
    """
    from perfstats.system.queueing import OpenNetwork, Station

    classes = {**kept, **scaled}

    def utilisation(scale: float) -> float:
        demands = {**kept, **{k: d * scale for k, d in scaled.items()}}
        station = Station(svc, demands=demands, slowdown=table)
        net = OpenNetwork([station], arrival_rates={k: rates[k] for k in classes})
        return float(net.solve().utilization[svc])

    g_tail = 1.0 if table is None else table[-1]
    kept_load = sum(rates[k] * d for k, d in kept.items()) * g_tail
    scaled_load = sum(rates[k] * d for k, d in scaled.items()) * g_tail
    if kept_load >= 1.0 or scaled_load <= 0.0:
        return None
    lo = 1e-6
    hi = (1.0 - 1e-9 - kept_load) / scaled_load  # the station's stability: trials stay stable
    if not utilisation(lo) < target < utilisation(hi):
        return None
    return float(brentq(lambda x: utilisation(x) - target, lo, hi, xtol=1e-12))


#: Calls served alone a component needs in both sets of load tests to time the machine.
MIN_SPEED_CALLS = 10


def speed_ratio(
    runs: Sequence[LoadTestRun],
    calibration: Sequence[LoadTestRun],
    service: str,
    kinds: Sequence[str],
) -> float | None:
    """How fast the machine ran ``service`` in ``runs`` relative to ``calibration``.

    The ratio of the mean CPU time of its leaf components' calls that ran
    alone (one call in flight, so that the calibration's concurrency does not
    enter), in requests of ``kinds``: summed over the components both sets
    have at least :data:`MIN_SPEED_CALLS` such calls of. Below 1 when the
    machine was slower during the calibration. ``None`` when no component
    qualifies.

    The calibration runs minutes after the model's load tests, and this
    machine's speed moves by 15 % and more in that time (CPU per call alone
    0.84-0.85 times the calibration's in every leaf component of two services
    on 2026-11-27); a demand from the calibration is at its speed.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> def calls(cpu, trace):
    ...     return [{"id": f"{trace}{i}", "parent_id": None, "trace_id": f"{trace}{i}",
    ...              "name": "f", "service": "s",
    ...              "start": 2.0 * i, "end": 2.0 * i + 1.0, "cpu": cpu} for i in range(12)]
    >>> fast = SimpleNamespace(spans=calls(1.0, "a"))
    >>> slow = SimpleNamespace(spans=calls(1.25, "b"))
    >>> speed_ratio([fast], [slow], "s", ["f"])  # the root span's name is the request type
    0.8
    """
    def alone(sets: Sequence[LoadTestRun]) -> dict[str, list[float]]:
        spans = pooled_spans(sets)
        classes = trace_classes(spans)
        out: dict[str, list[float]] = defaultdict(list)
        for s, in_flight in leaf_calls(spans, service):
            if in_flight < 1.5 and classes.get(s["trace_id"]) in kinds:
                out[s["name"]].append(float(s["cpu"]))
        return out

    mine, theirs = alone(runs), alone(calibration)
    common = [
        c for c in mine
        if len(mine[c]) >= MIN_SPEED_CALLS and len(theirs.get(c, ())) >= MIN_SPEED_CALLS
    ]  # fmt: skip
    if not common:
        return None
    num = sum(float(np.mean(mine[c])) for c in common)
    den = sum(float(np.mean(theirs[c])) for c in common)
    return num / den if den > 0.0 else None


def alone_demands(
    demands: Mapping[str, Mapping[str, float]],
    slowdown: Mapping[str, tuple[float, ...] | None],
    runs: Sequence[LoadTestRun],
    calibration: Sequence[LoadTestRun] | None = None,
) -> dict[str, dict[str, float]]:
    """The demands of a request served alone, from the model's load tests and the calibration.

    The utilisation law gave demands whose offered load equals the measured
    utilisation of ``runs``; a load-dependent station with them would be
    busier than measured, by its slowdown at the load tests' own
    concurrency. Per service:

    * request types the ``calibration`` load tests ran there (one type, by
      :func:`~benchmarks.system_regression.calibration_workload`) take the
      demand that gives the station its measured utilisation in those tests:
      the utilisation law of a single-type load test, exact, where splitting
      a mixed test's busy time by the types' span (wall-clock) time is not;
      then moved to the speed the machine ran ``runs`` at
      (:func:`speed_ratio`), since the other types' share is what is left
      of ``runs``' busy time;
    * the other types keep their split of ``runs`` and share one factor that
      gives the station its measured utilisation in ``runs``.

    Utilisations are the station's analytic ones with its slowdown, at the
    measured completions per second. Without calibration types at a
    service, all its types share the one factor; a load-independent service
    the calibration did not reach keeps its demands.
    """
    fixed_rates, window = _rates(runs)
    cal_rates, cal_window = _rates(calibration) if calibration else ({}, 0.0)
    out = {svc: dict(d) for svc, d in demands.items()}
    for svc, own in demands.items():
        table = slowdown.get(svc)
        cal = {k: d for k, d in own.items() if cal_rates.get(k, 0.0) > 0}
        kept: dict[str, float] = {}
        if cal and calibration:
            target = sum(run.busy_s[svc] for run in calibration) / cal_window
            scale = _fit_scale(svc, {}, cal, cal_rates, table, target)
            if scale is not None:
                # At the speed of the model's load tests, not the calibration's.
                speed = speed_ratio(runs, calibration, svc, list(cal))
                if speed is None:
                    logger.warning("%s: no component to time the calibration's speed by", svc)
                    speed = 1.0
                kept = {k: d * scale * speed for k, d in cal.items()}
        if table is None and not kept:
            continue
        rest = {k: d for k, d in own.items() if k not in kept and fixed_rates.get(k, 0.0) > 0}
        if not rest:
            out[svc] = {**own, **kept}
            continue
        target = sum(run.busy_s[svc] for run in runs) / window
        scale = _fit_scale(svc, kept, rest, fixed_rates, table, target)
        if scale is None and kept:
            logger.warning(
                "%s: the calibration's demands alone exceed the load tests' utilisation; "
                "keeping one factor for every request type", svc,
            )
            kept = {}
            rest = {k: d for k, d in own.items() if fixed_rates.get(k, 0.0) > 0}
            scale = _fit_scale(svc, kept, rest, fixed_rates, table, target)
        if scale is None:
            raise ValueError(f"no demands of service {svc!r} give its measured utilisation")
        out[svc] = {**own, **kept, **{k: d * scale for k, d in rest.items()}}
    return out
