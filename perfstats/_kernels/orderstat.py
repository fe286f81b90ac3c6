"""i.i.d. bootstrap quantiles in O(k log n) per resample, from uniform order statistics.

An i.i.d. resample of the sorted sample ``s`` is ``s[floor(n U_i)]`` for n
i.i.d. uniforms ``U_i``, so its j-th smallest value is ``s[floor(n U_(j))]``
with ``U_(j)`` the j-th uniform order statistic. A quantile of the resample
needs only the one or two order statistics around its rank, never the other
n - 2 values.

The uniform order statistics of one resample are built lazily on a fixed
bisection tree over the ranks ``0 .. n + 1`` (``U_(0) = 0``, ``U_(n+1) = 1``):
given the values at the ends of a node ``(lo, hi)``, the value at its middle
rank ``m`` is ``U_(lo) + (U_(hi) - U_(lo)) Beta(m - lo, hi - m)`` (Devroye
1986, "Non-Uniform Random Variate Generation", Ch. V.2). A rank is reached in
about ``log2(n / LEAF)`` such draws; a node of at most :data:`LEAF` ranks
draws its inner values directly as sorted uniforms. Every node draws from
its own counter-based stream (the resample's key and the node's middle
rank), so a rank's value is the same whichever other ranks are asked for
and on whichever thread: the quantiles of one call form one coherent
resample, and asking for one quantile alone gives the same values.

Gamma variates: Marsaglia & Tsang (2000), "A simple method for generating
gamma variables", ACM TOMS 26(3); normals and exponentials by the ziggurat
(:mod:`perfstats._kernels.ziggurat`).
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .quantile import lerp, linear_position
from .random import next_u64, stream_state
from .twins import CHUNKS, twins
from .ziggurat import exponential, normal

# Nodes of at most this many ranks are drawn as sorted uniforms.
LEAF = 16
_INV53 = 1.0 / 9007199254740992.0


@nb.njit(cache=True, inline="always")
def _open_unit(state: np.uint64) -> tuple[np.uint64, float]:
    """Uniform in (0, 1): never 0, so its logarithm is finite."""
    state, v = next_u64(state)
    return state, (np.float64(v >> np.uint64(11)) + 0.5) * _INV53


@nb.njit(cache=True)
def _gamma(state: np.uint64, alpha: float) -> tuple[np.uint64, float]:
    """Gamma(alpha, 1) for alpha >= 1 (Marsaglia & Tsang)."""
    d = alpha - 1.0 / 3.0
    return _gamma_dc(state, d, 1.0 / math.sqrt(9.0 * d))


@nb.njit(cache=True)
def _gamma_dc(state: np.uint64, d: float, c: float) -> tuple[np.uint64, float]:
    """:func:`_gamma` given its constants ``d = alpha - 1/3`` and ``c = 1 / sqrt(9 d)``."""
    while True:
        state, x = normal(state)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        state, u = _open_unit(state)
        x2 = x * x
        if u < 1.0 - 0.0331 * x2 * x2:
            return state, d * v
        if math.log(u) < 0.5 * x2 + d * (1.0 - v + math.log(v)):
            return state, d * v


@nb.njit(cache=True)
def beta(state: np.uint64, a: int, b: int) -> tuple[np.uint64, float]:
    """Beta(a, b) for integers a, b >= 1."""
    if a == 1 or b == 1:
        state, u = _open_unit(state)
        if a == 1 and b == 1:
            return state, u
        if a == 1:
            # 1 - U^(1/b), kept accurate for large b.
            return state, -math.expm1(math.log(u) / b)
        return state, math.exp(math.log(u) / a)
    state, x = _gamma(state, float(a))
    state, y = _gamma(state, float(b))
    return state, x / (x + y)


@nb.njit(cache=True)
def _leaf(lo: int, hi: int, key: np.uint64, buf: np.ndarray) -> None:
    """The ``hi - lo - 1`` inner uniforms of a leaf node, sorted, on (0, 1)."""
    state = stream_state(key, (lo + hi) // 2)
    for i in range(hi - lo - 1):
        state, v = next_u64(state)
        u = np.float64(v >> np.uint64(11)) * _INV53
        j = i
        while j > 0 and buf[j - 1] > u:
            buf[j] = buf[j - 1]
            j -= 1
        buf[j] = u


@nb.njit(cache=True)
def order_uniform(n: int, k: int, key: np.uint64, memo_m: np.ndarray, memo_u: np.ndarray,
                  leaf: np.ndarray) -> float:  # fmt: skip
    """``U_(k)`` (1 <= k <= n) of the resample with key ``key``.

    ``memo_m[d]``/``memo_u[d]`` hold the middle rank and value of the node at
    depth ``d`` of the previous descent (``memo_m[0] = -1`` for none), and
    ``leaf[0:2]`` the bounds of the last leaf drawn with its values from
    ``leaf[2]`` on: the ranks of one resample's quantiles share most of
    their paths, which are then drawn once.
    """
    lo = 0
    hi = n + 1
    a = 0.0
    b = 1.0
    d = 0
    while hi - lo > LEAF:
        m = (lo + hi) // 2
        if memo_m[d] == m:
            um = memo_u[d]
        else:
            state = stream_state(key, m)
            state, z = beta(state, m - lo, hi - m)
            um = a + (b - a) * z
            memo_m[d] = m
            memo_u[d] = um
            memo_m[d + 1] = -1
        if k == m:
            return um
        if k < m:
            hi = m
            b = um
        else:
            lo = m
            a = um
        d += 1
    if leaf[0] != lo or leaf[1] != hi:
        _leaf(lo, hi, key, leaf[2:])
        leaf[0] = lo
        leaf[1] = hi
    return a + (b - a) * leaf[2 + k - lo - 1]


@nb.njit(cache=True)
def resample_quantiles(
    sorted_x: np.ndarray, qs: np.ndarray, key: np.uint64, out: np.ndarray
) -> None:
    """Quantiles ``qs`` of the i.i.d. resample with key ``key`` (NumPy's linear method)."""
    n = sorted_x.size
    memo_m = np.full(66, -1, np.int64)
    memo_u = np.empty(66)
    leaf = np.full(LEAF + 2, -1.0)
    for i in range(qs.size):
        r_lo, r_hi, g = linear_position(n, qs[i])
        # 0-based rank r of the resample is the uniform order statistic r + 1.
        u = order_uniform(n, r_lo + 1, key, memo_m, memo_u, leaf)
        low = sorted_x[min(int(n * u), n - 1)]
        high = low
        if r_hi != r_lo:
            u = order_uniform(n, r_hi + 1, key, memo_m, memo_u, leaf)
            high = sorted_x[min(int(n * u), n - 1)]
        out[i] = lerp(low, high, g)


@nb.njit(cache=True)
def _chunk(
    sorted_x: np.ndarray, qs: np.ndarray, first: int, last: int, key: np.uint64, out: np.ndarray
) -> None:
    for r in range(first, last):
        resample_quantiles(sorted_x, qs, stream_state(key, r), out[r])


def _iid_quantiles(
    sorted_x: np.ndarray, qs: np.ndarray, n_resamples: int, key: np.uint64
) -> np.ndarray:
    """Quantiles ``qs`` of ``n_resamples`` i.i.d. resamples of ``sorted_x``."""
    out = np.empty((n_resamples, qs.size))
    chunks = min(CHUNKS, n_resamples)
    for c in nb.prange(chunks):
        _chunk(sorted_x, qs, c * n_resamples // chunks, (c + 1) * n_resamples // chunks, key, out)
    return out


iid_quantiles_serial, iid_quantiles_parallel = twins(_iid_quantiles)


def iid_work(n: int, n_quantiles: int, n_resamples: int) -> int:
    """Element visits of :func:`_iid_quantiles`, in the units of ``threads``."""
    return int(n_resamples * max(n_quantiles, 1) * 60 * math.log2(n + 2))


@nb.njit(cache=True)
def binomial(state: np.uint64, n: int, p: float) -> tuple[np.uint64, int]:
    """Binomial(n, p), exactly, in O(log n) Beta draws.

    The a-th smallest of n uniforms is Beta(a, n + 1 - a); those below it
    are uniform below it and those above uniform above it, so the count of
    uniforms below ``p`` recurses on one side (Devroye 1986, Ch. X.4).
    """
    x = 0
    while n > LEAF:
        if p <= 0.0:
            return state, x
        if p >= 1.0:
            return state, x + n
        a = 1 + n // 2
        state, u = beta(state, a, n + 1 - a)
        if p < u:
            n = a - 1
            p = p / u
        else:
            x += a
            n = n - a
            p = (p - u) / (1.0 - u)
    for _ in range(n):
        state, v = next_u64(state)
        if np.float64(v >> np.uint64(11)) * _INV53 < p:
            x += 1
    return state, x


# --- Order-statistic chains: O(k) per resample --------------------------------
#
# The ranks a call needs are known before any resample is drawn, so instead of
# descending the bisection tree for each of them, one resample's uniform order
# statistics at those ranks are drawn together from their spacings: with
# G_a the sum of a i.i.d. Exp(1) variates, (U_(1), ..., U_(m)) has the law of
# (G_1, ..., G_m) / G_(m+1) (Devroye 1986, Ch. V.2), so the order statistics
# at ranks r_1 < ... < r_k are the partial sums of k + 1 independent
# Gamma(r_1), Gamma(r_2 - r_1), ..., Gamma(m + 1 - r_k) gaps over their
# total. A resample of k quantiles then costs at most 2k + 1 Gamma draws
# (gaps of one, the upper rank of each quantile, are exponentials) whatever
# n. The values of one quantile do depend on which other quantiles the call
# asks for (unlike the bisection above): same distribution, other numbers.


@nb.njit(cache=True)
def chain_plan(n: int, qs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The distinct 1-based uniform ranks ``qs`` need, ascending, and where each quantile reads.

    Returns ``(ranks, lo_slot, hi_slot, weight)``: quantile ``i`` of a
    resample of ``n`` is ``lerp(v[lo_slot[i]], v[hi_slot[i]], weight[i])``
    with ``v[t]`` the resample's order statistic of rank ``ranks[t]``.
    """
    nq = qs.size
    wanted = np.empty(2 * nq, np.int64)
    weight = np.empty(nq)
    for i in range(nq):
        r_lo, r_hi, g = linear_position(n, qs[i])
        wanted[2 * i] = r_lo + 1
        wanted[2 * i + 1] = r_hi + 1
        weight[i] = g
    ordered = np.sort(wanted)
    ranks = np.empty(ordered.size, np.int64)
    k = 0
    for r in ordered:
        if k == 0 or ranks[k - 1] != r:
            ranks[k] = r
            k += 1
    ranks = ranks[:k]
    lo_slot = np.empty(nq, np.int64)
    hi_slot = np.empty(nq, np.int64)
    for i in range(nq):
        lo_slot[i] = np.searchsorted(ranks, wanted[2 * i])
        hi_slot[i] = np.searchsorted(ranks, wanted[2 * i + 1])
    return ranks, lo_slot, hi_slot, weight


@nb.njit(cache=True)
def gap_constants(n: int, ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Shapes of the ``ranks.size + 1`` Gamma gaps of a chain, and their constants.

    Every resample of a call draws gaps of the same shapes, so Marsaglia and
    Tsang's ``d = shape - 1/3`` and ``c = 1 / sqrt(9 d)`` are computed once
    (the same expressions, so the same numbers, as :func:`_gamma`).
    """
    k = ranks.size
    shape = np.empty(k + 1, np.int64)
    prev = 0
    for t in range(k):
        shape[t] = ranks[t] - prev
        prev = ranks[t]
    shape[k] = n + 1 - prev
    d = np.empty(k + 1)
    c = np.empty(k + 1)
    for t in range(k + 1):
        d[t] = float(shape[t]) - 1.0 / 3.0
        c[t] = 1.0 / math.sqrt(9.0 * d[t]) if shape[t] > 1 else 0.0
    return shape, d, c


@nb.njit(cache=True, inline="always")
def _gap(state: np.uint64, shape: int, d: float, c: float) -> tuple[np.uint64, float]:
    """Gamma(shape, 1) for an integer shape >= 1 (constants ``d``, ``c``)."""
    if shape == 1:
        return exponential(state)
    return _gamma_dc(state, d, c)


# A call's chains, the same for every resample: ``m[g]`` ranks in chain
# ``g`` (``m[g] + 1`` gaps of ``shape[g]``, with Marsaglia and Tsang's
# constants ``d[g]``, ``c[g]``), read by the quantiles ``first[g]`` to
# ``first[g + 1] - 1``, quantile ``i`` at ``slots[i]`` with ``weight[i]``.
Chains = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


@nb.njit(cache=True)
def chain_plans(n: int, qs: np.ndarray, marginal: bool) -> Chains:
    """The chains that draw ``qs`` for resamples of ``n``: one for all, or one per quantile.

    ``marginal=False``: one chain through every rank the quantiles need, so
    a resample's quantiles have their joint law. ``marginal=True``: each
    quantile its own chain from the resample's stream, so its values are
    those it gets when asked alone (what an interval of each quantile
    needs), not jointly drawn with the others.
    """
    nq = qs.size
    n_chains = nq if marginal else 1
    width = 3 if marginal else 2 * nq + 1
    m = np.empty(n_chains, np.int64)
    first = np.empty(n_chains + 1, np.int64)
    slots = np.zeros((nq, 2), np.int64)
    weight = np.empty(nq)
    shape = np.ones((n_chains, width), np.int64)
    d = np.zeros((n_chains, width))
    c = np.zeros((n_chains, width))
    for g in range(n_chains):
        members = qs[g : g + 1] if marginal else qs
        ranks, lo_slot, hi_slot, w = chain_plan(n, members)
        sh, dg, cg = gap_constants(n, ranks)
        m[g] = ranks.size
        shape[g, : sh.size] = sh
        d[g, : dg.size] = dg
        c[g, : cg.size] = cg
        first[g] = g
        for j in range(members.size):
            slots[g + j, 0] = lo_slot[j]
            slots[g + j, 1] = hi_slot[j]
            weight[g + j] = w[j]
    first[n_chains] = nq
    return m, first, shape, d, c, slots, weight


@nb.njit(cache=True)
def _chains_chunk(
    sorted_x: np.ndarray, plans: Chains, first_r: int, last_r: int, key: np.uint64, out: np.ndarray
) -> None:
    """Resamples ``first_r`` to ``last_r - 1``, each chain from the resample's own stream."""
    # Unpacked once: a tuple of arrays handled per resample costs reference
    # counting that outweighs the draws themselves.
    m, first, shape, d, c, slots, weight = plans
    n = sorted_x.size
    values = np.empty(shape.shape[1])
    for r in range(first_r, last_r):
        start = stream_state(key, r)
        for g in range(m.size):
            state = start
            k = m[g]
            total = 0.0
            for t in range(k):
                state, gap = _gap(state, shape[g, t], d[g, t], c[g, t])
                total += gap
                values[t] = total
            state, gap = _gap(state, shape[g, k], d[g, k], c[g, k])
            total += gap
            for t in range(k):
                # values / total is U_(rank); the scratch now takes its sample value.
                values[t] = sorted_x[min(int(n * (values[t] / total)), n - 1)]
            for i in range(first[g], first[g + 1]):
                out[r, i] = lerp(values[slots[i, 0]], values[slots[i, 1]], weight[i])


def _chain_resample_quantiles(
    sorted_x: np.ndarray, qs: np.ndarray, n_resamples: int, key: np.uint64, marginal: bool
) -> np.ndarray:
    """Quantiles ``qs`` of ``n_resamples`` i.i.d. resamples of ``sorted_x``, by chains."""
    out = np.empty((n_resamples, qs.size))
    # The plans are the same for every chunk: made once, outside the threads.
    plans = chain_plans(sorted_x.size, qs, marginal)
    chunks = min(CHUNKS, n_resamples)
    for j in nb.prange(chunks):
        _chains_chunk(
            sorted_x, plans, j * n_resamples // chunks, (j + 1) * n_resamples // chunks, key, out
        )
    return out


chain_resample_quantiles_serial, chain_resample_quantiles_parallel = twins(
    _chain_resample_quantiles
)


def chain_work(n_quantiles: int, n_resamples: int) -> int:
    """Work of the chain kernels in the units of ``threads`` (about 40 per Beta draw)."""
    return int(n_resamples * 2 * max(n_quantiles, 1) * 40)
