"""The driver: run a target under a stopping rule and record every invocation."""

from __future__ import annotations

import inspect
import json
import logging
import math
import os
import sys
import time
import warnings
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from perfstats.rules import RULES, Rule, by_name

from ..records.fields import field_descriptions
from ..records.machine import machine_info, software_info
from ..records.measurement import utc_now
from ..records.plain import plain
from ..records.record import FORMAT, SERIES_FORMAT, Record, read_metadata
from ..records.record import RUN as FORMAT_RUN
from ..records.redaction import redact
from ..records.series_table import SeriesTable
from ..targets.base import Target
from .pacing import Session, Settings
from .provenance import git_state, target_directory
from .result import RunResult
from .seeding import run_seed
from .warmup import count_at_least, warmup_setting

logger = logging.getLogger(__name__)


def run(
    target: Target,
    rule: Rule | str,
    *,
    rule_options: Mapping[str, Any] | None = None,
    max_n: int | None = None,
    max_seconds: float | None = None,
    concurrency: int = 1,
    spacing: float | None = None,
    warmup: int | str = 0,
    max_warmup: int | None = None,
    record: str | os.PathLike[str] | None = None,
    resume: bool = False,
    force: bool = False,
    progress: bool = True,
    rng: Any = None,
    max_failures: int = 5,
    stop_when: str = "all",
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
        Stop after this many successful measurement runs even if the rule has
        not stopped (the decision then says so). Warm-up runs do not count;
        with ``warmup="auto"``, neither do the runs a later check moves
        into the warm-up.
    max_seconds : float, optional
        Start no invocation after this many seconds; invocations in flight
        finish and are recorded.
    concurrency : int, default 1
        Invocations in flight at once (a bounded thread pool).
    spacing : float, optional
        Seconds between invocations: from the end of one to the start of the
        next when ``concurrency == 1`` (SuperFlow waited half an hour for
        cold starts, five seconds for warm ones), between starts otherwise.
    warmup : int or "auto", default 0
        An int: invocations run and recorded first (phase ``"warmup"``),
        never judged. ``"auto"``: the warm-up found in the data, by
        :func:`perfstats.characterize` on the successful runs and re-checked
        as they arrive (first after 20 successful runs, then every 10 and
        before a stop is accepted); the rule judges only the runs after it.
        Once found the warm-up may only grow, never shrink (the rule then
        restarts on the runs after it), and it is at most ``max_warmup``
        runs. Every run stays in the record; those of the warm-up have
        phase ``"warmup"``, and the checks and the last characterisation
        go to the metadata (``sessions[-1]["warmup"]``). See
        :mod:`perfstats.adapters.driver.warmup` for the whole policy.
    max_warmup : int, optional
        With ``warmup="auto"``: the most successful runs that may be
        warm-up (default 200); when that many arrive without a steady
        state, they are the warm-up and the rest is judged.
    record : path, optional
        CSV file to append every invocation to, flushed row by row; its
        metadata goes beside it (``run.csv`` -> ``run.csv.meta.json``).
    resume : bool, default False
        Continue the interrupted ``record``: its measurement values are given to
        the rule first, and run numbering continues. The record's metadata
        must name its format, and the target, rule and unit must be the ones
        recorded; a mismatch is refused naming the difference.
    force : bool, default False
        With ``resume``: continue a record whose metadata is missing or
        incomplete (no format, target or rule); recorded values that differ
        are still refused.
    progress : bool, default True
        Show a tqdm progress bar on standard error.
    rng : None, int or numpy.random.Generator
        The run's seed: seeds a rule given by name, and is recorded. When
        resuming without one, the recorded seed is used again.
    max_failures : int, default 5
        Consecutive failed invocations after which the run stops with
        :class:`TargetFailed`; also the misses in a row after which a named
        series is no longer waited for.
    stop_when : str, default "all"
        For a target that gives named series (:attr:`Measurement.series`):
        each series, and the primary value as the series ``"value"``, is
        judged by its own copy of ``rule`` (a
        :class:`perfstats.MultiMonitor`), and the run ends when ``"all"``
        of them have stopped, when ``"any"`` has, or when the series of
        that name has. ``max_n`` caps each series. A target whose
        ``selects_series`` is true runs only the series still going, once
        some have stopped (:meth:`Target.invoke_only`). The series go to
        the record's series table (format ``perfstats-record/1.1``, see
        :mod:`perfstats.adapters.records.series_table`); the result's
        ``decisions`` hold every series' decision.

    Returns
    -------
    RunResult
        The final decision and every judgement, the whole record's
        invocations (resumed ones included), why the run stopped, the seed
        and the metadata, with each named series' decision and values.

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
    settings = _settings(max_n, max_seconds, concurrency, spacing, warmup, max_failures, max_warmup)
    if not isinstance(stop_when, str) or not stop_when.strip():
        raise ValueError(f"stop_when must be 'all', 'any' or a series name; got {stop_when!r}")
    settings = replace(settings, stop_when=stop_when)
    if resume and record is None:
        raise ValueError("resume=True needs the record to resume")
    # Everything that can be refused is checked before the record is created,
    # so bad input leaves no file behind.
    previous = read_metadata(record) if resume and record is not None else {}
    seed = run_seed(rng, previous.get("seed"))
    rec: Record | None = None
    table: SeriesTable | None = None
    try:
        rule_obj = build_rule(rule, rule_options, seed)
        rec = Record(record, resume=resume, force=force) if record is not None else None
        metadata = _metadata(target, rule_obj, seed, settings, rec, force)
        if rec is not None:
            last_run = int(rec.existing["run"].max()) if len(rec.existing) else 0
            table = SeriesTable(rec.path, resume=resume, last_run=last_run)
            rec.write_metadata(metadata)
        session = Session(target, rule_obj, rec, settings, progress, started, table)
        return session.execute(metadata, seed)
    finally:
        try:
            target.close()
        finally:
            try:
                if table is not None:
                    table.close()
            finally:
                if rec is not None:
                    rec.close()


def _settings(
    max_n: Any,
    max_seconds: Any,
    concurrency: Any,
    spacing: Any,
    warmup: Any,
    max_failures: Any,
    max_warmup: Any = None,
) -> Settings:
    warmup, max_warmup = warmup_setting(warmup, max_warmup)
    return Settings(
        max_n=None if max_n is None else count_at_least(max_n, "max_n", 1),
        max_seconds=None if max_seconds is None else _seconds(max_seconds, "max_seconds"),
        concurrency=count_at_least(concurrency, "concurrency", 1),
        spacing=0.0 if spacing is None else _seconds(spacing, "spacing", allow_zero=True),
        warmup=warmup,
        max_failures=count_at_least(max_failures, "max_failures", 1),
        max_warmup=max_warmup,
    )


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


def build_rule(rule: Rule | str, options: Mapping[str, Any] | None, seed: int | None) -> Rule:
    """``rule`` itself, or the rule registered under that name built with ``options``.

    A randomised rule given by name is seeded with ``seed`` unless the
    options set ``rng``.

    Examples
    --------
    >>> from perfstats.adapters.driver import build_rule
    >>> build_rule("fixed", {"n": 7}, seed=1)
    Fixed(n=7)
    """
    if isinstance(rule, Rule):
        if options:
            raise ValueError("rule_options apply only to a rule given by name")
        return rule
    if not isinstance(rule, str):
        raise ValueError(f"rule must be a perfstats Rule or a rule name; got {rule!r}")
    opts = dict(options or {})
    cls = RULES.get(rule.lower())
    if cls is not None and seed is not None and "rng" not in opts:
        if "rng" in inspect.signature(cls.__init__).parameters:
            opts["rng"] = seed
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", DeprecationWarning)
            built = by_name(rule, **opts)
    except (TypeError, ValueError) as exc:
        raise ValueError(str(exc)) from None
    for w in caught:
        if issubclass(w.category, DeprecationWarning):
            # An old option spelling on a command line: say so where it is seen.
            logger.warning("warning: %s", w.message)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return built


def _normal(data: Any) -> Any:
    """``data`` as it reads back from JSON, so recorded and new configs compare equal."""
    return json.loads(json.dumps(plain(data)))


def _metadata(
    target: Target,
    rule: Rule,
    seed: int,
    settings: Settings,
    rec: Record | None,
    force: bool,
) -> dict[str, Any]:
    target_config = _normal(target.config())
    rule_config = _normal({"name": rule.name, "config": rule.config()})
    previous: Mapping[str, Any] = rec.metadata if rec is not None else {}
    if rec is not None and (previous or len(rec.existing)):
        _check_resume(rec, target_config, rule_config, force, type(rule).renamed_options())
    session = {
        "started_at": utc_now().isoformat(),
        "ended_at": None,
        "machine": machine_info(),
        "software": software_info(),
        "command_line": redact(list(sys.argv)),
        "settings": plain(settings.__dict__),
        "git": _git(target_config),
    }
    sessions = [*list(previous.get("sessions", [])), session]
    metadata = {
        "format": FORMAT,
        "target": target_config,
        "rule": rule_config,
        "seed": seed,
        "sessions": sessions,
        "fields": field_descriptions(FORMAT_RUN),
    }
    # A resumed record with series keeps its format and series descriptions.
    for key in ("format", "primary", "primary_judged", "series"):
        if key in previous and (key != "format" or previous[key] == SERIES_FORMAT):
            metadata[key] = previous[key]
    return metadata


def _check_resume(
    rec: Record,
    target_config: Mapping[str, Any],
    rule_config: Mapping[str, Any],
    force: bool,
    renamed: Mapping[str, str],
) -> None:
    """Refuse to continue a record with another target, rule or unit (the difference named)."""
    where = os.fspath(rec.path)
    for what, new in (("target", target_config), ("rule", rule_config)):
        old = rec.metadata.get(what)
        if what == "rule":
            old = _current_names(old, renamed)
        if old is None:
            if rec.metadata and not force:
                raise ValueError(
                    f"cannot resume {where}: its metadata names no {what}; "
                    "resume with --force to continue anyway"
                )
        elif old != new:
            raise ValueError(
                f"cannot resume {where}: the {what} differs from the record's "
                f"({_difference(old, new)})"
            )
    # The rows say which unit the values are in, whatever the metadata says.
    ok = rec.existing[rec.existing["status"] == "ok"]
    units = sorted(set(ok["unit"]))
    unit = target_config.get("unit")
    if isinstance(unit, str) and units and units != [unit]:
        raise ValueError(
            f"cannot resume {where}: its values are in {', '.join(map(repr, units))}, "
            f"the target's in {unit!r}"
        )


def _git(target_config: Mapping[str, Any]) -> dict[str, Any] | None:
    """The git commit of the target's local working directory, if it is a work tree."""
    directory = target_directory(target_config)
    return None if directory is None else git_state(directory)


def _current_names(rule_config: Any, renamed: Mapping[str, str]) -> Any:
    """A recorded rule configuration with options renamed since under their new names."""
    if not (isinstance(rule_config, dict) and isinstance(rule_config.get("config"), dict)):
        return rule_config
    options = {renamed.get(k, k): v for k, v in rule_config["config"].items()}
    return {**rule_config, "config": options}


def _difference(old: Any, new: Any) -> str:
    if isinstance(old, dict) and isinstance(new, dict):
        keys = sorted(set(old) | set(new))
        diffs = [f"{k}: {old.get(k)!r} -> {new.get(k)!r}" for k in keys if old.get(k) != new.get(k)]
        return "; ".join(diffs)
    return f"{old!r} -> {new!r}"
