"""The series table of a run record: every named series of every run, in long rows.

A run whose target gives named series (the benchmarks of a suite, the
metrics of a run: :class:`~perfstats.adapters.records.series.SeriesValue`)
is written in record format ``perfstats-record/1.1``: the run CSV stays as
it is (one row per invocation with the primary value, so every reader of
``perfstats-record/1`` reads it), and beside it ``run.csv.series.csv``
holds one row per run and series::

    run,series,value,unit,status,error
    1,parse,1532.0,ns,ok,
    1,render,,ns,error,not in this run's output

* ``run`` is the run number of the run CSV (join on it for the phase,
  interval and start time);
* ``status`` is ``ok`` or ``error``: a series that missed in a run whose
  invocation succeeded has an ``error`` row saying why; a failed
  invocation has no series rows (its row in the run CSV says why);
* the metadata's ``series`` section describes each series by name
  (``unit``, ``direction``: ``"lower"`` or ``"higher"`` is better,
  ``source``), and ``primary`` names the primary value's series
  (:data:`PRIMARY`).

Long rows keep the table readable by pandas as it is
(``pd.read_csv("run.csv.series.csv")``, then ``pivot`` on ``series``)
whatever the number of series, and a series that appears late or misses
in a run needs no empty columns. :func:`long_frame` gives the primary and
the series in one long table with the run's phase.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd

from .files import write_atomic
from .measurement import ERROR, OK
from .record import (
    MEASURE,
    _RowWriter,
    complete_end,
    create_csv,
    csv_cell,
    located,
    read_rows,
    series_path,
    spreadsheet_text,
)
from .redaction import redact_text
from .series import SeriesValue

#: The name of the primary value's series: the run CSV's ``value`` column.
PRIMARY = "value"
#: The columns of the series table.
SERIES_COLUMNS = ("run", "series", "value", "unit", "status", "error")
_KIND = "a perfstats series table"


def series_row(run: int, name: str, item: SeriesValue) -> dict[str, Any]:
    """One row of the series table for ``item`` of run ``run``.

    Examples
    --------
    >>> from perfstats.adapters.records.series import SeriesValue
    >>> from perfstats.adapters.records.series_table import series_row
    >>> series_row(3, "parse", SeriesValue(12.5, "ns"))
    {'run': 3, 'series': 'parse', 'value': 12.5, 'unit': 'ns', 'status': 'ok', 'error': None}
    """
    return {
        "run": run,
        "series": name,
        "value": item.value,
        "unit": item.unit,
        "status": OK if item.ok else ERROR,
        "error": item.error,
    }


def describe(item: SeriesValue) -> dict[str, str]:
    """What the metadata's ``series`` section says of a series.

    Examples
    --------
    >>> from perfstats.adapters.records.series import SeriesValue
    >>> from perfstats.adapters.records.series_table import describe
    >>> describe(SeriesValue(2.0e8, "B", source="rusage"))
    {'unit': 'B', 'direction': 'lower', 'source': 'rusage'}
    """
    return {"unit": item.unit, "direction": item.direction, "source": item.source}


def series_frame(rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Series-table rows (as written or read) to a typed DataFrame.

    Examples
    --------
    >>> from perfstats.adapters.records.series_table import series_frame
    >>> series_frame([]).columns.tolist()
    ['run', 'series', 'value', 'unit', 'status', 'error']
    """
    df = pd.DataFrame(list(rows), columns=list(SERIES_COLUMNS))
    df["run"] = pd.to_numeric(df["run"]).astype("int64")
    df["value"] = pd.to_numeric(df["value"]).astype("float64")
    for col in ("series", "unit", "status", "error"):
        texts = df[col].map(lambda v: "" if v is None or v != v else str(v))
        df[col] = texts.map(spreadsheet_text).map(redact_text)
    return df


def read_series(path: str | os.PathLike[str]) -> pd.DataFrame:
    """The series table of the record at ``path`` (empty when the record has none).

    A last line cut short by a crash is left out.

    Examples
    --------
    >>> from perfstats.adapters.records.series_table import read_series
    >>> read_series("no-such-run.csv").empty
    True
    """
    where = series_path(path)
    if not where.exists():
        return series_frame([])
    return series_frame(read_rows(where, SERIES_COLUMNS, _KIND, integers=("run",)))


def judged_runs(measurements: pd.DataFrame) -> pd.DataFrame:
    """The run CSV's rows a rule judges: successful measurement runs, in run order."""
    ok = measurements[(measurements["status"] == OK) & (measurements["phase"] == MEASURE)]
    return ok.sort_values("run")


def series_values(measurements: pd.DataFrame, series: pd.DataFrame, name: str) -> np.ndarray:
    """The values of series ``name`` a rule judges: its ok values of judged runs, in run order.

    ``name`` :data:`PRIMARY` is the run CSV's ``value`` column.

    Examples
    --------
    >>> from perfstats.adapters.records.record import frame
    >>> from perfstats.adapters.records.series_table import series_frame, series_values
    >>> series_values(frame([]), series_frame([]), "parse").size
    0
    """
    runs = judged_runs(measurements)
    if name == PRIMARY:
        return runs["value"].to_numpy(dtype=np.float64)
    mine = series[(series["series"] == name) & (series["status"] == OK)]
    mine = mine[mine["run"].isin(runs["run"])].sort_values("run")
    return mine["value"].to_numpy(dtype=np.float64)


def long_frame(measurements: pd.DataFrame, series: pd.DataFrame) -> pd.DataFrame:
    """The primary value and every series in one long table with each run's phase.

    Columns ``run, interval, phase, series, value, unit, status, error``;
    the primary value's rows are series :data:`PRIMARY`. A failed
    invocation appears once, as a failed row of the primary.

    Examples
    --------
    >>> from perfstats.adapters.records.record import frame
    >>> from perfstats.adapters.records.series_table import long_frame, series_frame
    >>> long_frame(frame([]), series_frame([])).columns.tolist()[:4]
    ['run', 'interval', 'phase', 'series']
    """
    columns = ["run", "interval", "phase", "series", "value", "unit", "status", "error"]
    primary = measurements.assign(series=PRIMARY)[columns]
    runs = measurements[["run", "interval", "phase"]]
    named = series.merge(runs, on="run", how="inner")[columns]
    if named.empty:
        return primary.reset_index(drop=True)
    both = pd.concat([primary, named], ignore_index=True)
    return both.sort_values(["run", "series"], kind="stable").reset_index(drop=True)


def metric_frame(measurements: pd.DataFrame, series: pd.DataFrame, name: str) -> pd.DataFrame:
    """The run CSV's rows with series ``name`` in place of the primary value.

    What ``--metric NAME`` reads: a record of one series, shaped like the
    run CSV, so every reader of a run record (report, compare, gate) reads
    any series as it reads the primary. A run whose invocation failed stays
    failed; an ok run where the series missed is failed with the series'
    error; an ok run without a row of the series (not asked for, once it
    had stopped) is left out. ``name`` :data:`PRIMARY` gives the rows as
    they are.

    Raises
    ------
    ValueError
        When the record has no series ``name`` (the message lists those
        it has).

    Examples
    --------
    >>> from perfstats.adapters.records.record import frame
    >>> from perfstats.adapters.records.series_table import metric_frame, series_frame
    >>> metric_frame(frame([]), series_frame([]), "value").empty
    True
    """
    if name == PRIMARY:
        return measurements
    names = list(dict.fromkeys(series["series"]))
    if name not in names:
        known = ", ".join(map(repr, [PRIMARY, *names]))
        raise ValueError(f"no series {name!r} in this record; it has {known}")
    mine = series[series["series"] == name].drop_duplicates("run", keep="last").set_index("run")
    failed = measurements["status"] != OK
    kept = measurements[failed | measurements["run"].isin(mine.index)].copy()
    there = kept["run"].isin(mine.index) & (kept["status"] == OK)
    runs = kept.loc[there, "run"]
    kept.loc[there, "value"] = mine.loc[runs, "value"].to_numpy()
    kept.loc[there, "status"] = mine.loc[runs, "status"].to_numpy()
    kept.loc[there, "error"] = mine.loc[runs, "error"].to_numpy()
    unit = str(mine["unit"].iloc[-1]) if len(mine) else ""
    kept["unit"] = unit
    return kept.reset_index(drop=True)


class SeriesTable:
    """Append-only writer of a record's series table, created on its first row.

    Parameters
    ----------
    record : str or path-like
        The run CSV; the table goes beside it (:func:`series_path`). The
        caller holds the record's lock (:class:`~perfstats.adapters.records.record.Record`).
    resume : bool, default False
        Continue an existing table: a last line cut short by a crash and
        rows of runs after ``last_run`` (the run CSV's last row) are
        dropped, so the table never holds a run the run CSV lacks.
    last_run : int, default 0
        The last run number of the run CSV being resumed.

    Attributes
    ----------
    existing : pandas.DataFrame
        The rows already in the table when resumed.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from perfstats.adapters.records.series import SeriesValue
    >>> from perfstats.adapters.records.series_table import SeriesTable, read_series, series_row
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.csv"
    >>> table = SeriesTable(path)
    >>> table.append([series_row(1, "parse", SeriesValue(12.5, "ns"))])
    >>> table.close()
    >>> read_series(path)["value"].tolist()
    [12.5]
    """

    def __init__(
        self, record: str | os.PathLike[str], *, resume: bool = False, last_run: int = 0
    ) -> None:
        self.path = series_path(record)
        self._file: IO[str] | None = None
        self._writer: _RowWriter | None = None
        self.existing = series_frame([])
        if resume and (self.path.exists() or self.path.is_symlink()):
            self._resume(last_run)
        elif self.path.exists() or self.path.is_symlink():
            raise ValueError(
                f"series table {os.fspath(self.path)} already exists without its record; "
                "move it away or choose another path"
            )

    def _resume(self, last_run: int) -> None:
        if self.path.is_symlink():
            raise ValueError(
                f"cannot resume: series table {os.fspath(self.path)} is a symbolic link"
            )
        raw = self.path.read_bytes()
        text = raw[: complete_end(raw)].decode("utf-8", "replace")
        rows = read_rows(self.path, SERIES_COLUMNS, _KIND, integers=("run",))
        keep = [r for r in rows if int(r["run"]) <= last_run]
        if len(keep) != len(rows) or complete_end(raw) != len(raw):
            out = io.StringIO()
            writer = _RowWriter(out)
            writer.writerow(SERIES_COLUMNS)
            cells = csv.reader(io.StringIO(text, newline=""))
            next(cells)
            for cell_row in cells:
                if int(cell_row[0]) <= last_run:
                    writer.writerow(cell_row)
            with located(self.path):
                write_atomic(self.path, out.getvalue())
        self.existing = series_frame(keep)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW)
        self._file = open(fd, "a", newline="", encoding="utf-8")
        self._writer = _RowWriter(self._file)

    def append(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Write rows and flush them to the operating system (the file made on the first)."""
        if not rows:
            return
        if self._writer is None:
            self._file, self._writer = create_csv(
                Path(self.path), SERIES_COLUMNS, "move it away or choose another path"
            )
        assert self._file is not None
        with located(self.path):
            for row in rows:
                self._writer.writerow([csv_cell(row[c]) for c in SERIES_COLUMNS])
            self._file.flush()

    def close(self) -> None:
        """Close the file, if one was opened."""
        if self._file is not None and not self._file.closed:
            with located(self.path):
                self._file.close()


__all__ = [
    "PRIMARY",
    "SERIES_COLUMNS",
    "SeriesTable",
    "describe",
    "judged_runs",
    "long_frame",
    "metric_frame",
    "read_series",
    "series_frame",
    "series_row",
    "series_values",
]
