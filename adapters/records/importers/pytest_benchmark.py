"""pytest-benchmark JSON (``--benchmark-json``/``--benchmark-save``, ``--benchmark-save-data``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .results import FormatError, Results, build, need

NAME = "pytest-benchmark"


def looks_like(obj: Any) -> bool:
    """``{"machine_info": ..., "benchmarks": [{"stats": ...}]}``."""
    return (
        isinstance(obj, Mapping)
        and "machine_info" in obj
        and isinstance(obj.get("benchmarks"), list)
    )


def parse(obj: Any, *, source: str | None = None) -> Results:
    """Results from decoded pytest-benchmark JSON: the time of every round, in seconds.

    The per-round times are in ``stats.data`` only when the run used
    ``--benchmark-save-data``; without them the file holds summaries alone
    and is refused, as is a file naming one ``fullname`` twice.

    Examples
    --------
    >>> from perfstats.adapters.records.importers.pytest_benchmark import parse
    >>> doc = {"machine_info": {}, "benchmarks": [
    ...     {"name": "test_a", "fullname": "t.py::test_a", "stats": {"data": [0.5, 0.6]}}]}
    >>> parse(doc).values("t.py::test_a").tolist()
    [0.5, 0.6]
    """
    benches = need(obj, "benchmarks", list, NAME, "the file")
    rows: list[tuple[Any, ...]] = []
    per: dict[str, dict[str, Any]] = {}
    for i, b in enumerate(benches):
        where = f"benchmarks[{i}]"
        name = str(b.get("fullname") or need(b, "name", str, NAME, where))
        if name in per:
            raise FormatError(NAME, f"{where}: benchmark {name!r} appears twice", source)
        stats = need(b, "stats", Mapping, NAME, where)
        if "data" not in stats:
            raise FormatError(
                NAME, f"{where} ({name}) has no per-round data: run pytest with "
                "--benchmark-save-data", source,
            )  # fmt: skip
        data = need(stats, "data", list, NAME, f"{where}.stats")
        rows.extend((name, "s", v) for v in data)
        per[name] = {"group": b.get("group"), "params": b.get("params"),
                     "iterations": stats.get("iterations"), "rounds": stats.get("rounds")}
    meta = {k: obj[k] for k in ("machine_info", "commit_info", "datetime", "version") if k in obj}
    return build(rows, NAME, metadata=meta, benchmark_metadata=per, source=source)
