"""Tidy per-run results shared by every importer, and the error they raise."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

#: Time units as tools write them, in seconds.
TIME_UNITS: dict[str, float] = {
    "s": 1.0, "sec": 1.0, "second": 1.0, "seconds": 1.0,
    "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ns": 1e-9, "ps": 1e-12,
    "min": 60.0,
}  # fmt: skip

COLUMNS = ["benchmark", "unit", "value", "run", "direction"]

#: Which values are better: "lower" (times, sizes) or "higher" (throughputs, rates).
LOWER, HIGHER = "lower", "higher"


class FormatError(ValueError):
    """A file that is not what it looked like, or is damaged.

    The message names the format it looked like and what was wrong.
    """

    def __init__(self, fmt: str | None, problem: str, source: str | None = None) -> None:
        self.format = fmt
        self.problem = problem
        self.source = source
        where = f"{source}: " if source else ""
        what = f"looks like {fmt} but " if fmt else ""
        super().__init__(f"{where}{what}{problem}")


@dataclass(frozen=True)
class Results:
    """Tidy per-run values from one file of another tool.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per successful measured value: ``benchmark`` (str),
        ``unit`` (str; times are in ``"s"``), ``value`` (float), ``run``
        (int, the value's position among its benchmark's values) and
        ``direction`` (``"lower"`` or ``"higher"``: which values are better,
        from the tool's unit or mode), plus columns a format adds (e.g.
        ``fork``, ``iterations``, ``repetition``).
    format : str
        The format read (``"pyperf"``, ``"hyperfine"``, ...).
    metadata : dict
        What the tool recorded about the whole run (machine, commit, ...).
    benchmark_metadata : dict of str to dict
        What it recorded per benchmark.
    failed : dict of str to int
        Runs the tool recorded as failed, by benchmark (a non-zero exit
        code, an error); they are not in ``frame``.
    """

    frame: pd.DataFrame
    format: str
    metadata: Mapping[str, Any] = field(default_factory=dict)
    benchmark_metadata: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    failed: Mapping[str, int] = field(default_factory=dict)

    @property
    def benchmarks(self) -> list[str]:
        """Benchmark names in file order."""
        return list(dict.fromkeys(self.frame["benchmark"]))

    def values(self, name: str) -> np.ndarray:
        """The values of one benchmark, in run order."""
        rows = self.frame[self.frame["benchmark"] == name]
        if rows.empty:
            raise KeyError(name)
        return rows["value"].to_numpy(dtype=np.float64)

    def unit(self, name: str) -> str:
        """The unit of one benchmark."""
        return str(self.frame.loc[self.frame["benchmark"] == name, "unit"].iloc[0])

    def direction(self, name: str) -> str:
        """Which values of one benchmark are better: ``"lower"`` or ``"higher"``."""
        return str(self.frame.loc[self.frame["benchmark"] == name, "direction"].iloc[0])

    def __repr__(self) -> str:
        return (
            f"Results({self.format}: {len(self.benchmarks)} benchmarks, "
            f"{len(self.frame)} values)"
        )


def time_unit(unit: str, fmt: str, where: str) -> float:
    """Seconds per ``unit`` (a time unit), or a FormatError."""
    try:
        return TIME_UNITS[unit]
    except KeyError:
        raise FormatError(fmt, f"{where} has the unknown time unit {unit!r}") from None


def build(
    rows: Sequence[tuple[str, str, float]] | Sequence[tuple[Any, ...]],
    fmt: str,
    *,
    extra: Sequence[str] = (),
    metadata: Mapping[str, Any] | None = None,
    benchmark_metadata: Mapping[str, Mapping[str, Any]] | None = None,
    source: str | None = None,
    direction: str | Mapping[str, str] = LOWER,
    failed: Mapping[str, int] | None = None,
) -> Results:
    """Results from ``(benchmark, unit, value, *extra)`` rows; checks they are finite numbers.

    ``direction`` is which values are better, for every benchmark or by
    name (a name not given is ``"lower"``); ``failed`` counts the runs the
    tool recorded as failed, by name. A benchmark with failed runs and no
    successful one is refused, naming it.
    """
    failed = {str(k): int(v) for k, v in (failed or {}).items() if v}
    measured = {str(r[0]) for r in rows}
    for name, count in failed.items():
        if name not in measured:
            raise FormatError(
                fmt, f"benchmark {name!r} has no successful run ({count} failed)", source
            )
    if not rows:
        raise FormatError(fmt, "holds no measured value", source)
    frame = pd.DataFrame(list(rows), columns=["benchmark", "unit", "value", *extra])
    try:
        frame["value"] = frame["value"].astype(np.float64)
    except (TypeError, ValueError):
        raise FormatError(fmt, "has a value that is not a number", source) from None
    bad = ~np.isfinite(frame["value"].to_numpy())
    if bad.any():
        row = frame[bad].iloc[0]
        raise FormatError(
            fmt, f"benchmark {row['benchmark']!r} has a non-finite value {row['value']!r}", source
        )
    frame["benchmark"] = frame["benchmark"].astype(str)
    frame["run"] = frame.groupby("benchmark", sort=False).cumcount()
    if isinstance(direction, str):
        frame["direction"] = direction
    else:
        frame["direction"] = [direction.get(n, LOWER) for n in frame["benchmark"]]
    frame = frame[[*COLUMNS, *extra]]
    return Results(
        frame, fmt, dict(metadata or {}), dict(benchmark_metadata or {}), failed
    )


def need(obj: Any, key: str, kind: type | tuple[type, ...], fmt: str, where: str) -> Any:
    """``obj[key]`` of the given type, or a FormatError naming what is missing."""
    if not isinstance(obj, Mapping):
        raise FormatError(fmt, f"{where} is a {type(obj).__name__}, not an object")
    if key not in obj:
        raise FormatError(fmt, f"{where} has no {key!r}")
    value = obj[key]
    if not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise FormatError(
            fmt, f"{where}[{key!r}] is a {type(value).__name__}, expected {names}"
        )
    return value
