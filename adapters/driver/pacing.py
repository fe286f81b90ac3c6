"""The scheduling loop of a run: intervals of invocations, in parallel and spaced.

Each run interval invokes the target until the rule's ``interval`` more
successes have arrived, keeping at most ``concurrency`` invocations in
flight and ``spacing`` seconds between them; every measurement is stored
(record row, flushed) the moment it arrives, then the interval's values go
to the :class:`perfstats.Monitor` in run order.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from perfstats.rules import Rule
from perfstats.rules.decision import Decision
from perfstats.rules.monitor import Monitor

from ..records.measurement import Measurement, one_line, utc_now
from ..records.plain import plain
from ..records.record import MEASURE, WARMUP, Record, frame, row_of
from ..records.terminal import for_terminal
from ..targets.base import Target
from .failures import TargetFailed
from .result import RunResult, judged_values
from .warmup import AUTO, CHECK_EVERY, FIRST_CHECK, AutoWarmup

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Settings:
    """The validated scheduling settings of a run (see :func:`perfstats.adapters.run`)."""

    max_n: int | None
    max_seconds: float | None
    concurrency: int
    spacing: float
    warmup: int | str
    max_failures: int
    max_warmup: int | None = None


class Session:
    """The state of one call of :func:`perfstats.adapters.run`.

    Internal to the driver: :func:`~perfstats.adapters.run` validates the
    arguments, opens the record and builds one ``Session``, whose
    :meth:`execute` runs the intervals and returns the result.
    """

    def __init__(
        self,
        target: Target,
        rule: Rule,
        record: Record | None,
        settings: Settings,
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
        self.warmup: AutoWarmup | None = None
        self.ok_runs: list[tuple[int, float]] = []
        if settings.warmup == AUTO:
            self._start_auto_warmup(existing)

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
        pool = ThreadPoolExecutor(
            max_workers=self.settings.concurrency, thread_name_prefix="perfstats-invoke"
        )
        try:
            stopped_by = self._intervals(pool)
        except BaseException:
            # Kill what is running first, or shutting the pool down would wait
            # for every invocation in flight to finish by itself.
            self.target.close()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        return stopped_by

    def _intervals(self, pool: ThreadPoolExecutor) -> str:
        if self.warmup is not None:
            return self._auto_intervals(pool, self.warmup)
        fixed = int(self.settings.warmup)
        warmups = 0 if self._resumed_measures else fixed - self._resumed_warmups
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
        details = self.monitor.decision.details
        return "max_n" if details.get("max_n_reached") else "rule"

    def _out_of_time(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    # -- the automatic warm-up (see perfstats.adapters.driver.warmup) ---------

    def _start_auto_warmup(self, existing: pd.DataFrame) -> None:
        ok = existing[existing["status"] == "ok"].sort_values("run")
        self.ok_runs = list(zip(ok["run"].astype(int), ok["value"].astype(float), strict=True))
        measured = ok[ok["phase"] == MEASURE]
        # A resumed record keeps the start its rows say: the first measurement run.
        start = int((ok["run"] < measured["run"].min()).sum()) if len(measured) else None
        assert self.settings.max_warmup is not None
        self.warmup = AutoWarmup(self.settings.max_warmup, start=start)
        self.warmup.checked_n = len(self.ok_runs) if start is not None else 0

    def _auto_intervals(self, pool: ThreadPoolExecutor, warmup: AutoWarmup) -> str:
        size = self.rule.interval
        batch = int(self.existing["interval"].max()) + 1 if len(self.existing) else 1
        while True:
            n_all = len(self.ok_runs)
            if warmup.start is None:
                need = _until_check(n_all)
                values = self._batch(pool, need, phase=WARMUP, interval=batch, every_run=False)
            elif self.monitor.decision.stop:
                # The rule's stop stands only if the warm-up has not grown meanwhile.
                if warmup.checked_n != n_all and self._recheck(warmup):
                    continue
                break
            else:
                n_ok = len(self.monitor.data)
                goal = (n_ok // size + 1) * size
                if self.settings.max_n is not None:
                    goal = min(goal, self.settings.max_n)
                # Stop at the next warm-up check too, so that it comes every CHECK_EVERY runs.
                need = min(goal - n_ok, _until_check(n_all))
                values = self._batch(pool, need, phase=MEASURE, interval=batch)
                if values:
                    self._show(self.monitor.add(values))
            batch += 1
            if warmup.due(len(self.ok_runs)):
                self._recheck(warmup)
            if len(values) < need:
                return "max_seconds"
        details = self.monitor.decision.details
        return "max_n" if details.get("max_n_reached") else "rule"

    def _recheck(self, warmup: AutoWarmup) -> bool:
        """Re-characterise the successful runs; on a new start, re-mark rows, restart the rule."""
        values = np.array([v for _, v in self.ok_runs], dtype=np.float64)
        if not warmup.update(values):
            return False
        start = warmup.start
        assert start is not None
        first_run = self.ok_runs[start][0] if start < len(self.ok_runs) else self.next_run
        self._mark_phases(first_run)
        self.monitor = Monitor(self.rule, max_n=self.settings.max_n)
        self.bar.reset(total=self.settings.max_n)
        if start < values.size:
            self._show(self.monitor.add(values[start:]))
            self.bar.update(values.size - start)
        logger.info(
            "warm-up of %s: steady state from run %d (%d runs of warm-up)",
            self.target.name,
            first_run,
            start,
        )
        return True

    def _mark_phases(self, first_run: int) -> None:
        """Runs before ``first_run`` become warm-up, the others measurement runs (memory, disk)."""
        changed: dict[int, str] = {}
        for row in self.rows:
            phase = WARMUP if row["run"] < first_run else MEASURE
            if row["phase"] != phase:
                row["phase"] = phase
                changed[int(row["run"])] = phase
        if len(self.existing):
            phases = np.where(self.existing["run"] < first_run, WARMUP, MEASURE)
            for run_no, old, new in zip(
                self.existing["run"], self.existing["phase"], phases, strict=True
            ):
                if old != new:
                    changed[int(run_no)] = str(new)
            self.existing["phase"] = [str(p) for p in phases]
        if self.record is not None and changed:
            self.record.rewrite_phases(changed)

    def _first_judged_run(self) -> int | None:
        if self.warmup is None or self.warmup.start is None:
            return None
        start = self.warmup.start
        return self.ok_runs[start][0] if start < len(self.ok_runs) else self.next_run

    # -- invocations -----------------------------------------------------

    def _batch(
        self,
        pool: ThreadPoolExecutor,
        needed: int,
        *,
        phase: str,
        interval: int,
        every_run: bool | None = None,
    ) -> list[float]:
        """Invoke until ``needed`` successes (or any ``needed`` runs for a fixed warm-up).

        ``every_run`` counts failed runs too (default: for the warm-up
        phase). Returns the successful values in run order; fewer than
        ``needed`` when time ran out.
        """
        count_all = phase == WARMUP if every_run is None else every_run
        in_flight: dict[Future[Measurement], tuple[int, Any]] = {}
        done_ok: list[tuple[int, float]] = []
        finished = 0
        stop_submitting = False
        gave_up = ""
        while True:
            counted = finished if count_all else len(done_ok)
            remaining = needed - counted - len(in_flight)
            if self.failures_in_a_row >= self.settings.max_failures and not gave_up:
                gave_up = (
                    f"target {self.target.name!r} ({self.target.kind}) failed "
                    f"{self.failures_in_a_row} times in a row; last: {self.last_failure}"
                )
            if self._out_of_time() or gave_up:
                stop_submitting = True
            can_submit = (
                not stop_submitting and remaining > 0 and len(in_flight) < self.settings.concurrency
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
        done_ok.sort()
        self.ok_runs.extend(done_ok)
        return [value for _, value in done_ok]

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
        except Exception as exc:
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
        session = metadata["sessions"][-1]
        if self.warmup is not None:
            session["warmup"] = plain(self.warmup.to_dict(self._first_judged_run()))
        if self.record is None:
            return
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


def _until_check(n: int) -> int:
    """Successful runs still to collect before the next warm-up check, from ``n``."""
    if n < FIRST_CHECK:
        return FIRST_CHECK - n
    return CHECK_EVERY - (n - FIRST_CHECK) % CHECK_EVERY


def _progress_bar(enabled: bool, total: int | None, label: str) -> Any:
    from tqdm.auto import tqdm

    return tqdm(
        total=total,
        disable=not enabled,
        unit="run",
        desc=for_terminal(one_line(label, 30)),
        leave=False,
        dynamic_ncols=True,
    )
