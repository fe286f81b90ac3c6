"""Block-bootstrap quantiles of small samples from rank buckets.

The ranks ``0 .. n - 1`` of the sorted sample are cut into a few
**buckets** of consecutive ranks. A table of prefix counts (how many of the
first ``p`` positions have a rank below each bucket's first rank) gives, for
any block, how many of its points fall below every bucket boundary in
O(buckets), without visiting the block's points. Summed over a resample's
blocks, these counts locate the bucket holding each wanted rank; only that
bucket is then counted point by point, reading the block's members of the
bucket from a list of the bucket's ranks in position order (the same prefix
counts say where a block's members start and end in that list).

A resample then costs O(buckets) per block plus one pass over the blocks
and one bucket per wanted quantile, instead of O(n) increments and an O(n)
scan of the counts. Where the band engine (:mod:`perfstats._kernels.band`)
must make its bands several standard deviations wide, which for a small
sample is most of it, buckets need no guess: every rank lies in some bucket.

The blocks are the very draws of :mod:`perfstats._kernels.resample` from the
same streams, so the quantiles equal the direct engine's value for value.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .quantile import lerp, linear_position
from .random import hi_index, next_u64, stream_state, unit_float
from .resample import CIRCULAR, MOVING, STATIONARY

_CHUNKS = 64


def bucket_count(n: int, n_quantiles: int, block: float) -> int:
    """Buckets that balance the per-block cost against the per-quantile cost.

    A resample has about ``n / block`` blocks, each costing one pass over
    the bucket boundaries (vectorised), while each quantile walks the blocks
    once and a bucket of ``n / buckets`` ranks: the sum is smallest near
    ``sqrt(n_quantiles * block)`` buckets, widened for the cheaper
    vectorised pass.

    Examples
    --------
    >>> bucket_count(1000, 3, 8.0)
    14
    """
    k = int(round(math.sqrt(8.0 * max(n_quantiles, 1) * max(block, 1.0))))
    return max(2, min(64, k, n))


@nb.njit(cache=True)
def bucket_tables(ranks: np.ndarray, n_buckets: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bucket edges, prefix counts below each edge, and each bucket's ranks in position order.

    ``below[p, j]`` is how many of positions ``0 .. p - 1`` have a rank below
    ``edges[j]``; bucket ``j`` holds ranks ``edges[j] .. edges[j + 1] - 1``,
    and ``members[edges[j] + i]`` is the rank of its ``i``-th point in
    position order (a bucket holds exactly its ranks' points).
    """
    n = ranks.size
    edges = np.empty(n_buckets + 1, np.int64)
    for j in range(n_buckets + 1):
        edges[j] = (j * n) // n_buckets
    bucket_of = np.empty(n, np.int64)
    j = 0
    for r in range(n):
        while r >= edges[j + 1]:
            j += 1
        bucket_of[r] = j
    # int32 halves the table; callers keep n small.
    below = np.zeros((n + 1, n_buckets + 1), np.int32)
    members = np.empty(n, np.int64)
    fill = edges[:-1].copy()
    for p in range(n):
        r = ranks[p]
        bj = bucket_of[r]
        for k in range(n_buckets + 1):
            below[p + 1, k] = below[p, k] + (1 if k > bj else 0)
        members[fill[bj]] = r
        fill[bj] += 1
    return edges, below, members


@nb.njit(cache=True)
def _segments(
    n: int, kind: int, block: float, state: np.uint64, seg_s: np.ndarray, seg_e: np.ndarray
) -> tuple[int, int]:
    """One resample's blocks as unwrapped position segments; the draws mirror
    ``resample.fill_counts``. Returns the number of segments and the size m."""
    m = 0
    k = 0
    if kind == MOVING:
        b = int(block)
        starts = n - b + 1
        while m < n:
            state, v = next_u64(state)
            start = hi_index(v, starts)
            take = min(b, n - m)
            seg_s[k] = start
            seg_e[k] = start + take
            k += 1
            m += take
        return k, m
    if kind == CIRCULAR or kind == STATIONARY:
        p = 1.0 / block
        log_stay = math.log1p(-p) if p < 1.0 else 0.0
        b = int(block)
        while m < n:
            state, v = next_u64(state)
            pos = hi_index(v, n)
            if kind == CIRCULAR:
                length = b
            else:
                length = 1
                if p < 1.0:
                    state, w = next_u64(state)
                    u = 1.0 - unit_float(w)
                    length = 1 + int(math.floor(math.log(u) / log_stay))
            take = min(length, n - m)
            end = pos + take
            if end <= n:
                seg_s[k] = pos
                seg_e[k] = end
                k += 1
            else:
                seg_s[k] = pos
                seg_e[k] = n
                seg_s[k + 1] = 0
                seg_e[k + 1] = end - n
                k += 2
            m += take
        return k, m
    # SuperFlow's moving-block variant.
    b = int(block)
    starts = n - b
    for _ in range((n - b) // b):
        state, v = next_u64(state)
        start = hi_index(v, starts)
        seg_s[k] = start
        seg_e[k] = start + b
        k += 1
        m += b
    return k, m


# Inlined: a call passing eleven arrays costs more in reference counting
# than the bucket walk itself.
@nb.njit(cache=True, inline="always")
def _rank_value(
    r: int,
    counts_below: np.ndarray,
    edges: np.ndarray,
    below: np.ndarray,
    members: np.ndarray,
    seg_s: np.ndarray,
    seg_e: np.ndarray,
    n_seg: int,
    counted: np.ndarray,
    cnt: np.ndarray,
    sorted_x: np.ndarray,
) -> float:
    """The resample's r-th smallest value (0-based), counting only its bucket."""
    n_buckets = edges.size - 1
    j = 0
    while j + 1 < n_buckets and counts_below[j + 1] <= r:
        j += 1
    lo = edges[j]
    hi = edges[j + 1]
    if counted[0] != j:
        # Members of bucket j at positions [s, e) sit in ``members`` from
        # lo + (positions before s in the bucket) to lo + (before e).
        for t in range(hi - lo):
            cnt[t] = 0
        for g in range(n_seg):
            s = seg_s[g]
            e = seg_e[g]
            first = lo + below[s, j + 1] - below[s, j]
            last = lo + below[e, j + 1] - below[e, j]
            for t in range(first, last):
                cnt[members[t] - lo] += 1
        counted[0] = j
    left = r - counts_below[j]
    cum = 0
    for t in range(hi - lo):
        cum += cnt[t]
        if cum > left:
            return sorted_x[lo + t]
    return sorted_x[hi - 1]  # unreachable: bucket j holds rank r


@nb.njit(cache=True)
def _chunk(
    sorted_x: np.ndarray,
    qs: np.ndarray,
    edges: np.ndarray,
    below: np.ndarray,
    members: np.ndarray,
    first: int,
    last: int,
    key: np.uint64,
    kind: int,
    block: float,
    out: np.ndarray,
) -> None:
    n = sorted_x.size
    n_buckets = edges.size - 1
    seg_s = np.empty(2 * n + 2, np.int64)
    seg_e = np.empty(2 * n + 2, np.int64)
    counts_below = np.empty(n_buckets + 1, np.int64)
    widest = 0
    for j in range(n_buckets):
        widest = max(widest, edges[j + 1] - edges[j])
    cnt = np.empty(widest, np.int64)
    counted = np.empty(1, np.int64)
    for b in range(first, last):
        n_seg, m = _segments(n, kind, block, stream_state(key, b), seg_s, seg_e)
        counts_below[:] = 0
        for g in range(n_seg):
            s = seg_s[g]
            e = seg_e[g]
            for k in range(n_buckets + 1):
                counts_below[k] += below[e, k] - below[s, k]
        counted[0] = -1
        for i in range(qs.size):
            r_lo, r_hi, w = linear_position(m, qs[i])
            lo = _rank_value(
                r_lo, counts_below, edges, below, members, seg_s, seg_e, n_seg, counted, cnt,
                sorted_x,
            )  # fmt: skip
            hi = lo
            if r_hi != r_lo:
                hi = _rank_value(
                    r_hi, counts_below, edges, below, members, seg_s, seg_e, n_seg, counted,
                    cnt, sorted_x,
                )  # fmt: skip
            out[b, i] = lerp(lo, hi, w)


@nb.njit(cache=True)
def bucket_serial(
    sorted_x: np.ndarray,
    qs: np.ndarray,
    edges: np.ndarray,
    below: np.ndarray,
    members: np.ndarray,
    n_resamples: int,
    key: np.uint64,
    kind: int,
    block: float,
) -> np.ndarray:
    """Block-bootstrap quantiles ``qs`` (ascending) from the tables of :func:`bucket_tables`."""
    out = np.empty((n_resamples, qs.size))
    chunks = min(_CHUNKS, n_resamples)
    for c in range(chunks):
        _chunk(
            sorted_x, qs, edges, below, members, c * n_resamples // chunks,
            (c + 1) * n_resamples // chunks, key, kind, block, out,
        )  # fmt: skip
    return out


@nb.njit(cache=True, parallel=True)
def bucket_parallel(
    sorted_x: np.ndarray,
    qs: np.ndarray,
    edges: np.ndarray,
    below: np.ndarray,
    members: np.ndarray,
    n_resamples: int,
    key: np.uint64,
    kind: int,
    block: float,
) -> np.ndarray:
    """The parallel twin of :func:`bucket_serial` (the same numbers)."""
    out = np.empty((n_resamples, qs.size))
    chunks = min(_CHUNKS, n_resamples)
    for c in nb.prange(chunks):
        _chunk(
            sorted_x, qs, edges, below, members, c * n_resamples // chunks,
            (c + 1) * n_resamples // chunks, key, kind, block, out,
        )  # fmt: skip
    return out


def bucket_work(n: int, n_quantiles: int, block: float, n_buckets: int, n_resamples: int) -> int:
    """Work of the bucket kernels per call, in the units of ``threads``."""
    blocks = n / max(block, 1.0)
    per_resample = blocks * (n_buckets + 1) + n_quantiles * (blocks + 2 * n / n_buckets)
    return int(n_resamples * per_resample)
