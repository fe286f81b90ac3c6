"""A suite target of named series of known noise, for the tests of the multi-series stop loop."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

import numpy as np
from perfstats.adapters import Measurement, Target
from perfstats.adapters.records.measurement import utc_now
from perfstats.adapters.records.series import SeriesValue

NOISE = {"quiet": 0.002, "mid": 0.03, "noisy": 0.12}


class Suite(Target):
    """A suite of benchmarks of known noise: each invocation draws one value per benchmark.

    The primary value is the suite's own steady overhead; with ``selects``
    the suite runs only the benchmarks it is asked for, as a benchmark
    filter would. ``missing`` maps a benchmark to the runs it leaves out of
    its output; ``failing`` to the runs it reports as failed; the first
    ``slow_first`` calls are twice as slow (a warm-up).
    """

    kind = "suite"

    def __init__(
        self,
        noise: Mapping[str, float] = NOISE,
        *,
        seed: int = 0,
        selects: bool = True,
        missing: Mapping[str, set[int]] | None = None,
        failing: Mapping[str, set[int]] | None = None,
        slow_first: int = 0,
    ) -> None:
        self.name = "a test suite"
        self.noise = dict(noise)
        self.selects_series = selects
        self.rng = np.random.default_rng(seed)
        self.missing = dict(missing or {})
        self.failing = dict(failing or {})
        self.slow_first = slow_first
        self.calls: list[frozenset[str] | None] = []
        self.executions = 0
        self._lock = threading.Lock()

    def invoke(self) -> Measurement:
        return self._run(None)

    def invoke_only(self, names: frozenset[str]) -> Measurement:
        assert self.selects_series, "invoke_only on a suite that cannot select"
        return self._run(names)

    def _run(self, names: frozenset[str] | None) -> Measurement:
        with self._lock:
            self.calls.append(names)
            call = len(self.calls)
            series: dict[str, SeriesValue] = {}
            for name, sigma in self.noise.items():
                if names is not None and name not in names:
                    continue
                self.executions += 1
                # A warm-up: the first calls run twice as slow.
                slow = 2.0 if call <= self.slow_first else 1.0
                draw = slow * float(self.rng.lognormal(3.0, sigma))
                if call in self.missing.get(name, set()):
                    continue
                if call in self.failing.get(name, set()):
                    series[name] = SeriesValue(None, "ns", error=f"{name} crashed")
                else:
                    series[name] = SeriesValue(draw, "ns", source="suite")
            value = (2.0 if call <= self.slow_first else 1.0) * float(self.rng.normal(100.0, 0.01))
        return Measurement(value, "ns", None, utc_now(), series=series)

    def _config(self) -> dict[str, Any]:
        return {"noise": self.noise}
