"""The A-B suite run's record format: one CSV row per execution, and its metadata JSON.

Rows are appended and flushed as each call finishes, so an interrupted run
keeps every finished measurement; failed executions are rows too, with
their status and message and no value. Columns:

``call``, ``trial``, ``slot``
    the call (1-based, in start order), its round or trial, and its
    position in the trial's random order (see
    :mod:`perfstats.adapters.ab.interleaving`);
``benchmark``, ``version``, ``repeat``, ``order``
    what was executed: the version's ``repeat``-th run in the call, and its
    1-based position among the call's executions;
``value``, ``unit``, ``started_at``, ``status``, ``error``, ``extra``
    as in the driver's record.

The writer and readers are the run record's
(:mod:`perfstats.adapters.records.record`) with the format :data:`AB`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import pandas as pd

from ..records.measurement import Measurement
from ..records.record import RecordFormat, measurement_cells, read_frame, read_metadata
from .interleaving import Call

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
AB = RecordFormat(
    marker="perfstats-ab-record/1",
    kind="an A-B record",
    columns=COLUMNS,
    integers=("call", "trial", "slot", "repeat", "order"),
)
FORMAT = AB.marker


def rows_of(call: Call, measurements: Sequence[Measurement]) -> list[dict[str, Any]]:
    """The record rows of one finished call (plain Python values).

    ``measurements`` holds one measurement per execution of ``call``, in
    order (the runner checks the target's answer when it comes back).

    Examples
    --------
    >>> from perfstats.adapters.ab.interleaving import duet_plan
    >>> from perfstats.adapters.records.measurement import Measurement, utc_now
    >>> call = duet_plan(["a"], calls=1, repeats=1, rng=0)[0]
    >>> ms = [Measurement(1.0, "ns", None, utc_now()), Measurement(2.0, "ns", None, utc_now())]
    >>> [(r["order"], r["repeat"], r["value"]) for r in rows_of(call, ms)]
    [(1, 1, 1.0), (2, 1, 2.0)]
    """
    # One measurement per execution: the runner checks it where the
    # measurements enter (a target's answer), so the rows trust it.
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
                **measurement_cells(m),
            }
        )
    return rows


def read_ab_record(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read an A-B record CSV (one row per execution) into a typed DataFrame.

    The A-B twin of :func:`~perfstats.adapters.records.record.read_record`:
    the same reader (a last line cut short by a crash is ignored) with the
    A-B columns and format marker.

    Raises
    ------
    ValueError
        When the file is missing or is not an A-B record.

    Examples
    --------
    A record written by ``perfstats ab --record suite.csv`` reads back as
    ``read_ab_record("suite.csv")``, one row per execution; a path that is
    not there is an error that says so:

    >>> from perfstats.adapters.ab.persistence import read_ab_record
    >>> read_ab_record("no-such-suite.csv")
    Traceback (most recent call last):
    ...
    ValueError: record no-such-suite.csv does not exist
    """
    return read_frame(path, AB)


def read_ab_metadata(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The metadata beside the A-B record at ``path`` (empty when there is none).

    Its format marker is checked (:func:`~perfstats.adapters.records.record.read_metadata`).

    Examples
    --------
    >>> from perfstats.adapters.ab.persistence import read_ab_metadata
    >>> read_ab_metadata("suite.csv")["suite"]["schedule"]  # doctest: +SKIP
    'duet'
    """
    return read_metadata(path, AB)
