"""An ElastiBench-style benchmark runner for AWS Lambda (``perfstats ab`` on Lambda).

The function holds both versions of the code (``baseline/`` and
``candidate/``, each a ``bench.py`` with one function per benchmark) and
this runner. A call's request (perfstats.adapters.ab.protocol) names the
executions in the order to run them; each is timed here, inside the
instance, so that both versions of a duet call share its performance state.
``timeout_s`` bounds the call: executions that would start after it (less
a safety margin) are reported as errors instead of letting Lambda kill the
call and lose every result.
"""

from __future__ import annotations

import importlib
import os
import time
from typing import Any

# Time kept free at the end of a call to answer before the limit.
MARGIN_S = 1.0
VERSIONS = {name: importlib.import_module(f"{name}.bench") for name in ("baseline", "candidate")}


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Run the request's executions in order and report each one's time in ns."""
    started = time.monotonic()
    limit = float(event.get("timeout_s") or 900.0)
    if context is not None:
        limit = min(limit, context.get_remaining_time_in_millis() / 1e3)
    benchmark = event["benchmark"]
    results = []
    for version, repeat in event["executions"]:
        entry: dict[str, Any] = {"version": version, "repeat": repeat}
        if time.monotonic() - started > limit - MARGIN_S:
            entry["error"] = f"not started: the call's {limit:g} s were used up"
        else:
            run = getattr(VERSIONS[version], benchmark)
            params = dict(event["versions"][version])
            try:
                t0 = time.perf_counter_ns()
                run(**params)
                entry["value"] = time.perf_counter_ns() - t0
            except Exception as exc:
                entry["error"] = f"{type(exc).__name__}: {exc}"
        results.append(entry)
    return {"results": results, "unit": "ns", "pid": os.getpid()}
