"""``go test -bench`` text output (the format benchstat reads)."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from .results import HIGHER, LOWER, FormatError, Results, build

NAME = "go test -bench"

# "BenchmarkName-8   	 1000000	      1234 ns/op	  56 B/op	  2 allocs/op"
LINE = re.compile(
    r"^Benchmark(?P<name>\S+)\s+(?P<iters>\d+)(?P<metrics>(?:\s+[-+0-9.eE]+\s+\S+)+)\s*$"
)
PAIR = re.compile(r"([-+0-9.eE]+)\s+(\S+)")
CONFIG = re.compile(r"^(?P<key>[a-z][^\s:]*):\s*(?P<value>.*)$")
# A benchmark's name on a line of its own: go test prints it before the
# benchmark's log output (and in -v mode), the result line follows.
BARE = re.compile(r"^Benchmark(?P<name>\S+)\s*$")
STATUS = re.compile(r"^\s*--- (?:FAIL|SKIP|BENCH): Benchmark(?P<name>\S+)")


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
    ``-GOMAXPROCS`` suffix, without the ``Benchmark`` prefix. Output of
    several packages (``go test -bench . ./...`` prints a ``pkg:`` line
    before each package's results) names each benchmark with its package,
    ``example.com/m/a.Sum-8``, so that two packages' ``BenchmarkSum`` stay
    two benchmarks. Rates (units ending in ``/s``, such as ``MB/s``) are
    better higher, the other units lower (``direction``). Output cut off
    (a benchmark's name without its result, half a result line) is refused,
    naming the line.

    Examples
    --------
    >>> from perfstats.adapters.records.importers.gotest import parse
    >>> out = "pkg: x\\nBenchmarkF-8   1000   1500 ns/op   16 B/op\\nPASS\\n"
    >>> res = parse(out)
    >>> res.benchmarks, res.values("F-8").tolist(), res.metadata
    (['F-8'], [1.5e-06], {'pkg': 'x'})
    >>> two = "pkg: a\\nBenchmarkF-8 10 5 ns/op\\npkg: b\\nBenchmarkF-8 10 7 ns/op\\n"
    >>> parse(two).benchmarks
    ['a.F-8', 'b.F-8']
    """
    found, meta = result_lines(text, source=source)
    rows: list[tuple[Any, ...]] = []
    seen_metrics: set[str] = set()
    for line in found:
        seen_metrics.update(line.values)
        if metric in line.values:
            unit = "s" if metric == "sec/op" else metric
            rows.append((line.name, unit, line.values[metric], line.iterations, line.pkg))
    if not rows:
        if seen_metrics:
            raise FormatError(NAME, f"has no {metric!r} values; it has {sorted(seen_metrics)}",
                              source)  # fmt: skip
        raise FormatError(NAME, "has no benchmark result line", source)
    packages = {r[4] for r in rows}
    if len(packages) > 1:
        rows = [(f"{r[4]}.{r[0]}" if r[4] else r[0], *r[1:]) for r in rows]
    return build(rows, NAME, extra=["iterations", "pkg"], metadata=meta, source=source,
                 direction=direction(metric))  # fmt: skip


class ResultLine(NamedTuple):
    """One result line of ``go test -bench``: every metric it reports, by unit."""

    name: str
    iterations: int
    values: dict[str, float]
    pkg: str | None


def result_lines(
    text: str, *, source: str | None = None
) -> tuple[list[ResultLine], dict[str, Any]]:
    """The result lines of ``go test -bench`` output, every metric of each, and its configuration.

    What :func:`parse` reads, before one metric is picked: ``ns/op`` is
    also given as ``sec/op`` in seconds. Output cut off is refused as
    :func:`parse` refuses it.

    Examples
    --------
    >>> from perfstats.adapters.records.importers.gotest import result_lines
    >>> lines, meta = result_lines("BenchmarkF-8  100  20 ns/op  3 allocs/op\\nok\\n")
    >>> lines[0].name, lines[0].values["allocs/op"], lines[0].values["sec/op"]
    ('F-8', 3.0, 2e-08)
    """
    found: list[ResultLine] = []
    meta: dict[str, Any] = {}
    lines = text.splitlines()
    pending: dict[str, int] = {}  # names printed alone, waiting for their result
    for number, line in enumerate(lines, start=1):
        line = line.rstrip()
        m = LINE.match(line)
        if m is None:
            c = CONFIG.match(line)
            bare = BARE.match(line)
            status = STATUS.match(line)
            if c and not line.startswith(("ok ", "FAIL", "PASS")):
                meta[c["key"]] = c["value"]
            elif bare:
                pending[bare["name"]] = number
            elif status:
                _resolve(pending, status["name"])
            elif line.startswith("Benchmark") and "--- FAIL" not in line:
                raise FormatError(NAME, f"line {number} is a cut-off result line: {line!r}", source)
            continue
        if number == len(lines) and not text.endswith(("\n", "\r")):
            # go test ends its output with a status line: a result line
            # without its end of line was cut off (perhaps mid-unit).
            raise FormatError(
                NAME, f"line {number} is a cut-off result line (no end of line): {line!r}", source
            )
        _resolve(pending, m["name"])
        values = {u: float(v) for v, u in PAIR.findall(m["metrics"])}
        if "ns/op" in values:
            values["sec/op"] = values["ns/op"] * 1e-9
        found.append(ResultLine(m["name"], int(m["iters"]), values, meta.get("pkg")))
    if pending:
        name, number = min(pending.items(), key=lambda item: item[1])
        raise FormatError(
            NAME, f"line {number} names Benchmark{name} but no result follows (cut off?)", source
        )
    return found, meta


def direction(metric: str) -> str:
    """Which values of a metric are better: higher for rates (units ending in ``/s``).

    Examples
    --------
    >>> from perfstats.adapters.records.importers.gotest import direction
    >>> direction("MB/s"), direction("B/op")
    ('higher', 'lower')
    """
    return HIGHER if metric.endswith("/s") else LOWER


def _resolve(pending: dict[str, int], name: str) -> None:
    """Forget the bare names ``name`` is the result of (itself, or a sub-benchmark of it)."""
    for bare in list(pending):
        if name == bare or name.startswith((bare + "/", bare + "-")) or bare.startswith(
            name + "-"
        ):
            del pending[bare]
