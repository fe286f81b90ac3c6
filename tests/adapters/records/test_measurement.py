"""A Measurement checks its status and value."""

from __future__ import annotations

import math
from datetime import datetime, timezone

import pytest
from perfstats.adapters import Measurement

T0 = datetime(2024, 5, 1, 12, 0, 0, tzinfo=timezone.utc)

class TestMeasurement:
    def test_failures_carry_no_value(self) -> None:
        m = Measurement.failure("exit status 1:\n  boom", unit="ns", cold=None, started_at=T0)
        assert m.value is None and m.status == "error" and m.error == "exit status 1: boom"
        with pytest.raises(ValueError, match="carries no value"):
            Measurement(value=1.0, unit="ns", cold=None, started_at=T0, status="timeout")

    def test_ok_needs_a_finite_value(self) -> None:
        with pytest.raises(ValueError, match="finite value"):
            Measurement(value=math.nan, unit="ns", cold=None, started_at=T0)
        with pytest.raises(ValueError, match="status must be one of"):
            Measurement(value=None, unit="ns", cold=None, started_at=T0, status="maybe")
