"""Percentile-bootstrap bounds and estimates in one compiled call, by selection.

A rule's decision asks for a few intervals at a time from a thousand or so
resamples each, so per-call NumPy overhead and a full partition per column
cost more than the selection itself. :func:`percentile_bounds` reads the
order statistics the two tail quantiles need through
:func:`column_quantiles` (a quickselect per rank, or the tail brackets
below), and the estimates from the sorted sample, in one call. Order statistics are
unique values, so the bounds are those of ``numpy.quantile`` bit for bit,
whatever algorithm finds them.

Quickselect: median-of-three pivots and Hoare's partition, whose scans stop
on keys equal to the pivot, so the many ties of resampled quantiles split
evenly (Sedgewick, "Implementing Quicksort programs", CACM 21(10), 1978).

The bounds of a percentile interval sit in the tails of a thousand or so
resampled values, where quickselect still partitions the whole column
around pivots near its middle, with a mispredicted branch on every other
value. Following Floyd and Rivest, a small sample of the column brackets
each tail instead: one pass copies out the values at or beyond the two
brackets (a store on every value, a counter moved by the comparison, so no
branch to mispredict), and the ranks are selected among those few. A
bracket that misses (the sample was unlucky) shows in the counts, and the
column is then selected in full, so the values never depend on the sample.

References
----------
.. [FR1975] R. W. Floyd and R. L. Rivest, "Expected time bounds for
   selection", Communications of the ACM 18(3), 165-172, 1975.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .quantile import column_into, lerp, linear_position, sorted_quantiles

# Partition rounds before a range is sorted outright: a guard against the
# rare inputs on which median-of-three pivots keep splitting badly.
_MAX_ROUNDS = 64

# Tail brackets: values sampled from a column, and the smallest column for
# which a bracket pays (below it the sample is most of the column).
TAIL_SAMPLE = 64
TAIL_MIN_ROWS = 256
# A tail takes a bracket only while it holds at most this share of the
# column: beyond it, the copied values cost as much as a full selection.
TAIL_MAX_SHARE = 0.125


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
def _bracket_index(k: int, m: int) -> int:
    """Index into the sorted sample of a bracket that holds ``k`` of ``m`` values.

    The sample index expected to match rank ``k`` plus three binomial
    standard deviations and one: the bracket holds fewer than ``k`` values
    in well under one column in a thousand. ``TAIL_SAMPLE`` when no index
    of the sample is safe.
    """
    p = k / m
    expected = TAIL_SAMPLE * p
    spread = 3.0 * math.sqrt(TAIL_SAMPLE * p * (1.0 - p))
    return min(int(math.ceil(expected + spread)) + 1, TAIL_SAMPLE)


@nb.njit(cache=True)
def tail_brackets(
    col: np.ndarray, k_low: int, k_high: int, low: np.ndarray, high: np.ndarray
) -> tuple[int, int]:
    """Copy at least the ``k_low`` smallest and ``k_high`` largest values of ``col``.

    ``low`` receives every value at or below a bracket drawn from a
    sample of the column, ``high`` every value at or above another; both
    need room for the whole column. Returns how many each received, or
    ``(-1, -1)`` when a bracket cannot be drawn (the tails are too wide for
    the sample) or holds too few values: the caller then selects in the
    whole column. Rank ``r < k_low`` of ``col`` is then rank ``r`` of
    ``low[:n_low]``, and rank ``r >= m - k_high`` is rank
    ``r - (m - n_high)`` of ``high[:n_high]``, ties included (a bracket
    takes every value equal to it).

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats._kernels.select import tail_brackets
    >>> col = np.random.default_rng(0).permutation(1000).astype(float)
    >>> low, high = np.empty(1000), np.empty(1000)
    >>> n_low, n_high = tail_brackets(col, 26, 26, low, high)
    >>> bool(np.array_equal(np.sort(low[:n_low])[:26], np.arange(26.0)))
    True
    >>> bool(np.array_equal(np.sort(high[:n_high])[-26:], np.arange(974.0, 1000.0)))
    True
    """
    m = col.size
    if low.size < m or high.size < m:
        # Every value is stored in both (most are overwritten): the
        # unchecked stores must stay inside them.
        raise ValueError("tail_brackets needs room for the whole column in low and high")
    i_low = _bracket_index(k_low, m) if k_low > 0 else -1
    i_high = _bracket_index(k_high, m) if k_high > 0 else -1
    if i_low >= TAIL_SAMPLE or i_high >= TAIL_SAMPLE:
        return -1, -1
    sample = np.empty(TAIL_SAMPLE)
    for i in range(TAIL_SAMPLE):
        sample[i] = col[np.uint64(i * m // TAIL_SAMPLE)]
    # Below a bracket that takes nothing, no value passes: -inf and +inf
    # would take the infinite values of the column.
    cut_low = select(sample, 0, TAIL_SAMPLE - 1, i_low) if k_low > 0 else np.nan
    cut_high = (
        select(sample, 0, TAIL_SAMPLE - 1, TAIL_SAMPLE - 1 - i_high) if k_high > 0 else np.nan
    )
    n_low = 0
    n_high = 0
    for i in range(m):
        v = col[np.uint64(i)]
        low[np.uint64(n_low)] = v
        high[np.uint64(n_high)] = v
        n_low += v <= cut_low
        n_high += v >= cut_high
    if n_low < k_low or n_high < k_high:
        return -1, -1
    return n_low, n_high


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
    out = np.empty((3, boot.shape[1]))
    out[:2] = column_quantiles(boot, np.array([tail, 1.0 - tail]))
    out[2] = sorted_quantiles(sorted_x, qs)
    return out


@nb.njit(cache=True, inline="always")
def _take(a: np.ndarray, top: int, r: int, done: int) -> int:
    """Put ``a``'s order statistic at ``r`` in place, right of rank ``done`` (in place).

    Returns the new ``done``: ``a[done]`` holds its order statistic, with
    nothing greater left of it and nothing smaller right of it (ranks are
    taken in ascending order; the next one up costs one pass).
    """
    if r > done + 1:
        select(a, done + 1, top, r)
    elif r == done + 1:
        _next_up(a, r, top)
    return max(done, r)


@nb.njit(cache=True)
def column_quantiles(values: np.ndarray, qs: np.ndarray) -> np.ndarray:
    """Quantiles ``qs`` of each column of ``values``, shape ``(len(qs), columns)``.

    ``numpy.quantile(values, qs, axis=0)`` value for value (a column holding
    a NaN gives NaN). The ranks the quantiles read are taken in ascending
    order, each by a selection right of the one before (or, for the next
    rank up, by one pass): O(rows) per column, several times faster than
    NumPy's partition at a few ranks of a thousand rows. When every rank
    lies in a narrow tail, the selections run among the values
    :func:`tail_brackets` copies out.

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
    # Values each tail needs: the ranks below the middle from the bottom,
    # the others from the top; no brackets if a rank is far from both ends.
    k_low = 0
    k_high = 0
    for t in range(qs.size):
        lo, hi, _ = linear_position(m, qs[t])
        for r in (lo, hi):
            if 2 * r < m:
                k_low = max(k_low, r + 1)
            else:
                k_high = max(k_high, m - r)
    if m < TAIL_MIN_ROWS or max(k_low, k_high) > TAIL_MAX_SHARE * m:
        k_low = k_high = 0
    col = np.empty(m)
    # tail_brackets stores every value in both, even for a tail it skips.
    room = m if k_low or k_high else 0
    low = np.empty(room)
    high = np.empty(room)
    for j in range(k):
        if column_into(values, j, col):
            out[:, j] = np.nan
            continue
        n_low = n_high = -1
        if k_low or k_high:
            n_low, n_high = tail_brackets(col, k_low, k_high, low, high)
        # Per array, the rank (in that array) whose order statistic is in
        # place with nothing greater left of it and nothing smaller right.
        done = -1
        done_low = -1
        done_high = -1
        skip = m - n_high
        for t in ascending:
            lo, hi, g = linear_position(m, qs[t])
            a = 0.0
            b = 0.0
            for r in (lo, hi):
                if n_low < 0:
                    done = _take(col, m - 1, r, done)
                    v = col[r]
                elif r < k_low:
                    done_low = _take(low, n_low - 1, r, done_low)
                    v = low[r]
                else:
                    done_high = _take(high, n_high - 1, r - skip, done_high)
                    v = high[r - skip]
                if r == lo:
                    a = v
                b = v
            out[t, j] = lerp(a, b, g)
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
