"""The stop trajectory of a run or replay: the rule's criterion against n.

Every rule puts the number it judges in its decision's ``details``; this
module reads it back (:func:`criterion`) and draws it against the number of
runs, with the rule's threshold and the point where it first said stop.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._validation import as_sample, check_int
from ..replay.engine import judgement_grid
from ..rules.base import Rule
from ..rules.decision import Decision
from ._axes import color, figure_and_axes, shared_ax_doc
from ._format import plain_log_axis

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


@dataclass(frozen=True)
class Criterion:
    """What a decision judged: named values, the threshold, and which side stops.

    Parameters
    ----------
    label : str
        What the values are (the trajectory's y-axis label).
    values : Mapping[str, float]
        One value per series, e.g. ``{"P25": 0.013, "P50": 0.008}``;
        ``inf`` where the rule could not bound it yet.
    threshold : float
        The rule's threshold on the values.
    stop_above : bool
        True when a rule stops once the values reach the threshold from
        below (a similarity), False when they must fall under it (a width).

    Examples
    --------
    >>> from perfstats import Decision
    >>> from perfstats.plots import criterion
    >>> d = Decision(False, 20, "PT4Cloud", "...", {"similarity": 0.7, "threshold": 0.9})
    >>> criterion(d)
    Criterion(label='similarity of previous and current runs', values={'similarity': 0.7}, \
threshold=0.9, stop_above=True)
    """

    label: str
    values: Mapping[str, float]
    threshold: float
    stop_above: bool = False


# details key of the judged value -> (label, details key of the threshold,
# stop_above); the SuperFlow layout (one interval per percentile) is read
# separately.
_SINGLE: dict[str, tuple[str, str, bool]] = {
    "change": ("bootstrapped relative change", "error", False),
    "similarity": ("similarity of previous and current runs", "threshold", True),
    "relative_half_width": ("CI half-width / mean", "threshold", False),
    "ks": ("KS distance between halves", "threshold", False),
    "rel_error": ("CI reach / estimate", "error", False),
    "spread": ("spread of the last CoV values", "threshold", False),
}


def _number(value: Any) -> float:
    # Records keep non-finite floats as the strings "inf" and "nan" (JSON has
    # no such numbers); float() reads both forms back.
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _fields(decision: Decision | Mapping[str, Any]) -> tuple[int, bool, str, Mapping[str, Any]]:
    if isinstance(decision, Decision):
        return decision.n, decision.stop, decision.rule, decision.details
    if isinstance(decision, Mapping) and "n" in decision and "stop" in decision:
        details = decision.get("details") or {}
        return int(decision["n"]), bool(decision["stop"]), str(decision.get("rule", "")), details
    raise ValueError(
        "each decision must be a perfstats.Decision or its to_dict() form "
        f"(with 'n', 'stop' and 'details'); got {type(decision).__name__}"
    )


def criterion(decision: Decision | Mapping[str, Any]) -> Criterion | None:
    """The judged value(s) and threshold of a decision, or None if it has none.

    Decisions that only wait (too few runs, between checks) and rules
    without a threshold (:class:`~perfstats.rules.Fixed`) have none.

    Parameters
    ----------
    decision : Decision or mapping
        A decision, or its :meth:`~perfstats.Decision.to_dict` form as kept
        in a run's metadata.

    Returns
    -------
    Criterion or None
        The values the decision judged, its threshold and which side of it
        stops; None when the decision's ``details`` hold no judged value.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.plots import criterion
    >>> from perfstats.rules import SuperFlow
    >>> x = np.random.default_rng(0).normal(100.0, 1.0, size=200)
    >>> c = criterion(SuperFlow().check(x))
    >>> sorted(c.values), c.threshold, c.stop_above
    (['P25', 'P50', 'P75'], 0.01, False)
    """
    _, _, _, details = _fields(decision)
    current = details.get("current")
    if isinstance(current, Mapping) and "error" in details:
        values = {
            str(name): _number(iv.get("rel_error")) if isinstance(iv, Mapping) else math.nan
            for name, iv in current.items()
        }
        return Criterion("CI reach / percentile", values, _number(details["error"]), False)
    for key, (label, limit, above) in _SINGLE.items():
        if key in details and limit in details:
            return Criterion(label, {key: _number(details[key])}, _number(details[limit]), above)
    return None


def judgements(rule: Rule, data: Any, *, max_n: int | None = None) -> list[Decision]:
    """The rule's decision at every judgement size, without stopping at the first stop.

    The sizes are those a :class:`perfstats.Monitor` or
    :func:`perfstats.replay.replay` would judge (the multiples of
    ``rule.interval`` from ``rule.min_n`` on). Going past the first stop
    shows whether the rule would have stayed stopped.

    Parameters
    ----------
    rule : Rule
        Any rule of :mod:`perfstats.rules`.
    data : array_like
        Measurements in collection order.
    max_n : int, optional
        Judge no more than this many runs.

    Returns
    -------
    list of Decision
        One decision per judgement size, in increasing order of ``n``, each
        made on the first ``n`` measurements; empty when there are fewer
        measurements than the first size.

    Examples
    --------
    >>> from perfstats.plots import judgements
    >>> from perfstats.rules import Fixed
    >>> [d.stop for d in judgements(Fixed(n=3), range(1, 10))]
    [True, True, True]
    """
    if not isinstance(rule, Rule):
        raise ValueError(f"rule must be a perfstats.rules.Rule, got {type(rule).__name__}")
    x = as_sample(data, "data")
    available = x.size if max_n is None else min(x.size, check_int(max_n, "max_n"))
    return [rule.check(x[:n]) for n in judgement_grid(rule, available)]


def _decisions(history: Any) -> list[Decision | Mapping[str, Any]]:
    # A Monitor or a RunResult carries its history; take it from them.
    source = getattr(history, "history", history)
    if isinstance(source, (str, bytes)) or not isinstance(source, Iterable):
        raise ValueError(
            "history must be a sequence of decisions (or have .history); "
            f"got {type(history).__name__}"
        )
    return list(source)


@shared_ax_doc
def trajectory(
    history: Sequence[Decision | Mapping[str, Any]] | Any,
    *,
    log: bool | None = None,
    ax: Axes | None = None,
) -> Figure:
    """Plot a rule's criterion against the number of runs, with threshold and stop point.

    For SuperFlow the criterion is, per percentile, how far its confidence
    interval reaches from the estimate relative to it (it must fall under
    the error ``r``); for Metior the bootstrapped relative change; for
    PT4Cloud the similarity (it must rise above ``p0``); for the SHARP and
    baseline rules their CI widths, KS distance or CoV spread. Values the
    rule could not bound yet (an unbounded interval) are marked with
    triangles at the top. The first stop is a vertical line.

    Parameters
    ----------
    history : sequence of Decision or of their dict form, or an object with ``.history``
        The decisions in order: ``Monitor.history``, a ``RunResult``, a run's
        metadata ``sessions[-1]["history"]``, or :func:`judgements` of a
        replayed trace.
    log : bool, optional
        Logarithmic y axis; default: when the values fall under their
        threshold to stop and span more than a factor of 20.
    {ax_and_returns}

    Raises
    ------
    ValueError
        When ``history`` holds no decision.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import Monitor, plots
    >>> from perfstats.rules import SuperFlow
    >>> x = np.random.default_rng(0).lognormal(3.0, 0.2, size=2000)
    >>> monitor = Monitor(SuperFlow(error=0.02))
    >>> monitor.add(x).stop
    True
    >>> fig = plots.trajectory(monitor)
    >>> fig.axes[0].get_xlabel()
    'runs (n)'
    """
    raw = _decisions(history)
    decisions = [_fields(d) for d in raw]
    if not decisions:
        raise ValueError("history holds no decision")
    fig, axes = figure_and_axes(ax, (7.0, 3.6))
    judged = [(n, stop, criterion(d)) for (n, stop, _, _), d in zip(decisions, raw, strict=True)]
    points = [(n, c) for n, _, c in judged if c is not None]
    rule = next((name for _, _, name, _ in decisions if name), "rule")
    if points:
        label = points[-1][1].label
        threshold = points[-1][1].threshold
        stop_above = points[-1][1].stop_above
        names = list(dict.fromkeys(k for _, c in points for k in c.values))
        finite: list[float] = []
        unbounded_label = "not bounded yet"
        for i, name in enumerate(names):
            ns = np.array([n for n, c in points if name in c.values], dtype=float)
            vs = np.array([c.values[name] for _, c in points if name in c.values], dtype=float)
            ok = np.isfinite(vs)
            finite.extend(vs[ok].tolist())
            axes.plot(ns[ok], vs[ok], marker=".", color=color(i), label=name, linewidth=1.2)
            if (~ok).any():
                axes.plot(
                    ns[~ok],
                    np.full(int((~ok).sum()), 0.97),
                    transform=axes.get_xaxis_transform(),
                    linestyle="none",
                    marker="^",
                    color=color(i),
                    alpha=0.6,
                    label=unbounded_label,
                )
                # One legend entry says what the triangles mean.
                unbounded_label = "_nolegend_"
        if math.isfinite(threshold):
            axes.axhline(threshold, color="black", linestyle="--", linewidth=1,
                         label=f"threshold {threshold:g}")  # fmt: skip
            finite.append(threshold)
        positive = [v for v in finite if v > 0]
        if log is None:
            log = (
                not stop_above
                and len(positive) == len(finite)
                and bool(positive)
                and max(positive) / min(positive) > 20
            )
        if log:
            plain_log_axis(axes.yaxis)
        axes.set_ylabel(label)
    else:
        # No criterion (e.g. Fixed): show when the rule was consulted.
        ns = np.array([n for n, _, _ in judged], dtype=float)
        axes.plot(ns, np.zeros(ns.size), linestyle="none", marker="|", color=color(0),
                  markersize=12, label="judgements")  # fmt: skip
        axes.set_yticks([])
    stops = [(n, d) for (n, stop, _, d) in decisions if stop]
    if stops:
        n_stop, details = stops[0]
        ran_out = bool(details.get("max_n_reached", False))
        axes.axvline(
            n_stop,
            color="#D55E00",
            linewidth=1.5,
            label=f"{'max_n reached' if ran_out else 'stop'} at n={n_stop}",
        )
    axes.set_xlabel("runs (n)")
    axes.set_title(f"{rule}: {len(decisions)} judgements", fontsize="medium")
    axes.legend(fontsize="small", frameon=False)
    return fig


__all__ = ["Criterion", "criterion", "judgements", "trajectory"]
