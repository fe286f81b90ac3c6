"""Export tidy results to pyperf JSON (readable by pyperf) and the Bencher Metric Format."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .results import Results

PYPERF_UNITS = {"s": "second", "B": "byte", "1": "integer"}
WRITERS = ("pyperf", "bmf")


def _frame(data: Any, unit: str | None) -> pd.DataFrame:
    if isinstance(data, Results):
        return data.frame
    if isinstance(data, pd.DataFrame):
        missing = {"benchmark", "value"} - set(data.columns)
        if missing:
            raise ValueError(f"data needs columns 'benchmark' and 'value'; missing {missing}")
        frame = data.copy()
    elif isinstance(data, Mapping):
        frame = pd.DataFrame(
            [(str(k), float(v)) for k, vals in data.items() for v in np.asarray(vals).ravel()],
            columns=["benchmark", "value"],
        )
    else:
        raise ValueError(
            f"data must be Results, a DataFrame or a mapping of names to values; "
            f"got {type(data).__name__}"
        )
    if "unit" not in frame.columns:
        if unit is None:
            raise ValueError("data has no unit: pass unit= ('s' for times)")
        frame["unit"] = unit
    return frame


def to_pyperf(data: Any, *, unit: str | None = None) -> dict[str, Any]:
    """A pyperf JSON suite (a dict) holding every value.

    Values of one benchmark are grouped into runs by their ``process``
    column (pyperf's own runs, when the data came from pyperf); otherwise
    each value is a run of its own, as if taken in a process of its own.
    pyperf accepts only positive values in seconds, bytes or plain numbers.

    Examples
    --------
    >>> from perfstats.adapters.records.importers import to_pyperf
    >>> to_pyperf({"f": [0.1, 0.2]}, unit="s")["benchmarks"][0]["runs"]
    [{'metadata': {'loops': 1}, 'values': [0.1]}, {'metadata': {'loops': 1}, 'values': [0.2]}]
    """
    frame = _frame(data, unit)
    benches = []
    for name, rows in frame.groupby("benchmark", sort=False):
        units = set(rows["unit"].astype(str))
        if len(units) != 1:
            raise ValueError(f"benchmark {name!r} mixes units {sorted(units)}")
        u = units.pop()
        if u not in PYPERF_UNITS:
            raise ValueError(f"pyperf has no unit for {u!r} (benchmark {name!r}); it knows "
                             "seconds, bytes and plain numbers")  # fmt: skip
        values = rows["value"].to_numpy(dtype=np.float64)
        if not bool(np.all(values > 0)):
            raise ValueError(f"pyperf needs positive values; benchmark {name!r} has "
                             f"{float(values[values <= 0][0])!r}")  # fmt: skip
        groups = rows["process"] if "process" in rows.columns else pd.Series(range(len(rows)))
        runs = [
            {"metadata": {"loops": 1}, "values": [float(v) for v in vals]}
            for _, vals in pd.Series(values).groupby(groups.to_numpy(), sort=False)
        ]
        benches.append({"metadata": {"name": str(name), "unit": PYPERF_UNITS[u]}, "runs": runs})
    return {"version": "1.0", "metadata": {}, "benchmarks": benches}


def to_bmf(data: Any, *, unit: str | None = None) -> dict[str, Any]:
    """The Bencher Metric Format: ``{name: {measure: {value, lower_value, upper_value}}}``.

    Times go to Bencher's ``latency`` measure in nanoseconds; other units to
    a measure named after the unit. ``value`` is the median of the runs,
    ``lower_value`` and ``upper_value`` their minimum and maximum.

    Examples
    --------
    >>> from perfstats.adapters.records.importers import to_bmf
    >>> to_bmf({"f": [1e-6, 2e-6, 3e-6]}, unit="s")
    {'f': {'latency': {'value': 2000.0, 'lower_value': 1000.0, 'upper_value': 3000.0}}}
    """
    frame = _frame(data, unit)
    out: dict[str, Any] = {}
    for name, rows in frame.groupby("benchmark", sort=False):
        u = str(rows["unit"].iloc[0])
        values = rows["value"].to_numpy(dtype=np.float64)
        measure, scale = ("latency", 1e9) if u == "s" else (u.replace("/", "_per_"), 1.0)
        out[str(name)] = {measure: {
            "value": float(np.median(values)) * scale,
            "lower_value": float(values.min()) * scale,
            "upper_value": float(values.max()) * scale,
        }}  # fmt: skip
    return out


def write(data: Any, path: str | Path, *, format: str = "pyperf", unit: str | None = None) -> None:
    """Write results to ``path`` as pyperf JSON or Bencher Metric Format JSON."""
    if format not in WRITERS:
        raise ValueError(f"format must be one of {', '.join(WRITERS)}; got {format!r}")
    doc = to_pyperf(data, unit=unit) if format == "pyperf" else to_bmf(data, unit=unit)
    Path(path).write_text(json.dumps(doc, indent=1))
