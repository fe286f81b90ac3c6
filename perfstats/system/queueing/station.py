"""A station of a queueing network: a service centre with demands per request class.

A *station* is a service centre (one service, one CPU pool) with ``servers``
identical servers shared by processor sharing and, per request class, a
*service demand*: the total service time a request of that class needs there
(visits x service time, which is what the utilisation law measures), and
optionally a *slowdown* per number of requests present (a load-dependent
station). A zero demand is refused so that a typo cannot silently remove
work.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..._validation import check_int
from .._frozen import read_only

__all__ = ["Station"]


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

    References
    ----------
    F. Baskett, K. M. Chandy, R. R. Muntz and F. G. Palacios, "Open, closed,
    and mixed networks of queues with different classes of customers",
    Journal of the ACM 22(2), 1975.

    E. D. Lazowska, J. Zahorjan, G. S. Graham and K. C. Sevcik, "Quantitative
    System Performance", Prentice-Hall, 1984 (Chapter 8: load-dependent
    service centers).

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
        object.__setattr__(self, "demands", read_only(clean))
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
        """Relative service time of a request while ``n >= 1`` requests are present.

        Parameters
        ----------
        n : int
            Number of requests present at the station, 1 or more.

        Returns
        -------
        float
            Entry ``n - 1`` of :attr:`slowdown`, its last entry when ``n`` is
            beyond it, and 1 for a load-independent station.

        Raises
        ------
        ValueError
            For ``n`` below 1: a request served is itself present.
        """
        if n < 1:
            raise ValueError(f"n must be at least 1 (the request served is present), got {n!r}")
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
            f"Station({self.name!r}, servers={self.servers}, demands={dict(self.demands)!r}{extra})"
        )
