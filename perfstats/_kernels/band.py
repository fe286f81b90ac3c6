"""Block-bootstrap quantiles from a narrow band of order statistics.

A block resample's q-quantile is its r-th smallest value, and that value
almost surely lies among the sample's order statistics close to rank
``r n / m``. So only the points whose sample rank falls inside a **band**
around each wanted rank are counted one by one; for the rest, a block
contributes only *how many* of its points lie below the band, read off a
prefix count in O(1). A block of ``b`` points then costs O(1) plus its band
members instead of O(b), and no O(n) pass over counts is needed.

The band is wide (six standard deviations of the resampled count,
estimated from the blocks themselves), and a resample whose quantile falls
outside it after all is recounted directly. Both paths see the **same
resample** (the same draws from the same stream as
:mod:`perfstats._kernels.resample`), so the result equals the direct
engine's value for value; the band only saves work.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numba as nb
import numpy as np

from .orderstat import binomial
from .quantile import lerp, linear_position
from .random import hi_index, next_u64, stream_state
from .resample import (
    CIRCULAR,
    STATIONARY,
    counted_quantiles,
    quantile_work,
    quantiles_into,
    resample_size,
    stationary_block,
    window_starts,
)
from .twins import CHUNKS, twins

# Standard deviations of the resampled count on each side of a wanted rank.
SPREAD = 6.0


@nb.njit(cache=True, inline="always")
def _add_segment(
    s: int,
    e: int,
    below: np.ndarray,
    prefix: np.ndarray,
    member_slot: np.ndarray,
    band_counts: np.ndarray,
) -> None:
    """Add positions ``s .. e - 1`` (no wrap): below-band counts and band members."""
    # One row per position holds every band's prefix and the member index, so
    # a block end costs one cache line, not one per table.
    nb_ = below.size
    for j in range(nb_):
        below[j] += prefix[e, j] - prefix[s, j]
    for t in range(prefix[s, nb_], prefix[e, nb_]):
        band_counts[member_slot[t]] += 1


@nb.njit(cache=True, inline="always")
def _add_wrapped(
    pos: int,
    take: int,
    n: int,
    below: np.ndarray,
    prefix: np.ndarray,
    member_slot: np.ndarray,
    band_counts: np.ndarray,
) -> None:
    end = pos + take
    if end <= n:
        _add_segment(pos, end, below, prefix, member_slot, band_counts)
    else:
        _add_segment(pos, n, below, prefix, member_slot, band_counts)
        _add_segment(0, end - n, below, prefix, member_slot, band_counts)


@nb.njit(cache=True)
def _band_resample(
    n: int,
    kind: int,
    block: float,
    state: np.uint64,
    below: np.ndarray,
    prefix: np.ndarray,
    member_slot: np.ndarray,
    band_counts: np.ndarray,
) -> int:
    """One resample's band counts; the draws mirror ``resample.fill_counts``. Returns m."""
    m = 0
    if kind == CIRCULAR:
        b = int(block)
        while m < n:
            state, v = next_u64(state)
            pos = hi_index(v, n)
            take = min(b, n - m)
            _add_wrapped(pos, take, n, below, prefix, member_slot, band_counts)
            m += take
        return m
    if kind == STATIONARY:
        p = 1.0 / block
        log_stay = math.log1p(-p) if p < 1.0 else 0.0
        while m < n:
            state, pos, take = stationary_block(state, n, n - m, p, log_stay)
            _add_wrapped(pos, take, n, below, prefix, member_slot, band_counts)
            m += take
        return m
    # Moving blocks and SuperFlow's variant: no block wraps; the last one is
    # cut short (never for SuperFlow, whose resamples are whole blocks).
    b = int(block)
    starts = window_starts(kind, n, b)
    size = resample_size(kind, n, b)
    while m < size:
        state, v = next_u64(state)
        start = hi_index(v, starts)
        take = min(b, size - m)
        _add_segment(start, start + take, below, prefix, member_slot, band_counts)
        m += take
    return m


@nb.njit(cache=True)
def _order_stat(
    r: int,
    j: int,
    below: np.ndarray,
    band_lo: np.ndarray,
    band_offset: np.ndarray,
    band_counts: np.ndarray,
    sorted_x: np.ndarray,
) -> tuple[bool, float]:
    """The resample's r-th smallest value if it lies in band ``j``."""
    left = r - below[j]
    if left < 0:
        return False, 0.0
    cum = 0
    for t in range(band_offset[j], band_offset[j + 1]):
        cum += band_counts[t]
        if cum > left:
            return True, sorted_x[band_lo[j] + t - band_offset[j]]
    return False, 0.0


@nb.njit(cache=True)
def _band_row(
    m: int,
    qs: np.ndarray,
    q_band: np.ndarray,
    below: np.ndarray,
    band_lo: np.ndarray,
    band_offset: np.ndarray,
    band_counts: np.ndarray,
    sorted_x: np.ndarray,
    out_row: np.ndarray,
) -> bool:
    """The resample's quantiles into ``out_row``; False when one lies outside its band."""
    for i in range(qs.size):
        r_lo, r_hi, g = linear_position(m, qs[i])
        found, lo = _order_stat(r_lo, q_band[i], below, band_lo, band_offset, band_counts, sorted_x)
        hi = lo
        if found and r_hi != r_lo:
            found, hi = _order_stat(
                r_hi, q_band[i], below, band_lo, band_offset, band_counts, sorted_x
            )
        if not found:
            return False
        out_row[i] = lerp(lo, hi, g)
    return True


@nb.njit(cache=True)
def count_spread(ranks: np.ndarray, center: int, length: int) -> float:
    """Variance, over circular block starts, of a block's count of ranks below ``center``."""
    n = ranks.size
    c = 0
    for j in range(length):
        c += ranks[j % n] < center
    s1 = 0.0
    s2 = 0.0
    for s in range(n):
        s1 += c
        s2 += c * c
        c -= ranks[s] < center
        c += ranks[(s + length) % n] < center
    mean = s1 / n
    return max(s2 / n - mean * mean, 0.0)


@nb.njit(cache=True)
def band_tables(
    ranks: np.ndarray, band_lo: np.ndarray, band_hi: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Prefix counts below each band with the band-member index as last column,
    the members' slots in position order, and the band offsets."""
    n = ranks.size
    n_bands = band_lo.size
    offset = np.zeros(n_bands + 1, np.int64)
    for j in range(n_bands):
        offset[j + 1] = offset[j] + band_hi[j] - band_lo[j]
    # int32 halves the table; callers keep n below 2**31.
    prefix = np.zeros((n + 1, n_bands + 1), np.int32)
    members = 0
    for p in range(n):
        r = ranks[p]
        inside = False
        for j in range(n_bands):
            prefix[p + 1, j] = prefix[p, j] + (1 if r < band_lo[j] else 0)
            if band_lo[j] <= r < band_hi[j]:
                inside = True
        if inside:
            members += 1
        prefix[p + 1, n_bands] = members
    slot = np.empty(members, np.int64)
    t = 0
    for p in range(n):
        r = ranks[p]
        for j in range(n_bands):
            if band_lo[j] <= r < band_hi[j]:
                slot[t] = offset[j] + r - band_lo[j]
                t += 1
                break
    return prefix, slot, offset


def plan_bands(
    ranks: np.ndarray, qs: np.ndarray, m: int, block: float, spread: float = SPREAD
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Disjoint rank bands ``[lo, hi)`` and each quantile's band index.

    ``spread`` standard deviations of the resampled count on each side of
    the wanted rank (tests narrow it to exercise the recount).
    """
    n = ranks.size
    length = max(1, int(round(block)))
    n_blocks = math.ceil(m / length)
    wanted = []
    for q in qs:
        r_lo, r_hi, _ = linear_position(m, float(q))
        center = min(n - 1, int(round(r_lo * n / m)))
        var = count_spread(ranks, center, length)
        half = spread * math.sqrt(n_blocks * var) * n / m + 2 * length + 16
        wanted.append((max(0, int(r_lo * n / m - half)), min(n, int(r_hi * n / m + half) + 1)))
    order = sorted(range(len(wanted)), key=lambda i: wanted[i])
    bands: list[list[int]] = []
    q_band = np.empty(len(wanted), np.int64)
    for i in order:
        lo, hi = wanted[i]
        if bands and lo <= bands[-1][1]:
            bands[-1][1] = max(bands[-1][1], hi)
        else:
            bands.append([lo, hi])
        q_band[i] = len(bands) - 1
    band_lo = np.array([b[0] for b in bands], np.int64)
    band_hi = np.array([b[1] for b in bands], np.int64)
    return band_lo, band_hi, q_band


# --- Short blocks: plain blocks drawn by class, not one by one --------------
#
# With short blocks (the automatic length of nearly independent data is 1 to
# 3) a resample has ~n / b blocks and even O(1) per block is O(n). But a
# block holding no band member matters only through how many of its points
# lie below each band, a vector that takes few values ("classes"). So the
# number of blocks of each class is drawn as one multinomial (sequential
# exact binomials), and only the blocks touching a band are drawn one by
# one, uniformly among the starts that touch it. This draws the same
# distribution of resamples as the direct engine, not the same resamples: a
# resample whose quantile leaves the band is completed, by drawing the
# start of every plain block uniformly within its class, and counted.


@nb.njit(cache=True)
def block_classes(
    prefix: np.ndarray, n: int, b: int, n_starts: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Classes of the full blocks starting at ``0 .. n_starts - 1``.

    Returns the touching starts, each class's below-band counts (one row
    per class), the starts grouped by class and the class offsets into them.
    """
    n_bands = prefix.shape[1] - 1
    base = b + 1
    n_codes = base**n_bands
    code_of = np.empty(n_starts, np.int64)
    code_count = np.zeros(n_codes, np.int64)
    touching = 0
    for s in range(n_starts):
        e = s + b
        code = 0
        mult = 1
        if e <= n:
            members = prefix[e, n_bands] - prefix[s, n_bands]
            for j in range(n_bands):
                code += (prefix[e, j] - prefix[s, j]) * mult
                mult *= base
        else:
            members = prefix[n, n_bands] - prefix[s, n_bands] + prefix[e - n, n_bands]
            for j in range(n_bands):
                code += (prefix[n, j] - prefix[s, j] + prefix[e - n, j]) * mult
                mult *= base
        if members > 0:
            code_of[s] = -1
            touching += 1
        else:
            code_of[s] = code
            code_count[code] += 1
    n_classes = 0
    for c in range(n_codes):
        if code_count[c] > 0:
            n_classes += 1
    class_of_code = np.full(n_codes, -1, np.int64)
    below = np.empty((n_classes, n_bands), np.int64)
    offset = np.zeros(n_classes + 1, np.int64)
    k = 0
    for c in range(n_codes):
        if code_count[c] > 0:
            class_of_code[c] = k
            rest = c
            for j in range(n_bands):
                below[k, j] = rest % base
                rest //= base
            offset[k + 1] = offset[k] + code_count[c]
            k += 1
    starts = np.empty(n_starts - touching, np.int64)
    fill = offset[:-1].copy()
    touch = np.empty(touching, np.int64)
    t = 0
    for s in range(n_starts):
        if code_of[s] < 0:
            touch[t] = s
            t += 1
        else:
            k = class_of_code[code_of[s]]
            starts[fill[k]] = s
            fill[k] += 1
    return touch, below, starts, offset


@nb.njit(cache=True)
def _class_resample(
    n: int,
    kind: int,
    b: int,
    state: np.uint64,
    touch: np.ndarray,
    class_below: np.ndarray,
    class_starts: np.ndarray,
    class_offset: np.ndarray,
    n_of_class: np.ndarray,
    below: np.ndarray,
    prefix: np.ndarray,
    member_slot: np.ndarray,
    band_counts: np.ndarray,
    counts: np.ndarray,
    ranks: np.ndarray,
    complete: bool,
) -> int:
    """One resample's band counts (or, ``complete``, its full rank counts). Returns m."""
    n_starts = window_starts(kind, n, b)
    m = resample_size(kind, n, b)
    n_full = m // b
    partial = m - n_full * b
    # How many full blocks touch a band, then how many fall in each class.
    state, n_touch = binomial(state, n_full, touch.size / n_starts)
    left = n_full - n_touch
    pool = n_starts - touch.size
    n_classes = class_offset.size - 1
    for c in range(n_classes):
        size = class_offset[c + 1] - class_offset[c]
        if c == n_classes - 1 or left == 0:
            k = left
        else:
            state, k = binomial(state, left, size / pool)
        n_of_class[c] = k
        left -= k
        pool -= size
        for j in range(below.size):
            below[j] += k * class_below[c, j]
    for _ in range(n_touch):
        state, v = next_u64(state)
        s = touch[hi_index(v, touch.size)]
        _add_wrapped(s, b, n, below, prefix, member_slot, band_counts)
        if complete:
            _count_block(s, b, n, counts, ranks)
    if partial > 0:
        state, v = next_u64(state)
        s = hi_index(v, n_starts)
        _add_wrapped(s, partial, n, below, prefix, member_slot, band_counts)
        if complete:
            _count_block(s, partial, n, counts, ranks)
    if complete:
        # The plain blocks themselves: uniform starts within each class.
        for c in range(n_classes):
            first = class_offset[c]
            size = class_offset[c + 1] - first
            for _ in range(n_of_class[c]):
                state, v = next_u64(state)
                _count_block(class_starts[first + hi_index(v, size)], b, n, counts, ranks)
    return m


@nb.njit(cache=True, inline="always")
def _count_block(s: int, take: int, n: int, counts: np.ndarray, ranks: np.ndarray) -> None:
    for j in range(s, s + take):
        counts[ranks[j - n if j >= n else j]] += 1


@nb.njit(cache=True, inline="always")
def _n_classes(class_offset: np.ndarray | None) -> int:
    # numba prunes the branch on None at compile time: the engine without
    # classes is compiled apart, free of the class engine's code.
    return 0 if class_offset is None else class_offset.size - 1


@nb.njit(cache=True)
def _chunk(
    sorted_x: np.ndarray,
    ranks: np.ndarray,
    qs: np.ndarray,
    q_band: np.ndarray,
    band_lo: np.ndarray,
    band_offset: np.ndarray,
    prefix: np.ndarray,
    member_slot: np.ndarray,
    touch: np.ndarray,
    class_below: np.ndarray,
    class_starts: np.ndarray,
    class_offset: np.ndarray | None,
    first: int,
    last: int,
    key: np.uint64,
    kind: int,
    block: float,
    out: np.ndarray,
) -> int:
    """Resamples ``first .. last - 1`` into rows of ``out``; returns how many were recounted.

    With no classes (``class_offset`` None; the other class arrays are
    then not read) every block is drawn as the direct engine draws it; with
    them, plain blocks are drawn by class.
    """
    n = sorted_x.size
    n_bands = band_lo.size
    below = np.zeros(n_bands, np.int64)
    band_counts = np.zeros(band_offset[n_bands], np.int64)
    n_of_class = np.zeros(_n_classes(class_offset), np.int64)
    counts = np.zeros(0, np.int64)
    recounted = 0
    work = quantile_work(qs.size)
    for r in range(first, last):
        below[:] = 0
        band_counts[:] = 0
        state = stream_state(key, r)
        if class_offset is not None:
            m = _class_resample(
                n, kind, int(block), state, touch, class_below, class_starts, class_offset,
                n_of_class, below, prefix, member_slot, band_counts, counts, ranks, False,
            )  # fmt: skip
        else:
            m = _band_resample(n, kind, block, state, below, prefix, member_slot, band_counts)
        if _band_row(m, qs, q_band, below, band_lo, band_offset, band_counts, sorted_x, out[r]):
            continue
        # Outside the band after all: count this very resample directly.
        recounted += 1
        if counts.size == 0:
            counts = np.zeros(n, np.int64)
        if class_offset is None:
            counted_quantiles(counts, sorted_x, ranks, qs, kind, block, state, work, out[r])
            continue
        counts[:] = 0
        below[:] = 0
        band_counts[:] = 0
        m = _class_resample(
            n, kind, int(block), state, touch, class_below, class_starts, class_offset,
            n_of_class, below, prefix, member_slot, band_counts, counts, ranks, True,
        )  # fmt: skip
        quantiles_into(counts, sorted_x, qs, m, work, out[r])
    return recounted


def _class(
    sorted_x: np.ndarray, ranks: np.ndarray, qs: np.ndarray, q_band: np.ndarray,
    band_lo: np.ndarray, band_offset: np.ndarray, prefix: np.ndarray, member_slot: np.ndarray,
    touch: np.ndarray, class_below: np.ndarray, class_starts: np.ndarray,
    class_offset: np.ndarray | None, n_resamples: int, key: np.uint64, kind: int, block: float,
) -> np.ndarray:  # fmt: skip
    out = np.empty((n_resamples, qs.size))
    chunks = min(CHUNKS, n_resamples)
    for c in nb.prange(chunks):
        _chunk(
            sorted_x, ranks, qs, q_band, band_lo, band_offset, prefix, member_slot, touch,
            class_below, class_starts, class_offset, c * n_resamples // chunks,
            (c + 1) * n_resamples // chunks, key, kind, float(block), out,
        )  # fmt: skip
    return out


class_serial, class_parallel = twins(_class)


def _without_classes(engine: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """The class engine ``engine`` given no classes: every block drawn one by one."""

    def band(
        sorted_x: np.ndarray, ranks: np.ndarray, qs: np.ndarray, q_band: np.ndarray,
        band_lo: np.ndarray, band_offset: np.ndarray, prefix: np.ndarray,
        member_slot: np.ndarray, n_resamples: int, key: np.uint64, kind: int, block: float,
    ) -> np.ndarray:  # fmt: skip
        unread = np.zeros(0, np.int64)
        return engine(
            sorted_x, ranks, qs, q_band, band_lo, band_offset, prefix, member_slot, unread,
            np.zeros((0, 0), np.int64), unread, None, n_resamples, key, kind, block,
        )  # fmt: skip

    return band


# The direct engine's numbers: the class engine's chunks with no classes.
band_serial, band_parallel = _without_classes(class_serial), _without_classes(class_parallel)
