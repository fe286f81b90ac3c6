"""A local process as a target."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..records.measurement import ERROR, TIMEOUT, Measurement
from .arguments import show_argv
from .base import Target
from .processes import Outcome
from .program import LocalProgram
from .values import ValueReader


class Command(LocalProgram, Target):
    """Run a local program once per invocation.

    Parameters
    ----------
    argv : list of str
        Program and arguments; no shell is involved (pass ``["sh", "-c",
        "..."]`` explicitly if one is wanted).
    timeout : float, optional
        Seconds before the process group is killed and the run recorded as
        ``"timeout"``.
    env : dict, optional
        Environment variables added to (``inherit_env=True``) or replacing the
        driver's environment.
    inherit_env : bool, default True
        Start from the driver's environment.
    cwd : str, optional
        Working directory.
    regex, json_field, unit : optional
        Read the value from the program's standard output instead of timing
        it (see :class:`~perfstats.adapters.targets.values.ValueReader`).
    label : str, optional
        Label for the record (default: the command line).
    cpus : list of int, optional
        Pin each run's process to these CPUs (Linux), right after it starts;
        on a VM whose virtual CPUs differ in speed this removes a large,
        placement-dependent part of the spread.

    Examples
    --------
    >>> from perfstats.adapters import Command
    >>> m = Command(["true"]).invoke()
    >>> m.status, m.unit
    ('ok', 'ns')
    >>> Command(["sh", "-c", "echo t=42"], regex=r"t=(\\d+)", unit="ms").invoke().value
    42.0
    """

    kind = "command"

    def __init__(
        self,
        argv: Sequence[str],
        *,
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
        inherit_env: bool = True,
        cwd: str | None = None,
        regex: str | None = None,
        json_field: str | None = None,
        unit: str | None = None,
        label: str | None = None,
        cpus: Sequence[int] | None = None,
    ) -> None:
        super().__init__(
            argv, timeout=timeout, env=env, inherit_env=inherit_env, cwd=cwd, cpus=cpus
        )
        self.reader = ValueReader(regex=regex, json_field=json_field, unit=unit)
        self.name = label or show_argv(self.argv)

    def invoke(self) -> Measurement:
        return outcome_measurement(self.run_program(), self.reader, cold=None)

    def _config(self) -> dict[str, Any]:
        return {**self.program_config(), "inherit_env": self.inherit_env, **self.reader.config()}


def outcome_measurement(
    out: Outcome,
    reader: ValueReader,
    *,
    cold: bool | None,
    describe: str = "",
    extra: dict[str, Any] | None = None,
) -> Measurement:
    """Turn a finished process into a measurement (shared by process-based targets)."""
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
    return Measurement(
        value=value, unit=reader.unit, cold=cold, started_at=out.started_at, extra=extra
    )
