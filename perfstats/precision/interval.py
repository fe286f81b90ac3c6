"""Confidence intervals for percentiles: :class:`Interval` and :func:`percentile_ci`.

References
----------
.. [Wen2023] J. Wen, Z. Chen, F. Sarro and X. Liu, "SuperFlow: Performance Testing
   for Serverless Computing", arXiv:2306.01620, 2023.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING, Any, TypedDict, overload

import numpy as np

from .._kernels.exact import exact_bootstrap_bounds
from .._kernels.order import normal_order_bounds, order_bounds
from .._kernels.quantile import sorted_quantiles
from .._kernels.select import column_quantiles, percentile_bounds
from .._quantiles import parse_quantiles
from .._rng import stream_key
from .._validation import FloatArray, as_sample, check_choice, check_int, check_level
from ._resampling import (
    check_engine,
    iid_quantiles,
    make_scheme,
    resampled_stats,
    resolve_block_length,
    use_order_engine,
)
from .blocklength import BLOCK_KINDS


@dataclass(frozen=True)
class Interval:
    """A confidence interval for one quantile of a sample.

    Parameters
    ----------
    estimate : float
        The sample quantile (NumPy's default linear interpolation).
    low, high : float
        The bounds; ``-inf`` / ``inf`` where the data cannot support a bound
        (too few points for the ranks), so that the interval fails any
        precision check without a special case.
    level : float
        Confidence level in (0, 1).
    method : str
        How the interval was computed (see :func:`perfstats.percentile_ci`).
    n : int
        Sample size.
    q : float
        The quantile, in [0, 1].
    block_length : float or None
        Block length used by the ``"block"`` method, else None.

    Examples
    --------
    >>> from perfstats import Interval
    >>> iv = Interval(estimate=100.0, low=99.5, high=100.8, level=0.95,
    ...               method="order", n=500, q=0.5)
    >>> iv.width
    1.2999999999999972
    >>> iv.within(0.01), iv.contains(100.7)
    (True, True)
    """

    estimate: float
    low: float
    high: float
    level: float
    method: str
    n: int
    q: float
    block_length: float | None = None

    @property
    def width(self) -> float:
        """``high - low`` (``inf`` when a bound is unbounded)."""
        return self.high - self.low

    @property
    def bounded(self) -> bool:
        """True when both bounds are finite."""
        return math.isfinite(self.low) and math.isfinite(self.high)

    @property
    def rel_error(self) -> float:
        """The largest distance from the estimate to a bound, relative to ``|estimate|``.

        ``within(r)`` holds exactly when ``rel_error < r``; rules use it to
        say how far a sample is from the requested precision.
        """
        scale = abs(self.estimate)
        spread = max(self.estimate - self.low, self.high - self.estimate)
        if scale == 0.0:
            return math.inf if spread > 0 else 0.0
        return spread / scale

    def contains(self, value: float) -> bool:
        """True when ``low <= value <= high``.

        Parameters
        ----------
        value : float
            A candidate value of the quantile, in the units of the sample.

        Returns
        -------
        bool
            Whether ``value`` lies in the interval, bounds included. An infinite
            bound holds every value on its side; NaN is never contained.
        """
        return bool(self.low <= value <= self.high)

    def within(self, rel_error: float) -> bool:
        """True when the interval lies strictly inside ``estimate * (1 -/+ rel_error)``.

        This is SuperFlow's accuracy check (Wen et al. 2023): the CI of a
        percentile must be within ``r`` of the observed percentile. For a
        negative estimate the band is ``estimate -/+ |estimate| * rel_error``.

        Parameters
        ----------
        rel_error : float
            The allowed relative half-width ``r`` (0.01 for 1%).

        Returns
        -------
        bool
            Whether both bounds lie strictly inside the band. An unbounded
            interval never passes; one that is exactly zero (estimate and both
            bounds) always does, whatever ``rel_error``.
        """
        if self.estimate == 0.0 and self.low == 0.0 and self.high == 0.0:
            # A percentile of runs that are all zero (no allocations, no
            # errors) is known exactly; no band around zero is wide enough
            # for the strict inequalities below.
            return True
        band = abs(self.estimate) * rel_error
        return bool(self.estimate - band < self.low and self.high < self.estimate + band)

    def __repr__(self) -> str:
        return (
            f"Interval(q={self.q:g}, estimate={self.estimate:.6g}, "
            f"[{self.low:.6g}, {self.high:.6g}], level={self.level:g}, "
            f"method={self.method!r}, n={self.n})"
        )


METHODS = ("order", "order-normal", "bootstrap", "exact-bootstrap", "block")


def _normal_z(level: float) -> float:
    # SuperFlow's reference code uses the rounded 1.96 for 95%; keep it so
    # our ranks equal theirs exactly.
    if level == 0.95:
        return 1.96
    return NormalDist().inv_cdf(0.5 + level / 2.0)


def resample_bounds(boot: np.ndarray, tail: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile-bootstrap bounds of each column of ``boot`` (resamples in rows).

    The ``tail`` and ``1 - tail`` quantiles of every column, equal value for
    value to ``numpy.quantile(boot, [tail, 1 - tail], axis=0)``, from one
    sorted copy of each column in a compiled kernel (no per-call NumPy
    overhead on the few thousand replicates of a rule's decision).

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.precision.interval import resample_bounds
    >>> boot = np.column_stack([np.arange(101.0), -np.arange(101.0)])
    >>> lows, highs = resample_bounds(boot, 0.025)
    >>> lows.tolist(), highs.tolist()
    ([2.5, -97.5], [97.5, -2.5])
    """
    qs = np.array([tail, 1.0 - tail])
    bounds = column_quantiles(np.ascontiguousarray(boot, dtype=np.float64), qs)
    return bounds[0], bounds[1]


if TYPE_CHECKING:
    # For the overloads below. Only the type checker reads the annotations
    # (``from __future__ import annotations``), so typing_extensions is not a
    # run-time dependency.
    from typing_extensions import Unpack


class _CIOptions(TypedDict, total=False):
    """The keyword options of :func:`percentile_ci`, as its typed overloads take them."""

    level: float
    method: str
    n_resamples: int
    block_length: Any
    block_kind: str
    rng: Any
    engine: str


@overload
def percentile_ci(
    data: Any,
    q: float,
    **options: Unpack[_CIOptions],
) -> Interval: ...


@overload
def percentile_ci(
    data: Any,
    q: Sequence[float] | np.ndarray,
    **options: Unpack[_CIOptions],
) -> tuple[Interval, ...]: ...


def percentile_ci(
    data: Any,
    q: Any,
    *,
    level: float = 0.95,
    method: str = "order",
    n_resamples: int = 1000,
    block_length: Any = "auto",
    block_kind: str = "moving",
    rng: Any = None,
    engine: str = "auto",
) -> Interval | tuple[Interval, ...]:
    """Confidence interval(s) for quantile(s) of a sample.

    Parameters
    ----------
    data : array_like
        1-D finite measurements in collection order (order matters only for
        ``method="block"``).
    q : float or sequence of float
        Quantile(s) in [0, 1]. A sequence is computed together: one set of
        resamples serves every quantile.
    level : float, default 0.95
        Confidence level in (0, 1).
    method : {"order", "order-normal", "bootstrap", "exact-bootstrap", "block"}, default "order"
        * ``"order"``: exact distribution-free binomial order-statistic
          interval (coverage >= level for continuous data; Le Boudec 2010);
          the same bounds as ``scipy.stats.quantile_test(...)
          .confidence_interval()``, with ``-inf``/``inf`` where SciPy gives
          NaN.
        * ``"order-normal"``: SuperFlow 1's "general" method (Wen et al.,
          SuperFlow, 2023), normal-approximation ranks exactly as its
          reference code; unbounded where the reference refuses.
        * ``"bootstrap"``: i.i.d. percentile bootstrap (SuperFlow 2).
        * ``"exact-bootstrap"``: the percentile-bootstrap interval with
          infinitely many resamples, computed in closed form from binomial
          probabilities (no Monte Carlo error, no randomness).
        * ``"block"``: block bootstrap for autocorrelated data (SuperFlow 3,
          Metior), see ``block_kind`` and ``block_length``.
    n_resamples : int, default 1000
        Resamples for ``"bootstrap"`` and ``"block"``.
    block_length : "auto" or number, default "auto"
        ``"auto"`` uses Politis & White (2004) with the Patton et al. (2009)
        correction: the circular length (rounded up) for moving/circular
        blocks, the stationary length for the stationary bootstrap.
    block_kind : {"moving", "circular", "stationary", "superflow"}, default "moving"
        ``"superflow"`` is the moving-block variant of SuperFlow's public
        reference code (``n - b`` starts, ``floor((n - b) / b)`` blocks, so a
        resample is shorter than n), kept to reproduce SuperFlow 3's figures.
    rng : None, int or numpy.random.Generator
        Seed for the resampling methods (SPEC 7). The same seed gives the
        same interval whatever the number of threads.
    engine : {"auto", "order", "direct", "chain"}, default "auto"
        How resampled quantiles are drawn. ``"bootstrap"``: ``"order"``
        draws each resample's order statistics around the wanted ranks
        (sequential Beta draws over the sorted sample, O(log n) per
        quantile instead of O(n) per resample); ``"chain"`` draws the
        order statistics of all wanted ranks in one ascending chain of
        Gamma spacings (O(1) per quantile at any n; a quantile's values then
        depend on the other quantiles asked); ``"direct"`` draws every
        resampled point and counts ranks (the resamples of
        :func:`perfstats.bootstrap_distribution` with a callable statistic,
        value for value); ``"auto"`` takes ``"chain"``, the fastest at every
        n. Ask for ``"order"`` when a quantile's interval must not depend
        on which other quantiles share the call.
        ``"block"``: long blocks and large samples count only the points
        near the wanted ranks, and fixed-length blocks of six points or
        more (more for more quantiles) in samples under 2,048 points are
        read off per-window rank tables (both the same numbers as counting
        all); under ``"auto"``, blocks of one point in samples of 64
        points or more are the i.i.d. bootstrap of the points a block can
        start at, drawn as ``"bootstrap"`` draws it, and other short
        fixed-length blocks of 16,384 points or more draw the blocks far
        from the wanted ranks by class. The engines draw the same
        distribution, not the same numbers.

    Returns
    -------
    Interval or tuple of Interval
        One interval for a scalar ``q``, a tuple for a sequence. The
        estimate is NumPy's default (linear) percentile of ``data``.

    Raises
    ------
    ValueError
        For NaN/inf/empty/2-D/non-numeric data, a level outside (0, 1), a
        quantile outside [0, 1], ``n_resamples < 1``, a block length < 1 or
        larger than the data, or an unknown method; the message names the
        parameter.

    Examples
    --------
    >>> import numpy as np
    >>> import perfstats
    >>> x = np.random.default_rng(0).lognormal(3.0, 0.5, size=500)
    >>> iv = perfstats.percentile_ci(x, 0.5, method="order")
    >>> iv.low < iv.estimate < iv.high
    True
    >>> p25, p50, p75 = perfstats.percentile_ci(x, [0.25, 0.5, 0.75],
    ...                                         method="bootstrap", rng=1)
    >>> p50.within(0.1)
    True
    """
    x = as_sample(data, "data")
    qs, scalar = parse_quantiles(q, "q")
    lvl = check_level(level, "level")
    check_choice(method, "method", METHODS)
    n_res = check_int(n_resamples, "n_resamples", minimum=1)
    check_choice(block_kind, "block_kind", BLOCK_KINDS)
    eng = check_engine(engine, iid=method != "block", quantiles=True)
    out = quantile_intervals(x, qs, lvl, method, n_res, block_length, block_kind, eng, rng=rng)
    return out[0] if scalar else out


def quantile_intervals(
    x: FloatArray,
    qs: FloatArray,
    level: float,
    method: str,
    n_resamples: int,
    block_length: Any,
    block_kind: str,
    engine: str,
    *,
    rng: Any = None,
    key: np.uint64 | None = None,
) -> tuple[Interval, ...]:
    """The intervals of :func:`percentile_ci` from arguments it has validated.

    For callers that validated their data and options once (a rule judges
    thousands of sets with the same options): ``x`` a finite 1-D float64
    array, ``qs`` a float64 array of quantiles in [0, 1], the options as
    :func:`percentile_ci` returns them from its checks. ``key``, when
    given, is the resampling methods' stream key and ``rng`` is ignored.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.precision.interval import percentile_ci, quantile_intervals
    >>> x = np.random.default_rng(0).lognormal(3.0, 0.5, size=300)
    >>> qs = np.array([0.25, 0.75])
    >>> quantile_intervals(x, qs, 0.95, "bootstrap", 500, "auto", "moving", "auto", rng=4) == (
    ...     percentile_ci(x, qs, method="bootstrap", n_resamples=500, rng=4))
    True
    """
    tail = (1.0 - level) / 2.0
    block: float | None = None

    if method == "block":
        scheme = make_scheme(x, block_length, block_kind)
        sorted_x = scheme.sorted_x
        block = scheme.block
    else:
        if not (isinstance(block_length, str) and block_length == "auto"):
            # Validated even when unused, so a typo never passes silently.
            resolve_block_length(x, block_length, block_kind)
        sorted_x = np.sort(x)

    if method in ("bootstrap", "block"):
        if key is None:
            key = stream_key(rng)
        if method == "bootstrap" and use_order_engine(engine):
            boot = iid_quantiles(sorted_x, qs, n_resamples, key, engine)
        else:
            if method == "bootstrap":
                scheme = make_scheme(x, None, block_kind)
            boot = resampled_stats(scheme, qs, False, n_resamples, key, engine)
        # Bounds and estimates in one compiled call.
        rows = percentile_bounds(np.ascontiguousarray(boot, dtype=np.float64), tail, sorted_x, qs)
        lows, highs, estimates = rows[0], rows[1], rows[2]
    else:
        if method == "order":
            lows, highs = order_bounds(sorted_x, qs, tail)
        elif method == "order-normal":
            lows, highs = normal_order_bounds(sorted_x, qs, _normal_z(level))
        else:
            lows, highs = exact_bootstrap_bounds(sorted_x, qs, level)
        estimates = sorted_quantiles(sorted_x, qs)
    n = int(x.size)
    return tuple(
        Interval(
            estimate=float(estimates[i]),
            low=float(lows[i]),
            high=float(highs[i]),
            level=level,
            method=method,
            n=n,
            q=float(qs[i]),
            block_length=block,
        )
        for i in range(qs.size)
    )


__all__ = ["METHODS", "Interval", "percentile_ci"]
