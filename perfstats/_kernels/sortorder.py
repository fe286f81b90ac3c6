"""The stable sorting order, from NumPy's fast unstable sort and a pass over the ties."""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True, inline="always")
def _tied(v: float, w: float) -> bool:
    # NaNs sort together at the end and tie with each other.
    return v == w or (v != v and w != w)


@nb.njit(cache=True)
def stabilise_ties(x: np.ndarray, order: np.ndarray) -> None:
    """Put each run of tied values in ``order`` in order of position, in place.

    ``order`` sorts ``x`` with ties in any order; afterwards it is the
    stable order (``np.argsort(x, kind="stable")``): tied values, ``-0.0``
    beside ``0.0`` and NaNs among themselves, keep their order of position.
    Without ties it is one pass. With ties, every index gets the number of
    its run of equal values, and a counting sort by run number, visiting
    the indices in ascending order, rebuilds ``order``: O(n) however the
    ties fall (sorting each run instead cost more than a stable sort when
    integer-valued data made runs of thousands).
    """
    n = order.size
    any_tie = False
    for i in range(1, n):
        if _tied(x[order[i]], x[order[i - 1]]):
            any_tie = True
            break
    if not any_tie:
        return
    run = np.empty(n, np.int64)
    r = 0
    run[order[0]] = 0
    for i in range(1, n):
        if not _tied(x[order[i]], x[order[i - 1]]):
            r += 1
        run[order[i]] = r
    # next_slot[k]: where run k's next index goes.
    next_slot = np.zeros(r + 2, np.int64)
    for j in range(n):
        next_slot[run[j] + 1] += 1
    for k in range(r + 1):
        next_slot[k + 1] += next_slot[k]
    for j in range(n):
        k = run[j]
        order[next_slot[k]] = j
        next_slot[k] += 1
