"""Google Benchmark ``--benchmark_format=json`` (``--benchmark_out``), with repetitions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .results import FormatError, Results, build, need, time_unit

NAME = "Google Benchmark"


def looks_like(obj: Any) -> bool:
    """``{"context": {...}, "benchmarks": [{"name", "run_type" or "time_unit", ...}]}``."""
    if not isinstance(obj, Mapping) or not isinstance(obj.get("benchmarks"), list):
        return False
    return isinstance(obj.get("context"), Mapping) and all(
        isinstance(b, Mapping) and ("time_unit" in b or "run_type" in b) for b in obj["benchmarks"]
    )


def parse(obj: Any, *, source: str | None = None, metric: str = "real_time") -> Results:
    """Results from decoded Google Benchmark JSON: one value per repetition.

    Each repetition's ``real_time`` (or ``metric="cpu_time"``) per
    iteration, in seconds; aggregates (mean, median, stddev, cv) are left
    out, errored runs are refused. Without ``--benchmark_repetitions`` each
    benchmark has one value.

    Examples
    --------
    >>> from perfstats.adapters.records.importers.gbench import parse
    >>> run = {"name": "BM_x", "run_name": "BM_x", "run_type": "iteration",
    ...        "iterations": 1000, "real_time": 250.0, "cpu_time": 240.0, "time_unit": "ns"}
    >>> mean = {**run, "name": "BM_x_mean", "run_type": "aggregate", "aggregate_name": "mean"}
    >>> parse({"context": {}, "benchmarks": [run, run, mean]}).values("BM_x").round(12)
    array([2.5e-07, 2.5e-07])
    """
    if metric not in ("real_time", "cpu_time"):
        raise ValueError(f"metric must be 'real_time' or 'cpu_time', got {metric!r}")
    context = need(obj, "context", Mapping, NAME, "the file")
    benches = need(obj, "benchmarks", list, NAME, "the file")
    rows: list[tuple[Any, ...]] = []
    per: dict[str, dict[str, Any]] = {}
    for i, b in enumerate(benches):
        where = f"benchmarks[{i}]"
        if not isinstance(b, Mapping):
            raise FormatError(NAME, f"{where} is not an object", source)
        if b.get("run_type", "iteration") != "iteration":
            continue
        name = str(b.get("run_name", need(b, "name", str, NAME, where)))
        if b.get("error_occurred"):
            raise FormatError(
                NAME, f"{where} ({name}) failed: {b.get('error_message', 'error_occurred')}",
                source,
            )  # fmt: skip
        scale = time_unit(str(b.get("time_unit", "ns")), NAME, where)
        value = need(b, metric, (int, float), NAME, where)
        rows.append((name, "s", value * scale, int(b.get("iterations", 0)),
                     b.get("repetition_index", 0)))  # fmt: skip
        per.setdefault(name, {k: v for k, v in b.items() if k in ("threads", "repetitions",
                                                                   "family_index")})
    return build(rows, NAME, extra=["iterations", "repetition"], metadata=dict(context),
                 benchmark_metadata=per, source=source)  # fmt: skip
