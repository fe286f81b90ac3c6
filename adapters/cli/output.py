"""How the ``perfstats`` command writes: lines, errors, JSON, and texts several commands show."""

from __future__ import annotations

import json
import sys
from typing import Any

from ..records.plain import plain
from ..records.record import located
from ..records.redaction import redact
from ..records.terminal import for_terminal, printable
from ..report.formatting import percent, quantity, table
from .parser import PROG, one_line


def out(text: str = "") -> None:
    """Write a line to standard output, secrets redacted and control characters shown.

    A failure names the stream: ``No space left on device: standard output``.
    """
    with located("standard output"):
        sys.stdout.write(for_terminal(text) + "\n")


def err(text: str) -> None:
    """Write a one-line error to standard error, secrets redacted and control characters shown."""
    sys.stderr.write(f"{PROG}: error: {for_terminal(one_line(text), newlines=False)}\n")


def emit_json(data: Any, *, secret_keys: bool = True) -> None:
    """Write ``data`` as indented JSON (made plain, then its secrets redacted).

    Redacted as data, not as text, so the output stays valid JSON; it is
    ASCII (``ensure_ascii``), so no control character reaches the terminal.
    ``secret_keys=False`` when keys are names (benchmarks), not settings
    (see :func:`~perfstats.adapters.records.redaction.redact`).
    """
    text = json.dumps(redact(plain(data), secret_keys=secret_keys), indent=2)
    with located("standard output"):
        sys.stdout.write(printable(text) + "\n")


def rule_text(rule: Any) -> str:
    """A recorded rule (``{"name": ..., "config": {...}}``) as ``Name(key=value, ...)``.

    Examples
    --------
    >>> rule_text({"name": "Fixed", "config": {"n": 5}})
    'Fixed(n=5)'
    """
    if not isinstance(rule, dict):
        return str(rule)
    config = ", ".join(f"{k}={v!r}" for k, v in (rule.get("config") or {}).items())
    return f"{rule.get('name')}({config})"


def intervals_text(rows: list[dict[str, Any]], unit: str) -> str:
    """The table of final percentile intervals (rows of ``percentile_rows``)."""
    if not rows:
        return "no successful measurement, so no interval"
    first = rows[0]
    head = f"final intervals ({100 * first['level']:g}% CI, {first['method']}, n={first['n']})"
    shown = [
        {
            "percentile": r["percentile"],
            "estimate": quantity(r["estimate"], unit),
            "low": quantity(r["low"], unit),
            "high": quantity(r["high"], unit),
            "±": percent(r["rel_error"]),
        }
        for r in rows
    ]
    return head + "\n" + table(shown)
