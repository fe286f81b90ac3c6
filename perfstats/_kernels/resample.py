"""Bootstrap resampling by rank counts.

A resample's quantile needs no sort: the sample is sorted once, a resample is
drawn as **counts** per rank (i.i.d.: n uniform indices; block schemes: the
ranks of each block's points), and one cumulative pass over the counts gives
every requested quantile at once. The mean comes from the same counts.
Nothing of size ``n_resamples x n`` is ever built.

Resample ``b`` draws from its own counter-based stream, so the output does
not depend on how numba spreads resamples over threads.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .quantile import lerp, linear_position
from .random import hi_index, lo_index, next_u64, stream_state, unit_float
from .twins import CHUNKS, twins

IID = 0
MOVING = 1
CIRCULAR = 2
STATIONARY = 3
# The moving-block variant of SuperFlow's and Metior's public reference code:
# n - b possible starts and floor((n - b) / b) blocks, so a resample is shorter
# than n. Kept to reproduce their published figures.
SUPERFLOW = 4

# Ranks summed at once in the cumulative pass (see quantiles_from_counts).
_SCAN_BLOCK = 32


@nb.njit(cache=True, inline="always")
def _fill_iid(counts: np.ndarray, state: np.uint64) -> tuple[np.uint64, int]:
    n = counts.size
    m = 0
    while m + 1 < n:
        state, v = next_u64(state)
        counts[np.uint64(hi_index(v, n))] += 1
        counts[np.uint64(lo_index(v, n))] += 1
        m += 2
    if m < n:
        state, v = next_u64(state)
        counts[np.uint64(hi_index(v, n))] += 1
        m += 1
    return state, m


@nb.njit(cache=True, inline="always")
def window_starts(kind: int, n: int, b: int) -> int:
    """How many starts a fixed block of ``b`` points of scheme ``kind`` draws from.

    Examples
    --------
    >>> from perfstats._kernels.resample import CIRCULAR, MOVING, SUPERFLOW, window_starts
    >>> [window_starts(kind, 10, 3) for kind in (MOVING, CIRCULAR, SUPERFLOW)]
    [8, 10, 7]
    """
    if kind == SUPERFLOW:
        return n - b
    return n if kind == CIRCULAR else n - b + 1


@nb.njit(cache=True, inline="always")
def resample_size(kind: int, n: int, b: int) -> int:
    """Points in one resample of ``n``: ``n``, but whole blocks of ``b`` short of it for SuperFlow.

    Examples
    --------
    >>> from perfstats._kernels.resample import MOVING, SUPERFLOW, resample_size
    >>> resample_size(MOVING, 10, 3), resample_size(SUPERFLOW, 10, 3)
    (10, 6)
    """
    if kind == SUPERFLOW:
        return ((n - b) // b) * b
    return n


@nb.njit(cache=True, inline="always")
def _fill_unwrapped(
    counts: np.ndarray, ranks: np.ndarray, b: int, starts: int, size: int, state: np.uint64
) -> tuple[np.uint64, int]:
    """Blocks of ``b`` from ``starts`` starts up to ``size`` points; the last one cut short.

    Moving blocks and SuperFlow's variant: no block wraps, so the inner loop
    needs no bounds test.
    """
    # The full blocks first: a loop of fixed length b is the faster one.
    full = size // b
    # Politis-White gives most serverless traces blocks of one to four
    # points; with the length a constant in the call, the count of a block
    # is unrolled (17-32 % faster a resample than a loop of b steps).
    if b > 4:
        state = _count_blocks(counts, ranks, b, full, starts, state)
    elif b == 1:
        state = _count_blocks(counts, ranks, 1, full, starts, state)
    elif b == 2:
        state = _count_blocks(counts, ranks, 2, full, starts, state)
    elif b == 3:
        state = _count_blocks(counts, ranks, 3, full, starts, state)
    else:
        state = _count_blocks(counts, ranks, 4, full, starts, state)
    m = full * b
    if m < size:
        state, v = next_u64(state)
        _count_run(counts, ranks, hi_index(v, starts), size - m)
        m = size
    return state, m


@nb.njit(cache=True, inline="always")
def _count_blocks(
    counts: np.ndarray, ranks: np.ndarray, b: int, n_blocks: int, starts: int, state: np.uint64
) -> np.uint64:
    """Count ``n_blocks`` blocks of ``b`` points from uniform starts; return the stream state."""
    for _ in range(n_blocks):
        state, v = next_u64(state)
        _count_run(counts, ranks, hi_index(v, starts), b)
    return state


@nb.njit(cache=True, inline="always")
def _count_run(counts: np.ndarray, ranks: np.ndarray, start: int, take: int) -> None:
    # Unsigned indices throughout the hot loops of this module: numba then
    # emits no test for a negative index, a large share of a loop this short.
    for j in range(start, start + take):
        counts[np.uint64(ranks[np.uint64(j)])] += 1


@nb.njit(cache=True, inline="always")
def _count_wrapped(counts: np.ndarray, ranks: np.ndarray, pos: int, take: int) -> None:
    """Count the ranks of ``take`` points from ``pos`` on, past the end back to the start."""
    n = counts.size
    for _ in range(take):
        counts[np.uint64(ranks[np.uint64(pos)])] += 1
        pos += 1
        if pos == n:
            pos = 0


@nb.njit(cache=True, inline="always")
def _fill_circular(
    counts: np.ndarray, ranks: np.ndarray, b: int, state: np.uint64
) -> tuple[np.uint64, int]:
    n = counts.size
    m = 0
    while m < n:
        state, v = next_u64(state)
        take = min(b, n - m)
        _count_wrapped(counts, ranks, hi_index(v, n), take)
        m += take
    return state, m


@nb.njit(cache=True, inline="always")
def stationary_block(
    state: np.uint64, n: int, room: int, p: float, log_stay: float
) -> tuple[np.uint64, int, int]:
    """Draw one stationary-bootstrap block: the stream state, its start, its length.

    Politis & Romano (1994): a uniform start and a geometric length with
    ``p = 1 / mean_block`` and ``log_stay = log(1 - p)`` (0 when ``p == 1``);
    the length is cut to ``room``, what is left of the resample. Every
    consumer of a scheme (counts, positions, bands) draws through here, so
    they all see the same blocks.
    """
    state, v = next_u64(state)
    start = hi_index(v, n)
    length = 1
    if p < 1.0:
        state, w = next_u64(state)
        u = 1.0 - unit_float(w)  # in (0, 1]: log is finite
        length = 1 + int(math.floor(math.log(u) / log_stay))
    return state, start, min(length, room)


@nb.njit(cache=True, inline="always")
def _fill_stationary(
    counts: np.ndarray, ranks: np.ndarray, mean_block: float, state: np.uint64
) -> tuple[np.uint64, int]:
    # Politis & Romano (1994): geometric block lengths with mean ``mean_block``.
    n = counts.size
    p = 1.0 / mean_block
    log_stay = math.log1p(-p) if p < 1.0 else 0.0
    m = 0
    while m < n:
        state, pos, take = stationary_block(state, n, n - m, p, log_stay)
        _count_wrapped(counts, ranks, pos, take)
        m += take
    return state, m


@nb.njit(cache=True, inline="always")
def fill_counts(
    counts: np.ndarray,
    ranks: np.ndarray,
    kind: int,
    block: float,
    state: np.uint64,
) -> tuple[np.uint64, int]:
    """Add one resample's rank counts to ``counts``; return the stream state and size.

    One small function per scheme keeps each inner loop simple enough for
    the compiler to optimise.
    """
    if kind == IID:
        return _fill_iid(counts, state)
    if kind == STATIONARY:
        return _fill_stationary(counts, ranks, block, state)
    b = int(block)
    if kind == CIRCULAR:
        return _fill_circular(counts, ranks, b, state)
    n = counts.size
    return _fill_unwrapped(
        counts, ranks, b, window_starts(kind, n, b), resample_size(kind, n, b), state
    )


# Inlined: called once per resample, and as a call it passed ten arrays,
# each with its reference count raised and dropped, which cost more than the
# pass itself for small samples (half of a resample at n = 10).
@nb.njit(cache=True, inline="always")
def quantiles_from_counts(
    counts: np.ndarray,
    sorted_x: np.ndarray,
    qs: np.ndarray,
    m: int,
    out: np.ndarray,
    lo_rank: np.ndarray,
    hi_rank: np.ndarray,
    weight: np.ndarray,
    lo_val: np.ndarray,
    hi_val: np.ndarray,
) -> None:
    """Quantiles ``qs`` (ascending) of the resample described by ``counts``."""
    nq = qs.size
    for i in range(nq):
        lo_rank[i], hi_rank[i], weight[i] = linear_position(m, qs[i])
    # Most of the cumulative pass is spent far from any wanted rank, so it
    # runs over blocks of ranks whose sums the compiler vectorises, and only
    # the block holding a wanted rank is walked rank by rank.
    tl = 0
    th = 0
    cum = 0
    nxt = lo_rank[0]
    n = counts.size
    j0 = 0
    while j0 < n and th < nq:
        j1 = min(j0 + _SCAN_BLOCK, n)
        block_sum = 0
        for j in range(j0, j1):
            block_sum += counts[np.uint64(j)]
        if cum + block_sum <= nxt:
            cum += block_sum
            j0 = j1
            continue
        for j in range(j0, j1):
            cum += counts[np.uint64(j)]
            if cum > nxt:
                while tl < nq and lo_rank[tl] < cum:
                    lo_val[tl] = sorted_x[j]
                    tl += 1
                while th < nq and hi_rank[th] < cum:
                    hi_val[th] = sorted_x[j]
                    th += 1
                if th == nq:
                    break
                nxt = hi_rank[th] if tl == nq else min(lo_rank[tl], hi_rank[th])
        j0 = j1
    for i in range(nq):
        out[i] = lerp(lo_val[i], hi_val[i], weight[i])


@nb.njit(cache=True, inline="always")
def quantile_work(
    nq: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Work arrays of :func:`quantiles_into` for ``nq`` quantiles, made once per chunk."""
    return (
        np.empty(nq, np.int64), np.empty(nq, np.int64), np.empty(nq),
        np.empty(nq), np.empty(nq), np.empty(nq),
    )  # fmt: skip


@nb.njit(cache=True, inline="always")
def quantiles_into(
    counts: np.ndarray,
    sorted_x: np.ndarray,
    qs: np.ndarray,
    m: int,
    work: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    out_row: np.ndarray,
) -> None:
    """:func:`quantiles_from_counts` into the first ``qs.size`` entries of ``out_row``."""
    lo_rank, hi_rank, weight, lo_val, hi_val, row = work
    quantiles_from_counts(counts, sorted_x, qs, m, row, lo_rank, hi_rank, weight, lo_val, hi_val)
    for i in range(qs.size):
        out_row[i] = row[i]


@nb.njit(cache=True, inline="always")
def counted_quantiles(
    counts: np.ndarray,
    sorted_x: np.ndarray,
    ranks: np.ndarray,
    qs: np.ndarray,
    kind: int,
    block: float,
    state: np.uint64,
    work: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    out_row: np.ndarray,
) -> int:
    """Draw one resample into ``counts`` (zeroed first), its quantiles into ``out_row``.

    The direct engine's step, and the band engine's recount of a resample
    whose quantile left its band. Returns the resample's size.
    """
    counts[:] = 0
    _, m = fill_counts(counts, ranks, kind, block, state)
    if qs.size > 0:
        quantiles_into(counts, sorted_x, qs, m, work, out_row)
    return m


@nb.njit(cache=True)
def _stats_chunk(
    sorted_x: np.ndarray,
    ranks: np.ndarray,
    qs: np.ndarray,
    with_mean: bool,
    first: int,
    last: int,
    key: np.uint64,
    kind: int,
    block: float,
    out: np.ndarray,
) -> None:
    """Resamples ``first`` to ``last - 1`` into rows of ``out``."""
    n = sorted_x.size
    nq = qs.size
    counts = np.zeros(n, np.int64)
    # counted_quantiles' steps, with the work arrays unpacked once and the
    # row written in place: a row view and the work tuple per resample cost
    # reference counting comparable to a small resample's whole pass.
    lo_rank, hi_rank, weight, lo_val, hi_val, row = quantile_work(nq)
    for b in range(first, last):
        counts[:] = 0
        _, m = fill_counts(counts, ranks, kind, block, stream_state(key, b))
        if nq > 0:
            quantiles_from_counts(
                counts, sorted_x, qs, m, row, lo_rank, hi_rank, weight, lo_val, hi_val
            )
            for i in range(nq):
                out[b, i] = row[i]
        if with_mean:
            total = 0.0
            for j in range(n):
                total += counts[np.uint64(j)] * sorted_x[np.uint64(j)]
            out[b, nq] = total / m


def _stats(
    sorted_x: np.ndarray,
    ranks: np.ndarray,
    qs: np.ndarray,
    with_mean: bool,
    n_resamples: int,
    key: np.uint64,
    kind: int,
    block: float,
) -> np.ndarray:
    """Resampled quantiles ``qs`` (ascending) and optionally the mean.

    Returns an array of shape ``(n_resamples, len(qs) + with_mean)``; the
    mean, when asked for, is the last column. Callers choose the twin with
    :func:`perfstats._kernels.threads.run_kernel`.
    """
    out = np.empty((n_resamples, qs.size + (1 if with_mean else 0)))
    chunks = min(CHUNKS, n_resamples)
    for c in nb.prange(chunks):
        first = c * n_resamples // chunks
        last = (c + 1) * n_resamples // chunks
        _stats_chunk(sorted_x, ranks, qs, with_mean, first, last, key, kind, block, out)
    return out


# One body, compiled serial and parallel (twins.py): each resample draws from
# its own stream, so both give the same numbers.
stats_serial, stats_parallel = twins(_stats)


@nb.njit(cache=True)
def resample_positions_range(
    n: int, first: int, last: int, key: np.uint64, kind: int, block: float, order: np.ndarray
) -> np.ndarray:
    """Positions (into the original order) of resamples ``first .. last - 1``.

    Uses the same streams as ``stats_serial``, so a callable statistic
    sees exactly the resamples the named statistics see. Shape
    ``(last - first, m)`` with ``m`` the resample size of the scheme; callers
    stream over ranges so that memory stays bounded for any number of
    resamples.
    """
    m = resample_size(kind, n, int(block))
    out = np.empty((last - first, m), np.int64)
    # Serial: the callable that consumes these positions runs in Python and
    # dominates the cost anyway.
    for bi in range(first, last):
        row = out[bi - first]
        # The same draws as fill_counts, but recording positions in order.
        fill_positions(row, n, kind, block, stream_state(key, bi))
        if kind == IID:
            # i.i.d. draws index the sorted sample; map them back to positions.
            for j in range(m):
                row[j] = order[row[j]]
    return out


@nb.njit(cache=True)
def resample_positions(
    n: int, n_resamples: int, key: np.uint64, kind: int, block: float, order: np.ndarray
) -> np.ndarray:
    """Positions of every resample at once, shape ``(n_resamples, m)`` (small inputs only)."""
    return resample_positions_range(n, 0, n_resamples, key, kind, block, order)


@nb.njit(cache=True, inline="always")
def _put_wrapped(row: np.ndarray, m: int, pos: int, take: int, n: int) -> int:
    """Write ``take`` positions from ``pos`` on (wrapping at ``n``) at ``row[m:]``; return new m."""
    for _ in range(take):
        row[m] = pos
        m += 1
        pos += 1
        if pos == n:
            pos = 0
    return m


@nb.njit(cache=True)
def fill_positions(row: np.ndarray, n: int, kind: int, block: float, state: np.uint64) -> None:
    """Write one resample's positions into ``row`` (mirrors :func:`fill_counts`)."""
    m = 0
    if kind == IID:
        while m + 1 < n:
            state, v = next_u64(state)
            row[m] = hi_index(v, n)
            row[m + 1] = lo_index(v, n)
            m += 2
        if m < n:
            state, v = next_u64(state)
            row[m] = hi_index(v, n)
        return
    if kind == STATIONARY:
        p = 1.0 / block
        log_stay = math.log1p(-p) if p < 1.0 else 0.0
        while m < n:
            state, pos, take = stationary_block(state, n, n - m, p, log_stay)
            m = _put_wrapped(row, m, pos, take, n)
        return
    b = int(block)
    starts = window_starts(kind, n, b)
    size = resample_size(kind, n, b)
    while m < size:
        state, v = next_u64(state)
        m = _put_wrapped(row, m, hi_index(v, starts), min(b, size - m), n)
