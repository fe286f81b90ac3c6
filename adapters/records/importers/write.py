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

    Parameters
    ----------
    data : Results, pandas.DataFrame or mapping
        The values: :class:`Results`, a frame with columns ``benchmark`` and
        ``value`` (and ``unit``, ``process`` when known), or a mapping of
        benchmark names to their values.
    unit : str, optional
        The unit of every value, for data that carries none (a mapping, a
        frame without a ``unit`` column); ``"s"`` for times. Data with units
        keeps its own.

    Returns
    -------
    dict
        The suite as pyperf's JSON holds it (``version``, ``metadata``,
        ``benchmarks``, each with its name, unit and runs), ready for
        :func:`json.dumps`.

    Raises
    ------
    ValueError
        For data without a unit, a benchmark mixing units, a unit pyperf
        lacks, or a value that is not positive.

    Examples
    --------
    >>> from perfstats.adapters.records.importers import to_pyperf
    >>> to_pyperf({"f": [0.1, 0.2]}, unit="s")["benchmarks"][0]["runs"]
    [{'metadata': {'loops': 1}, 'values': [0.1]}, {'metadata': {'loops': 1}, 'values': [0.2]}]
    """
    frame = _frame(data, unit)
    benches = []
    for name, rows in frame.groupby("benchmark", sort=False):
        u = _one_unit(name, rows)
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


def _one_unit(name: Any, rows: pd.DataFrame) -> str:
    """The unit of one benchmark's rows; a benchmark in two units has no one scale."""
    units = set(rows["unit"].astype(str))
    if len(units) != 1:
        raise ValueError(f"benchmark {name!r} mixes units {sorted(units)}")
    return units.pop()


def to_bmf(data: Any, *, unit: str | None = None) -> dict[str, Any]:
    """The Bencher Metric Format: ``{name: {measure: {value, lower_value, upper_value}}}``.

    Times go to Bencher's ``latency`` measure in nanoseconds; other units to
    a measure named after the unit. ``value`` is the median of the runs,
    ``lower_value`` and ``upper_value`` their minimum and maximum.

    Parameters
    ----------
    data : Results, pandas.DataFrame or mapping
        As for :func:`to_pyperf`.
    unit : str, optional
        As for :func:`to_pyperf`; times are written in nanoseconds.

    Returns
    -------
    dict
        One entry per benchmark, mapping its measure (``latency`` or the
        unit's name, ``/`` spelled ``_per_``) to the median, minimum and
        maximum of its values, ready for :func:`json.dumps`.

    Raises
    ------
    ValueError
        For data without a unit, a benchmark mixing units, or data of a type
        it does not take.

    Examples
    --------
    >>> from perfstats.adapters.records.importers import to_bmf
    >>> to_bmf({"f": [1e-6, 2e-6, 3e-6]}, unit="s")
    {'f': {'latency': {'value': 2000.0, 'lower_value': 1000.0, 'upper_value': 3000.0}}}
    """
    frame = _frame(data, unit)
    out: dict[str, Any] = {}
    for name, rows in frame.groupby("benchmark", sort=False):
        u = _one_unit(name, rows)
        values = rows["value"].to_numpy(dtype=np.float64)
        measure, scale = ("latency", 1e9) if u == "s" else (u.replace("/", "_per_"), 1.0)
        out[str(name)] = {measure: {
            "value": float(np.median(values)) * scale,
            "lower_value": float(values.min()) * scale,
            "upper_value": float(values.max()) * scale,
        }}  # fmt: skip
    return out


def write(data: Any, path: str | Path, *, format: str = "pyperf", unit: str | None = None) -> None:
    """Write results to ``path`` as pyperf JSON or Bencher Metric Format JSON.

    Parameters
    ----------
    data : Results, pandas.DataFrame or mapping
        The values, as :func:`to_pyperf` and :func:`to_bmf` take them.
    path : str or pathlib.Path
        The JSON file to write (replaced if it exists).
    format : {"pyperf", "bmf"}, default "pyperf"
        pyperf's JSON (:func:`to_pyperf`) or the Bencher Metric Format
        (:func:`to_bmf`).
    unit : str, optional
        The unit of every value, for data that carries none; ``"s"`` for times.

    Raises
    ------
    ValueError
        For an unknown ``format``, or data the chosen format cannot hold
        (see :func:`to_pyperf` and :func:`to_bmf`).

    Examples
    --------
    >>> import json, tempfile
    >>> from pathlib import Path
    >>> from perfstats.adapters.io import read, write
    >>> path = Path(tempfile.mkdtemp()) / "f.json"
    >>> write({"f": [0.1, 0.2, 0.3]}, path, unit="s")
    >>> read(path).values("f").tolist()
    [0.1, 0.2, 0.3]
    >>> write({"f": [1e-6, 3e-6]}, path, format="bmf", unit="s")
    >>> json.loads(path.read_text())["f"]["latency"]["upper_value"]
    3000.0
    """
    if format not in WRITERS:
        raise ValueError(f"format must be one of {', '.join(WRITERS)}; got {format!r}")
    doc = to_pyperf(data, unit=unit) if format == "pyperf" else to_bmf(data, unit=unit)
    Path(path).write_text(json.dumps(doc, indent=1))
