"""pyperf JSON (``python -m pyperf ... -o x.json``, pyperformance): every value of every run."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .results import FormatError, Results, build, need

NAME = "pyperf"
# pyperf's units and ours: times become seconds.
UNITS = {"second": "s", "byte": "B", "integer": "1"}


def looks_like(obj: Any) -> bool:
    """A pyperf suite: ``version`` and ``benchmarks`` whose items hold ``runs``."""
    if not isinstance(obj, Mapping) or "benchmarks" not in obj or "version" not in obj:
        return False
    items = obj["benchmarks"]
    return isinstance(items, list) and all(isinstance(b, Mapping) and "runs" in b for b in items)


def parse(obj: Any, *, source: str | None = None) -> Results:
    """Results from a decoded pyperf JSON suite.

    Warm-up values and calibration runs (runs with warm-ups only) are left
    out; metadata is the suite's, with each benchmark's own on top.

    Examples
    --------
    >>> from perfstats.adapters.records.importers.pyperf import parse
    >>> doc = {"version": "1.0", "metadata": {"name": "sort", "unit": "second"},
    ...        "benchmarks": [{"runs": [{"metadata": {}, "warmups": [[1, 0.3]]},
    ...                                 {"metadata": {}, "values": [0.10, 0.11]}]}]}
    >>> parse(doc).frame
      benchmark unit  value  run direction  process
    0      sort    s   0.10    0     lower        1
    1      sort    s   0.11    1     lower        1
    """
    suite_meta = dict(obj.get("metadata", {})) if isinstance(obj, Mapping) else {}
    benches = need(obj, "benchmarks", list, NAME, "the suite")
    rows: list[tuple[Any, ...]] = []
    per: dict[str, dict[str, Any]] = {}
    seen: set[str] = set()
    for i, bench in enumerate(benches):
        where = f"benchmarks[{i}]"
        meta = {**suite_meta, **dict(bench.get("metadata", {}))}
        name = meta.get("name")
        if not isinstance(name, str):
            raise FormatError(NAME, f"{where} has no name in its metadata", source)
        if name in seen:
            raise FormatError(NAME, f"benchmark name {name!r} appears twice", source)
        seen.add(name)
        unit = UNITS.get(str(meta.get("unit", "second")), str(meta.get("unit")))
        runs = need(bench, "runs", list, NAME, where)
        for j, run in enumerate(runs):
            values = run.get("values", []) if isinstance(run, Mapping) else None
            if not isinstance(values, list):
                raise FormatError(NAME, f"{where}.runs[{j}] has no list of values", source)
            rows.extend((name, unit, v, j) for v in values)
        per[name] = meta
    return build(rows, NAME, extra=["process"], metadata=suite_meta,
                 benchmark_metadata=per, source=source)  # fmt: skip
