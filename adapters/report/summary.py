"""Numbers a run's summary shows: percentile intervals and counts of a record."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from perfstats.characterization.describe import MIN_RUNS, Characterization, characterize
from perfstats.precision.interval import percentile_ci

from ..driver.result import judged_values
from ..records.record import MEASURE, WARMUP

QUARTILES = (0.25, 0.5, 0.75)


def percentile_rows(
    values: Any, *, quantiles: Sequence[float] = QUARTILES, level: float = 0.95
) -> list[dict[str, Any]]:
    """One row per quantile: estimate and confidence interval (exact order statistics).

    Examples
    --------
    >>> from perfstats.adapters.report.summary import percentile_rows
    >>> rows = percentile_rows(range(1, 101))
    >>> rows[1]["percentile"], rows[1]["estimate"]
    ('P50', 50.5)
    """
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        return []
    intervals = percentile_ci(x, list(quantiles), level=level, method="order")
    if not isinstance(intervals, tuple):
        intervals = (intervals,)
    return [
        {
            "percentile": f"P{100 * iv.q:g}",
            "estimate": iv.estimate,
            "low": iv.low,
            "high": iv.high,
            "rel_error": _rel_error(iv.estimate, iv.low, iv.high),
            "level": iv.level,
            "method": iv.method,
            "n": iv.n,
        }
        for iv in intervals
    ]


def _rel_error(estimate: float, low: float, high: float) -> float:
    if not (math.isfinite(low) and math.isfinite(high)) or estimate == 0:
        return math.inf
    return max(estimate - low, high - estimate) / abs(estimate)


def counts(measurements: pd.DataFrame) -> dict[str, Any]:
    """Invocations by phase, status and cold/warm.

    Examples
    --------
    >>> from perfstats.adapters.records.record import frame
    >>> from perfstats.adapters.report.summary import counts
    >>> counts(frame([]))["invocations"]
    0
    """
    df = measurements
    measured = df[df["phase"] == MEASURE]
    cold = measured["cold"]
    return {
        "invocations": int(len(df)),
        "warmup": int((df["phase"] == WARMUP).sum()),
        "measured": int(len(measured)),
        "ok": int((measured["status"] == "ok").sum()),
        "error": int((measured["status"] == "error").sum()),
        "timeout": int((measured["status"] == "timeout").sum()),
        "cold": int((cold == True).sum()),  # noqa: E712 - a nullable boolean column
        "warm": int((cold == False).sum()),  # noqa: E712
        "intervals": int(measured["interval"].max()) if len(measured) else 0,
    }


def describe(measurements: pd.DataFrame) -> dict[str, Any]:
    """Location and spread of the judged values, with their unit.

    Examples
    --------
    >>> from perfstats.adapters.records.record import frame
    >>> from perfstats.adapters.report.summary import describe
    >>> describe(frame([]))
    {'n': 0, 'unit': ''}
    """
    values = judged_values(measurements)
    ok = measurements[(measurements["status"] == "ok") & (measurements["phase"] == MEASURE)]
    units = sorted(set(ok["unit"]))
    if values.size == 0:
        return {"n": 0, "unit": units[0] if units else ""}
    return {
        "n": int(values.size),
        "unit": units[0] if len(units) == 1 else ",".join(units),
        "min": float(values.min()),
        "mean": float(values.mean()),
        "max": float(values.max()),
        "std": float(values.std(ddof=1)) if values.size > 1 else 0.0,
    }


def top_errors(measurements: pd.DataFrame, limit: int = 3) -> list[dict[str, Any]]:
    """The most frequent failure messages.

    Examples
    --------
    >>> from perfstats.adapters.records.record import frame
    >>> from perfstats.adapters.report.summary import top_errors
    >>> top_errors(frame([]))
    []
    """
    failed = measurements[measurements["status"] != "ok"]
    if not len(failed):
        return []
    grouped = failed.groupby(["status", "error"]).size().sort_values(ascending=False)
    return [
        {"status": status, "error": error, "count": int(n)}
        for (status, error), n in grouped.head(limit).items()
    ]


def run_characterization(
    measurements: pd.DataFrame,
) -> tuple[np.ndarray, Characterization | None]:
    """All successful values of a record in run order (warm-up included) and their characterisation.

    The characterisation is None for fewer than 5 values.

    Examples
    --------
    >>> from perfstats.adapters.records.record import frame
    >>> from perfstats.adapters.report.summary import run_characterization
    >>> values, c = run_characterization(frame([]))
    >>> values.size, c
    (0, None)
    """
    ok = measurements[measurements["status"] == "ok"].sort_values("run")
    values = ok["value"].to_numpy(dtype=np.float64)
    if values.size < MIN_RUNS:
        return values, None
    return values, characterize(values)


def report(measurements: pd.DataFrame, metadata: Mapping[str, Any]) -> dict[str, Any]:
    """Everything ``perfstats report`` shows, as plain data.

    Examples
    --------
    >>> from perfstats.adapters import read_record
    >>> from perfstats.adapters.records.record import read_metadata
    >>> from perfstats.adapters.report.summary import report
    >>> report(read_record("run.csv"), read_metadata("run.csv"))["counts"]  # doctest: +SKIP
    {'invocations': 35, 'warmup': 0, 'measured': 35, 'ok': 35, ...}
    """
    sessions = list(metadata.get("sessions", []))
    last = sessions[-1] if sessions else {}
    _, characterization = run_characterization(measurements)
    return {
        "target": metadata.get("target"),
        "rule": metadata.get("rule"),
        "seed": metadata.get("seed"),
        "sessions": len(sessions),
        "machine": last.get("machine"),
        "started_at": sessions[0].get("started_at") if sessions else None,
        "ended_at": last.get("ended_at"),
        "stopped_by": last.get("stopped_by"),
        "decision": last.get("decision"),
        "counts": counts(measurements),
        "values": describe(measurements),
        "percentiles": percentile_rows(judged_values(measurements)),
        "errors": top_errors(measurements),
        "warmup": last.get("warmup"),
        "git": last.get("git"),
        "characterization": None if characterization is None else characterization.to_dict(),
        "characterization_text": None if characterization is None else str(characterization),
    }
