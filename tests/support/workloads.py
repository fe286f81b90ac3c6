"""Deterministic Python kernels that run a suite call and report every timing.

Run as a script (``python -I -S workloads.py``): it reads one call's request
(JSON, the ``perfstats ab`` reporting protocol) on standard input, runs the
executions in the order given and prints ``{"results": [...], "unit": "ns",
"pid": ...}``. The Functions Framework function imports :func:`run_call`.

A version's parameters say which ``kernel`` to run, its ``size`` (work per
unit) and how many ``units`` to time. The injected slowdown is therefore
exactly known: a candidate with 11 units where the baseline has 10 does
10% more of the very same work, and because the timer runs around the units
inside the process, process start-up does not dilute the ratio.

Test-only parameters: ``fail`` (a list of repeats reported as errors),
``crash`` (the whole call exits with status 3), ``clock`` (``"wall"``,
default, or ``"thread"`` for the thread's CPU time).
"""

from __future__ import annotations

import gc
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

_DATA: dict[int, list[int]] = {}


def _numbers(size: int) -> list[int]:
    """A fixed pseudo-random list, built once per process and size."""
    if size not in _DATA:
        state, out = 2024, []
        for _ in range(size):
            state = (state * 1103515245 + 12345) % 2147483648
            out.append(state >> 8)
        _DATA[size] = out
    return _DATA[size]


def lcg(size: int) -> int:
    """A linear congruential walk with a checksum: integer arithmetic."""
    state, checksum = 12345, 0
    for i in range(size):
        state = (state * 1103515245 + 12345) % 2147483648
        checksum = (checksum + (state >> 16) * (i % 7 + 1)) % 1000003
    return checksum


def sort(size: int) -> int:
    """Sort a copy of a fixed list: allocation and comparisons."""
    data = sorted(_numbers(size))
    return data[size // 2]


def table(size: int) -> int:
    """Build a dict and look every key up again: hashing."""
    keys = _numbers(size)
    index = {k: i for i, k in enumerate(keys)}
    return sum(index[k] for k in keys) % 1000003


def strings(size: int) -> int:
    """Format, join and split strings."""
    text = ",".join(f"{i:x}" for i in range(size))
    return sum(len(part) for part in text.split(","))


def sleep(size: int) -> int:
    """Sleep ``size`` milliseconds: a call that waits instead of computing."""
    time.sleep(size / 1000.0)
    return size


KERNELS: dict[str, Callable[[int], int]] = {
    "lcg": lcg,
    "sort": sort,
    "table": table,
    "strings": strings,
    "sleep": sleep,
}
CLOCKS: dict[str, Callable[[], int]] = {"wall": time.perf_counter_ns, "thread": time.thread_time_ns}


def _execute(params: dict[str, Any], repeat: int) -> dict[str, Any]:
    if repeat in params.get("fail", ()):
        return {"error": f"planned failure of repeat {repeat}"}
    kernel = KERNELS[params["kernel"]]
    size, units = int(params["size"]), int(params["units"])
    clock = CLOCKS[params.get("clock", "wall")]
    # A cyclic collection triggered by garbage of an earlier execution must
    # not be billed to whichever version happens to run next; the kernels
    # make no cycles, so reference counting frees their garbage anyway.
    gc.disable()
    try:
        # One untimed unit first: the first run of a kernel in an execution
        # pays for allocator growth and cold caches, a fixed cost that would
        # dilute the ratio of unit counts the tests check.
        kernel(size)
        t0 = clock()
        for _ in range(units):
            kernel(size)
        elapsed = clock() - t0
    finally:
        gc.enable()
    return {"value": elapsed}


def run_call(request: dict[str, Any]) -> dict[str, Any]:
    """Run one call's executions in the requested order and report each one."""
    versions = request["versions"]
    if any(v.get("crash") for v in versions.values()):
        raise SystemExit(3)
    # One untimed unit of each version first: the first pass in a fresh
    # process pays for caches and allocations that later passes do not.
    for params in versions.values():
        KERNELS[params["kernel"]](int(params["size"]))
    results = []
    for version, repeat in request["executions"]:
        outcome = _execute(versions[version], int(repeat))
        results.append({"version": version, "repeat": repeat, **outcome})
    return {"results": results, "unit": "ns", "pid": os.getpid()}


def main() -> int:
    request = json.load(sys.stdin)
    sys.stdout.write(json.dumps(run_call(request)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
