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

A call that raises ends the loop: its row is recorded as failed, the
record keeps the calls before it, and the exception goes on to the caller
(the test fails with the function's own error). A ``KeyboardInterrupt``
(Ctrl-C) likewise keeps every call so far and is raised again.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from perfstats.rules import Rule
from perfstats.rules.monitor import Monitor

from ..records.fields import field_descriptions
from ..records.measurement import ERROR, OK, one_line, utc_now
from ..records.plain import plain
from ..records.record import FORMAT, MEASURE, RUN, Record
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
        Start no call after this many seconds; the result then says
        ``stopped_by="max_time"``.
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
    """
    kwargs = dict(kwargs or {})
    if max_seconds is not None and not (max_seconds > 0 and math.isfinite(max_seconds)):
        raise ValueError(f"max_seconds must be a finite number > 0; got {max_seconds!r}")
    rec = Record(record) if record is not None else None
    loop = _Loop(rule, name, rec, dict(metadata or {}), dict(extra or {}))
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


class _Loop:
    """The state of one loop: the monitor, the rows not yet written, the record."""

    def __init__(
        self,
        rule: Rule,
        name: str,
        rec: Record | None,
        metadata: dict[str, Any],
        extra: dict[str, Any],
    ) -> None:
        self.rule = rule
        self.name = name
        self.rec = rec
        self.metadata = metadata
        self.extra = extra
        self.monitor = Monitor(rule)
        self.values: list[float] = []
        self.pending: list[dict[str, Any]] = []
        self.stopped_by = "rule"
        self.started_at = utc_now()
        self.calls = 0
        self.rule_config = plain({"name": rule.name, "config": rule.config()})
        if rec is not None:
            rec.write_metadata(self._metadata(None, None))

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
            started = utc_now()
            try:
                t0 = clock()
                value = fn(*args, **kwargs)
                t1 = clock()
            except BaseException as exc:
                self._row(started, None, exc)
                raise
            elapsed = float(t1 - t0)
            self.values.append(elapsed)
            self._row(started, elapsed, None)
            decision = self.monitor.add(elapsed)
            if self.calls % interval == 0 or decision.stop:
                self._flush()
            if decision.stop:
                self.stopped_by = "rule"
                return value
            if deadline is not None and time.monotonic() >= deadline:
                self.stopped_by = "max_time"
                return value

    def _row(self, started: Any, elapsed: float | None, exc: BaseException | None) -> None:
        failed = exc is not None
        self.pending.append({
            "run": self.calls,
            "interval": (self.calls - 1) // self.rule.interval + 1,
            "phase": MEASURE,
            "target": self.name,
            "value": elapsed,
            "unit": UNIT,
            "cold": None,
            "started_at": started.isoformat(timespec="microseconds"),
            "status": ERROR if failed else OK,
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
        rows = percentile_rows(self.values, quantiles=(0.5,)) if self.values else []
        median = rows[0] if rows else {}
        return CallsResult(
            name=self.name,
            values=tuple(self.values),
            stopped_by=stopped_by,
            reason=reason,
            rule=self.rule_config,
            estimate=float(median.get("estimate", math.nan)),
            low=float(median.get("low", math.nan)),
            high=float(median.get("high", math.nan)),
            level=float(median.get("level", 0.95)),
            record=None if self.rec is None else os.fspath(self.rec.path),
            extra=self.extra,
        )

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
        })  # fmt: skip
        return {
            "format": FORMAT,
            "target": {"kind": "pytest", "name": self.name, "unit": UNIT, **self.extra},
            "rule": self.rule_config,
            "seed": self.metadata.get("seed"),
            "sessions": [plain(session)],
            "fields": field_descriptions(RUN),
        }
