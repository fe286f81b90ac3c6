"""A Functions Framework function holding both versions of every workload.

POST a call's request (the ``perfstats ab`` reporting protocol): the
function runs its executions in this instance, in the order given, and
answers with every timing, as ElastiBench's benchrunner does inside a FaaS
function. ``pid`` in the answer names the instance (the worker process).
"""

from __future__ import annotations

import json
from typing import Any

from workloads import run_call


def suite(request: Any) -> tuple[str, int, dict[str, str]]:
    """Run one suite call; a malformed request is a 400, a crash a 500."""
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or "executions" not in body:
        return "expected a suite call request (JSON)", 400, {}
    try:
        answer = run_call(body)
    except SystemExit:
        return "the workload crashed", 500, {}
    return json.dumps(answer), 200, {"Content-Type": "application/json"}
