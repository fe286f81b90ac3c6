"""Multiple testing: Benjamini-Hochberg false-discovery-rate adjusted p-values.

A suite of hundreds of benchmarks tested at 5% each flags a dozen by chance
alone. Benjamini & Hochberg's step-up procedure keeps the expected share of
false flags among all flags (the false discovery rate) at most the chosen
level when the tests are independent or positively dependent.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import FloatArray

__all__ = ["benjamini_hochberg"]


def benjamini_hochberg(pvalues: Any) -> FloatArray:
    """Benjamini-Hochberg adjusted p-values (step-up, FDR control).

    The adjusted value of the i-th smallest of ``m`` p-values is
    ``min_{j >= i} min(1, m * p_(j) / j)``; rejecting every hypothesis whose
    adjusted p-value is below ``q`` controls the false discovery rate at
    ``q``. The numbers equal ``statsmodels.stats.multitest.multipletests(p,
    method="fdr_bh")[1]``.

    Parameters
    ----------
    pvalues : array_like
        1-D p-values in [0, 1], in any order.

    Returns
    -------
    numpy.ndarray
        Adjusted p-values in the order given.

    Raises
    ------
    ValueError
        If ``pvalues`` is not 1-D, is empty, or holds a value outside [0, 1]
        or NaN.

    References
    ----------
    Y. Benjamini and Y. Hochberg, "Controlling the false discovery rate: a
    practical and powerful approach to multiple testing", Journal of the
    Royal Statistical Society B 57(1), 1995.

    Examples
    --------
    >>> from perfstats import benjamini_hochberg
    >>> benjamini_hochberg([0.01, 0.04, 0.03, 0.20]).round(4).tolist()
    [0.04, 0.0533, 0.0533, 0.2]
    """
    try:
        p = np.asarray(pvalues, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"pvalues must be a 1-D array of numbers, got {pvalues!r}") from None
    if p.ndim != 1 or p.size == 0:
        raise ValueError(f"pvalues must be a non-empty 1-D array, got shape {p.shape}")
    bad = ~((p >= 0.0) & (p <= 1.0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"pvalues must be in [0, 1]; pvalues[{i}] is {p[i]!r}")
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = p[order] * m / np.arange(1, m + 1)
    # Step-up: each adjusted value is the smallest scaled value at or above its rank.
    stepped = np.minimum.accumulate(scaled[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(stepped, 1.0)
    return out
