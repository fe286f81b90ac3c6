"""A Go package's benchmarks (``go test -bench``) as a target: one series per benchmark x metric."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..records.importers.gotest import NAME, direction, result_lines
from ..records.importers.results import FormatError
from ..records.series import SeriesValue
from .arguments import show_argv
from .benchmark_suite import BenchmarkSuite, Round, RoundFailed, check_tool_argv, escape_regex

# go test's own flags a user may give in go test's spelling (-benchtime=2x);
# the test binary reads them as -test.NAME.
_TEST_FLAGS = (
    "bench", "benchtime", "benchmem", "count", "cpu", "run", "short", "timeout",
    "v", "failfast", "parallel", "shuffle",
)  # fmt: skip
# Flags each round sets itself.
_OURS = ("run", "count", "benchmem", "json", "v", "list")
# Series units: times in seconds, sizes in bytes, counts as "1".
_UNITS = {"sec/op": "s", "B/op": "B", "allocs/op": "1"}
_PROCS = re.compile(r"-\d+$")


class GoTest(BenchmarkSuite):
    """Run a Go package's benchmarks once per round; each benchmark x metric is a series.

    The package's test binary is built once (``go test -c``, in the first
    round, outside its timing), then each round runs it as ``go test
    -count=1 -run '^$' -bench REGEX -benchmem`` would, in the package's
    folder, and reads its output with the ``go test -bench`` importer.
    Every metric of a result line is a series named ``"<benchmark>
    <metric>"``: ``"Sum-8 sec/op"`` (``ns/op`` in seconds), ``"Sum-8
    B/op"``, ``"Sum-8 allocs/op"``, ``"Sum-8 MB/s"`` (better higher) and
    each ``b.ReportMetric`` unit. When the driver asks for some series
    only, the round runs only their benchmarks, with ``-bench`` made of
    the exact names (``^BenchmarkSum$``, sub-benchmarks level by level).
    A round that fails names the benchmark it was in where go's output
    tells (a panic does; a sub-benchmark killed while it runs has its
    name still in go's buffer, so the last one finished is named).

    Parameters
    ----------
    argv : list of str
        The package (``./pkg``, one package) and flags of go test or of the
        package: ``-benchtime=2000x``, ``-cpu=2``, ``-bench=Sort`` (the suite:
        only the benchmarks it selects run). ``-run``, ``-count``, ``-json``
        and ``-v`` are set by each round and refused.
    bench : str, default "."
        The ``-bench`` regular expression that picks the suite (an
        ``-bench`` in ``argv`` is the same).
    benchmem : bool, default True
        Report ``B/op`` and ``allocs/op``.
    metrics : list of str, optional
        The metrics that become series (``["sec/op"]``: the times only);
        default every metric the output has. A metric that is zero in every
        round (``B/op`` of a benchmark that allocates nothing) gives a
        relative rule nothing to judge.
    go : str, default "go"
        The go command.
    timeout : float, optional
        Seconds before one process (the build or a round) is killed.
    env, inherit_env, cwd, cpus, label
        As for :class:`~perfstats.adapters.targets.Command`; ``cwd`` is
        where ``go`` runs (inside the module).

    Examples
    --------
    >>> from perfstats.adapters.targets.gotest import bench_filter
    >>> bench_filter(["Sum-8", "Sort/n=10-8"])
    '^BenchmarkSort$/^(n=10-8|n=10)$|^BenchmarkSum$'
    """

    kind = "gotest"
    tool = NAME

    def __init__(
        self,
        argv: Sequence[str],
        *,
        bench: str = ".",
        benchmem: bool = True,
        metrics: Sequence[str] | None = None,
        go: str = "go",
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
        inherit_env: bool = True,
        cwd: str | None = None,
        cpus: Sequence[int] | None = None,
        label: str | None = None,
    ) -> None:
        check_tool_argv(argv, NAME, "a package and its flags")
        package = argv[0]
        if not isinstance(package, str) or package.startswith("-") or "..." in package:
            raise ValueError(
                f"{NAME}: the first argument must be one package (./pkg, no '...'); got {package!r}"
            )
        if not isinstance(go, str) or not go:
            raise ValueError(f"{NAME}: go must be the go command; got {go!r}")
        super().__init__(
            [go, "test", *argv], timeout=timeout, env=env, inherit_env=inherit_env, cwd=cwd,
            cpus=cpus,
        )  # fmt: skip
        if not isinstance(bench, str) or not bench:
            raise ValueError(f"{NAME}: bench must be a regular expression; got {bench!r}")
        if metrics is not None and (
            isinstance(metrics, str)
            or not metrics
            or not all(isinstance(m, str) and m for m in metrics)
        ):
            raise ValueError(f"{NAME}: metrics must be a list of units (sec/op, B/op, ...); "
                             f"got {metrics!r}")  # fmt: skip
        self.metrics = None if metrics is None else tuple(metrics)
        self.package = package
        self.go = go
        self.arguments = list(argv)
        self.benchmem = bool(benchmem)
        self.bench = bench
        self.flags: list[str] = []
        for arg in self.argv[3:]:
            flag, eq, value = arg.lstrip("-").partition("=")
            plain = flag.removeprefix("test.")
            if not arg.startswith("-") or plain not in _TEST_FLAGS:
                self.flags.append(arg)  # a flag of the package's own
            elif plain in _OURS:
                raise ValueError(f"{NAME}: -{plain} is set by each round; leave it out")
            elif plain == "bench":
                if not eq:
                    raise ValueError(f"{NAME}: give -bench=REGEX as one argument")
                self.bench = value
            else:
                self.flags.append(f"-test.{plain}{eq}{value}")
        self.name = label or f"gotest {show_argv(argv)}"
        self._binary: str | None = None
        self._folder: str | None = None

    def _prepare(self) -> None:
        self._build()

    def _build(self) -> tuple[str, str]:
        """The test binary (built once) and the package's folder, where it runs."""
        if self._binary is None or self._folder is None:
            binary = self.scratch_path(".test")
            go = self.argv[0]
            for argv in ([go, "test", "-c", "-o", binary, self.package],
                         [go, "list", "-f", "{{.Dir}}", self.package]):  # fmt: skip
                out = self.runner.run(argv, timeout=self.timeout, env=self.full_env, cwd=self.cwd)
                if out.failure() is not None:
                    failed = self.failure(out, None)
                    raise RoundFailed(
                        f"{show_argv(argv[:3])} {self.package} failed: {failed.problem}",
                        status=failed.status,
                        started_at=out.started_at,
                    )
            if not os.path.exists(binary):
                raise RoundFailed(f"{self.package} has no test files (go test -c built nothing)")
            self._binary, self._folder = binary, out.stdout.strip()
        return self._binary, self._folder

    def _round(self, only: frozenset[str] | None) -> Round:
        binary, folder = self._build()
        names = None if only is None else sorted({n.rpartition(" ")[0] for n in only})
        argv = [
            binary,
            "-test.run=^$",
            f"-test.bench={self.bench if names is None else bench_filter(names)}",
            "-test.count=1",
            *(["-test.benchmem"] if self.benchmem else []),
            *self.flags,
        ]
        out = self.runner.run(
            argv, timeout=self.timeout, env=self.full_env, cwd=folder, cpus=self.cpus
        )
        whole, _, tail = out.stdout.rpartition("\n")
        # go test prints a benchmark's name before it runs it: a name with no
        # result after it is the benchmark the process ended in.
        running = None
        if tail.startswith("Benchmark"):
            running = tail.split()[0].removeprefix("Benchmark")
        try:
            lines, _ = result_lines(whole + "\n")
        except FormatError as exc:
            if out.failure() is not None:
                raise self.failure(out, running) from None
            raise RoundFailed(str(exc), started_at=out.started_at) from None
        if out.failure() is not None or out.returncode != 0:
            failing = re.search(r"--- FAIL: Benchmark(\S+)", out.stdout)
            panic = re.search(r"^panic: .*$", out.stderr + "\n" + out.stdout, re.MULTILINE)
            raise self.failure(
                out,
                running or (failing[1] if failing else None),
                done=len(lines),
                last=lines[-1].name if lines else None,
                detail=panic[0] if panic else None,
            )
        series: dict[str, SeriesValue] = {}
        for line in lines:
            for metric, value in line.values.items():
                if metric == "ns/op" or (self.metrics and metric not in self.metrics):
                    continue  # ns/op is given once, as sec/op in seconds
                unit = _UNITS.get(metric, metric)
                try:
                    item = SeriesValue(value, unit, direction=direction(metric), source="gotest")
                except ValueError as exc:
                    item = SeriesValue(None, unit, direction=direction(metric), source="gotest",
                                       error=f"{line.name} {metric}: {exc}")  # fmt: skip
                series[f"{line.name} {metric}"] = item
        return Round(out.wall_ns, series, {"returncode": out.returncode})

    def _config(self) -> dict[str, Any]:
        # argv as given (the package and its flags): the metadata rebuilds this target.
        return {
            **self.suite_config(),
            "argv": self.arguments,
            "go": self.go,
            "bench": self.bench,
            "benchmem": self.benchmem,
            "metrics": None if self.metrics is None else list(self.metrics),
        }


def bench_filter(names: Sequence[str]) -> str:
    """A ``-bench`` expression that selects exactly the benchmarks ``names`` (as go prints them).

    ``go test`` matches ``-bench`` level by level (split at ``/``) and ORs
    alternatives at the top level. A name ends in ``-GOMAXPROCS`` when that
    is not 1; whether the last ``-N`` of a sub-benchmark's name is that
    suffix or part of its name cannot be told from the name, so the last
    level accepts both.

    Examples
    --------
    >>> from perfstats.adapters.targets.gotest import bench_filter
    >>> bench_filter(["Sum-8"])
    '^BenchmarkSum$'
    """
    parts = []
    for name in sorted(set(names)):
        levels = name.split("/")
        if len(levels) == 1:
            parts.append(f"^Benchmark{escape_regex(_PROCS.sub('', name))}$")
            continue
        last = levels[-1]
        stripped = _PROCS.sub("", last)
        tail = (
            f"^({escape_regex(last)}|{escape_regex(stripped)})$" if stripped != last
            else f"^{escape_regex(last)}$"
        )  # fmt: skip
        middle = [f"^{escape_regex(level)}$" for level in levels[1:-1]]
        parts.append("/".join([f"^Benchmark{escape_regex(levels[0])}$", *middle, tail]))
    return "|".join(parts)
