"""OpenTelemetry-style spans of the shop's components, and the injection hook.

A span is a plain dict ``{"trace_id", "id", "parent_id", "name", "service",
"start", "end", "cpu"}`` (times in seconds since the epoch, as
``time.time()``; the parent of a root span is ``None``), the fields an
OpenTelemetry exporter writes, plus one attribute: ``cpu``, the thread CPU
time the span used (a remote call's CPU time is the callee's, not in it).
The context (trace and current span) travels between services in the
``X-Trace-Id``/``X-Parent-Id`` request headers.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from . import injection

_local = threading.local()
_lock = threading.Lock()
_spans: list[dict[str, Any]] = []
_ids = itertools.count(1)
_prefix = f"{os.getpid():x}-"
_enabled = False
# A bound on memory if nobody collects: a 2-minute load test makes far fewer.
MAX_SPANS = 500_000


def enable(on: bool = True) -> None:
    """Record spans (the services do; component benchmarks do not)."""
    global _enabled
    _enabled = on


def collect() -> list[dict[str, Any]]:
    """The recorded spans since the last call (the buffer is emptied)."""
    global _spans
    with _lock:
        out, _spans = _spans, []
    return out


def set_context(trace_id: str | None, parent_id: str | None) -> None:
    """Continue the caller's trace in this thread (from the request headers)."""
    _local.trace_id = trace_id
    _local.span_id = parent_id


def headers() -> dict[str, str]:
    """Headers that make the callee's spans children of the current span."""
    trace_id = getattr(_local, "trace_id", None)
    span_id = getattr(_local, "span_id", None)
    if trace_id is None or span_id is None:
        return {}
    return {"X-Trace-Id": trace_id, "X-Parent-Id": span_id}


@contextmanager
def component(name: str, service: str) -> Iterator[None]:
    """Run a component: one span, and the busy wait injected at it (if any).

    The injected wait is a share of the component's own CPU time in this
    call, measured here; nested components are part of that time.
    """
    factor = injection.active().factor(name)
    cpu0 = time.thread_time() if factor or _enabled else 0.0
    if not _enabled:
        yield
        if factor:
            injection.spin(factor * (time.thread_time() - cpu0))
        return
    parent = getattr(_local, "span_id", None)
    trace_id = getattr(_local, "trace_id", None)
    span_id = _prefix + str(next(_ids))
    if trace_id is None:
        trace_id = span_id
        _local.trace_id = trace_id
    _local.span_id = span_id
    start = time.time()
    try:
        yield
        if factor:
            injection.spin(factor * (time.thread_time() - cpu0))
    finally:
        end = time.time()
        cpu = time.thread_time() - cpu0
        _local.span_id = parent
        if parent is None:
            _local.trace_id = None
        record = {
            "trace_id": trace_id,
            "id": span_id,
            "parent_id": parent,
            "name": name,
            "service": service,
            "start": start,
            "end": end,
            "cpu": cpu,
        }
        with _lock:
            if len(_spans) < MAX_SPANS:
                _spans.append(record)
