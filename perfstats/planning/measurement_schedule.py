"""Metior's measurement schedule: how long one run interval lasts, how often to run in it.

Metior (He et al., ASE 2021, Section III-C) runs the application under test
for one *interval* at a time and, inside it, only intermittently. Both are
chosen from pilot traces of continuous runs:

* the **interval** is the largest Politis-White (circular) block length
  over the traces, expressed as time and not rounded below, so that one more
  interval brings at least one new block of dependent runs (the paper: 24
  hours, hence one day);
* the **frequency** is lowered by thinning the traces (keeping one run per
  period) for as long as the lag-1 autocorrelation of every thinned trace
  stays within 0.1 of the original's; 0.1 is where a correlation is usually
  read as none (the paper: four runs per hour).
"""

from __future__ import annotations

import datetime
import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import FloatArray, as_sample, check_int, check_positive
from ..precision.autocorrelation import acf
from ..precision.blocklength import MIN_SIZE, optimal_block_length

__all__ = ["Schedule", "TraceSchedule", "schedule"]

#: Largest number of thinning phases averaged per candidate; beyond it the
#: phases are spread evenly over one period.
MAX_PHASES = 64
#: Most runs of a pilot whose thinning is judged: a longer pilot's thinning
#: evidence comes from its first this many runs (more if a candidate period
#: needs them to keep ``min_runs``), which bounds the work per candidate.
MAX_THINNING_RUNS = 100_000


@dataclass(frozen=True)
class TraceSchedule:
    """The evidence one pilot trace gives for the schedule.

    Parameters
    ----------
    name : str
        The trace's name (its key, or its position for a sequence).
    n : int
        Runs in the trace.
    sampling_interval_s : float
        Time between consecutive runs in seconds (the median gap for a
        time-indexed series).
    block_length : float
        Politis-White circular block length in runs (not rounded).
    block_s : float
        That block as time in seconds, ``max(1, ceil(block_length)) *
        sampling_interval_s``.
    acf1 : float
        Lag-1 autocorrelation of the whole trace.

    Examples
    --------
    >>> import math
    >>> import numpy as np
    >>> import perfstats
    >>> rng = np.random.default_rng(1)
    >>> x = np.repeat(rng.normal(size=100), 12) + 0.3 * rng.normal(size=1200)
    >>> t = perfstats.schedule({"pilot": x}, sampling_interval=300.0).traces[0]
    >>> t.name, t.n, t.sampling_interval_s
    ('pilot', 1200, 300.0)
    >>> t.block_s == math.ceil(t.block_length) * t.sampling_interval_s, t.acf1 > 0.5
    (True, True)
    """

    name: str
    n: int
    sampling_interval_s: float
    block_length: float
    block_s: float
    acf1: float

    def __repr__(self) -> str:
        return (
            f"TraceSchedule({self.name!r}: n={self.n}, every {_human(self.sampling_interval_s)}, "
            f"block {self.block_length:.3g} runs = {_human(self.block_s)}, acf1={self.acf1:.3f})"
        )


@dataclass(frozen=True)
class Schedule:
    """A measurement schedule chosen from pilot traces (Metior, Section III-C).

    Parameters
    ----------
    interval_s : float
        Length of one run interval in seconds: the largest block over the
        traces.
    period_s : float
        Time between two runs inside the interval, in seconds (the chosen
        candidate period).
    threshold : float
        Largest allowed change of the lag-1 autocorrelation.
    traces : tuple of TraceSchedule
        Per trace: block length and lag-1 autocorrelation.
    candidates_s : tuple of float
        Candidate periods in seconds, shortest (most frequent) first.
    acf_differences : numpy.ndarray
        ``acf_differences[i, j]``: mean lag-1 autocorrelation of trace ``j``
        thinned to candidate ``i`` minus the trace's own; NaN where the
        candidate is not longer than the trace's sampling interval (nothing
        to thin). Read-only.
    limited_by : str or None
        Name of the trace that kept the period from being longer: of the
        traces whose autocorrelation moved by more than ``threshold`` (or
        could no longer be computed: a thinned trace constant or shorter
        than three runs) at the first candidate where any did, the one that
        moved most (None when no candidate moved any).

    Examples
    --------
    >>> import numpy as np
    >>> import perfstats
    >>> rng = np.random.default_rng(1)
    >>> x = np.repeat(rng.normal(size=100), 12) + 0.3 * rng.normal(size=1200)
    >>> s = perfstats.schedule([x], sampling_interval=300.0)
    >>> s.interval_s >= s.traces[0].block_s, s.runs_per_hour <= 12.0
    (True, True)
    """

    interval_s: float
    period_s: float
    threshold: float
    traces: tuple[TraceSchedule, ...]
    candidates_s: tuple[float, ...]
    acf_differences: FloatArray
    limited_by: str | None

    @property
    def interval(self) -> datetime.timedelta:
        """The interval as a :class:`datetime.timedelta`."""
        return datetime.timedelta(seconds=self.interval_s)

    @property
    def interval_hours(self) -> float:
        """The interval in hours."""
        return self.interval_s / 3600.0

    @property
    def runs_per_hour(self) -> float:
        """The chosen frequency, runs per hour."""
        return 3600.0 / self.period_s

    @property
    def runs_per_interval(self) -> int:
        """Runs in one interval at the chosen frequency, ``ceil(interval / period)``."""
        return math.ceil(self.interval_s / self.period_s - 1e-9)

    def __repr__(self) -> str:
        by = f", limited by {self.limited_by!r}" if self.limited_by else ""
        return (
            f"Schedule(interval {_human(self.interval_s)}, one run every "
            f"{_human(self.period_s)} ({self.runs_per_hour:.3g} per hour){by}; "
            f"{len(self.traces)} traces, {len(self.candidates_s)} candidates)"
        )


def _human(seconds: float) -> str:
    for unit, size in (("d", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if seconds >= size:
            return f"{seconds / size:.3g} {unit}"
    return f"{seconds:.3g} s"


def _seconds(value: Any, name: str) -> float:
    """A positive duration given as seconds, ``timedelta`` or ``numpy.timedelta64``."""
    if isinstance(value, np.timedelta64):
        value = value / np.timedelta64(1, "ns") / 1e9
    elif isinstance(value, datetime.timedelta):  # pandas.Timedelta is one
        value = value.total_seconds()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(
            f"{name} must be seconds (a positive number) or a timedelta, got {value!r}"
        )
    return check_positive(float(value), name)


def _time_index(trace: Any) -> FloatArray | None:
    """Seconds since the first run for a pandas Series with a time index, else None."""
    index = getattr(trace, "index", None)
    if index is None or not hasattr(trace, "to_numpy"):
        return None
    kind = getattr(getattr(index, "dtype", None), "kind", "")
    if kind not in "mM" or kind == "":
        return None
    import pandas as pd

    seconds = np.asarray((index - index[0]) / pd.Timedelta(seconds=1), dtype=np.float64)
    return seconds


def _traces(traces: Any) -> list[tuple[str, Any]]:
    if isinstance(traces, Mapping):
        if not traces:
            raise ValueError("traces is empty; give at least one pilot trace")
        return [(str(k), v) for k, v in traces.items()]
    if isinstance(traces, (str, bytes)):
        raise ValueError(f"traces must be arrays or time-indexed Series, got {traces!r}")
    if _time_index(traces) is not None:
        return [("0", traces)]
    if isinstance(traces, np.ndarray) and traces.ndim == 1:
        return [("0", traces)]
    if not isinstance(traces, Sequence) and not isinstance(traces, np.ndarray):
        raise ValueError(
            "traces must be a mapping or sequence of arrays or time-indexed Series, "
            f"got {type(traces).__name__}"
        )
    if len(traces) == 0:
        raise ValueError("traces is empty; give at least one pilot trace")
    return [(str(i), t) for i, t in enumerate(traces)]


def _intervals(sampling_interval: Any, names: list[str]) -> dict[str, float | None]:
    if sampling_interval is None:
        return dict.fromkeys(names)
    if isinstance(sampling_interval, Mapping):
        missing = [n for n in names if n not in {str(k) for k in sampling_interval}]
        if missing:
            raise ValueError(f"sampling_interval has no entry for trace(s) {missing}")
        by_name = {str(k): v for k, v in sampling_interval.items()}
        return {n: _seconds(by_name[n], f"sampling_interval[{n!r}]") for n in names}
    if isinstance(sampling_interval, Sequence) and not isinstance(sampling_interval, str):
        if len(sampling_interval) != len(names):
            raise ValueError(
                f"sampling_interval has {len(sampling_interval)} entries for "
                f"{len(names)} traces"
            )
        return {
            n: _seconds(v, f"sampling_interval[{i}]")
            for i, (n, v) in enumerate(zip(names, sampling_interval, strict=True))
        }
    one = _seconds(sampling_interval, "sampling_interval")
    return dict.fromkeys(names, one)


def _thinned_acf1(times: FloatArray, values: FloatArray, period: float, dt: float) -> float:
    """Mean lag-1 autocorrelation of ``values`` thinned to one run per ``period``.

    Each phase keeps the first run at or after ``t0 + phase + j * period``;
    averaging over phases spread across one period keeps the estimate from
    hanging on which run happens to be kept.
    """
    phases = max(1, min(MAX_PHASES, round(period / dt)))
    out = []
    for p in range(phases):
        grid = np.arange(times[0] + p * period / phases, times[-1] + 1e-9 * period, period)
        idx = np.unique(np.searchsorted(times, grid - 1e-9 * period, side="left"))
        idx = idx[idx < times.size]
        kept = values[idx]
        if kept.size < 3 or kept.max() == kept.min():
            return math.nan
        out.append(float(acf(kept, nlags=1)[1]))
    return float(np.mean(out))


def schedule(
    traces: Any,
    *,
    sampling_interval: Any = None,
    threshold: float = 0.1,
    candidates: Sequence[Any] | None = None,
    min_runs: int = 30,
) -> Schedule:
    """Choose Metior's run interval and frequency from pilot traces.

    Parameters
    ----------
    traces : mapping, sequence, array_like or pandas.Series
        Pilot traces of runs in time order: arrays (with ``sampling_interval``)
        or pandas Series indexed by time (``DatetimeIndex`` or
        ``TimedeltaIndex``). A mapping names them; a single array or Series
        is one trace.
    sampling_interval : float, timedelta, sequence or mapping, optional
        Time between consecutive runs of an array trace, in seconds or as a
        timedelta; one for all traces, or one per trace (a sequence in the
        order of ``traces`` or a mapping by name). Must not be given for a
        time-indexed Series, whose index is used.
    threshold : float, default 0.1
        Largest allowed absolute change of a thinned trace's lag-1
        autocorrelation.
    candidates : sequence of float or timedelta, optional
        Candidate periods (time between two runs), in seconds or as
        timedeltas. Default: whole multiples ``k * dt`` of the shortest
        sampling interval ``dt``, ``k = 1, 2, ...``, while every trace keeps
        at least ``min_runs`` runs and ``k <= 240``.
    min_runs : int, default 30
        Fewest runs a thinned trace must keep for its autocorrelation to be
        judged.

    Returns
    -------
    Schedule
        ``interval_s``, ``period_s`` (and ``runs_per_hour``), and the
        evidence: block length per trace and the autocorrelation change of
        every trace at every candidate.

    Raises
    ------
    ValueError
        On no traces, a trace shorter than 11 runs, non-finite values, a
        constant trace (no autocorrelation), a missing or doubly given
        sampling interval, a time index that is not increasing, a bad
        threshold, or a candidate that leaves a trace fewer than
        ``min_runs`` runs.

    Notes
    -----
    The frequency is lowered candidate by candidate, from the shortest
    period; the chosen period is the last one before the first candidate at
    which any trace's lag-1 autocorrelation moves by more than
    ``threshold`` (the paper: "less than 0.1 smaller"; thinning almost
    always lowers it, and the absolute change also catches a rise). When
    even the first candidate fails, no thinning is supported and the period
    is the shortest sampling interval. A candidate no longer than a trace's
    own sampling interval does not thin that trace (NaN in the evidence).

    Thinning costs up to a pass over a trace per candidate, so for a pilot
    longer than :data:`MAX_THINNING_RUNS` (100,000) runs the thinned and the
    unthinned lag-1 autocorrelations compared are both those of its first
    100,000 runs (more when a candidate period needs them to keep
    ``min_runs``): a contiguous window, which keeps the dependence the
    thinning is judged on. Block length and ``acf1`` in the evidence use the
    whole trace.

    The interval is ``max_j ceil(b_j) dt_j`` over the traces, with ``b_j``
    the circular Politis-White block length (Politis & White 2004; Patton,
    Politis & White 2009) in runs; round it up to a convenient unit, never
    down.

    References
    ----------
    He et al., "Performance Testing for Cloud Computing with Dependent Data Bootstrapping"
    (Metior), ASE 2021, Section III-C; see the References of :mod:`perfstats.rules.metior`.

    D. N. Politis and H. White, "Automatic Block-Length Selection for the
    Dependent Bootstrap", Econometric Reviews 23(1), 2004.

    Examples
    --------
    Runs every 5 minutes whose level holds for an hour (12 runs) at a time:

    >>> import numpy as np
    >>> import perfstats
    >>> rng = np.random.default_rng(0)
    >>> level = np.repeat(rng.normal(size=200), 12)
    >>> x = 100 + level + 0.5 * rng.normal(size=level.size)
    >>> s = perfstats.schedule({"pilot": x}, sampling_interval=300.0)
    >>> s.interval_hours >= 1.0
    True
    >>> 1.0 <= s.runs_per_hour < 12.0
    True
    """
    thr, data, periods = _schedule_iv(traces, sampling_interval, threshold, candidates, min_runs)
    evidence = [_trace_evidence(*trace) for trace in data]
    diffs = _acf_differences(data, evidence, periods, check_int(min_runs, "min_runs", minimum=3))
    chosen, limited_by = _longest_period(diffs, periods, data, thr)
    return Schedule(
        interval_s=max(e.block_s for e in evidence),
        period_s=float(chosen),
        threshold=thr,
        traces=tuple(evidence),
        candidates_s=tuple(float(p) for p in periods),
        acf_differences=diffs,
        limited_by=limited_by,
    )


# A pilot trace as the schedule reads it: name, seconds since its first run,
# values, and the interval between runs.
_Pilot = tuple[str, FloatArray, FloatArray, float]


def _schedule_iv(
    traces: Any, sampling_interval: Any, threshold: Any, candidates: Any, min_runs: Any
) -> tuple[float, list[_Pilot], list[float]]:
    """Validate :func:`schedule`'s arguments: the threshold, the pilots, the periods to try."""
    thr = check_positive(threshold, "threshold")
    keep = check_int(min_runs, "min_runs", minimum=3)
    named = _traces(traces)
    given = _intervals(sampling_interval, [n for n, _ in named])
    data = [_pilot(name, trace, given[name]) for name, trace in named]
    base = min(dt for _, _, _, dt in data)
    span = min(float(t[-1] - t[0]) + dt for _, t, _, dt in data)
    if candidates is None:
        k_max = max(1, min(240, int(span / (keep * base))))
        return thr, data, [k * base for k in range(1, k_max + 1)]
    if isinstance(candidates, (str, bytes)) or len(candidates) == 0:
        raise ValueError(f"candidates must be a non-empty sequence of periods, got {candidates!r}")
    periods = sorted(_seconds(c, f"candidates[{i}]") for i, c in enumerate(candidates))
    for p in periods:
        if span / p < keep:
            raise ValueError(
                f"candidate period {p:g} s leaves a trace fewer than min_runs={keep} runs "
                f"(shortest trace spans {span:g} s)"
            )
    return thr, data, periods


def _pilot(name: str, trace: Any, given: float | None) -> _Pilot:
    """One pilot trace's values and run times, from its time index or its sampling interval."""
    label = f"traces[{name!r}]"
    times = _time_index(trace)
    values = as_sample(trace.to_numpy() if times is not None else trace, label,
                       min_size=MIN_SIZE)  # fmt: skip
    if times is not None:
        if given is not None:
            raise ValueError(f"{label} is indexed by time; do not also give its sampling_interval")
        gaps = np.diff(times)
        if not bool(np.all(gaps > 0)):
            raise ValueError(f"{label} must have a strictly increasing time index")
        dt = float(np.median(gaps))
    else:
        if given is None:
            raise ValueError(
                f"{label} has no time index; give sampling_interval (seconds or timedelta)"
            )
        dt = given
        times = np.arange(values.size, dtype=np.float64) * dt
    if values.max() == values.min():
        raise ValueError(f"{label} is constant; its autocorrelation is undefined")
    return name, times, values, dt


def _trace_evidence(name: str, times: FloatArray, values: FloatArray, dt: float) -> TraceSchedule:
    """A pilot's block length and lag-1 autocorrelation at its own interval."""
    b = optimal_block_length(values).circular
    return TraceSchedule(
        name=name,
        n=int(values.size),
        sampling_interval_s=dt,
        block_length=float(b),
        block_s=max(1, math.ceil(b)) * dt,
        acf1=float(acf(values, nlags=1)[1]),
    )


def _acf_differences(
    data: list[_Pilot], evidence: list[TraceSchedule], periods: list[float], keep: int
) -> FloatArray:
    """Per period and pilot, the thinned lag-1 autocorrelation minus the pilot's own (read-only).

    NaN where the period is not longer than the pilot's interval. A pilot
    longer than :data:`MAX_THINNING_RUNS` is judged on its first runs (see
    :func:`schedule`).
    """
    diffs = np.full((len(periods), len(data)), np.nan)
    for j, (_, times, values, dt) in enumerate(data):
        a1 = evidence[j].acf1
        window = max(MAX_THINNING_RUNS, math.ceil(max(periods) / dt * keep) + 1)
        if values.size > window and values[:window].max() > values[:window].min():
            times, values = times[:window], values[:window]
            a1 = float(acf(values, nlags=1)[1])
        for i, period in enumerate(periods):
            if period <= dt * (1 + 1e-9):
                continue
            diffs[i, j] = _thinned_acf1(times, values, period, dt) - a1
    diffs.setflags(write=False)
    return diffs


def _longest_period(
    diffs: FloatArray, periods: list[float], data: list[_Pilot], thr: float
) -> tuple[float, str | None]:
    """The period to run at, and the pilot that kept it from being longer (or None).

    It is the longest period before the first whose thinning moves some
    pilot's lag-1 autocorrelation by more than ``thr``.
    """
    chosen = min(dt for _, _, _, dt in data)
    for i, period in enumerate(periods):
        row = diffs[i]
        # NaN also when a thinned trace became constant: then nothing is left
        # of its dependence, which counts as a change.
        bad = [
            j for j in range(len(data))
            if (math.isnan(row[j]) and period > data[j][3] * (1 + 1e-9)) or abs(row[j]) > thr
        ]  # fmt: skip
        if bad:
            worst = max(bad, key=lambda j: math.inf if math.isnan(row[j]) else abs(row[j]))
            return chosen, data[worst][0]
        chosen = period
    return chosen, None
