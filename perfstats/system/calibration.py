"""An architectural model's parameters, calibrated from load tests.

Liao et al. (Section IV-E) build their queueing model from a load test of
the original version: one station per service, one request class per
request type, and service demands from the utilisation law. This module
does that calibration from what a load test records:

* the **spans** of the requests (``trace_id``, ``id``, ``parent_id``,
  ``name``, ``service``, ``start``, ``end`` in seconds, and optionally
  ``cpu``, the thread CPU seconds of the span), a root span (no parent)
  naming the request type;
* per service its **busy time** (CPU seconds over the window observed),
  per request type its **completions**, and the **window** in seconds.

From them:

* **Demands** (:func:`utilisation_demands`): a service's demand over all
  classes is its busy time divided by the completions (the utilisation law
  ``U = X D``); the spans split it between the classes in proportion to
  each class's own (exclusive) time in that service.
* **Service-time variability** (:func:`service_scv`): from the visits that
  had their service to themselves, since a visit that overlapped another
  one in the same service also holds time spent waiting for it.
* **Slowdown under load** (:func:`slowdown_tables`): from a calibration
  load test at a higher load, each service's CPU per leaf call against the
  calls in flight in it (:func:`relative_cpu_by_concurrency`): a service
  whose threads take turns on a core spends more CPU per call the more
  calls it serves at once. The demands then become those of a request
  served alone (:func:`alone_demands`), so that the load-dependent model
  keeps the observed utilisation.

:func:`calibrate` runs all of it and returns a :class:`Calibration`, which
builds the :class:`~perfstats.system.queueing.OpenNetwork`. Everything here
is computation on the given numbers: the load tests are run elsewhere.

References
----------
L. Liao, S. Eismann, H. Li, C.-P. Bezemer, D. E. Costa, A. van Hoorn and
W. Shang, "Early Detection of Performance Regressions by Bridging Local
Performance Data and Architectural Models", ICSE, 2025.

E. D. Lazowska, J. Zahorjan, G. S. Graham and K. C. Sevcik, "Quantitative
System Performance: Computer System Analysis Using Queueing Network
Models", Prentice-Hall, 1984 (the utilisation law, Chapter 3).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from .._validation import check_finite
from ._frozen import freeze_mappings
from .queueing import OpenNetwork, Station

__all__ = [
    "MAX_BIN",
    "MIN_ALONE_VISITS",
    "MIN_BIN_CALLS",
    "MIN_SPEED_CALLS",
    "Calibration",
    "LoadTest",
    "alone_demands",
    "calibrate",
    "component_cpu",
    "relative_cpu_by_concurrency",
    "service_scv",
    "slowdown_table",
    "slowdown_tables",
    "speed_ratio",
    "utilisation_demands",
]

logger = logging.getLogger(__name__)

#: Visits alone in their service a request type needs for its variability to count.
MIN_ALONE_VISITS = 20
#: Calls with more in flight than this are pooled into the last bin of a curve.
MAX_BIN = 10
#: A slowdown entry needs this many calls; the table stops at the first bin with fewer.
MIN_BIN_CALLS = 100
#: Calls served alone a component needs in both sets of load tests to compare their speed.
MIN_SPEED_CALLS = 10

_SPAN_KEYS = ("trace_id", "id", "parent_id", "name", "service", "start", "end")

Span = Mapping[str, Any]
Table = tuple[float, ...]


class LoadTest(Protocol):
    """What one load test recorded, as :func:`calibrate` reads it.

    Any object with these attributes, or a mapping with these keys.

    Attributes
    ----------
    spans : sequence of mapping
        The spans of the requests recorded (see the module docstring).
    busy_s : mapping of str to float
        Per service, CPU seconds spent over the window.
    completions : mapping of str to int
        Per request type, the requests completed in the window.
    window_s : float
        Length of the window observed in seconds.
    """

    @property
    def spans(self) -> Sequence[Span]: ...

    @property
    def busy_s(self) -> Mapping[str, float]: ...

    @property
    def completions(self) -> Mapping[str, int]: ...

    @property
    def window_s(self) -> float: ...


@dataclass(frozen=True)
class _Observed:
    """One load test, validated."""

    spans: list[Span]
    busy: dict[str, float]
    completions: dict[str, int]
    window: float


# --- validation ---------------------------------------------------------------


def _field(run: Any, name: str, i: int) -> Any:
    if isinstance(run, Mapping):
        if name not in run:
            raise ValueError(f"load test {i} has no {name!r}")
        return run[name]
    if not hasattr(run, name):
        raise ValueError(
            f"load test {i} must have spans, busy_s, completions and window_s "
            f"(attributes or keys); {type(run).__name__} has no {name!r}"
        )
    return getattr(run, name)


def _check_spans(spans: Any, where: str) -> list[Span]:
    if isinstance(spans, (str, bytes)) or not isinstance(spans, Sequence):
        raise ValueError(f"{where}: spans must be a sequence of mappings, got {spans!r}")
    out: list[Span] = []
    for j, s in enumerate(spans):
        if not isinstance(s, Mapping):
            raise ValueError(f"{where}: span {j} must be a mapping, got {s!r}")
        missing = [k for k in _SPAN_KEYS if k not in s]
        if missing:
            raise ValueError(f"{where}: span {j} lacks {missing} (has {sorted(s)})")
        start = check_finite(s["start"], f"{where}: span {j} start")
        end = check_finite(s["end"], f"{where}: span {j} end")
        if end < start:
            raise ValueError(f"{where}: span {j} ends before it starts ({start!r} > {end!r})")
        cpu = s.get("cpu")
        if cpu is not None and not check_finite(cpu, f"{where}: span {j} cpu") >= 0.0:
            raise ValueError(f"{where}: span {j} cpu must be >= 0, got {cpu!r}")
        out.append(s)
    return out


def _span_sets(spans: Any) -> list[list[Span]]:
    """One load test's spans, or a sequence of load tests' spans: a list per test."""
    if isinstance(spans, (str, bytes)) or not isinstance(spans, Sequence):
        raise ValueError(f"spans must be a sequence of spans or of span lists, got {spans!r}")
    if not spans or isinstance(spans[0], Mapping):
        return [_check_spans(spans, "spans")]
    return [_check_spans(s, f"load test {i}") for i, s in enumerate(spans)]


def _observe(runs: Any, what: str, *, need_spans: bool) -> list[_Observed]:
    if isinstance(runs, (str, bytes, Mapping)) or not isinstance(runs, Sequence):
        raise ValueError(f"{what} must be a sequence of load tests, got {runs!r}")
    if not runs:
        raise ValueError(f"{what} must hold at least one load test")
    out = []
    for i, run in enumerate(runs):
        where = f"{what}[{i}]"
        spans = _check_spans(_field(run, "spans", i), where)
        if need_spans and not spans:
            raise ValueError(
                f"{where} has no spans: calibration reads the demands' split from them"
            )
        busy_in = _field(run, "busy_s", i)
        done_in = _field(run, "completions", i)
        if not isinstance(busy_in, Mapping) or not isinstance(done_in, Mapping):
            raise ValueError(f"{where}: busy_s and completions must be mappings")
        busy = {str(k): check_finite(v, f"{where}: busy_s[{k!r}]") for k, v in busy_in.items()}
        if any(v < 0 for v in busy.values()):
            raise ValueError(f"{where}: busy_s must be >= 0, got {busy}")
        done: dict[str, int] = {}
        for k, v in done_in.items():
            n = check_finite(v, f"{where}: completions[{k!r}]")
            if n < 0 or n != int(n):
                raise ValueError(f"{where}: completions[{k!r}] must be a count >= 0, got {v!r}")
            done[str(k)] = int(n)
        window = check_finite(_field(run, "window_s", i), f"{where}: window_s")
        if not window > 0:
            raise ValueError(f"{where}: window_s must be > 0, got {window!r}")
        out.append(_Observed(spans, busy, done, window))
    return out


def _is_group(x: Any) -> bool:
    return isinstance(x, Sequence) and not isinstance(x, (str, bytes, Mapping))


def _calibration_groups(calibration: Any, *, need_spans: bool) -> list[list[_Observed]]:
    """Calibration load tests, one list per workload: a flat sequence is one workload."""
    if isinstance(calibration, (str, bytes, Mapping)) or not isinstance(calibration, Sequence):
        raise ValueError(
            "calibration must be a sequence of load tests, or of lists of load tests "
            f"(one per workload), got {calibration!r}"
        )
    if not calibration or not _is_group(calibration[0]):
        return [_observe(calibration, "calibration", need_spans=need_spans)]
    if not all(_is_group(g) for g in calibration):
        raise ValueError(
            "calibration must hold either load tests or lists of load tests (one per "
            "workload), not both"
        )
    return [
        _observe(g, f"calibration[{i}]", need_spans=need_spans) for i, g in enumerate(calibration)
    ]


def _stations(runs: Sequence[_Observed], stations: Sequence[str] | None) -> tuple[str, ...]:
    if stations is None:
        names: dict[str, None] = {}
        for run in runs:
            names.update(dict.fromkeys(run.busy))
        out = tuple(names)
    else:
        if isinstance(stations, str) or not isinstance(stations, Sequence):
            raise ValueError(f"stations must be a sequence of service names, got {stations!r}")
        out = tuple(stations)
    if not out:
        raise ValueError("no stations: the load tests name no service in busy_s")
    if len(set(out)) != len(out):
        raise ValueError(f"stations must be unique, got {list(out)}")
    for i, run in enumerate(runs):
        missing = [s for s in out if s not in run.busy]
        if missing:
            raise ValueError(f"load test {i} has no busy_s for station(s) {missing}")
    return out


# --- spans ----------------------------------------------------------------------


def _trace_classes(spans: Sequence[Span]) -> dict[Any, str]:
    """Trace id -> request type (the name of its root span)."""
    return {s["trace_id"]: str(s["name"]) for s in spans if s["parent_id"] is None}


def _exclusive_seconds(spans: Sequence[Span]) -> dict[tuple[str, str], float]:
    """(request type, service) -> own time of that service in those traces.

    A span's own time is its duration minus its children's, wherever the
    children ran (a remote call's time belongs to the callee).
    """
    child_time: dict[Any, float] = defaultdict(float)
    for s in spans:
        if s["parent_id"] is not None:
            child_time[s["parent_id"]] += s["end"] - s["start"]
    classes = _trace_classes(spans)
    out: dict[tuple[str, str], float] = defaultdict(float)
    for s in spans:
        kind = classes.get(s["trace_id"])
        if kind is None:
            continue
        out[(kind, s["service"])] += max(0.0, s["end"] - s["start"] - child_time[s["id"]])
    return dict(out)


def _visits(spans: Sequence[Span]) -> list[tuple[str, str, str, float, float, float]]:
    """Every entry into a service: (service, request type, entry span, start, end, own s).

    An entry is a span whose parent ran in another service (or that has no
    parent); its own time leaves out its calls to other services.
    """
    by_id = {s["id"]: s for s in spans}
    classes = _trace_classes(spans)
    remote: dict[Any, float] = defaultdict(float)
    for s in spans:
        parent = by_id.get(s["parent_id"]) if s["parent_id"] is not None else None
        if parent is not None and parent["service"] != s["service"]:
            # the callee's span lies inside the caller's entry span
            entry = parent
            while (
                entry["parent_id"] is not None
                and by_id.get(entry["parent_id"], {}).get("service") == entry["service"]
            ):
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


def _leaf_calls(spans: Sequence[Span], service: str) -> list[tuple[Span, float]]:
    """Every leaf call of ``service`` with the time-averaged leaf calls in flight meanwhile.

    A leaf is a span with no children (CPU-bound work, no downstream call)
    and a ``cpu`` time; the count includes the call itself, so a call that
    ran alone has 1.
    """
    mine = [s for s in spans if s["service"] == service]
    parents = {s["parent_id"] for s in mine}
    leaves = [
        s for s in mine
        if s["id"] not in parents and s["end"] > s["start"] and s.get("cpu") is not None
    ]  # fmt: skip
    start = np.array([s["start"] for s in leaves])
    end = np.array([s["end"] for s in leaves])
    out = []
    for s in leaves:
        a, b = s["start"], s["end"]
        overlap = np.clip(np.minimum(end, b) - np.maximum(start, a), 0.0, None).sum()
        out.append((s, float(overlap / (b - a))))
    return out


# --- the steps ------------------------------------------------------------------


def utilisation_demands(
    runs: Sequence[LoadTest | Mapping[str, Any]], *, stations: Sequence[str] | None = None
) -> dict[str, dict[str, float]]:
    """Per station and request type, the CPU seconds a request needs, by the utilisation law.

    Per service, ``sum_c N_c D_c = busy``: the completions ``N_c`` of each
    request type times its demand ``D_c`` give the service's busy time over
    all the load tests, with ``D_c`` in proportion to the type's own (exclusive)
    span time in the service per traced request.

    Parameters
    ----------
    runs : sequence of LoadTest
        Load tests of one version, each with its spans.
    stations : sequence of str, optional
        The services to model (default: every service of ``busy_s``).

    Returns
    -------
    dict
        ``{station: {request_type: seconds}}``; a type without span time in
        a station has no entry there.

    Raises
    ------
    ValueError
        For malformed load tests, and for a station with no span time.

    Examples
    --------
    >>> spans = [
    ...     {"trace_id": i, "id": i, "parent_id": None, "name": "get", "service": "api",
    ...      "start": float(i), "end": i + 0.004} for i in range(10)
    ... ]
    >>> run = {"spans": spans, "busy_s": {"api": 0.5}, "completions": {"get": 100},
    ...        "window_s": 10.0}
    >>> utilisation_demands([run])
    {'api': {'get': 0.005}}
    """
    observed = _observe(runs, "runs", need_spans=True)
    names = _stations(observed, stations)
    busy: dict[str, float] = defaultdict(float)
    completions: dict[str, int] = defaultdict(int)
    own: dict[tuple[str, str], float] = defaultdict(float)
    traces: dict[str, int] = defaultdict(int)
    for run in observed:
        for name, value in run.busy.items():
            busy[name] += value
        for kind, n in run.completions.items():
            completions[kind] += n
        for key, value in _exclusive_seconds(run.spans).items():
            own[key] += value
        for kind in _trace_classes(run.spans).values():
            traces[kind] += 1
    demands: dict[str, dict[str, float]] = {}
    for service in names:
        per_request = {
            kind: own.get((kind, service), 0.0) / traces[kind]
            for kind in completions
            if traces.get(kind) and own.get((kind, service), 0.0) > 0.0
        }
        weight = sum(completions[k] * e for k, e in per_request.items())
        if weight <= 0.0:
            raise ValueError(
                f"no span time measured in service {service!r} for any completed request type"
            )
        scale = busy[service] / weight
        demands[service] = {kind: e * scale for kind, e in per_request.items()}
    return demands


def service_scv(
    spans: Sequence[Span] | Sequence[Sequence[Span]], stations: Sequence[str]
) -> dict[str, float]:
    """Per station, the squared coefficient of variation of a request's service time.

    From the visits that were alone in their service (no other visit of the
    same service overlapped them): per request type the variances and means
    of its visits add up (a request that enters a service twice), and the
    station's value weighs the types by their share of its time. A station
    with fewer than :data:`MIN_ALONE_VISITS` such visits of every type keeps
    the exponential's 1.

    Parameters
    ----------
    spans : sequence of spans, or sequence of sequences of spans
        One load test's spans, or one list per load test (their times are
        not compared across tests).
    stations : sequence of str
        The services to estimate.

    Returns
    -------
    dict of str to float

    Examples
    --------
    >>> spans = [{"trace_id": i, "id": i, "parent_id": None, "name": "get",
    ...           "service": "api", "start": 2.0 * i, "end": 2.0 * i + (0.5 if i % 2 else 1.5)}
    ...          for i in range(40)]  # 0.5 s and 1.5 s alike: mean 1, variance 0.25 (x 40/39)
    >>> scv = service_scv(spans, ["api", "db"])
    >>> round(scv["api"], 4), scv["db"]
    (0.2564, 1.0)
    """
    sets = _span_sets(spans)
    if isinstance(stations, str) or not isinstance(stations, Sequence):
        raise ValueError(f"stations must be a sequence of service names, got {stations!r}")
    samples: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    traces: dict[str, int] = defaultdict(int)
    for one in sets:
        for kind in _trace_classes(one).values():
            traces[kind] += 1
        visits = _visits(one)
        for service in {v[0] for v in visits}:
            mine = sorted((v for v in visits if v[0] == service), key=lambda v: v[3])
            latest_end = float("-inf")
            for i, v in enumerate(mine):
                nxt = mine[i + 1][3] if i + 1 < len(mine) else float("inf")
                if v[3] >= latest_end and v[4] <= nxt:
                    samples[(service, v[1], v[2])].append(v[5])
                latest_end = max(latest_end, v[4])
    out: dict[str, float] = {}
    for service in stations:
        per_type: dict[str, tuple[float, float, int]] = {}
        for (svc, kind, _), xs in samples.items():
            if svc != service:
                continue
            x = np.asarray(xs)
            mean, var, n = per_type.get(kind, (0.0, 0.0, 1 << 30))
            # One visit has no variance; its count alone keeps the type out.
            x_var = float(x.var(ddof=1)) if x.size > 1 else 0.0
            per_type[kind] = (mean + float(x.mean()), var + x_var, min(n, x.size))
        usable = {k: v for k, v in per_type.items() if v[2] >= MIN_ALONE_VISITS and v[0] > 0}
        if not usable:
            out[service] = 1.0
            continue
        weight = {k: traces[k] * m for k, (m, _, _) in usable.items()}
        total = sum(weight.values())
        out[service] = sum(weight[k] / total * var / m**2 for k, (m, var, _) in usable.items())
    return out


def component_cpu(spans: Sequence[Span] | Sequence[Sequence[Span]]) -> dict[str, dict[str, float]]:
    """Per request type and component (span name), the mean CPU seconds of a call.

    Spans without a ``cpu`` time are left out.

    Parameters
    ----------
    spans : sequence of spans, or sequence of sequences of spans
        One load test's spans, or one list per load test.

    Returns
    -------
    dict
        ``{request_type: {component: seconds}}``.

    Examples
    --------
    >>> spans = [
    ...     {"trace_id": 1, "id": 1, "parent_id": None, "name": "buy", "service": "api",
    ...      "start": 0.0, "end": 1.0, "cpu": 0.002},
    ...     {"trace_id": 1, "id": 2, "parent_id": 1, "name": "price", "service": "api",
    ...      "start": 0.1, "end": 0.5, "cpu": 0.001},
    ... ]
    >>> component_cpu(spans)
    {'buy': {'buy': 0.002, 'price': 0.001}}
    """
    total: dict[tuple[str, str], float] = defaultdict(float)
    calls: dict[tuple[str, str], int] = defaultdict(int)
    for one in _span_sets(spans):
        classes = _trace_classes(one)
        for s in one:
            kind = classes.get(s["trace_id"])
            if kind is None or s.get("cpu") is None:
                continue
            total[(kind, str(s["name"]))] += float(s["cpu"])
            calls[(kind, str(s["name"]))] += 1
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for (kind, name), value in total.items():
        out[kind][name] = value / calls[(kind, name)]
    return dict(out)


def relative_cpu_by_concurrency(
    spans: Sequence[Span] | Sequence[Sequence[Span]], service: str, *, weight: str = "call"
) -> dict[int, tuple[int, float]]:
    """Calls in flight (rounded, 1..MAX_BIN) -> (calls, CPU relative to running alone).

    Every leaf call of ``service`` (a span with no children and a ``cpu``
    time: CPU-bound work, no downstream call) is placed by the time-averaged
    number of leaf calls of the same service running meanwhile, itself
    included. Its CPU time is compared with its component's calls that ran
    alone, so that components of different size pool into one curve:

    * ``weight="call"``: the mean over calls of CPU / the component's median
      alone (each call counts once: how a typical call fares);
    * ``weight="cpu"``: the calls' total CPU / their components' mean CPU
      alone (each call counts by its size: how a service's CPU per request,
      its demand, grows; a ratio of means, not a mean of ratios, so the
      cheap calls of a component do not pull it down).

    A component with fewer than ten calls alone is compared with all its calls.

    Parameters
    ----------
    spans : sequence of spans, or sequence of sequences of spans
        One load test's spans, or one list per load test (calls of
        different tests are never in flight together).
    service : str
        The service whose calls are read.
    weight : {"call", "cpu"}

    Returns
    -------
    dict
        ``{calls_in_flight: (calls, relative_cpu)}``, empty when the service
        has no leaf call with a CPU time.

    Examples
    --------
    >>> alone = [
    ...     {"trace_id": str(i), "id": str(i), "parent_id": None, "name": "f",
    ...      "service": "s", "start": 2.0 * i, "end": 2.0 * i + 1.0, "cpu": 1.0}
    ...     for i in range(10)
    ... ]
    >>> together = [
    ...     {"trace_id": f"t{i}", "id": f"t{i}", "parent_id": None, "name": "f",
    ...      "service": "s", "start": 100.0, "end": 101.0, "cpu": 1.2}
    ...     for i in range(2)
    ... ]
    >>> relative_cpu_by_concurrency(alone + together, "s")
    {1: (10, 1.0), 2: (2, 1.2)}
    """
    if weight not in ("call", "cpu"):
        raise ValueError(f"weight must be 'call' or 'cpu', got {weight!r}")
    by_name: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for one in _span_sets(spans):
        for s, in_flight in _leaf_calls(one, service):
            by_name[str(s["name"])].append((in_flight, float(s["cpu"])))
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
    if not cpu:
        return {}
    bins = np.clip(np.rint(np.array(conc)), 1, MAX_BIN).astype(int)
    x, y = np.array(cpu), np.array(ref)
    out = {}
    for k in np.unique(bins):
        sel = bins == k
        value = (x[sel] / y[sel]).mean() if weight == "call" else x[sel].sum() / y[sel].sum()
        out[int(k)] = (int(sel.sum()), round(float(value), 4))
    return out


def slowdown_table(curve: Mapping[int, tuple[int, float]]) -> Table | None:
    """A station's slowdown from a concurrency curve: values relative to the first bin.

    Bins run from 1 call in flight up to the last one before a bin with
    fewer than :data:`MIN_BIN_CALLS` calls (the station holds that last
    value beyond); ``None`` (load-independent) when only the first bin
    qualifies.

    Parameters
    ----------
    curve : mapping of int to (int, float)
        :func:`relative_cpu_by_concurrency`'s result.

    Returns
    -------
    tuple of float or None
        ``Station(slowdown=...)``'s table.

    Examples
    --------
    >>> slowdown_table({1: (500, 0.95), 2: (300, 1.0), 3: (120, 1.045), 4: (20, 1.3)})
    (1.0, 1.0526, 1.1)
    >>> slowdown_table({1: (500, 1.0), 2: (12, 1.1)}) is None
    True
    """
    if not isinstance(curve, Mapping):
        raise ValueError(
            f"curve must be a mapping {{calls in flight: (calls, value)}}, got {curve!r}"
        )
    values: list[float] = []
    for k in range(1, MAX_BIN + 1):
        if k not in curve or curve[k][0] < MIN_BIN_CALLS:
            break
        values.append(float(curve[k][1]))
    if len(values) < 2 or values[0] <= 0.0:
        return None
    return tuple(round(v / values[0], 4) for v in values)


def slowdown_tables(
    spans: Sequence[Span] | Sequence[Sequence[Span]], stations: Sequence[str]
) -> dict[str, Table | None]:
    """Per station, its slowdown with the calls in flight, from calibration load tests.

    The CPU-weighted curve (:func:`relative_cpu_by_concurrency` with
    ``weight="cpu"``) made a table (:func:`slowdown_table`): a station's
    demand is a mean CPU time, so its slowdown is a ratio of mean CPU times.

    Parameters
    ----------
    spans : sequence of spans, or sequence of sequences of spans
        The calibration load tests' spans, one list per test.
    stations : sequence of str

    Returns
    -------
    dict
        ``{station: table or None}``.

    Examples
    --------
    >>> spans = [{"trace_id": i, "id": i, "parent_id": None, "name": "f", "service": "s",
    ...           "start": 2.0 * i, "end": 2.0 * i + 1.0, "cpu": 0.001} for i in range(200)]
    >>> spans += [{"trace_id": f"p{i}", "id": f"p{i}", "parent_id": None, "name": "f",
    ...            "service": "s", "start": 1e4 + i // 2 * 2.0, "end": 1e4 + i // 2 * 2.0 + 1.0,
    ...            "cpu": 0.0011} for i in range(200)]
    >>> slowdown_tables(spans, ["s"])
    {'s': (1.0, 1.1)}
    """
    sets = _span_sets(spans)
    if isinstance(stations, str) or not isinstance(stations, Sequence):
        raise ValueError(f"stations must be a sequence of service names, got {stations!r}")
    return {
        svc: slowdown_table(relative_cpu_by_concurrency(sets, svc, weight="cpu"))
        for svc in stations
    }


def speed_ratio(
    spans: Sequence[Span] | Sequence[Sequence[Span]],
    reference: Sequence[Span] | Sequence[Sequence[Span]],
    service: str,
    kinds: Sequence[str],
) -> float | None:
    """How fast the machine ran ``service`` in ``spans`` relative to ``reference``.

    The ratio of the mean CPU time of its leaf components' calls that ran
    alone (one call in flight, so that the reference's concurrency does not
    enter), in requests of ``kinds``: summed over the components both sets
    have at least :data:`MIN_SPEED_CALLS` such calls of. Below 1 when the
    machine was slower during the reference. A machine's speed drifts over
    minutes; a demand taken in the reference is at its speed.

    Parameters
    ----------
    spans, reference : sequence of spans, or sequence of sequences of spans
        The two sets of load tests' spans.
    service : str
    kinds : sequence of str
        Request types whose calls count.

    Returns
    -------
    float or None
        ``None`` when no component qualifies.

    Examples
    --------
    >>> def calls(cpu, tag):
    ...     return [{"id": f"{tag}{i}", "parent_id": None, "trace_id": f"{tag}{i}",
    ...              "name": "f", "service": "s",
    ...              "start": 2.0 * i, "end": 2.0 * i + 1.0, "cpu": cpu} for i in range(12)]
    >>> speed_ratio(calls(1.0, "a"), calls(1.25, "b"), "s", ["f"])
    0.8
    """
    kinds = list(kinds)

    def alone(sets: list[list[Span]]) -> dict[str, list[float]]:
        out: dict[str, list[float]] = defaultdict(list)
        for one in sets:
            classes = _trace_classes(one)
            for s, in_flight in _leaf_calls(one, service):
                if in_flight < 1.5 and classes.get(s["trace_id"]) in kinds:
                    out[str(s["name"])].append(float(s["cpu"]))
        return out

    mine, theirs = alone(_span_sets(spans)), alone(_span_sets(reference))
    common = [
        c for c in mine
        if len(mine[c]) >= MIN_SPEED_CALLS and len(theirs.get(c, ())) >= MIN_SPEED_CALLS
    ]  # fmt: skip
    if not common:
        return None
    num = sum(float(np.mean(mine[c])) for c in common)
    den = sum(float(np.mean(theirs[c])) for c in common)
    return num / den if den > 0.0 else None


def _rates(runs: Sequence[_Observed]) -> tuple[dict[str, float], float]:
    """Completions per second of each request type, and the total window, over load tests."""
    window = sum(run.window for run in runs)
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
    table: Table | None,
    target: float,
) -> float | None:
    """The factor of the ``scaled`` demands that gives the station utilisation ``target``.

    The station serves ``kept`` and ``scaled`` demands at ``rates`` with the
    slowdown ``table``; ``None`` when no factor reaches ``target`` (the kept
    demands alone load it more, or it saturates first).
    """
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
    from scipy.optimize import brentq  # deferred: scipy.optimize is slow to import

    return float(brentq(lambda x: utilisation(x) - target, lo, hi, xtol=1e-12))


def _alone_demands(
    demands: Mapping[str, Mapping[str, float]],
    slowdown: Mapping[str, Table | None],
    runs: Sequence[_Observed],
    groups: Sequence[Sequence[_Observed]] | None,
    notes: list[str],
) -> dict[str, dict[str, float]]:
    fixed_rates, window = _rates(runs)
    model_spans = [r.spans for r in runs]
    out = {svc: dict(d) for svc, d in demands.items()}
    for svc, own in demands.items():
        table = slowdown.get(svc)
        # Demands fixed by the calibration workloads so far, at the speed of ``runs``.
        kept: dict[str, float] = {}
        for i, group in enumerate(groups or ()):
            cal_rates, cal_window = _rates(group)
            here = [k for k in own if cal_rates.get(k, 0.0) > 0]
            new = {k: own[k] for k in here if k not in kept}
            if not new:
                continue
            where = "" if len(groups or ()) == 1 else f" (calibration workload {i})"
            speed = speed_ratio(model_spans, [r.spans for r in group], svc, here)
            # a type an earlier workload fixed runs here at this workload's speed
            held = {k: kept[k] / (speed or 1.0) for k in here if k in kept}
            target = sum(run.busy.get(svc, 0.0) for run in group) / cal_window
            scale = _fit_scale(svc, held, new, cal_rates, table, target)
            if scale is None:
                continue
            # At the speed of the model's load tests, not the calibration's.
            if speed is None:
                notes.append(f"{svc}: no component to time the calibration's speed by{where}")
                speed = 1.0
            kept.update({k: d * scale * speed for k, d in new.items()})
        if table is None and not kept:
            continue
        rest = {k: d for k, d in own.items() if k not in kept and fixed_rates.get(k, 0.0) > 0}
        if not rest:
            out[svc] = {**own, **kept}
            continue
        target = sum(run.busy[svc] for run in runs) / window
        scale = _fit_scale(svc, kept, rest, fixed_rates, table, target)
        if scale is None and kept:
            notes.append(
                f"{svc}: the calibration's demands alone exceed the load tests' utilisation; "
                "one factor for every request type"
            )
            kept = {}
            rest = {k: d for k, d in own.items() if fixed_rates.get(k, 0.0) > 0}
            scale = _fit_scale(svc, kept, rest, fixed_rates, table, target)
        if scale is None:
            raise ValueError(f"no demands of service {svc!r} give its observed utilisation")
        out[svc] = {**own, **kept, **{k: d * scale for k, d in rest.items()}}
    for note in notes:
        logger.warning("%s", note)
    return out


def alone_demands(
    demands: Mapping[str, Mapping[str, float]],
    slowdown: Mapping[str, Table | None],
    runs: Sequence[LoadTest | Mapping[str, Any]],
    calibration: Sequence[LoadTest | Mapping[str, Any]]
    | Sequence[Sequence[LoadTest | Mapping[str, Any]]]
    | None = None,
) -> dict[str, dict[str, float]]:
    """The demands of a request served alone, from the model's load tests and a calibration.

    The utilisation law gave demands whose offered load equals the observed
    utilisation of ``runs``; a load-dependent station with them would be
    busier than observed, by its slowdown at the load tests' own
    concurrency. Per station:

    * request types the ``calibration`` load tests ran there take the
      demand that gives the station its observed utilisation in those
      tests (the utilisation law of a test of one type is exact, where
      splitting a mixed test's busy time by span time is not), moved to
      the speed the machine ran ``runs`` at (:func:`speed_ratio`; 1 when
      no component qualifies, logged). Given several calibration
      workloads, each one's types take their demands from its own tests,
      in order: a type an earlier workload fixed keeps its demand in the
      later ones' utilisation (moved to their speed);
    * the other types keep their split of ``runs`` and share one factor that
      gives the station its observed utilisation in ``runs``.

    Utilisations are the single-server station's analytic ones with its
    slowdown, at the observed completions per second. Without calibration
    types at a station, all its types share the one factor; a
    load-independent station the calibration did not reach keeps its demands.

    Parameters
    ----------
    demands : mapping
        ``{station: {request_type: seconds}}``, e.g. :func:`utilisation_demands`.
    slowdown : mapping of str to tuple or None
        Per station its slowdown table (:func:`slowdown_tables`).
    runs : sequence of LoadTest
        The load tests ``demands`` come from (spans may be empty).
    calibration : sequence of LoadTest, or sequence of sequences of LoadTest, optional
        Load tests at a higher load, of few request types: one list of them,
        or one list per calibration workload.

    Returns
    -------
    dict
        ``{station: {request_type: seconds}}``.

    Raises
    ------
    ValueError
        For malformed load tests, and when no demands give a station its
        observed utilisation (it would saturate first).

    Examples
    --------
    >>> run = {"spans": [], "busy_s": {"s": 30.0}, "completions": {"a": 5000},
    ...        "window_s": 100.0}
    >>> out = alone_demands({"s": {"a": 0.006}}, {"s": (1.2,)}, [run])
    >>> round(out["s"]["a"], 6)  # 0.006 over a constant slowdown of 1.2
    0.005
    """
    observed = _observe(runs, "runs", need_spans=False)
    groups = None if calibration is None else _calibration_groups(calibration, need_spans=False)
    if not isinstance(demands, Mapping) or not isinstance(slowdown, Mapping):
        raise ValueError("demands and slowdown must be mappings keyed by station")
    missing = [s for s in demands if any(s not in r.busy for r in observed)]
    if missing:
        raise ValueError(f"the load tests have no busy_s for station(s) {missing}")
    return _alone_demands(demands, slowdown, observed, groups, [])


# --- the whole calibration --------------------------------------------------------


@dataclass(frozen=True)
class Calibration:
    """A queueing model's parameters, calibrated from load tests (:func:`calibrate`).

    Parameters
    ----------
    stations : tuple of str
        The services, one single-server station each, in order.
    demands : mapping
        ``{station: {request_type: seconds}}``: CPU seconds per request;
        with a slowdown, those of a request served alone.
    scv : mapping of str to float
        Per station, the squared coefficient of variation of a service time.
    slowdown : mapping of str to tuple or None
        Per station its slowdown table (``Station(slowdown=...)``), ``None``
        for a load-independent one (all ``None`` without a calibration).
    component_cpu : mapping
        ``{request_type: {component: seconds}}``: mean CPU time of a call in
        the load tests' spans (:func:`component_cpu`).
    utilisation : mapping of str to float
        Per station, the busy share observed over the load tests.
    throughput : mapping of str to float
        Per request type, completions per second over the load tests.
    notes : tuple of str
        What the calibration could not do as asked (also logged).

    Examples
    --------
    >>> cal = Calibration(stations=("api",), demands={"api": {"get": 0.005}},
    ...                   scv={"api": 1.0}, slowdown={"api": None}, component_cpu={},
    ...                   utilisation={"api": 0.5}, throughput={"get": 100.0})
    >>> round(cal.network().solve().utilization["api"], 6)
    0.5
    """

    stations: tuple[str, ...]
    demands: Mapping[str, Mapping[str, float]]
    scv: Mapping[str, float]
    slowdown: Mapping[str, Table | None]
    component_cpu: Mapping[str, Mapping[str, float]]
    utilisation: Mapping[str, float]
    throughput: Mapping[str, float]
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "stations", tuple(self.stations))
        freeze_mappings(self)
        missing = [s for s in self.stations if s not in self.demands]
        if missing:
            raise ValueError(f"no demands for station(s) {missing}")

    def station(self, name: str, arrival_rates: Mapping[str, float] | None = None) -> Station:
        """The station ``name``, with the demands of the classes that arrive.

        Parameters
        ----------
        name : str
        arrival_rates : mapping of str to float, optional
            Requests per second per class (default: the observed throughput);
            classes without arrivals are left out.

        Returns
        -------
        Station

        Examples
        --------
        >>> cal = Calibration(stations=("api",), demands={"api": {"get": 0.005}},
        ...                   scv={"api": 0.3}, slowdown={"api": (1.0, 1.1)},
        ...                   component_cpu={}, utilisation={"api": 0.5},
        ...                   throughput={"get": 100.0})
        >>> cal.station("api").slowdown_at(2)
        1.1
        """
        if name not in self.stations:
            raise ValueError(f"no station {name!r} (stations: {list(self.stations)})")
        rates = self.throughput if arrival_rates is None else arrival_rates
        return Station(
            name,
            servers=1,
            demands={k: d for k, d in self.demands[name].items() if rates.get(k, 0.0) > 0},
            scv=float(self.scv.get(name, 1.0)),
            slowdown=self.slowdown.get(name),
        )

    def network(self, arrival_rates: Mapping[str, float] | None = None) -> OpenNetwork:
        """The open queueing network of the stations at ``arrival_rates``.

        Parameters
        ----------
        arrival_rates : mapping of str to float, optional
            Requests per second per class (default: the observed throughput,
            at which the model's utilisations are the observed ones).

        Returns
        -------
        OpenNetwork

        Examples
        --------
        >>> cal = Calibration(stations=("api",), demands={"api": {"get": 0.005}},
        ...                   scv={"api": 1.0}, slowdown={"api": None}, component_cpu={},
        ...                   utilisation={"api": 0.5}, throughput={"get": 100.0})
        >>> round(cal.network({"get": 40.0}).solve().utilization["api"], 6)
        0.2
        """
        rates = dict(self.throughput if arrival_rates is None else arrival_rates)
        return OpenNetwork(
            [self.station(name, rates) for name in self.stations], arrival_rates=rates
        )


def calibrate(
    runs: Sequence[LoadTest | Mapping[str, Any]],
    calibration: Sequence[LoadTest | Mapping[str, Any]]
    | Sequence[Sequence[LoadTest | Mapping[str, Any]]]
    | None = None,
    *,
    stations: Sequence[str] | None = None,
    service_times: str = "measured",
) -> Calibration:
    """Calibrate a queueing model from load tests of one version.

    Demands by the utilisation law (:func:`utilisation_demands`), the
    service-time variability of the visits alone in their service
    (:func:`service_scv`), the CPU per component call (:func:`component_cpu`)
    and, given ``calibration`` load tests at a higher load, each station's
    slowdown with the calls in flight (:func:`slowdown_tables`) and the
    demands of a request served alone (:func:`alone_demands`).

    Parameters
    ----------
    runs : sequence of LoadTest
        Load tests of the version to model, each with its spans: objects
        with ``spans``, ``busy_s``, ``completions`` and ``window_s``, or
        mappings with those keys.
    calibration : sequence of LoadTest, or sequence of sequences of LoadTest, optional
        Load tests of the same version at a higher load, with spans (and a
        ``cpu`` time on the leaf spans): one list of them, or one list per
        calibration workload (e.g. one request type each, so that every
        station is driven by a type that loads it most). The slowdown
        tables pool every workload's spans; each workload's request types
        take their demands from its own tests (:func:`alone_demands`).
        Without them every station is load-independent, as in the paper.
    stations : sequence of str, optional
        The services to model, in order (default: every service of
        ``busy_s``, in order of appearance).
    service_times : {``"measured"``, ``"exponential"``}
        The stations' variability: estimated from the spans, or the
        exponential's (scv 1) everywhere.

    Returns
    -------
    Calibration

    Raises
    ------
    ValueError
        For malformed load tests (naming the test and the field), a station
        without span time, and a station no demands give its observed
        utilisation.

    See Also
    --------
    perfstats.detect_system_regression : uses the model built here.

    References
    ----------
    L. Liao et al., "Early Detection of Performance Regressions by Bridging Local
    Performance Data and Architectural Models", ICSE 2025, Section IV-E.

    Examples
    --------
    Forty traced requests of one type, a quarter of a second of span time
    each; the service was busy for 25 s of a 100 s window in which 50
    requests completed:

    >>> from perfstats import calibrate
    >>> spans = [{"trace_id": i, "id": i, "parent_id": None, "name": "get",
    ...           "service": "api", "start": 2.0 * i, "end": 2.0 * i + 0.25}
    ...          for i in range(40)]
    >>> cal = calibrate([{"spans": spans, "busy_s": {"api": 25.0},
    ...                   "completions": {"get": 50}, "window_s": 100.0}])
    >>> cal.demands["api"]["get"], cal.throughput["get"], cal.scv["api"]
    (0.5, 0.5, 0.0)
    >>> round(cal.network().solve().utilization["api"], 9)  # U = X D
    0.25
    """
    if service_times not in ("measured", "exponential"):
        raise ValueError(
            f"service_times must be 'measured' or 'exponential', got {service_times!r}"
        )
    observed = _observe(runs, "runs", need_spans=True)
    names = _stations(observed, stations)
    groups = None if calibration is None else _calibration_groups(calibration, need_spans=True)
    cal = None if groups is None else [r for group in groups for r in group]
    if cal is not None:
        missing = [s for s in names if any(s not in r.busy for r in cal)]
        if missing:
            raise ValueError(f"the calibration load tests have no busy_s for station(s) {missing}")
    spans = [r.spans for r in observed]
    demands = utilisation_demands(runs, stations=names)
    scv = service_scv(spans, names) if service_times == "measured" else dict.fromkeys(names, 1.0)
    rates, window = _rates(observed)
    notes: list[str] = []
    slowdown: dict[str, Table | None] = dict.fromkeys(names)
    if cal is not None:
        slowdown = slowdown_tables([r.spans for r in cal], names)
        demands = _alone_demands(demands, slowdown, observed, groups, notes)
    return Calibration(
        stations=names,
        demands=demands,
        scv=scv,
        slowdown=slowdown,
        component_cpu=component_cpu(spans),
        utilisation={s: sum(r.busy[s] for r in observed) / window for s in names},
        throughput=rates,
        notes=tuple(notes),
    )
