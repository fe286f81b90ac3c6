"""The record: a tidy CSV, one row per invocation or execution, and its metadata JSON.

Rows are appended and flushed as each measurement arrives, so a driver
killed at any moment leaves every completed measurement on disk; the
metadata file beside the CSV (``run.csv`` -> ``run.meta.json``) describes
the machine, software, target, rule and seed, and is rewritten atomically.

One implementation serves every kind of record: a :class:`RecordFormat`
names a kind's FORMAT marker, columns and column types. :data:`RUN` is the
record of ``perfstats run``; the A-B suite record
(:mod:`perfstats.adapters.ab.record`) is another format of the same writer
and readers. The metadata's ``format`` marker is checked on read, so a
record of another kind or version is refused with a message saying which.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pandas as pd

from .measurement import STATUSES, Measurement


@dataclass(frozen=True)
class RecordFormat:
    """The layout of one kind of record: its FORMAT marker, columns and column types.

    Attributes
    ----------
    marker : str
        The ``format`` written in the metadata, ``"family/version"``.
    kind : str
        What the record is, for error messages (``"a perfstats record"``).
    columns : tuple of str
        The CSV header, in order; ``value`` is a float column, ``started_at``
        a UTC timestamp and ``status`` one of the measurement statuses.
    integers, booleans : tuple of str
        Columns read as integers and as nullable booleans; the rest is text.
    resumable : bool
        Whether a writer may continue an existing record of this kind.

    Examples
    --------
    >>> from perfstats.adapters.records.record import RUN
    >>> RUN.marker, RUN.columns[:3]
    ('perfstats-record/1', ('run', 'interval', 'phase'))
    """

    marker: str
    kind: str
    columns: tuple[str, ...]
    integers: tuple[str, ...]
    booleans: tuple[str, ...] = ()
    resumable: bool = False

    @property
    def texts(self) -> tuple[str, ...]:
        """The text columns: all but the numbers, flags and the start time."""
        typed = {*self.integers, *self.booleans, "value", "started_at"}
        return tuple(c for c in self.columns if c not in typed)


COLUMNS = (
    "run", "interval", "phase", "target", "value", "unit", "cold", "started_at", "status",
    "error", "extra",
)  # fmt: skip
WARMUP = "warmup"
MEASURE = "measure"
RUN = RecordFormat(
    marker="perfstats-record/1",
    kind="a perfstats record",
    columns=COLUMNS,
    integers=("run", "interval"),
    booleans=("cold",),
    resumable=True,
)
FORMAT = RUN.marker


def metadata_path(path: str | os.PathLike[str]) -> Path:
    """Where the metadata of the record at ``path`` lives (``x.csv`` -> ``x.meta.json``).

    Examples
    --------
    >>> from perfstats.adapters.records.record import metadata_path
    >>> metadata_path("runs/a.csv").as_posix()
    'runs/a.meta.json'
    """
    p = Path(path)
    stem = p.name[: -len(p.suffix)] if p.suffix else p.name
    return p.with_name(stem + ".meta.json")


def row_of(run: int, interval: int, phase: str, target: str, m: Measurement) -> dict[str, Any]:
    """One record row (plain Python values) for a measurement.

    Examples
    --------
    >>> from perfstats.adapters import Measurement
    >>> from perfstats.adapters.records.measurement import utc_now
    >>> m = Measurement(value=2.5, unit="ms", cold=True, started_at=utc_now())
    >>> row = row_of(7, 2, "measure", "my target", m)
    >>> row["run"], row["interval"], row["value"], row["status"]
    (7, 2, 2.5, 'ok')
    """
    return {
        "run": run,
        "interval": interval,
        "phase": phase,
        "target": target,
        "cold": m.cold,
        **measurement_cells(m),
    }


def measurement_cells(m: Measurement) -> dict[str, Any]:
    """The cells every kind of record writes for a measurement (plain Python values).

    Examples
    --------
    >>> from perfstats.adapters import Measurement
    >>> from perfstats.adapters.records.measurement import utc_now
    >>> cells = measurement_cells(Measurement(2.5, "ms", None, utc_now(), extra={"rc": 0}))
    >>> sorted(cells), cells["extra"]
    (['error', 'extra', 'started_at', 'status', 'unit', 'value'], '{"rc": 0}')
    """
    return {
        "value": m.value,
        "unit": m.unit,
        "started_at": m.started_at.isoformat(timespec="microseconds"),
        "status": m.status,
        "error": m.error,
        "extra": json.dumps(dict(m.extra), sort_keys=True, default=str) if m.extra else "",
    }


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        # repr round-trips exactly; the CSV must hold the number measured.
        return repr(value) if math.isfinite(value) else ""
    return str(value)


def frame(rows: Sequence[Mapping[str, Any]], fmt: RecordFormat = RUN) -> pd.DataFrame:
    """Rows (as written) to a typed DataFrame with the columns of ``fmt``.

    Examples
    --------
    >>> from perfstats.adapters.records.record import frame
    >>> frame([]).columns.tolist()[:4]
    ['run', 'interval', 'phase', 'target']
    """
    df = pd.DataFrame(list(rows), columns=list(fmt.columns))
    for col in fmt.integers:
        df[col] = pd.to_numeric(df[col]).astype("int64")
    df["value"] = pd.to_numeric(df["value"]).astype("float64")
    for col in fmt.booleans:
        df[col] = df[col].map(_as_bool).astype("boolean")
    df["started_at"] = pd.to_datetime(df["started_at"], utc=True, format="ISO8601")
    for col in fmt.texts:
        df[col] = df[col].map(_as_text)
    return df


def _as_text(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


def _as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    text = str(value).strip().lower()
    if text in ("true", "1"):
        return True
    if text in ("false", "0"):
        return False
    return None


def read_record(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a record CSV into a typed DataFrame (one row per invocation).

    A last line cut short by a crash is ignored.

    Raises
    ------
    ValueError
        When the file is not a perfstats record (its header, or the format
        marker in its metadata, say otherwise).

    Examples
    --------
    >>> from perfstats.adapters import read_record
    >>> df = read_record("run.csv")  # doctest: +SKIP
    >>> df[df.status == "ok"].value.median()  # doctest: +SKIP
    """
    return read_frame(path, RUN)


def read_frame(path: str | os.PathLike[str], fmt: RecordFormat) -> pd.DataFrame:
    """Read the record of format ``fmt`` at ``path`` into a typed DataFrame.

    The metadata's format marker, when there is metadata, is checked first
    (:func:`read_metadata`); a last line cut short by a crash is ignored.
    """
    read_metadata(path, fmt)
    return frame(read_rows(path, fmt.columns, fmt.kind), fmt)


def read_rows(
    path: str | os.PathLike[str], columns: tuple[str, ...], kind: str
) -> list[dict[str, str]]:
    """The complete rows of a record CSV whose header is exactly ``columns``.

    A last line cut short by a crash is left out; a wrong header or an
    unknown status is a ValueError naming the file (and line).
    """
    text = _complete_text(Path(path))
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames is None or tuple(reader.fieldnames) != columns:
        raise ValueError(
            f"{os.fspath(path)} is not {kind}: expected the columns "
            f"{', '.join(columns)}; found {', '.join(reader.fieldnames or []) or 'none'}"
        )
    rows = list(reader)
    for i, row in enumerate(rows, start=2):
        if row["status"] not in STATUSES:
            raise ValueError(f"{os.fspath(path)} line {i}: unknown status {row['status']!r}")
    return rows


def _complete_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ValueError(f"record {os.fspath(path)} does not exist") from None
    except OSError as exc:
        raise ValueError(f"cannot read {os.fspath(path)}: {exc.strerror}") from None
    end = raw.rfind(b"\n")
    return raw[: end + 1].decode("utf-8", "replace") if end >= 0 else ""


def create_csv(path: Path, columns: tuple[str, ...], advice: str) -> tuple[IO[str], Any]:
    """Create a new record CSV with its header, flushed; never overwrite one.

    ``advice`` ends the error when the file exists (what the user can do).
    """
    if path.exists():
        raise ValueError(f"record {os.fspath(path)} already exists; {advice}")
    if path.parent and not path.parent.is_dir():
        raise ValueError(f"folder {os.fspath(path.parent)} does not exist")
    try:
        handle: IO[str] = open(path, "x", newline="", encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot create {os.fspath(path)}: {exc.strerror}") from None
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow(columns)
    handle.flush()
    return handle, writer


class Record:
    """Append-only writer of a record CSV plus its metadata JSON.

    Parameters
    ----------
    path : str or path-like
        The CSV file.
    fmt : RecordFormat, default RUN
        The kind of record.
    resume : bool, default False
        Continue an existing record of a resumable format (its rows are
        read back, a last line cut short by a crash is dropped); without it
        an existing file is an error, so a run never overwrites measurements.

    Examples
    --------
    >>> from perfstats.adapters.records.record import Record
    >>> rec = Record("run.csv")  # doctest: +SKIP
    >>> rec.append(row_of(1, 1, "measure", "t", measurement))  # doctest: +SKIP
    """

    def __init__(
        self, path: str | os.PathLike[str], fmt: RecordFormat = RUN, *, resume: bool = False
    ) -> None:
        self.path = Path(path)
        self.format = fmt
        self.meta_path = metadata_path(self.path)
        self.existing = frame([], fmt)
        self.metadata: dict[str, Any] = {}
        if resume:
            self._open_existing()
        else:
            advice = "resume it or choose another path" if fmt.resumable else "choose another path"
            self._file, self._writer = create_csv(self.path, fmt.columns, advice)

    def _open_existing(self) -> None:
        if not self.format.resumable:
            raise ValueError(f"{self.format.kind} cannot be resumed")
        if not self.path.exists():
            raise ValueError(f"cannot resume: record {os.fspath(self.path)} does not exist")
        self.metadata = read_metadata(self.path, self.format)
        self.existing = read_frame(self.path, self.format)
        # Drop a last line cut short by a crash before appending after it.
        raw = self.path.read_bytes()
        keep = raw.rfind(b"\n") + 1
        if keep < len(raw):
            with open(self.path, "r+b") as f:
                f.truncate(keep)
        self._file = open(self.path, "a", newline="", encoding="utf-8")
        self._writer = csv.writer(self._file, lineterminator="\n")

    def append(self, row: Mapping[str, Any]) -> None:
        """Write one row and flush it to the operating system."""
        self.append_rows([row])

    def append_rows(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Write rows and flush them to the operating system."""
        for row in rows:
            self._writer.writerow([_cell(row[c]) for c in self.format.columns])
        self._file.flush()

    def write_metadata(self, metadata: Mapping[str, Any]) -> None:
        """Replace the metadata file atomically (write a temporary file, rename)."""
        self.metadata = dict(metadata)
        tmp = self.meta_path.with_name(self.meta_path.name + ".tmp")
        tmp.write_text(json.dumps(self.metadata, indent=2, default=str) + "\n", encoding="utf-8")
        os.replace(tmp, self.meta_path)

    def close(self) -> None:
        """Close the CSV file."""
        if not self._file.closed:
            self._file.close()

    def rewrite_phases(self, phases: Mapping[int, str]) -> None:
        """Set the ``phase`` of the rows of the given run numbers; the CSV is replaced atomically.

        For a warm-up found after its runs were recorded (``perfstats run
        --warmup auto``). The rows are written to a temporary file beside
        the record, flushed to disk and renamed over it, then appending goes
        on, so a reader sees the old file or the new one, never half of one.

        Examples
        --------
        >>> rec.rewrite_phases({1: WARMUP, 2: WARMUP})  # doctest: +SKIP
        """
        if not phases:
            return
        self._file.close()
        try:
            rows = list(csv.reader(io.StringIO(_complete_text(self.path))))
            run_at, phase_at = rows[0].index("run"), rows[0].index("phase")
            for row in rows[1:]:
                phase = phases.get(int(row[run_at]))
                if phase is not None:
                    row[phase_at] = phase
            tmp = self.path.with_name(self.path.name + ".tmp")
            with open(tmp, "w", newline="", encoding="utf-8") as f:
                csv.writer(f, lineterminator="\n").writerows(rows)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        finally:
            self._file = open(self.path, "a", newline="", encoding="utf-8")
            self._writer = csv.writer(self._file, lineterminator="\n")


def read_metadata(
    path: str | os.PathLike[str], fmt: RecordFormat | None = None
) -> dict[str, Any]:
    """The metadata of the record at ``path`` (empty when there is none).

    With ``fmt``, the metadata's ``format`` marker must be that format's:
    a record of another kind, or written by another version of perfstats,
    is a ValueError that names both (metadata without a marker is read).

    Examples
    --------
    >>> from perfstats.adapters.records.record import read_metadata
    >>> read_metadata("run.csv")["rule"]  # doctest: +SKIP
    {'name': 'SuperFlow', ...}
    """
    meta = metadata_path(path)
    if not meta.exists():
        return {}
    try:
        data = json.loads(meta.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read {os.fspath(meta)}: {exc}") from None
    if not isinstance(data, dict):
        return {}
    if fmt is not None:
        check_format(data.get("format"), fmt, path)
    return data


def check_format(marker: Any, fmt: RecordFormat, path: str | os.PathLike[str]) -> None:
    """Refuse a record whose metadata names another format than ``fmt``.

    Examples
    --------
    >>> from perfstats.adapters.records.record import RUN, check_format
    >>> check_format("perfstats-record/1", RUN, "run.csv")
    >>> check_format("perfstats-record/2", RUN, "run.csv")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: run.csv was written in format perfstats-record/2 by another version ...
    """
    if marker is None or marker == fmt.marker:
        return
    where = os.fspath(path)
    family = fmt.marker.split("/")[0]
    if isinstance(marker, str) and marker.split("/")[0] == family:
        raise ValueError(
            f"{where} was written in format {marker} by another version of perfstats; "
            f"this one reads {fmt.marker}"
        )
    raise ValueError(
        f"{where} is not {fmt.kind}: its metadata says format {marker!r}, not {fmt.marker}"
    )
