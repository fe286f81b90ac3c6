"""A real HTTP function for the Functions Framework tests.

It does a little deterministic work per request and reports how long the
work took, so tests can read either the wall time or the reported value.
The first request after start pays for importing and building a table: a
genuine (small) cold start.
"""

from __future__ import annotations

import json
import time
from typing import Any

_TABLE: list[int] | None = None


def _table() -> list[int]:
    global _TABLE
    if _TABLE is None:
        _TABLE = [i * i % 7919 for i in range(300_000)]
    return _TABLE


def work(request: Any) -> tuple[str, int, dict[str, str]]:
    t0 = time.perf_counter_ns()
    cold = _TABLE is None
    table = _table()
    payload = request.get_json(silent=True) or {}
    n = int(payload.get("n", 2000))
    total = sum(table[i % len(table)] for i in range(n))
    body = {"total": total, "cold": cold, "work_ns": time.perf_counter_ns() - t0}
    return json.dumps(body), 200, {"Content-Type": "application/json"}


def fail(request: Any) -> tuple[str, int]:
    return "deliberate failure", 500
