"""A benchmarking tool's own suite as a target: one round of the tool, one series per benchmark.

Google Benchmark binaries, ``go test -bench`` and pyperf scripts each run
many benchmarks per invocation and print them in their own format.
:class:`BenchmarkSuite` is what their targets share: the settings of the
local program, a round that runs the tool once (or once per benchmark) and
returns one :class:`~perfstats.adapters.records.measurement.Measurement`
whose :attr:`~perfstats.adapters.records.measurement.Measurement.series`
are the benchmarks, the bookkeeping of the series seen so far (a benchmark
missing from a round's output gets a value of ``None`` saying so), and one
wording of what went wrong: the tool, the benchmark it was in, and how the
process ended.

The primary value of each round is the wall time of the tool's processes
in nanoseconds: what the round cost, not a benchmark's time (that is in
its series). It falls as series stop and later rounds run fewer
benchmarks.
"""

from __future__ import annotations

import itertools
import re
import signal
import tempfile
import threading
from abc import abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..records.measurement import ERROR, TIMEOUT, Measurement, utc_now
from ..records.series import SeriesValue
from .base import Target
from .processes import Outcome
from .program import LocalProgram, ProgramOptions, check_program_options

if TYPE_CHECKING:
    # Only the type checker reads the annotations, so typing_extensions is
    # not a run-time dependency.
    from typing_extensions import Unpack

#: Unit of a round's primary value: the wall time of the tool's processes.
ROUND_UNIT = "ns"


class RoundFailed(Exception):
    """A round that produced no usable result; its message is one line for the record."""

    def __init__(
        self,
        problem: str,
        *,
        status: str = ERROR,
        started_at: datetime | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(problem)
        self.problem = problem
        self.status = status
        self.started_at = started_at
        self.extra = dict(extra or {})


@dataclass
class Round:
    """What one round of the tool gave: its processes' wall time and the series it read."""

    wall_ns: int
    series: dict[str, SeriesValue]
    extra: dict[str, Any] = field(default_factory=dict)


class BenchmarkSuite(LocalProgram, Target):
    """A benchmarking tool whose every round yields one series per benchmark (a base class).

    A subclass sets :attr:`kind` and :attr:`tool` and implements
    :meth:`_round`, which runs the tool for the benchmarks asked (all of
    them when ``only`` is ``None``) and returns a :class:`Round`, or raises
    :class:`RoundFailed` (built with :meth:`failure` from the tool's
    process). The base turns either into a measurement, fills in the
    series missing from the output, and remembers every series seen.

    Parameters
    ----------
    argv : list of str
        The program as it is started (checked as for a command target).
    **program
        The program's settings (:class:`~perfstats.adapters.targets.program.ProgramOptions`):
        ``timeout`` (seconds before one process of the tool is killed),
        ``env``, ``inherit_env``, ``cwd`` and ``cpus``, as for
        :class:`~perfstats.adapters.targets.Command`.
    """

    kind = "suite"
    #: The tool's name as messages say it ("Google Benchmark").
    tool = "benchmark tool"
    selects_series = True
    # The round's time falls as benchmarks stop: it says what a round cost,
    # not when the suite's benchmarks are known well enough.
    judges_value = False

    def __init__(self, argv: Sequence[str], **program: Unpack[ProgramOptions]) -> None:
        # The usage of a tool's process (rusage) would be the tool's, not a benchmark's.
        check_program_options(type(self).__name__, program)
        try:
            super().__init__(argv, **program)
        except ValueError as exc:
            raise ValueError(f"{self.tool}: {exc}") from None
        self._known: dict[str, SeriesValue] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._scratch = tempfile.TemporaryDirectory(prefix=f"perfstats-{self.kind}-")
        self._numbers = itertools.count()
        self._in_flight = 0
        # Rounds in parallel (concurrency > 1) build, list or calibrate once.
        self._prepare_lock = threading.Lock()

    @property
    def series_names(self) -> tuple[str, ...]:
        """Every series seen so far, in the order they first appeared."""
        with self._lock:
            return tuple(self._known)

    def invoke(self) -> Measurement:
        """Run every benchmark once; each is a series of the measurement."""
        return self._measure(None)

    def invoke_only(self, names: frozenset[str]) -> Measurement:
        """Run only the benchmarks of the series ``names`` (seen in earlier rounds)."""
        if isinstance(names, (str, bytes)) or not isinstance(names, Iterable):
            raise ValueError(f"names must be a set of series names; got {names!r}")
        wanted = frozenset(names)
        if not wanted:
            raise ValueError("names must name at least one series")
        with self._lock:
            unknown = sorted(wanted - set(self._known))
        if unknown:
            raise ValueError(
                f"{self.tool}: no series {unknown[0]!r} in earlier rounds; "
                "run every benchmark first (invoke)"
            )
        return self._measure(wanted)

    def prepare(self) -> None:
        """Do now what the first round would do before the tool runs (build, list, calibrate).

        Failures raise :class:`RoundFailed`; the first round does this itself
        when it has not been done.
        """
        with self._prepare_lock:
            self._prepare()

    def _prepare(self) -> None:
        """Build, list or calibrate what every round needs (cached)."""

    def run_step(self, argv: Sequence[str], what: str, *, pinned: bool = True) -> Outcome:
        """Run a command of the tool that prepares the rounds (build, list, calibrate).

        Its failure raises :class:`RoundFailed` saying ``what`` failed, then
        how the process ended.
        """
        out = self.run_program(argv=argv, pinned=pinned)
        if out.failure() is not None:
            failed = self.failure(out, None)
            raise RoundFailed(
                f"{what}: {failed.problem}",
                status=failed.status,
                started_at=out.started_at,
                extra=failed.extra,
            )
        return out

    def scratch_path(self, suffix: str) -> str:
        """A fresh file name in this target's scratch folder (removed on close)."""
        return f"{self._scratch.name}/{next(self._numbers)}{suffix}"

    @abstractmethod
    def _round(self, only: frozenset[str] | None) -> Round:
        """Run the tool for the series ``only`` (every benchmark when None)."""

    def _measure(self, only: frozenset[str] | None) -> Measurement:
        with self._lock:
            self._in_flight += 1
        try:
            return self._measure_round(only)
        finally:
            with self._lock:
                self._in_flight -= 1
                last = self._closed and not self._in_flight
            if last:
                self._scratch.cleanup()

    def _measure_round(self, only: frozenset[str] | None) -> Measurement:
        started_at = utc_now()
        try:
            self.prepare()
            result = self._round(only)
        except RoundFailed as exc:
            return Measurement.failure(
                f"{self.tool}: {exc.problem}",
                unit=ROUND_UNIT,
                cold=None,
                started_at=exc.started_at or started_at,
                status=exc.status,
                extra=exc.extra,
            )
        with self._lock:
            expected = list(self._known) if only is None else [n for n in self._known if n in only]
            series = dict(result.series) if only is None else {
                n: v for n, v in result.series.items() if n in only
            }  # fmt: skip
            for name, value in series.items():
                self._known.setdefault(name, value)
            known = dict(self._known)
        if not any(v.ok for v in series.values()):
            if series:
                name, bad = next(iter(series.items()))
                problem = f"no benchmark succeeded ({name}: {bad.error})"
            elif expected:
                many = "s" if len(expected) != 1 else ""
                problem = (
                    f"printed no results (expected {len(expected)} benchmark{many}: "
                    f"{_first(expected)})"
                )
            else:
                problem = "printed no results"
            return Measurement.failure(
                f"{self.tool}: {problem}",
                unit=ROUND_UNIT,
                cold=None,
                started_at=started_at,
                extra={"wall_ns": result.wall_ns, **result.extra},
            )
        for name in expected:
            if name not in series:
                seen = known[name]
                series[name] = SeriesValue(
                    None,
                    seen.unit,
                    direction=seen.direction,
                    source=seen.source,
                    error=f"{self.tool}: {name} is not in this round's output "
                    "(it was in an earlier round)",
                )
        return Measurement(
            value=float(result.wall_ns),
            unit=ROUND_UNIT,
            cold=None,
            started_at=started_at,
            extra={"wall_ns": result.wall_ns, **result.extra},
            series=series,
        )

    def failure(
        self,
        out: Outcome,
        benchmark: str | None,
        *,
        done: int = 0,
        last: str | None = None,
        detail: str | None = None,
    ) -> RoundFailed:
        """A failed round from a process of the tool that ended badly, naming ``benchmark``.

        ``benchmark`` is the one the tool was in when it ended (None when
        unknown); ``done`` how many had finished before it, ``last`` the
        last of them (said when ``benchmark`` is unknown); ``detail`` the
        line of its output that says why (default: the last line of its
        standard error, or of its output).
        """
        where = f" in {benchmark}" if benchmark else ""
        after = f" after {done} benchmark{'s' if done != 1 else ''}" if done else ""
        if after and last and not benchmark:
            after += f" (the last finished: {last})"
        status = ERROR
        if out.start_error is not None:
            problem = out.start_error
        elif self._closed:
            problem = f"interrupted{where}{after} (the run was stopped)"
        elif out.timed_out:
            problem = f"timed out after {out.timeout:g} s{where}{after}"
            status = TIMEOUT
        elif out.returncode is not None and out.returncode < 0:
            name = signal_name(-out.returncode)
            how = "interrupted" if -out.returncode == signal.SIGINT else "crashed"
            if -out.returncode in (signal.SIGKILL, signal.SIGTERM):
                how = "killed"
            problem = f"{how} ({name}){where}{after}"
        else:
            # "exit status 2: <the last line of its output>", placed after the benchmark.
            code = f"exit status {out.returncode}"
            problem = (out.failure() or code).replace(code, f"{code}{where}{after}", 1)
            if detail:
                problem = f"{code}{where}{after}: {detail}"
        extra: dict[str, Any] = {"wall_ns": out.wall_ns, "returncode": out.returncode}
        if benchmark:
            extra["benchmark"] = benchmark
        return RoundFailed(problem, status=status, started_at=out.started_at, extra=extra)

    def close(self) -> None:
        """Kill the tool's processes still running and remove the scratch folder."""
        with self._lock:
            self._closed = True
            idle = not self._in_flight
        super().close()
        if idle:
            # A round still running reads what its killed process wrote
            # (to name the benchmark it was in), then removes the folder.
            self._scratch.cleanup()

    def suite_config(self) -> dict[str, Any]:
        """The settings every tool target records."""
        return {**self.program_config(), "inherit_env": self.inherit_env}


def check_tool_argv(argv: Any, tool: str, what: str) -> Sequence[str]:
    """``argv`` if it is a non-empty sequence of arguments, else a ``ValueError`` naming ``what``.

    Examples
    --------
    >>> from perfstats.adapters.targets.benchmark_suite import check_tool_argv
    >>> check_tool_argv(["./pkg", "-benchtime=2x"], "go test -bench", "a package and its flags")
    ['./pkg', '-benchtime=2x']
    """
    if isinstance(argv, (str, bytes)) or not isinstance(argv, Sequence) or not argv:
        raise ValueError(f"{tool}: argv must be {what}; got {argv!r}")
    return argv


def signal_name(number: int) -> str:
    """``SIGSEGV`` for 11; ``signal 99`` for a number without a name.

    Examples
    --------
    >>> from perfstats.adapters.targets.benchmark_suite import signal_name
    >>> signal_name(6), signal_name(99)
    ('SIGABRT', 'signal 99')
    """
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _first(names: Sequence[str]) -> str:
    shown = ", ".join(names[:3])
    return f"{shown}, ..." if len(names) > 3 else shown


_SPECIAL = re.compile(r"([\\.\[\](){}*+?|^$])")


def escape_regex(name: str) -> str:
    """``name`` with the characters special to POSIX, ECMAScript and RE2 expressions escaped.

    Tools match benchmark names with regular expressions of their own
    flavour; these characters are special in all of them, and a backslash
    before them means the character itself in all of them.

    Examples
    --------
    >>> from perfstats.adapters.targets.benchmark_suite import escape_regex
    >>> escape_regex("BM_sort/1.5/threads:2")
    'BM_sort/1\\\\.5/threads:2'
    """
    return _SPECIAL.sub(r"\\\1", name)
