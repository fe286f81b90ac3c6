"""Fixed-length block bootstraps of small samples from per-window rank tables.

The direct engine (:mod:`perfstats._kernels.resample`) spends O(n) per
resample: it adds every point of every block to a count per rank, then
scans the counts. With fixed-length blocks every block is one of only
``n_starts`` windows of the sample, so each window's content is tabulated
once: ``below[s, g]`` is how many of window ``s``'s ranks are smaller than
``g << shift``, for a coarse and a fine group size (powers of two, 16 fine
groups to a coarse one), and a bit mask per fine group of the ranks the
window holds. A resample then

1. sums one short coarse row per block: how many of its points fall below
   every coarse boundary, which locates each wanted order statistic's
   coarse group;
2. sums the 16 fine columns of that coarse group per block, which locates
   its fine group;
3. counts each rank of the fine group: a rank occurs once per block whose
   mask has its bit (a vertical count of the blocks' masks).

A resample's last, shorter block (``n % b`` points) is counted point by
point at each step, so one table serves every block, and the windows of
the first ``n' < n`` points of a sample are windows of the whole sample:
nested sets (Metior's previous and all runs) share one set of tables.

The draws are those of ``resample.fill_counts`` and the order statistics
are the same ranks, so the result equals the direct engine's value for
value, at a fraction of its cost for blocks of six points or more.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .quantile import lerp, linear_position
from .random import hi_index, nth_u64, stream_state
from .resample import resample_size, window_starts
from .twins import CHUNKS, twins

# 16 ranks per fine group (one bit each in a window's uint16 mask) and 16
# fine groups per coarse group (one int16 vector register per block).
FINE = 4
COARSE = 8


@nb.njit(cache=True)
def block_table(
    ranks: np.ndarray, b: int, n_starts: int, shift: int, n_cols: int, lanes: int
) -> np.ndarray:
    """``below[g // lanes, s, g % lanes]``: how many ranks of window ``s`` are below ``g << shift``.

    int16 counts, group-major: ``lanes`` consecutive columns of every window
    side by side. Window ``s`` holds positions ``s .. s + b - 1`` (taken
    modulo ``n``, for the circular scheme). Each window is the previous one
    with one rank dropped and one added, so a row costs O(columns), not
    O(b). Columns past the last rank hold the full count ``b``.
    """
    n = ranks.size
    planes = n_cols // lanes
    below = np.zeros((planes, n_starts, lanes), np.int16)
    for j in range(b):
        for g in range((ranks[j] >> shift) + 1, n_cols):
            below[g // lanes, 0, g % lanes] += 1
    old = np.empty(n_starts, np.int64)
    new = np.empty(n_starts, np.int64)
    for s in range(1, n_starts):
        old[s] = (ranks[s - 1] >> shift) + 1
        new[s] = (ranks[(s + b - 1) % n] >> shift) + 1
    for p in range(planes):
        up = np.uint64(p)
        for s in range(1, n_starts):
            us = np.uint64(s)
            prev = np.uint64(s - 1)
            drop = old[us]
            add = new[us]
            for t in range(lanes):
                ut = np.uint64(t)
                g = p * lanes + t
                below[up, us, ut] = below[up, prev, ut] - (g >= drop) + (g >= add)
    return below


# The coarse and fine counts (as uint64 words) and the masks of the
# windows, group-major (see window_tables).
Tables = tuple[np.ndarray, np.ndarray, np.ndarray]

# Columns of the coarse table: a row is four uint64 words of four int16
# counts, summed four lanes at a time (so n < 15 * 2**COARSE).
COARSE_COLUMNS = 16
MAX_N = (COARSE_COLUMNS - 1) << COARSE


def fine_columns(n: int) -> int:
    """Columns of the fine table: 16 per coarse group (the coarse table has the ends)."""
    return (((n - 1) >> COARSE) + 1) << (COARSE - FINE)


@nb.njit(cache=True)
def _lane_steps() -> np.ndarray:
    """``steps[k]``: +1 in each of the 16 int16 lanes ``>= k`` of four uint64 words."""
    out = np.zeros((17, 4), np.uint64)
    for k in range(17):
        for lane in range(k, 16):
            out[k, lane >> 2] += np.uint64(1) << np.uint64(16 * (lane & 3))
    return out


@nb.njit(cache=True, inline="always")
def _unpack(w0: np.uint64, w1: np.uint64, w2: np.uint64, w3: np.uint64, out: np.ndarray) -> None:
    """The 16 int16 lanes of four uint64 words into ``out[0:16]``."""
    for q in range(4):
        sh = np.uint64(16 * q)
        out[q] = np.int64((w0 >> sh) & _LANE)
        out[4 + q] = np.int64((w1 >> sh) & _LANE)
        out[8 + q] = np.int64((w2 >> sh) & _LANE)
        out[12 + q] = np.int64((w3 >> sh) & _LANE)


_LANE = np.uint64(0xFFFF)
# A 4-bit value times _SPREAD puts bit t at bit 16 t (its four partial
# products land on bits 0-3, 15-18, 30-33 and 45-48, so no carries), and
# _LANE_ONES keeps those bits: the value's bits as four int16 lanes, by
# arithmetic rather than a table lookup.
_SPREAD = np.uint64(0x0000200040008001)
_LANE_ONES = np.uint64(0x0001000100010001)
_NIBBLE = np.uint64(15)


@nb.njit(cache=True, inline="always")
def _nibble_lanes(mask: np.uint64, k: int) -> np.uint64:
    """Bits ``4 k .. 4 k + 3`` of a 16-bit ``mask`` as four int16 lanes of 0 or 1."""
    return (((mask >> np.uint64(4 * k)) & _NIBBLE) * _SPREAD) & _LANE_ONES


@nb.njit(cache=True)
def window_masks(ranks: np.ndarray, b: int, n_starts: int) -> np.ndarray:
    """``masks[g, s]``: bit ``t`` set when rank ``16 g + t`` lies in window ``s`` (uint16)."""
    n = ranks.size
    n_groups = ((n - 1) >> FINE) + 1
    masks = np.zeros((n_groups, n_starts), np.uint16)
    low = (1 << FINE) - 1
    if b * (1 << FINE) <= n:
        # Short windows: set each point's bit in the b windows holding it
        # (O(n b)) rather than copying every row (O(n^2 / 16)).
        for p in range(n):
            r = ranks[p]
            g = np.uint64(r >> FINE)
            bit = np.uint16(1 << (r & low))
            for j in range(b):
                s = p - j
                if s < 0:
                    s += n  # a wrapping window: only circular schemes have it
                if s < n_starts:
                    masks[g, np.uint64(s)] |= bit
        return masks
    for j in range(b):
        r = ranks[j]
        masks[r >> FINE, 0] |= np.uint16(1 << (r & low))
    for s in range(1, n_starts):
        for g in range(n_groups):
            masks[g, s] = masks[g, s - 1]
        old = ranks[s - 1]
        new = ranks[(s + b - 1) % n]
        masks[old >> FINE, s] &= np.uint16(~(1 << (old & low)) & 0xFFFF)
        masks[new >> FINE, s] |= np.uint16(1 << (new & low))
    return masks


@nb.njit(cache=True)
def _coarse_from_fine(fine: np.ndarray, b: int) -> np.ndarray:
    """The coarse counts (group-major, four lanes) read off the fine table.

    Coarse boundary ``c`` (rank ``c << COARSE``) is fine boundary ``16 c``,
    the first column of coarse group ``c``; boundaries past the last group
    count every point of a window.
    """
    groups, rows, _ = fine.shape
    coarse = np.full((COARSE_COLUMNS // 4, rows, 4), b, np.int16)
    for c in range(groups):
        for s in range(rows):
            coarse[c >> 2, s, c & 3] = fine[c, s, 0]
    return coarse


def window_tables(ranks: np.ndarray, b: int, n_starts: int) -> Tables:
    """The count and mask tables of the ``n_starts`` windows of ``b`` points.

    Group-major: ``coarse[w, s]`` (word ``w`` of window ``s``'s coarse row),
    ``fine[h, s, w]`` (word ``w`` of coarse group ``h``'s fine counts) and
    ``masks[g, s]``. A resample reads one group of every drawn window, and
    the resampled order statistics fall into a few groups only, so the
    entries it reads lie side by side in cache rather than a row apart.
    The last, shorter block of a resample is counted point by point (see
    :func:`_table_chunk`), so one length serves every block.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats._kernels.blocktable import window_tables
    >>> coarse, fine, masks = window_tables(np.arange(20), 4, 17)
    >>> coarse.shape, fine.shape, masks.shape
    ((4, 17), (1, 17, 4), (2, 17))
    """
    fine = block_table(ranks, b, n_starts, FINE, fine_columns(ranks.size), 16)
    # Four int16 counts per uint64 word (see _table_chunk).
    coarse = _coarse_from_fine(fine, b).view(np.uint64).reshape(-1, n_starts)
    return coarse, fine.view(np.uint64), window_masks(ranks, b, n_starts)


@nb.njit(cache=True)
def _table_chunk(
    out: np.ndarray,
    first: int,
    last: int,
    sorted_x: np.ndarray,
    ranks: np.ndarray,
    n: int,
    qs: np.ndarray,
    tables: Tables,
    key: np.uint64,
    kind: int,
    b: int,
) -> None:
    """Resamples ``first .. last - 1`` of the first ``n`` points into rows of ``out``.

    ``sorted_x`` and ``ranks`` may belong to a longer sample of which the
    resampled points are the first ``n`` (see :func:`table_quantiles`).
    """
    # The count tables arrive as uint64 words of four int16 counts: summing
    # a word sums four counts (no lane overflows, as every count is <= n).
    coarse_below, fine_below, masks = tables
    nq = qs.size
    acc = np.zeros(17, np.int64)
    acc_f = np.zeros(17, np.int64)
    hist = np.zeros(16, np.int64)
    steps = _lane_steps()
    tail_r = np.empty(b, np.int64)
    # Unsigned, so that numba indexes the tables with them without a test
    # for negative indices (about a tenth of the kernel's time).
    starts = np.empty(n // b + 1, np.uint64)
    found = np.empty(n // b + 1, np.uint64)
    # The first coarse column at or past the last rank; when the columns
    # below it fit in the first word (ranks < 1024), only that word of a row
    # needs summing.
    full = ((sorted_x.size - 1) >> COARSE) + 1
    one_word = full <= 4
    # The blocks of resample.fill_counts: the full ones, then the last,
    # shorter one (none for SuperFlow, whose resamples stop short of n).
    span = window_starts(kind, n, b)
    m = resample_size(kind, n, b)
    n_blocks = m // b
    tail_take = m - n_blocks * b
    for r in range(first, last):
        state = stream_state(key, r)
        # Draw k of a stream is a function of k alone, so a counted loop,
        # which the compiler vectorises (twice as fast as stepping the
        # state), gives the starts of resample.fill_counts.
        for k in range(n_blocks + (tail_take > 0)):
            starts[k] = np.uint64(hi_index(nth_u64(state, k), span))
        if tail_take > 0:
            # Few points, each counted alone below, rather than a table for
            # every start and length.
            first_tail = np.int64(starts[n_blocks])
            for j in range(tail_take):
                p = first_tail + j
                if p >= n:
                    p -= n  # a wrapping window: only circular schemes have it
                tail_r[j] = ranks[p]
        w0 = w1 = w2 = w3 = np.uint64(0)
        if one_word:
            c0 = coarse_below[0]
            for k in range(n_blocks):
                w0 += c0[starts[k]]
        else:
            for k in range(n_blocks):
                s = starts[k]
                w0 += coarse_below[0, s]
                w1 += coarse_below[1, s]
                w2 += coarse_below[2, s]
                w3 += coarse_below[3, s]
        for j in range(tail_take):
            # A point of coarse group c is below the boundaries c + 1 on.
            step = steps[(tail_r[j] >> COARSE) + 1]
            w0 += step[0]
            w1 += step[1]
            w2 += step[2]
            w3 += step[3]
        _unpack(w0, w1, w2, w3, acc)
        # Columns from ``full`` on count every point of a block: their sum is m.
        for g in range(full, 17):
            acc[g] = m
        built_h = -1
        built_g = -1
        h = 0
        j = 0
        for i in range(nq):
            r_lo, r_hi, w = linear_position(m, qs[i])
            lo = 0.0
            hi = 0.0
            for side in range(2):
                want = r_lo if side == 0 else r_hi
                # Quantiles ascend, so the pointers move mostly forward (back
                # only from one quantile's upper rank to the next's lower).
                while acc[h + 1] <= want:
                    h += 1
                while acc[h] > want:
                    h -= 1
                if built_h != h:
                    # The coarse group's 16 fine boundaries, then its end.
                    fine_h = fine_below[h]
                    w0 = w1 = w2 = w3 = np.uint64(0)
                    for k in range(n_blocks):
                        s = starts[k]
                        w0 += fine_h[s, 0]
                        w1 += fine_h[s, 1]
                        w2 += fine_h[s, 2]
                        w3 += fine_h[s, 3]
                    base = h << (COARSE - FINE)
                    for t in range(tail_take):
                        # Below the group: below all 16 boundaries; past it: none.
                        lane = (tail_r[t] >> FINE) - base + 1
                        step = steps[min(max(lane, 0), 16)]
                        w0 += step[0]
                        w1 += step[1]
                        w2 += step[2]
                        w3 += step[3]
                    _unpack(w0, w1, w2, w3, acc_f)
                    acc_f[16] = acc[h + 1]
                    built_h = h
                    j = 0
                while acc_f[j + 1] <= want:
                    j += 1
                while acc_f[j] > want:
                    j -= 1
                g = (h << (COARSE - FINE)) + j
                if built_g != g:
                    # Each rank occurs once per block holding it: a vertical
                    # count of the blocks' mask bits, four lanes per word.
                    # A short window holds no rank of most groups, so the
                    # non-empty masks are gathered first (a store and a
                    # counter step each, no branch to mispredict).
                    masks_g = masks[g]
                    held = 0
                    for k in range(n_blocks):
                        mask = np.uint64(masks_g[starts[k]])
                        found[held] = mask
                        held += mask != 0
                    w0 = w1 = w2 = w3 = np.uint64(0)
                    for k in range(held):
                        mask = found[k]
                        w0 += _nibble_lanes(mask, 0)
                        w1 += _nibble_lanes(mask, 1)
                        w2 += _nibble_lanes(mask, 2)
                        w3 += _nibble_lanes(mask, 3)
                    _unpack(w0, w1, w2, w3, hist)
                    for t in range(tail_take):
                        if tail_r[t] >> FINE == g:
                            hist[tail_r[t] & 15] += 1
                    built_g = g
                left = want - acc_f[j]
                cum = 0
                t = 0
                while True:
                    cum += hist[t]
                    if cum > left:
                        break
                    t += 1
                value = sorted_x[(g << FINE) + t]
                if side == 0:
                    lo = value
                else:
                    hi = value
            out[r, i] = lerp(lo, hi, w)


def _table(
    sorted_x: np.ndarray,
    ranks: np.ndarray,
    sizes: np.ndarray,
    keys: np.ndarray,
    qs: np.ndarray,
    tables: Tables,
    kind: int,
    b: int,
    n_resamples: int,
) -> np.ndarray:
    n_sets = sizes.size
    out = np.empty((n_sets, n_resamples, qs.size))
    # A resample's numbers depend on its index alone, so a fixed number of
    # chunks (some empty when there are fewer resamples) serves any count.
    for c in nb.prange(n_sets * CHUNKS):
        i = c // CHUNKS
        part = c % CHUNKS
        first = part * n_resamples // CHUNKS
        last = (part + 1) * n_resamples // CHUNKS
        _table_chunk(
            out[i], first, last, sorted_x, ranks, sizes[i], qs, tables, keys[i], kind, b
        )
    return out


table_serial, table_parallel = twins(_table)
