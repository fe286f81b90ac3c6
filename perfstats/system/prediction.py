"""Predict whether changed service demands make the system regress.

Step 6 of Liao et al.'s pipeline (Section III-D): the architectural model is
simulated with the original demands and with the demands changed by the
propagated local deviations; the two sets of simulated response times are
compared with the Wilcoxon rank-sum test and Cliff's delta, as measurements
of a real system would be.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from .._rng import as_generator
from ..comparison.effects import cliffs_delta, wilcoxon_ranksum
from ._frozen import freeze_mappings
from .queueing import ClosedNetwork, OpenNetwork, SimulationResult
from .queueing.simulation import check_requests

__all__ = ["DEFAULT_PREDICTION_REQUESTS", "RegressionPrediction", "predict_regression"]

# Requests simulated per version. Both versions are simulated with common
# random numbers, and the verdict rests on Cliff's delta, whose simulation
# noise is tiny. 10,000 keeps delta's noise two orders of magnitude below the
# 0.147 threshold and the MPD's error a few percent of its analytic value
# (chosen from the M/M/1 runs of ``python -m benchmarks.queueing_precision
# --mpd`` in benchmarks/results/queueing_mpd_precision.json), while one
# prediction of a three-service, three-class model stays cheap (``--timing``:
# benchmarks/results/prediction_timing.json).
DEFAULT_PREDICTION_REQUESTS = 10_000

# A saturated station's backlog grows by about n (1 - 1/load) requests over a
# run of n, and ciw's processor-sharing node updates every request in service
# at each event, so such a run costs O(n^2 (1 - 1/load)): doubling the
# requests at load 1.3 quadrupled the time (variant 3 of the shop
# evaluation). Capping n^2 (1 - 1/load) at this budget keeps a saturated
# prediction short (2,000 requests at load 1.3) while the verdict, a
# backlog that never drains, is the same at any length.
_SATURATED_BUDGET = 1.0e6
_SATURATED_MIN_REQUESTS = 500


def _saturated_requests(n: int, load: Mapping[str, float]) -> int:
    """Requests to simulate when some station's offered load is at least 1."""
    growth = max(1.0 - 1.0 / u for u in load.values() if u >= 1.0)
    if growth <= 0.0:
        return n
    cap = int(math.sqrt(_SATURATED_BUDGET / growth))
    return min(n, max(_SATURATED_MIN_REQUESTS, cap))


@dataclass(frozen=True)
class RegressionPrediction:
    """The model's verdict on a change of service demands.

    Parameters
    ----------
    regression : bool
        ``pvalue < alpha``, Cliff's delta beyond negligible and positive
        (the changed version is slower), over all requests or for at least
        one request class (requests of untouched classes dilute the pooled
        effect; the reason names such a class).
    reason : str
        One sentence saying why.
    pvalue : float
        Two-sided Wilcoxon rank-sum p-value of all simulated response times,
        after against before.
    cliffs_delta : float
        Cliff's delta of after against before (positive = slower).
    magnitude : str
        Romano et al.'s label of ``|cliffs_delta|``.
    mpd : float
        Mean performance degradation of the response time in seconds:
        mean after minus mean before, over all classes.
    relative_mpd : float
        ``mpd`` divided by the mean before.
    mpd_by_class, cliffs_delta_by_class, pvalue_by_class : mapping
        The same per request class.
    cpu_mpd : mapping of str to float
        Per station, CPU percent after minus before (percentage points;
        100 per fully busy server).
    cpu_before, cpu_after : mapping of str to float
        Per station, simulated CPU percent.
    mean_before, mean_after : float
        Mean response time over all classes, seconds.
    saturated : tuple of str
        Stations whose utilisation reaches 1 with the changed demands (the
        changed model has no steady state; its simulated response times
        grow with the length of the run, so both versions are simulated
        over a shorter run, see :func:`predict_regression`).
    demand_factors : mapping
        The factors applied.
    n_requests : int
        Requests simulated per version (fewer than asked for when a station
        saturates).
    alpha : float
        Significance level.
    before, after : SimulationResult
        The two simulations.

    Examples
    --------
    >>> from perfstats import predict_regression
    >>> from perfstats.system.queueing import OpenNetwork, Station
    >>> model = OpenNetwork([Station("db", demands={"q": 0.01})], arrival_rates={"q": 20.0})
    >>> res = predict_regression(model, {"db": 1.5}, n_requests=2_000, rng=0)
    >>> res.regression, res.magnitude, res.n_requests, res.saturated
    (True, 'small', 2000, ())
    >>> round(res.cpu_mpd["db"])  # utilisation 0.2 -> 0.3: ten percentage points
    10
    >>> sorted(res.as_dict())[:4]  # for JSON: the fields but the two simulations
    ['alpha', 'cliffs_delta', 'cliffs_delta_by_class', 'cpu_after']
    """

    regression: bool
    reason: str
    pvalue: float
    cliffs_delta: float
    magnitude: str
    mpd: float
    relative_mpd: float
    mpd_by_class: Mapping[str, float]
    cliffs_delta_by_class: Mapping[str, float]
    pvalue_by_class: Mapping[str, float]
    cpu_mpd: Mapping[str, float]
    cpu_before: Mapping[str, float]
    cpu_after: Mapping[str, float]
    mean_before: float
    mean_after: float
    saturated: tuple[str, ...]
    demand_factors: Mapping[str, Any]
    n_requests: int
    alpha: float
    before: SimulationResult = field(repr=False)
    after: SimulationResult = field(repr=False)

    def __post_init__(self) -> None:
        freeze_mappings(self)

    def as_dict(self) -> dict[str, Any]:
        """Every field but the two simulations, as plain JSON-ready values.

        Returns
        -------
        dict of str to Any
            Field name to value, without ``before`` and ``after``: mappings
            (and the mappings in them) as dicts, tuples as lists, the rest
            as they are.
        """
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name in ("before", "after"):
                continue
            value = getattr(self, f.name)
            if isinstance(value, Mapping):
                value = {k: dict(v) if isinstance(v, Mapping) else v for k, v in value.items()}
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out

    def __repr__(self) -> str:
        cpu = ", ".join(f"{k}={v:+.3g}" for k, v in self.cpu_mpd.items())
        return (
            f"RegressionPrediction(regression={self.regression}, mpd={self.mpd * 1e3:+.4g} ms "
            f"({self.relative_mpd:+.2%}), cliffs_delta={self.cliffs_delta:.3f} "
            f"({self.magnitude}), pvalue={self.pvalue:.3g}, cpu_mpd={{{cpu}}}, "
            f"reason={self.reason!r})"
        )


def _reason(
    regression: bool,
    p: float,
    alpha: float,
    delta: float,
    magnitude: str,
    mpd: float,
    rel: float,
    changed: bool,
    saturated: tuple[str, ...],
    utilisation: Mapping[str, float],
    diluted: Sequence[str] = (),
    class_mpd: Mapping[str, float] | None = None,
    class_delta: Mapping[str, float] | None = None,
) -> str:
    what = f"mean response time {mpd * 1e3:+.3g} ms ({rel:+.1%}), Cliff's delta {delta:.3f}"
    if not changed:
        text = "no regression: no service demand changed"
    elif regression and diluted and class_mpd is not None and class_delta is not None:
        named = ", ".join(
            f"{c!r} ({class_mpd[c] * 1e3:+.3g} ms, Cliff's delta {class_delta[c]:.3f})"
            for c in diluted
        )
        text = (
            f"regression predicted for request class(es) {named}; over all requests "
            f"{what} is diluted by the classes the change does not touch"
        )
    elif regression:
        text = f"regression predicted: {what} ({magnitude}), p = {p:.2g} < {alpha:g}"
    elif p >= alpha:
        text = (
            f"no regression: the difference is not significant (p = {p:.2g} >= {alpha:g}; {what})"
        )
    elif magnitude == "negligible":
        text = f"no regression: {what} is negligible (|delta| < 0.147) although p = {p:.2g}"
    else:
        text = f"no regression: the model predicts an improvement ({what}, {magnitude})"
    if saturated:
        parts = ", ".join(f"{k!r} (utilisation {utilisation[k]:.3g})" for k in saturated)
        text += f"; with the changed demands station(s) {parts} saturate"
    return text


def predict_regression(
    model: OpenNetwork | ClosedNetwork,
    demand_factors: Mapping[str, Any],
    *,
    n_requests: int = DEFAULT_PREDICTION_REQUESTS,
    rng: Any = None,
    alpha: float = 0.05,
    per_class: bool = True,
) -> RegressionPrediction:
    """Simulate the model before and after a change of demands and judge it.

    Parameters
    ----------
    model : OpenNetwork or ClosedNetwork
        The architectural model of the original version.
    demand_factors : mapping
        ``{station: factor}`` for every class, or ``{request_class:
        {station: factor}}`` (e.g. :attr:`Propagation.demand_factors`).
        Stations not named keep their demand.
    n_requests : int
        Requests simulated per version (default 10,000; at most
        :data:`~perfstats.system.queueing.simulation.MAX_REQUESTS`, ten
        million); fewer when the changed demands saturate a station (see Notes).
    rng : None, int or numpy.random.Generator
        Seeds the simulations; both versions use the same stream.
    alpha : float
        Significance level of the rank-sum test (0.05 as in the paper).
    per_class : bool
        Also judge each request class on its own (default): a class whose
        requests are clearly slower is a regression even when the classes
        the change does not touch dilute the pooled effect. ``False`` judges
        the pooled response times only, as the paper does.

    Returns
    -------
    RegressionPrediction
        The verdict and its reason, the rank-sum p-value, Cliff's delta and
        the mean performance degradation over all requests and per class,
        the CPU change per station, the saturated stations and the two
        simulations.

    Raises
    ------
    ValueError
        For an unstable original model, unknown stations or classes, or
        non-positive factors.

    Notes
    -----
    *How many samples.* With tens of thousands of simulated requests the
    rank-sum test flags even a 0.1% change; its p-value mostly reflects how
    long one simulates. What decides is Cliff's delta, which does not grow
    with the number of samples: a change is a regression only when the
    effect is beyond negligible (``|delta| >= 0.147``). Both versions are
    simulated with common random numbers (the same seed), so a version
    whose demands do not change gives the very same samples (delta 0,
    p = 1), and a small change moves delta by a small, reproducible amount
    rather than by simulation noise. ``n_requests`` is therefore chosen for
    the precision of the MPD and of delta (on M/M/1 at 50% utilisation,
    delta's spread over seeds is far below the 0.147 threshold with the
    default), not to make the test significant.
    The samples are autocorrelated (consecutive requests share queues), so
    p-values are optimistic; together with the effect-size condition the
    verdict stays conservative.

    *Saturation.* When the changed demands put a station's offered load at
    or above 1, the changed model has no steady state: its backlog grows by
    about ``n (1 - 1/load)`` requests over ``n`` arrivals, and its response
    times with the length of the run. The mean and the MPD then describe
    that run only, not a long-run value, and the reason says which stations
    saturate. Simulating processor sharing costs time in proportion to the
    backlog, so such a run would grow quadratically; both versions are
    therefore simulated over ``min(n_requests, sqrt(10**6 / (1 - 1/load)))``
    requests (at least 500), e.g. 2,000 at load 1.3, and
    :attr:`RegressionPrediction.n_requests` says how many.

    References
    ----------
    Liao et al., "Early Detection of Performance Regressions by Bridging Local Performance
    Data and Architectural Models", ICSE 2025, Section III-D; see the References of
    :mod:`perfstats.system.propagation`.

    Examples
    --------
    >>> from perfstats import predict_regression
    >>> from perfstats.system.queueing import OpenNetwork, Station
    >>> model = OpenNetwork(
    ...     [Station("gateway", demands={"browse": 0.002}),
    ...      Station("catalogue", demands={"browse": 0.010})],
    ...     arrival_rates={"browse": 50.0},
    ... )
    >>> res = predict_regression(model, {"catalogue": 1.5}, n_requests=5_000, rng=1)
    >>> res.regression, res.magnitude, res.mpd > 0
    (True, 'medium', True)
    >>> predict_regression(model, {"catalogue": 1.0}, n_requests=5_000, rng=1).regression
    False
    """
    n, changed_model, changed = _predict_regression_iv(model, demand_factors, n_requests, alpha)
    seed = int(as_generator(rng).integers(0, 2**31 - 1))
    n, saturated, load = _run_length(changed_model, n)
    before = model.simulate(n_requests=n, rng=seed)
    after = changed_model.simulate(n_requests=n, rng=seed) if changed else before
    x, y = before.all_response_times(), after.all_response_times()
    test = wilcoxon_ranksum(y, x)
    effect = cliffs_delta(y, x)
    mean_before, mean_after = float(x.mean()), float(y.mean())
    mpd = mean_after - mean_before
    by_class_mpd, by_class_delta, by_class_p, slower_classes = _class_effects(before, after, alpha)
    overall = bool(test.pvalue < alpha and not effect.negligible and effect.delta > 0)
    # Requests of classes that never visit a changed station dilute the pooled
    # effect: a class whose own requests are clearly slower is a regression
    # even when the mix as a whole looks negligibly changed.
    regression = overall or (bool(per_class) and bool(slower_classes))
    rel = mpd / mean_before if mean_before > 0 else float(np.inf)
    return RegressionPrediction(
        regression=regression,
        reason=_reason(
            regression,
            test.pvalue,
            alpha,
            effect.delta,
            effect.magnitude,
            mpd,
            rel,
            changed,
            saturated,
            load,
            slower_classes if per_class and not overall else [],
            by_class_mpd,
            by_class_delta,
        ),
        pvalue=test.pvalue,
        cliffs_delta=effect.delta,
        magnitude=effect.magnitude,
        mpd=mpd,
        relative_mpd=rel,
        mpd_by_class=by_class_mpd,
        cliffs_delta_by_class=by_class_delta,
        pvalue_by_class=by_class_p,
        cpu_mpd={k: after.cpu_percent[k] - v for k, v in before.cpu_percent.items()},
        cpu_before=before.cpu_percent,
        cpu_after=after.cpu_percent,
        mean_before=mean_before,
        mean_after=mean_after,
        saturated=saturated,
        demand_factors=demand_factors,
        n_requests=n,
        alpha=float(alpha),
        before=before,
        after=after,
    )


def _predict_regression_iv(
    model: Any, demand_factors: Any, n_requests: Any, alpha: Any
) -> tuple[int, OpenNetwork | ClosedNetwork, bool]:
    """Validate :func:`predict_regression`'s arguments.

    Returns the requests to simulate, the changed model (an open one may be
    unstable: it is simulated, not solved) and whether any demand changed.
    """
    if not isinstance(model, (OpenNetwork, ClosedNetwork)):
        raise ValueError(
            f"model must be a perfstats.system.queueing OpenNetwork or ClosedNetwork, "
            f"got {type(model).__name__}"
        )
    n = check_requests(n_requests)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    changed_model = model.with_demand_factors(demand_factors, allow_unstable=True)
    changed = any(
        a.demands != b.demands for a, b in zip(model.stations, changed_model.stations, strict=True)
    )
    return n, changed_model, changed


def _run_length(
    changed_model: OpenNetwork | ClosedNetwork, n: int
) -> tuple[int, tuple[str, ...], dict[str, float]]:
    """Requests per version, the stations the change saturates, and their loads."""
    if not isinstance(changed_model, OpenNetwork):
        return n, (), {}
    load = changed_model.stability_load()
    saturated = tuple(k for k, u in load.items() if u >= 1.0)
    if saturated:
        # Both versions over the same, shorter run, so that the common random
        # numbers still pair their requests.
        n = _saturated_requests(n, load)
    return n, saturated, load


def _class_effects(
    before: SimulationResult, after: SimulationResult, alpha: float
) -> tuple[dict[str, float], dict[str, float], dict[str, float], list[str]]:
    """Per request class: MPD, Cliff's delta, p-value; and the classes clearly slower."""
    by_class_mpd: dict[str, float] = {}
    by_class_delta: dict[str, float] = {}
    by_class_p: dict[str, float] = {}
    slower_classes: list[str] = []
    for cls, xs in before.response_times.items():
        ys = after.response_times[cls]
        if xs.size == 0 or ys.size == 0:
            by_class_mpd[cls] = by_class_delta[cls] = by_class_p[cls] = float("nan")
            continue
        class_effect = cliffs_delta(ys, xs)
        by_class_mpd[cls] = float(ys.mean() - xs.mean())
        by_class_delta[cls] = class_effect.delta
        by_class_p[cls] = wilcoxon_ranksum(ys, xs).pvalue
        if by_class_p[cls] < alpha and not class_effect.negligible and class_effect.delta > 0:
            slower_classes.append(cls)
    return by_class_mpd, by_class_delta, by_class_p, slower_classes
