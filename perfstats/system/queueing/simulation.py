"""Discrete-event simulation of the networks with ``ciw``.

Stations are ``ciw.PSNode`` processor-sharing nodes whose threshold is the
number of servers (each of ``n`` requests present gets ``min(1, c / n)`` of a
server) and service times have mean = demand (one visit per station):
exponential by default, Gamma or constant when a station's ``scv`` says so.
Processor sharing makes the mean response times insensitive to that choice,
so the simulation and :mod:`perfstats.system.queueing.analytic` describe the same
model whatever the ``scv``. A load-dependent station (``Station.slowdown``)
is a ``ciw.PSNode`` whose requests progress ``slowdown(n)`` times slower
while ``n`` are present.

Random numbers come from NumPy streams tied to what they drive, not from
one shared stream in event order: each class's arrivals have their own
stream, and request ``i``'s work at station ``k`` is ``demand x E[i, k]``
with ``E`` a fixed table of unit-mean variates (in a closed network, the
``j``-th visit of user ``i`` to station ``k``). Two simulations with the
same seed therefore see the same arrivals and the same work per request:
when only some demands change (two versions of a system), the difference
between the runs is the effect of the change, not noise from random
numbers that drifted apart (common random numbers). ``ciw`` keeps Python's
global ``random`` for tie-breaking; it is seeded too, and its state is saved
and restored around a run, so a simulation neither depends on nor disturbs
the caller's use of ``random`` (runs are not thread-safe).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

import ciw
import numpy as np
import numpy.typing as npt

from ..._rng import as_generator
from ..._validation import check_int
from .analytic import solve_closed
from .solution import SimulationResult
from .station import Station

__all__ = [
    "MAX_REQUESTS",
    "MAX_SIMULATED_USERS",
    "MAX_USER_REQUESTS",
    "check_population",
    "check_requests",
    "simulate_closed",
    "simulate_open",
    "simulation_run",
]

_BLOCK = 4096
#: Most requests one simulation runs: ciw advances event by event in Python,
#: so a run is linear in the requests with a large constant; beyond this a
#: run would occupy a machine for hours. Means converge long before.
MAX_REQUESTS = 10**7
#: Most users a closed network's simulation holds: each is a customer of the
#: simulation, alive for the whole run.
MAX_SIMULATED_USERS = 10_000
#: Most users times requests (recorded and warm-up) one closed simulation
#: takes on: every event at a processor-sharing station updates each request
#: there, so the cost grows with both.
MAX_USER_REQUESTS = 5 * 10**7


def _unit_work(gen: np.random.Generator, size: int, scv: float) -> npt.NDArray[np.float64]:
    """``size`` service-time multipliers of mean 1 and squared variation ``scv``.

    Exponential for 1 (the stream of earlier versions, unchanged), constant
    for 0, Gamma with shape ``1 / scv`` otherwise.
    """
    if scv == 1.0:
        return gen.standard_exponential(size)
    if scv == 0.0:
        return np.ones(size)
    return gen.standard_gamma(1.0 / scv, size) * scv


class _Stream:
    """Unit-mean variates from one generator, drawn in blocks (exponential by default)."""

    def __init__(self, seed: int, *key: int, scv: float = 1.0) -> None:
        seq = np.random.SeedSequence(seed, spawn_key=key)
        self._gen = np.random.Generator(np.random.PCG64(seq))
        self._scv = scv
        self._buf = np.empty(0)
        self._pos = 0

    def next(self) -> float:
        if self._pos == self._buf.size:
            self._buf = _unit_work(self._gen, _BLOCK, self._scv)
            self._pos = 0
        self._pos += 1
        return float(self._buf[self._pos - 1])


class _Table:
    """Unit-mean service-time multipliers indexed by request id, extended on demand."""

    def __init__(self, seed: int, *key: int, scv: float = 1.0) -> None:
        seq = np.random.SeedSequence(seed, spawn_key=key)
        self._gen = np.random.Generator(np.random.PCG64(seq))
        self._scv = scv
        self._values = np.empty(0)

    def __getitem__(self, i: int) -> float:
        while i >= self._values.size:
            more = _unit_work(self._gen, max(_BLOCK, self._values.size), self._scv)
            self._values = np.concatenate([self._values, more])
        return float(self._values[i])


class _Interarrival(ciw.dists.Distribution):
    def __init__(self, rate: float, stream: _Stream) -> None:
        self.rate = rate
        self.stream = stream

    def sample(self, t: Any = None, ind: Any = None) -> float:
        return self.stream.next() / self.rate


class _WorkById(ciw.dists.Distribution):
    """Work of request ``ind`` at one station: demand x its own unit exponential."""

    def __init__(self, demand: float, table: _Table) -> None:
        self.demand = demand
        self.table = table

    def sample(self, t: Any = None, ind: Any = None) -> float:
        return self.demand * self.table[ind.id_number]


class _WorkPerUser(ciw.dists.Distribution):
    """Work of a closed network's user at one station: its own stream of visits."""

    def __init__(self, demand: float, seed: int, station: int, scv: float = 1.0) -> None:
        self.demand = demand
        self.seed = seed
        self.station = station
        self.scv = scv
        self.streams: dict[int, _Stream] = {}

    def sample(self, t: Any = None, ind: Any = None) -> float:
        stream = self.streams.get(ind.id_number)
        if stream is None:
            stream = self.streams[ind.id_number] = _Stream(
                self.seed, 2, self.station, ind.id_number, scv=self.scv
            )
        return self.demand * stream.next()


def check_requests(n_requests: Any) -> int:
    """``n_requests`` as an int in ``[10, MAX_REQUESTS]``, or a ValueError naming the limit.

    Examples
    --------
    >>> from perfstats.system.queueing.simulation import check_requests
    >>> check_requests(5_000)
    5000
    >>> check_requests(10**12)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: n_requests must be at most 10_000_000 (the most requests ... got 1_000_000_000_000
    """
    n = check_int(n_requests, "n_requests", minimum=10)
    if n > MAX_REQUESTS:
        raise ValueError(
            f"n_requests must be at most {MAX_REQUESTS:_} (the most requests one simulation "
            f"runs), got {n:_}"
        )
    return n


def check_population(population: Mapping[str, int], n_requests: int, warmup: int) -> int:
    """The total population, or a ValueError naming the limit it is beyond.

    Examples
    --------
    >>> from perfstats.system.queueing.simulation import check_population
    >>> check_population({"u": 30, "v": 20}, 10_000, 1_000)
    50
    """
    users = int(sum(p for p in population.values() if p > 0))
    if users > MAX_SIMULATED_USERS:
        raise ValueError(
            f"a closed network of {users:,} users is beyond the {MAX_SIMULATED_USERS:,} users "
            "one simulation holds; solve() gives its mean values (exact MVA, or refused "
            "beyond its own limit)"
        )
    work = users * (n_requests + warmup)
    if work > MAX_USER_REQUESTS:
        most = MAX_USER_REQUESTS // users - warmup
        raise ValueError(
            f"{users:,} users x {n_requests + warmup:,} requests (recorded and warm-up) is "
            f"{work:,}, beyond the limit of {MAX_USER_REQUESTS:,} a simulation takes on (each "
            f"event updates every request at its station); use n_requests <= {max(most, 0):,} "
            "with this warm-up, or solve()"
        )
    return users


def simulation_run(n_requests: Any, warmup: Any, rng: Any) -> tuple[int, int, int]:
    """``(n_requests, warmup, seed)`` of a run: validated counts and the seed drawn from ``rng``."""
    n = check_requests(n_requests)
    w = n // 10 if warmup is None else check_int(warmup, "warmup", minimum=0)
    seed = int(as_generator(rng).integers(0, 2**31 - 1))
    return n, w, seed


def _run(seed: int, body: Callable[[], Any]) -> Any:
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
        response_times=times,
        utilization={
            s.name: float(busy[k] / (duration * s.servers)) for k, s in enumerate(stations)
        },
        cpu_percent={s.name: float(100.0 * busy[k] / duration) for k, s in enumerate(stations)},
        throughput={c: v.size / duration for c, v in times.items()},
        duration=duration,
        warmup=warmup,
        seed=seed,
    )


class _LoadDependentPSNode(ciw.PSNode):
    """Processor sharing whose requests progress at ``min(1, c / n) / slowdown(n)``.

    ciw's own node re-plans every request's end of service whenever the
    number present changes; this one does the same with the slowdown of the
    occupancy that held over the period just ended and of the one to come.
    """

    station: Station
    last_occupancy: int

    def update_all_service_end_dates(self) -> None:
        now = self.simulation.current_time
        before = self.last_occupancy
        after = min(self.number_of_individuals, self.ps_capacity)
        c = self.ps_threshold
        # work done per unit of time over the period that ended, and time
        # per unit of work from now on (the loop runs at every event)
        rate = c / max(before, c) / self.station.slowdown_at(before) if before > 0 else 0.0
        stretch = max(after, c) / c * (self.station.slowdown_at(after) if after > 0 else 1.0)
        for ind in self.all_individuals:
            if not ind.with_server:
                continue
            ind.time_left -= (now - ind.date_last_update) * rate
            ind.service_end_date = now + ind.time_left * stretch
            ind.date_last_update = now
        self.last_occupancy = after
        self.date_last_update = now


def _node_classes(stations: tuple[Station, ...]) -> list[type]:
    """ciw node class per station: plain processor sharing, or load-dependent."""
    out: list[type] = []
    for s in stations:
        if s.load_dependent:
            out.append(type("LoadDependentPSNode", (_LoadDependentPSNode,), {"station": s}))
        else:
            out.append(ciw.PSNode)
    return out


# ciw needs a service distribution for every class at every node; classes
# that never visit a node get this placeholder, which is never sampled.
_NEVER = ciw.dists.Deterministic(0.0)


def simulate_open(
    stations: tuple[Station, ...],
    arrival_rates: Mapping[str, float],
    classes: tuple[str, ...],
    *,
    n_requests: int,
    warmup: int,
    seed: int,
) -> SimulationResult:
    """Simulate an open network's parts.

    See :meth:`perfstats.system.queueing.OpenNetwork.simulate`.

    ``n_requests``, ``warmup`` and ``seed`` are those :func:`simulation_run` returns.
    """
    n, w = n_requests, warmup
    routes = {c: [k + 1 for k, s in enumerate(stations) if c in s.demands] for c in classes}

    def route_of(cls: str) -> Callable[[Any, Any], list[int]]:
        rest = routes[cls][1:]
        return lambda ind, sim: list(rest)

    tables = [_Table(seed, 1, k, scv=s.scv) for k, s in enumerate(stations)]

    network = ciw.create_network(
        arrival_distributions={
            c: [
                _Interarrival(arrival_rates[c], _Stream(seed, 0, j))
                if k + 1 == routes[c][0]
                else None
                for k in range(len(stations))
            ]
            for j, c in enumerate(classes)
        },
        service_distributions={
            c: [
                _WorkById(s.demands[c], tables[k]) if c in s.demands else _NEVER
                for k, s in enumerate(stations)
            ]
            for c in classes
        },
        number_of_servers=[float("inf")] * len(stations),
        ps_thresholds=[s.servers for s in stations],
        routing={c: ciw.routing.ProcessBased(route_of(c)) for c in classes},
    )
    # Requests finish out of order; the margin lets every request of the
    # recorded window complete before the run stops.
    margin = max(200, n // 50)

    def body() -> list[Any]:
        sim = ciw.Simulation(network, node_class=_node_classes(stations))
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
    per_class: dict[str, list[float]] = {c: [] for c in classes}
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
    stations: tuple[Station, ...],
    population: Mapping[str, int],
    think_times: Mapping[str, float],
    classes: tuple[str, ...],
    *,
    n_requests: int,
    warmup: int,
    seed: int,
) -> SimulationResult:
    """Simulate a closed network's parts.

    See :meth:`perfstats.system.queueing.ClosedNetwork.simulate`.

    ``n_requests``, ``warmup`` and ``seed`` are those :func:`simulation_run` returns.
    """
    n, w = n_requests, warmup
    check_population(population, n, w)
    # node 1 is the users' think station (infinite servers), 2.. the stations
    visits = {c: [k + 2 for k, s in enumerate(stations) if c in s.demands] for c in classes}
    users = {c: p for c, p in population.items() if p > 0}
    # Run long enough for w + n requests at the analytic throughput, plus a margin.
    try:
        rate = sum(
            solve_closed(stations, population, think_times, classes).throughput[c] for c in users
        )
    except ValueError:  # population too large for exact MVA: the asymptotic bound
        rate = sum(
            min(
                users[c] / (think_times[c] + sum(s.demands.get(c, 0.0) for s in stations)),
                min(s.servers / s.demands[c] for s in stations if c in s.demands),
            )
            for c in users
        ) / len(stations)  # classes share stations: the bound is optimistic
    horizon = 1.1 * (w + n) / rate + 10.0 * max(think_times.values(), default=0.0)

    def route_of(cls: str) -> Callable[[Any, Any], _EndlessRoute]:
        return lambda ind, sim: _EndlessRoute([*visits[cls], 1])

    network = ciw.create_network(
        arrival_distributions={
            c: [ciw.dists.Sequential([1e-9] * users[c] + [1e18]) if c in users else None]
            + [None] * len(stations)
            for c in classes
        },
        service_distributions={
            c: [
                _WorkPerUser(think_times[c], seed, 0)
                if think_times[c] > 0
                else ciw.dists.Deterministic(0.0)
            ]
            + [
                _WorkPerUser(s.demands[c], seed, k + 1, s.scv) if c in s.demands else _NEVER
                for k, s in enumerate(stations)
            ]
            for c in classes
        },
        number_of_servers=[float("inf")] * (len(stations) + 1),
        ps_thresholds=[1] + [s.servers for s in stations],
        routing={c: ciw.routing.ProcessBased(route_of(c)) for c in classes},
    )

    def body() -> list[Any]:
        sim = ciw.Simulation(network, node_class=[ciw.Node, *_node_classes(stations)])
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
    per_class: dict[str, list[float]] = {c: [] for c in classes}
    for start, end, cls in window:
        per_class[cls].append(end - start)
    t0, t1 = window[0][0], window[-1][0]
    busy = _busy(records, stations, 2, t0, t1)
    return _result(per_class, busy, stations, t1 - t0, w, seed)
