"""Parse the REPORT line AWS Lambda writes at the end of every invocation's log.

The format AWS documents (fields separated by tabs)::

    REPORT RequestId: 3604209a-e9a3-11e6-939a-754dd98c7be3\tDuration: 12.34 ms\t
    Billed Duration: 13 ms\tMemory Size: 128 MB\tMax Memory Used: 18 MB\t
    Init Duration: 120.53 ms

``Init Duration`` appears only when the invocation started a new execution
environment, which is how a cold start is recognised.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# (attribute, label, unit).
_FIELDS = (
    ("duration_ms", "Duration", "ms"),
    ("billed_duration_ms", "Billed Duration", "ms"),
    ("memory_size_mb", "Memory Size", "MB"),
    ("max_memory_used_mb", "Max Memory Used", "MB"),
    ("init_duration_ms", "Init Duration", "ms"),
    ("restore_duration_ms", "Restore Duration", "ms"),
)
# The lookbehinds keep "Duration" from matching the tail of "Billed Duration",
# "Init Duration" or "Restore Duration" (logs forwarded by some tools lose
# the tabs, so word boundaries cannot rely on them).
_NOT_QUALIFIED = "(?<![A-Za-z])(?<!Billed )(?<!Init )(?<!Restore )"
_PATTERNS = {
    attr: re.compile(
        rf"{_NOT_QUALIFIED}{re.escape(label)}:\s*([0-9]+(?:\.[0-9]+)?)\s*{unit}(?![A-Za-z])"
    )
    for attr, label, unit in _FIELDS
}
_REQUEST_ID = re.compile(r"RequestId:\s*([0-9A-Za-z-]+)")
_STATUS = re.compile(r"(?<![A-Za-z])Status:\s*(\w+)")


@dataclass(frozen=True)
class LambdaReport:
    """The numbers of one Lambda REPORT line.

    Parameters
    ----------
    request_id : str or None
        The invocation's ``RequestId``; None when the line has none.
    duration_ms : float
        Time the handler ran (``Duration``, in ms).
    billed_duration_ms : float
        Time the invocation is charged for (``Billed Duration``, in ms).
    memory_size_mb : float
        Configured memory (``Memory Size``, in MB).
    max_memory_used_mb : float
        Peak memory the execution environment used (``Max Memory Used``, in MB).
    init_duration_ms : float or None
        Initialisation time of a new execution environment; None when warm.
    restore_duration_ms : float or None
        SnapStart restore time, when present.
    status : str or None
        ``Status`` field some runtimes add on failures (``timeout``, ``error``).

    Examples
    --------
    >>> from perfstats.adapters import LambdaReport
    >>> LambdaReport("r1", 12.3, 13.0, 128.0, 18.0).cold
    False
    """

    request_id: str | None
    duration_ms: float
    billed_duration_ms: float
    memory_size_mb: float
    max_memory_used_mb: float
    init_duration_ms: float | None = None
    restore_duration_ms: float | None = None
    status: str | None = None

    @property
    def cold(self) -> bool:
        """True when the invocation initialised a new execution environment."""
        return self.init_duration_ms is not None

    def to_dict(self) -> dict[str, Any]:
        """Plain data, for a measurement's ``extra``.

        Returns
        -------
        dict of str to Any
            Every field under its attribute name (times in ms, memory in MB),
            except :attr:`status`, which is under ``"report_status"``; the
            fields the line lacked are None.
        """
        return {
            "request_id": self.request_id,
            "duration_ms": self.duration_ms,
            "billed_duration_ms": self.billed_duration_ms,
            "memory_size_mb": self.memory_size_mb,
            "max_memory_used_mb": self.max_memory_used_mb,
            "init_duration_ms": self.init_duration_ms,
            "restore_duration_ms": self.restore_duration_ms,
            "report_status": self.status,
        }


def parse_report(line: str) -> LambdaReport:
    """Parse one ``REPORT RequestId: ...`` line.

    Parameters
    ----------
    line : str
        One line of an invocation's log, starting with ``REPORT`` (leading
        spaces allowed); the fields may be separated by tabs or by spaces.

    Returns
    -------
    LambdaReport
        The line's numbers; the optional fields (``Init Duration``,
        ``Restore Duration``, ``Status``, ``RequestId``) are None when absent.

    Raises
    ------
    ValueError
        When the line is not a REPORT line or lacks one of Duration, Billed
        Duration, Memory Size and Max Memory Used.

    Examples
    --------
    >>> from perfstats.adapters import parse_report
    >>> r = parse_report("REPORT RequestId: 3604209a-e9a3-11e6-939a-754dd98c7be3\\t"
    ...                  "Duration: 12.34 ms\\tBilled Duration: 13 ms\\tMemory Size: 128 MB\\t"
    ...                  "Max Memory Used: 18 MB\\tInit Duration: 120.53 ms")
    >>> r.duration_ms, r.billed_duration_ms, r.init_duration_ms, r.cold
    (12.34, 13.0, 120.53, True)
    """
    if not isinstance(line, str) or not line.lstrip().startswith("REPORT"):
        raise ValueError(f"not a Lambda REPORT line: {line!r}")
    found: dict[str, float | None] = {}
    for attr, _, _ in _FIELDS:
        match = _PATTERNS[attr].search(line)
        found[attr] = float(match.group(1)) if match else None
    required = ("duration_ms", "billed_duration_ms", "memory_size_mb", "max_memory_used_mb")
    missing = [label for attr, label, _ in _FIELDS if attr in required and found[attr] is None]
    if missing:
        raise ValueError(f"Lambda REPORT line lacks {', '.join(missing)}: {line!r}")
    request = _REQUEST_ID.search(line)
    status = _STATUS.search(line)
    return LambdaReport(
        request_id=request.group(1) if request else None,
        duration_ms=float(found["duration_ms"] or 0.0),
        billed_duration_ms=float(found["billed_duration_ms"] or 0.0),
        memory_size_mb=float(found["memory_size_mb"] or 0.0),
        max_memory_used_mb=float(found["max_memory_used_mb"] or 0.0),
        init_duration_ms=found["init_duration_ms"],
        restore_duration_ms=found["restore_duration_ms"],
        status=status.group(1) if status else None,
    )


def find_report(log: str) -> LambdaReport | None:
    """The last REPORT line in a log tail, parsed; None when there is none.

    Examples
    --------
    >>> from perfstats.adapters.targets.lambda_report import find_report
    >>> find_report("START RequestId: a Version: $LATEST\\nEND RequestId: a\\n") is None
    True
    """
    lines = [ln for ln in log.splitlines() if ln.lstrip().startswith("REPORT RequestId:")]
    return parse_report(lines[-1]) if lines else None
