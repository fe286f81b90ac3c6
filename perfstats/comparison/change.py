"""Did it change? Bootstrap CI of the relative change between two versions, and
ElastiBench's agreement between two experiments' verdicts.

ElastiBench (Schirmer et al. 2024, Sections II and VI-A) decides that a
benchmark changed when the 99% bootstrap confidence interval of the relative
difference of the medians of the two versions excludes 0; measuring both
versions in the same function instance, pair by pair ("duet"
benchmarking), cancels most of the platform's noise.

References
----------
.. [Schirmer2024] T. Schirmer, T. Pfandzelter and D. Bermbach, "ElastiBench: Scalable
   Continuous Benchmarking on Cloud FaaS Platforms", IEEE International
   Conference on Cloud Engineering (IC2E), 2024.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from .._direction import BETTER, check_better, worse_sign
from .._kernels.change import MEAN, QUANTILE, paired_changes, unpaired_changes
from .._kernels.random import mix64
from .._quantiles import parse_statistic
from .._rng import stream_key
from .._validation import FloatArray, as_sample, check_int, check_level
from ..precision.bootstrap import check_engine, iid_quantiles, sort_order, use_order_engine

__all__ = [
    "BETTER",
    "ChangeAgreement",
    "RelativeChange",
    "change_agreement",
    "check_better",
    "relative_change",
    "worse_sign",
]

IntArray = np.ndarray

def _direction(low: float, high: float, better: str = "lower") -> str:
    sign = worse_sign(better)
    worse_low, worse_high = sorted((sign * low, sign * high))
    if worse_low > 0:
        return "slower"
    if worse_high < 0:
        return "faster"
    return "none"


@dataclass(frozen=True)
class RelativeChange:
    """Relative change ``stat(candidate) / stat(baseline) - 1`` with a bootstrap CI.

    Parameters
    ----------
    estimate : float
        The relative change of the samples themselves (0.05 = 5% larger).
    low, high : float
        Percentile-bootstrap confidence bounds.
    level : float
        Confidence level.
    statistic : str
        ``"median"``, ``"mean"`` or ``"q=<quantile>"``.
    paired : bool
        Whether pairs were resampled jointly.
    grouped : bool
        Whether resampling was two-level (groups, then measurements).
    n_baseline, n_candidate : int
        Sample sizes.
    n_resamples : int
        Bootstrap resamples.
    per_pair : bool, default False
        Whether the statistic was taken of the per-pair ratios
        ``candidate[i] / baseline[i]`` rather than of each version.
    better : {"lower", "higher"}, default "lower"
        Which values are better: ``"higher"`` for a throughput or a rate,
        whose rise :attr:`direction` reads as ``"faster"``.

    Examples
    --------
    >>> from perfstats import RelativeChange
    >>> rc = RelativeChange(0.041, 0.012, 0.070, 0.99, "median", False, False, 100, 100, 10000)
    >>> rc.changed, rc.direction
    (True, 'slower')
    >>> rc
    RelativeChange(+4.10% [+1.20%, +7.00%] at 99%: slower; median, unpaired, n=100/100, B=10000)
    """

    estimate: float
    low: float
    high: float
    level: float
    statistic: str
    paired: bool
    grouped: bool
    n_baseline: int
    n_candidate: int
    n_resamples: int
    per_pair: bool = False
    better: str = "lower"

    def __post_init__(self) -> None:
        check_better(self.better)

    @property
    def changed(self) -> bool:
        """True when the interval excludes 0."""
        return bool(self.low > 0 or self.high < 0)

    @property
    def direction(self) -> str:
        """``"slower"`` (worse), ``"faster"`` (better) or ``"none"`` (CI holds 0).

        Where lower is better (a time) a CI above 0 is slower; where higher
        is better (``better="higher"``, a throughput) a CI above 0 is
        faster.
        """
        return _direction(self.low, self.high, self.better)

    def contains(self, value: float) -> bool:
        """True when ``low <= value <= high``.

        Parameters
        ----------
        value : float
            A relative change to look for, on the scale of :attr:`estimate`
            (0.05 for 5% larger).

        Returns
        -------
        bool
            Whether the confidence interval holds ``value``, bounds included;
            False for NaN.
        """
        return bool(self.low <= value <= self.high)

    def __repr__(self) -> str:
        how = "paired" if self.paired else "unpaired"
        if self.per_pair:
            how += " per pair"
        if self.grouped:
            how += ", grouped"
        if self.better == "higher":
            how += ", higher is better"
        return (
            f"RelativeChange({self.estimate:+.2%} [{self.low:+.2%}, {self.high:+.2%}] "
            f"at {self.level * 100:g}%: {self.direction}; {self.statistic}, {how}, "
            f"n={self.n_baseline}/{self.n_candidate}, B={self.n_resamples})"
        )


def _statistic(statistic: Any) -> tuple[int, float, str]:
    """(kernel kind, quantile, label) for ``"median"``, ``"mean"`` or a float quantile."""
    stat = parse_statistic(statistic)
    if stat == "median":
        return QUANTILE, 0.5, "median"
    if stat == "mean":
        return MEAN, math.nan, "mean"
    q = float(stat)
    return QUANTILE, q, f"q={q:g}"


def _point(x: FloatArray, kind: int, q: float) -> float:
    return float(np.mean(x)) if kind == MEAN else float(np.quantile(x, q))


def _grouping(labels: Any, n: int, name: str) -> tuple[IntArray, IntArray]:
    """``members`` (indices, group after group) and ``starts`` for group labels."""
    if isinstance(labels, (str, bytes)):
        raise ValueError(f"{name} must be a 1-D sequence of labels, got the string {labels!r}")
    arr = np.asarray(labels)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got an array of shape {arr.shape}")
    if arr.size != n:
        raise ValueError(f"{name} must have one label per measurement ({n}), got {arr.size}")
    _, inverse = np.unique(arr, return_inverse=True)
    members = np.argsort(inverse, kind="stable").astype(np.int64)
    sizes = np.bincount(inverse)
    starts = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    return members, starts


def _identity(n: int) -> IntArray:
    return np.arange(n, dtype=np.int64)


def _inverse(order: IntArray) -> IntArray:
    """Rank of each observation, given the permutation that sorts them."""
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size, dtype=np.int64)
    return rank


def _one_group(n: int) -> tuple[IntArray, IntArray]:
    return np.arange(n, dtype=np.int64), np.array([0, n], dtype=np.int64)


def relative_change(
    baseline: Any,
    candidate: Any,
    *,
    statistic: str | float = "median",
    level: float = 0.95,
    paired: bool = False,
    groups: Any = None,
    per_pair: bool = False,
    n_resamples: int = 10000,
    rng: Any = None,
    engine: str = "auto",
    better: str = "lower",
) -> RelativeChange:
    """Bootstrap CI of the relative change of a statistic from baseline to candidate.

    The change is ``stat(candidate) / stat(baseline) - 1``; its confidence
    interval is the percentile interval of that ratio over ``n_resamples``
    bootstrap resamples. ``changed`` means the interval excludes 0, as in
    ElastiBench (Schirmer et al. 2024), which reads a 99% interval of the
    median (pass ``level=0.99``; the default is the library's common 0.95).
    The sign is "candidate relative to baseline": positive means the
    candidate's statistic is larger, for latency-like metrics ``"slower"``.

    * Unpaired: baseline and candidate are resampled independently.
    * ``paired=True`` (ElastiBench's duet benchmarking): ``baseline[i]`` and
      ``candidate[i]`` were run together (same instance, back to
      back), and pairs are resampled jointly, keeping what they share.
    * ``groups``: labels of the instance or call each measurement came from.
      Resampling is then two-level: groups with replacement, then
      measurements within each drawn group (Davison & Hinkley 1997, 3.8),
      so that the interval reflects the variation between instances and
      not only within them. For paired data give one label per pair; for
      unpaired data a tuple ``(baseline_groups, candidate_groups)``.
    * ``per_pair=True`` (with ``paired=True``): the change is
      ``stat(candidate[i] / baseline[i]) - 1``, the statistic of the per-pair
      ratios, as duet benchmarking reads its pairs (Bulej et al. 2020;
      ElastiBench, Schirmer et al. 2024). Each ratio cancels what its two measurements
      share; the ratio of the two medians does not when that shared state
      is multimodal (an instance that is sometimes 30% slower, say), where
      a resample can take one version's median from the fast state and the
      other's from the slow one. For a multiplicative change both read the
      same amount.

    A resample is drawn as counts and its quantile read off the sorted
    sample in one pass (numba, parallel over resamples, one random stream
    per resample: the same ``rng`` gives the same result whatever the number
    of threads).

    Parameters
    ----------
    baseline : array_like
        Measurements of the old version; all must be positive.
    candidate : array_like
        Measurements of the new version.
    statistic : {"median", "mean"} or quantile, default "median"
        The statistic compared; a quantile in [0, 1] in any spelling of
        :mod:`perfstats._quantiles` (``0.9``, ``"p90"``; NumPy's linear
        interpolation).
    level : float, default 0.95
        Confidence level.
    paired : bool, default False
        Resample pairs jointly; the samples must have equal length.
    groups : array_like or tuple of two array_like, optional
        Group labels for two-level resampling (see above).
    per_pair : bool, default False
        Take the statistic of the per-pair ratios ``candidate[i] /
        baseline[i]`` rather than of each version (see above); needs
        ``paired=True``.
    n_resamples : int, default 10000
        Bootstrap resamples.
    rng : None, int or numpy.random.Generator
        Seed for the resampling.
    engine : {"auto", "order", "direct", "chain"}, default "auto"
        For a quantile without groups, unpaired or ``per_pair``: ``"order"``
        draws each resample's order statistics around the quantile's rank
        (O(log n) per resample, see :func:`perfstats.percentile_ci`),
        ``"chain"`` in one chain of Gamma spacings (O(1) per resample),
        ``"direct"`` counts every resampled point. Same distribution;
        ``"auto"`` takes ``"chain"``.
    better : {"lower", "higher"}, default "lower"
        Which values are better. The change and its CI are the same either
        way; ``"higher"`` (a throughput, a rate) makes the result's
        ``direction`` read a rise as ``"faster"``.

    Returns
    -------
    RelativeChange
        The change of the samples themselves (``estimate``), its percentile
        CI (``low``, ``high``) at ``level``, and how it was resampled;
        ``changed`` and ``direction`` read the CI.

    Raises
    ------
    ValueError
        On non-finite or empty samples, a non-positive baseline value, a bad
        statistic, level or resample count, paired samples of unequal length,
        or groups of the wrong shape or length, or ``per_pair`` without
        ``paired``.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import relative_change
    >>> rng = np.random.default_rng(7)
    >>> old = rng.lognormal(3.0, 0.1, size=200)
    >>> new = rng.lognormal(3.0, 0.1, size=200) * 1.10
    >>> rc = relative_change(old, new, rng=1)
    >>> rc.changed, rc.direction, rc.contains(0.10)
    (True, 'slower', True)
    >>> relative_change(old, old, paired=True, rng=1).high
    0.0

    Duet pairs on an instance whose speed jumps between two states:

    >>> speed = np.where(rng.random(45) < 0.5, 1.0, 1.3)
    >>> base = speed * rng.lognormal(0, 0.02, 45)
    >>> cand = speed * 1.10 * rng.lognormal(0, 0.02, 45)
    >>> joint = relative_change(base, cand, paired=True, rng=1)
    >>> ratios = relative_change(base, cand, paired=True, per_pair=True, rng=1)
    >>> ratios.contains(0.10), ratios.high - ratios.low < joint.high - joint.low
    (True, True)

    A throughput that rose by 10% is faster:

    >>> relative_change(old, new, rng=1, better="higher").direction
    'faster'
    """
    check_better(better)
    lvl = check_level(level)
    inputs = _relative_change_iv(
        baseline, candidate, statistic, paired, groups, per_pair, n_resamples, engine
    )
    dist = _resampled(inputs, stream_key(rng))
    result = _result(
        inputs.baseline, inputs.candidate, dist, inputs.kind, inputs.q, lvl,
        inputs.label, paired, groups, per_pair, inputs.n_resamples,
    )  # fmt: skip
    return result if better == "lower" else dataclasses.replace(result, better=better)


def resampled_changes(
    baseline: Any,
    candidate: Any,
    *,
    statistic: str | float = "median",
    paired: bool = False,
    groups: Any = None,
    per_pair: bool = False,
    n_resamples: int = 10000,
    rng: Any = None,
    engine: str = "auto",
) -> FloatArray:
    """The bootstrap replicates of the relative change that :func:`relative_change` reads.

    Each is ``stat(candidate*) / stat(baseline*) - 1`` for one resample,
    drawn by the scheme and the random streams of :func:`relative_change`
    with the same arguments: for the same ``rng`` its percentile interval
    at a level is that function's ``low`` and ``high``.
    :func:`perfstats.plots.change_replicates` draws them as a histogram.

    Parameters
    ----------
    baseline, candidate, statistic, paired, groups, per_pair, n_resamples, rng, engine
        As for :func:`relative_change`.

    Returns
    -------
    numpy.ndarray
        The resampled relative changes, shape ``(n_resamples,)``.

    Raises
    ------
    ValueError
        As :func:`relative_change` does.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import relative_change
    >>> from perfstats.comparison.change import resampled_changes
    >>> rng = np.random.default_rng(7)
    >>> old, new = rng.lognormal(3.0, 0.1, 200), rng.lognormal(3.0, 0.1, 200) * 1.10
    >>> reps = resampled_changes(old, new, n_resamples=2000, rng=1)
    >>> rc = relative_change(old, new, n_resamples=2000, rng=1)
    >>> np.allclose(np.quantile(reps, [0.025, 0.975]), [rc.low, rc.high], rtol=1e-12, atol=0)
    True
    """
    inputs = _relative_change_iv(
        baseline, candidate, statistic, paired, groups, per_pair, n_resamples, engine
    )
    return _resampled(inputs, stream_key(rng))


def _resampled(inputs: _ChangeInputs, key: np.uint64) -> FloatArray:
    """The resampled changes, by the scheme the inputs call for."""
    if inputs.order_statistics:
        return _order_statistic_distribution(inputs, key)
    if inputs.paired:
        return _paired_distribution(inputs, key)
    return _unpaired_distribution(inputs, key)


@dataclass(frozen=True)
class _ChangeInputs:
    """The validated arguments of :func:`relative_change`.

    With ``per_pair`` the candidate holds the per-pair ratios and the
    baseline ones: the statistic of the ratios over a baseline of ones, so
    that every engine returns ``stat(ratios*) / 1 - 1`` for a resample.
    """

    baseline: FloatArray
    candidate: FloatArray
    kind: int
    q: float
    label: str
    n_resamples: int
    engine: str
    paired: bool
    per_pair: bool
    # Drawn by the order statistics of i.i.d. resamples (a quantile without
    # groups, unpaired or per pair) rather than by counting resampled points.
    order_statistics: bool
    # ``(members, starts)`` of the baseline's groups (of the pairs' when
    # paired) and of the candidate's; None where the engine needs none.
    baseline_groups: tuple[IntArray, IntArray] | None
    candidate_groups: tuple[IntArray, IntArray] | None


def _relative_change_iv(
    baseline: Any,
    candidate: Any,
    statistic: Any,
    paired: Any,
    groups: Any,
    per_pair: Any,
    n_resamples: Any,
    engine: Any,
) -> _ChangeInputs:
    """Validate and normalise :func:`relative_change`'s arguments (errors name the argument)."""
    xb = as_sample(baseline, "baseline")
    xc = as_sample(candidate, "candidate")
    if not bool(np.all(xb > 0)):
        i = int(np.flatnonzero(xb <= 0)[0])
        raise ValueError(
            f"baseline must be positive for a relative change; baseline[{i}] is {float(xb[i])!r}"
        )
    if not math.isfinite(float(np.max(np.abs(xc))) / float(np.min(xb))):
        raise ValueError(
            f"candidate / baseline overflows: baseline values as small as {float(np.min(xb))!r} "
            f"against candidate values up to {float(np.max(np.abs(xc)))!r}; rescale both"
        )
    kind, q, label = _statistic(statistic)
    b = check_int(n_resamples, "n_resamples", minimum=1)
    if not isinstance(paired, (bool, np.bool_)):
        raise ValueError(f"paired must be True or False, got {paired!r}")
    if not isinstance(per_pair, (bool, np.bool_)):
        raise ValueError(f"per_pair must be True or False, got {per_pair!r}")
    if per_pair and not paired:
        raise ValueError("per_pair=True compares pairs and needs paired=True")
    if paired and xb.size != xc.size:
        raise ValueError(
            f"paired=True needs baseline and candidate of equal length, got {xb.size} and {xc.size}"
        )
    order_ok = bool(kind == QUANTILE and groups is None and (per_pair or not paired))
    eng = check_engine(engine, iid=order_ok, quantiles=order_ok)
    order_statistics = order_ok and use_order_engine(eng)
    grouping_b = grouping_c = None
    if not order_statistics:
        grouping_b, grouping_c = _groupings(groups, bool(paired), xb.size, xc.size)
    if per_pair:
        xc = xc / xb
        xb = np.ones_like(xb)
    return _ChangeInputs(
        xb, xc, kind, q, label, b, eng, bool(paired), bool(per_pair), order_statistics,
        grouping_b, grouping_c,
    )  # fmt: skip


def _order_statistic_distribution(inputs: _ChangeInputs, key: np.uint64) -> FloatArray:
    """The resampled changes of a quantile, by the order statistics of i.i.d. resamples."""
    qs = np.array([inputs.q])
    b, eng = inputs.n_resamples, inputs.engine
    if inputs.per_pair:
        return iid_quantiles(np.sort(inputs.candidate), qs, b, key, eng)[:, 0] - 1.0
    # Independent samples draw from independent keys.
    base = iid_quantiles(np.sort(inputs.baseline), qs, b, key, eng)[:, 0]
    cand_key = np.uint64(mix64(key ^ np.uint64(0x5851F42D4C957F2D)))
    cand = iid_quantiles(np.sort(inputs.candidate), qs, b, cand_key, eng)[:, 0]
    return cand / base - 1.0


def _groupings(
    groups: Any, paired: bool, n_baseline: int, n_candidate: int
) -> tuple[tuple[IntArray, IntArray], tuple[IntArray, IntArray] | None]:
    """``(members, starts)`` of the baseline's (or the pairs') groups and of the candidate's."""
    if paired:
        return (
            _one_group(n_baseline) if groups is None else _grouping(groups, n_baseline, "groups")
        ), None
    if groups is None:
        return _one_group(n_baseline), _one_group(n_candidate)
    if not (isinstance(groups, tuple) and len(groups) == 2):
        raise ValueError(
            "groups for unpaired samples must be a tuple (baseline_groups, candidate_groups); "
            f"got {type(groups).__name__}"
        )
    return (
        _grouping(groups[0], n_baseline, "groups[0]"),
        _grouping(groups[1], n_candidate, "groups[1]"),
    )


# Observations are relabelled so that counts are indexed in sorted order of
# the baseline (and, unpaired, of the candidate): the kernels' passes over
# the counts then read memory in sequence.


def _paired_distribution(inputs: _ChangeInputs, key: np.uint64) -> FloatArray:
    """The resampled changes of pairs drawn jointly (in groups of pairs, if any)."""
    assert inputs.baseline_groups is not None
    members, starts = inputs.baseline_groups
    xb, xc = inputs.baseline, inputs.candidate
    ob = sort_order(xb)
    rank = _inverse(ob)
    sb, sc = xb[ob], xc[ob]
    oc = sort_order(sc)
    return paired_changes(
        sb, _identity(xb.size), sc, oc, rank[members], starts,
        inputs.kind, inputs.q, inputs.n_resamples, key,
    )  # fmt: skip


def _unpaired_distribution(inputs: _ChangeInputs, key: np.uint64) -> FloatArray:
    """The resampled changes of two samples drawn independently (each in its groups, if any)."""
    assert inputs.baseline_groups is not None and inputs.candidate_groups is not None
    (mb, gb), (mc, gc) = inputs.baseline_groups, inputs.candidate_groups
    xb, xc = inputs.baseline, inputs.candidate
    ob = sort_order(xb)
    oc = sort_order(xc)
    return unpaired_changes(
        xb[ob], _identity(xb.size), _inverse(ob)[mb], gb,
        xc[oc], _identity(xc.size), _inverse(oc)[mc], gc,
        inputs.kind, inputs.q, inputs.n_resamples, key,
    )  # fmt: skip


def _result(
    xb: FloatArray,
    xc: FloatArray,
    dist: FloatArray,
    kind: int,
    q: float,
    lvl: float,
    label: str,
    paired: bool,
    groups: Any,
    per_pair: bool,
    b: int,
) -> RelativeChange:
    """The percentile interval of ``dist`` around the samples' own change."""
    alpha = (1.0 - lvl) / 2.0
    low, high = np.quantile(dist, [alpha, 1.0 - alpha])
    estimate = _point(xc, kind, q) / _point(xb, kind, q) - 1.0
    return RelativeChange(
        estimate=estimate,
        low=float(low),
        high=float(high),
        level=lvl,
        statistic=label,
        paired=bool(paired),
        grouped=groups is not None,
        per_pair=bool(per_pair),
        n_baseline=xb.size,
        n_candidate=xc.size,
        n_resamples=b,
    )


class ChangeLike(Protocol):
    """Anything with a change estimate and its confidence bounds."""

    @property
    def estimate(self) -> float: ...

    @property
    def low(self) -> float: ...

    @property
    def high(self) -> float: ...


@dataclass(frozen=True)
class ChangeAgreement:
    """How well two experiments' change results agree (ElastiBench, Schirmer et al. 2024, VI-A).

    Parameters
    ----------
    n : int
        Benchmarks present in both experiments.
    agree : float
        Fraction of them where both find no change, or both a change in
        the same direction.
    one_sided : float
        Fraction where the first experiment's estimate lies inside the
        second's CI.
    one_sided_reverse : float
        Fraction where the second's estimate lies inside the first's CI.
    two_sided : float
        Fraction where both estimates lie inside the other's CI.
    agreed : tuple of bool
        Per benchmark, in order (sorted names for mappings).
    names : tuple of str
        The benchmarks compared (positions as strings for sequences).

    Examples
    --------
    >>> from perfstats import ChangeAgreement
    >>> ChangeAgreement(4, 0.75, 0.5, 0.75, 0.5, (True, True, True, False),
    ...                 ("a", "b", "c", "d"))
    ChangeAgreement(n=4, agree=75.00%, one_sided=50.00%, one_sided_reverse=75.00%, two_sided=50.00%)
    """

    n: int
    agree: float
    one_sided: float
    one_sided_reverse: float
    two_sided: float
    agreed: tuple[bool, ...]
    names: tuple[str, ...]

    def __repr__(self) -> str:
        return (
            f"ChangeAgreement(n={self.n}, agree={self.agree:.2%}, "
            f"one_sided={self.one_sided:.2%}, one_sided_reverse={self.one_sided_reverse:.2%}, "
            f"two_sided={self.two_sided:.2%})"
        )


def change_bounds(
    value: Any, name: str, *, fields: Sequence[Any] | None = None, accepts: str = "a RelativeChange"
) -> tuple[float, float, float]:
    """``(estimate, low, high)`` of a relative change as floats, with ``low <= high``.

    Parameters
    ----------
    value : object
        The change, read by its ``estimate``, ``low`` and ``high`` attributes.
    name : str
        How an error names ``value``.
    fields : sequence of three objects, optional
        The estimate, low and high already taken from ``value`` (by a caller that reads
        more kinds of result); ``value`` is then only named in an error.
    accepts : str, default "a RelativeChange"
        What an error says ``value`` may be.

    Returns
    -------
    tuple of float

    Examples
    --------
    >>> from perfstats import relative_change
    >>> from perfstats.comparison.change import change_bounds
    >>> rc = relative_change([1.0, 2.0, 3.0], [2.0, 3.0, 4.0], statistic="mean")
    >>> change_bounds(rc, "rc") == (rc.estimate, rc.low, rc.high)
    True
    >>> change_bounds(object(), "x")
    Traceback (most recent call last):
    ...
    ValueError: x must have numeric estimate, low and high (a RelativeChange), got object
    """
    if fields is None:
        fields = [getattr(value, key, None) for key in ("estimate", "low", "high")]
    try:
        est, low, high = (float(v) for v in fields)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must have numeric estimate, low and high ({accepts}), "
            f"got {type(value).__name__}"
        ) from None
    if math.isnan(est) or math.isnan(low) or math.isnan(high) or low > high:
        raise ValueError(f"{name} has an invalid interval: {est!r} [{low!r}, {high!r}]")
    return est, low, high


def change_agreement(
    first: Mapping[str, ChangeLike] | Sequence[ChangeLike],
    second: Mapping[str, ChangeLike] | Sequence[ChangeLike],
) -> ChangeAgreement:
    """ElastiBench's agreement and coverage between two experiments, over many benchmarks.

    Definitions from Schirmer et al. (ElastiBench, Schirmer et al. 2024, Section VI-A):

    * two results **agree** if both find a performance change in the same
      direction, or both find no change (both CIs contain 0);
    * **one-sided coverage**: the share of benchmarks for which the estimate
      of the first experiment lies inside the CI of the other (reported both
      ways: ``one_sided`` and ``one_sided_reverse``);
    * **two-sided coverage**: the share for which each estimate lies inside
      the other's CI.

    All three shares are over every benchmark present in both experiments,
    which is how the paper's figures add up: its baseline experiment shares
    92 benchmarks with the original data set, and 95.65% = 88/92,
    86.96% = 80/92, 52.17% = 48/92 and 50% = 46/92. "Inside" includes the
    bounds.

    Parameters
    ----------
    first, second : mapping of name to result, or sequence of results
        Change results (anything with ``estimate``, ``low`` and ``high``,
        e.g. :class:`RelativeChange`). For mappings, benchmarks present in
        only one experiment are left out (as in the paper); sequences must
        be aligned and of equal length.

    Returns
    -------
    ChangeAgreement
        The number of shared benchmarks, the shares that agree and that
        are covered one-sided (both ways) and two-sided, and the per-benchmark
        agreement with the benchmarks' names.

    Raises
    ------
    ValueError
        If sequences differ in length, nothing is shared, or a result has
        no valid interval.

    Examples
    --------
    >>> from perfstats import RelativeChange, change_agreement
    >>> def rc(est, low, high):
    ...     return RelativeChange(est, low, high, 0.99, "median", True, False, 45, 45, 10000)
    >>> one = {"add": rc(0.05, 0.02, 0.08), "get": rc(0.00, -0.01, 0.01)}
    >>> two = {"add": rc(0.08, 0.06, 0.10), "get": rc(-0.03, -0.05, -0.01)}
    >>> res = change_agreement(one, two)
    >>> res.agree, res.one_sided, res.one_sided_reverse, res.two_sided
    (0.5, 0.0, 0.5, 0.0)
    """
    mixed = ValueError("first and second must both be mappings or both be sequences")
    if isinstance(first, Mapping):
        if not isinstance(second, Mapping):
            raise mixed
        names = tuple(sorted(set(first) & set(second), key=str))
        pairs = [(first[k], second[k]) for k in names]
    else:
        if isinstance(second, Mapping):
            raise mixed
        if isinstance(first, (str, bytes)) or isinstance(second, (str, bytes)):
            raise ValueError("first and second must be sequences of change results")
        if len(first) != len(second):
            raise ValueError(
                f"first and second must be aligned: got {len(first)} and {len(second)} results"
            )
        names = tuple(str(i) for i in range(len(first)))
        pairs = list(zip(first, second, strict=True))
    if not pairs:
        raise ValueError("first and second share no benchmark")
    agreed: list[bool] = []
    one = rev = both = 0
    for i, (x, y) in enumerate(pairs):
        ex, lx, hx = change_bounds(x, f"first[{names[i]!r}]")
        ey, ly, hy = change_bounds(y, f"second[{names[i]!r}]")
        agreed.append(_direction(lx, hx) == _direction(ly, hy))
        in_second = ly <= ex <= hy
        in_first = lx <= ey <= hx
        one += in_second
        rev += in_first
        both += in_second and in_first
    n = len(pairs)
    return ChangeAgreement(
        n=n,
        agree=sum(agreed) / n,
        one_sided=one / n,
        one_sided_reverse=rev / n,
        two_sided=both / n,
        agreed=tuple(agreed),
        names=names,
    )
