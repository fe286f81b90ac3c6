"""A run's series as a pyperf JSON suite, for ``python -m pyperf stats`` and ``compare_to``."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..records.importers.write import PYPERF_UNITS, to_pyperf
from ..records.measurement import Measurement

logger = logging.getLogger(__name__)


def series_to_pyperf(
    measurements: Iterable[Measurement], *, series: Sequence[str] | None = None
) -> dict[str, Any]:
    """A pyperf JSON suite (a dict) of the series of a run's measurements.

    Each series becomes a pyperf benchmark of the same name; each round
    that gave it a value is one pyperf run of one value (a round is a new
    process of the tool, as pyperf's runs are). Failed rounds and series
    without a value are left out. pyperf knows seconds, bytes and plain
    counts, and positive values only: by default series in other units
    (``MB/s``, a custom metric) or with a value of zero or less are left
    out, and logged; naming them in ``series`` refuses them instead.

    Parameters
    ----------
    measurements : iterable of Measurement
        A run's measurements, in run order (``RunResult.measurements``).
    series : list of str, optional
        The series to export (default: every one pyperf can hold).

    Examples
    --------
    >>> from perfstats.adapters.records import Measurement, SeriesValue, utc_now
    >>> from perfstats.adapters.targets.pyperf_export import series_to_pyperf
    >>> rounds = [Measurement(1e6, "ns", None, utc_now(),
    ...                       series={"BM_a": SeriesValue(v, "s")}) for v in (1e-6, 2e-6)]
    >>> doc = series_to_pyperf(rounds)
    >>> doc["benchmarks"][0]["metadata"], doc["benchmarks"][0]["runs"][1]["values"]
    ({'name': 'BM_a', 'unit': 'second'}, [2e-06])
    """
    rows = []
    for number, m in enumerate(measurements):
        if not isinstance(m, Measurement):
            raise ValueError(f"measurements must be Measurement objects; got {m!r}")
        if not m.ok:
            continue
        for name, item in m.series.items():
            if item.value is not None and (series is None or name in series):
                rows.append((name, item.unit, float(item.value), number))
    frame = pd.DataFrame(rows, columns=["benchmark", "unit", "value", "process"])
    if series is not None:
        missing = [n for n in series if n not in set(frame["benchmark"])]
        if missing:
            raise ValueError(f"no values of series {missing[0]!r} in these measurements")
    else:
        usable = frame.groupby("benchmark", sort=False).apply(
            lambda g: bool(g["unit"].isin(list(PYPERF_UNITS)).all() and (g["value"] > 0).all()),
            include_groups=False,
        )
        left_out = [str(n) for n, ok in usable.items() if not ok]
        if left_out:
            logger.info(
                "pyperf export leaves out %d series pyperf cannot hold (unit or value <= 0): %s",
                len(left_out), ", ".join(left_out),
            )  # fmt: skip
        frame = frame[~frame["benchmark"].isin(left_out)]
    if frame.empty:
        raise ValueError("no series value pyperf can hold (seconds, bytes or counts, > 0)")
    return to_pyperf(frame)


def write_pyperf(
    measurements: Iterable[Measurement],
    path: str | Path,
    *,
    series: Sequence[str] | None = None,
) -> None:
    """Write :func:`series_to_pyperf` of ``measurements`` to ``path``.

    Examples
    --------
    >>> import os, tempfile
    >>> from perfstats.adapters.records import Measurement, SeriesValue, utc_now
    >>> from perfstats.adapters.targets.pyperf_export import write_pyperf
    >>> m = Measurement(1e6, "ns", None, utc_now(), series={"f": SeriesValue(0.5, "s")})
    >>> path = os.path.join(tempfile.mkdtemp(), "run.json")
    >>> write_pyperf([m], path)
    >>> os.path.getsize(path) > 0
    True
    """
    Path(path).write_text(json.dumps(series_to_pyperf(measurements, series=series), indent=1))
