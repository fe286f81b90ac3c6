"""A local process as a target."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..records.measurement import ERROR, TIMEOUT, Measurement
from ..records.series import SeriesValue
from .arguments import show_argv
from .base import Target
from .perf_counters import DEFAULT_EVENTS, PerfCounters
from .processes import Outcome
from .program import LocalProgram, ProgramOptions
from .rapl import RaplReader
from .rusage import CPU_SYSTEM, CPU_USER, MAX_RSS
from .values import ValueReader, ValueReaders

if TYPE_CHECKING:
    # Only the type checker reads the annotations, so typing_extensions is
    # not a run-time dependency.
    from typing_extensions import Unpack

#: Series names the command targets give themselves; metrics read from the
#: output take other names.
RESERVED_NAMES = (CPU_USER, CPU_SYSTEM, MAX_RSS)
RESERVED_PREFIXES = ("perf_", "energy_", "cgroup_")


class Command(LocalProgram, Target):
    """Run a local program once per invocation.

    Parameters
    ----------
    argv : list of str
        Program and arguments; no shell is involved (pass ``["sh", "-c",
        "..."]`` explicitly if one is wanted).
    regex, json_field, unit : optional
        Read the value from the program's standard output instead of timing
        it (see :class:`~perfstats.adapters.targets.values.ValueReader`).
    label : str, optional
        Label for the record (default: the command line).
    rusage : bool, default True
        Record the user and system CPU time (series ``cpu_user``,
        ``cpu_system``, in ns) and the peak resident memory (``max_rss``,
        in bytes) of each run's process tree, from ``wait4`` when it ends
        (:mod:`~perfstats.adapters.targets.rusage`).
    perf : bool or list of str, default False
        Count these ``perf`` events of each run (``True``: ``cycles``,
        ``instructions``, ``cache-misses``) as series ``perf_EVENT``
        (:mod:`~perfstats.adapters.targets.perf_counters`). Where perf is
        missing, not permitted or cannot count an event, a message says so
        and the run goes on without it.
    energy : bool, default False
        Record the RAPL package energy of each run (series
        ``energy_package-N``, in J) where ``/sys/class/powercap`` is
        readable (:mod:`~perfstats.adapters.targets.rapl`); a message says
        so where it is not.
    metrics : list of dict or ValueReader, optional
        More values read from the output, each a series of its own: a
        ``name`` and a ``regex`` or ``json_field``, with a ``unit`` and a
        ``direction`` (see :class:`~perfstats.adapters.targets.values.ValueReaders`).
    **program
        The settings of the local program
        (:class:`~perfstats.adapters.targets.program.ProgramOptions`), as keywords:

        * ``timeout`` (float, optional): seconds before the process group is
          killed and the run recorded as ``"timeout"``.
        * ``env`` (dict, optional): environment variables added to
          (``inherit_env=True``) or replacing the driver's environment.
        * ``inherit_env`` (bool, default True): start from the driver's
          environment.
        * ``cwd`` (str, optional): working directory.
        * ``cpus`` (list of int, optional): pin each run's process to these
          CPUs (Linux), before it starts; on a VM whose virtual CPUs differ in
          speed this removes a large, placement-dependent part of the spread.

    Examples
    --------
    >>> from perfstats.adapters import Command
    >>> m = Command(["true"]).invoke()
    >>> m.status, m.unit
    ('ok', 'ns')
    >>> Command(["sh", "-c", "echo t=42"], regex=r"t=(\\d+)", unit="ms").invoke().value
    42.0
    >>> m = Command(["sh", "-c", "echo t=42 rps=900"], regex=r"t=(\\d+)", unit="ms",
    ...             metrics=[{"name": "rps", "regex": r"rps=(\\d+)", "unit": "1/s",
    ...                       "direction": "higher"}]).invoke()
    >>> m.series["rps"].value, sorted(m.series)
    (900.0, ['cpu_system', 'cpu_user', 'max_rss', 'rps'])
    """

    kind = "command"

    def __init__(
        self,
        argv: Sequence[str],
        *,
        regex: str | None = None,
        json_field: str | None = None,
        unit: str | None = None,
        label: str | None = None,
        rusage: bool = True,
        perf: bool | Sequence[str] = False,
        energy: bool = False,
        metrics: Sequence[ValueReader | Mapping[str, Any]] = (),
        **program: Unpack[ProgramOptions],
    ) -> None:
        super().__init__(argv, rusage=rusage, **program)
        self.reader = ValueReader(regex=regex, json_field=json_field, unit=unit)
        self.metrics = check_metrics(metrics)
        self.perf = _perf_counters(perf)
        if not isinstance(energy, bool):
            raise ValueError(f"energy must be True or False; got {energy!r}")
        self.rapl: RaplReader | None = None
        if energy:
            self.rapl = RaplReader()
            self.rapl.warn()
        self.name = label or show_argv(self.argv)

    def invoke(self) -> Measurement:
        rapl = self.rapl if self.rapl is not None and self.rapl.available else None
        before = rapl.snapshot() if rapl is not None else None
        series: dict[str, SeriesValue] = {}
        if self.perf is not None and self.perf.active:
            with self.perf.output_file() as path:
                out = self.run_program(argv=self.perf.command(self.argv, path))
                series.update(self.perf.read(path))
        else:
            out = self.run_program()
        if rapl is not None and before is not None:
            series.update(rapl.series(before))
        if out.usage is not None:
            series.update(out.usage.series())
        return outcome_measurement(out, self.reader, cold=None, series=series, metrics=self.metrics)

    def _config(self) -> dict[str, Any]:
        # Only settings away from the defaults: a record written before these
        # existed describes the same target and resumes.
        extra: dict[str, Any] = {} if self.rusage else {"rusage": False}
        if self.perf is not None:
            extra["perf"] = self.perf.config()
        if self.rapl is not None:
            extra["energy"] = self.rapl.config()
        if self.metrics:
            extra["metrics"] = self.metrics.config()
        return {
            **self.program_config(),
            "inherit_env": self.inherit_env,
            **self.reader.config(),
            **extra,
        }


def check_metrics(metrics: Any) -> ValueReaders:
    """The user's metric readers, their names clear of the series targets give themselves.

    Examples
    --------
    >>> from perfstats.adapters.targets.command import check_metrics
    >>> len(check_metrics([{"name": "rps", "regex": r"rps=(\\d+)"}]))
    1
    >>> check_metrics([{"name": "max_rss", "regex": "x"}])
    Traceback (most recent call last):
    ...
    ValueError: metric name 'max_rss' is taken by a series the target records itself
    """
    readers = metrics if isinstance(metrics, ValueReaders) else ValueReaders(metrics or ())
    for reader in readers:
        name = str(reader.name)
        if name in RESERVED_NAMES or name.startswith(RESERVED_PREFIXES):
            raise ValueError(f"metric name {name!r} is taken by a series the target records itself")
    return readers


def _perf_counters(perf: Any) -> PerfCounters | None:
    if perf is False or perf is None:
        return None
    if perf is True:
        return PerfCounters(DEFAULT_EVENTS)
    return PerfCounters(perf)


def outcome_measurement(
    out: Outcome,
    reader: ValueReader,
    *,
    cold: bool | None,
    describe: str = "",
    extra: dict[str, Any] | None = None,
    series: Mapping[str, SeriesValue] | None = None,
    metrics: ValueReaders | None = None,
) -> Measurement:
    """Turn a finished process into a measurement (shared by process-based targets).

    ``series`` (usage, counters, energy) and the values ``metrics`` read
    from the output go with a successful run; a failed run has none.
    """
    extra = {"wall_ns": out.wall_ns, "returncode": out.returncode, **(extra or {})}
    # Output beyond the kept tail is counted, so a record shows it was cut.
    for name, dropped in (
        ("stdout_dropped", out.stdout_dropped),
        ("stderr_dropped", out.stderr_dropped),
    ):
        if dropped:
            extra[name] = dropped
    problem = out.failure()
    if problem is not None:
        return Measurement.failure(
            describe + problem,
            unit=reader.unit,
            cold=cold,
            started_at=out.started_at,
            status=TIMEOUT if out.timed_out else ERROR,
            extra=extra,
        )
    try:
        value = reader.read(out.stdout, wall_ns=out.wall_ns)
    except ValueError as exc:
        return Measurement.failure(
            describe + str(exc), unit=reader.unit, cold=cold, started_at=out.started_at, extra=extra
        )
    named = dict(series or {})
    if metrics:
        named.update(metrics.read_all(out.stdout))
    return Measurement(
        value=value,
        unit=reader.unit,
        cold=cold,
        started_at=out.started_at,
        extra=extra,
        series=named,
    )
