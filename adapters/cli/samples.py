"""The CSV input of ``perfstats replay`` and ``compare``: traces and samples, checked."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from ..driver.result import judged_values
from ..records.cells import number
from ..records.importers import read as read_results_file
from ..records.importers.results import LOWER, Results
from ..records.importers.sniff import sniff
from ..records.record import COLUMNS, read_metadata, read_record
from ..records.series_table import PRIMARY, metric_frame, read_series
from .parser import UsageError


def read_traces(path: str) -> dict[str, np.ndarray]:
    """One trace per column of the CSV at ``path``; trailing empty cells pad short traces."""
    df = read_csv(path)
    traces: dict[str, np.ndarray] = {}
    for column in df.columns:
        series = numbers(df[column], path)
        # Only trailing empties pad a short trace; a hole inside is an error.
        present = np.flatnonzero(~np.isnan(series))
        last = int(present[-1]) + 1 if present.size else 0
        if np.isnan(series[:last]).any():
            line = int(np.flatnonzero(np.isnan(series[:last]))[0]) + 2
            raise UsageError(f"{path} line {line}, column {column!r}: an empty cell before its end")
        if last == 0:
            raise UsageError(f"{path}: column {column!r} is empty")
        traces[str(column)] = series[:last]
    if not traces:
        raise UsageError(f"{path}: no trace columns")
    return traces


def numbers(series: pd.Series, path: str) -> np.ndarray:
    """The cells of one column read strictly as numbers (NaN where empty).

    A cell that is not a number is a UsageError naming the file, line and column.
    """
    try:
        values = [
            number(cell, where=path, line=i + 2, column=str(series.name))
            for i, cell in enumerate(series.tolist())
        ]
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return np.asarray(values, dtype=np.float64)


def read_csv(path: str) -> pd.DataFrame:
    """The CSV at ``path`` as text cells, or a UsageError that says why it cannot be read.

    Cells stay text (no "NA", "None" or "True" turned into a missing value or
    a flag): :func:`numbers` decides what is a number.
    """
    if not os.path.exists(path):
        raise UsageError(f"file {path} does not exist")
    try:
        return pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path} is not a readable CSV: {exc}") from None


def read_judged_sample(
    path: str, column: str | None, metric: str = PRIMARY
) -> tuple[np.ndarray, str]:
    """The values to compare from ``path``, and which of them are better.

    A record (its successful runs; with several series, those of
    ``metric``, in the direction its metadata gives) or one CSV column
    (better lower) are read; a results file of another tool (pyperf,
    hyperfine, JMH, ...) gives the values of its one benchmark, or of the
    benchmark ``column`` names, and the direction the tool's unit or mode
    says (a JMH throughput, a Go ``MB/s``: higher is better).
    """
    results = _tool_results(path)
    if results is not None:
        names = results.benchmarks
        if column is None and len(names) != 1:
            shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
            raise UsageError(
                f"{path} holds {len(names)} benchmarks; choose one with --column ({shown})"
            )
        name = names[0] if column is None else column
        if name not in names:
            raise UsageError(f"{path} has no benchmark {name!r}")
        return results.values(name), results.direction(name)
    df = read_csv(path)
    if tuple(df.columns) == COLUMNS:
        measurements, better = read_metric(path, metric)
        values = judged_values(measurements)
        if values.size == 0:
            raise UsageError(f"{path}: the record has no successful measured run of {metric!r}")
        return values, better
    if metric != PRIMARY:
        raise UsageError(f"--metric needs a perfstats record; {path} is a plain CSV")
    if column is not None:
        if column not in df.columns:
            raise UsageError(f"{path} has no column {column!r}")
        series = df[column]
    elif df.shape[1] == 1:
        series = df.iloc[:, 0]
    else:
        raise UsageError(
            f"{path} has {df.shape[1]} columns; choose one with --column "
            f"({', '.join(map(str, df.columns))})"
        )
    values = numbers(series, path)
    if np.isnan(values).any():
        line = int(np.flatnonzero(np.isnan(values))[0]) + 2
        raise UsageError(f"{path} line {line}, column {series.name!r}: an empty cell")
    if values.size == 0:
        raise UsageError(f"{path}: column {series.name!r} is empty")
    return values, LOWER


def _tool_results(path: str) -> Results | None:
    """``path`` read as another tool's results, or None when no tool's format fits it."""
    if not os.path.isfile(path):
        return None
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    try:
        sniff(data, source=path)
    except ValueError:
        # Not a tool's format: a CSV (a record or columns of values).
        return None
    try:
        return read_results_file(path)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def read_metric(path: str, metric: str = PRIMARY) -> tuple[pd.DataFrame, str]:
    """The record at ``path`` with series ``metric`` as its value, and which way is better."""
    measurements = read_record(path)
    if metric == PRIMARY:
        return measurements, LOWER
    try:
        frame = metric_frame(measurements, read_series(path), metric)
    except ValueError as exc:
        raise UsageError(f"{path}: {exc}") from None
    described = (read_metadata(path).get("series") or {}).get(metric) or {}
    return frame, str(described.get("direction", LOWER))
