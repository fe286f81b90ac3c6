"""Stations and multi-class open and closed queueing networks.

A *station* is a service centre (one service, one CPU pool) with ``servers``
identical servers shared by processor sharing and, per request class, a
*service demand*: the total service time a request of that class needs there
(visits x service time, which is what the utilisation law measures), and
optionally a *slowdown* per number of requests present (a load-dependent
station). A request of a class visits,
once and in the order the stations are given, every station where it has a
demand; a class without work at a station simply has no demand there (a zero
demand is refused so that a typo cannot silently remove work).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np
import numpy.typing as npt

from ..._validation import check_int

# Enough requests for a root-mean-square relative error of the simulated mean
# response time below 1% on the M/M/1 queue at 50% utilisation (lambda 1,
# mu 2; processor sharing), chosen from ``python -m benchmarks.queueing_precision
# --reps 24`` in benchmarks/results/queueing_precision.json. Sojourn times
# are autocorrelated, so the error shrinks only as 1 / sqrt(n).
DEFAULT_REQUESTS = 100_000


def _name(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"{what} must be a non-empty string, got {value!r}")
    return value


def _positive(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{what} must be a positive number, got {value!r}")
    out = float(value)
    if not (math.isfinite(out) and out > 0.0):
        raise ValueError(f"{what} must be a positive finite number, got {out!r}")
    return out


def _frozen(mapping: Mapping[str, float]) -> Mapping[str, float]:
    return MappingProxyType(dict(mapping))


def _slowdown(value: Any, station: str) -> tuple[float, ...] | None:
    """A station's slowdown per requests present: a non-empty tuple of positive numbers."""
    if value is None:
        return None
    what = f"slowdown of station {station!r}"
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise ValueError(
            f"{what} must be a sequence of relative service times for 1, 2, ... requests "
            f"present, got {value!r}"
        )
    out = tuple(_positive(g, f"{what} with {i + 1} request(s) present") for i, g in
                enumerate(value))  # fmt: skip
    if not out:
        raise ValueError(f"{what} is empty; give at least the value for one request present")
    return out


@dataclass(frozen=True, init=False)
class Station:
    """A service centre of a queueing network.

    Parameters
    ----------
    name : str
        Unique name, e.g. the service (subsystem) it models.
    servers : int
        Number of identical servers (CPU cores, worker processes).
    demands : mapping of str to float
        Service demand in seconds per request, per request class.
    scv : float
        Squared coefficient of variation (variance / mean**2) of a request's
        service time here, the same for every class: 1 (the default) for
        exponential service times, 0 for constant ones, in between for a
        Gamma distribution with that variability. Only the simulation uses
        it: a processor-sharing station's mean response time does not depend
        on the service-time distribution beyond its mean (an insensitivity
        of processor sharing, Baskett et al. 1975), so :meth:`OpenNetwork.solve`
        and :meth:`ClosedNetwork.solve` stay exact, while the spread of the
        simulated response times, and so Cliff's delta between two versions,
        follows the station's real variability.
    slowdown : sequence of float, optional
        A load-dependent station: entry ``n - 1`` is the relative service
        time of a request while ``n`` requests are present (1 for none
        slower), the last entry holding for any larger number. With ``n``
        present each request then progresses at ``min(1, servers / n) /
        slowdown(n)`` of a server. This is what a service shows whose work
        per request grows with the requests it serves at once (threads that
        take turns on a core and refill its caches, lock contention). The
        demands stay those of a request served alone. ``None`` (the
        default): every request takes its demand whatever the load.

    Notes
    -----
    A load-dependent processor-sharing station keeps the network in product
    form (Baskett et al. 1975): the number of requests present follows a
    birth-death process, solved exactly by :meth:`OpenNetwork.solve`
    (stable while the offered load per server times the last slowdown is
    below 1, see :meth:`OpenNetwork.stability_load`) and by load-dependent
    mean value analysis in :meth:`ClosedNetwork.solve`. A station's
    utilisation is then the share of time its servers are busy, which the
    slowdown raises above the offered load.

    Examples
    --------
    >>> from perfstats.system.queueing import Station
    >>> Station("catalogue", servers=2, demands={"browse": 0.004, "buy": 0.010})
    Station('catalogue', servers=2, demands={'browse': 0.004, 'buy': 0.01})
    >>> Station("pricing", demands={"buy": 0.008}, scv=0.1)
    Station('pricing', servers=1, demands={'buy': 0.008}, scv=0.1)
    >>> st = Station("pricing", demands={"buy": 0.008}, slowdown=[1.0, 1.05, 1.1])
    >>> st.slowdown_at(2), st.slowdown_at(50)
    (1.05, 1.1)

    References
    ----------
    F. Baskett, K. M. Chandy, R. R. Muntz and F. G. Palacios, "Open, closed,
    and mixed networks of queues with different classes of customers",
    Journal of the ACM 22(2), 1975.

    E. D. Lazowska, J. Zahorjan, G. S. Graham and K. C. Sevcik, "Quantitative
    System Performance", Prentice-Hall, 1984 (Chapter 8: load-dependent
    service centers).
    """

    name: str
    servers: int
    demands: Mapping[str, float]
    scv: float = 1.0
    slowdown: tuple[float, ...] | None = None

    def __init__(
        self,
        name: str,
        *,
        servers: int = 1,
        demands: Mapping[str, float],
        scv: float = 1.0,
        slowdown: Iterable[float] | None = None,
    ) -> None:
        station = _name(name, "station name")
        object.__setattr__(self, "name", station)
        object.__setattr__(self, "servers", check_int(servers, f"servers of station {station!r}"))
        if not isinstance(demands, Mapping) or not demands:
            raise ValueError(
                f"demands of station {station!r} must be a non-empty mapping "
                f"{{request_class: seconds}}, got {demands!r}"
            )
        clean = {
            _name(c, f"request class at station {station!r}"): _positive(
                d, f"demand of class {c!r} at station {station!r}"
            )
            for c, d in demands.items()
        }
        object.__setattr__(self, "demands", _frozen(clean))
        if isinstance(scv, bool) or not isinstance(scv, numbers.Real):
            raise ValueError(f"scv of station {station!r} must be a number >= 0, got {scv!r}")
        if not (math.isfinite(float(scv)) and float(scv) >= 0.0):
            raise ValueError(
                f"scv of station {station!r} must be a finite number >= 0 "
                f"(0: constant service times, 1: exponential), got {scv!r}"
            )
        object.__setattr__(self, "scv", float(scv))
        object.__setattr__(self, "slowdown", _slowdown(slowdown, station))

    def slowdown_at(self, n: int) -> float:
        """Relative service time of a request while ``n >= 1`` requests are present."""
        if self.slowdown is None:
            return 1.0
        return self.slowdown[min(n, len(self.slowdown)) - 1]

    @property
    def last_slowdown(self) -> float:
        """The slowdown with many requests present (1 for a load-independent station)."""
        return 1.0 if self.slowdown is None else self.slowdown[-1]

    @property
    def load_dependent(self) -> bool:
        """Whether a request's service time depends on the requests present."""
        return self.slowdown is not None

    def __repr__(self) -> str:
        extra = "" if self.scv == 1.0 else f", scv={self.scv:g}"
        if self.slowdown is not None:
            extra += ", slowdown=(" + ", ".join(f"{g:g}" for g in self.slowdown) + ")"
        return (
            f"Station({self.name!r}, servers={self.servers}, "
            f"demands={dict(self.demands)!r}{extra})"
        )


def _brief(values: Mapping[str, float], digits: int) -> str:
    """``{a=0.5, b=1.25}``: a mapping of figures, short, for a result's repr."""
    return "{" + ", ".join(f"{k}={v:.{digits}g}" for k, v in values.items()) + "}"


@dataclass(frozen=True)
class QueueingSolution:
    """Analytic solution of a queueing network (means, steady state).

    Parameters
    ----------
    utilization : mapping of str to float
        Per station, the busy fraction of one server (0 to 1).
    response_time : mapping of str to float
        Per request class, mean seconds from arrival to completion
        (think time excluded).
    throughput : mapping of str to float
        Per request class, completed requests per second.
    residence_time : mapping of str to mapping of str to float
        Per request class and station, mean seconds spent there (waiting
        plus service).
    method : str
        How it was computed.
    """

    utilization: Mapping[str, float]
    response_time: Mapping[str, float]
    throughput: Mapping[str, float]
    residence_time: Mapping[str, Mapping[str, float]]
    method: str

    def __repr__(self) -> str:
        return (
            f"QueueingSolution(method={self.method!r}, "
            f"utilization={_brief(self.utilization, 3)}, "
            f"response_time={_brief(self.response_time, 4)}, "
            f"throughput={_brief(self.throughput, 4)})"
        )


@dataclass(frozen=True)
class SimulationResult:
    """A discrete-event simulation run of a queueing network.

    Parameters
    ----------
    response_times : mapping of str to ndarray
        Per request class, the response time of every recorded request
        (seconds, in order of arrival, warm-up excluded).
    utilization : mapping of str to float
        Per station, the busy fraction of one server over the recorded
        interval (0 to 1).
    cpu_percent : mapping of str to float
        Per station, busy time over elapsed time in percent, summed over
        servers (100 per fully busy server, as ``top`` and ``podman stats``
        count CPU).
    throughput : mapping of str to float
        Per request class, recorded requests per second.
    duration : float
        Length of the recorded interval in simulated seconds.
    warmup : int
        Requests discarded at the start (the network starts empty).
    seed : int
        Seed of the simulation's random stream (reproduces the run).
    """

    response_times: Mapping[str, npt.NDArray[np.float64]]
    utilization: Mapping[str, float]
    cpu_percent: Mapping[str, float]
    throughput: Mapping[str, float]
    duration: float
    warmup: int
    seed: int = field(repr=False)

    @property
    def n_requests(self) -> int:
        """Number of recorded requests over all classes."""
        return int(sum(v.size for v in self.response_times.values()))

    @property
    def mean_response_time(self) -> dict[str, float]:
        """Per request class, the mean of the recorded response times."""
        return {c: float(v.mean()) for c, v in self.response_times.items()}

    def all_response_times(self) -> npt.NDArray[np.float64]:
        """Response times of all classes, concatenated in class order."""
        return np.concatenate(list(self.response_times.values()))

    def __repr__(self) -> str:
        return (
            f"SimulationResult(n_requests={self.n_requests}, "
            f"mean_response_time={_brief(self.mean_response_time, 4)}, "
            f"utilization={_brief(self.utilization, 3)}, duration={self.duration:.4g})"
        )


def _stations(stations: Any) -> tuple[Station, ...]:
    if isinstance(stations, Station):
        stations = [stations]
    if isinstance(stations, (str, bytes, Mapping)) or not isinstance(stations, Iterable):
        raise ValueError(f"stations must be a sequence of Station, got {stations!r}")
    out = tuple(stations)
    if not out:
        raise ValueError("stations is empty; a network needs at least one Station")
    seen: set[str] = set()
    for s in out:
        if not isinstance(s, Station):
            raise ValueError(f"stations must contain Station objects, got {s!r}")
        if s.name in seen:
            raise ValueError(f"station names must be unique; {s.name!r} appears twice")
        seen.add(s.name)
    return out


def _classes_of(stations: tuple[Station, ...]) -> list[str]:
    out: list[str] = []
    for s in stations:
        out.extend(c for c in s.demands if c not in out)
    return out


def _check_classes(given: Any, stations: tuple[Station, ...], what: str, values: str) -> None:
    """``given`` maps exactly the classes the stations serve to ``values`` (named in errors)."""
    if not isinstance(given, Mapping) or not given:
        raise ValueError(
            f"{what} must be a non-empty mapping {{request_class: {values}}}, got {given!r}"
        )
    served = _classes_of(stations)
    unknown = [c for c in given if c not in served]
    if unknown:
        raise ValueError(
            f"{what} names request class(es) {unknown} that no station serves; "
            f"the stations have demands for {served}"
        )
    missing = [c for c in served if c not in given]
    if missing:
        raise ValueError(f"{what} has no entry for request class(es) {missing}")


def _factors(
    factors: Mapping[str, Any], stations: tuple[Station, ...], classes: list[str]
) -> dict[str, dict[str, float]]:
    """``{station: f}`` or ``{class: {station: f}}`` as ``{class: {station: f}}``."""
    if not isinstance(factors, Mapping):
        raise ValueError(
            f"demand_factors must be a mapping {{station: factor}} or "
            f"{{request_class: {{station: factor}}}}, got {factors!r}"
        )
    names = [s.name for s in stations]
    per_class: dict[str, Mapping[str, Any]]
    if factors and all(isinstance(v, Mapping) for v in factors.values()):
        unknown_classes = [c for c in factors if c not in classes]
        if unknown_classes:
            raise ValueError(
                f"demand_factors names unknown request class(es) {unknown_classes}; "
                f"the model's classes are {classes}"
            )
        per_class = {c: factors.get(c, {}) for c in classes}
    else:
        per_class = {c: factors for c in classes}
    out: dict[str, dict[str, float]] = {}
    for c, fs in per_class.items():
        unknown = [k for k in fs if k not in names]
        if unknown:
            raise ValueError(
                f"demand_factors names unknown station(s) {unknown}; the model's stations are "
                f"{names}"
            )
        out[c] = {k: _positive(v, f"demand factor of station {k!r}") for k, v in fs.items()}
    return out


def _scaled_stations(
    stations: tuple[Station, ...], factors: dict[str, dict[str, float]]
) -> tuple[Station, ...]:
    return tuple(
        Station(
            s.name,
            servers=s.servers,
            demands={c: d * factors.get(c, {}).get(s.name, 1.0) for c, d in s.demands.items()},
            scv=s.scv,
            slowdown=s.slowdown,
        )
        for s in stations
    )


class _Network:
    """What open and closed networks share: a simulation run the same way."""

    stations: tuple[Station, ...]
    classes: tuple[str, ...]

    @staticmethod
    def _simulator() -> Callable[..., SimulationResult]:
        """The simulation function of the network's kind (imported late: ``ciw`` is slow)."""
        raise NotImplementedError

    def simulate(
        self,
        *,
        n_requests: int = DEFAULT_REQUESTS,
        warmup: int | None = None,
        rng: Any = None,
    ) -> SimulationResult:
        """Discrete-event simulation with ``ciw``.

        Parameters
        ----------
        n_requests : int
            Requests recorded, over all classes (default 100,000: a
            root-mean-square error of the mean response time below 1% at
            50% utilisation on M/M/1).
        warmup : int, optional
            Requests discarded first; default ``n_requests // 10``.
        rng : None, int or numpy.random.Generator
            Seeds the run; the same seed gives the same samples.
        """
        return self._simulator()(self, n_requests=n_requests, warmup=warmup, rng=rng)


class OpenNetwork(_Network):
    """A multi-class open queueing network with Poisson arrivals.

    Parameters
    ----------
    stations : sequence of Station
        The service centres; a request visits those where its class has a
        demand, in this order.
    arrival_rates : mapping of str to float
        Requests per second, per request class.

    Raises
    ------
    ValueError
        For unknown or missing request classes, non-positive rates, or an
        unstable model (a station's utilisation at or above 1).

    Notes
    -----
    Every station serves by processor sharing over its ``servers``: with
    ``n`` requests present each progresses at ``min(1, servers / n)`` of a
    server, as threads share CPU cores. Service times are exponential with
    mean = demand. The number of requests at a station then follows the
    M/M/c birth-death process, so ``solve`` uses Erlang C: the residence
    time of class ``r`` at a station is ``D_r (1 + C(c, a) / (c (1 - rho)))``.
    A load-dependent station (``Station(slowdown=...)``) follows its own
    birth-death process, summed exactly (geometric past its last slowdown
    entry); class ``r`` resides ``D_r E[N] / a`` there. The network is
    product-form (BCMP) for any mix of classes and demands, so the analytic
    solution is exact for the simulated model; for one class it is also the
    mean of the first-come-first-served M/M/c queue.

    References
    ----------
    L. Kleinrock, "Queueing Systems, Volume 1: Theory", Wiley, 1975.

    E. D. Lazowska, J. Zahorjan, G. S. Graham and K. C. Sevcik, "Quantitative
    System Performance", Prentice-Hall, 1984.

    Examples
    --------
    >>> from perfstats.system.queueing import OpenNetwork, Station
    >>> net = OpenNetwork([Station("cpu", demands={"web": 0.5})], arrival_rates={"web": 1.0})
    >>> sol = net.solve()
    >>> sol.utilization["cpu"], sol.response_time["web"]
    (0.5, 1.0)
    """

    def __init__(self, stations: Iterable[Station], *, arrival_rates: Mapping[str, float]) -> None:
        self._setup(stations, arrival_rates)
        self._stable_only = True
        self.check_stability()

    def _setup(self, stations: Iterable[Station], arrival_rates: Mapping[str, float]) -> None:
        self.stations = _stations(stations)
        _check_classes(arrival_rates, self.stations, "arrival_rates", "per second")
        self.arrival_rates: Mapping[str, float] = _frozen(
            {c: _positive(r, f"arrival rate of class {c!r}") for c, r in arrival_rates.items()}
        )
        self.classes: tuple[str, ...] = tuple(_classes_of(self.stations))

    def offered_load(self) -> dict[str, float]:
        """Per station, the work offered to one server: ``sum(rate x demand) / servers``.

        It is the utilisation of a load-independent station; a load-dependent
        one is busier (see :meth:`stability_load`).
        """
        return {
            s.name: sum(self.arrival_rates[c] * d for c, d in s.demands.items()) / s.servers
            for s in self.stations
        }

    def stability_load(self) -> dict[str, float]:
        """Per station, what must stay below 1: the offered load times the last slowdown.

        A load-dependent station serves at its last slowdown once many
        requests are present; it keeps up only if the offered load, slowed
        that much, stays below its capacity. For a load-independent station
        it is the offered load (the utilisation).
        """
        return {
            s.name: u * s.last_slowdown
            for s, u in zip(self.stations, self.offered_load().values(), strict=True)
        }

    def check_stability(self) -> None:
        """Raise ValueError naming every station whose (slowed) utilisation is >= 1."""
        bad = [
            (s, u) for s, u in zip(self.stations, self.stability_load().values(), strict=True)
            if u >= 1.0
        ]  # fmt: skip
        if bad:
            parts = "; ".join(
                f"station {s.name!r} has utilisation {u:.4g} ({(u - 1.0) * 100:.3g}% over capacity"
                + (
                    f", with its slowdown of {s.last_slowdown:g} under load)"
                    if s.load_dependent else ")"
                )
                for s, u in bad
            )
            raise ValueError(f"the model is unstable: {parts}; it needs utilisation < 1")

    def with_demand_factors(self, demand_factors: Mapping[str, Any]) -> OpenNetwork:
        """The same network with demands multiplied by ``demand_factors``.

        ``demand_factors`` is ``{station: factor}`` (every class) or
        ``{request_class: {station: factor}}``; stations not named keep
        their demand.
        """
        factors = _factors(demand_factors, self.stations, list(self.classes))
        return OpenNetwork(
            _scaled_stations(self.stations, factors), arrival_rates=self.arrival_rates
        )

    def _unchecked_with_demand_factors(self, demand_factors: Mapping[str, Any]) -> OpenNetwork:
        """As :meth:`with_demand_factors`, but an unstable result is allowed (and simulable)."""
        factors = _factors(demand_factors, self.stations, list(self.classes))
        net = OpenNetwork.__new__(OpenNetwork)
        net._setup(_scaled_stations(self.stations, factors), self.arrival_rates)
        net._stable_only = False
        return net

    def solve(self) -> QueueingSolution:
        """Analytic steady-state solution (M/M/c with Erlang C per station).

        A load-dependent station is solved as its birth-death process.
        """
        from .analytic import solve_open

        self.check_stability()  # also for networks built without the check
        return solve_open(self)

    @staticmethod
    def _simulator() -> Callable[..., SimulationResult]:
        from .simulation import simulate_open

        return simulate_open

    def __repr__(self) -> str:
        return f"OpenNetwork({list(self.stations)!r}, arrival_rates={dict(self.arrival_rates)!r})"


class ClosedNetwork(_Network):
    """A multi-class closed queueing network: a fixed population of users.

    Each of the ``population[c]`` users of class ``c`` thinks for an
    exponential time with mean ``think_times[c]``, then issues a request that
    visits the stations, then thinks again.

    Parameters
    ----------
    stations : sequence of Station
        The service centres.
    population : mapping of str to int
        Number of users per request class.
    think_times : mapping of str to float, optional
        Mean think time per class in seconds (default 0 for every class).

    Notes
    -----
    Stations serve by processor sharing as in :class:`OpenNetwork`, so the
    network is product-form and ``solve`` is exact mean value analysis
    (Reiser and Lavenberg); stations with several servers are load-dependent
    (rate ``min(n, servers)``, divided by the slowdown of a
    ``Station(slowdown=...)``) and handled exactly with their marginal
    queue-length probabilities. The cost grows with the product of
    ``population[c] + 1`` over classes.

    References
    ----------
    M. Reiser and S. S. Lavenberg, "Mean-Value Analysis of Closed Multichain
    Queuing Networks", Journal of the ACM 27(2), 1980.

    Examples
    --------
    >>> from perfstats.system.queueing import ClosedNetwork, Station
    >>> net = ClosedNetwork([Station("cpu", demands={"u": 1.0})], population={"u": 1},
    ...                     think_times={"u": 1.0})
    >>> net.solve().throughput["u"]
    0.5
    """

    def __init__(
        self,
        stations: Iterable[Station],
        *,
        population: Mapping[str, int],
        think_times: Mapping[str, float] | None = None,
    ) -> None:
        self.stations = _stations(stations)
        _check_classes(population, self.stations, "population", "users")
        self.population: Mapping[str, int] = MappingProxyType(
            {
                c: check_int(n, f"population of class {c!r}", minimum=0)
                for c, n in population.items()
            }
        )
        if sum(self.population.values()) == 0:
            raise ValueError("population is 0 for every class; a closed network needs users")
        think = {} if think_times is None else think_times
        if not isinstance(think, Mapping):
            raise ValueError(
                f"think_times must be a mapping {{request_class: seconds}}, got {think!r}"
            )
        unknown = [c for c in think if c not in self.population]
        if unknown:
            raise ValueError(f"think_times names unknown request class(es) {unknown}")
        clean: dict[str, float] = {}
        for c in self.population:
            z = think.get(c, 0.0)
            if (
                isinstance(z, bool)
                or not isinstance(z, numbers.Real)
                or not (math.isfinite(float(z)) and float(z) >= 0.0)
            ):
                raise ValueError(f"think time of class {c!r} must be a number >= 0, got {z!r}")
            clean[c] = float(z)
        self.think_times: Mapping[str, float] = _frozen(clean)
        self.classes: tuple[str, ...] = tuple(_classes_of(self.stations))

    def with_demand_factors(self, demand_factors: Mapping[str, Any]) -> ClosedNetwork:
        """The same network with demands multiplied by ``demand_factors``."""
        factors = _factors(demand_factors, self.stations, list(self.classes))
        return ClosedNetwork(
            _scaled_stations(self.stations, factors),
            population=self.population,
            think_times=self.think_times,
        )

    # a closed network is stable whatever its demands
    _unchecked_with_demand_factors = with_demand_factors

    def solve(self) -> QueueingSolution:
        """Exact multi-class mean value analysis."""
        from .analytic import solve_closed

        return solve_closed(self)

    @staticmethod
    def _simulator() -> Callable[..., SimulationResult]:
        from .simulation import simulate_closed

        return simulate_closed

    def __repr__(self) -> str:
        return (
            f"ClosedNetwork({list(self.stations)!r}, population={dict(self.population)!r}, "
            f"think_times={dict(self.think_times)!r})"
        )
