"""PELT (Killick et al. 2012) with the L2 cost, as ruptures' ``Pelt(jump=1)`` runs it.

``cost(s, e) = sum((x[s:e] - mean(x[s:e]))**2)`` from prefix sums. The
recursion and pruning are ruptures' (``ruptures.detection.Pelt._seg``):
breakpoints are visited in order ``min_size, min_size + 1, ..., n``; at each
the candidate last change ``t = bkp - min_size`` joins the admissible set;
the best previous change is the first admissible ``t`` (in increasing order)
of least ``F[t] + cost(t, bkp) + pen``; afterwards every ``t`` with
``F[t] + cost(t, bkp) > F[bkp]`` is pruned. Only ``t = 0`` and ``t >=
min_size`` have a partition, exactly as in ruptures.
"""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True)
def pelt_l2(x: np.ndarray, pen: float, min_size: int) -> np.ndarray:
    """Segment ends (the last is ``n``) of the optimal L2 partition."""
    n = x.size
    s1 = np.zeros(n + 1)
    s2 = np.zeros(n + 1)
    for i in range(n):
        s1[i + 1] = s1[i] + x[i]
        s2[i + 1] = s2[i] + x[i] * x[i]
    f = np.full(n + 1, np.inf)
    f[0] = 0.0
    last = np.full(n + 1, -1, np.int64)
    last[0] = 0
    adm = np.empty(n + 1, np.int64)
    vals = np.empty(n + 1)
    m = 0
    for bkp in range(min_size, n + 1):
        t_new = bkp - min_size
        if t_new == 0 or t_new >= min_size:
            adm[m] = t_new
            m += 1
        best = np.inf
        arg = -1
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
    return ends[:count][::-1].copy()
