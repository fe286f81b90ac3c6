"""CPU per component call against the calls in flight (benchmarks/shop_concurrency.py)."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.shop_concurrency import MAX_BIN, relative_cpu_by_concurrency


def _span(sid: str, name: str, start: float, end: float, cpu: float, *,
          parent: str | None = None, service: str = "pricing") -> dict[str, Any]:
    return {"id": sid, "parent_id": parent, "trace_id": sid, "name": name,
            "service": service, "start": start, "end": end, "cpu": cpu}


def test_components_are_scaled_by_their_own_time_alone() -> None:
    spans = []
    # Two components of different size, each 12 times alone (1 in flight) ...
    for i in range(12):
        spans.append(_span(f"a{i}", "small", 10.0 * i, 10.0 * i + 1.0, 0.001))
        spans.append(_span(f"b{i}", "large", 10.0 * i + 5.0, 10.0 * i + 6.0, 0.004))
    # ... and then three at once, each 30 % dearer than alone.
    spans.append(_span("c0", "small", 500.0, 501.0, 0.0013))
    spans.append(_span("c1", "large", 500.0, 501.0, 0.0052))
    spans.append(_span("c2", "large", 500.0, 501.0, 0.0052))
    curve = relative_cpu_by_concurrency(spans, "pricing")
    assert curve[1] == (24, 1.0)
    assert curve[3][0] == 3
    assert np.isclose(curve[3][1], 1.3)


def test_only_leaves_of_the_service_count() -> None:
    spans = []
    for i in range(12):
        # A parent that overlaps its child must not count as a second call
        # in flight, nor be a call of its own (its time holds the child's).
        spans.append(_span(f"p{i}", "quote", 10.0 * i, 10.0 * i + 2.0, 0.009))
        spans.append(_span(f"l{i}", "compute_price", 10.0 * i + 0.5, 10.0 * i + 1.5, 0.002,
                           parent=f"p{i}"))
        # Another service's work at the same time is not company either.
        spans.append(_span(f"g{i}", "render_page", 10.0 * i, 10.0 * i + 2.0, 0.003,
                           service="gateway"))
    assert relative_cpu_by_concurrency(spans, "pricing") == {1: (12, 1.0)}
    assert relative_cpu_by_concurrency(spans, "gateway") == {1: (12, 1.0)}
    assert relative_cpu_by_concurrency(spans, "catalogue") == {}


@settings(max_examples=50, deadline=None)
@given(st.integers(min_value=1, max_value=25), st.floats(min_value=0.5, max_value=3.0))
def test_k_identical_calls_at_once_are_k_in_flight(k: int, slowdown: float) -> None:
    spans = [_span(f"a{i}", "f", 3.0 * i, 3.0 * i + 1.0, 0.002) for i in range(10)]
    spans += [_span(f"b{i}", "f", 100.0, 101.0, 0.002 * slowdown) for i in range(k)]
    curve = relative_cpu_by_concurrency(spans, "pricing")
    if k == 1:
        # One more call alone: the median stays that of the ten, the mean moves.
        assert curve == {1: (11, round((10.0 + slowdown) / 11.0, 4))}
        return
    assert curve[1] == (10, 1.0)
    assert curve[min(k, MAX_BIN)] == (k, round(slowdown, 4))
