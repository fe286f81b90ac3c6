"""Values as a pyperf JSON suite, for ``pyperf show``, ``stats``, ``hist`` and ``compare_to``.

One conversion, :func:`pyperf_suite`, of a tidy frame of values, for two
sources: the series of a run's measurements in memory
(:func:`series_to_pyperf`, ``RunResult.measurements``) and a record on
disk (``perfstats export --format pyperf``,
:mod:`perfstats.adapters.cli.export`). pyperf holds seconds, bytes and
plain counts, positive values only: times in another unit (``ns``, ``ms``)
are converted to seconds; a series in any other unit (``MB/s``, ``J``, a
custom metric) or with a value of zero or less is left out, and said so,
unless it was asked for by name, when it is refused.

pyperf's runs are processes: a value of a target that starts a process per
invocation (a command, a tool's round) is a run of its own; the calls of a
pytest benchmark, made in one process (:data:`ONE_PROCESS_KINDS`), are one
run, with the record's warm-up calls as that run's warm-ups (pyperf's
worker warms up the same way).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..records.importers.results import TIME_UNITS
from ..records.importers.write import PYPERF_UNITS, to_pyperf
from ..records.measurement import Measurement

logger = logging.getLogger(__name__)

#: Target kinds whose invocations are calls in one process (one pyperf run).
ONE_PROCESS_KINDS = ("pytest",)


def series_to_pyperf(
    measurements: Iterable[Measurement], *, series: Sequence[str] | None = None
) -> dict[str, Any]:
    """A pyperf JSON suite (a dict) of the series of a run's measurements.

    Each series becomes a pyperf benchmark of the same name; each round
    that gave it a value is one pyperf run of one value (a round is a new
    process of the tool, as pyperf's runs are). Failed rounds and series
    without a value are left out. Series pyperf cannot hold (see the
    module notes) are left out, and logged; naming them in ``series``
    refuses them instead.

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
    doc, left_out = pyperf_suite(frame, strict=series is not None)
    _log_left_out(left_out)
    return doc


def pyperf_suite(
    frame: pd.DataFrame,
    *,
    strict: bool = False,
    warmups: Mapping[str, Sequence[float]] | None = None,
) -> tuple[dict[str, Any], dict[str, str]]:
    """The pyperf suite (a dict) of a tidy frame of values, and the benchmarks left out, with why.

    Parameters
    ----------
    frame : pandas.DataFrame
        Columns ``benchmark``, ``unit`` and ``value``, one row per value,
        and optionally ``process``: values of one benchmark with the same
        ``process`` are one pyperf run (default: a run per value). Times
        in any unit are written in seconds.
    strict : bool, default False
        Refuse a benchmark pyperf cannot hold (see the module notes)
        instead of leaving it out: for benchmarks asked for by name.
    warmups : Mapping, optional
        Warm-up values (in the benchmark's unit) by benchmark name, given
        to a benchmark that is one run, as that run's warm-ups.

    Returns
    -------
    (dict, dict)
        The suite, and each benchmark left out with why.

    Raises
    ------
    ValueError
        When ``strict`` and a benchmark cannot be held, or nothing is left.

    Examples
    --------
    >>> import pandas as pd
    >>> from perfstats.adapters.targets.pyperf_export import pyperf_suite
    >>> frame = pd.DataFrame({"benchmark": ["f", "f", "rate"], "unit": ["ns", "ns", "MB/s"],
    ...                       "value": [1500.0, 2500.0, 9.0], "process": [0, 0, 0]})
    >>> suite, left_out = pyperf_suite(frame, warmups={"f": [9000.0]})
    >>> suite["benchmarks"][0]["runs"]
    [{'metadata': {'loops': 1}, 'values': [1.5e-06, 2.5e-06], 'warmups': [[1, 9e-06]]}]
    >>> left_out
    {'rate': "pyperf has no unit for 'MB/s'; it knows seconds, bytes and counts"}
    """
    frame = frame.copy()
    # Seconds per unit of each benchmark's values, for its warm-ups too.
    pairs = zip(frame["benchmark"], frame["unit"], strict=True)
    scale = {str(b): TIME_UNITS.get(str(u), 1.0) for b, u in pairs}
    seconds = frame["unit"].map(TIME_UNITS)
    is_time = seconds.notna()
    frame.loc[is_time, "value"] = frame.loc[is_time, "value"] * seconds[is_time]
    frame.loc[is_time, "unit"] = "s"
    left_out: dict[str, str] = {}
    for bench, rows in frame.groupby("benchmark", sort=False):
        units = sorted(set(rows["unit"].astype(str)))
        if len(units) != 1:
            why = f"it mixes units {units}"
        elif units[0] not in PYPERF_UNITS:
            why = f"pyperf has no unit for {units[0]!r}; it knows seconds, bytes and counts"
        elif not bool((rows["value"] > 0).all()):
            why = f"pyperf needs values > 0; it has {float(rows['value'].min())!r}"
        else:
            continue
        if strict:
            raise ValueError(f"series {bench!r} cannot be written for pyperf: {why}")
        left_out[str(bench)] = why
    frame = frame[~frame["benchmark"].isin(list(left_out))]
    if frame.empty:
        shown = "; ".join(f"{n}: {why}" for n, why in left_out.items())
        raise ValueError(
            "no series value pyperf can hold (seconds, bytes or counts, > 0)"
            + (f"; left out {shown}" if shown else "")
        )
    suite = to_pyperf(frame)
    for bench in suite["benchmarks"]:
        name = bench["metadata"]["name"]
        warm = np.asarray((warmups or {}).get(name, ()), dtype=np.float64) * scale.get(name, 1.0)
        # pyperf's warm-ups belong to a run (a process): only a one-run benchmark takes them.
        if warm.size and len(bench["runs"]) == 1 and bool(np.all(warm > 0)):
            bench["runs"][0]["warmups"] = [[1, float(v)] for v in warm]
    return suite, left_out


def _log_left_out(left_out: Mapping[str, str]) -> None:
    if left_out:
        logger.info(
            "pyperf export leaves out %d series pyperf cannot hold: %s",
            len(left_out), "; ".join(f"{n} ({why})" for n, why in left_out.items()),
        )  # fmt: skip


def write_pyperf(
    measurements: Iterable[Measurement],
    path: str | Path,
    *,
    series: Sequence[str] | None = None,
) -> None:
    """Write :func:`series_to_pyperf` of ``measurements`` to ``path`` (replaced atomically).

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
    from ..records.files import write_atomic

    write_atomic(path, json.dumps(series_to_pyperf(measurements, series=series), indent=1) + "\n")
