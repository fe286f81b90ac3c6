"""Stopping rules: each turns a sample, in collection order, into a Decision.

Every rule has ``check(data) -> Decision``, an ``interval`` (runs per run
interval) and ``min_n``. :func:`by_name` builds a rule from its name and
options (used by harnesses and the command line). :class:`Monitor` feeds a
rule from a run loop; :class:`MultiMonitor` one rule per named series.

=================== ============================================== ===========
name                rule                                           source
=================== ============================================== ===========
``superflow``       :class:`SuperFlow` (accuracy + stability)      SuperFlow
``pt4cloud``        :class:`PT4Cloud` (KDE similarity)             PT4Cloud
``metior``          :class:`Metior` (block-bootstrapped change)    Metior
``ci-width``        :class:`CIWidth` (relative CI of the mean)     SHARP
``ks-halves``       :class:`KSHalves` (KS between halves)          SHARP
``basic-bootstrap`` :class:`BasicBootstrap` (i.i.d. bootstrap CI)  Metior
``cov``             :class:`CoV` (stable coefficient of variation)  Metior
``fixed``           :class:`Fixed` (a fixed count)                 SeBS
``rse``             :class:`RSE` (relative standard error)         SHARP
``hdi``             :class:`HDI` (highest-density interval)        SHARP
``block-means``     :class:`BlockBootstrapMeans` (SHARP's "BB")    SHARP
``gmm``             :class:`GMM` (Gaussian-mixture likelihood)     SHARP
``auto``            :class:`Auto` (SHARP's meta-heuristic, "DC")   SHARP
``quantile-cs``     :class:`QuantileSequence` (anytime-valid CIs)  Howard
=================== ============================================== ===========
"""

from __future__ import annotations

from typing import Any

from .auto import Auto
from .base import Rule
from .baselines import BasicBootstrap, CoV
from .block_means import BlockBootstrapMeans
from .confidence_sequence import QuantileSequence
from .fixed import Fixed
from .gmm import GMM
from .hdi import HDI
from .metior import Metior
from .monitor import Monitor, MultiMonitor
from .pt4cloud import PT4Cloud
from .rse import RSE
from .sharp import CIWidth, KSHalves
from .superflow import SuperFlow

RULES: dict[str, type[Rule]] = {
    "superflow": SuperFlow,
    "pt4cloud": PT4Cloud,
    "metior": Metior,
    "ci-width": CIWidth,
    "ks-halves": KSHalves,
    "basic-bootstrap": BasicBootstrap,
    "cov": CoV,
    "fixed": Fixed,
    "rse": RSE,
    "hdi": HDI,
    "block-means": BlockBootstrapMeans,
    "gmm": GMM,
    "auto": Auto,
    "quantile-cs": QuantileSequence,
}


def by_name(name: str, **options: Any) -> Rule:
    """Build the rule registered as ``name`` (case-insensitive) with ``options``.

    A rule's deprecated option spellings (``ci``, ``quantiles``, ``threshold``
    of the relative-error rules) are accepted with a
    :class:`DeprecationWarning` naming the new one.

    Parameters
    ----------
    name : str
        A key of :data:`RULES` (the table above), in any letter case, e.g.
        ``"superflow"``, ``"ci-width"`` or ``"fixed"``.
    **options : Any
        Keyword arguments of the rule's class, passed on unchanged (e.g.
        ``error`` and ``level`` for :class:`SuperFlow`, ``n`` for
        :class:`Fixed`); options left out take the class's defaults.

    Returns
    -------
    Rule
        A new instance of the registered class, configured with
        ``options``.

    Raises
    ------
    ValueError
        For a name no rule is registered under, or an option the rule does
        not take (or an invalid value of one).

    Examples
    --------
    >>> from perfstats.rules import by_name
    >>> by_name("fixed", n=20)
    Fixed(n=20)
    >>> by_name("SuperFlow", method="order", error=0.02).error
    0.02
    >>> by_name("ci-width", error=0.02).error
    0.02
    """
    key = name.lower() if isinstance(name, str) else name
    if key not in RULES:
        known = ", ".join(sorted(RULES))
        raise ValueError(f"rule must be one of {known}; got {name!r}")
    try:
        return RULES[key](**options)
    except TypeError as exc:
        raise ValueError(f"bad option for rule {name!r}: {exc}") from None


__all__ = [
    "GMM",
    "HDI",
    "RSE",
    "RULES",
    "Auto",
    "BasicBootstrap",
    "BlockBootstrapMeans",
    "CIWidth",
    "CoV",
    "Fixed",
    "KSHalves",
    "Metior",
    "Monitor",
    "MultiMonitor",
    "PT4Cloud",
    "QuantileSequence",
    "Rule",
    "SuperFlow",
    "by_name",
]
