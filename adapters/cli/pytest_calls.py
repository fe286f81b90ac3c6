"""Call a Python function until a stopping rule says stop, each call timed and recorded.

The loop behind the pytest plugin's ``perfstats_benchmark`` fixture
(:mod:`~perfstats.adapters.cli.pytest_plugin`): each call is timed with
:func:`time.perf_counter_ns` around the call alone, its time (in ``ns``)
goes to a :class:`perfstats.Monitor`, and, with a record path, each call
becomes a row of a perfstats record (:class:`~perfstats.adapters.records.Record`,
the format ``perfstats run`` writes), so ``perfstats gate`` and
``perfstats report`` read it as they read any record. Rows are written at
each of the rule's judgements, so the file system is not touched between
two timed calls of one run interval.

A warm-up comes first when asked for: ``warmup=N`` makes the first N
calls warm-up, ``warmup="auto"`` finds the warm-up in the times as they
arrive, with the policy of ``perfstats run --warmup auto``
(:class:`~perfstats.adapters.driver.warmup.AutoWarmup`: checked after 20
calls and every 10 after, and once more before a stop of the rule is
accepted; the start only moves later, and the rule restarts on the calls
after it). Warm-up calls are timed and recorded with phase ``"warmup"``
but never judged, they are not among the result's ``values``, and the
record's metadata gives their number (``sessions[-1]["warmup_calls"]``;
with ``"auto"`` also the checks, in ``sessions[-1]["warmup"]``, as
``perfstats run`` writes them).

A call that raises ends the loop: its row is recorded as failed, the
record keeps the calls before it, and the exception goes on to the caller
(the test fails with the function's own error). A ``KeyboardInterrupt``
(Ctrl-C) likewise keeps every call so far and is raised again.
"""

from __future__ import annotations

import copy
import math
import os
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from perfstats.rules import Rule
from perfstats.rules.monitor import Monitor

from ..driver.warmup import AutoWarmup, warmup_setting
from ..records.fields import field_descriptions
from ..records.measurement import ERROR, OK, one_line, utc_now
from ..records.plain import plain
from ..records.record import FORMAT, MEASURE, RUN, WARMUP, Record
from ..records.redaction import redact
from ..report.summary import percentile_rows

#: Why a loop ended: the rule stopped, the time cap, the function raised, Ctrl-C.
STOPPED_BY = ("rule", "max_time", "error", "interrupted")
UNIT = "ns"


@dataclass(frozen=True)
class CallsResult:
    """What one loop of calls gave: the times, why it stopped, the median and its CI.

    Attributes
    ----------
    name : str
        The benchmark's name (a test's node id).
    values : tuple of float
        The time of each successful call, in ns, in call order.
    stopped_by : str
        One of :data:`STOPPED_BY`.
    reason : str
        The last decision's sentence, or the error of the failed call.
    rule : Mapping
        The rule's name and configuration, as recorded.
    estimate, low, high : float
        The median of the times and its confidence interval (exact order
        statistics; NaN when there is no time, an infinite bound when the
        sample is too small for one).
    level : float
        The confidence level of the interval.
    record : str or None
        The record written, if any.
    warmup : int
        The calls before the first judged one (warm-up: timed and recorded,
        not judged, not in ``values``).
    extra : Mapping
        Plain data the caller keeps with the result (a test's parameters).
    """

    name: str
    values: tuple[float, ...]
    stopped_by: str
    reason: str
    rule: Mapping[str, Any]
    estimate: float
    low: float
    high: float
    level: float
    record: str | None = None
    warmup: int = 0
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def runs(self) -> int:
        """The number of successful calls."""
        return len(self.values)

    @property
    def failed(self) -> bool:
        """Whether the loop ended on an error or an interrupt rather than a stop."""
        return self.stopped_by in ("error", "interrupted")

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready), for passing between processes."""
        out: dict[str, Any] = plain({k: getattr(self, k) for k in self.__dataclass_fields__})
        out["values"] = list(self.values)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CallsResult:
        """The result :meth:`to_dict` gave."""
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        known["values"] = tuple(float(v) for v in data.get("values", ()))
        for key in ("estimate", "low", "high"):
            known[key] = math.nan if known.get(key) is None else float(known[key])
        return cls(**known)


def time_calls(
    fn: Callable[..., Any],
    args: tuple[Any, ...] = (),
    kwargs: Mapping[str, Any] | None = None,
    *,
    rule: Rule,
    name: str,
    max_seconds: float | None = None,
    warmup: int | str = 0,
    max_warmup: int | None = None,
    record: str | os.PathLike[str] | None = None,
    metadata: Mapping[str, Any] | None = None,
    extra: Mapping[str, Any] | None = None,
    on_result: Callable[[CallsResult], None] | None = None,
) -> tuple[Any, CallsResult]:
    """Call ``fn(*args, **kwargs)`` until ``rule`` stops or ``max_seconds`` pass.

    Parameters
    ----------
    fn : callable
        The function to time.
    args, kwargs
        Its arguments, the same at every call.
    rule : Rule
        A fresh stopping rule (it is fed through a :class:`perfstats.Monitor`).
    name : str
        The benchmark's name: the record's target name.
    max_seconds : float, optional
        Start no call after this many seconds (warm-up included); the
        result then says ``stopped_by="max_time"``.
    warmup : int or "auto", default 0
        An int: the calls timed and recorded first as warm-up, never
        judged. ``"auto"``: the warm-up found in the times as they arrive
        (see the module notes), at most ``max_warmup`` calls.
    max_warmup : int, optional
        With ``warmup="auto"``: the most calls that may be warm-up
        (default :data:`~perfstats.adapters.driver.warmup.MAX_WARMUP`).
    record : path, optional
        A new record CSV to write (its metadata beside it); an existing
        file is refused, never overwritten.
    metadata : Mapping, optional
        What the record's metadata holds besides the target, rule and
        outcome (``seed``, and a ``session`` mapping with machine and
        software).
    extra : Mapping, optional
        Plain data kept in the result's ``extra``.
    on_result : callable, optional
        Called with the result before the loop returns or re-raises, also
        when the function raised or the loop was interrupted.

    Returns
    -------
    (object, CallsResult)
        What the last call returned, and the result.

    Raises
    ------
    BaseException
        Whatever ``fn`` raised (after its partial record was written), and
        ValueError when the record cannot be created.

    Examples
    --------
    >>> from perfstats.adapters.cli.pytest_calls import time_calls
    >>> from perfstats.rules import Fixed
    >>> value, result = time_calls(sum, ([1, 2, 3],), rule=Fixed(n=6), name="sum")
    >>> value, result.runs, result.stopped_by
    (6, 6, 'rule')
    >>> _, result = time_calls(sum, ([1],), rule=Fixed(n=6), name="sum", warmup=2)
    >>> result.runs, result.warmup
    (6, 2)
    """
    kwargs = dict(kwargs or {})
    if max_seconds is not None and not (max_seconds > 0 and math.isfinite(max_seconds)):
        raise ValueError(f"max_seconds must be a finite number > 0; got {max_seconds!r}")
    auto = check_warmup(warmup, max_warmup)
    rec = Record(record) if record is not None else None
    loop = _Loop(rule, name, rec, dict(metadata or {}), dict(extra or {}), warmup, auto)
    try:
        value = loop.run(fn, args, kwargs, max_seconds)
    except BaseException as exc:
        stopped = "interrupted" if isinstance(exc, KeyboardInterrupt) else "error"
        why = "interrupted (KeyboardInterrupt)" if stopped == "interrupted" else _error_text(exc)
        result = loop.finish(stopped, why)
        if on_result is not None:
            on_result(result)
        raise
    result = loop.finish(loop.stopped_by, loop.monitor.decision.reason)
    if on_result is not None:
        on_result(result)
    return value, result


def _error_text(exc: BaseException) -> str:
    return one_line(f"{type(exc).__name__}: {exc}")


def check_warmup(warmup: Any, max_warmup: Any = None) -> AutoWarmup | None:
    """The automatic warm-up ``warmup`` asks for, or None for a fixed count.

    Both are checked by
    :func:`~perfstats.adapters.driver.warmup.warmup_setting`, whose
    ``ValueError`` names the bad one.

    Examples
    --------
    >>> from perfstats.adapters.cli.pytest_calls import check_warmup
    >>> check_warmup(5) is None, check_warmup("auto", 50).max_warmup
    (True, 50)
    """
    warmup, cap = warmup_setting(warmup, max_warmup)
    return None if cap is None else AutoWarmup(cap)


@dataclass
class _Loop:
    """The state of one loop: the monitor, the warm-up, the rows not yet written, the record."""

    rule: Rule
    name: str
    rec: Record | None
    metadata: dict[str, Any]
    extra: dict[str, Any]
    warmup_setting: int | str
    auto: AutoWarmup | None
    monitor: Monitor = field(init=False)
    #: A copy of the rule as it was, for a restart (a warm-up found longer).
    pristine: Rule | None = field(init=False)
    #: The index in ``times`` of the first judged call (None: all warm-up so far).
    first: int | None = field(init=False)
    #: Every successful call's time, warm-up included, in call order.
    times: list[float] = field(init=False, default_factory=list)
    #: The phase of every call's row, by call number - 1.
    phases: list[str] = field(init=False, default_factory=list)
    pending: list[dict[str, Any]] = field(init=False, default_factory=list)
    stopped_by: str = field(init=False, default="rule")
    calls: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        self.pristine = copy.deepcopy(self.rule) if self.auto is not None else None
        self.monitor = Monitor(self.rule)
        self.first = None if self.auto is not None else int(self.warmup_setting)
        self.started_at = utc_now()
        self.rule_config = plain({"name": self.rule.name, "config": self.rule.config()})
        if self.rec is not None:
            self.rec.write_metadata(self._metadata(None, None))

    @property
    def fixed(self) -> int:
        """The calls of a fixed warm-up (0 with ``"auto"``)."""
        return 0 if self.auto is not None else int(self.warmup_setting)

    @property
    def values(self) -> list[float]:
        """The judged times: those from the first judged call on."""
        return [] if self.first is None else self.times[self.first :]

    def run(
        self,
        fn: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        max_seconds: float | None,
    ) -> Any:
        clock = time.perf_counter_ns
        deadline = None if max_seconds is None else time.monotonic() + max_seconds
        interval = self.rule.interval
        value: Any = None
        while True:
            self.calls += 1
            judged = self.first is not None and len(self.times) >= self.first
            started = utc_now()
            try:
                t0 = clock()
                value = fn(*args, **kwargs)
                t1 = clock()
            except BaseException as exc:
                self._row(started, None, exc, judged)
                raise
            elapsed = float(t1 - t0)
            self.times.append(elapsed)
            self._row(started, elapsed, None, judged)
            stop = self.monitor.add(elapsed).stop if judged else False
            if self.auto is not None:
                n = len(self.times)
                # A stop of the rule stands only if the warm-up has not grown meanwhile.
                if self.auto.due(n) or (stop and self.auto.checked_n != n):
                    self._recheck(self.auto)
                    stop = self.first is not None and self.monitor.decision.stop
            counted = self.calls - self.fixed
            # Written at each judgement and at the end of a fixed warm-up, not between.
            if stop or (counted >= 0 and counted % interval == 0):
                self._flush()
            if stop:
                self.stopped_by = "rule"
                return value
            if deadline is not None and time.monotonic() >= deadline:
                self.stopped_by = "max_time"
                return value

    def _recheck(self, auto: AutoWarmup) -> None:
        """Re-characterise every time so far; on a new start, re-mark rows, restart the rule."""
        if not auto.update(self.times):
            return
        assert auto.start is not None and self.pristine is not None
        self.first = auto.start
        changed: dict[int, str] = {}
        for index, old in enumerate(self.phases):
            new = WARMUP if index < self.first else MEASURE
            if new != old:
                self.phases[index] = new
                changed[index + 1] = new
        for row in self.pending:
            row["phase"] = self.phases[row["run"] - 1]
        written = {run: p for run, p in changed.items() if run not in self._pending_runs()}
        if self.rec is not None and written:
            self.rec.rewrite_phases(written)
        self.monitor = Monitor(copy.deepcopy(self.pristine))
        if self.values:
            self.monitor.add(self.values)

    def _pending_runs(self) -> set[int]:
        return {int(row["run"]) for row in self.pending}

    def _row(
        self, started: Any, elapsed: float | None, exc: BaseException | None, judged: bool
    ) -> None:
        phase = MEASURE if judged else WARMUP
        self.phases.append(phase)
        # A fixed warm-up is interval 0, as perfstats run records it.
        counted = self.calls - self.fixed
        self.pending.append({
            "run": self.calls,
            "interval": 0 if counted <= 0 else (counted - 1) // self.rule.interval + 1,
            "phase": phase,
            "target": self.name,
            "value": elapsed,
            "unit": UNIT,
            "cold": None,
            "started_at": started.isoformat(timespec="microseconds"),
            "status": ERROR if exc is not None else OK,
            "error": _error_text(exc) if exc is not None else None,
            "extra": "",
        })  # fmt: skip

    def _flush(self) -> None:
        if self.rec is not None and self.pending:
            self.rec.append_rows(self.pending)
        self.pending = []

    def finish(self, stopped_by: str, reason: str) -> CallsResult:
        """Write what is left and the final metadata; the result."""
        try:
            self._flush()
            if self.rec is not None:
                self.rec.write_metadata(self._metadata(stopped_by, reason))
        finally:
            if self.rec is not None:
                self.rec.close()
        values = self.values
        rows = percentile_rows(values, quantiles=(0.5,)) if values else []
        median = rows[0] if rows else {}
        return CallsResult(
            name=self.name,
            values=tuple(values),
            stopped_by=stopped_by,
            reason=reason,
            rule=self.rule_config,
            estimate=float(median.get("estimate", math.nan)),
            low=float(median.get("low", math.nan)),
            high=float(median.get("high", math.nan)),
            level=float(median.get("level", 0.95)),
            record=None if self.rec is None else os.fspath(self.rec.path),
            warmup=self.warmup_calls,
            extra=self.extra,
        )

    @property
    def warmup_calls(self) -> int:
        """The calls recorded as warm-up (a failed one among them)."""
        return sum(phase == WARMUP for phase in self.phases)

    def _metadata(self, stopped_by: str | None, reason: str | None) -> dict[str, Any]:
        session = dict(self.metadata.get("session", {}))
        session.update({
            "started_at": self.started_at.isoformat(),
            "ended_at": None if stopped_by is None else utc_now().isoformat(),
            "command_line": redact(list(sys.argv)),
            "stopped_by": stopped_by,
            "outcome": None if stopped_by is None else (
                "failed" if stopped_by in ("error", "interrupted") else "passed"),
            "decision": None if stopped_by is None else {
                **self.monitor.decision.to_dict(), "reason": reason},
            "warmup_calls": self.warmup_calls,
        })  # fmt: skip
        if self.auto is not None:
            first_run = None if self.first is None else self.first + 1
            session["warmup"] = self.auto.to_dict(first_run)
        return {
            "format": FORMAT,
            "target": {"kind": "pytest", "name": self.name, "unit": UNIT, **self.extra},
            "rule": self.rule_config,
            "seed": self.metadata.get("seed"),
            "sessions": [plain(session)],
            "fields": field_descriptions(RUN),
        }
