"""PELT (Killick et al. 2012) with the L2 cost, as ruptures' ``Pelt(jump=1)`` runs it.

``cost(s, e) = sum((x[s:e] - mean(x[s:e]))**2)`` from prefix sums. The
recursion and pruning are ruptures' (``ruptures.detection.Pelt._seg``):
breakpoints are visited in order ``min_size, min_size + 1, ..., n``; at each
the candidate last change ``t = bkp - min_size`` joins the admissible set;
the best previous change is the first admissible ``t`` (in increasing order)
of least ``F[t] + cost(t, bkp) + pen``; afterwards every ``t`` with
``F[t] + cost(t, bkp) > F[bkp]`` is pruned. Only ``t = 0`` and ``t >=
min_size`` have a partition, exactly as in ruptures.

That pruning removes nothing from a series without changes (one segment
always costs at least as much as two), so the admissible set, and the
work per breakpoint, grow with ``n``. A second, functional pruning (Maidstone
et al. 2017) keeps it small. With ``P_t(mu) = sum((x[:t] - mu)**2)``,
``F[t] + cost(t, e) = min_mu h_t(mu) + P_e(mu)`` where ``h_t(mu) = F[t] -
P_t(mu)`` does not depend on ``e``; the minimising ``mu`` is the segment's
mean, within ``[min x, max x]``. A candidate ``t`` whose ``h_t`` lies above
the lower envelope of the other candidates' ``h`` everywhere on that range,
by more than a margin far above the rounding of these sums, can never be
the best previous change again. Whenever the admissible set has doubled,
the envelope (pieces of concave parabolas) is built and such candidates
are dropped. In exact arithmetic this drops no candidate that could be
chosen, so the change points are those of the search without it.

References
----------
R. Maidstone, T. Hocking, G. Rigaill and P. Fearnhead, "On optimal
multiple changepoint algorithms for large data", Statistics and Computing
27(2), 519-533, 2017.
"""

from __future__ import annotations

import numba as nb
import numpy as np

# The functional pruning runs once the admissible set exceeds this many
# candidates, and again each time it has doubled since.
_FIRST_SWEEP = 64
# Margin of the functional pruning, relative to the size of the sums: ten
# thousand times the rounding of their differences.
_MARGIN = 1e-12


@nb.njit(cache=True)
def _h(f: float, s1: float, s2: float, t: int, mu: float) -> float:
    return f - s2 + 2.0 * mu * s1 - t * mu * mu


@nb.njit(cache=True)
def _functional_prune(
    adm: np.ndarray,
    m: int,
    f: np.ndarray,
    s1: np.ndarray,
    s2: np.ndarray,
    lo: float,
    hi: float,
    margin: float,
) -> int:
    """Drop from ``adm[:m]`` the candidates above the envelope by ``margin``; new ``m``."""
    cap = 4 * m + 16
    own = np.empty(cap, np.int64)
    left = np.empty(cap)
    right = np.empty(cap)
    own2 = np.empty(cap, np.int64)
    left2 = np.empty(cap)
    right2 = np.empty(cap)
    k = 1
    own[0] = adm[0]
    left[0] = lo
    right[0] = hi
    for j in range(1, m):
        tj = adm[j]
        cj = f[tj] - s2[tj]
        q = 0
        for p in range(k):
            o = own[p]
            a = left[p]
            b = right[p]
            # d(mu) = h_j - h_o = qa mu^2 + qb mu + qc, concave (tj > o)
            qa = -float(tj - o)
            qb = 2.0 * (s1[tj] - s1[o])
            qc = cj - (f[o] - s2[o])
            disc = qb * qb - 4.0 * qa * qc
            if q + 3 > cap:
                return m  # the envelope has more pieces than expected: keep all
            if disc <= 0.0:
                own2[q] = tj
                left2[q] = a
                right2[q] = b
                q += 1
                continue
            sq = np.sqrt(disc)
            # Roots without cancellation; qa < 0, so r1 < r2.
            if qb >= 0.0:
                w = -0.5 * (qb + sq)
            else:
                w = -0.5 * (qb - sq)
            ra = w / qa
            rb = qc / w if w != 0.0 else ra
            r1 = min(ra, rb)
            r2 = max(ra, rb)
            # j below on mu < r1 and mu > r2, o between.
            if a < r1:
                own2[q] = tj
                left2[q] = a
                right2[q] = min(b, r1)
                q += 1
            ma = max(a, r1)
            mb = min(b, r2)
            if ma < mb:
                own2[q] = o
                left2[q] = ma
                right2[q] = mb
                q += 1
            if r2 < b:
                own2[q] = tj
                left2[q] = max(a, r2)
                right2[q] = b
                q += 1
        # merge neighbours of one owner
        k = 0
        for p in range(q):
            if k > 0 and own[k - 1] == own2[p]:
                right[k - 1] = right2[p]
            else:
                own[k] = own2[p]
                left[k] = left2[p]
                right[k] = right2[p]
                k += 1
    kept = 0
    for j in range(m):
        tj = adm[j]
        keep = False
        for p in range(k):
            o = own[p]
            if o == tj:
                keep = True
                break
            # h_j - h_o is concave: its least value on a piece is at an end.
            for mu in (left[p], right[p]):
                d = _h(f[tj], s1[tj], s2[tj], tj, mu) - _h(f[o], s1[o], s2[o], o, mu)
                if d <= margin:
                    keep = True
                    break
            if keep:
                break
        if keep:
            adm[kept] = tj
            kept += 1
    return kept


@nb.njit(cache=True)
def pelt_l2(x: np.ndarray, pen: float, min_size: int) -> np.ndarray:
    """Segment ends (the last is ``n``) of the optimal L2 partition."""
    return pelt_l2_counted(x, pen, min_size)[0]


@nb.njit(cache=True)
def pelt_l2_counted(x: np.ndarray, pen: float, min_size: int) -> tuple[np.ndarray, int]:
    """:func:`pelt_l2` and the number of segment costs it evaluated (the work done)."""
    n = x.size
    evaluations = 0
    s1 = np.zeros(n + 1)
    s2 = np.zeros(n + 1)
    for i in range(n):
        s1[i + 1] = s1[i] + x[i]
        s2[i + 1] = s2[i] + x[i] * x[i]
    lo = x.min()
    hi = x.max()
    big = max(abs(lo), abs(hi))
    # Bounds every term of h_t on [lo, hi]: F[t] <= s2[t] + pen, |2 mu s1[t]|
    # and t mu^2 are at most 2 n big^2.
    margin = _MARGIN * (4.0 * n * big * big + pen + 1.0)
    f = np.full(n + 1, np.inf)
    f[0] = 0.0
    last = np.full(n + 1, -1, np.int64)
    last[0] = 0
    adm = np.empty(n + 1, np.int64)
    vals = np.empty(n + 1)
    m = 0
    sweep_at = _FIRST_SWEEP
    for bkp in range(min_size, n + 1):
        t_new = bkp - min_size
        if t_new == 0 or t_new >= min_size:
            adm[m] = t_new
            m += 1
        if m > sweep_at:
            m = _functional_prune(adm, m, f, s1, s2, lo, hi, margin)
            sweep_at = max(2 * m, _FIRST_SWEEP)
        best = np.inf
        arg = -1
        evaluations += m
        for j in range(m):
            t = adm[j]
            length = bkp - t
            a = s1[bkp] - s1[t]
            c = (s2[bkp] - s2[t]) - a * a / length
            v = f[t] + c + pen
            vals[j] = v
            if v < best:
                best = v
                arg = t
        f[bkp] = best
        last[bkp] = arg
        k = 0
        for j in range(m):
            if vals[j] <= best + pen:
                adm[k] = adm[j]
                k += 1
        m = k
    ends = np.empty(n + 1, np.int64)
    count = 0
    e = n
    while e > 0:
        ends[count] = e
        count += 1
        e = last[e]
    return ends[:count][::-1].copy(), evaluations
