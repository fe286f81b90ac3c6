"""The scheduling loop of a run: intervals of invocations, in parallel and spaced.

Each run interval invokes the target until the rule's ``interval`` more
successes have arrived, keeping at most ``concurrency`` invocations in
flight and ``spacing`` seconds between them; every measurement is stored
(record row, flushed) the moment it arrives, then the interval's values go
to the :class:`perfstats.MultiMonitor` in run order.

Series: the primary value is the series :data:`PRIMARY` (``"value"``, the
record's ``value`` column); each named series of a measurement
(:attr:`Measurement.series`) is another, judged by its own copy of the rule
(the primary gets the rule object itself). A round is as long as the
fewest runs any active series needs to reach its next judgement. The run
ends by ``stop_when``: ``"all"`` (every series stopped), ``"any"``, or a
series name. Once some named series have stopped, a target whose
``selects_series`` is true is invoked through ``invoke_only`` with the
named series still going (with all of them, or with none left but the
primary, through ``invoke``). A series asked for that is missing from an
ok invocation, or that the target reports as failed, gets an ``error`` row
in the series table for that run; after ``max_failures`` such misses in a
row the series is abandoned (named in the metadata) and no longer holds
the run up.
"""

from __future__ import annotations

import copy
import logging
import threading
import time
from collections.abc import Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from perfstats.rules import Fixed, Rule
from perfstats.rules.decision import Decision
from perfstats.rules.monitor import STOP_WHEN, Monitor, MultiMonitor

from ..records.measurement import Measurement, one_line, utc_now
from ..records.plain import plain
from ..records.record import FORMAT, MEASURE, SERIES_FORMAT, WARMUP, Record, frame, row_of
from ..records.series import SeriesValue
from ..records.series_table import (
    PRIMARY,
    SeriesTable,
    describe,
    series_frame,
    series_row,
    series_values,
)
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
    stop_when: str = "all"


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
        series_table: SeriesTable | None = None,
    ) -> None:
        self.target = target
        self.rule = rule
        self.record = record
        self.series_table = series_table
        self.settings = settings
        self.started = started
        self.deadline = None if settings.max_seconds is None else started + settings.max_seconds
        self.multi = self._new_multi()
        existing = record.existing if record is not None else frame([])
        old_series = series_table.existing if series_table is not None else series_frame([])
        self.metadata: dict[str, Any] = {}
        #: Every named series seen (recorded or new), with its description.
        self.known: dict[str, dict[str, Any]] = {}
        recorded = record.metadata.get("series") if record is not None else None
        if isinstance(recorded, Mapping):
            self.known.update({str(k): dict(v) for k, v in recorded.items()})
        for name in old_series["series"].unique():
            self.known.setdefault(str(name), {"unit": "", "direction": "lower", "source": ""})
        self.series_rows: list[dict[str, Any]] = []
        self.old_series = old_series
        self.misses: dict[str, int] = {}
        self.abandoned: dict[str, str] = {}
        ok_main = existing[existing["status"] == "ok"]["run"]
        good = old_series[(old_series["status"] == "ok") & old_series["run"].isin(ok_main)]
        #: Every ok value of every named series, (run, value), for the warm-up's restarts.
        self.series_ok: dict[str, list[tuple[int, float]]] = {
            str(name): sorted(zip(g["run"].astype(int), g["value"].astype(float), strict=True))
            for name, g in good.groupby("series", sort=False)
        }
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
            batch = {PRIMARY: resumed}
            for name in self._judged():
                batch[name] = series_values(existing, old_series, name)
            self.multi.add(batch)
            self.bar.update(resumed.size)
        self.warmup: AutoWarmup | None = None
        self.ok_runs: list[tuple[int, float]] = []
        if settings.warmup == AUTO:
            self._start_auto_warmup(existing)

    # -- series ----------------------------------------------------------

    def _new_multi(self) -> MultiMonitor:
        """A MultiMonitor whose primary series judges with the rule itself, the others a copy.

        A target whose primary value is not judged (a suite's round time)
        gives it a fixed rule that stops at the first judgement, so it
        never holds the run up; its values are still recorded.
        """
        rule = self.rule
        spare = copy.deepcopy(rule)
        first: list[Rule] = [rule]
        if not self.target.judges_value and self.settings.stop_when != PRIMARY:
            first = [Fixed(n=max(rule.interval, rule.min_n))]

        def make() -> Rule:
            return first.pop() if first else copy.deepcopy(spare)

        return MultiMonitor(
            make, [PRIMARY], max_n=self.settings.max_n, stop_when=self.settings.stop_when
        )

    @property
    def monitor(self) -> Monitor:
        """The primary series' monitor."""
        return self.multi[PRIMARY]

    def _active(self) -> list[str]:
        return [n for n in self.multi.active if n not in self.abandoned]

    def _done(self) -> bool:
        """Whether the run has stopped by ``stop_when`` (abandoned series aside)."""
        when = self.settings.stop_when
        if when == "all":
            return not self._active()
        if when not in STOP_WHEN and when in self.abandoned:
            raise TargetFailed(
                f"series {when!r} of target {self.target.name!r}, which --stop-when names, "
                f"missed {self.settings.max_failures} runs in a row; last: {self.abandoned[when]}",
                None,
            )
        return self.multi.stopped

    def _need(self) -> int:
        """Successful runs until the first active series reaches its next judgement."""
        size = self.rule.interval
        needs = []
        for name in self._active() or [PRIMARY]:
            n = self.multi[name].data.size
            goal = (n // size + 1) * size
            if self.settings.max_n is not None:
                goal = min(goal, self.settings.max_n)
            needs.append(goal - n)
        return max(1, min(needs))

    def _asked(self) -> frozenset[str] | None:
        """The series to ask the target for (None: all, through ``invoke``)."""
        if not self.target.selects_series:
            return None
        named = [n for n in self.known if n in self.multi.monitors]
        going = [n for n in self._active() if n != PRIMARY]
        if not going or len(going) == len(named):
            return None
        return frozenset(going)

    def _judged(self) -> list[str]:
        """The named series the rule judges: all but recorded metrics, or one stop_when names."""
        when = self.settings.stop_when
        return [n for n, d in self.known.items() if d.get("judged", True) or n == when]

    def _judge(self, oks: list[tuple[int, Measurement]]) -> Decision:
        """Give the successful runs' values to every judged series' monitor, in run order."""
        batch: dict[str, list[float]] = {name: [] for name in self._judged()}
        batch[PRIMARY] = []
        for _, m in oks:
            assert m.value is not None
            batch[PRIMARY].append(m.value)
            for name, item in m.series.items():
                if item.value is not None and name in batch:
                    batch[name].append(item.value)
        self.multi.add(batch)
        self._check_stop_when()
        return self.monitor.decision

    def _check_stop_when(self) -> None:
        when = self.settings.stop_when
        if when in STOP_WHEN or when == PRIMARY or when in self.known:
            return
        if self.ok_runs:
            gives = ", ".join(map(repr, [PRIMARY, *self.known]))
            raise ValueError(
                f"stop_when names the series {when!r}, which target {self.target.name!r} "
                f"does not give (it gives {gives})"
            )

    def _stopped_by(self) -> str:
        when = self.settings.stop_when
        decisions = self.multi.decisions
        if when == "all":
            deciding = [n for n in decisions if n not in self.abandoned]
            capped = any(decisions[n].details.get("max_n_reached") for n in deciding)
        elif when == "any":
            stopped = [d for d in decisions.values() if d.stop]
            capped = bool(stopped) and all(d.details.get("max_n_reached") for d in stopped)
        else:
            capped = bool(decisions[when].details.get("max_n_reached"))
        return "max_n" if capped else "rule"

    def _decision(self) -> tuple[Decision, tuple[Decision, ...]]:
        """The run's decision and history: of the series ``stop_when`` names, else the primary.

        Where the primary value is not judged, the series that decided last
        stands for the run.
        """
        when = self.settings.stop_when
        chosen = self.multi.monitors.get(when) if when not in STOP_WHEN else None
        if chosen is None and not self.target.judges_value:
            named = [m for n, m in self.multi.monitors.items() if n != PRIMARY]
            if named:
                chosen = max(named, key=lambda m: m.data.size)
        monitor = chosen if chosen is not None else self.monitor
        return monitor.decision, tuple(monitor.history)

    def _series_of(self, run_no: int, m: Measurement, asked: frozenset[str] | None) -> None:
        """Store the named series of an ok run; a series asked for and missing is a miss."""
        rows: list[dict[str, Any]] = []
        new = False
        for name, item in m.series.items():
            if name not in self.known:
                self.known[name] = describe(item)
                new = True
            rows.append(series_row(run_no, name, item))
            if item.value is not None:
                self.series_ok.setdefault(name, []).append((run_no, item.value))
        expected = set(self.known) if asked is None else set(asked)
        for name in [n for n in self.known if n in expected and n not in m.series]:
            unit = self.known[name].get("unit", "")
            miss = SeriesValue(None, unit, error="not in this run's output")
            rows.append(series_row(run_no, name, miss))
        for row in rows:
            self._count_miss(run_no, row)
        self.series_rows.extend(rows)
        if self.series_table is not None:
            self.series_table.append(rows)
        if new:
            self._describe_series()

    def _count_miss(self, run_no: int, row: Mapping[str, Any]) -> None:
        name = row["series"]
        if row["status"] == "ok":
            self.misses[name] = 0
            return
        self.misses[name] = self.misses.get(name, 0) + 1
        if name not in self._judged():
            # A recorded metric's source said once why it is missing; the run
            # does not wait for it.
            logger.debug(
                "run %d of %s: series %r: %s", run_no, self.target.name, name, row["error"]
            )
            return
        logger.warning("run %d of %s: series %r: %s", run_no, self.target.name, name, row["error"])
        going = name not in self.multi.monitors or not self.multi[name].stopped
        if going and self.misses[name] >= self.settings.max_failures and name not in self.abandoned:
            self.abandoned[name] = str(row["error"])
            logger.warning(
                "series %r of %s missed %d runs in a row: no longer waited for",
                name,
                self.target.name,
                self.misses[name],
            )

    def _describe_series(self) -> None:
        """Put the series in the metadata (format 1.1) and write it, so a killed run has it."""
        if not self.metadata:
            return
        self.metadata["format"] = SERIES_FORMAT
        self.metadata["primary"] = PRIMARY
        self.metadata["primary_judged"] = self.target.judges_value
        self.metadata["series"] = {name: dict(d) for name, d in self.known.items()}
        if self.record is not None:
            try:
                self.record.write_metadata(self.metadata)
            except OSError as exc:
                logger.error("could not write %s: %s", self.record.meta_path, exc)

    # -- the run ---------------------------------------------------------

    def execute(self, metadata: dict[str, Any], seed: int) -> RunResult:
        self.metadata = metadata
        if self.known:
            metadata["format"] = SERIES_FORMAT
            metadata["primary"] = PRIMARY
            metadata["primary_judged"] = self.target.judges_value
            metadata["series"] = {name: dict(d) for name, d in self.known.items()}
        elif metadata.get("format") is None:
            metadata["format"] = FORMAT
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
        while not self._done():
            n_ok = len(self.monitor.data)
            need = self._need()
            oks = self._batch(pool, need, phase=MEASURE, interval=n_ok // size + 1)
            decision = self._judge(oks) if oks else self.monitor.decision
            self._show(decision)
            if len(oks) < need:
                return "max_seconds"
        return self._stopped_by()

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
        batch = int(self.existing["interval"].max()) + 1 if len(self.existing) else 1
        while True:
            n_all = len(self.ok_runs)
            if warmup.start is None:
                need = _until_check(n_all)
                oks = self._batch(pool, need, phase=WARMUP, interval=batch, every_run=False)
            elif self._done():
                # The rule's stop stands only if the warm-up has not grown meanwhile.
                if warmup.checked_n != n_all and self._recheck(warmup):
                    continue
                break
            else:
                # Stop at the next warm-up check too, so that it comes every CHECK_EVERY runs.
                need = min(self._need(), _until_check(n_all))
                oks = self._batch(pool, need, phase=MEASURE, interval=batch)
                if oks:
                    self._show(self._judge(oks))
            batch += 1
            if warmup.due(len(self.ok_runs)):
                self._recheck(warmup)
            if len(oks) < need:
                return "max_seconds"
        return self._stopped_by()

    def _recheck(self, warmup: AutoWarmup) -> bool:
        """Re-characterise the successful runs; on a new start, re-mark rows, restart the rule."""
        values = np.array([v for _, v in self.ok_runs], dtype=np.float64)
        if not warmup.update(values):
            return False
        start = warmup.start
        assert start is not None
        first_run = self.ok_runs[start][0] if start < len(self.ok_runs) else self.next_run
        self._mark_phases(first_run)
        self.multi = self._new_multi()
        self.bar.reset(total=self.settings.max_n)
        if start < values.size:
            batch: dict[str, Any] = {PRIMARY: values[start:]}
            for name in self._judged():
                batch[name] = [v for r, v in self.series_ok.get(name, []) if r >= first_run]
            self.multi.add(batch)
            self._show(self.monitor.decision)
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
    ) -> list[tuple[int, Measurement]]:
        """Invoke until ``needed`` successes (or any ``needed`` runs for a fixed warm-up).

        ``every_run`` counts failed runs too (default: for the warm-up
        phase). Returns the successful runs (number, measurement) in run
        order; fewer than ``needed`` when time ran out.
        """
        count_all = phase == WARMUP if every_run is None else every_run
        in_flight: dict[Future[Measurement], tuple[int, frozenset[str] | None]] = {}
        done_ok: list[tuple[int, Measurement]] = []
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
                asked = self._asked() if phase == MEASURE else None
                in_flight[pool.submit(self._invoke, asked)] = (run_no, asked)
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
                run_no, asked = in_flight.pop(future)
                self.last_end = time.monotonic()
                measurement = future.result()
                self._store(run_no, interval, phase, measurement, asked)
                finished += 1
                if measurement.ok:
                    done_ok.append((run_no, measurement))
        if gave_up:
            raise TargetFailed(gave_up, None)
        done_ok.sort(key=lambda pair: pair[0])
        self.ok_runs.extend((r, float(m.value)) for r, m in done_ok if m.value is not None)
        self._check_stop_when()
        return done_ok

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

    def _invoke(self, asked: frozenset[str] | None = None) -> Measurement:
        try:
            if asked is None:
                m = self.target.invoke()
            else:
                m = self.target.invoke_only(asked)
        except Exception as exc:
            logger.exception("target %s raised instead of returning a failure", self.target.name)
            return Measurement.failure(
                f"{type(exc).__name__}: {exc}", unit="", cold=None, started_at=utc_now()
            )
        if PRIMARY in m.series:
            return Measurement.failure(
                f"the target gave a series named {PRIMARY!r}, the name of the primary value",
                unit=m.unit,
                cold=m.cold,
                started_at=m.started_at,
                extra=m.extra,
            )
        return m

    def _store(
        self,
        run_no: int,
        interval: int,
        phase: str,
        m: Measurement,
        asked: frozenset[str] | None = None,
    ) -> None:
        row = row_of(run_no, interval, phase, self.target.name, m)
        if self.record is not None:
            self.record.append(row)
        self.rows.append(row)
        if m.ok and (m.series or self.known):
            self._series_of(run_no, m, asked)
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
        decision, history = self._decision()
        session["decision"] = plain(decision)
        session["history"] = [plain(d.to_dict()) for d in history]
        session["invocations"] = len(self.rows)
        if self.known:
            session["series"] = {
                name: {
                    "decision": plain(m.decision),
                    "history": [plain(d.to_dict()) for d in m.history],
                    "n": int(m.data.size),
                    "capped": bool(m.decision.details.get("max_n_reached")),
                    "abandoned": self.abandoned.get(name),
                }
                for name, m in self.multi.monitors.items()
            }
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

    def _series(self) -> pd.DataFrame:
        new = series_frame(self.series_rows)
        if not len(self.old_series):
            return new
        if not len(new):
            return self.old_series.copy()
        return pd.concat([self.old_series, new], ignore_index=True)

    def _result(self, stopped_by: str, seed: int, metadata: Mapping[str, Any]) -> RunResult:
        decision, history = self._decision()
        return RunResult(
            decision=decision,
            measurements=self._measurements(),
            record=self.record.path if self.record is not None else None,
            history=history,
            stopped_by=stopped_by,
            seed=seed,
            elapsed=time.monotonic() - self.started,
            metadata=metadata,
            decisions=self.multi.decisions,
            histories={n: tuple(m.history) for n, m in self.multi.monitors.items()},
            series=self._series(),
            stop_when=self.settings.stop_when,
            abandoned=dict(self.abandoned),
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
