"""The stable sorting order, from NumPy's fast unstable sort and a pass over the ties."""

from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True)
def stabilise_ties(x: np.ndarray, order: np.ndarray) -> None:
    """Reorder each run of tied values in ``order`` by position, in place.

    ``order`` sorts ``x`` with ties in any order; afterwards it is the
    stable order (``np.argsort(x, kind="stable")``): tied values, ``-0.0``
    beside ``0.0`` and NaNs among themselves, keep their order of position.
    O(n) plus a sort of each run of ties.
    """
    n = order.size
    start = 0
    while start < n:
        v = x[order[start]]
        end = start + 1
        while end < n:
            w = x[order[end]]
            if not (w == v or (w != w and v != v)):
                break
            end += 1
        if end - start > 1:
            order[start:end] = np.sort(order[start:end])
        start = end
