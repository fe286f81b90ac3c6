"""Rank-based tests and effect size for two versions: Wilcoxon tests and Cliff's delta.

Liao et al. (2025, Section III-B) flag a performance regression when the
Wilcoxon rank-sum test rejects at the 5% level **and** Cliff's delta is
beyond negligible (Romano et al.'s thresholds): the test says a difference
exists, the effect size says whether it matters. Both make no assumption
about the shape of the distributions.

References
----------
.. [Liao2025] Liao et al., "Early Detection of Performance Regressions by Bridging Local
   Performance Data and Architectural Models", ICSE 2025, Section III-B; see the References
   of :mod:`perfstats.system.propagation`.
.. [Schirmer2024] Schirmer et al., "ElastiBench: Scalable Continuous Benchmarking on Cloud
   FaaS Platforms", IC2E 2024; see the References of :mod:`perfstats.comparison.change`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._kernels.ranks import dominance_counts
from .._validation import as_sample, check_choice

__all__ = [
    "CliffsDelta",
    "RankTest",
    "cliffs_delta",
    "wilcoxon_ranksum",
    "wilcoxon_signedrank",
]

ALTERNATIVES = ("two-sided", "less", "greater")

# Romano et al. (2006), as used by Liao et al. (2025): upper bounds of |d|.
NEGLIGIBLE = 0.147
SMALL = 0.33
MEDIUM = 0.474


@dataclass(frozen=True)
class CliffsDelta:
    """Cliff's delta, ``P(a > b) - P(a < b)``, with Romano's magnitude label.

    Parameters
    ----------
    delta : float
        In [-1, 1]; positive when values of ``a`` tend to be larger.
    magnitude : str
        ``"negligible"`` (``|d| < 0.147``), ``"small"`` (< 0.33),
        ``"medium"`` (< 0.474) or ``"large"``.
    n_a, n_b : int
        Sample sizes.

    Examples
    --------
    >>> from perfstats import cliffs_delta
    >>> cliffs_delta([3.0, 4.0, 5.0], [1.0, 2.0, 4.0])
    CliffsDelta(delta=0.6667, magnitude='large', n_a=3, n_b=3)
    """

    delta: float
    magnitude: str
    n_a: int
    n_b: int

    @property
    def negligible(self) -> bool:
        """True when ``|delta| < 0.147``."""
        return self.magnitude == "negligible"

    def __repr__(self) -> str:
        return (
            f"CliffsDelta(delta={self.delta:.4g}, magnitude={self.magnitude!r}, "
            f"n_a={self.n_a}, n_b={self.n_b})"
        )


@dataclass(frozen=True)
class RankTest:
    """Result of a Wilcoxon test.

    Parameters
    ----------
    statistic : float
        SciPy's statistic: Mann-Whitney ``U`` of the first sample for the
        rank-sum test; for the signed-rank test the smaller of the two rank
        sums (two-sided) or the positive rank sum (one-sided).
    pvalue : float
        The p-value for ``alternative``.
    alternative : str
        ``"two-sided"``, ``"less"`` or ``"greater"``.
    test : str
        ``"wilcoxon rank-sum"`` or ``"wilcoxon signed-rank"``.

    Examples
    --------
    >>> from perfstats import wilcoxon_ranksum
    >>> wilcoxon_ranksum([1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0])
    RankTest(test='wilcoxon rank-sum', statistic=0, pvalue=0.0286, alternative='two-sided')
    """

    statistic: float
    pvalue: float
    alternative: str
    test: str

    def significant(self, alpha: float = 0.05) -> bool:
        """True when ``pvalue < alpha``.

        Parameters
        ----------
        alpha : float, default 0.05
            Significance level (Liao et al. use 5%).

        Returns
        -------
        bool
            Whether the test rejects at level ``alpha``; never for a NaN p-value.
        """
        return bool(self.pvalue < alpha)

    def __repr__(self) -> str:
        return (
            f"RankTest(test={self.test!r}, statistic={self.statistic:.6g}, "
            f"pvalue={self.pvalue:.3g}, alternative={self.alternative!r})"
        )


def _magnitude(delta: float) -> str:
    d = abs(delta)
    if d < NEGLIGIBLE:
        return "negligible"
    if d < SMALL:
        return "small"
    if d < MEDIUM:
        return "medium"
    return "large"


def cliffs_delta(a: Any, b: Any) -> CliffsDelta:
    """Cliff's delta effect size of ``a`` against ``b``.

    Sign: the first argument relative to the second (positive when ``a``
    tends to be larger), as Cliff and SciPy's ``mannwhitneyu`` read it. For
    the library's "candidate relative to baseline" reading of a comparison,
    call ``cliffs_delta(candidate, baseline)``, as :func:`perfstats.compare`
    and :func:`perfstats.gate` do.

    ``delta = P(a > b) - P(a < b)`` over all pairs, which equals
    ``2 * U / (n_a * n_b) - 1`` for the Mann-Whitney ``U`` of ``a``. It is
    counted exactly, in O(n log n): both samples are sorted and one merge
    pass counts, for each value of ``a``, the values of ``b`` below and
    equal to it. The magnitude uses Romano et al.'s thresholds, as Liao et
    al. (2025) do.

    Parameters
    ----------
    a, b : array_like
        1-D samples of finite numbers; the delta is positive when ``a`` tends to be larger.

    Returns
    -------
    CliffsDelta
        The delta in [-1, 1], its magnitude label (``"negligible"``,
        ``"small"``, ``"medium"`` or ``"large"``) and the two sample sizes.

    Examples
    --------
    >>> from perfstats import cliffs_delta
    >>> res = cliffs_delta([10.0, 11.0, 12.0, 13.0], [10.0, 10.5, 11.0, 11.5])
    >>> res.delta, res.magnitude
    (0.375, 'medium')
    """
    x = as_sample(a, "a")
    y = as_sample(b, "b")
    greater, equal = dominance_counts(np.sort(x), np.sort(y))
    pairs = x.size * y.size
    less = pairs - int(greater) - int(equal)
    delta = (int(greater) - less) / pairs
    return CliffsDelta(delta, _magnitude(delta), x.size, y.size)


def wilcoxon_ranksum(a: Any, b: Any, *, alternative: str = "two-sided") -> RankTest:
    """Wilcoxon rank-sum (Mann-Whitney U) test of ``a`` against ``b``.

    The change test of Liao et al. (2025), at the 5% level. The numbers are
    ``scipy.stats.mannwhitneyu(a, b, alternative=alternative)`` with SciPy's
    defaults (continuity correction; exact p-value for small samples without
    ties, normal approximation with tie correction otherwise): perfstats
    delegates the computation to SciPy and adds validation and the result.

    Parameters
    ----------
    a, b : array_like
        1-D samples of finite numbers (independent).
    alternative : {"two-sided", "less", "greater"}
        ``"greater"``: values of ``a`` tend to be larger than those of ``b``.

    Returns
    -------
    RankTest
        ``statistic`` is ``U`` of ``a``.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import wilcoxon_ranksum
    >>> rng = np.random.default_rng(3)
    >>> res = wilcoxon_ranksum(rng.normal(1.0, size=30), rng.normal(size=30))
    >>> res.significant(0.05)
    True
    """
    x = as_sample(a, "a")
    y = as_sample(b, "b")
    alt = check_choice(alternative, "alternative", ALTERNATIVES)
    from scipy import stats  # deferred: importing scipy.stats is slow

    res = stats.mannwhitneyu(x, y, alternative=alt)
    return RankTest(float(res.statistic), float(res.pvalue), alt, "wilcoxon rank-sum")


def wilcoxon_signedrank(a: Any, b: Any = None, *, alternative: str = "two-sided") -> RankTest:
    """Wilcoxon signed-rank test of the paired differences ``a - b`` (or of ``a``).

    For paired measurements, e.g. both versions run back to back in the same
    instance (ElastiBench's duet set-up, Schirmer et al. 2024). The numbers are
    ``scipy.stats.wilcoxon(a, b, alternative=alternative)`` with SciPy's
    defaults (zero differences dropped, ``method="auto"``): perfstats
    delegates the computation to SciPy and adds validation and the result.

    Parameters
    ----------
    a : array_like
        1-D sample, or the differences themselves when ``b`` is None.
    b : array_like, optional
        1-D sample paired with ``a`` (same length).
    alternative : {"two-sided", "less", "greater"}
        ``"greater"``: the differences ``a - b`` tend to be positive.

    Returns
    -------
    RankTest
        ``statistic`` is SciPy's: the smaller of the positive and negative
        rank sums (two-sided) or the positive rank sum (one-sided), with
        the p-value for ``alternative``.

    Raises
    ------
    ValueError
        If ``a`` and ``b`` have different lengths, or if SciPy cannot test
        the differences.

    Examples
    --------
    >>> from perfstats import wilcoxon_signedrank
    >>> before = [10.1, 9.8, 10.4, 10.0, 10.3, 9.9, 10.2, 10.5]
    >>> after = [10.9, 10.5, 11.0, 10.6, 11.2, 10.4, 10.8, 11.3]
    >>> wilcoxon_signedrank(after, before).pvalue
    0.0078125
    """
    x = as_sample(a, "a")
    alt = check_choice(alternative, "alternative", ALTERNATIVES)
    if b is not None:
        y = as_sample(b, "b")
        if x.size != y.size:
            raise ValueError(
                f"a and b must be paired (equal length), got {x.size} and {y.size} values"
            )
    what = "a" if b is None else "a - b"
    from scipy import stats  # deferred: importing scipy.stats is slow

    try:
        # All differences zero: no rank has a sign, and SciPy's normal
        # approximation divides 0 by 0 on the way to its answer (the values it
        # returns then are SciPy's, passed on); that 0/0 is no fault here.
        with np.errstate(invalid="ignore", divide="ignore"):
            res = (
                stats.wilcoxon(x, alternative=alt)
                if b is None
                else stats.wilcoxon(x, y, alternative=alt)
            )
    except ValueError as exc:
        raise ValueError(f"the differences {what} cannot be tested: {exc}") from None
    return RankTest(float(res.statistic), float(res.pvalue), alt, "wilcoxon signed-rank")
