"""Human-readable quantities for the command line."""

from __future__ import annotations

from datetime import datetime, timezone

from perfstats.adapters.report.formatting import quantity

T0 = datetime(2024, 5, 1, 12, 0, 0, tzinfo=timezone.utc)

def test_quantity_scales_times() -> None:
    assert quantity(1_500.0, "ns") == "1.5 µs"
    assert quantity(2.5e9, "ns") == "2.5 s"
    assert quantity(0.5, "ms") == "500 µs"
    assert quantity(3, "MB") == "3 MB"
