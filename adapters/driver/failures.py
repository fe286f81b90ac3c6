"""The error a run raises when its target keeps failing."""

from __future__ import annotations

from typing import Any


class TargetFailed(RuntimeError):
    """Raised by :func:`perfstats.adapters.run` after too many consecutive failures.

    The message names the target and the last failure; every invocation,
    failed ones included, is already in the record.

    Parameters
    ----------
    message : str
        What failed: the target's name and its last failure, or the named
        series that missed too many runs in a row.
    result : RunResult or None
        What the run collected before it gave up, kept as ``result``; the
        error :func:`~perfstats.adapters.run` raises always carries one (the
        driver raises it without one internally, then again with the result).

    Examples
    --------
    >>> from perfstats.adapters import Command, TargetFailed, run
    >>> try:
    ...     run(Command(["false"]), "fixed", rule_options={"n": 5}, max_failures=2,
    ...         progress=False)
    ... except TargetFailed as exc:
    ...     print(exc.result.stopped_by, len(exc.result.measurements))
    failures 2
    """

    def __init__(self, message: str, result: Any) -> None:
        super().__init__(message)
        self.result = result
