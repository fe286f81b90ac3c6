"""A Google Benchmark binary as a target: one repetition of each benchmark per round."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from statistics import fmean
from typing import TYPE_CHECKING, Any

from ..records.importers.gbench import NAME, runs
from ..records.importers.results import FormatError
from ..records.series import SeriesValue
from .arguments import show_argv
from .benchmark_suite import BenchmarkSuite, Round, RoundFailed, escape_regex
from .program import ProgramOptions

if TYPE_CHECKING:
    from typing_extensions import Unpack

FILTER = "--benchmark_filter="
# Options each round sets itself: one repetition, JSON to a file of ours.
_OURS = (
    "--benchmark_repetitions",
    "--benchmark_out",
    "--benchmark_out_format",
    "--benchmark_list_tests",
    "--benchmark_report_aggregates_only",
    "--benchmark_display_aggregates_only",
)
METRICS = ("real_time", "cpu_time")


class GoogleBenchmark(BenchmarkSuite):
    """Run a Google Benchmark binary once per round; each benchmark is a series.

    Each round runs ``argv`` with ``--benchmark_repetitions=1`` and the JSON
    results written to a file of its own (``--benchmark_out``), read with the
    Google Benchmark importer. A benchmark's series is its ``real_time``
    per iteration in seconds (``metric="cpu_time"``: its CPU time; or a
    counter such as ``"items_per_second"``, better higher as the importer
    tells); a benchmark whose code registers repetitions of its own gives
    the mean of them. A benchmark that failed
    (``state.SkipWithError``) gets a series value of ``None`` with its
    message. When the driver asks for some series only, the round runs
    them alone, with ``--benchmark_filter=^(BM_a|BM_b)$`` (names escaped).
    A ``--benchmark_filter`` of the user's picks the suite: only the
    benchmarks it selects are ever run (the first round lists them with
    ``--benchmark_list_tests``, which also names the benchmark a crash
    happened in).

    Parameters
    ----------
    argv : list of str
        The binary and its options (``--benchmark_min_time=0.05``, a
        filter, ...). The options each round sets itself
        (``--benchmark_repetitions``, ``--benchmark_out``, ...) are refused.
    metric : str, default "real_time"
        ``"real_time"``, ``"cpu_time"`` or a counter's name.
    timeout : float, optional
        Seconds before a round's process is killed (recorded as a timeout).
    env, inherit_env, cwd, cpus, label
        As for :class:`~perfstats.adapters.targets.Command`.

    Examples
    --------
    >>> from perfstats.adapters.targets.gbench import GoogleBenchmark, name_filter
    >>> name_filter(["BM_sort/8", "BM_copy<int>"])
    '--benchmark_filter=^(BM_sort/8|BM_copy<int>)$'
    >>> GoogleBenchmark(["sh", "--benchmark_repetitions=3"])
    Traceback (most recent call last):
    ...
    ValueError: Google Benchmark: --benchmark_repetitions is set by each round (one \
repetition, JSON to a file); leave it out
    """

    kind = "gbench"
    tool = NAME

    def __init__(
        self,
        argv: Sequence[str],
        *,
        metric: str = "real_time",
        label: str | None = None,
        **program: Unpack[ProgramOptions],
    ) -> None:
        super().__init__(argv, **program)
        for arg in self.argv[1:]:
            flag = arg.split("=", 1)[0]
            if flag in _OURS:
                raise ValueError(
                    f"{self.tool}: {flag} is set by each round (one repetition, JSON to a file); "
                    "leave it out"
                )
        if not isinstance(metric, str) or not metric.strip():
            raise ValueError(f"metric must be real_time, cpu_time or a counter; got {metric!r}")
        self.metric = metric
        self.name = label or f"gbench {show_argv(self.argv)}"
        self._listed: list[str] | None = None

    def _prepare(self) -> None:
        self._list()

    def _list(self) -> list[str]:
        """The benchmarks the user's options select, in the order the binary runs them."""
        if self._listed is None:
            out = self.run_step(
                [*self.argv, "--benchmark_list_tests=true"],
                "cannot list the benchmarks (--benchmark_list_tests)",
            )
            names = [line.strip() for line in out.stdout.splitlines() if line.strip()]
            if not names:
                raise RoundFailed(
                    f"{self.argv[0]} lists no benchmark (--benchmark_list_tests printed "
                    "nothing: no Google Benchmark binary, or a filter that matches none)"
                )
            self._listed = names
        return self._listed

    def _round(self, only: frozenset[str] | None) -> Round:
        listed = self._list()
        argv = list(self.argv)
        if only is not None:
            argv = [a for a in argv if not a.startswith(FILTER)]
            argv.append(name_filter(sorted(only)))
        path = self.scratch_path(".json")
        argv += [
            "--benchmark_repetitions=1",
            f"--benchmark_out={path}",
            "--benchmark_out_format=json",
        ]
        out = self.run_program(argv=argv)
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            os.unlink(path)
        except FileNotFoundError:
            text = ""
        failed = out.failure() is not None or out.returncode != 0
        try:
            doc, complete = decode_partial(text)
            found = runs(doc, metric=self.metric) if doc["benchmarks"] else None
        except (RoundFailed, FormatError) as exc:
            if failed:
                raise self.failure(out, None) from None
            problem = exc.problem if isinstance(exc, RoundFailed) else str(exc)
            raise RoundFailed(
                problem,
                started_at=out.started_at,
                extra={"wall_ns": out.wall_ns, "returncode": out.returncode},
            ) from None
        done = list(dict.fromkeys(str(r[0]) for r in found.rows)) if found else []
        if found:
            done += [n for n in found.failed if n not in done]
        wanted = [n for n in listed if only is None or n in only]
        running = next((n for n in wanted if n not in done), None)
        if failed:
            raise self.failure(out, running, done=len(done))
        if not complete and text.strip():
            raise RoundFailed(
                f"its JSON output was cut off after {len(done)} benchmark"
                f"{'s' if len(done) != 1 else ''}" + (f", in {running}" if running else ""),
                started_at=out.started_at,
                extra={"wall_ns": out.wall_ns, "returncode": out.returncode},
            )
        series: dict[str, SeriesValue] = {}
        if found is not None:
            values: dict[str, list[float]] = {}
            units: dict[str, str] = {}
            for name, unit, value, *_ in found.rows:
                values.setdefault(str(name), []).append(float(value))
                units[str(name)] = str(unit)
            for name, vals in values.items():
                series[name] = _series(fmean(vals), units[name], found.direction)
            for name in found.failed:
                if name not in series:
                    why = found.benchmark_metadata.get(name, {}).get("error_message")
                    series[name] = SeriesValue(
                        None,
                        "s" if self.metric in METRICS else self.metric,
                        direction=found.direction,
                        source="gbench",
                        error=f"{name} failed: {why or 'error_occurred'}",
                    )
        return Round(out.wall_ns, series, {"returncode": out.returncode})

    def _config(self) -> dict[str, Any]:
        return {**self.suite_config(), "metric": self.metric}


def _series(value: float, unit: str, direction: str) -> SeriesValue:
    try:
        return SeriesValue(value, unit, direction=direction, source="gbench")
    except ValueError as exc:
        return SeriesValue(None, unit, direction=direction, source="gbench", error=str(exc))


def name_filter(names: Sequence[str]) -> str:
    """A ``--benchmark_filter`` that selects exactly the benchmarks ``names``.

    Examples
    --------
    >>> from perfstats.adapters.targets.gbench import name_filter
    >>> name_filter(["BM_a/threads:2", "BM_b/1.5"])
    '--benchmark_filter=^(BM_a/threads:2|BM_b/1\\\\.5)$'
    """
    return FILTER + "^(" + "|".join(escape_regex(n) for n in names) + ")$"


def decode_partial(text: str) -> tuple[dict[str, Any], bool]:
    """Google Benchmark JSON, complete or cut off: the benchmarks written before the cut.

    Google Benchmark writes each result as it finishes; a process killed or
    crashed mid-suite leaves a file that stops in the middle. Returns the
    document with the complete benchmark entries and whether the text was
    whole. Text that is not the start of such a document is refused.

    Examples
    --------
    >>> from perfstats.adapters.targets.gbench import decode_partial
    >>> doc, whole = decode_partial('{"context": {}, "benchmarks": [{"name": "a"}, {"na')
    >>> [b["name"] for b in doc["benchmarks"]], whole
    (['a'], False)
    """
    empty: dict[str, Any] = {"context": {}, "benchmarks": []}
    if not text.strip():
        return empty, False
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        pass
    else:
        if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list):
            raise RoundFailed("its output is not Google Benchmark JSON (no 'benchmarks' list)")
        return doc, True
    decoder = json.JSONDecoder()
    start = text.find('"benchmarks"')
    bracket = text.find("[", start) if start >= 0 else -1
    if not text.lstrip().startswith("{"):
        raise RoundFailed(f"its output is not Google Benchmark JSON: {text.strip()[:60]!r}")
    if bracket < 0:
        return empty, False
    context: dict[str, Any] = {}
    found = text.find('"context"')
    if 0 <= found < start:
        try:
            context = decoder.raw_decode(text, text.index("{", found))[0]
        except (json.JSONDecodeError, ValueError):
            context = {}
    items = []
    pos = bracket + 1
    while True:
        while pos < len(text) and text[pos] in " \t\r\n,":
            pos += 1
        try:
            item, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError:
            break
        items.append(item)
    return {"context": context, "benchmarks": items}, False
