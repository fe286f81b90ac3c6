"""Why a run ended at its cap (``max_n`` or ``max_seconds``) before its rule stopped.

A run that ends at its cap has not reached the precision its rule asks
for. Saying only that (the rule's last reason) leaves the user guessing
whether the tool or the data is at fault; :func:`diagnose_cap` reads the
judged runs with :func:`perfstats.characterize` and names the kind of data
that holds the rule back, with what helps for that kind. ``perfstats run``
prints the diagnosis in its final lines; :meth:`CapDiagnosis.lines` is that
wording (command-line options name the remedies).

The kinds, checked in this order (the first that fits is the main one):

* **too few runs**: the rule could not yet bound its interval or has not
  reached its own minimum of runs;
* **modes**: several confirmed modes, with no level change over time that
  would explain them (the runs alternate between levels: a process's speed
  depends on where it runs); a quantile between two modes narrows slowly,
  because few runs fall near it;
* **autocorrelated**: the lag-1 autocorrelation left after removing the
  level changes is at least :data:`STRONG_LAG1`; neighbouring runs repeat
  each other, so each adds less than an independent run;
* **level change**: the level moved during the run (a warm-up, a slow-down,
  or no steady state: :func:`perfstats.characterize`);
* **spread**: none of these: the runs are simply too spread for the
  rule's error in the runs it had.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

import numpy as np

from perfstats import acf, characterize
from perfstats.characterization import Characterization

from .result import RunResult

#: How the run must have ended for a diagnosis.
CAPS = ("max_n", "max_seconds")
#: Lag-1 autocorrelation, after the level changes are removed, called strong.
STRONG_LAG1 = 0.5
#: A rule's quantile this close to the share of runs below a valley between
#: two modes sits between those modes.
_NEAR_VALLEY = 0.1
#: Looser errors suggested, the first above the widest interval reached.
_LOOSER = (0.001, 0.002, 0.003, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.5)
#: Phrases of the rules' reasons (perfstats.rules._wording and Rule.check)
#: that mean the runs were too few for the rule to judge.
_TOO_FEW = ("unbounded", "needs at least", "no judgement yet")
_COUNT_WORDS = {2: "two", 3: "three", 4: "four", 5: "five"}

KINDS = ("too few runs", "modes", "autocorrelated", "level change", "spread")


@dataclass(frozen=True)
class CapDiagnosis:
    """What held a capped run's rule back, from its judged runs.

    Attributes
    ----------
    kind : str
        One of :data:`KINDS`.
    stopped_by : str
        ``"max_n"`` or ``"max_seconds"``.
    n : int
        Judged runs.
    characterization : Characterization or None
        :func:`perfstats.characterize` of the judged runs (None below five).
    residual_lag1 : float
        Lag-1 autocorrelation of the runs less their segment means.
    mode_shares : tuple of float
        Share of the runs nearest each confirmed mode.
    between : tuple of str
        The rule's quantiles that sit between two modes (``"P50"``).
    widest_error : float or None
        The widest relative error among the rule's last intervals, when the
        rule reports them.
    spread : float
        The interquartile range of the runs over their median.
    options : dict
        What the remedies refer to: the rule's ``error`` or ``threshold``
        option, whether the target is a local command and already pinned.

    Examples
    --------
    >>> from perfstats.adapters.driver.cap import CapDiagnosis
    >>> d = CapDiagnosis("too few runs", "max_n", 10, None, options={"error": 0.01})
    >>> for line in d.lines():
    ...     print(line)
    why it ended at max_n: 10 runs are too few for the rule: it could not yet bound its \
interval (or reach its own minimum of runs)
    what you can do: raise --max-n
    """

    kind: str
    stopped_by: str
    n: int
    characterization: Characterization | None
    residual_lag1: float = math.nan
    mode_shares: tuple[float, ...] = ()
    between: tuple[str, ...] = ()
    widest_error: float | None = None
    spread: float = math.nan
    options: Mapping[str, Any] = field(default_factory=dict)

    def why(self, show: Callable[[float], str] = lambda v: f"{v:.4g}") -> str:
        """The kind of data, in its own numbers (values shown with ``show``)."""
        c = self.characterization
        if self.kind == "too few runs" or c is None:
            return (
                f"{self.n} runs are too few for the rule: it could not yet bound its "
                "interval (or reach its own minimum of runs)"
            )
        if self.kind == "modes":
            count = _COUNT_WORDS.get(c.n_modes, str(c.n_modes))
            where = _and([show(v) for v in c.mode_locations])
            shares = _and([f"{100 * s:.0f}%" for s in self.mode_shares])
            what = (
                f"a quantile between modes ({_and(list(self.between))} here) converges slowly"
                if self.between
                else "a statistic of runs that alternate between levels converges slowly"
            )
            return (
                f"{count} modes, {where} ({shares} of the runs), alternating from run "
                f"to run rather than one after the other: {what}"
            )
        if self.kind == "autocorrelated":
            return (
                f"strong autocorrelation (lag-1 {self.residual_lag1:.2f} apart from level "
                "changes): neighbouring runs repeat each other, so each adds less than "
                "an independent run"
            )
        if self.kind == "level change":
            return _level_change(c, show)
        return (
            f"one mode, steady, runs nearly independent (lag-1 {c.lag1:.2f}); the middle "
            f"half of the runs spans {100 * self.spread:.1f}% of the median, too wide for "
            f"the rule's error in {self.n} runs"
        )

    def remedies(self) -> list[str]:
        """What the user can do, as ``perfstats run`` options."""
        loosen = self._loosen()
        more = "raise --max-n" if self.stopped_by == "max_n" else "raise --max-seconds"
        if self.kind == "too few runs":
            return [more]
        found: list[str] = []
        if self.kind == "modes":
            if self.options.get("command") and not self.options.get("pinned"):
                found.append("if the modes are by CPU, pin the command to one (-t cpus=[N])")
            found += [loosen, more, "--rule gmm judges the mixture instead of one quantile"]
        elif self.kind == "autocorrelated":
            found += [
                "space the runs (--spacing S)",
                more,
                "--rule block-means allows for correlated runs",
                loosen,
            ]
        elif self.kind == "level change":
            c = self.characterization
            if c is not None and c.steady_state == "warm-up":
                found.append("discard the warm-up (--warmup auto)")
            found += ["run it again when the machine is quiet", more, loosen]
        else:
            found += [loosen, more]
        return [r for r in found if r]

    def lines(self, show: Callable[[float], str] = lambda v: f"{v:.4g}") -> list[str]:
        """The final lines of ``perfstats run``: why, and what to do."""
        cap = "max_n" if self.stopped_by == "max_n" else "max_seconds"
        return [
            f"why it ended at {cap}: {self.why(show)}",
            f"what you can do: {'; '.join(self.remedies())}",
        ]

    def to_dict(self) -> dict[str, Any]:
        """Plain data (for JSON output)."""
        c = self.characterization
        return {
            "kind": self.kind,
            "why": self.why(),
            "remedies": self.remedies(),
            "n": self.n,
            "residual_lag1": None if math.isnan(self.residual_lag1) else self.residual_lag1,
            "mode_shares": list(self.mode_shares),
            "between": list(self.between),
            "widest_error": self.widest_error,
            "spread": None if math.isnan(self.spread) else self.spread,
            "characterization": None if c is None else c.to_dict(),
        }

    def _loosen(self) -> str:
        error = self.options.get("error")
        if isinstance(error, (int, float)) and not isinstance(error, bool):
            reached = self.widest_error
            wider = [e for e in _LOOSER if e > max(float(error), reached or 0.0)]
            suggestion = f"{wider[0]:g}" if wider else "a larger value"
            widest = f"; its widest interval reached {reached:.1%}" if reached else ""
            return f"loosen the rule (--rule-option error={suggestion}{widest})"
        if self.options.get("threshold") is not None:
            # Which way is looser depends on the rule (a probability for PT4Cloud).
            return "loosen the rule's threshold (--rule-option threshold=...)"
        return ""


def diagnose_cap(result: RunResult, series: str | None = None) -> CapDiagnosis | None:
    """Why a run ended at its cap, or None when its rule stopped it (or it failed).

    Parameters
    ----------
    result : RunResult
        What :func:`perfstats.adapters.run` returned.
    series : str, optional
        For a run over several series, the series to diagnose (default:
        the run's own decision's series if it reached the cap, else the
        first series that did); None is returned for a series that did
        not reach the cap.

    Returns
    -------
    CapDiagnosis or None

    Examples
    --------
    >>> import sys
    >>> from perfstats.adapters import Command, run
    >>> from perfstats.adapters.driver.cap import diagnose_cap
    >>> code = "import random; print(f't={random.choice([10, 20]) + random.random()}')"
    >>> target = Command([sys.executable, "-c", code], regex=r"t=([\\d.]+)", unit="ms")
    >>> result = run(target, "superflow", max_n=60, progress=False, rng=1)
    >>> result.stopped_by, diagnose_cap(result).kind
    ('max_n', 'modes')
    """
    if result.stopped_by not in CAPS:
        return None
    x = result.values
    decision = result.decision
    if result.decisions:
        if series is None and not decision.details.get("max_n_reached") and result.capped:
            series = result.capped[0]
        if series is not None:
            if result.stopped_by == "max_n" and series not in result.capped:
                return None
            x = result.series_values(series)
            decision = result.decisions[series]
    reason = str(decision.details.get("rule_reason", decision.reason))
    rule = result.metadata.get("rule") or {}
    target = result.metadata.get("target") or {}
    config = rule.get("config") or {}
    options = {
        "error": config.get("error"),
        "threshold": config.get("threshold"),
        "command": target.get("kind") == "command",
        "pinned": target.get("cpus") is not None,
    }
    common = {
        "stopped_by": result.stopped_by,
        "n": int(x.size),
        "widest_error": _widest_error(decision.details),
        "spread": _spread(x),
        "options": options,
    }
    if x.size < 5 or any(p in reason for p in _TOO_FEW):
        c = characterize(x) if x.size >= 5 else None
        return CapDiagnosis(kind="too few runs", characterization=c, **common)  # type: ignore[arg-type]
    c = characterize(x)
    residual = _residual_lag1(x, c)
    shares = _mode_shares(x, c)
    kind = "spread"
    between: tuple[str, ...] = ()
    if c.n_modes > 1 and not _shifted(c):
        kind = "modes"
        between = _between(shares, config)
    elif residual >= STRONG_LAG1:
        kind = "autocorrelated"
    elif _shifted(c):
        kind = "level change"
    return CapDiagnosis(
        kind=kind,
        characterization=c,
        residual_lag1=residual,
        mode_shares=shares,
        between=between,
        **common,  # type: ignore[arg-type]
    )


def _shifted(c: Characterization) -> bool:
    """The level moved during the run (not one flat steady state)."""
    return c.steady_state != "flat"


def _residual_lag1(x: np.ndarray, c: Characterization) -> float:
    """Lag-1 autocorrelation of the runs less the mean of their segment."""
    bounds = (0, *c.change_points, x.size)
    centred = x.copy()
    for (a, b), mean in zip(pairwise(bounds), c.segment_means, strict=True):
        centred[a:b] -= mean
    if float(np.ptp(centred)) == 0.0:
        return math.nan
    return float(acf(centred, nlags=1)[1])


def _mode_shares(x: np.ndarray, c: Characterization) -> tuple[float, ...]:
    """Share of the runs nearest each confirmed mode."""
    where = np.asarray(c.mode_locations, dtype=np.float64)
    if where.size < 2:
        return (1.0,) if where.size else ()
    nearest = np.argmin(np.abs(x[:, None] - where[None, :]), axis=1)
    return tuple(float(np.mean(nearest == i)) for i in range(where.size))


def _between(shares: tuple[float, ...], config: Mapping[str, Any]) -> tuple[str, ...]:
    """The rule's quantiles near the share of runs below a valley between modes."""
    asked = config.get("q", config.get("statistic"))
    if asked == "median":
        asked = 0.5
    qs = asked if isinstance(asked, (list, tuple)) else [asked]
    qs = [q for q in qs if isinstance(q, (int, float)) and not isinstance(q, bool)]
    valleys = np.cumsum(shares)[:-1]
    return tuple(f"P{100 * q:g}" for q in qs if any(abs(q - v) <= _NEAR_VALLEY for v in valleys))


def _widest_error(details: Mapping[str, Any]) -> float | None:
    """The largest finite ``rel_error`` anywhere in a decision's details."""
    found: list[float] = []

    def walk(node: Any) -> None:
        if isinstance(node, Mapping):
            for key, value in node.items():
                if key == "rel_error" and isinstance(value, (int, float)) and math.isfinite(value):
                    found.append(float(value))
                else:
                    walk(value)
        elif isinstance(node, (list, tuple)):
            for item in node:
                walk(item)

    walk(details)
    return max(found) if found else None


def _spread(x: np.ndarray) -> float:
    if x.size < 2:
        return math.nan
    q25, q50, q75 = np.quantile(x, [0.25, 0.5, 0.75])
    return float((q75 - q25) / abs(q50)) if q50 else math.inf


def _level_change(c: Characterization, show: Callable[[float], str]) -> str:
    means = c.segment_means
    bounds = (0, *c.change_points, c.n)
    first = f"{show(means[0])} (runs 1-{bounds[1]})"
    last = f"{show(means[-1])} (runs {bounds[-2] + 1}-{c.n})"
    changes = len(c.change_points)
    what = {
        "warm-up": "the first runs were slower (a warm-up, or load on the machine that eased)",
        "slow-down": "the runs became slower (a slow-down, or load on the machine that grew)",
        "no steady state": "no steady state: the level was still moving at the end",
    }.get(c.steady_state, "the level moved")
    return (
        f"{what}; {changes} level change{'s' if changes != 1 else ''}, "
        f"from {first} to {last}; an interval over runs of several levels does not settle"
    )


def _and(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
