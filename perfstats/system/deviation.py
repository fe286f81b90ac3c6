"""Local performance deviation of one component between two versions.

The first step of Liao et al.'s pipeline (Section III-B): the execution times
of a component test before and after a change are compared with the Wilcoxon
rank-sum test and Cliff's delta; a component *deviates* when the test rejects
at ``alpha`` and the effect is beyond negligible. The mean difference (MD) is
what is carried to the system model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._units import check_unit
from .._validation import as_sample, check_fraction
from ..comparison.effects import cliffs_delta, wilcoxon_ranksum

__all__ = ["LocalDeviation", "local_deviation"]


@dataclass(frozen=True)
class LocalDeviation:
    """How one component's execution time changed between two versions.

    Parameters
    ----------
    pvalue : float
        Two-sided Wilcoxon rank-sum p-value of ``after`` against ``before``.
    cliffs_delta : float
        Cliff's delta of ``after`` against ``before``; positive = slower.
    magnitude : str
        Romano et al.'s label of ``|cliffs_delta|``: ``"negligible"``
        (< 0.147), ``"small"`` (< 0.33), ``"medium"`` (< 0.474), ``"large"``.
    md : float
        Mean difference ``mean(after) - mean(before)`` in ``unit``;
        positive = slower.
    relative_difference : float
        ``md / mean(before)``.
    mean_before, mean_after : float
        The two means, in ``unit``.
    n_before, n_after : int
        Sample sizes.
    alpha : float
        Significance level of the test.
    unit : str
        Time unit of the samples (``"ns"``, ``"us"``, ``"ms"``, ``"s"``).
    deviated : bool
        ``pvalue <= alpha`` and ``magnitude != "negligible"``.

    Examples
    --------
    >>> import numpy as np
    >>> import perfstats
    >>> before = np.random.default_rng(0).normal(0.010, 0.0005, size=30)
    >>> res = perfstats.local_deviation(before, before + 0.002)
    >>> res.deviated, res.magnitude, round(res.md, 6), (res.n_before, res.n_after)
    (True, 'large', 0.002, (30, 30))
    """

    pvalue: float
    cliffs_delta: float
    magnitude: str
    md: float
    relative_difference: float
    mean_before: float
    mean_after: float
    n_before: int
    n_after: int
    alpha: float
    unit: str
    deviated: bool

    def __repr__(self) -> str:
        return (
            f"LocalDeviation(deviated={self.deviated}, md={self.md:.4g} {self.unit}, "
            f"relative_difference={self.relative_difference:+.3g}, pvalue={self.pvalue:.3g}, "
            f"cliffs_delta={self.cliffs_delta:.3g} ({self.magnitude}), "
            f"n={self.n_before}/{self.n_after})"
        )


def local_deviation(
    before: Any, after: Any, *, alpha: float = 0.05, unit: str | tuple[str, str] = "s"
) -> LocalDeviation:
    """Whether a component's execution time deviates after a change.

    Parameters
    ----------
    before, after : array_like
        Execution times of the component test (e.g. 30 repetitions each) on
        the original and the changed version.
    alpha : float
        Significance level of the rank-sum test (Liao et al. use 0.05).
    unit : str or (str, str)
        Time unit of both samples, or of ``before`` and ``after``
        separately. Different units are refused: convert first.

    Returns
    -------
    LocalDeviation
        The rank-sum p-value, Cliff's delta and its magnitude, the mean
        difference (absolute and relative to the mean before), and whether
        the component deviated.

    Raises
    ------
    ValueError
        For empty or non-finite samples, ``alpha`` outside (0, 1), an
        unknown unit or samples in different units.

    References
    ----------
    Liao et al., "Early Detection of Performance Regressions by Bridging Local Performance
    Data and Architectural Models", ICSE 2025, Section III-B; see the References of
    :mod:`perfstats.system.propagation`.

    J. Romano, J. D. Kromrey, J. Coraggio and J. Skowronek, "Appropriate
    statistics for ordinal level data", Annual meeting of the Florida
    Association of Institutional Research, 2006.

    Examples
    --------
    >>> import numpy as np
    >>> import perfstats
    >>> rng = np.random.default_rng(1)
    >>> before = rng.normal(0.010, 0.0005, size=30)
    >>> res = perfstats.local_deviation(before, before * 1.5)
    >>> res.deviated, res.magnitude, round(res.relative_difference, 3)
    (True, 'large', 0.5)
    >>> perfstats.local_deviation(before, before).deviated
    False
    """
    x = as_sample(before, "before")
    y = as_sample(after, "after")
    level = check_fraction(alpha, "alpha")
    if not 0.0 < level < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {level!r}")
    if isinstance(unit, tuple):
        if len(unit) != 2:
            raise ValueError(f"unit must be a string or a pair (before, after), got {unit!r}")
        u_before = check_unit(unit[0], "unit of before")
        u_after = check_unit(unit[1], "unit of after")
        if u_before != u_after:
            raise ValueError(
                f"samples of different units: before is in {u_before!r}, after in "
                f"{u_after!r}; convert one of them so that both use the same unit"
            )
        unit_name = u_before
    else:
        unit_name = check_unit(unit)
    test = wilcoxon_ranksum(y, x)
    effect = cliffs_delta(y, x)
    mean_before = float(x.mean())
    mean_after = float(y.mean())
    md = mean_after - mean_before
    if mean_before <= 0.0:
        raise ValueError(
            f"before must be execution times with a positive mean, got mean {mean_before!r}"
        )
    deviated = bool(test.pvalue <= level and not effect.negligible)
    return LocalDeviation(
        pvalue=test.pvalue,
        cliffs_delta=effect.delta,
        magnitude=effect.magnitude,
        md=md,
        relative_difference=md / mean_before,
        mean_before=mean_before,
        mean_after=mean_after,
        n_before=x.size,
        n_after=y.size,
        alpha=level,
        unit=unit_name,
        deviated=deviated,
    )
