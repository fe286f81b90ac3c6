"""What an A-B suite invokes: a target that runs a call and reports every execution."""

from __future__ import annotations

from abc import abstractmethod
from datetime import datetime
from typing import Any

from ..records.measurement import ERROR, Measurement
from ..targets.base import Resource
from .benchmark import Benchmark
from .interleaving import Call


class SuiteTarget(Resource):
    """Runs one planned call and returns one measurement per execution.

    Subclasses implement :meth:`call` (thread-safe: calls run concurrently)
    and :meth:`_config`. A failed call is returned as failed measurements,
    one per execution, never raised and never dropped, so the record always
    holds every planned execution exactly once.

    Attributes
    ----------
    kind : str
        ``"command"``, ``"http"`` or ``"targets"``.
    name : str
        Label for records and output.
    both_versions : bool
        True when one call can run both versions in the same invocation,
        which the duet schedule requires.

    Examples
    --------
    >>> from perfstats.adapters.ab.suite_target import SuiteTarget, failed_call
    >>> from perfstats.adapters.ab.interleaving import duet_plan
    >>> from perfstats.adapters.records.measurement import utc_now
    >>> class Broken(SuiteTarget):
    ...     kind, name = "broken", "always fails"
    ...     def call(self, call, benchmark):
    ...         return failed_call(call, "no such machine", unit="", started_at=utc_now())
    ...     def _config(self):
    ...         return {}
    >>> call = duet_plan(["a"], calls=1, repeats=2, rng=0)[0]
    >>> [m.status for m in Broken().call(call, None)]
    ['error', 'error', 'error', 'error']
    """

    kind: str = "suite target"
    name: str = "suite target"
    both_versions: bool = True

    @abstractmethod
    def call(self, call: Call, benchmark: Benchmark) -> list[Measurement]:
        """Run ``call`` and return one measurement per execution, in its order."""


def failed_call(
    call: Call,
    message: str,
    *,
    unit: str,
    started_at: datetime,
    status: str = ERROR,
    extra: dict[str, Any] | None = None,
) -> list[Measurement]:
    """One failed measurement per execution of ``call``, all with ``message``.

    Examples
    --------
    >>> from perfstats.adapters.ab.interleaving import rmit_plan
    >>> from perfstats.adapters.records.measurement import utc_now
    >>> call = rmit_plan(["a"], calls=1, repeats=3, rng=0)[0]
    >>> [m.error for m in failed_call(call, "exit status 1", unit="ns", started_at=utc_now())]
    ['exit status 1', 'exit status 1', 'exit status 1']
    """
    return [
        Measurement.failure(
            message, unit=unit, cold=None, started_at=started_at, status=status, extra=extra
        )
        for _ in call.executions
    ]
