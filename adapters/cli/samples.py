"""The CSV input of ``perfstats replay`` and ``compare``: traces and samples, checked."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from ..driver.result import judged_values
from ..records.record import COLUMNS, read_record
from .parser import UsageError


def read_traces(path: str) -> dict[str, np.ndarray]:
    """One trace per column of the CSV at ``path``; trailing empty cells pad short traces."""
    df = read_csv(path)
    traces: dict[str, np.ndarray] = {}
    for column in df.columns:
        values = pd.to_numeric(df[column], errors="coerce")
        bad = values.isna() & df[column].notna()
        if bad.any():
            row = int(np.argmax(bad.to_numpy())) + 2
            raise UsageError(
                f"{path}: column {column!r} line {row} is not a number: {df[column][bad].iloc[0]!r}"
            )
        series = values.to_numpy(dtype=np.float64)
        # Only trailing empties pad a short trace; a hole inside is an error.
        last = int(np.flatnonzero(~np.isnan(series))[-1]) + 1 if (~np.isnan(series)).any() else 0
        if np.isnan(series[:last]).any():
            raise UsageError(f"{path}: column {column!r} has an empty cell before its end")
        if last == 0:
            raise UsageError(f"{path}: column {column!r} is empty")
        traces[str(column)] = series[:last]
    if not traces:
        raise UsageError(f"{path}: no trace columns")
    return traces


def read_csv(path: str) -> pd.DataFrame:
    """The CSV at ``path``, or a UsageError that says why it cannot be read."""
    if not os.path.exists(path):
        raise UsageError(f"file {path} does not exist")
    try:
        return pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path} is not a readable CSV: {exc}") from None


def read_sample(path: str, column: str | None) -> np.ndarray:
    """The values of a record (its successful measured runs) or of one CSV column."""
    df = read_csv(path)
    if tuple(df.columns) == COLUMNS:
        values = judged_values(read_record(path))
        if values.size == 0:
            raise UsageError(f"{path}: the record has no successful measured run")
        return values
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
    numbers = pd.to_numeric(series, errors="coerce")
    if numbers.isna().any():
        raise UsageError(f"{path}: column {series.name!r} has empty or non-numeric cells")
    return numbers.to_numpy(dtype=np.float64)
