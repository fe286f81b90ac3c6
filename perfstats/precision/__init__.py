"""How precise is this number? Intervals and resampled distributions of a statistic.

Percentile intervals
--------------------
- :class:`Interval`: a confidence interval of one quantile.
- :func:`percentile_ci`: intervals of one or more percentiles (order
  statistics, SuperFlow's normal ranks, the i.i.d., exact and block
  bootstraps).

Resampled distributions
-----------------------
- :func:`bootstrap_distribution`: the bootstrap distribution of a statistic,
  i.i.d. or by blocks of any kind in :data:`BLOCK_KINDS`.

Dependence between runs
-----------------------
- :func:`optimal_block_length`, :class:`BlockLength`: Politis and White's
  block length for the block bootstraps.
- :func:`acf`: the autocorrelation function.

Densities
---------
- :func:`hdi`: the highest-density interval of a sample.

Examples
--------
>>> import numpy as np
>>> from perfstats.precision import percentile_ci
>>> x = np.random.default_rng(0).lognormal(3.0, 0.4, size=300)
>>> percentile_ci(x, 0.5).method
'order'
"""

from __future__ import annotations

from .autocorrelation import acf
from .blocklength import BLOCK_KINDS, BlockLength, optimal_block_length
from .bootstrap import bootstrap_distribution
from .highest_density import hdi
from .interval import Interval, percentile_ci

__all__ = [
    "BLOCK_KINDS",
    "BlockLength",
    "Interval",
    "acf",
    "bootstrap_distribution",
    "hdi",
    "optimal_block_length",
    "percentile_ci",
]
