"""An open-loop load generator: Poisson arrivals at a fixed rate, a request mix.

Requests are sent at their scheduled instants whatever the state of earlier
ones (open loop), by a bounded pool of threads, only to 127.0.0.1. A
request's response time runs from its scheduled instant to the end of its
reply, so a late send (all threads busy) counts against the system rather
than vanishing (no coordinated omission).
"""

from __future__ import annotations

import http.client
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

MAX_WORKERS = 64
TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Workload:
    """``rate`` requests per second, split by ``mix`` (request type -> share)."""

    rate: float
    mix: Mapping[str, float]

    def __post_init__(self) -> None:
        if not self.rate > 0:
            raise ValueError(f"rate must be > 0, got {self.rate!r}")
        if not self.mix or any(not v >= 0 for v in self.mix.values()):
            raise ValueError(f"mix must map request types to shares >= 0, got {self.mix!r}")
        total = sum(self.mix.values())
        if not total > 0:
            raise ValueError(f"mix shares must not all be 0, got {self.mix!r}")

    def shares(self) -> dict[str, float]:
        total = sum(self.mix.values())
        return {k: v / total for k, v in self.mix.items()}

    def arrival_rates(self) -> dict[str, float]:
        """Requests per second of each type."""
        return {k: self.rate * v for k, v in self.shares().items()}


@dataclass(frozen=True)
class Request:
    """One request: type, scheduled/sent/finished instants (``time.monotonic``), success."""

    kind: str
    scheduled: float
    sent: float
    finished: float
    ok: bool

    @property
    def response_time(self) -> float:
        return self.finished - self.scheduled


@dataclass(frozen=True)
class LoadResult:
    """Every request sent, and the measurement window (warm-up excluded)."""

    requests: list[Request] = field(repr=False)
    window: tuple[float, float]

    def measured(self) -> list[Request]:
        """The requests scheduled inside the window."""
        lo, hi = self.window
        return [r for r in self.requests if lo <= r.scheduled < hi]


def request_path(kind: str, rng: np.random.Generator) -> str:
    """The URL path of a request of type ``kind`` with random parameters."""
    if kind == "browse":
        return f"/browse?category={int(rng.integers(20))}"
    if kind == "product":
        return f"/product?id={int(rng.integers(200))}"
    if kind == "checkout":
        ids = ",".join(str(int(i)) for i in rng.integers(200, size=3))
        return f"/checkout?ids={ids}"
    raise ValueError(f"unknown request type {kind!r}")


def _send(host: str, port: int, path: str) -> bool:
    conn = http.client.HTTPConnection(host, port, timeout=TIMEOUT_S)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        resp.read()
        return resp.status == 200
    except OSError:
        return False
    finally:
        conn.close()


def open_loop(
    address: tuple[str, int],
    workload: Workload,
    *,
    duration: float,
    warmup: float,
    rng: np.random.Generator,
    max_workers: int = MAX_WORKERS,
    on_window: Callable[[str], None] | None = None,
) -> LoadResult:
    """Drive ``address`` for ``warmup + duration`` seconds.

    ``on_window("start")`` and ``on_window("end")`` are called at the edges
    of the measurement window (e.g. to read CPU counters there).
    """
    host, port = address
    if host != "127.0.0.1":
        raise ValueError(f"the load generator only targets 127.0.0.1, got {host!r}")
    if not duration > 0 or not warmup >= 0:
        raise ValueError(f"duration must be > 0 and warmup >= 0, got {duration!r}, {warmup!r}")
    total = warmup + duration
    kinds = list(workload.shares())
    probs = np.array([workload.shares()[k] for k in kinds])
    gaps = rng.exponential(1.0 / workload.rate, size=int(workload.rate * total * 1.5) + 100)
    offsets = np.cumsum(gaps)
    offsets = offsets[offsets < total]
    chosen = rng.choice(len(kinds), size=offsets.size, p=probs)
    paths = [request_path(kinds[c], rng) for c in chosen]
    records: list[Request] = []
    lock = threading.Lock()

    def one(kind: str, path: str, scheduled: float) -> None:
        sent = time.monotonic()
        ok = _send(host, port, path)
        rec = Request(kind, scheduled, sent, time.monotonic(), ok)
        with lock:
            records.append(rec)

    t0 = time.monotonic() + 0.05
    marks = [(t0 + warmup, "start"), (t0 + total, "end")]
    with ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="loadgen") as pool:
        for offset, c, path in zip(offsets, chosen, paths, strict=True):
            at = t0 + float(offset)
            while marks and marks[0][0] <= at:
                _sleep_until(marks[0][0])
                if on_window is not None:
                    on_window(marks[0][1])
                marks.pop(0)
            _sleep_until(at)
            pool.submit(one, kinds[c], path, at)
        for when, name in marks:
            _sleep_until(when)
            if on_window is not None:
                on_window(name)
    records.sort(key=lambda r: r.scheduled)
    return LoadResult(records, (t0 + warmup, t0 + total))


def _sleep_until(when: float) -> None:
    delay = when - time.monotonic()
    if delay > 0:
        time.sleep(delay)
