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
from ..records.series_table import PRIMARY, series_frame, series_values

STOPPED_BY = ("rule", "max_n", "max_seconds", "failures", "interrupted")


@dataclass(frozen=True)
class RunResult:
    """What :func:`run` returns.

    Parameters
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
    decisions : Mapping of str to Decision
        The final decision of every series, the primary value's under
        ``"value"`` (:data:`~perfstats.adapters.records.series_table.PRIMARY`).
    histories : Mapping of str to tuple of Decision
        Every series' judgements.
    series : pandas.DataFrame
        The named series of every run, resumed ones included: the rows of
        the record's series table (``run, series, value, unit, status,
        error``); empty for a target that gives one number.
    stop_when : str
        ``"all"``, ``"any"`` or the series whose stop ended the run;
        :attr:`decision` and :attr:`history` are that series' (the
        primary's for ``"all"`` and ``"any"``).
    abandoned : Mapping of str to str
        Series no longer waited for after missing too many runs in a row,
        with their last error.

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
    decisions: Mapping[str, Decision] = field(default_factory=dict, repr=False)
    histories: Mapping[str, tuple[Decision, ...]] = field(default_factory=dict, repr=False)
    series: pd.DataFrame = field(default_factory=lambda: series_frame([]), repr=False)
    stop_when: str = "all"
    abandoned: Mapping[str, str] = field(default_factory=dict, repr=False)

    @property
    def values(self) -> np.ndarray:
        """The values the rule judged: successful measurement runs in run order."""
        return judged_values(self.measurements)

    @property
    def series_names(self) -> tuple[str, ...]:
        """Every series of the run, the primary ``"value"`` first."""
        return (PRIMARY, *[n for n in self.decisions if n != PRIMARY])

    @property
    def capped(self) -> tuple[str, ...]:
        """The series that reached ``max_n`` before their rule stopped."""
        return tuple(n for n, d in self.decisions.items() if d.details.get("max_n_reached"))

    def series_values(self, name: str) -> np.ndarray:
        """The values of series ``name`` its rule judged, in run order.

        Parameters
        ----------
        name : str
            One of :attr:`series_names`; ``"value"`` is the primary value.

        Returns
        -------
        numpy.ndarray
            The series' successful values (float64, in its unit) of the
            successful measurement runs, warm-up runs left out; empty when
            there are none.

        Raises
        ------
        ValueError
            If ``name`` is not one of :attr:`series_names`.

        Examples
        --------
        >>> from perfstats.adapters import Command, run
        >>> result = run(Command(["true"]), "fixed", rule_options={"n": 3}, progress=False)
        >>> result.series_values("value").size, result.series_names
        (3, ('value',))
        """
        if name != PRIMARY and name not in set(self.series["series"]):
            known = ", ".join(map(repr, self.series_names))
            raise ValueError(f"no series {name!r} in this run; it has {known}")
        return series_values(self.measurements, self.series, name)

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
