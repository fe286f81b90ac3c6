"""Pairwise order counts of two sorted samples in one merge pass."""

from __future__ import annotations

import numba as nb
import numpy as np

from .._validation import FloatArray


@nb.njit(cache=True)
def dominance_counts(a: FloatArray, b: FloatArray) -> tuple[np.int64, np.int64]:
    """Numbers of pairs ``(i, j)`` with ``a[i] > b[j]`` and with ``a[i] == b[j]``.

    ``a`` and ``b`` must be sorted ascending. One merge pass: for each
    ``a[i]`` in turn, the counts of ``b`` below it and equal to it only
    grow, so two pointers into ``b`` never move back. O(n_a + n_b).
    """
    greater = np.int64(0)
    equal = np.int64(0)
    below = 0  # b[:below] < current a[i]
    upto = 0  # b[:upto] <= current a[i]
    nb_ = b.size
    for i in range(a.size):
        x = a[i]
        while below < nb_ and b[below] < x:
            below += 1
        if upto < below:
            upto = below
        while upto < nb_ and b[upto] <= x:
            upto += 1
        greater += below
        equal += upto - below
    return greater, equal
