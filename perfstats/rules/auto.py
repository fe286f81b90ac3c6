"""SHARP's meta-heuristic ("DC"): characterise the runs, then use the rule made for them."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._rng import RNGLike
from ._limits import check_limits
from ._seeds import base_seed
from ._wording import runs
from .base import Rule
from .block_means import BlockBootstrapMeans
from .decision import Decision
from .gmm import GMM
from .hdi import HDI
from .sharp import CIWidth, KSHalves

#: Classes on which the meta-heuristic stops at once: more runs will not help.
_STOP_AT_ONCE = {
    "constant": "all runs are equal, so more runs add nothing",
    "monotonic": "the runs only ever rise or only ever fall, so no distribution settles; "
    "flagged for a look at the system",
    "uniform": "the runs look uniform over their range, which is already pinned down",
}


class Auto(Rule):
    """SHARP's meta-heuristic: re-characterise the runs and delegate to a matching rule.

    Every judgement characterises the runs with :func:`perfstats.characterize`
    and reads SHARP's class from it (checked in this order): constant or
    monotonic -> stop (flagged); autocorrelated (lag-1 ACF >= 0.8) ->
    :class:`BlockBootstrapMeans`; normal (KS p > 0.1) -> :class:`CIWidth`;
    log-normal -> :class:`HDI`; multimodal -> :class:`GMM`; uniform -> stop;
    anything else -> :class:`KSHalves`
    (SHARP's generic self-similarity rule). The delegate judges the same
    runs; the Decision's reason names the class and the delegate, and its
    ``details`` hold the class, the delegate's name and details, and the
    whole characterisation (``details["characterization"]``, the
    :meth:`~perfstats.Characterization.to_dict` of the runs).

    The delegates use their own defaults except for their run limits, which
    are raised to ``max_n``, so that only the budget ends the test; at
    ``max_n`` runs the rule stops and says so.

    Parameters
    ----------
    min_n : int, default 25
        First characterisation (SHARP starts at 25 runs).
    interval : int, default 10
        Runs between characterisations (SHARP: 10).
    max_n : int, default 400
        The budget: the rule never asks for more runs (SHARP: 400).
    rng : None, int or numpy.random.Generator
        Seeds the randomised delegates.

    References
    ----------
    Mittal et al., "SHARP: A Distribution-Based Framework for Reproducible Performance
    Evaluation", manuscript (undated), Section IV-c: the meta-heuristic that picks a
    stopping rule for the distribution it sees; full entry in :mod:`perfstats.rules.sharp`.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.rules import Auto
    >>> x = np.random.default_rng(0).normal(100.0, 2.0, size=60)
    >>> d = Auto(rng=0).check(x[:30])
    >>> d.details["distribution"], d.details["delegate"]
    ('normal', 'SHARP-CI')
    >>> print(d.reason)  # doctest: +NORMALIZE_WHITESPACE
    runs look normal, so SHARP-CI decides: the mean's 95% CI reaches 0.5% of the mean;
    below the 5.0% threshold
    >>> Auto().check(np.arange(1.0, 31.0)).reason  # doctest: +NORMALIZE_WHITESPACE
    'runs look monotonic: the runs only ever rise or only ever fall, so no distribution
    settles; flagged for a look at the system'
    """

    name = "SHARP-Auto"

    def __init__(
        self,
        *,
        min_n: int = 25,
        interval: int = 10,
        max_n: int = 400,
        rng: RNGLike = None,
    ) -> None:
        self._min_n, self.max_n, self._interval = check_limits(
            min_n, max_n, interval, least_min_n=25 if min_n >= 25 else 20
        )
        self.seed = base_seed(rng)
        limit = self.max_n
        self.delegates: dict[str, Rule] = {
            "autocorrelated": BlockBootstrapMeans(
                min_n=20, max_n=limit, interval=self._interval, rng=self.seed
            ),
            "normal": CIWidth(interval=self._interval),
            "lognormal": HDI(max_n=limit, interval=self._interval, rng=self.seed),
            "multimodal": GMM(max_n=limit, interval=self._interval, rng=self.seed),
            "unknown": KSHalves(interval=self._interval),
        }

    def config(self) -> dict[str, Any]:
        return {
            "min_n": self._min_n,
            "interval": self._interval,
            "max_n": self.max_n,
            "rng": self.seed,
        }

    def _decide(self, data: np.ndarray) -> Decision:
        from ..characterization.describe import characterize

        n = int(data.size)
        found = characterize(data)
        kind = found.distribution
        details: dict[str, Any] = {
            "distribution": kind,
            "max_n": self.max_n,
            "characterization": found.to_dict(),
        }
        if kind in _STOP_AT_ONCE:
            details["delegate"] = None
            reason = f"runs look {kind}: {_STOP_AT_ONCE[kind]}"
            return self._decision(True, n, reason, details)
        delegate = self.delegates[kind]
        inner = delegate.check(data)
        details.update({"delegate": delegate.name, "delegate_details": dict(inner.details)})
        if not inner.stop and n >= self.max_n:
            details["budget_exhausted"] = True
            reason = (
                f"reached the budget of {runs(self.max_n)}; runs look {kind} and "
                f"{delegate.name} had not stopped ({inner.reason})"
            )
            return self._decision(True, n, reason, details)
        reason = f"runs look {kind}, so {delegate.name} decides: {inner.reason}"
        return self._decision(inner.stop, n, reason, details)
