"""SuperFlow: accuracy check plus stability check on percentile CIs.

Wen et al., "SuperFlow: Performance Testing for Serverless Computing",
Section 4. The *accuracy check* asks that the
confidence interval of each of P25, P50 and P75 lie within ``r`` (1%) of
that observed percentile; the *stability check* asks that the accuracy check
hold both for the current runs ``S_cur`` and for the previous runs
``S_pre`` (``S_cur`` without its last run interval). The three variants of
the paper differ only in how the interval is computed:

* SuperFlow 1 (``method="order-normal"``): the order-statistic ranks of the
  normal approximation, as in the public reference code;
* SuperFlow 2 (``method="bootstrap"``): the i.i.d. percentile bootstrap;
* SuperFlow 3 (``method="block"``): the moving-block bootstrap with the
  Politis-White block length, as Metior.

``method="order"`` (exact binomial ranks) and ``method="exact-bootstrap"`` (the
i.i.d. bootstrap with infinitely many resamples) are variants this library
adds; every method of :func:`perfstats.precision.interval.percentile_ci` works.

References
----------
.. [Wen2023] J. Wen, Z. Chen, F. Sarro and X. Liu, "SuperFlow: Performance Testing
   for Serverless Computing", arXiv:2306.01620, 2023.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._deprecation import renamed
from .._quantiles import parse_quantiles
from .._rng import RNGLike
from .._validation import check_choice, check_int, check_level, check_positive
from ..precision.blocklength import MIN_SIZE
from ..precision.interval import Interval, quantile_intervals
from ._details import interval_details
from ._seeds import CURRENT, base_seed, judgement_key
from ._wording import pct, quantile_label, reaches
from .base import Rule
from .decision import Decision

CI_METHODS = ("order-normal", "bootstrap", "block", "order", "exact-bootstrap")
_RANDOM_METHODS = ("bootstrap", "block")
BLOCK_KINDS = ("moving", "circular", "stationary", "superflow")


@dataclass(frozen=True)
class _SetVerdict:
    """The accuracy check of one set: its intervals and whether all pass."""

    intervals: tuple[Interval, ...]
    accurate: bool


class SuperFlow(Rule):
    """Stop when P25, P50 and P75 CIs of ``S_cur`` and ``S_pre`` are all within ``error``.

    Parameters
    ----------
    method : str, default "order-normal"
        Interval method, as in :func:`perfstats.percentile_ci`:
        ``"order-normal"`` (SuperFlow 1), ``"bootstrap"`` (SuperFlow 2),
        ``"block"`` (SuperFlow 3), ``"order"`` or ``"exact-bootstrap"``.
    level : float, default 0.95
        Confidence level of each interval.
    error : float, default 0.01
        The error margin ``r``: each interval must lie strictly inside
        ``(p * (1 - r), p * (1 + r))`` around its observed percentile ``p``.
    interval : int, default 5
        Runs per run interval; ``S_pre`` is ``S_cur`` without its last
        ``interval`` runs, so the first judgement is at ``2 * interval``.
    q : quantile or sequence of quantiles, default (0.25, 0.5, 0.75)
        The percentiles checked ("most of the performance", Section 4.2),
        in any spelling of :mod:`perfstats._quantiles` (``0.9``, ``"p90"``).
    n_resamples : int, default 1000
        Resamples of the bootstrap methods.
    block_kind : {"moving", "circular", "stationary", "superflow"}, default "moving"
        Block scheme of ``method="block"``, whose block length is Politis-White's
        (blocks of 1 for sets under 11 points, too short to estimate it).
        ``"superflow"`` is the reference code's moving-block variant
        (``floor((n - b) / b)`` blocks from ``n - b`` starts, so shorter
        resamples and wider intervals); it reproduces the paper's figures.
    rng : None, int or numpy.random.Generator
        Seeds the bootstrap methods. One base seed is drawn when the rule is
        built; every interval is seeded from it and the size of its set, so
        ``check`` is a pure function of the data.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.rules import SuperFlow
    >>> x = np.random.default_rng(0).normal(100.0, 1.0, size=400)
    >>> rule = SuperFlow()          # SuperFlow 1, r = 1%
    >>> rule.check(x).stop
    True
    >>> rule.check(x[:20])  # doctest: +NORMALIZE_WHITESPACE
    Decision(continue at n=20, rule='SuperFlow':
             P75 CI of the current runs is unbounded; needs within 1.0%)
    >>> SuperFlow(method="bootstrap", rng=1).check(x).stop
    True
    """

    name = "SuperFlow"

    @renamed(ci="method", quantiles="q")
    def __init__(
        self,
        *,
        method: str = "order-normal",
        level: float = 0.95,
        error: float = 0.01,
        interval: int = 5,
        q: float | str | Sequence[float | str] = (0.25, 0.5, 0.75),
        n_resamples: int = 1000,
        block_kind: str = "moving",
        rng: RNGLike = None,
    ) -> None:
        self.method = check_choice(method, "method", CI_METHODS)
        self.level = check_level(level)
        self.error = check_positive(error, "error")
        self._interval = check_int(interval, "interval", minimum=1)
        qs, scalar = parse_quantiles(q, "q")
        self.q = (float(qs[0]),) if scalar else tuple(float(v) for v in qs)
        self.n_resamples = check_int(n_resamples, "n_resamples", minimum=2)
        self.block_kind = check_choice(block_kind, "block_kind", BLOCK_KINDS)
        self.seed = base_seed(rng)
        self._qs = np.array(self.q, dtype=np.float64)
        # The previous runs at n were the current runs at n - interval, and a
        # set is always judged with the same seed, so the last verdict on the
        # current runs serves as the next verdict on the previous runs.
        self._memo: tuple[np.ndarray, _SetVerdict] | None = None

    @property
    def min_n(self) -> int:
        return 2 * self._interval

    def config(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "level": self.level,
            "error": self.error,
            "interval": self._interval,
            "q": self.q,
            "n_resamples": self.n_resamples,
            "block_kind": self.block_kind,
            "rng": self.seed,
        }

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_memo"] = None
        return state

    def _judge(self, x: np.ndarray) -> _SetVerdict:
        # ``x`` and the options were validated once (by ``check`` and the
        # constructor), so the intervals skip percentile_ci's checks.
        key = None
        if self.method in _RANDOM_METHODS:
            key = judgement_key(self.seed, int(x.size), CURRENT)
        # Only the intervals are read, so the i.i.d. bootstrap draws them by
        # order-statistic chains (O(k) per resample; the same distribution)
        # at any n.
        engine = "chain" if self.method == "bootstrap" else "auto"
        block_length: Any = "auto"
        if self.method == "block" and x.size < MIN_SIZE:
            # Politis-White needs 11 points; below that no dependence can
            # be estimated and blocks of one (the i.i.d. bootstrap) are
            # the reference code's floor.
            block_length = 1
        intervals = quantile_intervals(
            x, self._qs, self.level, self.method, self.n_resamples, block_length,
            self.block_kind, engine, key=key,
        )  # fmt: skip
        error = self.error
        return _SetVerdict(intervals, all(iv.within(error) for iv in intervals))

    def _previous_verdict(self, previous: np.ndarray) -> _SetVerdict:
        memo = self._memo
        if memo is not None and memo[0].size == previous.size and np.array_equal(memo[0], previous):
            return memo[1]
        return self._judge(previous)

    def _decide(self, data: np.ndarray) -> Decision:
        n = int(data.size)
        previous = self._previous_verdict(data[: n - self._interval])
        current = self._judge(data)
        self._memo = (data.copy(), current)
        stop = current.accurate and previous.accurate
        return self._decision(
            stop,
            n,
            self._reason(current, previous, stop),
            {
                "current": interval_details(current.intervals),
                "previous": interval_details(previous.intervals),
                "current_accurate": current.accurate,
                "previous_accurate": previous.accurate,
                "error": self.error,
                "method": self.method,
            },
        )

    def _reason(self, current: _SetVerdict, previous: _SetVerdict, stop: bool) -> str:
        labelled = [("current", iv) for iv in current.intervals]
        labelled += [("previous", iv) for iv in previous.intervals]
        if stop:
            role, widest = max(labelled, key=lambda item: item[1].rel_error)
            names = _join([quantile_label(q) for q in self.q])
            return (
                f"{names} CIs of the current and previous runs are within {pct(self.error)} "
                f"(widest: {quantile_label(widest.q)} of the {role} runs, "
                f"{pct(widest.rel_error)})"
            )
        # Name the interval furthest from the requirement: it is what the
        # next runs have to fix.
        failing = [item for item in labelled if not item[1].within(self.error)]
        role, worst = max(failing, key=lambda item: item[1].rel_error)
        label = quantile_label(worst.q)
        reach = (
            "is unbounded"
            if not worst.bounded
            else reaches(worst.rel_error, f"from the {label}")
        )
        return f"{label} CI of the {role} runs {reach}; needs within {pct(self.error)}"


def _join(words: Sequence[str]) -> str:
    if len(words) <= 2:
        return " and ".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]
