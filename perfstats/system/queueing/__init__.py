"""Multi-class queueing networks: the architectural model of a system.

The model of Liao et al.'s Section III-D: a station per service (subsystem)
with a service demand per request class, solved analytically
(:meth:`OpenNetwork.solve`, :meth:`ClosedNetwork.solve`) or simulated with
``ciw`` (``.simulate``), which gives per-request response times for the
statistical comparison of two versions. A station may be load-dependent
(``Station(slowdown=...)``): its requests take longer the more it serves at
once, as threads that take turns on a core do.

Examples
--------
>>> from perfstats.system.queueing import OpenNetwork, Station
>>> net = OpenNetwork(
...     [Station("gateway", demands={"browse": 0.002, "buy": 0.003}),
...      Station("catalogue", servers=2, demands={"browse": 0.010})],
...     arrival_rates={"browse": 40.0, "buy": 10.0},
... )
>>> sol = net.solve()
>>> round(sol.utilization["catalogue"], 3)
0.2
>>> sim = net.simulate(n_requests=2_000, rng=1)
>>> sorted(sim.response_times)
['browse', 'buy']
"""

from __future__ import annotations

from .analytic import erlang_c
from .network import ClosedNetwork, OpenNetwork
from .solution import QueueingSolution, SimulationResult
from .station import Station

__all__ = [
    "ClosedNetwork",
    "OpenNetwork",
    "QueueingSolution",
    "SimulationResult",
    "Station",
    "erlang_c",
]
