"""Sample autocorrelation function of a series in collection order.

The estimator is the standard biased one (Box & Jenkins): the lag-``k``
autocovariance sums ``n - k`` cross products but divides by ``n``, like the
lag-0 variance. It is what ``statsmodels.tsa.stattools.acf(x, adjusted=False)``
computes, and it is the estimator SHARP's block-length choice, Metior's
thinning test and the characterisation use.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from perfstats._validation import FloatArray, as_sample, check_int, power_of_two_scale

__all__ = ["acf", "default_nlags"]


def default_nlags(n: int) -> int:
    """Number of lags used when none is given: ``min(10 log10(n), n - 1)``.

    The same default as statsmodels, so that both give arrays of one length.
    """
    return max(0, min(int(10 * math.log10(n)), n - 1)) if n > 0 else 0


def acf(values: Any, *, nlags: int | None = None) -> FloatArray:
    """Autocorrelation of ``values`` at lags 0 to ``nlags``.

    Parameters
    ----------
    values : array_like
        1-D finite numbers in collection order, at least 2 of them.
    nlags : int, optional
        Largest lag, from 0 to ``len(values) - 1``. Default
        ``min(10 log10(n), n - 1)``, as statsmodels.

    Returns
    -------
    numpy.ndarray
        ``nlags + 1`` autocorrelations; element 0 is 1. A constant series has
        no defined autocorrelation and raises :class:`ValueError`.

    Notes
    -----
    The lag-``k`` value is ``sum_t (x_t - m)(x_{t+k} - m) / sum_t (x_t - m)^2``
    over the ``n - k`` available pairs, computed by FFT in O(n log n). It
    equals ``statsmodels.tsa.stattools.acf(values, nlags=nlags,
    adjusted=False)`` to rounding.

    References
    ----------
    G. E. P. Box, G. M. Jenkins, G. C. Reinsel and G. M. Ljung, "Time Series
    Analysis: Forecasting and Control", 5th ed., Wiley, 2015, section 2.1.4.

    Examples
    --------
    >>> import numpy as np
    >>> import perfstats
    >>> r = perfstats.acf([1.0, 2.0, 3.0, 4.0, 5.0], nlags=2)
    >>> np.round(r, 3).tolist()
    [1.0, 0.4, -0.1]
    """
    x = as_sample(values, "values", min_size=2)
    n = x.size
    lags = (
        default_nlags(n) if nlags is None else check_int(nlags, "nlags", minimum=0, maximum=n - 1)
    )
    # Autocorrelation is scale-free: a power-of-two scale (exact) keeps the
    # squares and the FFT's products finite for values near 1e154 or 1e-160.
    x = x * power_of_two_scale(x)
    d = x - x.mean()
    denom = float(np.dot(d, d))
    if denom == 0.0 or not math.isfinite(denom):
        raise ValueError(
            "values are constant (zero variance); their autocorrelation is undefined"
            if denom == 0.0
            else "values are too large in magnitude for their variance to be finite; "
            "rescale them first"
        )
    size = 1 << (2 * n - 1).bit_length()
    spec = np.fft.rfft(d, size)
    cov = np.fft.irfft(spec * np.conj(spec), size)[: lags + 1]
    out: FloatArray = np.ascontiguousarray(cov / denom, dtype=np.float64)
    out[0] = 1.0
    return out
