"""A criterion.rs bench of a cargo project as a target: one series per benchmark."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from statistics import fmean, median
from typing import TYPE_CHECKING, Any

from ..records.importers.criterion import NAME
from ..records.importers.read import read
from ..records.importers.results import FormatError
from ..records.series import SeriesValue
from .arguments import show_argv
from .benchmark_suite import BenchmarkSuite, Round, RoundFailed, check_tool_argv, escape_regex
from .program import ProgramOptions

if TYPE_CHECKING:
    from typing_extensions import Unpack

#: The statistics of a round's samples a series can take.
STATISTICS = ("median", "mean")
# criterion's own minimum: its sample-size option asserts at least ten.
MIN_SAMPLE_SIZE = 10
# Options of the bench binary each round sets itself, or that would make it
# do something other than measure (list, test, profile, compare to a baseline).
_OURS = (
    "--bench", "--test", "--list", "--profile-time", "--sample-size", "--warm-up-time",
    "--measurement-time", "--save-baseline", "-s", "--baseline", "-b", "--load-baseline",
    "--output-format", "--noplot", "-n",
)  # fmt: skip
# Options of the bench binary that take a value (the rest are flags): a word
# after one of them is its value, not the filter.
_VALUED = (
    "--color", "--colour", "-c", "--nresamples", "--noise-threshold", "--confidence-level",
    "--significance-level", "--plotting-backend",
)  # fmt: skip
# "Benchmarking <id>" starts a benchmark; the same words then say its phase.
_STARTED = re.compile(
    r"^Benchmarking (?P<title>.*?)(?:: (?:Warming up for|Collecting|Analyzing|Profiling for)\b.*)?$"
)
# criterion shortens a title longer than this to it and "...".
_TITLE_LENGTH = 100


class Criterion(BenchmarkSuite):
    """Run a criterion.rs bench once per round; each benchmark is a series.

    Given a cargo project, the bench is built once (``cargo bench --no-run``,
    in the first round, outside its timing, off the benchmarks' CPUs); given
    a bench executable already built, that is run. Each round runs the
    executable as ``cargo bench`` would (``--bench``, in the project's
    folder), with ``--sample-size`` (criterion's minimum of ten by default)
    and ``--noplot``, its results written to a folder of the round's own
    (``CRITERION_HOME``), so no round compares itself with another's
    baseline. Each benchmark's ``new/sample.json`` is read with the
    criterion importer, named by the ``full_id`` of the ``benchmark.json``
    beside it (``"quiet"``, ``"sizes/100"``). A benchmark's series is the
    median of the round's per-iteration times, in seconds: criterion's
    samples run one to ``sample_size`` times as many iterations each, and a
    sample that a preemption or an interrupt lands in (the outliers
    criterion flags) moves their mean but not their median
    (``statistic="mean"`` for the mean, criterion's other point estimate).
    When the driver asks for some series only, the round runs only their
    benchmarks, with criterion's filter made of the exact names
    (``^(quiet|sizes/100)$``).

    criterion prints ``Benchmarking <id>`` before each benchmark and writes
    its ``benchmark.json`` last, after the analysis: a round whose process
    ends early (a panic, a timeout, a signal) fails naming the benchmark it
    was in and how many had finished.

    Parameters
    ----------
    argv : list of str
        A cargo project's folder (with ``Cargo.toml``) or a bench executable,
        then options of the bench (``--nresamples 1000``, ``--verbose``) and
        at most one filter, a regular expression that picks the suite. The
        options each round sets (``--sample-size``, ``--noplot``, baselines,
        ``--list``, ...) are refused.
    bench : str, optional
        The ``[[bench]]`` target of the project to build and run; needed
        when the project has more than one.
    sample_size : int, default 10
        Samples per benchmark per round (at least ten).
    warm_up_time, measurement_time : int, optional
        Whole seconds (criterion 0.3 reads no fractions); default: the
        bench's own configuration (``Criterion::default().measurement_time(...)``).
    statistic : {"median", "mean"}, default "median"
        The statistic of a round's per-iteration times that is its value.
    cargo : str, default "cargo"
        The cargo command (a project only).
    offline : bool, default True
        Build with ``--offline`` (from the packages cargo already has, or a
        source replacement such as Debian's ``/usr/share/cargo/registry``).
    timeout : float, optional
        Seconds before one process (the build or a round) is killed.
    env, inherit_env, cwd, cpus, label
        As for :class:`~perfstats.adapters.targets.Command`; ``cwd`` is
        where the bench runs (default: the project's folder), and a relative
        project is found from it.

    Examples
    --------
    >>> from perfstats.adapters.targets.criterion import Criterion, name_filter
    >>> name_filter(["quiet", "sizes/1.5"])
    '^(quiet|sizes/1\\\\.5)$'
    >>> Criterion(["sh", "--sample-size", "20"])
    Traceback (most recent call last):
    ...
    ValueError: criterion: --sample-size is set by each round (sample_size=...); leave it out
    """

    kind = "criterion"
    tool = NAME

    def __init__(
        self,
        argv: Sequence[str],
        *,
        bench: str | None = None,
        sample_size: int = MIN_SAMPLE_SIZE,
        warm_up_time: int | None = None,
        measurement_time: int | None = None,
        statistic: str = "median",
        cargo: str = "cargo",
        offline: bool = True,
        label: str | None = None,
        **program: Unpack[ProgramOptions],
    ) -> None:
        check_tool_argv(argv, NAME, "a cargo project or bench executable, then its options")
        first = argv[0]
        if not isinstance(first, str) or not first or first.startswith("-"):
            raise ValueError(
                f"{NAME}: the first argument must be a cargo project or a bench executable; "
                f"got {first!r}"
            )
        flags, filter_ = _split_options(argv[1:])
        if bench is not None and (not isinstance(bench, str) or not bench):
            raise ValueError(f"{NAME}: bench must name a [[bench]] target; got {bench!r}")
        if (
            isinstance(sample_size, bool)
            or not isinstance(sample_size, int)
            or sample_size < MIN_SAMPLE_SIZE
        ):
            raise ValueError(
                f"{NAME}: sample_size must be a whole number of at least {MIN_SAMPLE_SIZE} "
                f"(criterion's minimum); got {sample_size!r}"
            )
        for what, seconds in (("warm_up_time", warm_up_time),
                              ("measurement_time", measurement_time)):  # fmt: skip
            if seconds is not None and (
                isinstance(seconds, bool) or not isinstance(seconds, int) or seconds < 1
            ):
                raise ValueError(
                    f"{NAME}: {what} must be whole seconds, at least 1 (criterion 0.3 reads "
                    f"no fractions; set shorter times in the bench's configuration); "
                    f"got {seconds!r}"
                )
        if statistic not in STATISTICS:
            raise ValueError(f"{NAME}: statistic must be one of {', '.join(STATISTICS)}; "
                             f"got {statistic!r}")  # fmt: skip
        if not isinstance(cargo, str) or not cargo:
            raise ValueError(f"{NAME}: cargo must be the cargo command; got {cargo!r}")
        cwd = program.get("cwd")
        base = Path(cwd) if isinstance(cwd, str) else Path.cwd()
        place = base / first
        self.project: str | None = None
        if place.is_dir():
            if not (place / "Cargo.toml").is_file():
                raise ValueError(f"{NAME}: {first} has no Cargo.toml (not a cargo project)")
            self.project = str(place.resolve())
            if cwd is None:
                program = {**program, "cwd": self.project}
            command = [cargo, "bench", *(["--bench", bench] if bench else [])]
        else:
            if bench is not None:
                raise ValueError(f"{NAME}: bench= picks a target of a cargo project, "
                                 f"and {first} is no folder")  # fmt: skip
            command = [first]
        super().__init__(command, **program)
        # The project's full path: the recorded settings rebuild it from any folder.
        self.arguments = [self.project or first, *argv[1:]]
        self.flags = flags
        self.filter = filter_
        self.bench = bench
        self.sample_size = sample_size
        self.warm_up_time = warm_up_time
        self.measurement_time = measurement_time
        self.statistic = statistic
        self.cargo = cargo
        self.offline = bool(offline)
        self.name = label or f"criterion {show_argv(argv)}"
        self._binary: str | None = None if self.project is not None else self.argv[0]

    def _prepare(self) -> None:
        self._build()

    def _build(self) -> str:
        """The bench executable (built once from a project)."""
        if self._binary is None:
            assert self.project is not None
            argv = [
                self.argv[0], "bench", "--no-run", "--message-format=json",
                *(["--offline"] if self.offline else []),
                *(["--bench", self.bench] if self.bench else []),
            ]  # fmt: skip
            # The command as a user types it (cargo, not its full path).
            build = f"{os.path.basename(argv[0])} bench --no-run"
            what = f"{build} failed"
            # A build is no benchmark: it runs off the benchmarks' CPUs.
            out = self.run_program(argv=argv, cwd=self.project, pinned=False)
            messages = _messages(out.stdout)
            if out.failure() is not None or out.returncode != 0:
                failed = self.failure(out, None, detail=_compile_error(messages))
                raise RoundFailed(f"{what}: {failed.problem}", status=failed.status,
                                  started_at=out.started_at, extra=failed.extra)  # fmt: skip
            built = _bench_executables(messages)
            if not built:
                raise RoundFailed(
                    f"{build} built no bench executable in {self.project} (no [[bench]] target)"
                )
            if len(built) > 1:
                raise RoundFailed(
                    f"{self.project} has {len(built)} bench targets ({', '.join(sorted(built))});"
                    " choose one with bench=NAME"
                )
            self._binary = next(iter(built.values()))
        return self._binary

    def _round(self, only: frozenset[str] | None) -> Round:
        binary = self._build()
        home = Path(self.scratch_path(".criterion"))
        home.mkdir()
        pattern = self.filter if only is None else name_filter(sorted(only))
        argv = [
            binary,
            "--bench",
            "--noplot",
            f"--sample-size={self.sample_size}",
            *([f"--warm-up-time={self.warm_up_time}"] if self.warm_up_time else []),
            *([f"--measurement-time={self.measurement_time}"] if self.measurement_time else []),
            *self.flags,
            *([pattern] if pattern is not None else []),
        ]
        base = self.full_env if self.full_env is not None else dict(os.environ)
        out = self.runner.run(
            argv,
            timeout=self.timeout,
            env={**base, "CRITERION_HOME": str(home)},
            cwd=self.cwd,
            cpus=self.cpus,
            usage=self.launcher,
        )
        started = _started(out.stdout)
        failed = out.failure() is not None or out.returncode != 0
        try:
            found = _finished(home)
        except FormatError as exc:
            if failed:
                found = {}
            else:
                raise RoundFailed(str(exc), started_at=out.started_at,
                                  extra={"wall_ns": out.wall_ns}) from None  # fmt: skip
        if failed:
            done = _in_order(found, started)
            running = started[-1] if started else None
            if running is not None:
                running = _full_name(running, found, self.series_names)
                if running in found:
                    running = None  # it finished: the process ended between benchmarks
            raise self.failure(
                out,
                running,
                done=len(done),
                last=done[-1] if done else None,
                detail=_why(out.stderr + "\n" + out.stdout),
            )
        series: dict[str, SeriesValue] = {}
        pick = median if self.statistic == "median" else fmean
        for name in _in_order(found, started):
            try:
                series[name] = SeriesValue(
                    float(pick(found[name])), "s", direction="lower", source="criterion"
                )
            except ValueError as exc:
                series[name] = SeriesValue(
                    None, "s", direction="lower", source="criterion", error=f"{name}: {exc}"
                )
        return Round(out.wall_ns, series, {"returncode": out.returncode})

    def _config(self) -> dict[str, Any]:
        # argv as given (the project and its options): the metadata rebuilds this target.
        return {
            **self.suite_config(),
            "argv": self.arguments,
            "bench": self.bench,
            "sample_size": self.sample_size,
            "warm_up_time": self.warm_up_time,
            "measurement_time": self.measurement_time,
            "statistic": self.statistic,
            "cargo": self.cargo,
            "offline": self.offline,
        }


def name_filter(names: Sequence[str]) -> str:
    """criterion's filter that selects exactly the benchmarks ``names`` (their full ids).

    criterion matches the filter, a regular expression of Rust's ``regex``
    crate, anywhere in a benchmark's full id; anchored alternatives of the
    escaped names match those alone.

    Examples
    --------
    >>> from perfstats.adapters.targets.criterion import name_filter
    >>> name_filter(["fib 20", "sort/(n=8)"])
    '^(fib 20|sort/\\\\(n=8\\\\))$'
    """
    return "^(" + "|".join(escape_regex(n) for n in names) + ")$"


def _split_options(args: Sequence[str]) -> tuple[list[str], str | None]:
    """The bench's options to pass on, and the filter among them (a word of its own)."""
    flags: list[str] = []
    filter_ = None
    expect_value = False
    for arg in args:
        if not isinstance(arg, str):
            raise ValueError(f"{NAME}: every argument must be a string; got {arg!r}")
        if expect_value:
            flags.append(arg)
            expect_value = False
            continue
        option = arg.split("=", 1)[0]
        if arg.startswith("-") and option in _OURS:
            hint = {
                "--sample-size": "sample_size=...",
                "--warm-up-time": "warm_up_time=...",
                "--measurement-time": "measurement_time=...",
            }.get(option, "each round's own")
            raise ValueError(f"{NAME}: {option} is set by each round ({hint}); leave it out")
        if arg.startswith("-"):
            flags.append(arg)
            expect_value = option in _VALUED and "=" not in arg
        elif filter_ is not None:
            raise ValueError(f"{NAME}: one filter only; got {filter_!r} and {arg!r}")
        else:
            filter_ = arg
    return flags, filter_


def _messages(stdout: str) -> list[dict[str, Any]]:
    """cargo's JSON messages (``--message-format=json``), one a line."""
    found = []
    for line in stdout.splitlines():
        if line.startswith("{"):
            try:
                found.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return found


def _compile_error(messages: Sequence[dict[str, Any]]) -> str | None:
    """The first line of the compiler's first error (``error[E0425]: cannot find ...``)."""
    for m in messages:
        message = m.get("message") if m.get("reason") == "compiler-message" else None
        if isinstance(message, dict) and message.get("level") == "error":
            rendered = message.get("rendered") or message.get("message") or ""
            return str(rendered).strip().splitlines()[0] if str(rendered).strip() else None
    return None


def _bench_executables(messages: Sequence[dict[str, Any]]) -> dict[str, str]:
    """The bench targets' executables cargo built, by target name."""
    built = {}
    for m in messages:
        target = m.get("target") or {}
        if (
            m.get("reason") == "compiler-artifact"
            and "bench" in (target.get("kind") or [])
            and m.get("executable")
        ):
            built[str(target.get("name"))] = str(m["executable"])
    return built


def _started(stdout: str) -> list[str]:
    """The titles of the benchmarks the output says were started, in order."""
    titles: list[str] = []
    for line in stdout.splitlines():
        match = _STARTED.match(line.rstrip())
        if match and (not titles or titles[-1] != match["title"]):
            titles.append(match["title"])
    return titles


def _finished(home: Path) -> dict[str, list[float]]:
    """Per-iteration times (s) of every benchmark criterion finished, by full id.

    A benchmark is finished when its ``benchmark.json``, written last, is there.
    """
    found: dict[str, list[float]] = {}
    for meta in sorted(home.rglob("new/benchmark.json")):
        results = read(meta.parent / "sample.json", format="criterion")
        for name in results.benchmarks:
            found[name] = [float(v) for v in results.values(name)]
    return found


def _full_name(title: str, found: dict[str, list[float]], known: Sequence[str]) -> str:
    """The benchmark a printed title is (criterion shortens long ones and adds "...")."""
    if len(title) > _TITLE_LENGTH and title.endswith("..."):
        stem = title[: -len("...")]
        for name in [*found, *known]:
            if name.startswith(stem):
                return name
    return title


def _in_order(found: dict[str, list[float]], started: Sequence[str]) -> list[str]:
    """The finished benchmarks in the order criterion ran them."""
    order = {_full_name(t, found, ()): k for k, t in enumerate(started)}
    return sorted(found, key=lambda n: (order.get(n, len(order)), n))


def _why(text: str) -> str | None:
    """What the bench said as it ended: a Rust panic as one line, or its command line's error."""
    lines = text.splitlines()
    for k, line in enumerate(lines):
        if "panicked at" in line:
            said = line[line.index("panicked at") :].rstrip()
            # Newer Rust prints the location, a colon, and the message below it.
            if said.endswith(":") and k + 1 < len(lines) and lines[k + 1].strip():
                said = f"{said} {lines[k + 1].strip()}"
            return said
    # clap's refusal of an option ("error: Found argument '--x' which wasn't expected").
    return next((line.strip() for line in lines if line.startswith("error:")), None)
