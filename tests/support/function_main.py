"""A real HTTP function for the Functions Framework tests.

It does a little deterministic work per request and reports how long the
work took, so tests can read either the wall time or the reported value.
The first request after start pays for importing and building a table: a
genuine (small) cold start.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from typing import Any

_TABLE: list[int] | None = None
_TABLE_LOCK = threading.Lock()
# Numbers every request this process serves, so a load test can tell that no
# request was lost or served twice.
_SEQUENCE = itertools.count(1)
_SEQUENCE_LOCK = threading.Lock()


def _table() -> list[int]:
    global _TABLE
    with _TABLE_LOCK:
        if _TABLE is None:
            _TABLE = [i * i % 7919 for i in range(300_000)]
        return _TABLE


def work(request: Any) -> tuple[str, int, dict[str, str]]:
    """``/`` does the work; ``/fail`` answers 500; ``/slow`` sleeps ``seconds``."""
    if request.path == "/fail":
        return "deliberate failure", 500, {}
    if request.path == "/slow":
        time.sleep(float((request.get_json(silent=True) or {}).get("seconds", 2.0)))
        return "late", 200, {}
    with _SEQUENCE_LOCK:
        seq = next(_SEQUENCE)
    t0 = time.perf_counter_ns()
    cold = _TABLE is None
    table = _table()
    payload = request.get_json(silent=True) or {}
    n = int(payload.get("n", 2000))
    total = sum(table[i % len(table)] for i in range(n))
    body = {
        "seq": seq,
        "total": total,
        "cold": cold,
        "work_ns": time.perf_counter_ns() - t0,
        # The client's port tells one kept-alive connection from new ones.
        "client_port": int(request.environ.get("REMOTE_PORT", 0)),
    }
    headers = {"Content-Type": "application/json", "X-Cold-Start": "true" if cold else "false"}
    return json.dumps(body), 200, headers
