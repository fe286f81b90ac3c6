"""The record of measurements: the outcome every target returns, and the CSV + metadata it goes to.

* :class:`Measurement` (:mod:`~perfstats.adapters.records.measurement`):
  one invocation's outcome, the unit every target produces, with its named
  :class:`SeriesValue` s (:mod:`~perfstats.adapters.records.series`) beside
  the primary value;
* :class:`Record`, :func:`read_record`, :func:`read_metadata`
  (:mod:`~perfstats.adapters.records.record`): one writer and one set of
  readers for every kind of record (:class:`RecordFormat`; :data:`RUN` for
  ``perfstats run``), the format marker checked on read;
* :func:`redact`, :func:`redact_text` (:mod:`~perfstats.adapters.records.redaction`):
  secrets kept out of records and output, by position;
* :func:`for_terminal` (:mod:`~perfstats.adapters.records.terminal`): text
  as every printer prints it (redacted, control characters shown);
* :func:`write_atomic` (:mod:`~perfstats.adapters.records.files`): every
  file perfstats replaces, never through a planted symlink;
* :func:`machine_info`, :func:`software_info`
  (:mod:`~perfstats.adapters.records.machine`) and :func:`plain`
  (:mod:`~perfstats.adapters.records.plain`): what metadata holds.

This is the lowest layer of the adapters: it imports only the core.
"""

from .files import write_atomic
from .machine import machine_info, software_info
from .measurement import ERROR, OK, STATUSES, TIMEOUT, Measurement, one_line, utc_now
from .plain import plain
from .record import (
    COLUMNS,
    FORMAT,
    MEASURE,
    RUN,
    WARMUP,
    Record,
    RecordFormat,
    check_format,
    check_resumable,
    frame,
    measurement_cells,
    metadata_path,
    read_frame,
    read_metadata,
    read_record,
    read_rows,
    row_of,
)
from .redaction import REDACTED, is_secret_name, redact, redact_text, redact_url
from .series import DIRECTIONS, HIGHER, LOWER, SeriesValue
from .terminal import for_terminal

__all__ = [
    "COLUMNS",
    "DIRECTIONS",
    "ERROR",
    "FORMAT",
    "HIGHER",
    "LOWER",
    "MEASURE",
    "OK",
    "REDACTED",
    "RUN",
    "STATUSES",
    "TIMEOUT",
    "WARMUP",
    "Measurement",
    "Record",
    "RecordFormat",
    "SeriesValue",
    "check_format",
    "check_resumable",
    "for_terminal",
    "frame",
    "is_secret_name",
    "machine_info",
    "measurement_cells",
    "metadata_path",
    "one_line",
    "plain",
    "read_frame",
    "read_metadata",
    "read_record",
    "read_rows",
    "redact",
    "redact_text",
    "redact_url",
    "row_of",
    "software_info",
    "utc_now",
    "write_atomic",
]
