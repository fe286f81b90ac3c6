"""Google Benchmark ``--benchmark_format=json`` (``--benchmark_out``), with repetitions."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from .results import HIGHER, LOWER, FormatError, Results, build, need, number, time_unit

NAME = "Google Benchmark"

# Before 1.5 the file has no run_type: an aggregate is named after its
# benchmark with the statistic's name appended.
OLD_AGGREGATE = re.compile(r"^(?P<name>.+)_(?P<stat>mean|median|stddev|cv)$")
# Complexity fits (BigO, RMS) carry their own fields and no time.
COMPLEXITY = ("big_o", "rms")


def looks_like(obj: Any) -> bool:
    """``{"context": {...}, "benchmarks": [{"name", "run_type" or "time_unit", ...}]}``.

    A complexity fit written before 1.5 (``"rms"`` alone) has neither.
    """
    if not isinstance(obj, Mapping) or not isinstance(obj.get("benchmarks"), list):
        return False
    return isinstance(obj.get("context"), Mapping) and all(
        isinstance(b, Mapping) and any(k in b for k in ("time_unit", "run_type", *COMPLEXITY))
        for b in obj["benchmarks"]
    )


def _aggregate(b: Mapping[str, Any], name: str) -> tuple[str, str] | None:
    """``(benchmark, statistic)`` when ``b`` is an aggregate or a complexity fit, else None."""
    if "run_type" in b:
        if b["run_type"] == "iteration":
            return None
        return str(b.get("run_name", name)), str(b.get("aggregate_name", b["run_type"]))
    for key in COMPLEXITY:
        if key in b:
            return name.rsplit("_", 1)[0], "BigO" if key == "big_o" else "RMS"
    old = OLD_AGGREGATE.match(name)
    return (old["name"], old["stat"]) if old else None


class Runs(NamedTuple):
    """The repetitions of a Google Benchmark file, before they become :class:`Results`.

    ``rows`` are ``(benchmark, unit, value, iterations, repetition)`` with
    times in seconds; ``failed`` counts the failed repetitions and
    ``benchmark_metadata`` keeps each benchmark's ``error_message``.
    """

    rows: list[tuple[str, str, float, int, Any]]
    failed: dict[str, int]
    benchmark_metadata: dict[str, dict[str, Any]]
    metadata: dict[str, Any]
    direction: str


def parse(obj: Any, *, source: str | None = None, metric: str = "real_time") -> Results:
    """Results from decoded Google Benchmark JSON: one value per repetition.

    Each repetition's ``real_time`` (or ``metric="cpu_time"``) per
    iteration, in seconds, lower is better; or, with ``metric`` a user
    counter's name (``"bytes_per_second"``, ``"items_per_second"`` or one
    of ``state.counters``), that counter, as written: a rate (a counter
    made with ``kIsRate``, written per second, as the built-in
    ``*_per_second`` ones) is better higher, another counter lower.
    Aggregates (mean, median, stddev, cv; before 1.5, when the file has no
    ``run_type``, the entries named ``NAME_mean``, ``NAME_median``,
    ``NAME_stddev``) are left out; so are complexity fits (``NAME_BigO``,
    ``NAME_RMS``), which are kept in ``metadata["complexity"]`` by
    benchmark family. A benchmark that has aggregates and no repetition
    (written with ``--benchmark_report_aggregates_only`` or
    ``ReportAggregatesOnly()``) is refused, naming the option: a mean and
    a median are no runs to compare, and read as values they would pass
    for two repetitions. A repetition with ``error_occurred`` failed: it
    is left out and counted in ``failed``, and a benchmark none of whose
    repetitions succeeded is in ``unrun`` only. Without ``--benchmark_repetitions``
    each benchmark has one value.

    Examples
    --------
    >>> from perfstats.adapters.records.importers.gbench import parse
    >>> run = {"name": "BM_x", "run_name": "BM_x", "run_type": "iteration",
    ...        "iterations": 1000, "real_time": 250.0, "cpu_time": 240.0, "time_unit": "ns"}
    >>> mean = {**run, "name": "BM_x_mean", "run_type": "aggregate", "aggregate_name": "mean"}
    >>> parse({"context": {}, "benchmarks": [run, run, mean]}).values("BM_x").round(12)
    array([2.5e-07, 2.5e-07])
    >>> rate = {**run, "bytes_per_second": 4.0e9}
    >>> res = parse({"context": {}, "benchmarks": [rate, rate]}, metric="bytes_per_second")
    >>> res.values("BM_x").tolist(), res.direction("BM_x")
    ([4000000000.0, 4000000000.0], 'higher')
    """
    found = runs(obj, source=source, metric=metric)
    return build(found.rows, NAME, extra=["iterations", "repetition"], metadata=found.metadata,
                 benchmark_metadata=found.benchmark_metadata, source=source,
                 direction=found.direction, failed=found.failed)  # fmt: skip


def runs(obj: Any, *, source: str | None = None, metric: str = "real_time") -> Runs:
    """The repetitions of decoded Google Benchmark JSON as plain rows, as :func:`parse` reads them.

    For a caller that reads one small file per round and needs no table
    (the ``gbench`` target); the checks and refusals are :func:`parse`'s.

    Examples
    --------
    >>> from perfstats.adapters.records.importers.gbench import runs
    >>> run = {"name": "BM_x", "run_type": "iteration", "iterations": 10,
    ...        "real_time": 2.0, "cpu_time": 1.0, "time_unit": "us"}
    >>> runs({"context": {}, "benchmarks": [run]}).rows
    [('BM_x', 's', 2e-06, 10, 0)]
    """
    if not isinstance(metric, str) or not metric:
        raise ValueError(f"metric must be 'real_time', 'cpu_time' or a counter, got {metric!r}")
    timed = metric in ("real_time", "cpu_time")
    context = need(obj, "context", Mapping, NAME, "the file")
    benches = need(obj, "benchmarks", list, NAME, "the file")
    rows: list[tuple[Any, ...]] = []
    per: dict[str, dict[str, Any]] = {}
    failed: dict[str, int] = {}
    aggregated: dict[str, None] = {}
    complexity: dict[str, dict[str, Any]] = {}
    for i, b in enumerate(benches):
        where = f"benchmarks[{i}]"
        if not isinstance(b, Mapping):
            raise FormatError(NAME, f"{where} is not an object", source)
        name = str(b.get("run_name", need(b, "name", str, NAME, where)))
        aggregate = _aggregate(b, str(b.get("name", name)))
        if aggregate is not None:
            family, stat = aggregate
            if stat in ("BigO", "RMS"):
                complexity.setdefault(family, {}).update(
                    {k: b[k] for k in ("big_o", "real_coefficient", "cpu_coefficient", "rms")
                     if k in b})  # fmt: skip
            else:
                aggregated[family] = None
            continue
        if b.get("error_occurred"):
            failed[name] = failed.get(name, 0) + 1
            per.setdefault(name, {})["error_message"] = b.get("error_message")
            continue
        if metric not in b:
            raise FormatError(NAME, f"{where} ({name}) has no {metric!r}", source)
        value = number(b[metric], NAME, f"{where}[{metric!r}] ({name})", source)
        if timed:
            scale = time_unit(str(b.get("time_unit", "ns")), NAME, where)
            row = (name, "s", value * scale)
        else:
            row = (name, metric, value)
        rows.append((*row, int(b.get("iterations", 0)), b.get("repetition_index", 0)))
        per.setdefault(name, {k: v for k, v in b.items() if k in ("threads", "repetitions",
                                                                   "family_index")})
    written = {str(r[0]) for r in rows} | set(failed)
    only = [n for n in aggregated if n not in written]
    if only:
        raise FormatError(
            NAME, f"benchmark {only[0]!r} has aggregates only (mean, median, ...), no "
            "repetition: it was written with --benchmark_report_aggregates_only (or "
            "ReportAggregatesOnly()); run without it to keep every repetition", source,
        )  # fmt: skip
    meta = dict(context)
    if complexity:
        meta["complexity"] = complexity
    # Google Benchmark writes a kIsRate counter divided by the time, per
    # second; its own rate counters are named *_per_second.
    direction = HIGHER if not timed and metric.endswith(("_per_second", "/s")) else LOWER
    return Runs(rows, failed, per, meta, direction)
