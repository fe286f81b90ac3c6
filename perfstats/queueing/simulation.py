"""Discrete-event simulation of the networks with ``ciw``.

Stations are ``ciw.PSNode`` processor-sharing nodes whose threshold is the
number of servers (each of ``n`` requests present gets ``min(1, c / n)`` of a
server) and service times are exponential with mean = demand (one visit per
station), so the simulation and :mod:`perfstats.queueing.analytic` describe
the same model. ``ciw`` draws from Python's global ``random`` module: the state is
saved and restored around a run, so a simulation neither depends on nor
disturbs the caller's use of ``random`` (and runs are not thread-safe).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .._rng import as_generator
from .._validation import check_int
from .network import SimulationResult

if TYPE_CHECKING:
    from .network import ClosedNetwork, OpenNetwork, Station

__all__ = ["simulate_closed", "simulate_open"]

# ciw needs a service distribution for every class at every node; classes
# that never visit a node get this placeholder, which is never sampled.
_NEVER = 0.0


def _seed_and_warmup(n_requests: Any, warmup: Any, rng: Any) -> tuple[int, int, int]:
    n = check_int(n_requests, "n_requests", minimum=10)
    w = n // 10 if warmup is None else check_int(warmup, "warmup", minimum=0)
    seed = int(as_generator(rng).integers(0, 2**31 - 1))
    return n, w, seed


def _service(ciw: Any, station: Station, cls: str) -> Any:
    d = station.demands.get(cls)
    return ciw.dists.Exponential(1.0 / d) if d is not None else ciw.dists.Deterministic(_NEVER)


def _run(seed: int, body: Callable[[], Any]) -> Any:
    import ciw

    state = random.getstate()
    try:
        ciw.seed(seed)
        return body()
    finally:
        random.setstate(state)


def _busy(
    records: list[Any], stations: tuple[Station, ...], node_of: int, t0: float, t1: float
) -> npt.NDArray[np.float64]:
    """Busy server-seconds per station inside ``[t0, t1]``.

    A processor-sharing station with ``c`` servers and ``n`` requests present
    keeps ``min(n, c)`` servers busy; ``n`` over time follows from the
    requests' arrival and exit dates at the station (node ``k + node_of``).
    """
    out = np.zeros(len(stations))
    node = np.array([r.node for r in records], dtype=np.int64)
    arrive = np.array([r.arrival_date for r in records])
    leave = np.array([r.exit_date for r in records])
    for k, s in enumerate(stations):
        mine = node == k + node_of
        times = np.concatenate([arrive[mine], leave[mine]])
        steps = np.concatenate([np.ones(int(mine.sum())), -np.ones(int(mine.sum()))])
        order = np.argsort(times, kind="stable")
        times, level = times[order], np.cumsum(steps[order])
        # level[i] requests are present from times[i] to times[i + 1]
        lo = np.clip(times[:-1], t0, t1)
        hi = np.clip(times[1:], t0, t1)
        out[k] = float(np.sum(np.minimum(level[:-1], s.servers) * (hi - lo)))
    return out


def _result(
    per_class: dict[str, list[float]],
    busy: npt.NDArray[np.float64],
    stations: tuple[Station, ...],
    duration: float,
    warmup: int,
    seed: int,
) -> SimulationResult:
    times = {c: np.asarray(v, dtype=np.float64) for c, v in per_class.items()}
    return SimulationResult(
        response_times=MappingProxyType(times),
        utilization=MappingProxyType(
            {s.name: float(busy[k] / (duration * s.servers)) for k, s in enumerate(stations)}
        ),
        cpu_percent=MappingProxyType(
            {s.name: float(100.0 * busy[k] / duration) for k, s in enumerate(stations)}
        ),
        throughput=MappingProxyType({c: v.size / duration for c, v in times.items()}),
        duration=duration,
        warmup=warmup,
        seed=seed,
    )


def simulate_open(net: OpenNetwork, *, n_requests: Any, warmup: Any, rng: Any) -> SimulationResult:
    """Simulate an open network; see :meth:`OpenNetwork.simulate`."""
    n, w, seed = _seed_and_warmup(n_requests, warmup, rng)
    net.check_stability()
    import ciw

    stations = net.stations
    routes = {c: [k + 1 for k, s in enumerate(stations) if c in s.demands] for c in net.classes}

    def route_of(cls: str) -> Callable[[Any, Any], list[int]]:
        rest = routes[cls][1:]
        return lambda ind, sim: list(rest)

    network = ciw.create_network(
        arrival_distributions={
            c: [
                ciw.dists.Exponential(net.arrival_rates[c]) if k + 1 == routes[c][0] else None
                for k in range(len(stations))
            ]
            for c in net.classes
        },
        service_distributions={c: [_service(ciw, s, c) for s in stations] for c in net.classes},
        number_of_servers=[float("inf")] * len(stations),
        ps_thresholds=[s.servers for s in stations],
        routing={c: ciw.routing.ProcessBased(route_of(c)) for c in net.classes},
    )
    # Requests finish out of order; the margin lets every request of the
    # measured window complete before the run stops.
    margin = max(200, n // 50)

    def body() -> list[Any]:
        sim = ciw.Simulation(network, node_class=[ciw.PSNode] * len(stations))
        sim.simulate_until_max_customers(w + n + margin, method="Finish")
        return list(sim.get_all_records())

    records = _run(seed, body)
    first: dict[int, tuple[float, str]] = {}
    last: dict[int, float] = {}
    done: dict[int, int] = {}
    for r in records:
        i = r.id_number
        if i not in first or r.arrival_date < first[i][0]:
            first[i] = (r.arrival_date, r.customer_class)
        last[i] = max(last.get(i, 0.0), r.exit_date)
        done[i] = done.get(i, 0) + 1
    order = sorted(first, key=lambda i: first[i][0])
    window = order[w : w + n]
    complete = [i for i in window if done[i] == len(routes[first[i][1]])]
    per_class: dict[str, list[float]] = {c: [] for c in net.classes}
    for i in complete:
        per_class[first[i][1]].append(last[i] - first[i][0])
    t0, t1 = first[window[0]][0], first[window[-1]][0]
    busy = _busy(records, stations, 1, t0, t1)
    return _result(per_class, busy, stations, t1 - t0, w, seed)


class _EndlessRoute:
    """A route that never ends: ciw's process-based router pops from it forever."""

    def __init__(self, cycle: list[int]) -> None:
        self._cycle = cycle
        self._pos = 0

    def __len__(self) -> int:
        return 1

    def pop(self, index: int = -1) -> int:
        node = self._cycle[self._pos]
        self._pos = (self._pos + 1) % len(self._cycle)
        return node


def simulate_closed(
    net: ClosedNetwork, *, n_requests: Any, warmup: Any, rng: Any
) -> SimulationResult:
    """Simulate a closed network; see :meth:`ClosedNetwork.simulate`."""
    n, w, seed = _seed_and_warmup(n_requests, warmup, rng)
    import ciw

    stations = net.stations
    # node 1 is the users' think station (infinite servers), 2.. the stations
    visits = {c: [k + 2 for k, s in enumerate(stations) if c in s.demands] for c in net.classes}
    users = {c: p for c, p in net.population.items() if p > 0}
    # Run long enough for w + n requests at the analytic throughput, plus a margin.
    rate = sum(net.solve().throughput[c] for c in users)
    horizon = 1.1 * (w + n) / rate + 10.0 * max(net.think_times.values(), default=0.0)

    def route_of(cls: str) -> Callable[[Any, Any], _EndlessRoute]:
        return lambda ind, sim: _EndlessRoute([*visits[cls], 1])

    network = ciw.create_network(
        arrival_distributions={
            c: [ciw.dists.Sequential([1e-9] * users[c] + [1e18]) if c in users else None]
            + [None] * len(stations)
            for c in net.classes
        },
        service_distributions={
            c: [
                ciw.dists.Exponential(1.0 / net.think_times[c])
                if net.think_times[c] > 0
                else ciw.dists.Deterministic(0.0)
            ]
            + [_service(ciw, s, c) for s in stations]
            for c in net.classes
        },
        number_of_servers=[float("inf")] * (len(stations) + 1),
        ps_thresholds=[1] + [s.servers for s in stations],
        routing={c: ciw.routing.ProcessBased(route_of(c)) for c in net.classes},
    )

    def body() -> list[Any]:
        sim = ciw.Simulation(network, node_class=[ciw.Node] + [ciw.PSNode] * len(stations))
        sim.simulate_until_max_time(horizon)
        return list(sim.get_all_records())

    records = _run(seed, body)
    by_user: dict[int, list[Any]] = {}
    for r in records:
        by_user.setdefault(r.id_number, []).append(r)
    cycles: list[tuple[float, float, str]] = []
    for recs in by_user.values():
        recs.sort(key=lambda r: r.arrival_date)
        cls = recs[0].customer_class
        k = len(visits[cls])
        # a request is the run of station visits between two think periods
        j = 0
        while j < len(recs):
            if recs[j].node == 1:
                j += 1
                continue
            chunk = recs[j : j + k]
            if len(chunk) == k and all(r.node != 1 for r in chunk):
                cycles.append((chunk[0].arrival_date, chunk[-1].exit_date, cls))
            j += k
    cycles.sort()
    if len(cycles) < w + 2:
        raise ValueError(
            f"the simulation produced only {len(cycles)} requests; increase n_requests"
        )
    window = cycles[w : w + n]
    per_class: dict[str, list[float]] = {c: [] for c in net.classes}
    for start, end, cls in window:
        per_class[cls].append(end - start)
    t0, t1 = window[0][0], window[-1][0]
    busy = _busy(records, stations, 2, t0, t1)
    return _result(per_class, busy, stations, t1 - t0, w, seed)
