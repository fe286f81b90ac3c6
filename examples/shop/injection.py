"""Busy-wait regressions injected by configuration (Liao et al., Section IV-C).

``SHOP_REGRESSION="L1:2.5"`` makes the component at location L1 spin for an
extra 250% of its own CPU time on every call. The amount is measured per
call (thread CPU time, so that preemption by other processes on a shared
machine neither inflates nor shrinks it), which keeps the injected share the
same in a component test and under load.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

LOCATIONS = {
    "L1": "compute_price",
    "L2": "filter_items",
    "L3": "check_session",
}
INTENSITIES = {"Low": 0.10, "Medium": 0.50, "High": 2.50}
ENV = "SHOP_REGRESSION"


@dataclass(frozen=True)
class Injection:
    """An extra busy wait of ``intensity`` x own time at ``location`` (None: none)."""

    location: str | None = None
    intensity: float = 0.0

    def __post_init__(self) -> None:
        if self.location is not None and self.location not in LOCATIONS:
            raise ValueError(f"location must be one of {sorted(LOCATIONS)}, got {self.location!r}")
        if not self.intensity >= 0.0:
            raise ValueError(f"intensity must be >= 0, got {self.intensity!r}")

    @classmethod
    def parse(cls, text: str | None) -> Injection:
        """``""``/``None`` -> none; ``"L1:2.5"`` or ``"L1-High"`` -> that injection."""
        if not text:
            return cls()
        if "-" in text:
            loc, level = text.split("-", 1)
            if level not in INTENSITIES:
                raise ValueError(f"intensity must be one of {sorted(INTENSITIES)}, got {level!r}")
            return cls(loc, INTENSITIES[level])
        loc, _, value = text.partition(":")
        try:
            return cls(loc, float(value))
        except ValueError as exc:
            raise ValueError(f"{ENV} must look like 'L1:2.5' or 'L1-High', got {text!r}") from exc

    def spec(self) -> str:
        """The configuration string that :meth:`parse` reads back."""
        return "" if self.location is None else f"{self.location}:{self.intensity!r}"

    def factor(self, component: str) -> float:
        """Extra fraction of own time for ``component`` (0 if not injected there)."""
        if self.location is not None and LOCATIONS[self.location] == component:
            return self.intensity
        return 0.0


_active = Injection.parse(os.environ.get(ENV))


def active() -> Injection:
    """The injection this process runs with."""
    return _active


def configure(injection: Injection) -> None:
    """Switch the injection of this process (component benchmarks run versions in-process)."""
    global _active
    _active = injection


def spin(cpu_seconds: float) -> None:
    """Busy-wait until this thread has used ``cpu_seconds`` more CPU time."""
    if cpu_seconds <= 0.0:
        return
    end = time.thread_time() + cpu_seconds
    while time.thread_time() < end:
        pass
