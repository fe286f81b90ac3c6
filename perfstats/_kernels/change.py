"""Bootstrap distribution of a relative change, ``stat(candidate*) / stat(baseline*) - 1``.

A resample is drawn as **counts** per observation, never materialised: a
quantile of the resample is one cumulative pass over the counts in the
sample's sorted order (sorted once per call), the mean one weighted sum.

Resampling is two-level (Davison & Hinkley 1997, Section 3.8): draw the
groups (instances, calls) with replacement, then, within each drawn group,
as many of its observations as it has, with replacement. Without groups
there is one group and this is the ordinary i.i.d. bootstrap. A sample's
grouping is given as ``members`` (observation indices, group after group)
and ``starts`` (where each group begins in ``members``, plus the end).

Resample ``b`` draws only from stream ``b`` of the call's key, so results do
not depend on the number of threads.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .._validation import FloatArray
from .quantile import lerp
from .random import hi_index, lo_index, next_u64, stream_state
from .threads import run_kernel
from .twins import CHUNKS, twins

MEAN = 0
QUANTILE = 1

IntArray = np.ndarray



@nb.njit(cache=True)
def add_two_level(
    counts: IntArray, members: IntArray, starts: IntArray, state: np.uint64
) -> tuple[np.uint64, int]:
    """Add one two-level resample to ``counts``; return the stream state and its size."""
    n_groups = starts.size - 1
    total = 0
    for _ in range(n_groups):
        state, v = next_u64(state)
        g = hi_index(v, np.int64(n_groups))
        first = starts[g]
        size = starts[g + 1] - first
        total += size
        # The group draw used the upper half of v; the lower half picks the
        # first member, then each draw gives two members.
        counts[members[first + lo_index(v, size)]] += 1
        m = 1
        while m + 1 < size:
            state, v = next_u64(state)
            counts[members[first + hi_index(v, size)]] += 1
            counts[members[first + lo_index(v, size)]] += 1
            m += 2
        if m < size:
            state, v = next_u64(state)
            counts[members[first + hi_index(v, size)]] += 1
    return state, total


@nb.njit(cache=True)
def stat_from_counts(
    values: FloatArray, order: IntArray, counts: IntArray, total: int, kind: int, q: float
) -> float:
    """Mean or ``q``-quantile (NumPy's linear method) of the resample given by ``counts``."""
    if kind == MEAN:
        acc = 0.0
        for i in range(values.size):
            acc += counts[i] * values[i]
        return acc / total
    h = (total - 1) * q
    k = math.floor(h)
    frac = h - k
    cum = 0
    for r in range(order.size):
        i = order[r]
        c = counts[i]
        if c == 0:
            continue
        cum += c
        if cum > k:
            low = values[i]
            if cum > k + 1 or k + 1 >= total:
                return lerp(low, low, frac)
            for r2 in range(r + 1, order.size):
                if counts[order[r2]] > 0:
                    return lerp(low, values[order[r2]], frac)
    return math.nan  # unreachable for total >= 1


@nb.njit(cache=True)
def _chunk(
    xb: FloatArray, ob: IntArray, mb: IntArray, sb: IntArray,
    xc: FloatArray, oc: IntArray, mc: IntArray, sc: IntArray,
    paired: bool, kind: int, q: float, first: int, last: int, key: np.uint64, out: FloatArray,
) -> None:  # fmt: skip
    """Resamples ``first`` to ``last - 1`` of the change into ``out``.

    Paired samples share one draw (the candidate's counts are the
    baseline's); unpaired ones draw the candidate next, from the same stream.
    """
    cb = np.zeros(xb.size, dtype=np.int64)
    cc = cb if paired else np.zeros(xc.size, dtype=np.int64)
    for b in range(first, last):
        cb[:] = 0
        state = stream_state(key, np.int64(b))
        state, tb = add_two_level(cb, mb, sb, state)
        tc = tb
        if not paired:
            cc[:] = 0
            state, tc = add_two_level(cc, mc, sc, state)
        base = stat_from_counts(xb, ob, cb, tb, kind, q)
        cand = stat_from_counts(xc, oc, cc, tc, kind, q)
        out[b] = cand / base - 1.0


# One body loops over the same fixed chunks, compiled serial and parallel
# (twins.py), so both twins give the same numbers.


def _changes(
    xb: FloatArray, ob: IntArray, mb: IntArray, sb: IntArray,
    xc: FloatArray, oc: IntArray, mc: IntArray, sc: IntArray,
    paired: bool, kind: int, q: float, n_resamples: int, key: np.uint64,
) -> FloatArray:  # fmt: skip
    out = np.empty(n_resamples)
    chunk = (n_resamples + CHUNKS - 1) // CHUNKS
    for c in nb.prange(CHUNKS):
        first, last = min(n_resamples, c * chunk), min(n_resamples, (c + 1) * chunk)
        _chunk(xb, ob, mb, sb, xc, oc, mc, sc, paired, kind, q, first, last, key, out)
    return out


_changes_serial, _changes_parallel = twins(_changes)


def unpaired_changes(
    xb: FloatArray, ob: IntArray, mb: IntArray, sb: IntArray,
    xc: FloatArray, oc: IntArray, mc: IntArray, sc: IntArray,
    kind: int, q: float, n_resamples: int, key: np.uint64,
) -> FloatArray:  # fmt: skip
    """Independent resamples of baseline ``xb`` and candidate ``xc``.

    ``ob``/``oc`` sort each sample; ``mb, sb`` / ``mc, sc`` its grouping.
    """
    work = n_resamples * (xb.size + xc.size)
    out: FloatArray = run_kernel(
        _changes_serial, _changes_parallel, work,
        xb, ob, mb, sb, xc, oc, mc, sc, False, kind, q, n_resamples, key,
    )  # fmt: skip
    return out


def paired_changes(
    xb: FloatArray, ob: IntArray, xc: FloatArray, oc: IntArray,
    members: IntArray, starts: IntArray, kind: int, q: float, n_resamples: int, key: np.uint64,
) -> FloatArray:  # fmt: skip
    """Joint resamples of the pairs ``(xb[i], xc[i])``, grouped by ``members, starts``."""
    work = 2 * n_resamples * xb.size
    out: FloatArray = run_kernel(
        _changes_serial, _changes_parallel, work,
        xb, ob, members, starts, xc, oc, members, starts, True, kind, q, n_resamples, key,
    )  # fmt: skip
    return out
