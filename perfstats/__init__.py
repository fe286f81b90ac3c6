"""perfstats: trustworthy performance measurements on noisy infrastructure.

Three questions, answered with the statistics the literature validated:

* How precise is this number? :func:`percentile_ci`,
  :func:`bootstrap_distribution`, :func:`optimal_block_length`.
* When can I stop repeating? :mod:`perfstats.rules` and :class:`Monitor`.
* Did it change? :func:`ks`, :func:`namd`, :func:`kl_similarity`,
  :func:`cliffs_delta`, :func:`wilcoxon_ranksum`, :func:`relative_change`,
  :func:`compare`.

The adapter layer that runs real targets is :mod:`perfstats.adapters`.
"""

from . import rules
from .blocklength import BlockLength, optimal_block_length
from .bootstrap import bootstrap_distribution
from .decision import Decision
from .interval import Interval
from .intervals import percentile_ci
from .monitor import Monitor

__version__ = "0.1.0"

__all__ = [
    "BlockLength",
    "Decision",
    "Interval",
    "Monitor",
    "__version__",
    "bootstrap_distribution",
    "optimal_block_length",
    "percentile_ci",
    "rules",
]
