"""How consistent change results are across experiments (ElastiBench, Section VI-B6/7).

Two analyses of repeated A-B experiments from Schirmer et al.'s ElastiBench:

* :func:`possible_changes` (VI-B6): over several experiments of the same
  suite, the benchmarks on which they disagree (some find a change, some do
  not) and the largest change one of them found: below that size a change
  is not reliably detected.
* :func:`repetitions_needed` and :func:`consistent_ci_curve` (VI-B7): as
  repetitions accumulate, when the confidence interval of the change first
  becomes no wider than an original experiment's and overlaps it; the
  share of benchmarks that got there by each number of repetitions.

A change result is anything with ``estimate``, ``low`` and ``high`` (a
:class:`perfstats.RelativeChange`); it "finds a change" when its interval
excludes 0, as :func:`perfstats.relative_change` and
:func:`perfstats.change_agreement` read it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._rng import as_generator
from .._validation import FloatArray, as_sample, check_int, check_level
from .change import ChangeLike, _direction, change_bounds, relative_change

__all__ = [
    "ConsistencyCurve",
    "PossibleChanges",
    "RepetitionsNeeded",
    "consistent_ci_curve",
    "possible_changes",
    "repetitions_needed",
]


@dataclass(frozen=True)
class PossibleChanges:
    """Benchmarks on which repeated experiments disagree, and the change at stake.

    Parameters
    ----------
    n_compared : int
        Benchmarks with a result in at least two experiments.
    benchmarks : tuple of str
        Those where at least one experiment finds a change and at least one
        does not, sorted by name.
    largest : tuple of float
        Per such benchmark, the change estimate of largest magnitude among
        the experiments that found a change (signed; 0.05 = 5% slower).
    found_by : tuple of str
        The experiment that found it.
    opposite : tuple of str
        Benchmarks on which every experiment finds a change but not all in
        the same direction (disagreements of another kind, not counted above).

    Examples
    --------
    >>> from perfstats import PossibleChanges
    >>> PossibleChanges(10, ("a", "b"), (0.02, -0.04), ("x", "y"), ())
    PossibleChanges(2 of 10 benchmarks disagree; largest change median 3.00%, P75 3.50%, max 4.00%)
    """

    n_compared: int
    benchmarks: tuple[str, ...]
    largest: tuple[float, ...]
    found_by: tuple[str, ...]
    opposite: tuple[str, ...]

    def _magnitudes(self) -> FloatArray:
        return np.abs(np.asarray(self.largest, dtype=np.float64))

    @property
    def median(self) -> float:
        """Median magnitude of the largest changes (NaN when nothing disagrees)."""
        m = self._magnitudes()
        return float(np.median(m)) if m.size else float("nan")

    @property
    def p75(self) -> float:
        """75th percentile of the magnitudes (NumPy's linear interpolation)."""
        m = self._magnitudes()
        return float(np.percentile(m, 75)) if m.size else float("nan")

    @property
    def max(self) -> float:
        """Largest magnitude: changes above it were found by every experiment or none."""
        m = self._magnitudes()
        return float(m.max()) if m.size else float("nan")

    def __repr__(self) -> str:
        return (
            f"PossibleChanges({len(self.benchmarks)} of {self.n_compared} benchmarks disagree; "
            f"largest change median {self.median:.2%}, P75 {self.p75:.2%}, max {self.max:.2%})"
        )


def possible_changes(
    experiments: Mapping[str, Mapping[str, ChangeLike]],
) -> PossibleChanges:
    """ElastiBench's possible performance changes over repeated experiments.

    Parameters
    ----------
    experiments : mapping of experiment name to mapping of benchmark to result
        The change result of each benchmark in each experiment (e.g. a
        :class:`perfstats.RelativeChange`). A benchmark missing from an
        experiment (too few results, say) is judged on the others; one
        present in only one experiment is left out.

    Returns
    -------
    PossibleChanges
        The disagreeing benchmarks, the largest change one experiment found
        on each, and its median, P75 and maximum over them (``median``,
        ``p75``, ``max``).

    Raises
    ------
    ValueError
        With fewer than two experiments, or a result without a valid
        interval.

    Notes
    -----
    Schirmer et al. compared their baseline, replication, lower-memory and
    single-repeat experiments and, "for all microbenchmarks where [they]
    disagree with each other", collected "the maximum performance change
    that was found by one experiment": median 1.58%, P75 3.06%, maximum
    7.6%. A change is found when the CI excludes 0; the largest change is
    the estimate of largest magnitude among the experiments that found one.

    References
    ----------
    Schirmer et al., "ElastiBench: Scalable Continuous Benchmarking on Cloud FaaS
    Platforms", IC2E 2024, Section VI-B6; see the References of
    :mod:`perfstats.comparison.change`.

    Examples
    --------
    >>> from perfstats import RelativeChange, possible_changes
    >>> def rc(est, low, high):
    ...     return RelativeChange(est, low, high, 0.99, "median", True, False, 45, 45, 10000)
    >>> runs = {
    ...     "baseline": {"add": rc(0.020, 0.004, 0.036), "get": rc(0.10, 0.08, 0.12)},
    ...     "replication": {"add": rc(0.012, -0.003, 0.027), "get": rc(0.11, 0.09, 0.13)},
    ...     "single-repeat": {"add": rc(0.031, 0.010, 0.052), "get": rc(0.09, 0.07, 0.11)},
    ... }
    >>> p = possible_changes(runs)
    >>> p.benchmarks, p.largest, p.found_by
    (('add',), (0.031,), ('single-repeat',))
    """
    if not isinstance(experiments, Mapping) or len(experiments) < 2:
        got = (
            f"{len(experiments)}"
            if isinstance(experiments, Mapping)
            else type(experiments).__name__
        )
        raise ValueError(
            f"experiments must map at least two experiment names to their results, got {got}"
        )
    by_benchmark: dict[str, list[tuple[str, float, str]]] = {}
    for exp, results in experiments.items():
        if not isinstance(results, Mapping):
            raise ValueError(
                f"experiments[{exp!r}] must map benchmark names to change results, "
                f"got {type(results).__name__}"
            )
        for bench, result in results.items():
            est, low, high = change_bounds(result, f"experiments[{exp!r}][{bench!r}]")
            by_benchmark.setdefault(str(bench), []).append(
                (str(exp), est, _direction(low, high))
            )
    compared = {b: r for b, r in by_benchmark.items() if len(r) >= 2}
    names: list[str] = []
    largest: list[float] = []
    found_by: list[str] = []
    opposite: list[str] = []
    for bench in sorted(compared):
        found = compared[bench]
        directions = {d for _, _, d in found}
        flagged = [(exp, est) for exp, est, d in found if d != "none"]
        if "none" in directions and flagged:
            exp, est = max(flagged, key=lambda f: abs(f[1]))
            names.append(bench)
            largest.append(est)
            found_by.append(exp)
        elif len(directions) > 1:
            opposite.append(bench)
    return PossibleChanges(
        n_compared=len(compared),
        benchmarks=tuple(names),
        largest=tuple(largest),
        found_by=tuple(found_by),
        opposite=tuple(opposite),
    )


@dataclass(frozen=True)
class RepetitionsNeeded:
    """The CI of a change as repetitions accumulate, against an original CI.

    Parameters
    ----------
    repetitions : tuple of int
        Numbers of repetitions (results) at which the CI was computed.
    low, high : numpy.ndarray
        The CI at each of them (read-only).
    reference_low, reference_high : float
        The original experiment's CI.
    needed : int or None
        The first number of repetitions at which the CI is no wider than the
        original's and overlaps it; None if that never happens.
    final_overlap : bool
        Whether the CI with every repetition overlaps the original's (only
        such benchmarks count in :func:`consistent_ci_curve`).

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import RepetitionsNeeded
    >>> r = RepetitionsNeeded((12, 15), np.array([-0.02, -0.01]), np.array([0.03, 0.01]),
    ...                       -0.015, 0.015, 15, True)
    >>> r
    RepetitionsNeeded(needed=15 of 15 repetitions; final CI overlaps the original's)
    """

    repetitions: tuple[int, ...]
    low: FloatArray
    high: FloatArray
    reference_low: float
    reference_high: float
    needed: int | None
    final_overlap: bool

    def __repr__(self) -> str:
        overlap = "overlaps" if self.final_overlap else "does not overlap"
        total = self.repetitions[-1] if self.repetitions else 0
        return (
            f"RepetitionsNeeded(needed={self.needed} of {total} repetitions; "
            f"final CI {overlap} the original's)"
        )


def repetitions_needed(
    reference: ChangeLike,
    baseline: Any,
    candidate: Any,
    *,
    step: int = 3,
    min_repetitions: int = 10,
    groups: Any = None,
    paired: bool = True,
    per_pair: bool = True,
    statistic: str | float = "median",
    level: float = 0.95,
    n_resamples: int = 10000,
    rng: Any = None,
) -> RepetitionsNeeded:
    """Repetitions until the CI of the change is no wider than the original's and overlaps it.

    The CI of the relative change (:func:`perfstats.relative_change`) is
    computed on the first ``n`` results for ``n = step, 2 step, ...`` (and
    the total), from ``min_repetitions`` on.

    Parameters
    ----------
    reference : RelativeChange or similar
        The original experiment's result (its ``low`` and ``high``).
    baseline, candidate : array_like
        The new experiment's results in the order they were collected
        (for ``paired``, ``baseline[i]`` and ``candidate[i]`` run
        together).
    step : int, default 3
        Results added at a time: one call's repeats (ElastiBench: 3).
    min_repetitions : int, default 10
        Fewest results judged; ElastiBench leaves out benchmarks with fewer
        than 10.
    groups : array_like, optional
        Call (or instance) label of each result, one per baseline result,
        for two-level resampling; when not ``paired`` the same labels group
        the candidate's results.
    paired : bool, default True
        ``baseline[i]`` and ``candidate[i]`` ran together and are resampled
        jointly (ElastiBench's duet set-up); the two must then have equal
        length. Unpaired, the first ``n`` results of each side are compared.
    per_pair : bool, default True
        With ``paired``, the change is the statistic of the per-pair ratios
        ``candidate[i] / baseline[i]``, as ElastiBench reads its pairs;
        ignored when not ``paired``.
    statistic : {"median", "mean"} or float, default "median"
        The statistic compared; a float is a quantile, as in
        :func:`perfstats.relative_change`.
    level : float, default 0.95
        Confidence level of every CI. ElastiBench reads 99% intervals: pass
        0.99 to follow it, with the reference computed at the same level so
        that the widths compare.
    n_resamples : int, default 10000
        Bootstrap resamples per CI.
    rng : None, int or numpy.random.Generator
        One seed for every step.

    Returns
    -------
    RepetitionsNeeded
        The CI at each number of repetitions evaluated, the reference CI,
        the first number at which the CI is no wider than the reference's
        and overlaps it (``needed``), and whether the final CI overlaps it.

    Raises
    ------
    ValueError
        On an invalid reference interval, fewer than ``min_repetitions``
        results, or the errors of :func:`perfstats.relative_change`.

    References
    ----------
    Schirmer et al., "ElastiBench: Scalable Continuous Benchmarking on Cloud FaaS
    Platforms", IC2E 2024, Section VI-B7; see the References of
    :mod:`perfstats.comparison.change`.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import relative_change, repetitions_needed
    >>> rng = np.random.default_rng(3)
    >>> def experiment(n):
    ...     base = rng.lognormal(0.0, 0.02, n)
    ...     return base, base * 1.05 * rng.lognormal(0.0, 0.02, n)
    >>> original = relative_change(*experiment(45), paired=True, per_pair=True, rng=1)
    >>> r = repetitions_needed(original, *experiment(135), n_resamples=2000, rng=1)
    >>> r.final_overlap, r.needed is not None and r.needed <= 135
    (True, True)
    """
    _, ref_low, ref_high = change_bounds(reference, "reference")
    xb = as_sample(baseline, "baseline")
    xc = as_sample(candidate, "candidate")
    by = check_int(step, "step", minimum=1)
    first = check_int(min_repetitions, "min_repetitions", minimum=1)
    check_level(level)
    total = min(xb.size, xc.size) if not paired else xb.size
    if paired and xb.size != xc.size:
        raise ValueError(
            f"paired results need baseline and candidate of equal length, "
            f"got {xb.size} and {xc.size}"
        )
    if total < first:
        raise ValueError(
            f"baseline has {total} results; min_repetitions={first} are needed to judge"
        )
    labels = None if groups is None else np.asarray(groups)
    if labels is not None and labels.shape != (xb.size,):
        raise ValueError(f"groups must have one label per result ({xb.size}), got {labels.shape}")
    steps = [n for n in range(by, total + 1, by) if n >= first]
    if not steps or steps[-1] != total:
        steps.append(total)
    # One seed for every step, so that the steps differ by their data only.
    seed = int(as_generator(rng).integers(2**63))
    ref_width = ref_high - ref_low
    lows, highs = [], []
    needed: int | None = None
    for n in steps:
        grp = None
        if labels is not None:
            grp = labels[:n] if paired else (labels[:n], labels[:n])
        rc = relative_change(
            xb[:n], xc[:n], statistic=statistic, level=level, paired=paired,
            per_pair=per_pair and paired, groups=grp, n_resamples=n_resamples, rng=seed,
        )  # fmt: skip
        lows.append(rc.low)
        highs.append(rc.high)
        overlaps = rc.low <= ref_high and ref_low <= rc.high
        # A relative tolerance: equal widths must not fail by rounding.
        if needed is None and overlaps and rc.high - rc.low <= ref_width * (1 + 1e-12):
            needed = n
    low_arr, high_arr = np.asarray(lows), np.asarray(highs)
    low_arr.setflags(write=False)
    high_arr.setflags(write=False)
    return RepetitionsNeeded(
        repetitions=tuple(steps),
        low=low_arr,
        high=high_arr,
        reference_low=ref_low,
        reference_high=ref_high,
        needed=needed,
        final_overlap=bool(lows[-1] <= ref_high and ref_low <= highs[-1]),
    )


@dataclass(frozen=True)
class ConsistencyCurve:
    """Share of benchmarks with a consistent CI size by each number of repetitions.

    Parameters
    ----------
    repetitions : tuple of int
        Numbers of repetitions, ascending.
    share : tuple of float
        At each, the fraction of eligible benchmarks whose ``needed`` is at
        most that number.
    eligible : int
        Benchmarks whose final CI overlaps the original's.
    total : int
        Benchmarks given.

    Examples
    --------
    >>> from perfstats import ConsistencyCurve
    >>> c = ConsistencyCurve((45, 135), (0.5, 0.75), 4, 5)
    >>> c.share_at(90), c
    (0.5, ConsistencyCurve(4 of 5 benchmarks eligible; 50.00% by 45, 75.00% by 135))
    """

    repetitions: tuple[int, ...]
    share: tuple[float, ...]
    eligible: int
    total: int

    def share_at(self, repetitions: int) -> float:
        """Fraction of eligible benchmarks consistent by ``repetitions`` (0 before the first).

        Parameters
        ----------
        repetitions : int
            A number of repetitions, not negative; it need not be one of the
            evaluated numbers.

        Returns
        -------
        float
            The share at the largest evaluated number of repetitions not above
            ``repetitions`` (the curve is a step function), or 0.0 when
            ``repetitions`` is below the first.

        Raises
        ------
        ValueError
            If ``repetitions`` is not a whole number or is negative.
        """
        n = check_int(repetitions, "repetitions", minimum=0)
        i = int(np.searchsorted(np.asarray(self.repetitions), n, side="right")) - 1
        return self.share[i] if i >= 0 else 0.0

    def __repr__(self) -> str:
        ends = ", ".join(
            f"{s:.2%} by {n}" for n, s in zip(self.repetitions, self.share, strict=True)
        ) if len(self.repetitions) <= 3 else (
            f"{self.share[0]:.2%} by {self.repetitions[0]} ... "
            f"{self.share[-1]:.2%} by {self.repetitions[-1]}"
        )  # fmt: skip
        return f"ConsistencyCurve({self.eligible} of {self.total} benchmarks eligible; {ends})"


def consistent_ci_curve(
    results: Mapping[str, RepetitionsNeeded] | Sequence[RepetitionsNeeded],
) -> ConsistencyCurve:
    """Cumulative share of benchmarks whose CI reached the original's size (VI-B7).

    Parameters
    ----------
    results : mapping or sequence of RepetitionsNeeded
        One per benchmark, from :func:`repetitions_needed`.

    Returns
    -------
    ConsistencyCurve
        Over the benchmarks whose final CI overlaps the original's, the
        fraction whose ``needed`` is at most each evaluated number of
        repetitions (ElastiBench: 75.95% by 45, 89.87% by 135).

    Raises
    ------
    ValueError
        If ``results`` is empty, holds something else, or no benchmark's
        final CI overlaps the original's.

    References
    ----------
    Schirmer et al., "ElastiBench: Scalable Continuous Benchmarking on Cloud FaaS
    Platforms", IC2E 2024, Section VI-B7 and Figure 7; see the References of
    :mod:`perfstats.comparison.change`.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import RepetitionsNeeded, consistent_ci_curve
    >>> def r(needed, overlap=True):
    ...     z = np.zeros(3)
    ...     return RepetitionsNeeded((45, 90, 135), z, z, 0.0, 0.0, needed, overlap)
    >>> curve = consistent_ci_curve([r(45), r(90), r(None), r(45, False)])
    >>> curve.eligible, curve.share_at(45), curve.share_at(135)
    (3, 0.3333333333333333, 0.6666666666666666)
    """
    items = list(results.values()) if isinstance(results, Mapping) else list(results)
    if not items:
        raise ValueError("results is empty; give one RepetitionsNeeded per benchmark")
    for i, r in enumerate(items):
        if not isinstance(r, RepetitionsNeeded):
            raise ValueError(
                f"results[{i}] must be a RepetitionsNeeded, got {type(r).__name__}"
            )
    eligible = [r for r in items if r.final_overlap]
    if not eligible:
        raise ValueError("no benchmark's final CI overlaps the original's; nothing to count")
    grid = sorted({n for r in items for n in r.repetitions})
    needed = np.array([np.inf if r.needed is None else r.needed for r in eligible])
    share = tuple(float(np.mean(needed <= n)) for n in grid)
    return ConsistencyCurve(tuple(grid), share, len(eligible), len(items))
