"""Multi-class open and closed queueing networks of stations.

A request of a class visits, once and in the order the stations are given,
every :class:`~perfstats.system.queueing.station.Station` where it has a
demand; a class without work at a station simply has no demand there.

The networks hold and validate the model; they solve it through
:mod:`~perfstats.system.queueing.analytic` and simulate it through
:mod:`~perfstats.system.queueing.simulation`, which read the model's parts
and never the network classes (so the modules import in one direction).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from typing import Any

from ..._validation import check_int
from .._frozen import read_only
from .analytic import solve_closed, solve_open
from .solution import QueueingSolution, SimulationResult
from .station import Station, _positive

# Enough requests for a root-mean-square relative error of the simulated mean
# response time below 1% on the M/M/1 queue at 50% utilisation (lambda 1,
# mu 2; processor sharing), chosen from ``python -m benchmarks.queueing_precision
# --reps 24`` in benchmarks/results/queueing_precision.json. Sojourn times
# are autocorrelated, so the error shrinks only as 1 / sqrt(n).
DEFAULT_REQUESTS = 100_000


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

    def simulate(
        self,
        *,
        n_requests: int = DEFAULT_REQUESTS,
        warmup: int | None = None,
        rng: Any = None,
    ) -> SimulationResult:
        """Discrete-event simulation with ``ciw``.

        The run starts with no request at the stations: an open network
        empty, a closed network with every user starting to think.

        Parameters
        ----------
        n_requests : int
            Requests recorded, over all classes, at least 10 (default
            100,000: a root-mean-square error of the mean response time
            below 1% at 50% utilisation on M/M/1).
        warmup : int, optional
            Requests discarded first, while the network fills; default
            ``n_requests // 10``.
        rng : None, int or numpy.random.Generator
            Seeds the run; the same seed gives the same samples. None draws
            a fresh seed.

        Returns
        -------
        SimulationResult
            The response time of every recorded request per class (seconds),
            the utilisation and CPU percent of each station and the
            throughput of each class over the recorded interval, and the
            seed drawn.

        Raises
        ------
        ValueError
            For an ``n_requests`` that is not an integer from 10 to
            :data:`~perfstats.system.queueing.simulation.MAX_REQUESTS`, a
            ``warmup`` that is not an integer >= 0, or an invalid ``rng``.
            An open network refuses an unstable model, unless it was made by
            ``with_demand_factors(..., allow_unstable=True)``. A closed
            network refuses more users than
            :data:`~perfstats.system.queueing.simulation.MAX_SIMULATED_USERS`,
            or users times requests (recorded and warm-up) beyond
            :data:`~perfstats.system.queueing.simulation.MAX_USER_REQUESTS`.
        """
        # imported on first use: ciw is slow to import
        from .simulation import simulation_run

        n, w, seed = simulation_run(n_requests, warmup, rng)
        return self._simulated(n, w, seed)

    def _simulated(self, n_requests: int, warmup: int, seed: int) -> SimulationResult:
        """The simulation of the network's kind, for validated arguments."""
        raise NotImplementedError


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
        self.arrival_rates: Mapping[str, float] = read_only(
            {c: _positive(r, f"arrival rate of class {c!r}") for c, r in arrival_rates.items()}
        )
        self.classes: tuple[str, ...] = tuple(_classes_of(self.stations))

    def offered_load(self) -> dict[str, float]:
        """Per station, the work offered to one server: ``sum(rate x demand) / servers``.

        It is the utilisation of a load-independent station; a load-dependent
        one is busier (see :meth:`stability_load`).

        Returns
        -------
        dict of str to float
            Station name to offered load per server: requests per second
            times seconds of demand per request, summed over the classes
            (a fraction of one server's time, 1 for a fully busy server).
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

        Returns
        -------
        dict of str to float
            Station name to its offered load per server times its
            :attr:`~perfstats.system.queueing.Station.last_slowdown`; the
            network is stable while every value is below 1.
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

    def with_demand_factors(
        self, demand_factors: Mapping[str, Any], *, allow_unstable: bool = False
    ) -> OpenNetwork:
        """The same network with demands multiplied by ``demand_factors``.

        Parameters
        ----------
        demand_factors : mapping
            ``{station: factor}`` (every class) or ``{request_class:
            {station: factor}}``; stations not named keep their demand.
        allow_unstable : bool, default False
            Return the changed network even when a station's utilisation
            reaches 1. It can then be simulated (its queues grow with the
            length of the run) but not solved.

        Returns
        -------
        OpenNetwork
            A new network; this one is unchanged.

        Raises
        ------
        ValueError
            For unknown stations or classes, non-positive factors, or an
            unstable result without ``allow_unstable``.

        Examples
        --------
        >>> from perfstats.system.queueing import OpenNetwork, Station
        >>> net = OpenNetwork([Station("cpu", demands={"web": 0.5})], arrival_rates={"web": 1.0})
        >>> net.with_demand_factors({"cpu": 1.2}).solve().utilization["cpu"]
        0.6
        >>> net.with_demand_factors({"cpu": 3.0}, allow_unstable=True).stability_load()
        {'cpu': 1.5}
        """
        factors = _factors(demand_factors, self.stations, list(self.classes))
        stations = _scaled_stations(self.stations, factors)
        if not allow_unstable:
            return OpenNetwork(stations, arrival_rates=self.arrival_rates)
        net = OpenNetwork.__new__(OpenNetwork)
        net._setup(stations, self.arrival_rates)
        net._stable_only = False
        return net

    def solve(self) -> QueueingSolution:
        """Analytic steady-state solution (M/M/c with Erlang C per station).

        A load-dependent station is solved as its birth-death process.

        Returns
        -------
        QueueingSolution
            Mean values: the utilisation of each station, and per class the
            response time and the residence time at each station (seconds)
            and the throughput (the arrival rate, requests per second).

        Raises
        ------
        ValueError
            If the network is unstable (made by
            ``with_demand_factors(..., allow_unstable=True)``), or a station
            has more than
            :data:`~perfstats.system.queueing.analytic.MAX_SERVERS` servers.
        """
        self.check_stability()  # also for networks built without the check
        return solve_open(self.stations, self.arrival_rates, self.classes)

    def _simulated(self, n_requests: int, warmup: int, seed: int) -> SimulationResult:
        from .simulation import simulate_open

        if self._stable_only:
            self.check_stability()
        return simulate_open(
            self.stations, self.arrival_rates, self.classes,
            n_requests=n_requests, warmup=warmup, seed=seed,
        )  # fmt: skip

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
    ``population[c] + 1`` over classes; ``solve`` refuses more than
    :data:`~perfstats.system.queueing.analytic.MAX_MVA_VECTORS` (ten
    million) such population vectors. ``simulate`` refuses more than
    :data:`~perfstats.system.queueing.simulation.MAX_SIMULATED_USERS` users,
    and more than
    :data:`~perfstats.system.queueing.simulation.MAX_USER_REQUESTS` users
    times requests (recorded and warm-up), naming the limit.

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
        self.population: Mapping[str, int] = read_only(
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
        self.think_times: Mapping[str, float] = read_only(clean)
        self.classes: tuple[str, ...] = tuple(_classes_of(self.stations))

    def with_demand_factors(
        self, demand_factors: Mapping[str, Any], *, allow_unstable: bool = False
    ) -> ClosedNetwork:
        """The same network with demands multiplied by ``demand_factors``.

        Parameters
        ----------
        demand_factors : mapping
            As for :meth:`OpenNetwork.with_demand_factors`.
        allow_unstable : bool, default False
            Changes nothing here, since a closed network is stable whatever
            its demands; accepted so that both networks take the same
            arguments.

        Returns
        -------
        ClosedNetwork
            A new network with the same population and think times; this one
            is unchanged.

        Raises
        ------
        ValueError
            For unknown stations or classes, or non-positive factors.

        Examples
        --------
        >>> from perfstats.system.queueing import ClosedNetwork, Station
        >>> net = ClosedNetwork([Station("cpu", demands={"u": 1.0})], population={"u": 1},
        ...                     think_times={"u": 1.0})
        >>> net.with_demand_factors({"cpu": 3.0}).solve().throughput["u"]
        0.25
        """
        factors = _factors(demand_factors, self.stations, list(self.classes))
        return ClosedNetwork(
            _scaled_stations(self.stations, factors),
            population=self.population,
            think_times=self.think_times,
        )

    def solve(self) -> QueueingSolution:
        """Exact multi-class mean value analysis.

        Returns
        -------
        QueueingSolution
            Mean values: the utilisation of each station, and per class the
            response time (think time excluded) and the residence time at
            each station (seconds) and the throughput (requests per second).

        Raises
        ------
        ValueError
            If the population is too large for exact mean value analysis:
            more than :data:`~perfstats.system.queueing.analytic.MAX_MVA_VECTORS`
            population vectors, or, with multi-server or load-dependent
            stations, too many queue-length probabilities to keep.
        """
        return solve_closed(self.stations, self.population, self.think_times, self.classes)

    def _simulated(self, n_requests: int, warmup: int, seed: int) -> SimulationResult:
        from .simulation import simulate_closed

        return simulate_closed(
            self.stations, self.population, self.think_times, self.classes,
            n_requests=n_requests, warmup=warmup, seed=seed,
        )  # fmt: skip

    def __repr__(self) -> str:
        return (
            f"ClosedNetwork({list(self.stations)!r}, population={dict(self.population)!r}, "
            f"think_times={dict(self.think_times)!r})"
        )
