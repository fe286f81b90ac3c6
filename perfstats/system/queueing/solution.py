"""What solving or simulating a queueing network gives."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from .._frozen import freeze_mappings

__all__ = ["QueueingSolution", "SimulationResult"]


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

    Examples
    --------
    >>> from perfstats.system.queueing import OpenNetwork, Station
    >>> net = OpenNetwork([Station("api", servers=2, demands={"get": 0.01})],
    ...                   arrival_rates={"get": 100.0})
    >>> sol = net.solve()
    >>> sol.method, round(sol.utilization["api"], 3), round(sol.response_time["get"], 5)
    ('open M/M/c (Erlang C)', 0.5, 0.01333)
    """

    utilization: Mapping[str, float]
    response_time: Mapping[str, float]
    throughput: Mapping[str, float]
    residence_time: Mapping[str, Mapping[str, float]]
    method: str

    def __post_init__(self) -> None:
        freeze_mappings(self)

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

    Examples
    --------
    >>> from perfstats.system.queueing import OpenNetwork, Station
    >>> net = OpenNetwork([Station("api", servers=2, demands={"get": 0.01})],
    ...                   arrival_rates={"get": 100.0})
    >>> sim = net.simulate(n_requests=2_000, rng=1)
    >>> sim.n_requests, sorted(sim.response_times), round(sim.utilization["api"], 1)
    (2000, ['get'], 0.5)
    >>> round(sim.cpu_percent["api"], -1)  # two servers, each busy half the time
    100.0
    """

    response_times: Mapping[str, npt.NDArray[np.float64]]
    utilization: Mapping[str, float]
    cpu_percent: Mapping[str, float]
    throughput: Mapping[str, float]
    duration: float
    warmup: int
    seed: int = field(repr=False)

    def __post_init__(self) -> None:
        freeze_mappings(self)

    @property
    def n_requests(self) -> int:
        """Number of recorded requests over all classes."""
        return int(sum(v.size for v in self.response_times.values()))

    @property
    def mean_response_time(self) -> dict[str, float]:
        """Per request class, the mean of the recorded response times."""
        return {c: float(v.mean()) for c, v in self.response_times.items()}

    def all_response_times(self) -> npt.NDArray[np.float64]:
        """Response times of all classes, concatenated in class order.

        Returns
        -------
        numpy.ndarray
            One-dimensional array of :attr:`n_requests` response times in
            seconds: those of each class in order of arrival, the classes in
            the order of :attr:`response_times`.
        """
        return np.concatenate(list(self.response_times.values()))

    def __repr__(self) -> str:
        return (
            f"SimulationResult(n_requests={self.n_requests}, "
            f"mean_response_time={_brief(self.mean_response_time, 4)}, "
            f"utilization={_brief(self.utilization, 3)}, duration={self.duration:.4g})"
        )
