"""Change points in a performance history with e-divisive means (as MongoDB and Apache Otava do).

A benchmark's results over the commits of a main branch are a series; a
change point is the first commit of a new level. E-divisive (Matteson &
James 2014) splits the series where the energy distance between the two
sides, weighted by their sizes, is largest, keeps the split if a permutation
test says it is significant, and recurses into the pieces. It assumes no
distribution and no number of changes. Daniel et al. (2020) run it on
MongoDB's nightly performance tests; Apache Otava (formerly Hunter, Fleming
et al. 2023) derives from that work.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._kernels.edivisive import (
    best_split,
    permutation_maxima_parallel,
    permutation_maxima_serial,
)
from .._kernels.threads import use_threads
from .._quantiles import parse_statistic
from .._rng import as_generator
from .._validation import FloatArray, as_sample, check_fraction, check_int, check_level

__all__ = ["ChangePoint", "ChangePoints", "change_points", "history_change_points"]


@dataclass(frozen=True)
class ChangePoint:
    """One change point: where the new level starts, how large the step is, how sure.

    Parameters
    ----------
    index : int
        Position of the first value of the new level.
    label : object
        The label of that position (a commit, a date), or ``index``.
    before, after : float
        The statistic of the segment before and after (up to the
        neighbouring change points).
    change : float
        ``after / before - 1`` when ``relative``, else ``after - before``.
    low, high : float
        Bootstrap CI of ``change``.
    relative : bool
        Whether ``change`` is relative (all values positive) or absolute.
    pvalue : float
        Permutation-test p-value when the split was accepted.
    energy : float
        The split's e-divisive statistic ``q(t)`` (see :func:`change_points`).

    Examples
    --------
    >>> from perfstats import ChangePoint
    >>> ChangePoint(120, "a1b2c3", 10.0, 10.5, 0.05, 0.04, 0.061, True, 0.0099, 12.3)
    ChangePoint(at 120 ('a1b2c3'): +5.00% [+4.00%, +6.10%], p=0.0099)
    """

    index: int
    label: Any
    before: float
    after: float
    change: float
    low: float
    high: float
    relative: bool
    pvalue: float
    energy: float

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary.

        Returns
        -------
        dict of str to object
            Every field under its own name, except that the bounds are
            ``ci_low`` and ``ci_high`` and the p-value is ``p_value``. A label
            with an ``isoformat`` method (a date or timestamp) becomes that ISO
            string, and a NumPy scalar label a Python one.
        """
        label = self.label.isoformat() if hasattr(self.label, "isoformat") else self.label
        if isinstance(label, np.generic):
            label = label.item()
        return {
            "index": self.index, "label": label, "before": self.before, "after": self.after,
            "change": self.change, "ci_low": self.low, "ci_high": self.high,
            "relative": self.relative, "p_value": self.pvalue, "energy": self.energy,
        }  # fmt: skip

    def __repr__(self) -> str:
        fmt = "{:+.2%}" if self.relative else "{:+.4g}"
        where = f"{self.index}" if self.label == self.index else f"{self.index} ({self.label!r})"
        return (
            f"ChangePoint(at {where}: {fmt.format(self.change)} "
            f"[{fmt.format(self.low)}, {fmt.format(self.high)}], p={self.pvalue:.2g})"
        )


@dataclass(frozen=True)
class ChangePoints:
    """The change points of a series, in order of position.

    Parameters
    ----------
    points : tuple of ChangePoint
        Sorted by ``index``.
    n : int
        Length of the series.
    pvalue : float
        Significance level of the permutation tests.
    permutations : int
        Permutations per test.
    min_size : int
        Fewest values a segment may have.
    statistic : str
        Statistic of the magnitudes.
    level : float
        Confidence level of their CIs.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import change_points
    >>> noise = np.random.default_rng(0).normal(0, 0.1, 60)
    >>> x = np.r_[np.full(30, 10.0), np.full(30, 12.0)] + noise
    >>> res = change_points(x, rng=0)
    >>> res.indices, len(res)
    ((30,), 1)
    """

    points: tuple[ChangePoint, ...]
    n: int
    pvalue: float
    permutations: int
    min_size: int
    statistic: str
    level: float

    @property
    def indices(self) -> tuple[int, ...]:
        """Positions of the change points."""
        return tuple(p.index for p in self.points)

    @property
    def segments(self) -> tuple[tuple[int, int], ...]:
        """``(start, stop)`` of each level, stop exclusive."""
        edges = [0, *self.indices, self.n]
        return tuple(itertools.pairwise(edges))

    def __len__(self) -> int:
        return len(self.points)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary.

        Returns
        -------
        dict of str to object
            The test settings (``n``, ``pvalue``, ``permutations``,
            ``min_size``, ``statistic``, ``level``) and ``change_points``: a
            list, in order of position, of each point's
            :meth:`ChangePoint.to_dict`, empty when none was found.
        """
        return {
            "n": self.n, "pvalue": self.pvalue, "permutations": self.permutations,
            "min_size": self.min_size, "statistic": self.statistic, "level": self.level,
            "change_points": [p.to_dict() for p in self.points],
        }  # fmt: skip

    def to_frame(self) -> Any:
        """One row per change point (pandas DataFrame).

        Returns
        -------
        pandas.DataFrame
            A row per change point in order of position, with a default integer
            index and the columns of :meth:`ChangePoint.to_dict` (``index``,
            ``label``, ``before``, ``after``, ``change``, ``ci_low``,
            ``ci_high``, ``relative``, ``p_value``, ``energy``). With no change
            point the frame is empty but keeps those columns.
        """
        import pandas as pd

        cols = ["index", "label", "before", "after", "change", "ci_low", "ci_high",
                "relative", "p_value", "energy"]  # fmt: skip
        return pd.DataFrame([p.to_dict() for p in self.points], columns=cols)

    def __repr__(self) -> str:
        inner = ", ".join(repr(p) for p in self.points)
        return f"ChangePoints(n={self.n}, {len(self.points)} found: [{inner}])"


def _split(x: FloatArray, a: int, b: int, min_size: int) -> tuple[int, float]:
    t, q = best_split(x[a:b], min_size)
    return (-1, -math.inf) if t < 0 else (a + int(t), float(q))


def _statistic_label(statistic: Any) -> tuple[Any, str]:
    stat = parse_statistic(statistic)
    if isinstance(stat, str):
        return stat, stat
    return stat, f"q={stat:g}"


def _point(x: FloatArray, stat: Any) -> float:
    if stat == "mean":
        return float(np.mean(x))
    return float(np.quantile(x, 0.5 if stat == "median" else stat))


def _magnitude(
    before: FloatArray, after: FloatArray, stat: Any, level: float, n_resamples: int,
    gen: np.random.Generator,
) -> tuple[float, float, float, bool]:  # fmt: skip
    if before.size >= 1 and bool(np.all(before > 0)) and bool(np.all(after > 0)):
        from .change import relative_change

        rc = relative_change(
            before, after, statistic=stat, level=level, n_resamples=n_resamples, rng=gen
        )
        return rc.estimate, rc.low, rc.high, True
    from ..precision.bootstrap import bootstrap_distribution

    diff = bootstrap_distribution(after, stat, n_resamples=n_resamples, rng=gen) - (
        bootstrap_distribution(before, stat, n_resamples=n_resamples, rng=gen)
    )
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(diff, [alpha, 1.0 - alpha])
    return _point(after, stat) - _point(before, stat), float(low), float(high), False


def change_points(
    series: Any,
    *,
    pvalue: float = 0.05,
    permutations: int = 100,
    min_size: int = 2,
    max_points: int | None = None,
    labels: Any = None,
    statistic: str | float = "median",
    level: float = 0.95,
    n_resamples: int = 2000,
    rng: Any = None,
) -> ChangePoints:
    """Change points of a history with e-divisive means, each with magnitude, CI and p-value.

    The procedure is hierarchical e-divisive (Matteson & James 2014), with
    the statistic and the permutation test of MongoDB's implementation
    (Daniel et al. 2020): within every segment between the change points
    found so far, the best split maximises ``q(t) = t m / n * E`` with ``E``
    the energy distance (``alpha = 1``) between the two sides; the best of
    these over all segments is tested by shuffling every segment within
    itself ``permutations`` times and comparing with the largest statistic
    of each shuffle; the p-value is ``(1 + #{shuffled >= observed}) /
    (permutations + 1)``. A split with p-value at most ``pvalue`` becomes a
    change point and the search continues; otherwise it stops.

    One scan of a segment of ``n`` values costs O(n log n) here (running
    sums over a Fenwick tree of ranks, not a distance matrix), and the
    permutations run in parallel in numba.

    Each change point's magnitude is the relative change of ``statistic``
    from the segment before it to the segment after it (between the
    neighbouring change points), with the bootstrap CI of
    :func:`perfstats.relative_change`; for a series with zero or negative
    values it is the difference, with the percentile CI of the difference of
    independent bootstrap replicates.

    Parameters
    ----------
    series : array_like or pandas.Series
        Results in history order (one value per commit or date, e.g. the
        median of each commit's runs). A Series' index gives the labels.
    pvalue : float, default 0.05
        Significance level of each permutation test.
    permutations : int, default 100
        Shuffles per test (MongoDB's default); the smallest p-value possible
        is ``1 / (permutations + 1)``.
    min_size : int, default 2
        Fewest values in a segment (MongoDB's implementation allows 1, which
        lets a single outlier at either end be "a level").
    max_points : int, optional
        Stop after this many change points.
    labels : sequence, optional
        One label per value (commits, dates) for the report.
    statistic : {"median", "mean"} or float, default "median"
        Statistic of the magnitudes.
    level : float, default 0.95
        Confidence level of the magnitudes' CIs.
    n_resamples : int, default 2000
        Bootstrap resamples per magnitude.
    rng : None, int or numpy.random.Generator
        Seed for the permutations and the bootstrap.

    Returns
    -------
    ChangePoints
        The accepted change points in order of position, each with its
        magnitude, CI and p-value, and the options they were found with.

    Raises
    ------
    ValueError
        On NaN, infinite or non-numeric values, a series shorter than
        ``2 * min_size``, labels of the wrong length, or a bad option.

    References
    ----------
    D. S. Matteson and N. A. James, "A nonparametric approach for multiple
    change point analysis of multivariate data", Journal of the American
    Statistical Association 109(505), 2014.

    D. Daniel, B. Ullmann, J. Lucas, D. Ghosh, "Change Point Detection in
    Software Performance Testing", ACM/SPEC International Conference on
    Performance Engineering (ICPE), 2020.

    M. Fleming, P. Kołaczkowski, I. Kumar, S. Das, S. Nageswaran, C. Ghose,
    "Hunter: Using Change Point Detection to Hunt for Performance
    Regressions", ACM/SPEC International Conference on Performance
    Engineering (ICPE), 2023.

    Examples
    --------
    Two steps, +8% and then -12%, in 120 runs; a plain array is labelled by
    position (a :class:`pandas.Series` by its index):

    >>> import numpy as np
    >>> from perfstats import change_points
    >>> rng = np.random.default_rng(3)
    >>> level = np.r_[np.full(40, 100.0), np.full(40, 108.0), np.full(40, 95.0)]
    >>> res = change_points(level + rng.normal(0, 1.0, 120), rng=1)
    >>> res.indices
    (40, 80)
    >>> res.points[0].label, res.points[0].low < 0.08 < res.points[0].high
    (40, True)
    """
    x = as_sample(series, "series")
    p_level = check_fraction(pvalue, "pvalue")
    n_perm = check_int(permutations, "permutations", minimum=1)
    size = check_int(min_size, "min_size", minimum=1)
    limit = None if max_points is None else check_int(max_points, "max_points", minimum=0)
    stat, stat_label = _statistic_label(statistic)
    lvl = check_level(level)
    n_boot = check_int(n_resamples, "n_resamples", minimum=1)
    if x.size < 2 * size:
        raise ValueError(
            f"series has {x.size} value(s); e-divisive with min_size={size} needs at least "
            f"{2 * size}"
        )
    if labels is None:
        index = getattr(series, "index", None)
        names: list[Any] = list(index) if index is not None else list(range(x.size))
    else:
        names = list(labels)
        if len(names) != x.size:
            raise ValueError(f"labels must have one entry per value ({x.size}), got {len(names)}")
    gen = as_generator(rng)
    permute = (
        permutation_maxima_parallel
        if use_threads(x.size * n_perm)
        else permutation_maxima_serial
    )
    found: dict[int, tuple[float, float]] = {}  # index -> (p-value, statistic)
    memo: dict[tuple[int, int], tuple[int, float]] = {}
    while limit is None or len(found) < limit:
        bounds = [0, *sorted(found), x.size]
        best_t, best_q = -1, -math.inf
        for a, b in itertools.pairwise(bounds):
            if (a, b) not in memo:
                memo[(a, b)] = _split(x, a, b, size)
            t, q = memo[(a, b)]
            if q > best_q:
                best_t, best_q = t, q
        if best_t < 0:
            break
        key = np.uint64(gen.integers(0, 2**64, dtype=np.uint64, endpoint=False))
        maxima = permute(x, np.asarray(bounds, dtype=np.int64), size, n_perm, key)
        # A relative tolerance keeps a shuffle that reproduces the observed
        # statistic up to rounding (e.g. a constant segment) counted as "as large".
        p = (1 + int(np.sum(maxima >= best_q * (1 - 1e-12)))) / (n_perm + 1)
        if p > p_level:
            break
        found[best_t] = (p, best_q)
    edges = [0, *sorted(found), x.size]
    points = []
    for i, cp in enumerate(edges[1:-1], start=1):
        before, after = x[edges[i - 1] : cp], x[cp : edges[i + 1]]
        change, low, high, relative = _magnitude(before, after, stat, lvl, n_boot, gen)
        p, q = found[cp]
        points.append(
            ChangePoint(
                index=cp, label=names[cp], before=_point(before, stat), after=_point(after, stat),
                change=change, low=low, high=high, relative=relative, pvalue=p, energy=q,
            )
        )
    return ChangePoints(
        points=tuple(points), n=int(x.size), pvalue=p_level, permutations=n_perm,
        min_size=size, statistic=stat_label, level=lvl,
    )  # fmt: skip


def history_change_points(
    history: Any,
    *,
    position: str = "commit",
    order_by: str | None = None,
    aggregate: str = "median",
    **options: Any,
) -> dict[str, ChangePoints]:
    """Change points of every benchmark in a tidy history (one row per run).

    Runs are grouped per benchmark and per ``position`` (a commit, a date),
    each group reduced to one value with ``aggregate``, the positions put in
    history order, and :func:`change_points` run on each benchmark's series
    (labelled by position).

    Parameters
    ----------
    history : pandas.DataFrame
        Columns ``benchmark``, ``value`` and ``position`` (plus
        ``order_by`` when given); e.g. a CSV with ``commit``, ``date``,
        ``benchmark`` and ``value``, or an importer's output with a
        ``commit`` column added.
    position : str, default "commit"
        The column that says where in the history a run belongs.
    order_by : str, optional
        Column that orders the positions (e.g. ``"date"``; the earliest
        value of each position counts). Default: order of first appearance.
    aggregate : {"median", "mean", "min"}, default "median"
        How a position's runs become one value.
    **options
        Passed to :func:`change_points` (``pvalue``, ``permutations``,
        ``min_size``, ``rng``, ...).

    Returns
    -------
    dict of str to ChangePoints
        By benchmark, in order of first appearance.

    Raises
    ------
    ValueError
        On a missing column, an unknown ``aggregate``, or a benchmark whose
        history is too short for :func:`change_points`.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from perfstats import history_change_points
    >>> rng = np.random.default_rng(0)
    >>> rows = [("parse", f"c{i:02d}", 10.0 * (1.1 if i >= 12 else 1.0) * rng.lognormal(0, .01))
    ...         for i in range(24) for _ in range(3)]
    >>> frame = pd.DataFrame(rows, columns=["benchmark", "commit", "value"])
    >>> res = history_change_points(frame, rng=1)
    >>> [p.label for p in res["parse"].points]
    ['c12']
    """
    need = {"benchmark", "value", position} | ({order_by} if order_by else set())
    columns = set(getattr(history, "columns", ()))
    if not need <= columns:
        raise ValueError(
            f"history needs columns {sorted(need)}; missing {sorted(need - columns)}"
        )
    if aggregate not in ("median", "mean", "min"):
        raise ValueError(f"aggregate must be 'median', 'mean' or 'min'; got {aggregate!r}")
    # Checked before pandas aggregates them (it would take the real part of complex numbers).
    as_sample(history["value"], "history['value']")
    out: dict[str, ChangePoints] = {}
    for name, rows in history.groupby("benchmark", sort=False):
        grouped = rows.groupby(position, sort=False)
        series = grouped["value"].agg(aggregate)
        if order_by is not None:
            series = series.loc[grouped[order_by].min().sort_values(kind="stable").index]
        try:
            out[str(name)] = change_points(series, **options)
        except ValueError as exc:
            raise ValueError(f"benchmark {name!r}: {exc}") from None
    return out
