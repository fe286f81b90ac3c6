"""Small suites of the test workloads, built the same way in every A-B test."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from perfstats.adapters.ab import Benchmark, ReportingCommand

HERE = Path(__file__).resolve().parent
WORKLOADS = HERE / "workloads.py"


def workload_command(**options: Any) -> ReportingCommand:
    """The workloads script as a suite target (an isolated interpreter per call)."""
    return ReportingCommand([sys.executable, "-I", "-S", str(WORKLOADS)], unit="ns", **options)


def benchmark(
    name: str,
    kernel: str = "lcg",
    *,
    size: int = 1000,
    units: int = 10,
    extra_units: int | None = None,
    clock: str = "thread",
    baseline: dict[str, Any] | None = None,
    candidate: dict[str, Any] | None = None,
) -> Benchmark:
    """A benchmark whose candidate runs ``extra_units`` units (default: as many as the baseline)."""
    params = {"kernel": kernel, "size": size, "clock": clock}
    return Benchmark(
        name,
        {**params, "units": units, **(baseline or {})},
        {**params, "units": units if extra_units is None else extra_units, **(candidate or {})},
    )
