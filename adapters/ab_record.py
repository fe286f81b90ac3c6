"""The record of an A-B suite run: one CSV row per execution, and its metadata JSON.

Rows are appended and flushed as each call finishes, so an interrupted run
keeps every finished measurement; failed executions are rows too, with
their status and message and no value. Columns:

``call``, ``trial``, ``slot``
    the call (1-based, in start order), its round or trial, and its
    position in the trial's random order (see
    :mod:`perfstats.adapters.ab_schedule`);
``benchmark``, ``version``, ``repeat``, ``order``
    what was executed: the version's ``repeat``-th run in the call, and its
    1-based position among the call's executions;
``value``, ``unit``, ``started_at``, ``status``, ``error``, ``extra``
    as in the driver's record.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from .ab_schedule import Call
from .measurement import Measurement
from .record import create_csv, metadata_path, read_rows

COLUMNS = (
    "call",
    "trial",
    "slot",
    "benchmark",
    "version",
    "repeat",
    "order",
    "value",
    "unit",
    "started_at",
    "status",
    "error",
    "extra",
)
FORMAT = "perfstats-ab-record/1"
_INTEGERS = ("call", "trial", "slot", "repeat", "order")
_TEXT = ("benchmark", "version", "unit", "status", "error", "extra")


def rows_of(call: Call, measurements: Sequence[Measurement]) -> list[dict[str, Any]]:
    """The record rows of one finished call (plain Python values).

    Examples
    --------
    >>> from perfstats.adapters.ab_schedule import duet_plan
    >>> from perfstats.adapters.measurement import Measurement, utc_now
    >>> call = duet_plan(["a"], calls=1, repeats=1, rng=0)[0]
    >>> ms = [Measurement(1.0, "ns", None, utc_now()), Measurement(2.0, "ns", None, utc_now())]
    >>> [(r["order"], r["repeat"], r["value"]) for r in rows_of(call, ms)]
    [(1, 1, 1.0), (2, 1, 2.0)]
    """
    if len(measurements) != len(call.executions):
        raise ValueError(
            f"call {call.call} planned {len(call.executions)} executions but "
            f"{len(measurements)} measurements came back"
        )
    rows = []
    for order, (execution, m) in enumerate(
        zip(call.executions, measurements, strict=True), start=1
    ):
        rows.append(
            {
                "call": call.call,
                "trial": call.trial,
                "slot": call.slot,
                "benchmark": call.benchmark,
                "version": execution.version,
                "repeat": execution.repeat,
                "order": order,
                "value": m.value,
                "unit": m.unit,
                "started_at": m.started_at.isoformat(timespec="microseconds"),
                "status": m.status,
                "error": m.error,
                "extra": json.dumps(dict(m.extra), sort_keys=True, default=str) if m.extra else "",
            }
        )
    return rows


def frame(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Rows (as written) to a typed DataFrame with the record's columns.

    Examples
    --------
    >>> from perfstats.adapters.ab_record import frame
    >>> frame([]).columns.tolist()[:5]
    ['call', 'trial', 'slot', 'benchmark', 'version']
    """
    df = pd.DataFrame(list(rows), columns=list(COLUMNS))
    for col in _INTEGERS:
        df[col] = pd.to_numeric(df[col]).astype("int64")
    df["value"] = pd.to_numeric(df["value"]).astype("float64")
    df["started_at"] = pd.to_datetime(df["started_at"], utc=True, format="ISO8601")
    for col in _TEXT:
        df[col] = df[col].map(_as_text)
    return df


def _as_text(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        # repr round-trips exactly: the CSV holds the number measured.
        return repr(value) if math.isfinite(value) else ""
    return str(value)


def read_ab_record(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read an A-B record CSV (one row per execution) into a typed DataFrame.

    A last line cut short by a crash is ignored.

    Raises
    ------
    ValueError
        When the file is missing or is not an A-B record.

    Examples
    --------
    A record written by ``perfstats ab --record suite.csv`` reads back as
    ``read_ab_record("suite.csv")``, one row per execution; a path that is
    not there is an error that says so:

    >>> from perfstats.adapters.ab_record import read_ab_record
    >>> read_ab_record("no-such-suite.csv")
    Traceback (most recent call last):
    ...
    ValueError: record no-such-suite.csv does not exist
    """
    return frame(read_rows(path, COLUMNS, "an A-B record"))


def read_ab_metadata(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The metadata beside the A-B record at ``path`` (empty when there is none).

    Examples
    --------
    >>> from perfstats.adapters.ab_record import read_ab_metadata
    >>> read_ab_metadata("suite.csv")["suite"]["schedule"]  # doctest: +SKIP
    'duet'
    """
    meta = metadata_path(path)
    if not meta.exists():
        return {}
    try:
        data = json.loads(meta.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read {os.fspath(meta)}: {exc}") from None
    return data if isinstance(data, dict) else {}


class AbRecord:
    """Append-only writer of an A-B record CSV plus its metadata JSON.

    An existing file is refused, so a run never overwrites measurements.

    Examples
    --------
    >>> from perfstats.adapters.ab_record import AbRecord
    >>> rec = AbRecord("suite.csv")  # doctest: +SKIP
    >>> rec.append(rows_of(call, measurements))  # doctest: +SKIP
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.meta_path = metadata_path(self.path)
        self._file, self._writer = create_csv(self.path, COLUMNS, "choose another path")

    def append(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Write rows and flush them to the operating system."""
        for row in rows:
            self._writer.writerow([_cell(row[c]) for c in COLUMNS])
        self._file.flush()

    def write_metadata(self, metadata: Mapping[str, Any]) -> None:
        """Replace the metadata file atomically (write a temporary file, rename)."""
        tmp = self.meta_path.with_name(self.meta_path.name + ".tmp")
        tmp.write_text(json.dumps(dict(metadata), indent=2, default=str) + "\n", encoding="utf-8")
        os.replace(tmp, self.meta_path)

    def close(self) -> None:
        """Close the CSV file."""
        if not self._file.closed:
            self._file.close()
