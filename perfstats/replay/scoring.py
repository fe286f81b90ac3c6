"""Score stop points against ground truth with the papers' metrics.

* **Accuracy** (PT4Cloud; SuperFlow's evaluation, Wen et al. 2023 Section 3.3): the
  similarity probability :func:`perfstats.comparison.similarity.kl_similarity` between
  the runs a test used and the ground truth; 1 means the same distribution.
* **Credibility** at a percentile (SuperFlow, after Le Boudec): the test's
  percentile lies strictly inside the ground truth's 95% confidence interval
  of that percentile, computed with SuperFlow 1's order-statistic ranks.
* **Relative error** of a point statistic (Metior, Equation 1):
  ``|result - truth| / |truth|``; a test is accurate when it is below the
  allowed error.
* **Cost**: runs used per test.
* **Distance to the whole trace** (SHARP's evaluation, Mittal et al. Section
  V-C, "protocol C"): the Kolmogorov-Smirnov distance and the relative
  difference of the means (the NAMD of a sample and its trace,
  ``|mean(used) - mean(all)| / mean(all)``) between the runs a test used and
  the whole trace, and the share of the trace's runs it saved.

:func:`score_distribution` and :func:`score_estimate` apply these to the
frame :func:`perfstats.replay.replay` returns.

References
----------
.. [He2019] He et al., "A Statistics-Based Performance Testing Methodology for Cloud
   Applications" (PT4Cloud), ESEC/FSE 2019; see the References of
   :mod:`perfstats.rules.pt4cloud`.
.. [He2021] He et al., "Performance Testing for Cloud Computing with Dependent Data
   Bootstrapping" (Metior), ASE 2021; see the References of :mod:`perfstats.rules.metior`.
.. [Mittal] Mittal et al., "SHARP: A Distribution-Based Framework for Reproducible
   Performance Evaluation", manuscript (undated); see the References of
   :mod:`perfstats.rules.sharp`.
.. [Wen2023] Wen et al., "SuperFlow: Performance Testing for Serverless Computing",
   arXiv:2306.01620, 2023; see the References of :mod:`perfstats.rules.superflow`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._deprecation import renamed
from .._quantiles import Statistic, parse_quantiles, parse_statistic, point_estimate
from .._validation import as_sample, check_level, check_positive
from ..comparison.similarity import kl_similarity, ks
from ..precision.interval import percentile_ci
from ._traces import lookup_trace, named_traces


def accuracy(result: Any, truth: Any, *, grid: int = 1000) -> float:
    """PT4Cloud accuracy: similarity probability of ``result`` to ``truth``.

    Parameters
    ----------
    result : array_like
        The runs a test used.
    truth : array_like
        Ground-truth runs (SuperFlow: all 1,000 runs of the function).
    grid : int, default 1000
        Grid points of the KDE comparison.

    Returns
    -------
    float
        In [0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.replay.scoring import accuracy
    >>> x = np.random.default_rng(0).lognormal(size=1000)
    >>> accuracy(x[:500], x) > 0.9
    True
    """
    return kl_similarity(result, truth, grid=grid)


def credible(result: Any, truth: Any, q: Any, *, level: float = 0.95) -> bool | tuple[bool, ...]:
    """Whether each percentile of ``result`` lies strictly inside the truth's CI of it.

    The interval is the order-statistic interval with the normal
    approximation of the ranks (``method="order-normal"``), as SuperFlow's
    evaluation computes it; a percentile on a bound does not count.

    Parameters
    ----------
    result : array_like
        The runs a test used.
    truth : array_like
        Ground-truth runs.
    q : float or sequence of float
        Percentile(s) as fractions, e.g. ``[0.25, 0.5, 0.75, 0.9]``.
    level : float, default 0.95
        Confidence level of the truth's interval.

    Returns
    -------
    bool or tuple of bool
        One verdict per quantile (a bool for a scalar ``q``).

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.replay.scoring import credible
    >>> x = np.random.default_rng(0).normal(100.0, 10.0, size=1000)
    >>> credible(x[:800], x, [0.5, 0.9])
    (True, True)
    >>> credible(x[:800] + 5.0, x, 0.5)
    False
    """
    x = as_sample(result, "result")
    qs, scalar = parse_quantiles(q, "q")
    intervals = percentile_ci(truth, qs, level=check_level(level), method="order-normal")
    estimates = np.quantile(x, qs)
    verdicts = tuple(
        bool(iv.low < float(e) < iv.high) for iv, e in zip(intervals, estimates, strict=True)
    )
    return verdicts[0] if scalar else verdicts


def relative_error(result: Any, truth: Any, *, statistic: Statistic = "mean") -> float:
    """``|stat(result) - stat(truth)| / |stat(truth)|`` (Metior, Equation 1).

    Parameters
    ----------
    result, truth : array_like
        The runs a test used, and the ground-truth runs.
    statistic : {"mean", "median"} or float, default "mean"
        A float is a quantile in (0, 1); ``"p90"`` also works.

    Returns
    -------
    float
        ``inf`` when the truth's statistic is 0 and the result's is not.

    Examples
    --------
    >>> from perfstats.replay.scoring import relative_error
    >>> relative_error([99.0, 101.0, 103.0], [100.0, 100.0], statistic="mean")
    0.01
    """
    stat = parse_statistic(statistic, strict=True)
    got = point_estimate(as_sample(result, "result"), stat)
    want = point_estimate(as_sample(truth, "truth"), stat)
    if want == 0.0:
        return 0.0 if got == 0.0 else math.inf
    return abs(got - want) / abs(want)


def cost(stops: pd.DataFrame) -> float:
    """Mean runs per test (the ``stop_n`` column of a replay).

    Parameters
    ----------
    stops : pandas.DataFrame
        The frame of :func:`perfstats.replay.replay` (any frame with a
        ``stop_n`` column), at least one row.

    Returns
    -------
    float
        The mean of ``stop_n``: the runs a test used on average, including
        the runs charged to tests that never stopped.

    Raises
    ------
    ValueError
        If ``stops`` has no ``stop_n`` column or no rows.

    Examples
    --------
    >>> import pandas as pd
    >>> from perfstats.replay.scoring import cost
    >>> cost(pd.DataFrame({"stop_n": [10, 20, 60]}))
    30.0
    """
    if "stop_n" not in stops.columns or len(stops) == 0:
        raise ValueError("stops must be a non-empty replay frame with a 'stop_n' column")
    return float(stops["stop_n"].mean())


@renamed(quantiles="q")
def score_distribution(
    stops: pd.DataFrame,
    traces: Mapping[str, Any] | Sequence[Any],
    *,
    truths: Mapping[str, Any] | Sequence[Any] | None = None,
    q: float | str | Sequence[float | str] = (0.25, 0.5, 0.75, 0.9),
    level: float = 0.95,
) -> pd.DataFrame:
    """Add accuracy and credibility columns to a replay frame (SuperFlow's metrics).

    Each test's runs are ``traces[trace][start : start + stop_n]``.

    Parameters
    ----------
    stops : pandas.DataFrame
        The frame of :func:`perfstats.replay.replay`.
    traces : mapping of str to array_like, or sequence of array_like
        The traces that were replayed, by the names in ``stops["trace"]``
        (a sequence is named ``"0"``, ``"1"``, ... by position, as
        :func:`perfstats.replay.replay` names it).
    truths : mapping of str to array_like, or sequence of array_like, optional
        Ground truth per trace, named as ``traces`` (default: the whole
        trace, as in SuperFlow).
    q : quantile or sequence of quantiles, default (0.25, 0.5, 0.75, 0.9)
        Percentiles whose credibility is scored, in any spelling of
        :mod:`perfstats._quantiles` (``0.9``, ``"p90"``).
    level : float, default 0.95
        Level of the truth's intervals.

    Returns
    -------
    pandas.DataFrame
        A copy of ``stops`` with ``accuracy`` and one boolean column
        ``credible_P25``, ``credible_P50``, ... per quantile.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from perfstats.replay.scoring import score_distribution
    >>> x = np.random.default_rng(0).normal(100.0, 10.0, size=1000)
    >>> stops = pd.DataFrame({"trace": ["a"], "start": [0], "stop_n": [900]})
    >>> scored = score_distribution(stops, {"a": x}, q=[0.5])
    >>> list(scored.columns[-2:]), bool(scored.loc[0, "credible_P50"])
    (['accuracy', 'credible_P50'], True)
    """
    qs, _ = parse_quantiles(q, "q")
    lvl = check_level(level)
    names = [f"credible_P{100.0 * q:g}" for q in qs]
    acc: list[float] = []
    cred: list[tuple[bool, ...]] = []
    table = named_traces(traces)
    truth_table = None if truths is None else named_traces(truths)
    for trace, start, stop_n in _tests(stops):
        x = as_sample(lookup_trace(table, trace), f"traces[{trace!r}]")
        truth = x if truth_table is None else lookup_trace(truth_table, trace, "truths")
        used = x[start : start + stop_n]
        acc.append(accuracy(used, truth))
        verdicts = credible(used, truth, qs, level=lvl)
        assert isinstance(verdicts, tuple)
        cred.append(verdicts)
    out = stops.copy()
    out["accuracy"] = acc
    for j, name in enumerate(names):
        out[name] = [row[j] for row in cred]
    return out


def score_estimate(
    stops: pd.DataFrame,
    traces: Mapping[str, Any] | Sequence[Any],
    truths: Mapping[str, Any] | Sequence[Any],
    *,
    statistic: Statistic = "mean",
    error: float = 0.03,
) -> pd.DataFrame:
    """Add Metior's point-estimate columns to a replay frame.

    Parameters
    ----------
    stops : pandas.DataFrame
        The frame of :func:`perfstats.replay.replay`; its ``trace``,
        ``start`` and ``stop_n`` columns say which runs each test used.
    traces : mapping of str to array_like, or sequence of array_like
        The traces that were replayed, by the names in ``stops["trace"]``
        (a sequence is named ``"0"``, ``"1"``, ... by position, as
        :func:`perfstats.replay.replay` names it).
    truths : mapping of str to array_like, or sequence of array_like
        Ground-truth runs per trace, named as ``traces`` (Metior: the last
        five weeks).
    statistic : {"mean", "median"} or float, default "mean"
        The performance result.
    error : float, default 0.03
        A test is accurate when its relative error is strictly below this.

    Returns
    -------
    pandas.DataFrame
        A copy of ``stops`` with ``result``, ``truth``, ``rel_error`` and
        ``accurate``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from perfstats.replay.scoring import score_estimate
    >>> x = np.array([100.0, 102.0, 98.0, 150.0])
    >>> stops = pd.DataFrame({"trace": ["a"], "start": [0], "stop_n": [3]})
    >>> score_estimate(stops, {"a": x}, {"a": [101.0]})[["result", "accurate"]]
       result  accurate
    0   100.0      True
    """
    stat = parse_statistic(statistic, strict=True)
    tol = check_positive(error, "error")
    truth_cache: dict[str, float] = {}
    results: list[float] = []
    wanted: list[float] = []
    table = named_traces(traces)
    truth_table = named_traces(truths)
    for trace, start, stop_n in _tests(stops):
        if trace not in truth_cache:
            raw_truth = lookup_trace(truth_table, trace, "truths")
            truth_cache[trace] = point_estimate(as_sample(raw_truth, "truth"), stat)
        x = as_sample(lookup_trace(table, trace), f"traces[{trace!r}]")
        results.append(point_estimate(x[start : start + stop_n], stat))
        wanted.append(truth_cache[trace])
    out = stops.copy()
    got = np.asarray(results)
    want = np.asarray(wanted)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.abs(got - want) / np.abs(want)
    out["result"] = got
    out["truth"] = want
    out["rel_error"] = rel
    out["accurate"] = rel < tol
    return out


def score_prefix(stops: pd.DataFrame, traces: Mapping[str, Any] | Sequence[Any]) -> pd.DataFrame:
    """Add SHARP's distances to the whole trace and the runs saved to a replay frame.

    Each test's runs ``traces[trace][start : start + stop_n]`` are compared
    with the whole trace ``traces[trace]``, as SHARP's evaluation does
    (Mittal et al., Section V-C; cited in this module's References).

    Parameters
    ----------
    stops : pandas.DataFrame
        As for :func:`score_distribution`.
    traces : mapping of str to array_like, or sequence of array_like
        As for :func:`score_distribution`; each is also the whole trace the
        test's runs are compared with.

    Returns
    -------
    pandas.DataFrame
        A copy of ``stops`` with ``ks`` (the two-sample KS statistic,
        :func:`perfstats.ks`), ``namd`` (``|mean(used) - mean(trace)| /
        |mean(trace)|``, :func:`relative_error` of the means) and ``saved``
        (``1 - stop_n / len(trace)``).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from perfstats.replay.scoring import score_prefix
    >>> x = np.array([10.0, 12.0, 11.0, 13.0, 30.0])
    >>> stops = pd.DataFrame({"trace": ["a"], "start": [0], "stop_n": [4]})
    >>> score_prefix(stops, {"a": x})[["ks", "namd", "saved"]].round(3)
        ks   namd  saved
    0  0.2  0.243    0.2
    """
    ks_values: list[float] = []
    namd_values: list[float] = []
    saved: list[float] = []
    table = named_traces(traces)
    for trace, start, stop_n in _tests(stops):
        x = as_sample(lookup_trace(table, trace), f"traces[{trace!r}]")
        used = x[start : start + stop_n]
        ks_values.append(ks(used, x).statistic)
        namd_values.append(relative_error(used, x, statistic="mean"))
        saved.append(1.0 - stop_n / x.size)
    out = stops.copy()
    out["ks"] = ks_values
    out["namd"] = namd_values
    out["saved"] = saved
    return out


def _tests(stops: pd.DataFrame) -> list[tuple[str, int, int]]:
    missing = {"trace", "start", "stop_n"} - set(stops.columns)
    if missing:
        raise ValueError(f"stops lacks the column(s) {sorted(missing)} of a replay frame")
    return [
        (str(t), int(s), int(n))
        for t, s, n in zip(stops["trace"], stops["start"], stops["stop_n"], strict=True)
    ]
