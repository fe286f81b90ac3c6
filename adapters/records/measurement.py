"""One invocation's outcome: the unit every target produces and the driver records."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from .redaction import redact_text
from .series import SeriesValue

OK = "ok"
ERROR = "error"
TIMEOUT = "timeout"
STATUSES = (OK, ERROR, TIMEOUT)


def utc_now() -> datetime:
    """The current wall-clock time, timezone-aware in UTC.

    Examples
    --------
    >>> from perfstats.adapters.records.measurement import utc_now
    >>> utc_now().tzname()
    'UTC'
    """
    return datetime.now(timezone.utc)


@dataclass(frozen=True)
class Measurement:
    """The outcome of one invocation of a target.

    Parameters
    ----------
    value : float or None
        The number the run gave; ``None`` unless ``status`` is ``"ok"``, so a
        failed run can never be mistaken for a fast one.
    unit : str
        Unit of ``value``: ``"ns"`` for the wall time the driver clocks,
        ``"ms"`` for a Lambda REPORT duration, or what the user declared for a
        value the target reports.
    cold : bool or None
        True for a cold start, False for a warm one, None when unknown.
    started_at : datetime
        Wall-clock start of the invocation (UTC).
    status : {"ok", "error", "timeout"}
        How the invocation ended.
    error : str or None
        What went wrong, one line, when ``status`` is not ``"ok"``; secrets in
        it are redacted (:func:`~perfstats.adapters.records.redaction.redact_text`).
    extra : Mapping
        Target-specific numbers kept beside the value (exit code, HTTP status,
        Lambda billed duration and memory, ...).
    series : Mapping of str to SeriesValue
        Named values beside the primary ``value`` (the benchmarks of a suite,
        the metrics of a run), each judged by its own rule; empty for a
        target that gives one number.

    Examples
    --------
    >>> from perfstats.adapters import Measurement
    >>> m = Measurement(value=1.5e6, unit="ns", cold=None, started_at=utc_now())
    >>> m.ok
    True
    >>> Measurement.failure("exit status 1", unit="ns", cold=None, started_at=m.started_at).value
    """

    value: float | None
    unit: str
    cold: bool | None
    started_at: datetime
    status: str = OK
    error: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    series: Mapping[str, SeriesValue] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, item in self.series.items():
            if not isinstance(name, str) or not name:
                raise ValueError(f"a series name must be a non-empty string; got {name!r}")
            if not isinstance(item, SeriesValue):
                raise ValueError(f"series {name!r} must be a SeriesValue; got {item!r}")
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {', '.join(STATUSES)}; got {self.status!r}")
        if self.status == OK:
            if self.value is None or not math.isfinite(self.value):
                raise ValueError(f"an ok measurement needs a finite value; got {self.value!r}")
        elif self.value is not None:
            raise ValueError(f"a {self.status} measurement carries no value; got {self.value!r}")
        if self.error:
            # Error text comes from the target (stderr, a response body) and
            # may quote a command line, a URL or a header with a secret.
            object.__setattr__(self, "error", redact_text(self.error))

    @property
    def ok(self) -> bool:
        """True when the invocation succeeded and :attr:`value` is a number."""
        return self.status == OK

    @classmethod
    def failure(
        cls,
        error: str,
        *,
        unit: str,
        cold: bool | None,
        started_at: datetime,
        status: str = ERROR,
        extra: Mapping[str, Any] | None = None,
    ) -> Measurement:
        """A measurement of a failed (``"error"``) or timed-out invocation.

        Parameters
        ----------
        error : str
            What went wrong; it is collapsed to one line of at most 300
            characters (:func:`one_line`) and its secrets are redacted.
        unit : str
            Unit a successful invocation's value would have had (may be
            empty).
        cold : bool or None
            As for :class:`Measurement`.
        started_at : datetime
            As for :class:`Measurement`.
        status : {"error", "timeout"}, default "error"
            How the invocation ended.
        extra : Mapping, optional
            Target-specific numbers kept beside the error (exit code, HTTP
            status, ...); copied.

        Returns
        -------
        Measurement
            Its value None, with ``status``, the error and no series.

        Raises
        ------
        ValueError
            When ``status`` is not ``"error"`` or ``"timeout"``.
        """
        return cls(
            value=None,
            unit=unit,
            cold=cold,
            started_at=started_at,
            status=status,
            error=one_line(error),
            extra=dict(extra or {}),
        )


def one_line(text: str, limit: int = 300) -> str:
    """Collapse ``text`` to one line of at most ``limit`` characters for records.

    Examples
    --------
    >>> from perfstats.adapters.records.measurement import one_line
    >>> one_line("Traceback:\\n  boom\\n")
    'Traceback: boom'
    """
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
