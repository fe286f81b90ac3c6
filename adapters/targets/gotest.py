"""A Go package's benchmarks (``go test -bench``) as a target: one series per benchmark x metric."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..records.importers.gotest import BARE, LINE, NAME, direction, result_lines
from ..records.importers.results import FormatError
from ..records.series import SeriesValue
from .arguments import show_argv
from .benchmark_suite import BenchmarkSuite, Round, RoundFailed, check_tool_argv, escape_regex
from .program import ProgramOptions

if TYPE_CHECKING:
    from typing_extensions import Unpack

# go test's own flags a user may give in go test's spelling (-benchtime=2x);
# the test binary reads them as -test.NAME.
_TEST_FLAGS = (
    "bench", "benchtime", "benchmem", "count", "cpu", "run", "short", "timeout",
    "v", "failfast", "parallel", "shuffle",
)  # fmt: skip
# Flags each round sets itself (-v: a name per benchmark before it runs).
_OURS = ("run", "count", "benchmem", "json", "v", "list")
# Series units: times in seconds, sizes in bytes, counts as "1".
_UNITS = {"sec/op": "s", "B/op": "B", "allocs/op": "1"}
_PROCS = re.compile(r"-\d+$")
_FAIL = re.compile(r"--- FAIL: Benchmark(\S+)")


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
    The test binary runs with ``-test.v``, so go prints each benchmark's
    name before it runs it: a round whose process ends early (a panic, a
    timeout, a signal) fails naming the benchmark it was in. A benchmark
    that calls ``b.Error`` or ``b.Fatal`` fails only its own series (a
    value of ``None`` with the last line it logged); the other benchmarks
    of the round keep their values.

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
        label: str | None = None,
        **program: Unpack[ProgramOptions],
    ) -> None:
        check_tool_argv(argv, NAME, "a package and its flags")
        package = argv[0]
        if not isinstance(package, str) or package.startswith("-") or "..." in package:
            raise ValueError(
                f"{NAME}: the first argument must be one package (./pkg, no '...'); got {package!r}"
            )
        if not isinstance(go, str) or not go:
            raise ValueError(f"{NAME}: go must be the go command; got {go!r}")
        super().__init__([go, "test", *argv], **program)
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
        # The -GOMAXPROCS suffix of names for the first -cpu value ("" for 1),
        # learned from go's output when -cpu is not given.
        self._suffix = _cpu_suffix(self.flags)

    def _prepare(self) -> None:
        self._build()

    def _build(self) -> tuple[str, str]:
        """The test binary (built once) and the package's folder, where it runs."""
        if self._binary is None or self._folder is None:
            binary = self.scratch_path(".test")
            go = self.argv[0]
            for argv in ([go, "test", "-c", "-o", binary, self.package],
                         [go, "list", "-f", "{{.Dir}}", self.package]):  # fmt: skip
                # A build is no benchmark: it runs off the benchmarks' CPUs.
                what = f"{show_argv(argv[:3])} {self.package} failed"
                out = self.run_step(argv, what, pinned=False)
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
            # -v prints each benchmark's name before it runs. Without it go
            # prints the name after the benchmark's first run, racing a panic
            # in that run to the process's end.
            "-test.v",
            *(["-test.benchmem"] if self.benchmem else []),
            *self.flags,
        ]
        out = self.run_program(argv=argv, cwd=folder)
        whole, _, tail = out.stdout.rpartition("\n")
        seen = _read_verbose(whole)
        if seen.suffix is not None:
            self._suffix = seen.suffix
        running = None
        if tail.startswith("Benchmark"):
            # A result line cut off after its name: its name has the suffix.
            running = tail.split()[0].removeprefix("Benchmark")
        elif seen.running is not None:
            running = seen.running + (self._suffix or "")
        try:
            lines, _ = result_lines(seen.text)
        except FormatError as exc:
            if out.failure() is not None:
                raise self.failure(out, running) from None
            raise RoundFailed(str(exc), started_at=out.started_at) from None
        failed = seen.failed
        # go exits 1 after the benchmarks that called b.Error or b.Fatal, and
        # ran the others: those benchmarks' series fail, the round does not.
        only_benchmarks_failed = (
            failed
            and running is None
            and out.returncode == 1
            and not out.timed_out
            and out.start_error is None
            and seen.finished
        )
        if (out.failure() is not None or out.returncode != 0) and not only_benchmarks_failed:
            panic = re.search(r"^panic: .*$", out.stderr + "\n" + out.stdout, re.MULTILINE)
            raise self.failure(
                out,
                running or (failed[-1].name if failed else None),
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
        for failure in failed:
            self._fail_series(failure, series)
        return Round(out.wall_ns, series, {"returncode": out.returncode})

    def _fail_series(self, failure: _Failed, series: dict[str, SeriesValue]) -> None:
        """Give the series of a benchmark that failed (b.Error, b.Fatal) its message.

        Its series seen in earlier rounds (and those of its sub-benchmarks
        that printed no result) fail; a benchmark never seen gets one series
        per metric asked for (``sec/op`` by default), which go reports for
        every benchmark.
        """
        name = failure.name
        if failure.first_run:
            # Failed in its first run, before go printed it for a -cpu value:
            # its series are named for the first one.
            name += self._suffix or ""
        error = f"{name} failed: {failure.message}" if failure.message else f"{name} failed"
        own = [
            s for s in self.series_names
            if s.rpartition(" ")[0] == name or s.startswith(failure.name + "/")
        ]  # fmt: skip
        for item in own or [f"{name} {metric}" for metric in self.metrics or ("sec/op",)]:
            metric = item.rpartition(" ")[2]
            series.setdefault(item, SeriesValue(
                None, _UNITS.get(metric, metric), direction=direction(metric), source="gotest",
                error=error,
            ))  # fmt: skip

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


@dataclass(frozen=True)
class _Failed:
    """A benchmark go says failed (``--- FAIL``), and the last line it logged."""

    name: str
    first_run: bool  # failed in the run of one iteration, before any -cpu value's run
    message: str


@dataclass(frozen=True)
class _Verbose:
    """What ``go test -bench -v`` output says beside its result lines."""

    text: str  # the output without the names of the benchmarks still running at its end
    running: str | None  # the innermost of those (no -GOMAXPROCS suffix)
    failed: list[_Failed]  # the benchmarks that failed, without parents of failed ones
    suffix: str | None  # the suffix of names for the first -cpu value, when a result tells
    finished: bool  # the output ends with go's own FAIL or PASS line


def _read_verbose(text: str) -> _Verbose:
    """Read ``go test -bench -v`` output (complete lines): what ran, failed and was running.

    With ``-v`` go prints each benchmark's name alone before it runs it
    (parents before their sub-benchmarks), then its result line per
    ``-cpu`` value, or the lines it logged and ``--- FAIL: BenchmarkX``.
    """
    lines = text.splitlines()
    end = len(lines)
    running = None
    # The names (and log lines) at the end with no result after them: the
    # benchmarks the process was in when it ended, the innermost last.
    while end and (BARE.match(lines[end - 1].rstrip()) or lines[end - 1][:1].isspace()):
        end -= 1
        bare = BARE.match(lines[end].rstrip())
        if bare and running is None:
            running = bare["name"]
    failed: list[_Failed] = []
    suffix = None
    current, settled = None, True
    said: list[str] = []  # lines logged since the last name, result or status
    waiting = None  # a failure with no lines before it: go versions that log after it
    for line in lines[:end]:
        stripped = line.strip()
        if line[:1].isspace() and stripped:
            said.append(stripped)
            if waiting is not None:
                failed[waiting] = replace(failed[waiting], message=stripped)
            continue
        waiting = None
        if bare := BARE.match(stripped):
            current, settled = bare["name"], False
        elif result := LINE.match(stripped):
            rest = result["name"].removeprefix(current or "")
            if (
                suffix is None
                and not settled
                and result["name"] != rest
                and (not rest or _PROCS.fullmatch(rest))
            ):
                suffix = rest  # the first result after a name: the first -cpu value
            settled = True
        elif fail := _FAIL.search(stripped):
            failed.append(_Failed(fail[1], fail[1] == current and not settled,
                                  said[-1] if said else ""))  # fmt: skip
            waiting = None if said else len(failed) - 1
            settled = True
        said = []
    last = next((line.strip() for line in reversed(lines) if line.strip()), "")
    return _Verbose(
        text="\n".join(lines[:end]) + "\n",
        running=running,
        failed=[f for f in failed if not any(g.name.startswith(f.name + "/") for g in failed)],
        suffix=suffix,
        finished=last in ("FAIL", "PASS"),
    )


def _cpu_suffix(flags: Sequence[str]) -> str | None:
    """The suffix go gives names for the first value of a ``-test.cpu`` flag, if one is given."""
    for flag in flags:
        if flag.startswith("-test.cpu="):
            first = flag.partition("=")[2].split(",")[0].strip()
            if first.isdigit():
                return "" if int(first) == 1 else f"-{int(first)}"
    return None
