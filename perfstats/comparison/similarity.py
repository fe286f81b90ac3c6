"""How alike are two samples: KS distance, NAMD and PT4Cloud's KL similarity.

These compare two runs of the same benchmark (reproducibility, stopping
accuracy) rather than test for a change: SHARP (Mittal et al.) uses
the Kolmogorov-Smirnov statistic and the Normalized Absolute Mean
Difference; PT4Cloud's similarity probability (the accuracy measure of
SuperFlow's evaluation, Wen et al. 2023) is ``2 ** -symKL`` of two Gaussian KDEs.

References
----------
.. [Mittal] Mittal et al., "SHARP: A Distribution-Based Framework for Reproducible
   Performance Evaluation", manuscript (undated); see the References of
   :mod:`perfstats.rules.sharp`.
.. [Wen2023] Wen et al., "SuperFlow: Performance Testing for Serverless Computing",
   arXiv:2306.01620, 2023; see the References of :mod:`perfstats.rules.superflow`.
"""

from __future__ import annotations

import logging
import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._kernels.kde import grid_density, symmetric_kl_bits
from .._validation import FloatArray, as_sample, check_int, power_of_two_scale

_log = logging.getLogger(__name__)

__all__ = ["KSResult", "kl_similarity", "ks", "namd"]


@dataclass(frozen=True)
class KSResult:
    """Two-sample Kolmogorov-Smirnov test.

    Parameters
    ----------
    statistic : float
        ``sup |F_a(x) - F_b(x)|`` of the two empirical CDFs, in [0, 1].
    pvalue : float
        Two-sided p-value (``scipy.stats.ks_2samp``, method ``"auto"``).
    n_a, n_b : int
        Sample sizes.

    Examples
    --------
    >>> from perfstats import ks
    >>> ks([1.0, 2.0, 3.0, 4.0], [3.0, 4.0, 5.0, 6.0])
    KSResult(statistic=0.5, pvalue=0.771, n_a=4, n_b=4)
    """

    statistic: float
    pvalue: float
    n_a: int
    n_b: int

    def __repr__(self) -> str:
        return (
            f"KSResult(statistic={self.statistic:.4g}, pvalue={self.pvalue:.3g}, "
            f"n_a={self.n_a}, n_b={self.n_b})"
        )


def ks(a: Any, b: Any) -> KSResult:
    """Two-sample Kolmogorov-Smirnov statistic and p-value.

    SHARP (Mittal et al.) prefers this distribution-based distance to
    point summaries such as :func:`namd`: it also sees a changed spread or
    a lost mode. Both numbers are SciPy's ``ks_2samp`` (its default
    ``method="auto"``: exact p-value for small samples, asymptotic for large
    ones); perfstats adds validation and the result type. Where SciPy
    cannot finish the exact p-value it switches to the asymptotic one and
    warns; perfstats returns the same numbers and logs that at debug level
    instead, since stopping rules call this at every check.

    Parameters
    ----------
    a, b : array_like
        1-D samples of finite numbers, of any sizes; the statistic is symmetric in them.

    Returns
    -------
    KSResult
        The statistic ``sup |F_a(x) - F_b(x)|`` in [0, 1], its two-sided
        p-value and the two sample sizes.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import ks
    >>> rng = np.random.default_rng(0)
    >>> res = ks(rng.normal(size=200), rng.normal(0.5, size=200))
    >>> round(res.statistic, 3), res.pvalue < 0.05
    (0.15, True)
    """
    x = as_sample(a, "a")
    y = as_sample(b, "b")
    from scipy import stats  # deferred: importing scipy.stats is slow

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RuntimeWarning)
        res = stats.ks_2samp(x, y)
    for w in caught:
        _log.debug("ks_2samp: %s", w.message)
    return KSResult(float(res.statistic), float(res.pvalue), x.size, y.size)


def namd(a: Any, b: Any, *, paired: bool = False) -> float:
    """SHARP's Normalized Absolute Mean Difference of two samples.

    SHARP (Mittal et al., Section III-A.3) describes NAMD as a point
    summary of the means, normalised by them, that is 0 when the means agree
    ("the NAMD value was zero" for two runs with equal means but different
    modes), yet prints a formula that sums ``|X_i - Y_i|`` over paired
    observations, which is almost never 0 for two noisy runs, grows with
    ``n`` and needs equal sizes. We follow the text by default::

        namd = 0.5 * (|mean(a) - mean(b)| / mean(a) + |mean(a) - mean(b)| / mean(b))

    which works for unequal sizes. ``paired=True`` gives the printed form,
    averaged over the ``n`` pairs rather than summed so that it does not
    grow with the number of runs::

        namd = 0.5 * (mean|a_i - b_i| / mean(a) + mean|a_i - b_i| / mean(b))

    Parameters
    ----------
    a, b : array_like
        1-D samples of positive-mean measurements (times, throughputs).
    paired : bool, default False
        Use the paired form; ``a`` and ``b`` must then have equal length.

    Returns
    -------
    float
        0 for equal means (default form); larger means more different.

    Raises
    ------
    ValueError
        If a mean is not positive, or ``paired`` and the lengths differ.

    Examples
    --------
    >>> from perfstats import namd
    >>> namd([10.0, 12.0], [11.0, 13.0, 12.0])
    0.08712121212121213
    >>> namd([10.0, 12.0], [12.0, 10.0], paired=True)
    0.18181818181818182
    """
    x = as_sample(a, "a")
    y = as_sample(b, "b")
    mx = float(np.mean(x))
    my = float(np.mean(y))
    for name, m in (("a", mx), ("b", my)):
        if not m > 0:
            raise ValueError(f"namd needs a positive mean; mean of {name} is {m!r}")
    if paired:
        if x.size != y.size:
            raise ValueError(
                f"paired=True needs a and b of equal length, got {x.size} and {y.size}"
            )
        diff = float(np.mean(np.abs(x - y)))
    else:
        diff = abs(mx - my)
    return 0.5 * (diff / mx + diff / my)


def _scott_bandwidth(x: FloatArray, name: str) -> float:
    """Kernel standard deviation exactly as ``scipy.stats.gaussian_kde`` derives it."""
    weights = np.ones(x.size) / x.size
    neff = 1.0 / float(np.dot(weights, weights))
    var = float(np.cov(x, aweights=weights))
    if not var > 0:
        raise ValueError(
            f"{name} has zero variance (all {x.size} values equal {x[0]!r}); "
            "a Gaussian KDE with Scott's bandwidth is undefined for it"
        )
    return math.sqrt(var) * float(np.power(neff, -1.0 / 5.0))


def kl_similarity(a: Any, b: Any, *, grid: int = 1000) -> float:
    """PT4Cloud's similarity probability of two samples, ``2 ** -symKL`` in [0, 1].

    Each sample is smoothed by a Gaussian KDE with Scott's bandwidth (as
    ``scipy.stats.gaussian_kde`` by default); both densities are evaluated
    on the grid ``min + k*step``, ``k = 1..grid``, ``step = (max-min)/grid``
    over the pooled range; the symmetric KL divergence in bits is
    ``sum(p*step*log2(p/q) + q*step*log2(q/p))`` and the similarity is
    ``2 ** -symKL`` (PT4Cloud, Davatgar Scheuner et al.; the accuracy
    measure of SuperFlow's evaluation, Wen et al. 2023). The KDE is evaluated exactly
    (to about 1e-12 relative) but without one ``exp`` per sample and grid
    point, see :mod:`perfstats._kernels.kde`.

    Where one density underflows to exactly 0 at a grid point and the other
    does not, or is so much smaller that ``p/q`` or ``q/p`` overflows, the
    divergence is infinite and the similarity is 0, as in the reference
    formula. Where both are 0 the point adds nothing (0 log 0/0 = 0).

    Parameters
    ----------
    a, b : array_like
        1-D samples with at least two values and non-zero variance each.
    grid : int, default 1000
        Number of grid points.

    Returns
    -------
    float
        1 for identical densities, towards 0 for disjoint ones.

    Raises
    ------
    ValueError
        If a sample has fewer than two values or zero variance: its Scott
        bandwidth is 0 and the KDE does not exist (``gaussian_kde`` fails
        on it too). We refuse rather than invent a value.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import kl_similarity
    >>> rng = np.random.default_rng(1)
    >>> x = rng.lognormal(size=1000)
    >>> round(kl_similarity(x, x), 6)
    1.0
    >>> 0.5 < kl_similarity(x, rng.lognormal(size=1000)) < 1.0
    True
    """
    x = as_sample(a, "a", min_size=2)
    y = as_sample(b, "b", min_size=2)
    m = check_int(grid, "grid", minimum=1)
    # The divergence is scale-free; an exact power-of-two rescaling keeps the
    # KDE's variances finite for values near 1e160 or 1e-160.
    scale = power_of_two_scale(x, y)
    x, y = x * scale, y * scale
    ha = _scott_bandwidth(x, "a")
    hb = _scott_bandwidth(y, "b")
    lo = min(float(x.min()), float(y.min()))
    hi = max(float(x.max()), float(y.max()))
    step = (hi - lo) / m
    points = np.asarray(lo + step * np.arange(1, m + 1), dtype=np.float64)
    p = _density(x, ha, points, step)
    q = _density(y, hb, points, step)
    return float(2.0 ** -symmetric_kl_bits(p, q, step))


def _density(x: FloatArray, h: float, points: FloatArray, step: float) -> FloatArray:
    # Whitened as scipy does it: data and points divided by the bandwidth.
    s = np.sort(x / h)
    norm = (2 * math.pi) ** -0.5 / h
    return grid_density(s, points / h, step / h, norm)
