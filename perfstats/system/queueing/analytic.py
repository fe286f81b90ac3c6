"""Analytic solutions: Erlang C for open networks, exact MVA for closed ones."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from ..._validation import check_int
from .solution import QueueingSolution
from .station import Station, _positive

__all__ = [
    "MAX_MVA_VECTORS",
    "MAX_SERVERS",
    "birth_death",
    "erlang_c",
    "solve_closed",
    "solve_open",
]

#: Most servers :func:`erlang_c` accepts: far beyond any station; up to it
#: the closed form keeps at least nine significant digits.
MAX_SERVERS = 10**12
# Up to this many servers the Erlang B recursion (one step per server, the
# rounding of a few operations each) is used; above it, the closed form.
_RECURSION_SERVERS = 1024
#: Most population vectors exact MVA visits (the product of ``population + 1``
#: over the classes): one pass of Python per vector, so beyond this a solution
#: would take hours, and the arrays of its state would not fit in memory.
MAX_MVA_VECTORS = 10**7

# Exact MVA with multi-server stations keeps one queue-length distribution per
# population vector; beyond this many numbers it is refused rather than
# silently exhausting memory.
_MVA_MAX_CELLS = 50_000_000


def erlang_c(servers: int, offered_load: float) -> float:
    """Probability that an arrival waits in an M/M/c queue (Erlang C).

    Parameters
    ----------
    servers : int
        Number of servers ``c``.
    offered_load : float
        ``a = lambda / mu`` in Erlangs; needs ``a < c``.

    Returns
    -------
    float
        The probability ``C(c, a)`` that an arrival finds all ``c`` servers
        busy and has to wait, in [0, 1).

    Raises
    ------
    ValueError
        For ``a >= c`` or more than :data:`MAX_SERVERS` servers.

    Notes
    -----
    ``C = B / (1 - (a / c) (1 - B))`` with ``B`` the Erlang B probability.
    Up to 1024 servers ``B`` comes from the recursion ``B(n) = a B(n-1) /
    (n + a B(n-1))`` (stable, exact to a few units in the last place);
    above, from its closed form ``B = P(c; a) / F(c; a)`` with ``P`` and
    ``F`` the Poisson probability and distribution function, in logarithms
    through the regularised upper incomplete gamma function ``F(c; a) =
    Q(c + 1, a)`` (``scipy.special.gammaincc``) and Loader's saddle-point
    form of ``P``, in constant time and to nine significant digits or
    better. Servers are bounded by
    :data:`MAX_SERVERS` (``10**12``).

    References
    ----------
    L. Kleinrock, "Queueing Systems, Volume 1: Theory", Wiley, 1975,
    Section 3.5.

    Examples
    --------
    >>> from perfstats.system.queueing import erlang_c
    >>> round(erlang_c(1, 0.5), 12)
    0.5
    >>> round(erlang_c(2, 1.0), 6)
    0.333333
    """
    c = check_int(servers, "servers", maximum=MAX_SERVERS)
    a = _positive(offered_load, "offered_load")
    if a >= c:
        raise ValueError(
            f"offered_load {a!r} must be below servers {c} for a stable queue "
            f"(utilisation {a / c:.4g})"
        )
    if c <= _RECURSION_SERVERS:
        b = 1.0
        for n in range(1, c + 1):
            b = a * b / (n + a * b)
    else:
        from scipy.special import gammaincc

        # With a < c the distribution function is at least about one half,
        # so its logarithm is finite; the probability may underflow to 0,
        # and so may B, correctly.
        b = math.exp(_log_poisson_at(c, a) - math.log(float(gammaincc(c + 1, a))))
    return b / (1.0 - (a / c) * (1.0 - b))


def _log_poisson_at(c: int, a: float) -> float:
    """``log(a**c exp(-a) / c!)`` for ``c > 1024``, without cancellation.

    Loader's saddle-point form ``-stirlerr(c) - bd0(c, a) - log(2 pi c) / 2``:
    ``c log a - lgamma(c + 1)`` would lose the digits of a difference of
    numbers near ``c log c`` (a relative error near ``1e-3`` at ``10**12``
    servers). ``bd0 = c (x - log1p(x))`` with ``x = (a - c) / c``, summed
    as a series for small ``x``; ``stirlerr`` is Stirling's series.

    References
    ----------
    C. Loader, "Fast and Accurate Computation of Binomial Probabilities",
    technical report, 2000.
    """
    x = (a - c) / c
    if abs(x) < 0.1:
        # x - log1p(x) = sum_{k >= 2} (-x)**k / k ... with alternating signs
        term, acc = x * x, 0.0
        for k in range(2, 40):
            acc += term / k if k % 2 == 0 else -term / k
            term *= x
        d = c * acc
    else:
        d = c * (x - math.log1p(x))
    cf = float(c)
    stirlerr = (1.0 / 12.0 - (1.0 / 360.0 - 1.0 / (1260.0 * cf * cf)) / (cf * cf)) / cf
    return -stirlerr - d - 0.5 * math.log(2.0 * math.pi * cf)


def birth_death(station: Station, offered_load: float) -> tuple[float, float]:
    """Mean requests present and mean busy servers of a load-dependent station.

    With ``n`` requests present the station completes work at rate
    ``min(n, c) / slowdown(n)`` (in units of one server), so ``P(n) / P(n -
    1) = a slowdown(n) / min(n, c)`` with ``a`` the offered load in
    Erlangs. Past the last slowdown entry and the servers the ratio is
    constant and the tail is geometric, summed in closed form. Sums run in
    logarithms: with hundreds of servers the terms exceed a float's range.
    """
    if station.slowdown is None:
        raise ValueError(f"station {station.name!r} is not load-dependent; use erlang_c")
    c = station.servers
    top = max(len(station.slowdown), c)
    ratio_tail = offered_load * station.slowdown_at(top + 1) / c
    if ratio_tail >= 1.0:
        raise ValueError(f"station {station.name!r} is unstable (load {ratio_tail:.4g})")
    n = np.arange(1, top + 1)
    g = np.array([station.slowdown_at(int(k)) for k in n])
    log_t = np.concatenate(
        [[0.0], np.cumsum(np.log(offered_load) + np.log(g) - np.log(np.minimum(n, c)))]
    )
    shift = log_t.max()
    t = np.exp(log_t - shift)  # P(0..top) up to one constant
    r = ratio_tail
    tail_mass = t[-1] * r / (1.0 - r)  # n > top
    tail_n = t[-1] * (top * r / (1.0 - r) + r / (1.0 - r) ** 2)
    norm = t.sum() + tail_mass
    levels = np.arange(top + 1)
    mean_n = (float(np.dot(levels, t)) + tail_n) / norm
    busy = (float(np.dot(np.minimum(levels, c), t)) + c * tail_mass) / norm
    return float(mean_n), float(busy)


def solve_open(
    stations: tuple[Station, ...], arrival_rates: Mapping[str, float], classes: tuple[str, ...]
) -> QueueingSolution:
    """Per station M/M/c with Erlang C, or its birth-death process.

    The solution of :meth:`perfstats.system.queueing.OpenNetwork.solve` for
    a stable network's parts.
    """
    utilization: dict[str, float] = {}
    stretch: dict[str, float] = {}
    for s in stations:
        load = sum(arrival_rates[c] * d for c, d in s.demands.items())
        rho = load / s.servers
        if s.load_dependent:
            # BCMP processor sharing: class r holds a share lambda_r D_r / a of
            # the requests present, so its residence time is D_r E[N] / a.
            mean_n, busy = birth_death(s, load)
            stretch[s.name] = mean_n / load
            utilization[s.name] = busy / s.servers
            continue
        # Mean sojourn / demand of an M/M/c queue, 1 + C(c, a) / (c (1 - rho));
        # under processor sharing it holds for every class alike (BCMP).
        stretch[s.name] = 1.0 + erlang_c(s.servers, load) / (s.servers * (1.0 - rho))
        utilization[s.name] = rho
    residence = {
        c: {s.name: s.demands[c] * stretch[s.name] for s in stations if c in s.demands}
        for c in classes
    }
    return QueueingSolution(
        utilization=utilization,
        response_time={c: sum(r.values()) for c, r in residence.items()},
        throughput=arrival_rates,
        residence_time=residence,
        method="open M/M/c (Erlang C)"
        + (", load-dependent birth-death" if any(s.load_dependent for s in stations) else ""),
    )


def solve_closed(
    stations: tuple[Station, ...],
    population: Mapping[str, int],
    think_times: Mapping[str, float],
    classes: tuple[str, ...],
) -> QueueingSolution:
    """Exact multi-class MVA.

    The solution of :meth:`perfstats.system.queueing.ClosedNetwork.solve`
    for a closed network's parts.
    """
    names = [s.name for s in stations]
    n_cls, n_st = len(classes), len(names)
    demand = np.zeros((n_cls, n_st))
    for k, s in enumerate(stations):
        for c, d in s.demands.items():
            demand[classes.index(c), k] = d
    servers = np.array([s.servers for s in stations])
    pop = np.array([population[c] for c in classes], dtype=np.int64)
    think = np.array([think_times[c] for c in classes])
    total_users = int(pop.sum())
    strides = np.ones(n_cls, dtype=np.int64)
    for i in range(n_cls - 2, -1, -1):
        strides[i] = strides[i + 1] * (pop[i + 1] + 1)
    # Python integers: the product overflows int64 long before it is refused.
    n_vectors = math.prod(int(p) + 1 for p in pop)
    if n_vectors > MAX_MVA_VECTORS:
        raise ValueError(
            f"population {dict(population)} is too large for exact MVA: "
            f"{n_vectors:,} population vectors (the product of population + 1 over the "
            f"classes) exceed the limit of {MAX_MVA_VECTORS:,}; reduce it or simulate"
        )
    # Multi-server and load-dependent stations need their marginal
    # queue-length distributions (load-dependent MVA); the others do not.
    multi = [k for k in range(n_st) if servers[k] > 1 or stations[k].load_dependent]
    cells = n_vectors * len(multi) * (total_users + 1)
    if cells > _MVA_MAX_CELLS:
        raise ValueError(
            f"population {dict(population)} is too large for exact MVA with "
            f"multi-server stations ({cells:,} probabilities to keep); reduce it"
        )
    queue = np.zeros((n_vectors, n_st))
    # marginal queue-length distribution of each multi-server station
    marg = np.zeros((n_vectors, len(multi), total_users + 1))
    marg[0, :, 0] = 1.0
    # alpha(j) = min(j, servers) / slowdown(j): service rate multiplier with j present
    jj = np.arange(1, total_users + 1)
    alpha = np.minimum(jj[None, :], servers[multi][:, None]).astype(float)
    for m, k in enumerate(multi):
        alpha[m] /= [stations[k].slowdown_at(int(j)) for j in jj]
    resid = np.zeros((n_cls, n_st))
    thru = np.zeros(n_cls)
    n = np.zeros(n_cls, dtype=np.int64)
    for idx in range(1, n_vectors):
        # mixed-radix increment of the population vector n
        rest = idx
        for i in range(n_cls):
            n[i] = rest // strides[i]
            rest -= n[i] * strides[i]
        size = int(n.sum())
        resid[:] = 0.0
        thru[:] = 0.0
        for i in range(n_cls):
            if n[i] == 0:
                continue
            prev = idx - strides[i]
            resid[i] = demand[i] * (1.0 + queue[prev])
            for m, k in enumerate(multi):
                resid[i, k] = demand[i, k] * np.sum(
                    jj[:size] / alpha[m, :size] * marg[prev, m, :size]
                )
            thru[i] = n[i] / (think[i] + resid[i].sum())
        queue[idx] = thru @ resid
        for m, k in enumerate(multi):
            acc = np.zeros(size)
            for i in range(n_cls):
                if n[i] > 0:
                    acc += demand[i, k] * thru[i] * marg[idx - strides[i], m, :size]
            marg[idx, m, 1 : size + 1] = acc / alpha[m, :size]
            marg[idx, m, 0] = max(0.0, 1.0 - marg[idx, m, 1 : size + 1].sum())
    util = (thru @ demand) / servers
    for m, k in enumerate(multi):
        if stations[k].load_dependent:
            # busy servers, not offered work: the slowdown keeps them busy longer
            last = marg[n_vectors - 1, m, : total_users + 1]
            util[k] = float(np.dot(np.minimum(np.arange(total_users + 1), servers[k]), last))
            util[k] /= servers[k]
    residence = {
        c: {names[k]: float(resid[i, k]) for k in range(n_st) if demand[i, k] > 0}
        for i, c in enumerate(classes)
    }
    return QueueingSolution(
        utilization={names[k]: float(util[k]) for k in range(n_st)},
        response_time={c: float(resid[i].sum()) for i, c in enumerate(classes)},
        throughput={c: float(thru[i]) for i, c in enumerate(classes)},
        residence_time=residence,
        method="closed exact MVA",
    )
