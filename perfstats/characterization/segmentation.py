"""Change points in the level of a series: PELT with a penalty in units of its noise.

The series is divided by its noise scale ``sigma``, estimated from the
first differences (``sigma**2 = mean(diff(x)**2) / 2``, von Neumann's
estimator, which a few level shifts barely move but heavy tails do raise),
and PELT minimises the L2 cost (the sum of squared deviations from each
segment's mean) plus ``penalty`` per change. The default penalty
``15 ln n`` is Barrett et al.'s for steady-state detection; with unit noise
it asks a change to explain at least that much squared deviation. The
minimum segment length (default 10 runs) keeps pairs of outliers, common in
cold starts, from forming segments of their own.

The numba kernel follows ruptures' PELT step by step; with the same
standardised series, cost ``"l2"``, penalty, ``min_size`` and ``jump=1``,
``ruptures.Pelt`` gives the same change points (the tests check this).
PELT's pruning alone leaves the work quadratic in ``n`` on a series with
few changes (it never prunes when one segment fits); the kernel adds
Maidstone et al.'s functional pruning, which drops only candidates that can
no longer be chosen, so the change points stay the same and the work stays
near-linear (a few dozen segment costs per run on a series without changes).

References
----------
R. Killick, P. Fearnhead and I. A. Eckley, "Optimal Detection of
Changepoints With a Linear Computational Cost", Journal of the American
Statistical Association 107(500), 1590-1598, 2012.

E. Barrett, C. F. Bolz-Tereick, R. Killick, S. Mount and L. Tratt, "Virtual
Machine Warmup Blows Hot and Cold", Proceedings of the ACM on Programming
Languages 1(OOPSLA), 52:1-52:27, 2017.

R. Maidstone, T. Hocking, G. Rigaill and P. Fearnhead, "On optimal
multiple changepoint algorithms for large data", Statistics and Computing
27(2), 519-533, 2017.

C. Truong, L. Oudre and N. Vayatis, "Selective review of offline change
point detection methods", Signal Processing 167, 107299, 2020.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._kernels.pelt import pelt_l2
from .._validation import FloatArray, as_sample, check_int, check_positive, power_of_two_scale

__all__ = ["default_penalty", "noise_scale", "pelt"]

#: Barrett et al.'s penalty factor: ``15 ln n``.
PENALTY_FACTOR = 15.0
#: Default shortest segment, in runs.
MIN_SIZE = 10


def default_penalty(n: int) -> float:
    """``15 ln n`` (Barrett et al.), for a series of unit noise.

    Examples
    --------
    >>> from perfstats.characterization.segmentation import default_penalty
    >>> round(default_penalty(1000), 1)
    103.6
    """
    return PENALTY_FACTOR * math.log(max(n, 2))


def noise_scale(x: FloatArray) -> float:
    """``sqrt(mean(diff(x)**2) / 2)``: the noise SD, insensitive to a few level shifts.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.characterization.segmentation import noise_scale
    >>> x = np.random.default_rng(0).normal(0.0, 2.0, 5000)
    >>> round(noise_scale(np.concatenate([x, x + 50.0])), 1)
    2.0
    """
    if x.size < 2:
        return 0.0
    # Scaled by a power of two (exact) so the squares stay finite near 1e160.
    s = power_of_two_scale(x)
    d = np.diff(x * s)
    return math.sqrt(float(np.dot(d, d)) / (2.0 * d.size)) / s


def pelt(
    values: Any, *, penalty: float | None = None, min_size: int = MIN_SIZE
) -> tuple[int, ...]:
    """Indices where a new level starts (PELT, L2 cost, penalty in noise units).

    Parameters
    ----------
    values : array_like
        1-D finite numbers in collection order.
    penalty : float, optional
        Cost of one change, in units of the noise variance (default
        ``15 ln n``).
    min_size : int, default 10
        Shortest segment, in runs.

    Returns
    -------
    tuple of int
        Start indices of the second, third, ... segments (empty: one level).
        A constant series, or one shorter than ``2 * min_size``, has none.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import pelt
    >>> rng = np.random.default_rng(0)
    >>> x = np.concatenate([rng.normal(10, 1, 300), rng.normal(14, 1, 300)])
    >>> pelt(x)
    (300,)
    """
    x = as_sample(values, "values")
    size = check_int(min_size, "min_size", minimum=1)
    n = int(x.size)
    pen = default_penalty(n) if penalty is None else check_positive(penalty, "penalty")
    sigma = noise_scale(x)
    if n < 2 * size or sigma == 0.0:
        return ()
    z = (x - float(np.mean(x))) / sigma
    ends = pelt_l2(z, float(pen), size)
    return tuple(int(e) for e in ends[:-1])
