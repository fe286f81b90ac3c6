"""The driver: run a target under a stopping rule and record every invocation."""

from __future__ import annotations

import inspect
import json
import logging
import math
import os
import sys
import threading
import time
from collections.abc import Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from perfstats.decision import Decision
from perfstats.monitor import Monitor
from perfstats.rules import RULES, Rule, by_name

from .failures import TargetFailed
from .machine import machine_info, software_info
from .measurement import Measurement, one_line, utc_now
from .plain import plain
from .record import FORMAT, MEASURE, WARMUP, Record, frame, row_of
from .target import Target

logger = logging.getLogger(__name__)

STOPPED_BY = ("rule", "max_n", "max_seconds", "failures", "interrupted")


@dataclass(frozen=True)
class RunResult:
    """What :func:`run` returns.

    Attributes
    ----------
    decision : Decision
        The final decision (``stop`` is False when the run ended on
        ``max_seconds`` before the rule stopped).
    measurements : pandas.DataFrame
        Every invocation of the whole record (resumed rows included), one row
        each, with the record's columns.
    record : pathlib.Path or None
        The CSV file, when one was written.
    history : tuple of Decision
        Every judgement, in order (one per run interval).
    stopped_by : str
        ``"rule"``, ``"max_n"``, ``"max_seconds"``, ``"failures"`` or
        ``"interrupted"``.
    seed : int
        The seed of this run (see :func:`run`).
    elapsed : float
        Seconds this call took.
    """

    decision: Decision
    measurements: pd.DataFrame
    record: Path | None
    history: tuple[Decision, ...]
    stopped_by: str
    seed: int
    elapsed: float
    metadata: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @property
    def values(self) -> np.ndarray:
        """The values the rule judged: successful measured runs in run order."""
        return judged_values(self.measurements)

    def __repr__(self) -> str:
        return (
            f"RunResult({self.stopped_by}, {len(self.measurements)} invocations, "
            f"{self.decision!r})"
        )


def judged_values(measurements: pd.DataFrame) -> np.ndarray:
    """Successful, non-warm-up values of a record in run order: what a rule sees.

    Examples
    --------
    >>> from perfstats.adapters.driver import judged_values
    >>> from perfstats.adapters.record import frame
    >>> judged_values(frame([])).size
    0
    """
    ok = measurements[(measurements["status"] == "ok") & (measurements["phase"] == MEASURE)]
    return ok.sort_values("run")["value"].to_numpy(dtype=np.float64)


def run(
    target: Target,
    rule: Rule | str,
    *,
    rule_options: Mapping[str, Any] | None = None,
    max_n: int | None = None,
    max_seconds: float | None = None,
    concurrency: int = 1,
    spacing: float | None = None,
    warmup: int = 0,
    record: str | os.PathLike[str] | None = None,
    resume: bool = False,
    progress: bool = True,
    rng: Any = None,
    max_failures: int = 5,
) -> RunResult:
    """Invoke ``target`` in run intervals until ``rule`` says stop.

    Each run interval invokes the target until ``rule.interval`` more
    successful values have been collected; they are then given, in run
    order, to a :class:`perfstats.Monitor`, which judges them exactly as a
    replay of the same sequence would. Failed and timed-out invocations are
    recorded with their status and message and never given to the rule.
    The target is closed at the end, also on error or interrupt.

    Parameters
    ----------
    target : Target
        What to invoke (:class:`Command`, :class:`Container`, :class:`SSH`,
        :class:`HttpFunction`, :class:`LambdaFunction`, or your own).
    rule : Rule or str
        A stopping rule, or the name of one in :data:`perfstats.rules.RULES`
        (then built with ``rule_options`` and seeded with the run's seed).
    rule_options : mapping, optional
        Options for a rule given by name.
    max_n : int, optional
        Stop after this many successful measured runs even if the rule has
        not stopped (the decision then says so).
    max_seconds : float, optional
        Start no invocation after this many seconds; invocations in flight
        finish and are recorded.
    concurrency : int, default 1
        Invocations in flight at once (a bounded thread pool).
    spacing : float, optional
        Seconds between invocations: from the end of one to the start of the
        next when ``concurrency == 1`` (SuperFlow waited 30 minutes for cold
        starts, 5 s for warm ones), between starts otherwise.
    warmup : int, default 0
        Invocations run and recorded first (phase ``"warmup"``), never judged.
    record : path, optional
        CSV file to append every invocation to, flushed row by row; its
        metadata goes beside it (``run.csv`` -> ``run.meta.json``).
    resume : bool, default False
        Continue the interrupted ``record``: its measured values are given to
        the rule first, and run numbering continues. The target and rule must
        be the ones recorded.
    progress : bool, default True
        Show a tqdm progress bar on standard error.
    rng : None, int or numpy.random.Generator
        The run's seed: seeds a rule given by name, and is recorded. When
        resuming without one, the recorded seed is used again.
    max_failures : int, default 5
        Consecutive failed invocations after which the run stops with
        :class:`TargetFailed`.

    Returns
    -------
    RunResult

    Raises
    ------
    ValueError
        For bad arguments, an unknown rule, an existing record without
        ``resume``, or a resume whose target or rule differ from the record.
    TargetFailed
        After ``max_failures`` consecutive failures; the record keeps them all.

    Examples
    --------
    >>> import sys
    >>> from perfstats.adapters import Command, run
    >>> from perfstats.rules import Fixed
    >>> result = run(Command([sys.executable, "-c", "pass"]), Fixed(n=5), progress=False)
    >>> result.decision.stop, len(result.measurements), result.stopped_by
    (True, 5, 'rule')
    """
    started = time.monotonic()
    if not isinstance(target, Target):
        raise ValueError(f"target must be a perfstats.adapters Target; got {target!r}")
    settings = _settings(max_n, max_seconds, concurrency, spacing, warmup, max_failures)
    if resume and record is None:
        raise ValueError("resume=True needs the record to resume")
    rec: Record | None = None
    try:
        rec = Record(record, resume=resume) if record is not None else None
        previous = rec.metadata if rec is not None else {}
        seed = _seed(rng, previous)
        rule_obj = _rule(rule, rule_options, seed)
        metadata = _metadata(target, rule_obj, seed, settings, previous)
        if rec is not None:
            rec.write_metadata(metadata)
        session = _Session(target, rule_obj, rec, settings, progress, started)
        return session.execute(metadata, seed)
    finally:
        try:
            target.close()
        finally:
            if rec is not None:
                rec.close()


@dataclass(frozen=True)
class _Settings:
    max_n: int | None
    max_seconds: float | None
    concurrency: int
    spacing: float
    warmup: int
    max_failures: int


def _settings(
    max_n: Any, max_seconds: Any, concurrency: Any, spacing: Any, warmup: Any, max_failures: Any
) -> _Settings:
    return _Settings(
        max_n=None if max_n is None else _count(max_n, "max_n", 1),
        max_seconds=None if max_seconds is None else _seconds(max_seconds, "max_seconds"),
        concurrency=_count(concurrency, "concurrency", 1),
        spacing=0.0 if spacing is None else _seconds(spacing, "spacing", allow_zero=True),
        warmup=_count(warmup, "warmup", 0),
        max_failures=_count(max_failures, "max_failures", 1),
    )


def _count(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")
    return int(value)


def _seconds(value: Any, name: str, allow_zero: bool = False) -> float:
    ok = (
        not isinstance(value, bool)
        and isinstance(value, (int, float, np.number))
        and math.isfinite(value)
        and (value >= 0 if allow_zero else value > 0)
    )
    if not ok:
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be a finite number of seconds {bound}; got {value!r}")
    return float(value)


def _seed(rng: Any, previous: Mapping[str, Any]) -> int:
    if rng is None:
        recorded = previous.get("seed")
        if isinstance(recorded, int):
            return recorded
        return int(np.random.SeedSequence().entropy % (2**63 - 1))
    if isinstance(rng, np.random.Generator):
        return int(rng.integers(0, 2**63 - 1))
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) and rng >= 0:
        return int(rng)
    raise ValueError(
        f"rng must be None, a non-negative int seed or a numpy.random.Generator; got {rng!r}"
    )


def _rule(rule: Rule | str, options: Mapping[str, Any] | None, seed: int) -> Rule:
    if isinstance(rule, Rule):
        if options:
            raise ValueError("rule_options apply only to a rule given by name")
        return rule
    if not isinstance(rule, str):
        raise ValueError(f"rule must be a perfstats Rule or a rule name; got {rule!r}")
    opts = dict(options or {})
    cls = RULES.get(rule.lower())
    if cls is not None and "rng" not in opts:
        if "rng" in inspect.signature(cls.__init__).parameters:
            opts["rng"] = seed
    try:
        return by_name(rule, **opts)
    except (TypeError, ValueError) as exc:
        raise ValueError(str(exc)) from None


def _normal(data: Any) -> Any:
    """``data`` as it reads back from JSON, so recorded and new configs compare equal."""
    return json.loads(json.dumps(plain(data)))


def _metadata(
    target: Target, rule: Rule, seed: int, settings: _Settings, previous: Mapping[str, Any]
) -> dict[str, Any]:
    target_config = _normal(target.config())
    rule_config = _normal({"name": rule.name, "config": rule.config()})
    if previous:
        for what, new in (("target", target_config), ("rule", rule_config)):
            old = previous.get(what)
            if old is not None and old != new:
                raise ValueError(
                    f"cannot resume: the {what} differs from the record's "
                    f"({_difference(old, new)})"
                )
    session = {
        "started_at": utc_now().isoformat(),
        "ended_at": None,
        "machine": machine_info(),
        "software": software_info(),
        "command_line": list(sys.argv),
        "settings": plain(settings.__dict__),
    }
    sessions = list(previous.get("sessions", [])) + [session]
    return {
        "format": FORMAT,
        "target": target_config,
        "rule": rule_config,
        "seed": seed,
        "sessions": sessions,
    }


def _difference(old: Any, new: Any) -> str:
    if isinstance(old, dict) and isinstance(new, dict):
        keys = sorted(set(old) | set(new))
        diffs = [f"{k}: {old.get(k)!r} -> {new.get(k)!r}" for k in keys if old.get(k) != new.get(k)]
        return "; ".join(diffs)
    return f"{old!r} -> {new!r}"


class _Session:
    """One call of :func:`run`: the state of the scheduling loop."""

    def __init__(
        self,
        target: Target,
        rule: Rule,
        record: Record | None,
        settings: _Settings,
        progress: bool,
        started: float,
    ) -> None:
        self.target = target
        self.rule = rule
        self.record = record
        self.settings = settings
        self.started = started
        self.deadline = None if settings.max_seconds is None else started + settings.max_seconds
        self.monitor = Monitor(rule, max_n=settings.max_n)
        existing = record.existing if record is not None else frame([])
        self.existing = existing
        self.rows: list[dict[str, Any]] = []
        self.next_run = int(existing["run"].max()) + 1 if len(existing) else 1
        self.failures_in_a_row = 0
        self.last_failure = ""
        self.last_start: float | None = None
        self.last_end: float | None = None
        self.bar = _progress_bar(progress, settings.max_n, target.name)
        self._resumed_warmups = int((existing["phase"] == WARMUP).sum())
        self._resumed_measures = int((existing["phase"] == MEASURE).sum())
        resumed = judged_values(existing)
        if resumed.size:
            self.monitor.add(resumed)
            self.bar.update(resumed.size)

    # -- the run ---------------------------------------------------------

    def execute(self, metadata: dict[str, Any], seed: int) -> RunResult:
        stopped_by = "interrupted"
        try:
            stopped_by = self._loop()
        except TargetFailed as exc:
            stopped_by = "failures"
            result = self._result(stopped_by, seed, metadata)
            raise TargetFailed(str(exc), result) from None
        finally:
            self.bar.close()
            self._finish(metadata, stopped_by)
        return self._result(stopped_by, seed, metadata)

    def _loop(self) -> str:
        warmups = 0 if self._resumed_measures else self.settings.warmup - self._resumed_warmups
        pool = ThreadPoolExecutor(
            max_workers=self.settings.concurrency, thread_name_prefix="perfstats-invoke"
        )
        try:
            if warmups > 0:
                self._batch(pool, warmups, phase=WARMUP, interval=0)
                if self._out_of_time():
                    return "max_seconds"
            size = self.rule.interval
            while not self.monitor.decision.stop:
                n_ok = len(self.monitor.data)
                goal = (n_ok // size + 1) * size
                if self.settings.max_n is not None:
                    goal = min(goal, self.settings.max_n)
                values = self._batch(pool, goal - n_ok, phase=MEASURE, interval=n_ok // size + 1)
                decision = self.monitor.add(values) if values else self.monitor.decision
                self._show(decision)
                if len(values) < goal - n_ok:
                    return "max_seconds"
        except BaseException:
            # Kill what is running first, or shutting the pool down would wait
            # for every invocation in flight to finish by itself.
            self.target.close()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        details = self.monitor.decision.details
        return "max_n" if details.get("max_n_reached") else "rule"

    def _out_of_time(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def _batch(self, pool: ThreadPoolExecutor, needed: int, *, phase: str, interval: int) -> list[float]:
        """Invoke until ``needed`` successes (or any ``needed`` runs for warm-up).

        Returns the successful values in run order; fewer than ``needed``
        when time ran out.
        """
        in_flight: dict[Future[Measurement], tuple[int, Any]] = {}
        done_ok: list[tuple[int, float]] = []
        finished = 0
        stop_submitting = False
        gave_up = ""
        while True:
            counted = finished if phase == WARMUP else len(done_ok)
            remaining = needed - counted - len(in_flight)
            if self.failures_in_a_row >= self.settings.max_failures and not gave_up:
                gave_up = (
                    f"target {self.target.name!r} ({self.target.kind}) failed "
                    f"{self.failures_in_a_row} times in a row; last: {self.last_failure}"
                )
            if self._out_of_time() or gave_up:
                stop_submitting = True
            can_submit = (
                not stop_submitting
                and remaining > 0
                and len(in_flight) < self.settings.concurrency
            )
            now = time.monotonic()
            start_at = self._next_start()
            if can_submit and now >= start_at:
                run_no = self.next_run
                self.next_run += 1
                self.last_start = now
                in_flight[pool.submit(self._invoke)] = (run_no, now)
                continue
            if not in_flight:
                if not can_submit:
                    break
                self._sleep(start_at - now)
                continue
            timeout = None
            if can_submit:
                timeout = max(0.0, start_at - now)
            elif self.deadline is not None and not stop_submitting:
                timeout = max(0.0, self.deadline - now)
            done, _ = wait(list(in_flight), timeout=timeout, return_when=FIRST_COMPLETED)
            for future in sorted(done, key=lambda f: in_flight[f][0]):
                run_no, _ = in_flight.pop(future)
                self.last_end = time.monotonic()
                measurement = future.result()
                self._store(run_no, interval, phase, measurement)
                finished += 1
                if measurement.ok:
                    assert measurement.value is not None
                    done_ok.append((run_no, measurement.value))
        if gave_up:
            raise TargetFailed(gave_up, None)
        return [value for _, value in sorted(done_ok)]

    def _next_start(self) -> float:
        spacing = self.settings.spacing
        if spacing <= 0:
            return 0.0
        anchor = self.last_end if self.settings.concurrency == 1 else self.last_start
        return 0.0 if anchor is None else anchor + spacing

    def _sleep(self, seconds: float) -> None:
        if seconds <= 0:
            return
        if self.deadline is not None:
            seconds = min(seconds, max(0.0, self.deadline - time.monotonic()))
        # An Event wait, not time.sleep, so that Ctrl-C interrupts long spacings
        # promptly on every platform.
        threading.Event().wait(seconds)

    def _invoke(self) -> Measurement:
        try:
            return self.target.invoke()
        except Exception as exc:  # noqa: BLE001 - a target bug must be recorded, not lost
            logger.exception("target %s raised instead of returning a failure", self.target.name)
            return Measurement.failure(
                f"{type(exc).__name__}: {exc}", unit="", cold=None, started_at=utc_now()
            )

    def _store(self, run_no: int, interval: int, phase: str, m: Measurement) -> None:
        row = row_of(run_no, interval, phase, self.target.name, m)
        if self.record is not None:
            self.record.append(row)
        self.rows.append(row)
        if m.ok:
            self.failures_in_a_row = 0
        else:
            self.failures_in_a_row += 1
            self.last_failure = f"{m.status}: {m.error}"
            logger.warning("run %d of %s: %s: %s", run_no, self.target.name, m.status, m.error)
        if phase == MEASURE:
            self.bar.update(1)

    def _show(self, decision: Decision) -> None:
        self.bar.set_postfix_str(one_line(decision.reason, 60), refresh=False)

    # -- the end ---------------------------------------------------------

    def _finish(self, metadata: dict[str, Any], stopped_by: str) -> None:
        if self.record is None:
            return
        session = metadata["sessions"][-1]
        session["ended_at"] = utc_now().isoformat()
        session["stopped_by"] = stopped_by
        session["decision"] = plain(self.monitor.decision)
        session["history"] = [plain(d.to_dict()) for d in self.monitor.history]
        session["invocations"] = len(self.rows)
        try:
            self.record.write_metadata(metadata)
        except OSError as exc:
            logger.error("could not write %s: %s", self.record.meta_path, exc)

    def _measurements(self) -> pd.DataFrame:
        new = frame(self.rows)
        if not len(self.existing):
            return new
        if not len(new):
            return self.existing.copy()
        return pd.concat([self.existing, new], ignore_index=True)

    def _result(self, stopped_by: str, seed: int, metadata: Mapping[str, Any]) -> RunResult:
        return RunResult(
            decision=self.monitor.decision,
            measurements=self._measurements(),
            record=self.record.path if self.record is not None else None,
            history=tuple(self.monitor.history),
            stopped_by=stopped_by,
            seed=seed,
            elapsed=time.monotonic() - self.started,
            metadata=metadata,
        )


def _progress_bar(enabled: bool, total: int | None, label: str) -> Any:
    from tqdm.auto import tqdm

    return tqdm(
        total=total,
        disable=not enabled,
        unit="run",
        desc=one_line(label, 30),
        leave=False,
        dynamic_ncols=True,
    )
