"""How the ``perfstats`` command writes: lines, errors, JSON, and texts several commands show."""

from __future__ import annotations

import json
import sys
from typing import Any

from ..records.plain import plain
from ..records.record import located
from ..report.formatting import percent, quantity, table
from .parser import PROG, one_line


def out(text: str = "") -> None:
    """Write a line to standard output (a failure names it: ``No space left on device: ...``)."""
    with located("standard output"):
        sys.stdout.write(text + "\n")


def err(text: str) -> None:
    """Write a one-line error to standard error."""
    sys.stderr.write(f"{PROG}: error: {one_line(text)}\n")


def emit_json(data: Any) -> None:
    """Write ``data`` as indented JSON (result objects made plain first)."""
    out(json.dumps(plain(data), indent=2))


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
