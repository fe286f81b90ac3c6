"""``go test -bench`` text output (the format benchstat reads)."""

from __future__ import annotations

import re
from typing import Any

from .results import FormatError, Results, build

NAME = "go test -bench"

# "BenchmarkName-8   	 1000000	      1234 ns/op	  56 B/op	  2 allocs/op"
LINE = re.compile(
    r"^Benchmark(?P<name>\S+)\s+(?P<iters>\d+)(?P<metrics>(?:\s+[-+0-9.eE]+\s+\S+)+)\s*$"
)
PAIR = re.compile(r"([-+0-9.eE]+)\s+(\S+)")
CONFIG = re.compile(r"^(?P<key>[a-z][^\s:]*):\s*(?P<value>.*)$")


def looks_like(text: str) -> bool:
    """Any line is a benchmark result line."""
    return any(LINE.match(line) for line in text.splitlines())


def parse(text: str, *, metric: str = "sec/op", source: str | None = None) -> Results:
    """Results from ``go test -bench`` output: one value per result line.

    Run with ``-count N`` for N values per benchmark. ``metric`` picks the
    column: ``"sec/op"`` (``ns/op`` in seconds, the default), or any unit
    the output has (``"B/op"``, ``"allocs/op"``, ``"MB/s"``, custom
    ``b.ReportMetric`` units). Configuration lines (``goos:``, ``pkg:``,
    ``cpu:``) become metadata, as benchstat reads them; the name keeps its
    ``-GOMAXPROCS`` suffix, without the ``Benchmark`` prefix.

    Examples
    --------
    >>> from perfstats.adapters.records.importers.gotest import parse
    >>> out = "pkg: x\\nBenchmarkF-8   1000   1500 ns/op   16 B/op\\nPASS\\n"
    >>> res = parse(out)
    >>> res.benchmarks, res.values("F-8").tolist(), res.metadata
    (['F-8'], [1.5e-06], {'pkg': 'x'})
    """
    rows: list[tuple[Any, ...]] = []
    meta: dict[str, Any] = {}
    seen_metrics: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.rstrip()
        m = LINE.match(line)
        if m is None:
            c = CONFIG.match(line)
            if c and not line.startswith(("ok ", "FAIL", "PASS")):
                meta[c["key"]] = c["value"]
            elif line.startswith("Benchmark") and "\t" in line and "--- FAIL" not in line:
                raise FormatError(NAME, f"line {number} is a cut-off result line: {line!r}", source)
            continue
        values = {u: float(v) for v, u in PAIR.findall(m["metrics"])}
        if "ns/op" in values:
            values["sec/op"] = values["ns/op"] * 1e-9
        seen_metrics.update(values)
        if metric in values:
            unit = "s" if metric == "sec/op" else metric
            rows.append((m["name"], unit, values[metric], int(m["iters"]), meta.get("pkg")))
    if not rows:
        if seen_metrics:
            raise FormatError(NAME, f"has no {metric!r} values; it has {sorted(seen_metrics)}",
                              source)  # fmt: skip
        raise FormatError(NAME, "has no benchmark result line", source)
    return build(rows, NAME, extra=["iterations", "pkg"], metadata=meta, source=source)
