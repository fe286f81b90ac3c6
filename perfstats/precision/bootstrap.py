"""Bootstrap distributions of a statistic (i.i.d. or block resampling).

:func:`bootstrap_distribution` is the public entry. The engine functions
below are the core's internal API for the subpackages that resample a
statistic themselves (a relative change, Metior's nested samples): they take
validated arguments and a stream key, and give the numbers
:func:`bootstrap_distribution` and :func:`perfstats.percentile_ci` give.

- :func:`check_engine`, :func:`use_order_engine`: which engine draws a
  resample.
- :func:`sort_order`: the stable sorting permutation of a sample.
- :func:`iid_quantiles`: quantiles of i.i.d. resamples by their order
  statistics.
- :func:`nested_named_distributions`: a named statistic's distributions of
  a sample's first points and of all of it, drawn together.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._kernels.resample import resample_positions_range
from .._quantiles import parse_statistic
from .._rng import stream_key
from .._validation import as_sample, check_choice, check_int
from ._resampling import (
    check_engine,
    iid_quantiles,
    make_scheme,
    named_distribution,
    nested_named_distributions,
    sort_order,
    use_order_engine,
)
from .blocklength import BLOCK_KINDS

__all__ = [
    "bootstrap_distribution",
    "check_engine",
    "iid_quantiles",
    "nested_named_distributions",
    "sort_order",
    "use_order_engine",
]


def bootstrap_distribution(
    data: Any,
    statistic: str | float | Callable[[np.ndarray], Any],
    *,
    n_resamples: int = 1000,
    block_length: Any = None,
    block_kind: str = "moving",
    rng: Any = None,
    engine: str = "auto",
) -> np.ndarray:
    """Resampled values of a statistic.

    The named statistics run in numba without materialising the resamples
    (counts per rank, one cumulative pass; or, for a quantile of i.i.d.
    resamples, only the order statistics around its rank); a callable
    receives each resample as a NumPy array (the same resamples as
    ``engine="direct"``, drawn from the same streams), generated a few at a
    time so that memory stays bounded for any ``n_resamples``.

    Parameters
    ----------
    data : array_like
        1-D finite measurements in collection order.
    statistic : "mean", "median", float or callable
        A float is a quantile in [0, 1] (NumPy's linear definition). A
        callable maps a 1-D array to a number.
    n_resamples : int, default 1000
        Number of resamples, at least 1.
    block_length : None, "auto" or number, default None
        None is the i.i.d. bootstrap (Efron 1979). Otherwise a block
        bootstrap with this block length (``"auto"``: Politis & White 2004
        with the Patton et al. 2009 correction), as Metior (He et al., ASE
        2021) uses for autocorrelated cloud measurements.
    block_kind : {"moving", "circular", "stationary", "superflow"}, default "moving"
        The block scheme, used only with a ``block_length``. ``"superflow"``
        is the moving-block variant of SuperFlow's and Metior's public
        reference code (``n - b`` starts and ``floor((n - b) / b)`` blocks,
        so a resample is shorter than n), kept to reproduce their published
        figures.
    rng : None, int or numpy.random.Generator, default None
        SPEC 7 seed; identical results for any number of threads.
    engine : {"auto", "order", "direct", "chain"}, default "auto"
        For a quantile: ``"order"`` draws an i.i.d. resample's order
        statistics around the quantile's rank (sequential Beta draws over
        the sorted sample, O(log n) per resample), ``"chain"`` the same
        order statistics in one chain of Gamma spacings (O(1) per resample),
        ``"direct"`` draws every
        point (the very resamples a callable receives). ``"auto"`` takes
        ``"chain"`` for i.i.d. resamples and for blocks of one point in
        samples of 64 points or more (the i.i.d. bootstrap of the points a
        block can start at), and for other short fixed-length blocks of
        16,384 points or more draws the blocks far from the quantile by
        class (see :func:`perfstats.percentile_ci`). Same distribution,
        different numbers. The mean and callables always draw directly.

    Returns
    -------
    numpy.ndarray
        One value of the statistic per resample, shape ``(n_resamples,)``.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import bootstrap_distribution
    >>> x = np.random.default_rng(0).normal(10.0, 1.0, size=200)
    >>> boot = bootstrap_distribution(x, "median", n_resamples=500, rng=3)
    >>> boot.shape
    (500,)
    >>> bool(abs(boot.mean() - np.median(x)) < 0.2)
    True
    """
    x = as_sample(data, "data")
    n_res = check_int(n_resamples, "n_resamples", minimum=1)
    if block_length is not None:
        check_choice(block_kind, "block_kind", BLOCK_KINDS)
    is_quantile = not callable(statistic) and not (
        isinstance(statistic, str) and statistic == "mean"
    )
    eng = check_engine(engine, iid=block_length is None, quantiles=is_quantile)
    key = stream_key(rng)
    if callable(statistic):
        scheme = make_scheme(x, block_length, block_kind)
        return _callable_distribution(x, statistic, scheme, n_res, key)
    stat = parse_statistic(statistic)
    return named_distribution(x, stat, n_res, block_length, block_kind, key, eng)


# Positions generated at once for a callable: at most this many bytes.
_POSITIONS_BYTES = 8 * 2**20


def _callable_distribution(
    x: np.ndarray, statistic: Callable[[np.ndarray], Any], scheme: Any, n_res: int, key: np.uint64
) -> np.ndarray:
    """A callable's values over the resamples, streamed a few resamples at a time."""
    out = np.empty(n_res)
    per_chunk = max(1, _POSITIONS_BYTES // (8 * max(x.size, 1)))
    block = 1.0 if scheme.block is None else scheme.block
    for first in range(0, n_res, per_chunk):
        last = min(n_res, first + per_chunk)
        positions = resample_positions_range(
            x.size, first, last, key, scheme.kind, block, scheme.order
        )
        for i, row in enumerate(positions):
            out[first + i] = float(statistic(x[row]))
    return out
