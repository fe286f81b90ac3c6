"""The record: a tidy CSV, one row per invocation or execution, and its metadata JSON.

Rows are appended and flushed as each measurement arrives, so a driver
killed at any moment leaves every completed measurement on disk; the
metadata file beside the CSV (``run.csv`` -> ``run.csv.meta.json``) describes
the machine, software, target, rule and seed, and is rewritten atomically.

One implementation serves every kind of record: a :class:`RecordFormat`
names a kind's FORMAT marker, columns and column types. :data:`RUN` is the
record of ``perfstats run``; the A-B suite record
(:mod:`perfstats.adapters.ab.persistence`) is another format of the same writer
and readers. The metadata's ``format`` marker is checked on read, so a
record of another kind or version is refused with a message saying which.

Format versions of the run record:

* ``perfstats-record/1``: the CSV of :data:`COLUMNS`, one row per
  invocation, with the target's one (primary) value;
* ``perfstats-record/1.1``: the same CSV, unchanged, plus a side table of
  every named series of every run (``run.csv`` -> ``run.csv.series.csv``,
  long rows ``run, series, value, unit, status, error``) and a ``series``
  section in the metadata describing each series (unit, direction,
  source); :mod:`perfstats.adapters.records.series_table` reads and writes
  it. A run whose target gives one number still writes ``/1``. Both read
  and resume; a reader that knows only ``/1`` refuses ``/1.1`` (it would
  miss the series) with a message naming the version.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pandas as pd

from .cells import number
from .files import write_atomic
from .lock import RecordLock
from .measurement import STATUSES, Measurement
from .redaction import redact, redact_text


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
    reads : tuple of str
        Other markers whose records have these same columns (a compatible
        newer minor version) and are read and resumed as this format.

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
    reads: tuple[str, ...] = ()

    def accepts(self, marker: Any) -> bool:
        """Whether a record whose metadata names ``marker`` is of this format."""
        return marker == self.marker or marker in self.reads

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
#: The marker of a run record with a series table beside it (see the module notes).
SERIES_FORMAT = "perfstats-record/1.1"
RUN = RecordFormat(
    marker="perfstats-record/1",
    kind="a perfstats record",
    columns=COLUMNS,
    integers=("run", "interval"),
    booleans=("cold",),
    resumable=True,
    reads=(SERIES_FORMAT,),
)
FORMAT = RUN.marker


def metadata_path(path: str | os.PathLike[str]) -> Path:
    """Where the metadata of the record at ``path`` lives (``x.csv`` -> ``x.csv.meta.json``).

    Named after the record's full name, so that two records (``a.csv`` and
    ``a.tsv``, ``a`` and ``a.csv``) never share one metadata file.

    Examples
    --------
    >>> from perfstats.adapters.records.record import metadata_path
    >>> metadata_path("runs/a.csv").as_posix()
    'runs/a.csv.meta.json'
    """
    p = Path(path)
    return p.with_name(p.name + ".meta.json")


def series_path(path: str | os.PathLike[str]) -> Path:
    """Where the series table of the record at ``path`` lives (``x.csv`` -> ``x.csv.series.csv``).

    Examples
    --------
    >>> from perfstats.adapters.records.record import series_path
    >>> series_path("runs/a.csv").as_posix()
    'runs/a.csv.series.csv'
    """
    p = Path(path)
    return p.with_name(p.name + ".series.csv")


def legacy_metadata_path(path: str | os.PathLike[str]) -> Path:
    """Where perfstats before 0.2 put the metadata: the name without its suffix (``x.meta.json``).

    :func:`read_metadata` still reads it, when it belongs to this record only.

    Examples
    --------
    >>> from perfstats.adapters.records.record import legacy_metadata_path
    >>> legacy_metadata_path("runs/a.csv").as_posix()
    'runs/a.meta.json'
    """
    p = Path(path)
    stem = p.name[: -len(p.suffix)] if p.suffix else p.name
    return p.with_name(stem + ".meta.json")


def record_inputs(path: str | os.PathLike[str]) -> list[Path]:
    """The files a reader of the record at ``path`` reads: the CSV, its metadata, its series.

    An output of a command that reads the record must be none of them
    (:func:`~perfstats.adapters.records.outputs.check_output`).

    Examples
    --------
    >>> from perfstats.adapters.records.record import record_inputs
    >>> [p.as_posix() for p in record_inputs("runs/a.csv")]
    ['runs/a.csv', 'runs/a.csv.meta.json', 'runs/a.meta.json', 'runs/a.csv.series.csv']
    """
    return [Path(path), metadata_path(path), legacy_metadata_path(path), series_path(path)]


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


def csv_cell(value: Any) -> str:
    """How a record writes one cell: exact floats, redacted and spreadsheet-safe text.

    Examples
    --------
    >>> from perfstats.adapters.records.record import csv_cell
    >>> csv_cell(0.1), csv_cell(None), csv_cell(True), csv_cell("=1+2")
    ('0.1', '', 'true', "'=1+2")
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        # repr round-trips exactly; the CSV must hold the very number the run gave.
        return repr(value) if math.isfinite(value) else ""
    if isinstance(value, str):
        return spreadsheet_safe(redact_text(value))
    return str(value)


# What a spreadsheet reads as the start of a formula (OWASP's list).
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def spreadsheet_safe(text: str) -> str:
    """A text cell a spreadsheet cannot run as a formula: ``'`` put before a risky start.

    Text starting with ``=``, ``+``, ``-``, ``@``, tab or carriage return
    (after any apostrophes, so the escape is reversible) gets one more
    leading apostrophe; text that is a number stays as it is.
    :func:`spreadsheet_text` undoes it, and the record readers apply that,
    so a record reads back exactly what was written.

    Examples
    --------
    >>> from perfstats.adapters.records.record import spreadsheet_safe
    >>> spreadsheet_safe("=SUM(A1:A9)"), spreadsheet_safe("-3.5")
    ("'=SUM(A1:A9)", '-3.5')
    >>> spreadsheet_safe("'@x"), spreadsheet_safe("plain")
    ("''@x", 'plain')
    """
    if text.lstrip("'")[:1] in _FORMULA_STARTS and not _is_number(text):
        return "'" + text
    return text


def spreadsheet_text(cell: str) -> str:
    """The text a cell written by :func:`spreadsheet_safe` came from.

    Examples
    --------
    >>> from perfstats.adapters.records.record import spreadsheet_safe, spreadsheet_text
    >>> all(spreadsheet_text(spreadsheet_safe(t)) == t for t in ("=1+2", "''-x", "'", "-2"))
    True
    """
    if cell.startswith("'") and cell.lstrip("'")[:1] in _FORMULA_STARTS:
        return cell[1:]
    return cell


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
        # A record written before secrets were redacted is redacted as read.
        texts = df[col].map(_as_text).map(spreadsheet_text)
        shown = {text: redact_text(text) for text in texts.unique()}
        df[col] = texts.map(shown)
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

    Parameters
    ----------
    path : str or os.PathLike
        The record's CSV file, as :func:`~perfstats.adapters.run` wrote it
        (``record=``); its metadata, when there is any, is read beside it
        (``run.csv.meta.json``) to check the format marker.

    Returns
    -------
    pandas.DataFrame
        One row per invocation, warm-up and failed ones included, with the
        record's columns (:data:`COLUMNS`) typed: ``run`` and ``interval``
        as integers, ``value`` as float, ``cold`` as a nullable boolean and
        ``started_at`` as UTC timestamps.

    Raises
    ------
    ValueError
        When the file is not a perfstats record (its header, or the format
        marker in its metadata, say otherwise).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from perfstats.adapters import Command, read_record, run
    >>> path = Path(tempfile.mkdtemp()) / "run.csv"
    >>> _ = run(Command(["true"]), "fixed", rule_options={"n": 3}, record=path, progress=False)
    >>> df = read_record(path)
    >>> len(df), df.status.tolist(), df.columns.tolist()[:5]
    (3, ['ok', 'ok', 'ok'], ['run', 'interval', 'phase', 'target', 'value'])
    """
    return read_frame(path, RUN)


def read_frame(path: str | os.PathLike[str], fmt: RecordFormat) -> pd.DataFrame:
    """Read the record of format ``fmt`` at ``path`` into a typed DataFrame.

    The metadata's format marker, when there is metadata, is checked first
    (:func:`read_metadata`); a last line cut short by a crash is ignored.
    """
    read_metadata(path, fmt)
    return frame(read_rows(path, fmt.columns, fmt.kind, integers=fmt.integers), fmt)


def read_rows(
    path: str | os.PathLike[str],
    columns: tuple[str, ...],
    kind: str,
    *,
    integers: tuple[str, ...] = (),
) -> list[dict[str, str]]:
    """The complete rows of a record CSV whose header is exactly ``columns``.

    A last line cut short by a crash is left out; a wrong header, an
    unknown status, a ``value`` that is not a number or an ``integers``
    cell that is not an integer is a ValueError naming the file, line and
    column.
    """
    where = os.fspath(path)
    text = _complete_text(Path(path))
    # newline="": the csv module reads line ends itself (a CR inside a
    # field is then a row end or quoted text, never a csv.Error).
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        fieldnames = reader.fieldnames
        if fieldnames is None or tuple(fieldnames) != columns:
            raise ValueError(
                f"{where} is not {kind}: expected the columns "
                f"{', '.join(columns)}; found {', '.join(fieldnames or []) or 'none'}"
            )
        return _checked_rows(reader, where, integers)
    except csv.Error as exc:
        raise ValueError(
            f"{where} line {reader.line_num}: not a readable CSV row ({exc})"
        ) from None


def _checked_rows(
    reader: csv.DictReader[str], where: str, integers: tuple[str, ...]
) -> list[dict[str, str]]:
    rows = []
    for row in reader:
        line = reader.line_num
        if row["status"] not in STATUSES:
            raise ValueError(f"{where} line {line}: unknown status {row['status']!r}")
        for column in integers:
            if row[column] is None or not row[column].strip():
                raise ValueError(f"{where} line {line}, column {column!r}: empty, not an integer")
            number(row[column], where=where, line=line, column=column, integer=True)
        if "value" in row and row["value"] is not None:
            number(row["value"], where=where, line=line, column="value")
        rows.append(row)
    return rows


def _complete_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ValueError(f"record {os.fspath(path)} does not exist") from None
    except OSError as exc:
        raise ValueError(f"cannot read {os.fspath(path)}: {exc.strerror}") from None
    return raw[: complete_end(raw)].decode("utf-8", "replace")


def is_empty(path: str | os.PathLike[str]) -> bool:
    """Whether the record CSV at ``path`` holds no complete row (a header at most).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from perfstats.adapters.records.record import is_empty
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.csv"
    >>> _ = path.write_text("run,value\\n")
    >>> is_empty(path)
    True
    >>> _ = path.write_text("run,value\\n1,2.5\\n")
    >>> is_empty(path)
    False
    """
    text = _complete_text(Path(path))
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        return sum(1 for _ in reader) <= 1
    except csv.Error as exc:
        where = os.fspath(path)
        raise ValueError(
            f"{where} line {reader.line_num}: not a readable CSV row ({exc})"
        ) from None


def complete_end(raw: bytes) -> int:
    """The length of the complete rows of CSV bytes: up to the last row end outside quotes.

    A crash can cut the last row anywhere, also inside a quoted cell that
    holds a newline (a target named ``"a\\nb"``): such a piece is no row.

    Examples
    --------
    >>> from perfstats.adapters.records.record import complete_end
    >>> raw = b'run,target\\n1,"a\\nb"\\n2,"c\\nd'
    >>> raw[: complete_end(raw)]
    b'run,target\\n1,"a\\nb"\\n'
    """
    end = pos = 0
    inside = False
    for line in raw.split(b"\n")[:-1]:
        pos += len(line) + 1
        # A quote toggles quoting; an escaped quote ("") toggles it twice.
        if line.count(b'"') % 2:
            inside = not inside
        if not inside:
            end = pos
    return end


# Cells with these are quoted: csv.writer leaves a lone CR (and other
# control characters) bare, and a bare CR breaks reading the record back.
_NEEDS_QUOTES = re.compile('[,"\x00-\x1f\x7f\x85\u2028\u2029]')


@contextmanager
def located(path: str | os.PathLike[str]) -> Iterator[None]:
    """Name ``path`` in an OSError that names no file (a failed write or flush).

    A full disk shows as ``No space left on device: run.csv``, never as
    ``...: None``.

    Examples
    --------
    >>> from perfstats.adapters.records.record import located
    >>> import errno
    >>> with located("run.csv"):  # doctest: +ELLIPSIS
    ...     raise OSError(errno.ENOSPC, "No space left on device")
    Traceback (most recent call last):
    ...
    OSError: [Errno 28] No space left on device: 'run.csv'
    """
    try:
        yield
    except OSError as exc:
        if exc.filename is not None:
            raise
        raise OSError(exc.errno, exc.strerror or str(exc), os.fspath(path)) from None


class _RowWriter:
    """Write CSV rows (RFC 4180), quoting every cell that holds a separator or control character."""

    def __init__(self, handle: IO[str]) -> None:
        self.handle = handle

    def writerow(self, cells: Sequence[str]) -> None:
        self.handle.write(",".join(_quoted(c) for c in cells) + "\n")


def _quoted(cell: str) -> str:
    if _NEEDS_QUOTES.search(cell):
        return '"' + cell.replace('"', '""') + '"'
    return cell


def create_csv(path: Path, columns: tuple[str, ...], advice: str) -> tuple[IO[str], _RowWriter]:
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
    writer = _RowWriter(handle)
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
        Its metadata must be there and name this format (:func:`check_resumable`).
    force : bool, default False
        Resume a record whose metadata is missing or has no format marker.

    Raises
    ------
    ValueError
        When another process is writing the record (:class:`RecordLock`:
        the lock is held until :meth:`close`), or it cannot be created or
        resumed.

    Examples
    --------
    >>> from perfstats.adapters.records.record import Record
    >>> rec = Record("run.csv")  # doctest: +SKIP
    >>> rec.append(row_of(1, 1, "measure", "t", measurement))  # doctest: +SKIP
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        fmt: RecordFormat = RUN,
        *,
        resume: bool = False,
        force: bool = False,
    ) -> None:
        self.path = Path(path)
        self.format = fmt
        self.meta_path = metadata_path(self.path)
        self.existing = frame([], fmt)
        self.metadata: dict[str, Any] = {}
        # Locked before anything is read or created: a second writer must not
        # even see a half-made record.
        self._lock = RecordLock(self.path)
        try:
            if resume:
                self._open_existing(force)
            else:
                advice = (
                    "resume it or choose another path" if fmt.resumable else "choose another path"
                )
                self._file, self._writer = create_csv(self.path, fmt.columns, advice)
        except BaseException:
            self._lock.release()
            raise

    def _open_existing(self, force: bool) -> None:
        if not self.format.resumable:
            raise ValueError(f"{self.format.kind} cannot be resumed")
        if not self.path.exists():
            raise ValueError(f"cannot resume: record {os.fspath(self.path)} does not exist")
        self.metadata = read_metadata(self.path, self.format)
        if not force:
            check_resumable(self.metadata, self.format, self.path)
        self.existing = read_frame(self.path, self.format)
        try:
            # O_NOFOLLOW: a symlink planted at the record's path is not written through.
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_NOFOLLOW)
        except OSError as exc:
            if self.path.is_symlink():
                raise ValueError(
                    f"cannot resume: record {os.fspath(self.path)} is a symbolic link; "
                    "resume the file it points to"
                ) from None
            raise ValueError(f"cannot resume {os.fspath(self.path)}: {exc.strerror}") from None
        # Drop a last line cut short by a crash before appending after it.
        size = os.fstat(fd).st_size
        raw = os.pread(fd, size, 0)
        keep = complete_end(raw)
        if keep < len(raw):
            os.ftruncate(fd, keep)
        self._file = open(fd, "a", newline="", encoding="utf-8")
        self._writer = _RowWriter(self._file)

    def append(self, row: Mapping[str, Any]) -> None:
        """Write one row and flush it to the operating system."""
        self.append_rows([row])

    def append_rows(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Write rows and flush them to the operating system."""
        with located(self.path):
            for row in rows:
                self._writer.writerow([csv_cell(row[c]) for c in self.format.columns])
            self._file.flush()

    def write_metadata(self, metadata: Mapping[str, Any]) -> None:
        """Replace the metadata file atomically, its secrets redacted (:func:`write_atomic`)."""
        # The record's own name: metadata found under an older, shared name
        # (legacy_metadata_path) is used only when it names this record.
        self.metadata = {**metadata, "record": self.path.name}
        text = json.dumps(redact(self.metadata), indent=2, default=str) + "\n"
        with located(self.meta_path):
            write_atomic(self.meta_path, text)

    def close(self) -> None:
        """Close the CSV file and release the record's lock."""
        try:
            if not self._file.closed:
                with located(self.path):
                    self._file.close()
        finally:
            self._lock.release()

    def rewrite_phases(self, phases: Mapping[int, str]) -> None:
        """Set the ``phase`` of the rows of the given run numbers; the CSV is replaced atomically.

        For a warm-up found after its runs were recorded (``perfstats run
        --warmup auto``). The rows are written to a temporary file beside
        the record, flushed to disk and renamed over it, then appending goes
        on, so a reader sees the old file or the new one, never half of one.
        ``tests/adapters/records/test_rewrite_phases.py`` shows it at work.
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
            text = io.StringIO()
            writer = _RowWriter(text)
            for row in rows:
                writer.writerow(row)
            # One writer of replaced files: O_EXCL temporary name, fsync, rename.
            with located(self.path):
                write_atomic(self.path, text.getvalue())
        finally:
            self._file = open(self.path, "a", newline="", encoding="utf-8")
            self._writer = _RowWriter(self._file)


def read_metadata(path: str | os.PathLike[str], fmt: RecordFormat | None = None) -> dict[str, Any]:
    """The metadata of the record at ``path`` (empty when there is none).

    With ``fmt``, the metadata's ``format`` marker must be that format's:
    a record of another kind, or written by another version of perfstats,
    is a ValueError that names both (metadata without a marker is read).
    Metadata under the older name (:func:`legacy_metadata_path`) is read
    only when it cannot belong to another record.

    Examples
    --------
    >>> from perfstats.adapters.records.record import read_metadata
    >>> read_metadata("run.csv")["rule"]  # doctest: +SKIP
    {'name': 'SuperFlow', ...}
    """
    meta = metadata_path(path)
    legacy = not meta.exists()
    if legacy:
        meta = legacy_metadata_path(path)
        if not meta.exists() or _shares_legacy_name(Path(path)):
            return {}
    try:
        data = json.loads(meta.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read {os.fspath(meta)}: {exc}") from None
    if not isinstance(data, dict):
        return {}
    if legacy and data.get("record", Path(path).name) != Path(path).name:
        return {}
    if fmt is not None:
        check_format(data.get("format"), fmt, path)
    # Metadata written before secrets were redacted is redacted as read.
    redacted: dict[str, Any] = redact(data)
    return redacted


def _shares_legacy_name(path: Path) -> bool:
    """Whether another file (``a`` or ``a.tsv`` beside ``a.csv``) has the same legacy metadata."""
    mine = legacy_metadata_path(path)
    for other in path.parent.iterdir() if path.parent.is_dir() else ():
        if other.name == path.name or other.name.endswith((".meta.json", ".lock", ".tmp")):
            continue
        if legacy_metadata_path(other) == mine and other.is_file():
            return True
    return False


def check_resumable(
    metadata: Mapping[str, Any], fmt: RecordFormat, path: str | os.PathLike[str]
) -> None:
    """Refuse to resume a record whose metadata is missing or names no format.

    Without metadata nothing says what the rows hold (target, rule,
    unit) or in which format they were written, so continuing the record
    could mix two experiments; ``force`` (``--force``) skips this check.

    Examples
    --------
    >>> from perfstats.adapters.records.record import RUN, check_resumable
    >>> check_resumable({"format": RUN.marker}, RUN, "run.csv")
    >>> check_resumable({}, RUN, "run.csv")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: cannot resume run.csv: it has no metadata (run.csv.meta.json), ...
    """
    where = os.fspath(path)
    if not metadata:
        raise ValueError(
            f"cannot resume {where}: it has no metadata ({metadata_path(path).name}), so its "
            "target, rule and format cannot be checked; resume with --force to continue anyway"
        )
    marker = metadata.get("format")
    if not fmt.accepts(marker):
        check_format(marker, fmt, path)
        raise ValueError(
            f"cannot resume {where}: its metadata names no format (this version writes "
            f"{fmt.marker}); resume with --force to continue anyway"
        )


def check_format(marker: Any, fmt: RecordFormat, path: str | os.PathLike[str]) -> None:
    """Refuse a record whose metadata names another format than ``fmt``.

    Examples
    --------
    >>> from perfstats.adapters.records.record import RUN, check_format
    >>> check_format("perfstats-record/1", RUN, "run.csv")
    >>> check_format("perfstats-record/1.1", RUN, "run.csv")
    >>> check_format("perfstats-record/2", RUN, "run.csv")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: run.csv was written in format perfstats-record/2 by another version ...
    """
    if marker is None or fmt.accepts(marker):
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
