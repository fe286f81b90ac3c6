"""Everything perfstats says about two samples, in one result.

References
----------
.. [Liao2025] Liao et al., "Early Detection of Performance Regressions by Bridging Local
   Performance Data and Architectural Models", ICSE 2025; see the References of
   :mod:`perfstats.system.propagation`.
.. [Mittal] Mittal et al., "SHARP: A Distribution-Based Framework for Reproducible
   Performance Evaluation", manuscript (undated); see the References of
   :mod:`perfstats.rules.sharp`.
.. [Schirmer2024] Schirmer et al., "ElastiBench: Scalable Continuous Benchmarking on Cloud
   FaaS Platforms", IC2E 2024; see the References of :mod:`perfstats.comparison.change`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

from .._validation import as_sample
from .change import RelativeChange, relative_change
from .effects import CliffsDelta, RankTest, cliffs_delta, wilcoxon_ranksum, wilcoxon_signedrank
from .similarity import KSResult, kl_similarity, ks, namd

__all__ = ["Comparison", "compare"]

# Liao et al. (2025): a change needs p < 0.05 and a non-negligible effect.
LIAO_ALPHA = 0.05


@dataclass(frozen=True)
class Comparison:
    """Similarity, effect size, tests and relative change of ``b`` against ``a``.

    Effects are those of ``b`` relative to ``a``: a positive Cliff's delta or
    relative change means ``b`` tends to be larger (slower for a latency,
    faster for a throughput: ``change.better`` says which values are
    better, and ``change.direction`` reads the change accordingly).

    Parameters
    ----------
    n_a, n_b : int
        Sample sizes.
    ks : KSResult
        Kolmogorov-Smirnov statistic and p-value (SHARP).
    namd : float
        SHARP's Normalized Absolute Mean Difference.
    kl_similarity : float
        PT4Cloud's similarity probability.
    cliffs_delta : CliffsDelta
        ``P(b > a) - P(b < a)`` with Romano's magnitude.
    ranksum : RankTest
        Wilcoxon rank-sum test of ``b`` against ``a`` (``U`` of ``b``).
    signedrank : RankTest or None
        Wilcoxon signed-rank test of ``b - a`` for paired samples, else None.
    change : RelativeChange
        Bootstrap CI of ``stat(b) / stat(a) - 1`` (ElastiBench).

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import compare
    >>> rng = np.random.default_rng(5)
    >>> old = rng.lognormal(4.0, 0.2, size=300)
    >>> res = compare(old, old * 1.2, paired=True, n_resamples=2000, rng=1)
    >>> res.change.direction, res.cliffs_delta.magnitude, res.liao_changed
    ('slower', 'large', True)
    >>> list(res.to_frame().index)[:3]
    ['ks', 'namd', 'kl_similarity']
    """

    n_a: int
    n_b: int
    ks: KSResult
    namd: float
    kl_similarity: float
    cliffs_delta: CliffsDelta
    ranksum: RankTest
    signedrank: RankTest | None
    change: RelativeChange

    @property
    def liao_changed(self) -> bool:
        """Liao et al.'s verdict: rank-sum p < 0.05 and Cliff's delta not negligible."""
        return self.ranksum.pvalue < LIAO_ALPHA and not self.cliffs_delta.negligible

    def to_frame(self) -> pd.DataFrame:
        """One row per statistic: value, CI bounds, p-value and a verdict.

        Returns
        -------
        pandas.DataFrame
            Indexed by ``statistic``: ``ks``, ``namd``, ``kl_similarity``,
            ``cliffs_delta``, ``wilcoxon_ranksum``, ``wilcoxon_signedrank`` (paired
            samples only) and ``relative_change``. The columns are ``value``,
            ``low`` and ``high`` (set for the relative change only), ``pvalue``
            (for the KS and Wilcoxon tests) and ``verdict`` (Cliff's magnitude and
            the change's direction, else empty); a number that does not apply is
            NaN.
        """
        nan = math.nan
        rows: list[tuple[str, float, float, float, float, str]] = [
            ("ks", self.ks.statistic, nan, nan, self.ks.pvalue, ""),
            ("namd", self.namd, nan, nan, nan, ""),
            ("kl_similarity", self.kl_similarity, nan, nan, nan, ""),
            ("cliffs_delta", self.cliffs_delta.delta, nan, nan, nan, self.cliffs_delta.magnitude),
            ("wilcoxon_ranksum", self.ranksum.statistic, nan, nan, self.ranksum.pvalue, ""),
        ]
        if self.signedrank is not None:
            rows.append(
                ("wilcoxon_signedrank", self.signedrank.statistic, nan, nan,
                 self.signedrank.pvalue, "")
            )  # fmt: skip
        c = self.change
        rows.append(("relative_change", c.estimate, c.low, c.high, nan, c.direction))
        frame = pd.DataFrame(
            [r[1:] for r in rows],
            index=pd.Index([r[0] for r in rows], name="statistic"),
            columns=["value", "low", "high", "pvalue", "verdict"],
        )
        return frame

    def __repr__(self) -> str:
        lines = [
            f"Comparison(n_a={self.n_a}, n_b={self.n_b})",
            f"  KS statistic     {self.ks.statistic:.4f}  (p = {self.ks.pvalue:.3g})",
            f"  NAMD             {self.namd:.4f}",
            f"  KL similarity    {self.kl_similarity:.4f}",
            f"  Cliff's delta    {self.cliffs_delta.delta:+.4f}  ({self.cliffs_delta.magnitude})",
            f"  rank-sum         U = {self.ranksum.statistic:.6g}  (p = {self.ranksum.pvalue:.3g})",
        ]
        if self.signedrank is not None:
            lines.append(
                f"  signed-rank      W = {self.signedrank.statistic:.6g}  "
                f"(p = {self.signedrank.pvalue:.3g})"
            )
        c = self.change
        lines.append(
            f"  relative change  {c.estimate:+.2%} [{c.low:+.2%}, {c.high:+.2%}] "
            f"at {c.level * 100:g}% ({c.statistic}): {c.direction}"
            + ("; higher is better" if c.better == "higher" else "")
        )
        lines.append(f"  Liao et al.      {'changed' if self.liao_changed else 'no change'}")
        return "\n".join(lines)


def compare(
    a: Any,
    b: Any,
    *,
    paired: bool = False,
    statistic: str | float = "median",
    level: float = 0.95,
    groups: Any = None,
    per_pair: bool = False,
    n_resamples: int = 10000,
    rng: Any = None,
    grid: int = 1000,
    better: str = "lower",
) -> Comparison:
    """Compare a baseline sample ``a`` with a candidate sample ``b`` every way perfstats knows.

    Computes :func:`ks` and :func:`namd` (SHARP, Mittal et al.), :func:`kl_similarity`
    (PT4Cloud), :func:`cliffs_delta` and :func:`wilcoxon_ranksum` (Liao et
    al. 2025), :func:`wilcoxon_signedrank` when ``paired``, and
    :func:`relative_change` (ElastiBench, Schirmer et al. 2024), each as documented there.

    Parameters
    ----------
    a : array_like
        Baseline measurements (positive).
    b : array_like
        Candidate measurements.
    paired : bool, default False
        ``a[i]`` and ``b[i]`` were run together; adds the signed-rank
        test, uses the paired NAMD and resamples pairs jointly.
    statistic : {"median", "mean"} or float, default "median"
        Statistic of the relative change; a float is a quantile. Passed to
        :func:`relative_change`.
    level : float, default 0.95
        Confidence level of the relative change's CI.
    groups : array_like or tuple of two array_like, optional
        Labels of the instance or call each measurement came from, for
        two-level resampling in :func:`relative_change`: one per pair when
        ``paired``, else a tuple ``(groups_of_a, groups_of_b)``.
    per_pair : bool, default False
        The change is the statistic of the per-pair ratios ``b[i] / a[i]``;
        needs ``paired``.
    n_resamples : int, default 10000
        Bootstrap resamples of the relative change.
    rng : None, int or numpy.random.Generator
        Seed for the bootstrap of the relative change (the other statistics
        draw nothing at random).
    grid : int, default 1000
        Grid points of :func:`kl_similarity`.
    better : {"lower", "higher"}, default "lower"
        Which values are better (``"higher"`` for a throughput or a rate):
        the relative change's ``direction`` reads a rise as ``"faster"``
        then (see :func:`relative_change`).

    Returns
    -------
    Comparison
        The sample sizes, the KS test, NAMD, KL similarity, Cliff's delta,
        the rank-sum test, the signed-rank test (None unless ``paired``) and
        the relative change, all of ``b`` against ``a``.

    Raises
    ------
    ValueError
        On any input one of the statistics rejects, e.g. a sample with zero
        variance (no KDE exists for it).

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import compare
    >>> rng = np.random.default_rng(2)
    >>> res = compare(rng.normal(100, 5, 80), rng.normal(100, 5, 80), n_resamples=2000, rng=3)
    >>> res.change.changed, res.liao_changed
    (False, False)

    Throughputs where the candidate does 20% more operations a second:

    >>> ops = rng.lognormal(7.0, 0.05, 60)
    >>> compare(ops, ops * 1.2, paired=True, better="higher", n_resamples=2000,
    ...         rng=3).change.direction
    'faster'
    """
    x = as_sample(a, "a")
    y = as_sample(b, "b")
    change = relative_change(
        x, y, statistic=statistic, level=level, paired=paired, groups=groups,
        per_pair=per_pair, n_resamples=n_resamples, rng=rng, better=better,
    )  # fmt: skip
    return Comparison(
        n_a=x.size,
        n_b=y.size,
        ks=ks(x, y),
        namd=namd(x, y, paired=paired),
        kl_similarity=kl_similarity(x, y, grid=grid),
        cliffs_delta=cliffs_delta(y, x),
        ranksum=wilcoxon_ranksum(y, x),
        signedrank=wilcoxon_signedrank(y, x) if paired else None,
        change=change,
    )
