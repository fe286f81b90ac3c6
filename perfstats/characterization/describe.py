"""What kind of data is this? Location, spread, shape, modes, dependence and steady state.

:func:`characterize` summarises a series of runs in collection order:

* **Summary**: n, mean, SD (``ddof=1``), median, MAD (the raw median
  absolute deviation from the median, not scaled to the SD) and skewness
  (the moment coefficient ``m3 / m2**1.5``, SciPy's biased default).
* **Modes**: peaks of a Gaussian kernel density with Silverman's robust
  bandwidth ``0.9 min(sd, IQR/1.349) n^(-1/5)`` (:func:`perfstats.find_modes`,
  prominence 10% of the highest peak). When the density shows several
  peaks, Gaussian mixtures of one and of ``peaks`` components are fitted
  (scikit-learn, started at the quantile midpoints); the modes are
  confirmed when the mixture has the lower BIC, otherwise one mode (the
  highest peak) is reported.
* **Dependence**: the autocorrelation function (:func:`perfstats.acf`, the
  biased estimator, lags up to ``10 log10 n``) and its lag-1 value.
* **Change points**: :func:`perfstats.pelt` (PELT, L2 cost on the
  series in units of its noise, penalty ``15 ln n``, segments of at least
  10 runs).
* **Steady state**, in the manner of Barrett et al. (2017), whose classes
  Traini et al. (2023) used for Java microbenchmarks. The change points
  split the runs into segments; a segment is *equivalent* to the final one
  when their means differ by at most ``tolerance`` (2%) of the final mean.
  The steady state is the trailing run of segments equivalent to the final
  segment, and starts where that run starts. Then:

  - **flat**: the steady state starts at run 0 (no change, or only changes
    between equivalent levels);
  - **no steady state**: the steady state starts in the last
    ``final_fraction`` (20%) of the runs: the series has not settled;
  - **warm-up**: the segment before the steady state is slower (a larger
    value when ``lower_is_better``);
  - **slow-down**: it is faster; the steady state is the final, slower
    level.

* **Distribution class** (SHARP's meta-heuristic, checked in this order):
  ``constant`` (all equal), ``monotonic`` (never decreasing or never
  increasing), ``autocorrelated`` (lag-1 ACF at least 0.8), ``normal``
  (Kolmogorov-Smirnov test against the normal of the runs' mean and SD,
  p > 0.1), ``lognormal`` (the same on the logarithms of positive runs),
  ``uniform`` (KS against the uniform on the runs' range, p > 0.1),
  ``multimodal`` (confirmed modes), else ``unknown``.

References
----------
E. Barrett, C. F. Bolz-Tereick, R. Killick, S. Mount and L. Tratt, "Virtual
Machine Warmup Blows Hot and Cold", Proceedings of the ACM on Programming
Languages 1(OOPSLA), 52:1-52:27, 2017.

L. Traini, V. Cortellessa, D. Di Pompeo and M. Tucci, "Towards effective
assessment of steady state performance in Java software: are we there
yet?", Empirical Software Engineering 28(1), 13, 2023 (and the companion
TOSEM 2023 study of dynamic reconfiguration by the same group).

Mittal et al., "SHARP: A Distribution-Based Framework for Reproducible Performance
Evaluation", manuscript (undated); see the References of :mod:`perfstats.rules.sharp`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

import numpy as np

from .._validation import (
    FloatArray,
    as_sample,
    check_fraction,
    check_positive,
    power_of_two_scale,
)
from ..precision.autocorrelation import acf
from .modes import Modes, find_modes
from .segmentation import MIN_SIZE, pelt

__all__ = [
    "DISTRIBUTION_CLASSES",
    "STEADY_STATES",
    "Characterization",
    "characterize",
    "distribution_class",
    "steady_state_start",
]

STEADY_STATES = ("flat", "warm-up", "slow-down", "no steady state")
DISTRIBUTION_CLASSES = (
    "constant",
    "monotonic",
    "autocorrelated",
    "normal",
    "lognormal",
    "multimodal",
    "uniform",
    "unknown",
)
#: Fewest runs characterised.
MIN_RUNS = 5
#: SHARP's thresholds: lag-1 autocorrelation, and the KS p-value of a fit.
ACF_LIMIT = 0.8
FIT_PVALUE = 0.1


@dataclass(frozen=True, eq=False)
class Characterization:
    """What :func:`characterize` found; prints as a short summary.

    Parameters
    ----------
    n : int
        Number of runs.
    mean : float
        Mean of the runs.
    sd : float
        Standard deviation of the runs (``ddof=1``).
    median : float
        Median of the runs.
    mad : float
        Median absolute deviation from the median, unscaled (not multiplied
        by 1.4826 to estimate the SD).
    skew : float
        Moment coefficient of skewness ``m3 / m2**1.5`` (biased, as SciPy's
        default); NaN for a constant series.
    modes : Modes
        The peaks of the kernel density, before the Gaussian-mixture
        confirmation (see the module notes).
    n_modes : int
        Modes counted after the Gaussian-mixture confirmation: the number
        of density peaks when a mixture of that many components has the
        lower BIC (or the confirmation is off), else 1.
    acf : numpy.ndarray
        Autocorrelations at lags 0, 1, ..., up to ``10 log10 n`` (empty for a
        constant series).
    lag1 : float
        The lag-1 autocorrelation (NaN for a constant series).
    change_points : tuple of int
        Start indices of the segments after the first, as PELT found them.
    segment_means : tuple of float
        Mean of each segment, in order (one more than the change points).
    steady_state : str
        One of :data:`STEADY_STATES`: ``"flat"``, ``"warm-up"``,
        ``"slow-down"`` or ``"no steady state"``.
    steady_state_start : int or None
        First run of the steady state: 0 when flat, None when there is none.
    distribution : str
        SHARP's distribution class, one of :data:`DISTRIBUTION_CLASSES` (see
        the module notes).

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.characterization import characterize
    >>> rng = np.random.default_rng(0)
    >>> c = characterize(np.concatenate([rng.normal(150, 5, 50), rng.normal(100, 5, 450)]))
    >>> c.n, c.change_points, [round(m) for m in c.segment_means]
    (500, (50,), [151, 100])
    >>> c.steady_state, c.steady_state_start, c.n_modes
    ('warm-up', 50, 2)
    """

    n: int
    mean: float
    sd: float
    median: float
    mad: float
    skew: float
    modes: Modes
    n_modes: int
    acf: FloatArray = field(repr=False)
    lag1: float
    change_points: tuple[int, ...]
    segment_means: tuple[float, ...]
    steady_state: str
    steady_state_start: int | None
    distribution: str

    @property
    def warmup(self) -> int:
        """Runs before the steady state (all of them when there is none)."""
        return self.n if self.steady_state_start is None else self.steady_state_start

    @property
    def mode_locations(self) -> tuple[float, ...]:
        """Locations of the confirmed modes."""
        if self.n_modes == self.modes.count:
            return tuple(float(v) for v in self.modes.locations)
        return (self.modes.main,)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (for records and JSON).

        Returns
        -------
        dict of str to object
            Built-in Python values, lists in place of tuples and of the ``acf``
            array: the summary statistics, ``n_modes`` with the confirmed
            ``mode_locations`` (the raw density peaks are left out), ``lag1``
            and ``acf``, the change points and segment means, the steady state
            and its start, and the distribution class. A constant series keeps
            its NaN skewness and lag-1 autocorrelation.

        Examples
        --------
        >>> import numpy as np
        >>> from perfstats import characterize
        >>> c = characterize(np.random.default_rng(0).normal(10.0, 1.0, 200))
        >>> c.to_dict()["steady_state"]
        'flat'
        """
        return {
            "n": self.n,
            "mean": self.mean,
            "sd": self.sd,
            "median": self.median,
            "mad": self.mad,
            "skew": self.skew,
            "n_modes": self.n_modes,
            "mode_locations": list(self.mode_locations),
            "lag1": self.lag1,
            "acf": [float(v) for v in self.acf],
            "change_points": list(self.change_points),
            "segment_means": list(self.segment_means),
            "steady_state": self.steady_state,
            "steady_state_start": self.steady_state_start,
            "distribution": self.distribution,
        }

    def __str__(self) -> str:
        modes = ", ".join(f"{v:.4g}" for v in self.mode_locations)
        if self.steady_state == "no steady state":
            steady = "no steady state"
        elif self.steady_state == "flat":
            steady = "flat (steady from run 0)"
        else:
            steady = f"{self.steady_state}, steady from run {self.steady_state_start}"
        changes = ", ".join(str(c) for c in self.change_points) or "none"
        return (
            f"{self.n} runs: mean {self.mean:.4g}, SD {self.sd:.4g}, median {self.median:.4g}, "
            f"MAD {self.mad:.4g}, skew {self.skew:.2f}\n"
            f"{self.n_modes} mode{'s' if self.n_modes != 1 else ''} ({modes}); "
            f"lag-1 autocorrelation {self.lag1:.2f}; distribution {self.distribution}\n"
            f"change points: {changes}; {steady}"
        )

    def __repr__(self) -> str:
        return (
            f"Characterization(n={self.n}, steady_state={self.steady_state!r}, "
            f"steady_state_start={self.steady_state_start}, n_modes={self.n_modes}, "
            f"lag1={self.lag1:.3g}, distribution={self.distribution!r})"
        )


def characterize(
    values: Any,
    *,
    lower_is_better: bool = True,
    tolerance: float = 0.02,
    final_fraction: float = 0.2,
    penalty: float | None = None,
    min_size: int = MIN_SIZE,
    confirm_modes: bool = True,
) -> Characterization:
    """Characterise a series of runs: summary, modes, autocorrelation, changes, steady state.

    Parameters
    ----------
    values : array_like
        1-D finite measurements in collection order, at least 5.
    lower_is_better : bool, default True
        True for times and latencies (a warm-up is a slower start); False
        for throughputs.
    tolerance : float, default 0.02
        Segments whose means differ by at most this fraction of the final
        segment's mean are equivalent.
    final_fraction : float, default 0.2
        A steady state starting in this last share of the runs is none.
    penalty : float, optional
        PELT penalty in noise units (default ``15 ln n``).
    min_size : int, default 10
        Shortest segment of the change-point search.
    confirm_modes : bool, default True
        Confirm several density peaks with a Gaussian mixture (BIC); False
        trusts the density peaks.

    Returns
    -------
    Characterization
        The summary statistics, modes, autocorrelation, change points,
        steady-state class and distribution class of the runs.

    Raises
    ------
    ValueError
        For fewer than 5 values, non-finite values or bad options.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import characterize
    >>> rng = np.random.default_rng(0)
    >>> x = np.concatenate([rng.normal(150, 5, 50), rng.normal(100, 5, 450)])
    >>> c = characterize(x)
    >>> c.steady_state, c.steady_state_start, c.change_points
    ('warm-up', 50, (50,))
    >>> print(c)  # doctest: +NORMALIZE_WHITESPACE
    500 runs: mean 104.9, SD 16.09, median 100.4, MAD 3.986, skew 2.26
    2 modes (98.59, 149.6); lag-1 autocorrelation 0.88; distribution autocorrelated
    change points: 50; warm-up, steady from run 50
    """
    x = as_sample(values, "values", min_size=MIN_RUNS)
    tol = check_positive(tolerance, "tolerance")
    frac = check_fraction(final_fraction, "final_fraction")
    n = int(x.size)
    # Equal values of any magnitude are a constant series: their computed
    # mean may differ from them by rounding, which must not read as spread.
    constant = float(x.max()) == float(x.min())
    mean = float(x[0]) if constant else float(np.mean(x))
    median = float(np.median(x))
    mad = float(np.median(np.abs(x - median)))
    # Moments from values scaled by a power of two (exact), so squares and
    # cubes stay finite near 1e100 and above; skewness is scale-free.
    s = power_of_two_scale(x)
    d = x * s - mean * s
    m2 = float(np.dot(d, d)) / n
    sd = math.sqrt(m2 * n / (n - 1)) / s
    skew = math.nan if constant else float(np.mean(d**3)) / m2**1.5
    modes = find_modes(x)
    n_modes = modes.count
    if n_modes > 1 and confirm_modes:
        n_modes = _confirmed_modes(x, n_modes)
    r = np.empty(0) if constant else acf(x)
    lag1 = float(r[1]) if r.size > 1 else math.nan
    changes = pelt(x, penalty=penalty, min_size=min_size)
    bounds = (0, *changes, n)
    means = tuple(float(np.mean(x[a:b])) for a, b in pairwise(bounds))
    state, start = _steady_state(bounds, means, n, tol, frac, lower_is_better)
    return Characterization(
        n=n,
        mean=mean,
        sd=sd,
        median=median,
        mad=mad,
        skew=skew,
        modes=modes,
        n_modes=n_modes,
        acf=r,
        lag1=lag1,
        change_points=changes,
        segment_means=means,
        steady_state=state,
        steady_state_start=start,
        distribution=_distribution(x, lag1, n_modes > 1),
    )


def steady_state_start(values: Any, **options: Any) -> int | None:
    """Index of the first steady-state run (0 when flat, None when there is none).

    The warm-up detector a harness calls: ``values[:start]`` is the warm-up
    found in the data.

    Parameters
    ----------
    values : array_like
        1-D finite measurements in collection order, at least 5.
    **options : Any
        Keyword options of :func:`characterize`: ``lower_is_better``,
        ``tolerance``, ``final_fraction``, ``penalty``, ``min_size`` and
        ``confirm_modes``, with the same meanings and defaults.

    Returns
    -------
    int or None
        The ``steady_state_start`` of :func:`characterize`: 0 for a flat
        series, the first run of the final level after a warm-up or a
        slow-down, or None when the series has not settled.

    Raises
    ------
    ValueError
        As :func:`characterize`: for fewer than 5 values, non-finite values
        or bad options.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import steady_state_start
    >>> rng = np.random.default_rng(1)
    >>> steady_state_start(np.concatenate([rng.normal(20, 1, 40), rng.normal(10, 1, 300)]))
    40
    """
    return characterize(values, **options).steady_state_start


def distribution_class(values: Any) -> str:
    """SHARP's class of a sample (see the module notes).

    The class :func:`characterize` reports as ``distribution``, computed
    from the lag-1 autocorrelation and the confirmed modes alone, without
    the change-point search.

    Parameters
    ----------
    values : array_like
        1-D finite measurements in collection order (the order matters for
        the ``monotonic`` and ``autocorrelated`` classes), at least 5.

    Returns
    -------
    str
        One of :data:`DISTRIBUTION_CLASSES`: the first that fits, checked
        in the order ``constant``, ``monotonic``, ``autocorrelated``,
        ``normal``, ``lognormal``, ``uniform``, ``multimodal``; ``unknown``
        when none does.

    Raises
    ------
    ValueError
        For fewer than 5 values or non-finite values.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.characterization import distribution_class
    >>> rng = np.random.default_rng(0)
    >>> distribution_class(rng.normal(100, 5, 200)), distribution_class([3.0] * 10)
    ('normal', 'constant')
    >>> distribution_class(np.arange(50.0))
    'monotonic'
    """
    x = as_sample(values, "values", min_size=MIN_RUNS)
    if float(x.max()) == float(x.min()):
        return "constant"
    r = acf(x, nlags=1)
    multimodal = False
    modes = find_modes(x)
    if modes.count > 1:
        multimodal = _confirmed_modes(x, modes.count) > 1
    return _distribution(x, float(r[1]), multimodal)


def _distribution(x: FloatArray, lag1: float, multimodal: bool) -> str:
    if float(x.max()) == float(x.min()):
        return "constant"
    # The fits are scale-free: a power-of-two scale (exact) keeps the squares
    # of values near 1e160 or 1e-245 finite and non-zero.
    x = x * power_of_two_scale(x)
    step = np.diff(x)
    if bool(np.all(step >= 0.0)) or bool(np.all(step <= 0.0)):
        return "monotonic"
    if lag1 >= ACF_LIMIT:
        return "autocorrelated"
    from scipy import stats

    sd = float(np.std(x, ddof=1))
    if stats.kstest(x, "norm", args=(float(np.mean(x)), sd)).pvalue > FIT_PVALUE:
        return "normal"
    if float(np.min(x)) > 0.0:
        lx = np.log(x)
        lsd = float(np.std(lx, ddof=1))
        fit = (float(np.mean(lx)), lsd)
        if lsd > 0.0 and stats.kstest(lx, "norm", args=fit).pvalue > FIT_PVALUE:
            return "lognormal"
    # Uniform before multimodal: a flat density has no modes, but its kernel
    # estimate wiggles and a Gaussian mixture fits it better than one
    # Gaussian, so the mode check alone calls half of all uniform samples
    # multimodal. Separated modes fail the uniform fit.
    lo = float(np.min(x))
    if stats.kstest(x, "uniform", args=(lo, float(np.max(x)) - lo)).pvalue > FIT_PVALUE:
        return "uniform"
    if multimodal:
        return "multimodal"
    return "unknown"


def _confirmed_modes(x: FloatArray, peaks: int) -> int:
    """``peaks`` if a mixture of that many components beats one Gaussian by BIC, else 1."""
    from .mixture import fit_mixture

    fit = fit_mixture(x, sorted({1, min(peaks, x.size // 2)}), ("full",))
    return peaks if fit.components > 1 else 1


def _steady_state(
    bounds: tuple[int, ...],
    means: tuple[float, ...],
    n: int,
    tol: float,
    frac: float,
    lower_is_better: bool,
) -> tuple[str, int | None]:
    final = means[-1]
    delta = tol * abs(final)
    first = len(means) - 1
    while first > 0 and abs(means[first - 1] - final) <= delta:
        first -= 1
    start = bounds[first]
    if start == 0:
        return "flat", 0
    if start > (1.0 - frac) * n:
        return "no steady state", None
    before = means[first - 1]
    slower = before > final if lower_is_better else before < final
    return ("warm-up" if slower else "slow-down"), start
