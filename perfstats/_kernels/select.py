"""Percentile-bootstrap bounds and estimates in one compiled call, by selection.

A rule's decision asks for a few intervals at a time from a thousand or so
resamples each, so per-call NumPy overhead and a full partition per column
cost more than the selection itself. :func:`percentile_bounds` reads the
order statistics the two tail quantiles need with a quickselect per rank,
and the estimates from the sorted sample, in one call. Order statistics are
unique values, so the bounds are those of ``numpy.quantile`` bit for bit,
whatever algorithm finds them.

Quickselect: median-of-three pivots and Hoare's partition, whose scans stop
on keys equal to the pivot, so the many ties of resampled quantiles split
evenly (Sedgewick, "Implementing Quicksort programs", CACM 21(10), 1978).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .quantile import column_into, lerp, linear_position

# Partition rounds before a range is sorted outright: a guard against the
# rare inputs on which median-of-three pivots keep splitting badly.
_MAX_ROUNDS = 64


@nb.njit(cache=True, inline="always")
def _swap(a: np.ndarray, i: int, j: int) -> None:
    # Indices are never negative here; as unsigned, numba tests none.
    ui = np.uint64(i)
    uj = np.uint64(j)
    t = a[ui]
    a[ui] = a[uj]
    a[uj] = t


@nb.njit(cache=True)
def select(a: np.ndarray, lo: int, hi: int, k: int) -> float:
    """Reorder ``a[lo:hi + 1]`` so that ``a[k]`` is its order statistic at ``k``.

    Afterwards no value left of ``k`` is greater than ``a[k]`` and no value
    right of it smaller. Returns ``a[k]``.
    """
    rounds = 0
    while hi > lo + 1:
        rounds += 1
        if rounds > _MAX_ROUNDS:
            a[lo : hi + 1] = np.sort(a[lo : hi + 1])
            return a[k]
        mid = (lo + hi) >> 1
        _swap(a, mid, lo + 1)
        if a[lo] > a[hi]:
            _swap(a, lo, hi)
        if a[lo + 1] > a[hi]:
            _swap(a, lo + 1, hi)
        if a[lo] > a[lo + 1]:
            _swap(a, lo, lo + 1)
        # a[lo] <= pivot <= a[hi] are sentinels for the two scans.
        pivot = a[lo + 1]
        i = lo + 1
        j = hi
        while True:
            i += 1
            while a[np.uint64(i)] < pivot:
                i += 1
            j -= 1
            while a[np.uint64(j)] > pivot:
                j -= 1
            if j < i:
                break
            _swap(a, i, j)
        a[lo + 1] = a[j]
        a[j] = pivot
        if j >= k:
            hi = j - 1
        if j <= k:
            lo = i
    if hi == lo + 1 and a[hi] < a[lo]:
        _swap(a, lo, hi)
    return a[k]


@nb.njit(cache=True, inline="always")
def _next_up(a: np.ndarray, k: int, hi: int) -> float:
    """Move the smallest of ``a[k:hi + 1]`` to ``a[k]`` and return it.

    Right after a selection at ``k - 1``, this is the order statistic at
    ``k`` with the same ordering guarantee as :func:`select`, found in one
    pass instead of another selection.
    """
    best = k
    for i in range(k + 1, hi + 1):
        if a[np.uint64(i)] < a[np.uint64(best)]:
            best = i
    _swap(a, k, best)
    return a[k]


@nb.njit(cache=True)
def percentile_bounds(
    boot: np.ndarray, tail: float, sorted_x: np.ndarray, qs: np.ndarray
) -> np.ndarray:
    """Bounds of the percentile-bootstrap intervals of ``qs``, and their estimates.

    Column ``j`` of ``boot`` (resamples in rows) gives the bounds of the
    interval of ``qs[j]``. Rows of the result: the ``tail`` and ``1 - tail``
    quantiles of each column, equal to
    ``numpy.quantile(boot, [tail, 1 - tail], axis=0)`` value for value (a
    column holding a NaN gives NaN), and ``numpy.quantile(sorted_x, qs)``.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats._kernels.select import percentile_bounds
    >>> boot = np.random.default_rng(0).normal(size=(1000, 2))
    >>> rows = percentile_bounds(boot, 0.025, np.arange(11.0), np.array([0.5, 0.9]))
    >>> bool(np.array_equal(rows[:2], np.quantile(boot, [0.025, 0.975], axis=0)))
    True
    >>> rows[2].tolist()
    [5.0, 9.0]
    """
    m = boot.shape[0]
    k = boot.shape[1]
    out = np.empty((3, k))
    lo1, hi1, g1 = linear_position(m, tail)
    lo2, hi2, g2 = linear_position(m, 1.0 - tail)
    col = np.empty(m)
    for j in range(k):
        if column_into(boot, j, col):
            out[0, j] = np.nan
            out[1, j] = np.nan
        else:
            # Ranks ascend (lo1 <= hi1 <= lo2 <= hi2 for tail <= 0.5), so
            # each selection works right of the one before it.
            # (hi = lo + 1 whenever they differ, so the upper rank of each
            # pair is the smallest value right of the lower one.)
            a = select(col, 0, m - 1, lo1)
            b = a if hi1 == lo1 else _next_up(col, hi1, m - 1)
            out[0, j] = lerp(a, b, g1)
            start = hi1 + 1 if lo2 > hi1 else lo2
            c = col[lo2] if lo2 <= hi1 else select(col, start, m - 1, lo2)
            d = c if hi2 == lo2 else (col[hi2] if hi2 <= hi1 else _next_up(col, hi2, m - 1))
            out[1, j] = lerp(c, d, g2)
    n = sorted_x.size
    for t in range(qs.size):
        lo, hi, g = linear_position(n, qs[t])
        out[2, t] = lerp(sorted_x[lo], sorted_x[hi], g)
    return out


@nb.njit(cache=True)
def column_quantiles(values: np.ndarray, qs: np.ndarray) -> np.ndarray:
    """Quantiles ``qs`` of each column of ``values``, shape ``(len(qs), columns)``.

    ``numpy.quantile(values, qs, axis=0)`` value for value (a column holding
    a NaN gives NaN). The ranks the quantiles read are taken in ascending
    order, each by a selection right of the one before (or, for the next
    rank up, by one pass): O(rows) per column, several times faster than
    NumPy's partition at a few ranks of a thousand rows.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats._kernels.select import column_quantiles
    >>> boot = np.random.default_rng(0).normal(size=(999, 3))
    >>> qs = np.array([0.95, 0.05, 0.5])
    >>> bool(np.array_equal(column_quantiles(boot, qs), np.quantile(boot, qs, axis=0)))
    True
    """
    m = values.shape[0]
    k = values.shape[1]
    out = np.empty((qs.size, k))
    ascending = np.argsort(qs)
    col = np.empty(m)
    for j in range(k):
        if column_into(values, j, col):
            out[:, j] = np.nan
            continue
        # col[done] holds its order statistic, with nothing greater left of
        # it and nothing smaller right of it.
        done = -1
        for t in ascending:
            lo, hi, g = linear_position(m, qs[t])
            a = 0.0
            for r in (lo, hi):
                if r > done + 1:
                    select(col, done + 1, m - 1, r)
                elif r == done + 1:
                    _next_up(col, r, m - 1)
                done = max(done, r)
                if r == lo:
                    a = col[r]
            out[t, j] = lerp(a, col[hi], g)
    return out


@nb.njit(cache=True)
def relative_change_quantiles(
    first: np.ndarray, second: np.ndarray, qs: np.ndarray, absolute: bool
) -> np.ndarray:
    """Quantiles ``qs`` of ``(first - second) / second`` (its magnitude if ``absolute``).

    Equal to ``column_quantiles(delta[:, None], qs)[:, 0]``, in one call
    without NumPy temporaries. Returns an empty array when the change is
    undefined: a zero in ``second``, or a change that is not finite.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats._kernels.select import relative_change_quantiles
    >>> relative_change_quantiles(np.array([1.1, 0.9, 1.0]), np.ones(3), np.array([0.5]), True)
    array([0.1])
    >>> relative_change_quantiles(np.ones(2), np.array([1.0, 0.0]), np.array([0.5]), True).size
    0
    """
    m = second.size
    delta = np.empty((m, 1))
    for i in range(m):
        d = second[i]
        if d == 0.0:
            return np.empty(0)
        v = (first[i] - d) / d
        if not np.isfinite(v):
            return np.empty(0)
        delta[i, 0] = abs(v) if absolute else v
    return column_quantiles(delta, qs)[:, 0].copy()
