"""Run an A-B suite: its planned calls, many in flight, every execution recorded.

References
----------
.. [Schirmer2024] Schirmer et al., "ElastiBench: Scalable Continuous Benchmarking on Cloud
   FaaS Platforms", IC2E 2024; see the References of :mod:`perfstats.comparison.change`.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..driver.seeding import run_seed
from ..records.machine import machine_info, software_info
from ..records.measurement import OK, Measurement, utc_now
from ..records.plain import plain
from ..records.record import Record, frame
from ..records.redaction import redact
from .analysis import SuiteAnalysis, analyse, analysis_settings
from .interleaving import Call
from .persistence import AB, rows_of
from .suite import Suite
from .suite_target import failed_call

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SuiteRun:
    """What one run of a suite collected.

    Parameters
    ----------
    suite : Suite
        The suite that was run: its benchmarks, target, schedule and the
        analysis settings :meth:`analyse` uses.
    measurements : pandas.DataFrame
        One row per planned execution, sorted by call and order (the
        columns of :mod:`perfstats.adapters.ab.persistence`).
    plan : tuple of Call
        The calls, in the order they were started.
    seed : int
        Seed of the plan's random orders (and, by default, of the analysis).
    elapsed : float
        Wall-clock seconds of the run.
    record : Path or None
        The CSV written, if any.
    metadata : dict
        The run's metadata, as the JSON beside the record holds it (built
        also when no record is written): format, the suite's configuration
        with secrets redacted, the seed, the planned calls and executions,
        start time, machine, software, command line, and the counts of
        executions by status; the end time, the run's status and its
        elapsed seconds are filled in only when a record was written.

    Examples
    --------
    :func:`run_suite` returns one:

    >>> import sys
    >>> from perfstats.adapters.ab import Benchmark, ReportingCommand, Suite, run_suite
    >>> echo = ("import json,sys; r=json.load(sys.stdin); print(json.dumps({'results': "
    ...         "[{'version': v, 'repeat': k, 'value': 10.0} for v, k in r['executions']]}))")
    >>> suite = Suite([Benchmark("a")], ReportingCommand([sys.executable, "-c", echo]),
    ...               calls=2, repeats=2, concurrency=2)
    >>> run = run_suite(suite, rng=0)
    >>> run.seed, len(run.plan), run.record, run.metadata["counts"]["ok"]
    (0, 2, None, 8)
    """

    suite: Suite
    measurements: pd.DataFrame
    plan: tuple[Call, ...]
    seed: int
    elapsed: float
    record: Path | None
    metadata: Mapping[str, Any]

    def analyse(self, rng: Any = None) -> SuiteAnalysis:
        """Judge every benchmark with the suite's settings (seeded with :attr:`seed`).

        The settings are read from the suite's configuration as a record's
        metadata holds it (:func:`~perfstats.adapters.ab.analysis.analysis_settings`),
        so that this and a later analysis of the record judge alike.

        Parameters
        ----------
        rng : None, int or numpy.random.Generator, optional
            Seed of the bootstraps; None (the default) uses :attr:`seed`, so
            that analysing the same run again gives the same CIs.

        Returns
        -------
        SuiteAnalysis
            The verdict of every benchmark, in the suite's order: duet
            results paired by call, RMIT results paired by trial when the
            suite's ``by_trial`` is set, else unpaired.

        Raises
        ------
        ValueError
            When a benchmark's values cannot be compared (a non-finite
            value, a baseline value not above 0); the message names the
            benchmark.
        """
        # The settings as a record's metadata gives them, so a run and a
        # later ``perfstats ab --from-record`` judge alike.
        return analyse(
            self.measurements,
            **analysis_settings(self.suite.config()),
            benchmarks=[b.name for b in self.suite.benchmarks],
            rng=self.seed if rng is None else rng,
        )


def _counts(df: pd.DataFrame) -> dict[str, int]:
    return {
        "executions": len(df),
        "ok": int((df["status"] == OK).sum()),
        "error": int((df["status"] == "error").sum()),
        "timeout": int((df["status"] == "timeout").sum()),
    }


def run_suite(
    suite: Suite,
    *,
    record: str | os.PathLike[str] | None = None,
    rng: Any = None,
    progress: bool = False,
) -> SuiteRun:
    """Run every planned call of ``suite``, ``suite.concurrency`` at a time.

    Calls start in the plan's order (see
    :mod:`perfstats.adapters.ab.interleaving`); up to ``concurrency`` are in
    flight at once (ElastiBench, Schirmer et al. 2024, kept 150 in flight). Each finished
    call's executions are appended to the record and flushed at once;
    failed calls are recorded too, one row per execution, so every planned
    execution appears exactly once. The target is closed at the end, also
    on error or interrupt.

    Parameters
    ----------
    suite : Suite
        The benchmarks, the target that runs their calls, and the schedule
        (calls, repeats, concurrency) that plans them.
    record : path, optional
        CSV file to write (must not exist); metadata goes beside it
        (``suite.csv`` -> ``suite.csv.meta.json``): machine, software, the
        suite's configuration with secrets redacted, the seed.
    rng : None, int or numpy.random.Generator
        Seed of the random orders (recorded).
    progress : bool, default False
        Show a tqdm progress bar of calls on standard error.

    Returns
    -------
    SuiteRun
        Every planned execution's measurement (failed calls included), the
        plan, the seed, the elapsed time, the record's path and its
        metadata; :meth:`SuiteRun.analyse` judges it.

    Examples
    --------
    >>> import sys
    >>> from perfstats.adapters.ab.benchmark import Benchmark
    >>> from perfstats.adapters.ab.reporting_command import ReportingCommand
    >>> from perfstats.adapters.ab.runner import run_suite
    >>> from perfstats.adapters.ab.suite import Suite
    >>> echo = ("import json,sys; r=json.load(sys.stdin); print(json.dumps({'results': "
    ...         "[{'version': v, 'repeat': k, 'value': 10.0} for v, k in r['executions']]}))")
    >>> suite = Suite([Benchmark("a")], ReportingCommand([sys.executable, "-c", echo]),
    ...               calls=2, repeats=2, concurrency=2)
    >>> run = run_suite(suite, rng=0)
    >>> len(run.measurements), sorted(set(run.measurements.status))
    (8, ['ok'])
    """
    started = time.monotonic()
    if not isinstance(suite, Suite):
        raise ValueError(f"suite must be a Suite; got {suite!r}")
    seed = run_seed(rng)
    plan = tuple(suite.plan(rng=seed))
    rec: Record | None = None
    rows: list[dict[str, Any]] = []
    metadata: dict[str, Any] = {}
    status = "interrupted"
    try:
        rec = Record(record, AB) if record is not None else None
        metadata = {
            "format": AB.marker,
            "suite": plain(suite.config()),
            "seed": seed,
            "planned": {"calls": len(plan), "executions": sum(len(c.executions) for c in plan)},
            "started_at": utc_now().isoformat(),
            "ended_at": None,
            "machine": machine_info(),
            "software": software_info(),
            "command_line": redact(list(sys.argv)),
        }
        if rec is not None:
            rec.write_metadata(metadata)
        _execute(suite, plan, rec, rows, progress)
        status = "completed"
    finally:
        try:
            suite.target.close()
        finally:
            if rec is not None:
                df = frame(rows, AB)
                metadata.update(
                    ended_at=utc_now().isoformat(),
                    status=status,
                    elapsed_s=time.monotonic() - started,
                    counts=_counts(df),
                )
                try:
                    rec.write_metadata(metadata)
                except OSError as exc:
                    logger.error("could not write %s: %s", rec.meta_path, exc)
                rec.close()
    measurements = frame(rows, AB).sort_values(["call", "order"], ignore_index=True)
    metadata.setdefault("counts", _counts(measurements))
    return SuiteRun(
        suite=suite,
        measurements=measurements,
        plan=plan,
        seed=seed,
        elapsed=time.monotonic() - started,
        record=rec.path if rec is not None else None,
        metadata=metadata,
    )


def _execute(
    suite: Suite,
    plan: tuple[Call, ...],
    rec: Record | None,
    rows: list[dict[str, Any]],
    progress: bool,
) -> None:
    from tqdm.auto import tqdm

    bar = tqdm(
        total=len(plan),
        disable=not progress,
        unit="call",
        leave=False,
        desc="A-B suite",
        dynamic_ncols=True,
    )
    pool = ThreadPoolExecutor(
        max_workers=max(1, min(suite.concurrency, len(plan))), thread_name_prefix="perfstats-ab"
    )
    # The pool starts queued calls first in, first out, so calls start in
    # the plan's order and at most ``concurrency`` run at once.
    pending: dict[Future[list[Measurement]], Call] = {
        pool.submit(_invoke, suite, call): call for call in plan
    }
    try:
        while pending:
            done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
            for future in sorted(done, key=lambda f: pending[f].call):
                call = pending.pop(future)
                new = rows_of(call, future.result())
                if rec is not None:
                    rec.append_rows(new)
                rows.extend(new)
                bar.update(1)
    except BaseException:
        # Kill what is running first, or shutting the pool down would wait
        # for every call in flight to finish by itself.
        suite.target.close()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    finally:
        bar.close()
    pool.shutdown(wait=True)


def _invoke(suite: Suite, call: Call) -> list[Measurement]:
    try:
        measurements = suite.target.call(call, suite.benchmark(call.benchmark))
    except Exception as exc:
        logger.exception("suite target %s raised instead of returning failures", suite.target)
        return failed_call(call, f"{type(exc).__name__}: {exc}", unit="", started_at=utc_now())
    if len(measurements) != len(call.executions):
        return failed_call(
            call,
            f"the target returned {len(measurements)} measurements for "
            f"{len(call.executions)} executions",
            unit="",
            started_at=utc_now(),
        )
    return measurements
