"""E-divisive means: the energy-distance split statistic of every split of a segment, in O(n log n).

For a segment ``x[0:n]`` split at ``t`` into ``X = x[:t]`` (size ``t``) and
``Y = x[t:]`` (size ``m = n - t``), with ``A = sum_{i<j<t} |x_i - x_j|``
(within X), ``B`` the same within Y and ``C = sum_{i<t<=j} |x_i - x_j|``::

    q(t) = t m / n * (2 C / (t m) - 2 A / t**2 - 2 B / m**2)

(Matteson & James 2014 with alpha = 1, in the V-statistic form MongoDB's
e-divisive uses). A pairwise-distance matrix makes one scan O(n^2) in time
and memory. Here ``A`` for every prefix and ``B`` for every suffix are
running sums: adding a value ``v`` to a set adds ``sum |v - x_i|``, which is
``c_lo v - s_lo + s_hi - c_hi v`` with the counts and sums of the values
below and above ``v``, read from a Fenwick tree over ranks in O(log n);
``C`` is the total minus ``A`` and ``B``. The ranks of a permuted segment
are the permuted ranks, so a permutation test sorts each segment once.

Permutation ``p`` shuffles with its own stream of the call's key, so the
result does not depend on the number of threads.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .._validation import FloatArray
from .random import hi_index, next_u64, stream_state
from .twins import CHUNKS

IntArray = np.ndarray
# left, right, cnt, tot (n + 1 each), rev_v, rev_r (n each): see _scan_scratch.
ScanScratch = tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, IntArray]



@nb.njit(cache=True)
def _running_within(
    values: FloatArray, ranks: IntArray, out: FloatArray, cnt: FloatArray, tot: FloatArray
) -> None:
    """``out[k]`` = sum of pairwise distances among ``values[:k]``, k = 0..n."""
    n = values.size
    cnt[:] = 0.0
    tot[:] = 0.0
    out[0] = 0.0
    all_sum = 0.0
    for k in range(n):
        v = values[k]
        # counts and sums over ranks below r (Fenwick prefix query)
        r = ranks[k]
        c_lo = 0.0
        s_lo = 0.0
        i = r
        while i > 0:
            c_lo += cnt[i]
            s_lo += tot[i]
            i -= i & (-i)
        c_hi = k - c_lo
        s_hi = all_sum - s_lo
        out[k + 1] = out[k] + (c_lo * v - s_lo) + (s_hi - c_hi * v)
        i = r + 1
        while i <= n:
            cnt[i] += 1.0
            tot[i] += v
            i += i & (-i)
        all_sum += v


@nb.njit(cache=True)
def _scan_scratch(n: int) -> ScanScratch:
    """Work arrays of :func:`_scan` for segments of up to ``n`` values.

    The prefix and suffix within-sums, the Fenwick tree's counts and sums
    (``n + 1`` each), and the reversed segment's values and ranks.
    """
    return (
        np.empty(n + 1), np.empty(n + 1), np.empty(n + 1), np.empty(n + 1),
        np.empty(n), np.empty(n, dtype=np.int64),
    )  # fmt: skip


@nb.njit(cache=True)
def _scan(
    values: FloatArray,
    ranks: IntArray,
    min_size: int,
    scratch: ScanScratch,
) -> tuple[int, float]:
    """Best split ``(t, q(t))`` of ``values``, with ``min_size <= t <= n - min_size``.

    Returns ``(-1, 0.0)`` when the segment is too short. Ties go to the
    smallest ``t``. ``scratch`` comes from :func:`_scan_scratch`.
    """
    n = values.size
    if n < 2 * min_size:
        return -1, 0.0
    left, right, cnt, tot, rev_v, rev_r = scratch
    _running_within(values, ranks, left, cnt, tot)
    for k in range(n):
        rev_v[k] = values[n - 1 - k]
        rev_r[k] = ranks[n - 1 - k]
    _running_within(rev_v[:n], rev_r[:n], right, cnt, tot)
    total = left[n]
    best_t = -1
    best_q = -np.inf
    for t in range(min_size, n - min_size + 1):
        m = n - t
        a = left[t]
        b = right[m]
        c = total - a - b
        q = (t * m / n) * (2.0 * c / (t * m) - 2.0 * a / (t * t) - 2.0 * b / (m * m))
        if q > best_q:
            best_q = q
            best_t = t
    return best_t, best_q


@nb.njit(cache=True)
def segment_ranks(values: FloatArray) -> IntArray:
    """0-based ranks of ``values`` (ties broken by position)."""
    order = np.argsort(values, kind="mergesort")
    ranks = np.empty(values.size, dtype=np.int64)
    for i in range(values.size):
        ranks[order[i]] = i
    return ranks


@nb.njit(cache=True)
def best_split(values: FloatArray, min_size: int) -> tuple[int, float]:
    """Best split of one segment: ``(t, q)`` with ``t`` relative to the segment."""
    n = values.size
    ranks = segment_ranks(values)
    return _scan(values, ranks, min_size, _scan_scratch(n))


@nb.njit(cache=True)
def all_splits(values: FloatArray) -> FloatArray:
    """``q(t)`` for every ``t`` in ``0..n-1`` (``q(0) = 0``), for tests and plots."""
    n = values.size
    ranks = segment_ranks(values)
    left = np.empty(n + 1)
    right = np.empty(n + 1)
    cnt = np.empty(n + 1)
    tot = np.empty(n + 1)
    _running_within(values, ranks, left, cnt, tot)
    _running_within(values[::-1].copy(), ranks[::-1].copy(), right, cnt, tot)
    out = np.zeros(n)
    for t in range(1, n):
        m = n - t
        a = left[t]
        b = right[m]
        c = left[n] - a - b
        out[t] = (t * m / n) * (2.0 * c / (t * m) - 2.0 * a / (t * t) - 2.0 * b / (m * m))
    return out


@nb.njit(cache=True)
def _one_permutation(
    values: FloatArray,
    bounds: IntArray,
    seg_ranks: IntArray,
    min_size: int,
    state: np.uint64,
    pv: FloatArray,
    pr: IntArray,
    scratch: ScanScratch,
) -> float:
    """Largest best-split statistic over all segments, each shuffled within itself."""
    best = -np.inf
    for s in range(bounds.size - 1):
        a = bounds[s]
        n = bounds[s + 1] - a
        if n < 2 * min_size:
            continue
        for i in range(n):
            pv[i] = values[a + i]
            pr[i] = seg_ranks[a + i]
        # Fisher-Yates, values and their ranks together
        for i in range(n - 1, 0, -1):
            state, v = next_u64(state)
            j = hi_index(v, np.int64(i + 1))
            tv = pv[i]
            pv[i] = pv[j]
            pv[j] = tv
            tr = pr[i]
            pr[i] = pr[j]
            pr[j] = tr
        _, q = _scan(pv[:n], pr[:n], min_size, scratch)
        if q > best:
            best = q
    return best


@nb.njit(cache=True)
def _buffers(n: int) -> tuple[FloatArray, IntArray, ScanScratch]:
    return np.empty(n), np.empty(n, dtype=np.int64), _scan_scratch(n)


@nb.njit(cache=True)
def _ranks_by_segment(values: FloatArray, bounds: IntArray) -> IntArray:
    out = np.empty(values.size, dtype=np.int64)
    for s in range(bounds.size - 1):
        a = bounds[s]
        b = bounds[s + 1]
        out[a:b] = segment_ranks(values[a:b])
    return out


@nb.njit(cache=True)
def permutation_maxima_serial(
    values: FloatArray, bounds: IntArray, min_size: int, n_perm: int, key: np.uint64
) -> FloatArray:
    """Permutation ``p``'s largest split statistic over the segments ``bounds``."""
    seg_ranks = _ranks_by_segment(values, bounds)
    pv, pr, scratch = _buffers(values.size)
    out = np.empty(n_perm)
    for p in range(n_perm):
        out[p] = _one_permutation(
            values, bounds, seg_ranks, min_size, stream_state(key, np.int64(p)),
            pv, pr, scratch,
        )  # fmt: skip
    return out


@nb.njit(cache=True, parallel=True)
def permutation_maxima_parallel(
    values: FloatArray, bounds: IntArray, min_size: int, n_perm: int, key: np.uint64
) -> FloatArray:
    """As :func:`permutation_maxima_serial`, permutations spread over threads."""
    seg_ranks = _ranks_by_segment(values, bounds)
    out = np.empty(n_perm)
    chunk = (n_perm + CHUNKS - 1) // CHUNKS
    for c in nb.prange(CHUNKS):
        pv, pr, scratch = _buffers(values.size)
        for p in range(c * chunk, min(n_perm, (c + 1) * chunk)):
            out[p] = _one_permutation(
                values, bounds, seg_ranks, min_size, stream_state(key, np.int64(p)),
                pv, pr, scratch,
            )  # fmt: skip
    return out
