"""What a run returns, and the values of a record that a rule judges."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from perfstats.rules.decision import Decision

from ..records.record import MEASURE

STOPPED_BY = ("rule", "max_n", "max_seconds", "failures", "interrupted")


@dataclass(frozen=True)
class RunResult:
    """What :func:`run` returns.

    Attributes
    ----------
    decision : Decision
        The final decision (``stop`` is False when the run ended on
        ``max_seconds`` before the rule stopped).
    measurements : pandas.DataFrame
        Every invocation of the whole record (resumed rows included), one row
        each, with the record's columns.
    record : pathlib.Path or None
        The CSV file, when one was written.
    history : tuple of Decision
        Every judgement, in order (one per run interval).
    stopped_by : str
        ``"rule"``, ``"max_n"``, ``"max_seconds"``, ``"failures"`` or
        ``"interrupted"``.
    seed : int
        The seed of this run (see :func:`run`).
    elapsed : float
        Seconds this call took.
    metadata : Mapping
        The record's metadata (machine, software, target, rule, sessions).

    Examples
    --------
    >>> from perfstats.adapters import Command, run
    >>> result = run(Command(["true"]), "fixed", rule_options={"n": 4}, progress=False)
    >>> result.stopped_by, result.values.size, result.decision.stop
    ('rule', 4, True)
    """

    decision: Decision
    measurements: pd.DataFrame
    record: Path | None
    history: tuple[Decision, ...]
    stopped_by: str
    seed: int
    elapsed: float
    metadata: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @property
    def values(self) -> np.ndarray:
        """The values the rule judged: successful measurement runs in run order."""
        return judged_values(self.measurements)

    def __repr__(self) -> str:
        return (
            f"RunResult({self.stopped_by}, {len(self.measurements)} invocations, {self.decision!r})"
        )


def judged_values(measurements: pd.DataFrame) -> np.ndarray:
    """Successful, non-warm-up values of a record in run order: what a rule sees.

    Examples
    --------
    >>> from perfstats.adapters.driver.result import judged_values
    >>> from perfstats.adapters.records.record import frame
    >>> judged_values(frame([])).size
    0
    """
    ok = measurements[(measurements["status"] == "ok") & (measurements["phase"] == MEASURE)]
    return ok.sort_values("run")["value"].to_numpy(dtype=np.float64)
