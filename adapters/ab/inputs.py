"""Benchmark results from files, whatever wrote them: tidy per-run values by benchmark.

The gate and the history read the same kinds of input:

* a perfstats **record** (the CSV of ``perfstats run`` with its metadata):
  one benchmark, named by its target (the metadata's target name, else the
  record's ``target`` column) or by the file's stem; its values are the
  successful measurement runs (warm-up and failed runs left out);
* a **tidy CSV** with columns ``benchmark`` and ``value`` (optionally
  ``unit``, ``commit``, ``date``, ``direction``), one row per run;
* any file the **importers** read (pyperf, hyperfine, Google Benchmark,
  pytest-benchmark, asv, JMH, criterion, ``go test -bench``; see
  :mod:`perfstats.adapters.records.importers`);
* a **directory** of such files (a benchmark may come from one file only),
  or a criterion output directory.

For a history, a directory is a sequence of commits: each file directly in
it is one commit (its ``commit`` from what the tool recorded, else the
file's stem), and each subdirectory is one commit named by the
subdirectory, holding files as above. A commit's date is the first run's
start of a record, or what the tool or the CSV recorded; commits are put in
date order when every one has a date; else a CSV whose commits come one
after another (each commit's rows together) keeps its own order, and other
commits (a directory's, a CSV's whose rows are interleaved) are put in name
order. A benchmark whose commits give its times in different units is
converted to seconds; other mixed units are refused.
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..driver.result import judged_values
from ..records.importers import read as read_tool_results
from ..records.importers.results import HIGHER, LOWER, TIME_UNITS
from ..records.record import COLUMNS as RECORD_COLUMNS
from ..records.record import MEASURE, metadata_path, read_metadata, read_record
from ..records.series_table import PRIMARY, metric_frame, read_series
from .persistence import AB

__all__ = ["NAMES", "ORDERS", "read_history", "read_results"]

#: How a record's benchmark is named: by its target, or by its file's stem.
NAMES = ("target", "file")

#: How a history's commits are ordered: "auto" (by date when every commit has
#: one, else the file's order when the file keeps each commit's rows together,
#: else by name), or by one rule.
ORDERS = ("auto", "date", "file", "name")

#: ``metric`` of :func:`read_results`: each judged series of a record.
AUTO = "auto"

_TIDY = ["benchmark", "unit", "value", "file", "commit", "date", "direction", "failed"]


def read_results(
    path: str | os.PathLike[str],
    *,
    names: str = "target",
    keep_unrun: bool = False,
    metric: str = "auto",
) -> pd.DataFrame:
    """The per-run values in a file or a directory of files, one row per run.

    Parameters
    ----------
    path : str or path-like
        A record, a tidy CSV, a file of another tool, or a directory of them.
    names : {"target", "file"}, default "target"
        Name a record's benchmark by its target, or by its file's stem (when
        the two sides ran the same benchmark under different command lines).
    keep_unrun : bool, default False
        Keep a benchmark none of whose runs succeeded (a record without a
        successful run, a tool's benchmark whose every run failed)
        as one row with a NaN ``value`` and its (positive) ``failed`` count, for the
        gate to report as an error, instead of refusing the file.
    metric : str, default "auto"
        Which values of a perfstats record with named series to read:
        ``"auto"`` reads each judged series as a benchmark of its own (the
        benchmarks of a suite by their names; a program's judged metrics as
        ``TARGET/NAME`` beside its value), ``"value"`` only the primary
        value, another name that series of every record.

    Returns
    -------
    pandas.DataFrame
        Columns ``benchmark``, ``unit`` (None when unknown), ``value``,
        ``file``, ``commit`` and ``date`` (None when the file says nothing),
        ``direction`` (``"lower"`` or ``"higher"``: which values are better,
        from the tool's unit or mode; a tidy CSV may give it in a
        ``direction`` column) and ``failed`` (the benchmark's runs that
        failed in that file, left out of the values, on each of its rows).

    Raises
    ------
    ValueError
        On a missing, empty or unreadable file, a file of no known kind, a
        benchmark without a successful run (unless ``keep_unrun``), or a
        benchmark found in two files.

    Examples
    --------
    >>> import pandas as pd
    >>> from perfstats.adapters.ab.inputs import read_results
    >>> pd.DataFrame({"benchmark": ["a", "a"], "value": [1.0, 1.1]}).to_csv("t.csv", index=False)
    ... # doctest: +SKIP
    >>> read_results("t.csv")[["benchmark", "value"]]  # doctest: +SKIP
      benchmark  value
    0         a    1.0
    1         a    1.1
    """
    if names not in NAMES:
        raise ValueError(f"names must be one of {', '.join(NAMES)}; got {names!r}")
    p = Path(path)
    if not p.exists():
        raise ValueError(f"{os.fspath(p)} does not exist")
    if not p.is_dir():
        return _read_file(p, names, keep_unrun, metric)
    files = _result_files(p)
    if not files:
        if any(p.rglob("new/sample.json")):
            return _tidy(read_tool_results(p), p)
        raise ValueError(f"directory {os.fspath(p)} holds no results file")
    return _unique(p, [_read_file(f, names, keep_unrun, metric) for f in files])


def read_history(
    path: str | os.PathLike[str], *, names: str = "target", order: str = "auto"
) -> pd.DataFrame:
    """Per-run values over a history of commits, one row per run.

    Parameters
    ----------
    path : str or path-like
        A tidy CSV with columns ``commit``, ``benchmark`` and ``value``
        (``date`` and ``unit`` optional), or a directory of commits (see the
        module's description).
    names : {"target", "file"}, default "target"
        How a record's benchmark is named (see :func:`read_results`).
    order : {"auto", "date", "file", "name"}, default "auto"
        How the commits are ordered: by their dates (each commit's earliest),
        as the file lists them (a CSV only; a commit's first row places it),
        or by name. ``"auto"`` takes the dates when every commit has one,
        else the file's order when each commit's rows are together in it
        (a file written commit after commit), else the names.

    Returns
    -------
    pandas.DataFrame
        Columns as :func:`read_results`, ``commit`` filled, in history order;
        ``frame.attrs["order"]`` says which order was used (``"date"``,
        ``"file"`` or ``"name"``). A benchmark whose commits give times in
        different units has them all in seconds.

    Raises
    ------
    ValueError
        As :func:`read_results`, and when a file holds no ``commit`` column,
        a benchmark appears twice in one commit, a benchmark mixes units
        that are not all times (or has a unit in some commits and none in
        others), or ``order`` cannot be followed (``"date"`` with a commit
        without a date, ``"file"`` for a directory).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from perfstats.adapters.ab.inputs import read_history
    >>> path = Path(tempfile.mkdtemp()) / "h.csv"
    >>> _ = path.write_text("commit,benchmark,value,unit\\nf3e1,x,900,ms\\n0a7c,x,1.1,s\\n")
    >>> frame = read_history(path)
    >>> frame["commit"].tolist(), frame["value"].tolist(), frame.attrs["order"]
    (['f3e1', '0a7c'], [0.9, 1.1], 'file')
    """
    if order not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(ORDERS)}; got {order!r}")
    p = Path(path)
    if not p.exists():
        raise ValueError(f"{os.fspath(p)} does not exist")
    if not p.is_dir():
        frame = _read_file(p, names)
        if frame["commit"].isna().any():
            raise ValueError(
                f"{os.fspath(p)} is one set of results, not a history: it needs a 'commit' "
                "column (or give a directory with one file or folder per commit)"
            )
        return _in_history_order(_one_unit(frame, p), p, order, in_one_file=True)
    parts = []
    for entry in sorted(p.iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_dir():
            part = read_results(entry, names=names)
            part["commit"] = entry.name
        elif _is_result_file(entry):
            part = _read_file(entry, names)
            part["commit"] = part["commit"].where(part["commit"].notna(), entry.stem)
        else:
            continue
        parts.append(part)
    if not parts:
        raise ValueError(f"directory {os.fspath(p)} holds no results file or commit folder")
    frame = pd.concat(parts, ignore_index=True)
    for (commit, name), rows in frame.groupby(["commit", "benchmark"], sort=False):
        files = rows["file"].unique()
        if len(files) > 1:
            raise ValueError(
                f"benchmark {name!r} appears twice in commit {commit!r}: in {files[0]} and "
                f"{files[1]}"
            )
    return _in_history_order(_one_unit(frame, p), p, order, in_one_file=False)


def _in_history_order(
    frame: pd.DataFrame, where: Path, order: str, *, in_one_file: bool
) -> pd.DataFrame:
    frame = frame.copy()
    frame["commit"] = frame["commit"].astype(str)
    dated = bool(frame["date"].notna().all())
    commits = frame["commit"]
    # A file written commit after commit keeps each commit's rows together;
    # rows of interleaved commits say nothing about the history's order.
    blocks = int((commits != commits.shift()).sum())
    together = in_one_file and blocks == commits.nunique()
    if order == "auto":
        order = "date" if dated else "file" if together else "name"
    if order == "date":
        if not dated:
            undated = frame.loc[frame["date"].isna(), "commit"].iloc[0]
            raise ValueError(f"{os.fspath(where)}: commit {undated!r} has no date to order by")
        try:
            frame["date"] = pd.to_datetime(frame["date"], utc=True, format="ISO8601")
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{os.fspath(where)}: a date is not a date: {exc}") from None
        first = list(frame.groupby("commit", sort=False)["date"].min().sort_values(kind="stable")
                     .index)  # fmt: skip
    elif order == "file":
        if not in_one_file:
            raise ValueError(f"{os.fspath(where)} is a directory: its commits have no file "
                             "order (order them by date or by name)")  # fmt: skip
        first = list(dict.fromkeys(commits))
    else:
        first = sorted(commits.unique())
    rank = {commit: i for i, commit in enumerate(first)}
    positions = frame["commit"].map(rank).to_numpy()
    result = frame.iloc[np.argsort(positions, kind="stable")].reset_index(drop=True)
    result.attrs["order"] = order
    return result


def _one_unit(frame: pd.DataFrame, where: Path) -> pd.DataFrame:
    """Each benchmark in one unit over the commits: times in seconds when they differ."""
    frame = frame.copy()
    for name, rows in frame.groupby("benchmark", sort=False):
        units = rows["unit"].where(rows["unit"].notna(), None)
        given = set(units.dropna().astype(str))
        if len(given) <= 1 and (not given or units.notna().all()):
            continue
        if units.isna().any():
            bare = rows.loc[units.isna(), "commit"].iloc[0]
            raise ValueError(
                f"{os.fspath(where)}: benchmark {name!r} has the unit {sorted(given)[0]!r} in "
                f"some commits and none in commit {bare!r}; give every commit its unit"
            )
        if not given <= set(TIME_UNITS):
            raise ValueError(
                f"{os.fspath(where)}: benchmark {name!r} mixes the units {sorted(given)} over "
                "its commits; only time units are converted to one"
            )
        scale = units.map(TIME_UNITS).astype(np.float64)
        frame.loc[rows.index, "value"] = rows["value"].astype(np.float64) * scale
        frame.loc[rows.index, "unit"] = "s"
    return frame


def _result_files(directory: Path) -> list[Path]:
    return [f for f in sorted(directory.iterdir()) if f.is_file() and _is_result_file(f)]


def _is_result_file(path: Path) -> bool:
    # A record's metadata and series table are read with its CSV, never on
    # their own.
    return not path.name.startswith(".") and not path.name.endswith(
        (".meta.json", ".tmp", ".series.csv")
    )


def _unique(where: Path, parts: list[pd.DataFrame]) -> pd.DataFrame:
    seen: dict[str, str] = {}
    for part in parts:
        for name in part["benchmark"].unique():
            file = str(part["file"].iloc[0])
            if name in seen:
                raise ValueError(
                    f"{os.fspath(where)}: benchmark {name!r} is in {seen[name]} and in {file}; "
                    "a benchmark may come from one file only"
                )
            seen[name] = file
    return pd.concat(parts, ignore_index=True)


def _read_file(
    path: Path, names: str, keep_unrun: bool = False, metric: str = AUTO
) -> pd.DataFrame:
    if path.stat().st_size == 0:
        raise ValueError(f"{os.fspath(path)} is empty")
    header = _csv_header(path)
    if header is not None and tuple(header) == RECORD_COLUMNS:
        return _read_record(path, names, keep_unrun, metric)
    if header is not None and tuple(header) == AB.columns:
        # Its rows hold both versions of each benchmark: never one side.
        raise ValueError(
            f"{os.fspath(path)} is {AB.kind} (both versions of a suite); "
            "judge it with perfstats ab, not as one side of the gate"
        )
    if header is not None and {"benchmark", "value"} <= set(header):
        return _read_tidy_csv(path)
    try:
        results = read_tool_results(path, keep_unrun=keep_unrun)
    except ValueError as exc:
        if header is not None:
            raise ValueError(
                f"{os.fspath(path)} is neither a perfstats record nor a CSV with columns "
                f"benchmark and value (its header: {', '.join(header)})"
            ) from None
        raise exc from None
    frame = _tidy(results, path)
    frame["commit"] = _recorded(results.metadata, _COMMIT_KEYS)
    frame["date"] = _recorded(results.metadata, _DATE_KEYS)
    return frame


def _csv_header(path: Path) -> list[str] | None:
    """The header of a CSV file, or None when the file does not look like a CSV."""
    if path.suffix.lower() != ".csv":
        return None
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            row = next(csv.reader(f), None)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ValueError(f"{os.fspath(path)} is not a readable CSV: {exc}") from None
    return [c.strip() for c in row] if row else None


def _read_record(
    path: Path, names: str, keep_unrun: bool = False, metric: str = AUTO
) -> pd.DataFrame:
    df = read_record(path)
    if metric == PRIMARY or (metric == AUTO and not metadata_path(path).exists()):
        return _record_frame(path, df, names, keep_unrun)
    metadata = read_metadata(path)
    described = metadata.get("series") or {}
    series = read_series(path)
    if metric != AUTO:
        try:
            picked = metric_frame(df, series, metric)
        except ValueError as exc:
            raise ValueError(f"{os.fspath(path)}: {exc}") from None
        better = str((described.get(metric) or {}).get("direction", LOWER))
        return _record_frame(path, picked, names, keep_unrun, direction=better)
    judged = [n for n, d in described.items() if isinstance(d, Mapping) and d.get("judged", True)]
    if not judged or series.empty:
        return _record_frame(path, df, names, keep_unrun)
    # A suite's record: each judged series is a benchmark of its own. A
    # program's judged metrics stand beside its value, named after it.
    primary_judged = bool(metadata.get("primary_judged", True))
    parts = [_record_frame(path, df, names, keep_unrun)] if primary_judged else []
    prefix = f"{_record_name(path, df, names)}/" if primary_judged else ""
    for name in judged:
        parts.append(
            _record_frame(
                path, metric_frame(df, series, name), names, keep_unrun,
                direction=str(described[name].get("direction", LOWER)),
                benchmark=f"{prefix}{name}",
            )
        )  # fmt: skip
    return pd.concat(parts, ignore_index=True)


def _record_name(path: Path, df: pd.DataFrame, names: str) -> str:
    name = path.stem
    if names == "target":
        target = read_metadata(path).get("target") if metadata_path(path).exists() else None
        recorded = target.get("name") if isinstance(target, Mapping) else None
        column = [t for t in df["target"].unique() if t]
        if recorded:
            name = str(recorded)
        elif len(column) == 1:
            name = str(column[0])
    return name


def _record_frame(
    path: Path,
    df: pd.DataFrame,
    names: str,
    keep_unrun: bool = False,
    *,
    direction: str = LOWER,
    benchmark: str | None = None,
) -> pd.DataFrame:
    ok = df[(df["status"] == "ok") & (df["phase"] == MEASURE)]
    failed = int(((df["status"] != "ok") & (df["phase"] == MEASURE)).sum())
    if ok.empty and not (keep_unrun and failed):
        of = "" if benchmark is None else f" of {benchmark!r}"
        raise ValueError(f"{os.fspath(path)}: the record has no successful measured run{of}")
    name = benchmark if benchmark is not None else _record_name(path, df, names)
    if ok.empty:
        units_seen = sorted(set(df["unit"]))
        return pd.DataFrame({
            "benchmark": [name], "unit": [units_seen[0] if len(units_seen) == 1 else None],
            "value": [np.nan], "file": [os.fspath(path)], "commit": [None], "date": [None],
            "direction": [direction], "failed": [failed],
        })[_TIDY]  # fmt: skip
    units = sorted(set(ok["unit"]))
    if len(units) > 1:
        raise ValueError(f"{os.fspath(path)}: the record mixes units {units}")
    values = judged_values(df)
    return pd.DataFrame(
        {
            "benchmark": name,
            "unit": units[0] or None,
            "value": values,
            "file": os.fspath(path),
            "commit": None,
            "date": ok["started_at"].min().isoformat(),
            "direction": direction,
            "failed": failed,
        }
    )[_TIDY]


def _read_tidy_csv(path: Path) -> pd.DataFrame:
    where = os.fspath(path)
    df, lines = _csv_cells(path)
    if df.empty:
        raise ValueError(f"{where} has a header but no rows")
    cells = df["value"].str.strip()
    values = pd.to_numeric(cells.where(cells != "", None), errors="coerce").astype(np.float64)
    for k, (cell, value) in enumerate(zip(cells, values, strict=True)):
        # An empty cell stays NaN: the gate names its benchmark and side.
        if cell and not np.isfinite(value):
            kind = "a number" if np.isnan(value) and cell.lower().lstrip("+-") not in (
                "nan", "inf", "infinity") else "a finite number"  # fmt: skip
            raise ValueError(f"{where} line {lines[k]}: value {df['value'][k]!r} is not {kind}")
    names = df["benchmark"]
    if (names.str.strip() == "").any():
        row = int(np.argmax((names.str.strip() == "").to_numpy()))
        raise ValueError(f"{where} line {lines[row]}: no benchmark name")
    df = df.where(df != "", None)
    out = pd.DataFrame({"benchmark": names.astype(str), "value": values})
    for column in ("unit", "commit", "date"):
        out[column] = df[column].where(df[column].notna(), None) if column in df else None
    out["file"] = os.fspath(path)
    out["direction"] = LOWER
    if "direction" in df:
        given = df["direction"].fillna(LOWER).astype(str).str.strip().str.lower()
        bad = ~given.isin([LOWER, HIGHER])
        if bad.any():
            row = lines[int(np.argmax(bad.to_numpy()))]
            raise ValueError(
                f"{os.fspath(path)} line {row}: direction {df['direction'][bad].iloc[0]!r} is "
                f"neither {LOWER!r} nor {HIGHER!r}"
            )
        out["direction"] = given
    out["failed"] = 0
    return out[_TIDY]


def _csv_cells(path: Path) -> tuple[pd.DataFrame, list[int]]:
    """A tidy CSV's cells as text (a name ``NA`` stays a name), and each row's line.

    A row whose field count is not the header's, a column named twice and
    a file that is no UTF-8 text are refused, naming the line; a carriage
    return alone ends a line in CSV, so a name holding one unquoted is
    named as the likely cause.
    """
    where = os.fspath(path)
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{where} is not a readable CSV: {exc}") from None
    hint = (" (a carriage return alone ends a line in CSV: is one inside a name? quote the "
            "name)" if re.search("\r(?!\n)", text) else "")  # fmt: skip
    reader = csv.reader(io.StringIO(text))
    rows: list[list[str]] = []
    lines: list[int] = []
    try:
        header = [c.strip() for c in next(reader, [])]
        for row in reader:
            if not row:
                continue  # a blank line
            if len(row) != len(header):
                raise ValueError(f"{where} line {reader.line_num} has {len(row)} fields but the "
                                 f"header has {len(header)}{hint}")  # fmt: skip
            rows.append(row)
            lines.append(reader.line_num)
    except csv.Error as exc:
        raise ValueError(f"{where} line {reader.line_num + 1} is not readable CSV: "
                         f"{str(exc).split(' - ')[0]}{hint}") from None  # fmt: skip
    seen = [c for k, c in enumerate(header) if c in header[:k]]
    if seen:
        raise ValueError(f"{where}: the column {seen[0]!r} appears twice in the header")
    return pd.DataFrame(rows, columns=header, dtype=object), lines


def _tidy(results: Any, path: Path) -> pd.DataFrame:
    frame = results.frame
    out = frame[["benchmark", "unit", "value", "direction"]].copy()
    out["file"] = os.fspath(path)
    out["commit"] = None
    out["date"] = None
    out["failed"] = [int(results.failed.get(n, 0)) for n in out["benchmark"]]
    unrun = pd.DataFrame({
        "benchmark": list(results.unrun), "unit": None, "value": np.nan, "direction": LOWER,
        "file": os.fspath(path), "commit": None, "date": None,
        "failed": list(results.unrun.values()),
    })  # fmt: skip
    return pd.concat([out[_TIDY], unrun[_TIDY]], ignore_index=True) if len(unrun) else out[_TIDY]


# Where the importers' tools record the commit and the date of a run.
_COMMIT_KEYS = (("commit_hash",), ("commit_info", "id"), ("commit_id",))
_DATE_KEYS = (("commit_info", "time"), ("datetime",), ("date",))


def _recorded(metadata: Mapping[str, Any], keys: tuple[tuple[str, ...], ...]) -> Any:
    for path in keys:
        value: Any = metadata
        for key in path:
            value = value.get(key) if isinstance(value, Mapping) else None
        if value is not None and value != "":
            if path == ("date",) and isinstance(value, (int, float)):
                # asv records milliseconds since the epoch.
                return pd.Timestamp(value, unit="ms", tz="UTC").isoformat()
            return str(value)
    return None
