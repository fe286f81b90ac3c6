"""Named values of one invocation beside its primary value: a benchmark, a metric."""

from __future__ import annotations

import math
from dataclasses import dataclass

LOWER = "lower"
HIGHER = "higher"
DIRECTIONS = (LOWER, HIGHER)


@dataclass(frozen=True)
class SeriesValue:
    """One named value an invocation gave beside its primary value.

    A series is a benchmark of a suite, a metric of a run (CPU time, peak
    memory, a hardware counter, energy) or a benchmark x metric. The same
    name in every invocation of a run is one series; its unit, direction
    and source describe it in the record's metadata.

    Parameters
    ----------
    value : float or None
        The number, or ``None`` when this series failed in this invocation
        (then ``error`` says why) while the invocation itself succeeded.
    unit : str
        Unit of ``value`` (``"ns"``, ``"B"``, ``"J"``, ``"1"`` for a count).
    direction : {"lower", "higher"}, default "lower"
        Which way is better: ``"higher"`` for a throughput.
    source : str, default ""
        Where the number comes from (``"rusage"``, ``"perf"``, ``"rapl"``,
        ``"output"``, ``"gbench"``, ...).
    error : str or None
        Why the value is missing.
    judged : bool, default True
        Whether the run's stopping rule judges this series. False for a
        metric recorded beside the run (CPU time, peak memory, counters,
        energy): it is kept and reported but does not decide when the run
        stops, so recording it costs no extra runs; naming it in
        ``stop_when`` judges it anyway.

    Examples
    --------
    >>> from perfstats.adapters.records.series import SeriesValue
    >>> SeriesValue(2.5e8, "B", source="rusage").ok
    True
    >>> SeriesValue(None, "ns", error="not in this round's output").ok
    False
    """

    value: float | None
    unit: str
    direction: str = LOWER
    source: str = ""
    error: str | None = None
    judged: bool = True

    def __post_init__(self) -> None:
        if self.direction not in DIRECTIONS:
            raise ValueError(
                f"direction must be one of {', '.join(DIRECTIONS)}; got {self.direction!r}"
            )
        if self.value is None:
            if not self.error:
                raise ValueError("a series value of None needs an error saying why")
        elif isinstance(self.value, bool) or not math.isfinite(self.value):
            raise ValueError(f"a series value must be a finite number; got {self.value!r}")
        elif self.error is not None:
            raise ValueError("a series with a value carries no error")
        if not isinstance(self.unit, str):
            raise ValueError(f"unit must be a string; got {self.unit!r}")

    @property
    def ok(self) -> bool:
        """True when :attr:`value` is a number."""
        return self.value is not None
