"""A local program as a suite target: the request on its stdin, the results on its stdout."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..records.measurement import ERROR, TIMEOUT, Measurement
from ..targets.arguments import show_argv
from ..targets.program import LocalProgram, ProgramOptions, check_program_options
from .benchmark import Benchmark
from .interleaving import Call
from .protocol import encode_request, read_results
from .suite_target import SuiteTarget, failed_call

if TYPE_CHECKING:
    # Only the type checker reads the annotations, so typing_extensions is
    # not a run-time dependency.
    from typing_extensions import Unpack


class ReportingCommand(LocalProgram, SuiteTarget):
    """Run a program once per call; it runs the executions and reports their timings.

    The program reads the call's request (JSON, see
    :mod:`perfstats.adapters.ab.protocol`) on standard input and prints the
    results as JSON. Because both versions of a duet call run in the same
    process, they share its state (caches, allocator, CPU placement), and
    because the program times each execution itself, process start-up does
    not dilute the difference. Any command line works, so a container
    (``podman exec -i ...``) or a VM (``ssh host ...``) can serve too.

    Parameters
    ----------
    argv : list of str
        Program and arguments (no shell).
    unit : str, default ""
        Unit of the values when the program does not name one.
    label : str, optional
        Label for the record (default: the command line).
    **program
        The program's settings
        (:class:`~perfstats.adapters.targets.program.ProgramOptions`); any
        other keyword raises :class:`TypeError`:

        * ``timeout`` (float): seconds before the call is killed and all its
          executions recorded as ``"timeout"``;
        * ``env`` (dict): environment variables added to this process's
          environment (``inherit_env=True``) or replacing it;
        * ``inherit_env`` (bool, default True): start from this process's
          environment, else from ``env`` only;
        * ``cwd`` (str): working directory;
        * ``cpus`` (list of int): pin every call's process to these CPUs
          (Linux). On a machine whose CPUs run at different speeds (a VM's
          virtual CPUs on busy host cores), calls that land on different
          CPUs differ by far more than the change sought; RMIT, which
          compares versions across calls, suffers most.

    Examples
    --------
    >>> import sys
    >>> from perfstats.adapters.ab.benchmark import Benchmark
    >>> from perfstats.adapters.ab.reporting_command import ReportingCommand
    >>> from perfstats.adapters.ab.interleaving import duet_plan
    >>> echo = ("import json,sys; r=json.load(sys.stdin); print(json.dumps({'results': "
    ...         "[{'version': v, 'repeat': k, 'value': 10.0} for v, k in r['executions']]}))")
    >>> target = ReportingCommand([sys.executable, "-c", echo], unit="ns")
    >>> call = duet_plan(["a"], calls=1, repeats=1, rng=0)[0]
    >>> [(m.status, m.value) for m in target.call(call, Benchmark("a"))]
    [('ok', 10.0), ('ok', 10.0)]
    """

    kind = "command"

    def __init__(
        self,
        argv: Sequence[str],
        *,
        unit: str = "",
        label: str | None = None,
        **program: Unpack[ProgramOptions],
    ) -> None:
        # The program times its executions itself: no usage of its process.
        check_program_options(type(self).__name__, program)
        super().__init__(argv, **program)
        if not isinstance(unit, str):
            raise ValueError(f"unit must be a string; got {unit!r}")
        self.unit = unit
        self.name = label or show_argv(self.argv)

    def call(self, call: Call, benchmark: Benchmark) -> list[Measurement]:
        out = self.run_program(stdin=encode_request(call, benchmark))
        extra: dict[str, Any] = {"call_wall_ns": out.wall_ns, "returncode": out.returncode}
        problem = out.failure()
        if problem is not None:
            return failed_call(
                call,
                problem,
                unit=self.unit,
                started_at=out.started_at,
                status=TIMEOUT if out.timed_out else ERROR,
                extra=extra,
            )
        return read_results(
            out.stdout, call, unit=self.unit, started_at=out.started_at, extra=extra
        )

    def _config(self) -> dict[str, Any]:
        return {**self.program_config(), "unit": self.unit}
