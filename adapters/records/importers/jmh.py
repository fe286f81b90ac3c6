"""JMH ``-rf json``: every measurement iteration of every fork (``primaryMetric.rawData``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .results import HIGHER, LOWER, FormatError, Results, build, need, number, time_unit

NAME = "JMH"


def looks_like(obj: Any) -> bool:
    """A list of objects with ``benchmark`` and ``primaryMetric``."""
    return (
        isinstance(obj, list)
        and len(obj) > 0
        and all(isinstance(b, Mapping) and "primaryMetric" in b for b in obj)
    )


def _unit(score_unit: str, where: str) -> tuple[str, float]:
    # "ns/op" is a time per operation (seconds here); "ops/s" and the like
    # stay as JMH wrote them.
    head, _, tail = score_unit.partition("/")
    if tail == "op":
        return "s", time_unit(head, NAME, where)
    return score_unit, 1.0


def parse(obj: Any, *, source: str | None = None) -> Results:
    """Results from decoded JMH JSON: one value per measurement iteration.

    The name is the benchmark method with its ``@Param`` values,
    ``pkg.Class.method(size=10)``. Times per operation (``avgt``, ``ss``
    modes, ``*/op``) become seconds, lower is better; throughput (``thrpt``
    mode, ``ops/s``, ``ops/ms``...) keeps its unit and higher is better
    (the ``direction`` column). ``sample`` mode stores histograms, not
    iterations, and is refused. JMH writes only what finished: a fork that
    failed is missing from ``rawData`` (fewer lists than ``forks``) or cut
    short of ``measurementIterations``; each is counted in ``failed`` (a
    cut-short fork's values are left out), and a benchmark with no whole
    fork is in ``unrun``. A benchmark whose every fork failed before any
    result is not in the file at all: compared with another file, it is on
    one side only.

    Examples
    --------
    >>> from perfstats.adapters.records.importers.jmh import parse
    >>> doc = [{"benchmark": "a.B.m", "mode": "avgt", "params": {"n": "8"},
    ...         "primaryMetric": {"scoreUnit": "us/op", "rawData": [[2.0, 2.5], [3.0]]}}]
    >>> res = parse(doc)
    >>> res.benchmarks, res.values("a.B.m(n=8)").round(9).tolist(), res.frame["fork"].tolist()
    (['a.B.m(n=8)'], [2e-06, 2.5e-06, 3e-06], [0, 0, 1])
    >>> doc = [{"benchmark": "a.B.put", "mode": "thrpt",
    ...         "primaryMetric": {"scoreUnit": "ops/ms", "rawData": [[900.0, 950.0]]}}]
    >>> parse(doc).direction("a.B.put")
    'higher'
    """
    if not isinstance(obj, list):
        raise FormatError(NAME, f"is a {type(obj).__name__}, expected a list of results", source)
    rows: list[tuple[Any, ...]] = []
    per: dict[str, dict[str, Any]] = {}
    directions: dict[str, str] = {}
    failed: dict[str, int] = {}
    for i, b in enumerate(obj):
        where = f"[{i}]"
        bench = need(b, "benchmark", str, NAME, where)
        params = b.get("params") or {}
        if not isinstance(params, Mapping):
            raise FormatError(NAME, f"{where}.params is a {type(params).__name__}, not an object",
                              source)  # fmt: skip
        name = bench + (f"({', '.join(f'{k}={v}' for k, v in params.items())})" if params else "")
        if name in per:
            raise FormatError(NAME, f"benchmark {name!r} appears twice", source)
        metric = need(b, "primaryMetric", Mapping, NAME, where)
        if "rawData" not in metric:
            what = "rawDataHistogram (sample mode)" if "rawDataHistogram" in metric else "no data"
            raise FormatError(NAME, f"{where} ({name}) has {what}, not rawData", source)
        unit, scale = _unit(str(metric.get("scoreUnit", "")), where)
        directions[name] = _direction(b.get("mode"), str(metric.get("scoreUnit", "")))
        raw = need(metric, "rawData", list, NAME, f"{where}.primaryMetric")
        forks = _declared(b, "forks", where, source)
        iterations = _declared(b, "measurementIterations", where, source)
        # JMH keeps the forks that finished: a fork that failed is missing
        # from rawData, or cut short of its measurement iterations.
        failed[name] = max(0, forks - len(raw)) if forks else 0
        for fork, values in enumerate(raw):
            if not isinstance(values, list):
                raise FormatError(NAME, f"{where}.rawData[{fork}] is not a list", source)
            if iterations and len(values) < iterations:
                failed[name] += 1
                continue
            rows.extend(
                (name, unit, number(v, NAME, f"{where}.rawData[{fork}][{k}] ({name})", source)
                 * scale, fork)
                for k, v in enumerate(values)
            )  # fmt: skip
        per[name] = {k: b.get(k) for k in ("mode", "threads", "forks", "jvm", "jdkVersion",
                                           "jmhVersion", "params") if k in b}  # fmt: skip
    return build(rows, NAME, extra=["fork"], benchmark_metadata=per, source=source,
                 direction=directions, failed=failed)  # fmt: skip


def _declared(b: Mapping[str, Any], key: str, where: str, source: str | None) -> int:
    """A count JMH declares for a benchmark (``forks``, ``measurementIterations``); 0 if absent."""
    value = b.get(key)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise FormatError(NAME, f"{where}.{key} is {value!r}, not a count", source)
    return value


def _direction(mode: Any, score_unit: str) -> str:
    # Throughput mode scores operations per time unit ("ops/s"): more is
    # better. The other modes (avgt, sample, ss) score time per operation.
    if mode == "thrpt" or score_unit.partition("/")[0] == "ops":
        return HIGHER
    return LOWER
