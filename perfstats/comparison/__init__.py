"""Did it change? Similarity, rank tests, relative change, multiple testing and histories.

All measures at once
--------------------
- :func:`compare`, :class:`Comparison`: every measure below for two samples.

Distributions
-------------
- :func:`ks`, :class:`KSResult`: the Kolmogorov-Smirnov test.
- :func:`namd`: SHARP's normalised absolute mean difference.
- :func:`kl_similarity`: PT4Cloud's Kullback-Leibler similarity.

Ranks and effect sizes
----------------------
- :func:`cliffs_delta`, :class:`CliffsDelta`: Cliff's delta.
- :func:`wilcoxon_ranksum`, :func:`wilcoxon_signedrank`, :class:`RankTest`.

Relative change
---------------
- :func:`relative_change`, :class:`RelativeChange`: a bootstrap CI of the
  relative change of a statistic (unpaired, paired, per-pair ratios,
  hierarchical).
- :func:`change_agreement`, :class:`ChangeAgreement`: do two changes agree?

Many benchmarks, many experiments
---------------------------------
- :func:`benjamini_hochberg`: the false-discovery-rate correction.
- :func:`consistent_ci_curve`, :func:`possible_changes`,
  :func:`repetitions_needed` (and their result types): ElastiBench's
  analyses across repeated experiments.

Histories
---------
- :func:`change_points`, :func:`history_change_points`, :class:`ChangePoint`,
  :class:`ChangePoints`: steps in a benchmark's history (e-divisive).

Examples
--------
>>> import numpy as np
>>> from perfstats.comparison import cliffs_delta
>>> a = np.arange(10.0)
>>> cliffs_delta(a + 100, a).delta
1.0
"""

from __future__ import annotations

from .change import ChangeAgreement, RelativeChange, change_agreement, relative_change
from .consistency import (
    ConsistencyCurve,
    PossibleChanges,
    RepetitionsNeeded,
    consistent_ci_curve,
    possible_changes,
    repetitions_needed,
)
from .effects import CliffsDelta, RankTest, cliffs_delta, wilcoxon_ranksum, wilcoxon_signedrank
from .history import ChangePoint, ChangePoints, change_points, history_change_points
from .measures import Comparison, compare
from .multiple_testing import benjamini_hochberg
from .similarity import KSResult, kl_similarity, ks, namd

__all__ = [
    "ChangeAgreement",
    "ChangePoint",
    "ChangePoints",
    "CliffsDelta",
    "Comparison",
    "ConsistencyCurve",
    "KSResult",
    "PossibleChanges",
    "RankTest",
    "RelativeChange",
    "RepetitionsNeeded",
    "benjamini_hochberg",
    "change_agreement",
    "change_points",
    "cliffs_delta",
    "compare",
    "consistent_ci_curve",
    "history_change_points",
    "kl_similarity",
    "ks",
    "namd",
    "possible_changes",
    "relative_change",
    "repetitions_needed",
    "wilcoxon_ranksum",
    "wilcoxon_signedrank",
]
