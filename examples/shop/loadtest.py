"""One system-level load test of the example shop (the oracle, Liao et al. IV-D).

Start the three services with a version's injected regression, drive the
gateway with the open-loop generator, and measure over the window after the
warm-up: every request's response time, each service's CPU % (from the
process's CPU time, ``psutil``) and the spans the services recorded.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import psutil

from examples.shop.cluster import ORDER, Shop
from examples.shop.injection import Injection
from examples.shop.loadgen import Workload, open_loop


@dataclass(frozen=True)
class LoadTestRun:
    """What one load test measured (the window after the warm-up only)."""

    response_ms: np.ndarray = field(repr=False)
    kinds: np.ndarray = field(repr=False)
    cpu_percent: dict[str, float]
    busy_s: dict[str, float]
    window_s: float
    completions: dict[str, int]
    errors: int
    spans: list[dict[str, Any]] = field(repr=False)
    wall_s: float
    pids: dict[str, int]

    @property
    def mean_ms(self) -> float:
        return float(np.mean(self.response_ms))


def _cpu_seconds(procs: dict[str, psutil.Process]) -> dict[str, float]:
    out = {}
    for name, proc in procs.items():
        t = proc.cpu_times()
        out[name] = t.user + t.system
    return out


def run_load_test(
    injection: Injection,
    workload: Workload,
    *,
    duration: float,
    warmup: float,
    seed: int,
    keep_spans: bool = False,
) -> LoadTestRun:
    """Start a fresh shop running ``injection``, load it, stop it, return the measurements."""
    t_wall = time.perf_counter()
    with Shop(injection) as shop:
        pids = shop.pids
        procs = {name: psutil.Process(pid) for name, pid in pids.items()}
        snaps: dict[str, tuple[float, dict[str, float]]] = {}
        epoch: dict[str, float] = {}

        def mark(edge: str) -> None:
            snaps[edge] = (time.monotonic(), _cpu_seconds(procs))
            epoch[edge] = time.time()
            if edge == "start":
                shop.spans()  # drop the warm-up's spans

        result = open_loop(
            shop.address("gateway"),
            workload,
            duration=duration,
            warmup=warmup,
            rng=np.random.default_rng(seed),
            on_window=mark,
        )
        spans = shop.spans() if keep_spans else []
    (t_start, cpu_start), (t_end, cpu_end) = snaps["start"], snaps["end"]
    window = t_end - t_start
    busy = {name: cpu_end[name] - cpu_start[name] for name in ORDER}
    measured = result.measured()
    good = [r for r in measured if r.ok]
    completions: dict[str, int] = {}
    for r in good:
        completions[r.kind] = completions.get(r.kind, 0) + 1
    if keep_spans:
        # Only whole traces of requests that started inside the window (a
        # request in flight when it opened lost the spans that ended before).
        roots = {
            s["trace_id"]
            for s in spans
            if s["parent_id"] is None and epoch["start"] <= s["start"] < epoch["end"]
        }
        spans = [s for s in spans if s["trace_id"] in roots]
    return LoadTestRun(
        response_ms=np.array([r.response_time * 1e3 for r in good]),
        kinds=np.array([r.kind for r in good]),
        cpu_percent={name: 100.0 * busy[name] / window for name in ORDER},
        busy_s=busy,
        window_s=window,
        completions=completions,
        errors=len(measured) - len(good),
        spans=spans,
        wall_s=time.perf_counter() - t_wall,
        pids=pids,
    )
