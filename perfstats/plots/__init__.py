"""Pictures of perfstats results (matplotlib, optional: ``pip install perfstats[plots]``).

Every function returns a :class:`matplotlib.figure.Figure`, or draws on the
``ax`` it is given and returns that Axes' figure; nothing is shown or saved
(saving is the caller's business, e.g. ``fig.savefig("x.png")``). matplotlib
is imported only when a plot is drawn, so ``import perfstats`` never loads it.

* A sample: :func:`histogram` and :func:`ecdf` with percentile intervals,
  modes marked (:func:`find_modes`).
* A stopping rule: :func:`trajectory` of its criterion against n, with the
  threshold and the stop point (:func:`criterion`, :func:`judgements`).
* A change: :func:`change_distribution` (the bootstrap distribution of a
  relative change with its CI) and :func:`change_table` for an A-B suite.
* Techniques: :func:`accuracy_cost`, one point per stopping rule.
* A series: :func:`run_series`, values by run with the warm-up and change
  points of :func:`perfstats.characterize` and its summary.

Examples
--------
Two views of one sample side by side, drawn on axes the caller owns:

>>> import numpy as np
>>> from matplotlib.figure import Figure
>>> from perfstats import plots
>>> fig = Figure()
>>> left, right = fig.subplots(1, 2)
>>> x = np.random.default_rng(0).lognormal(3.0, 0.3, size=400)
>>> plots.histogram(x, unit="ms", ax=left) is plots.ecdf(x, unit="ms", ax=right) is fig
True
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    "histogram": "distribution",
    "ecdf": "distribution",
    # the mode finder the plots mark lives in perfstats.characterization
    "Modes": ".characterization.modes",
    "find_modes": ".characterization.modes",
    "Criterion": "stop_trajectory",
    "criterion": "stop_trajectory",
    "judgements": "stop_trajectory",
    "trajectory": "stop_trajectory",
    "change_distribution": "replicates",
    "change_replicates": "replicates",
    "change_frame": "suite_changes",
    "change_table": "suite_changes",
    "accuracy_cost": "tradeoff",
    "run_series": "timeseries",
    "history": "commit_steps",
}

if TYPE_CHECKING:
    from ..characterization.modes import Modes, find_modes
    from .commit_steps import history
    from .distribution import ecdf, histogram
    from .replicates import change_distribution, change_replicates
    from .stop_trajectory import Criterion, criterion, judgements, trajectory
    from .suite_changes import change_frame, change_table
    from .timeseries import run_series
    from .tradeoff import accuracy_cost


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'perfstats.plots' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


__all__ = [
    "Criterion",
    "Modes",
    "accuracy_cost",
    "change_distribution",
    "change_frame",
    "change_replicates",
    "change_table",
    "criterion",
    "ecdf",
    "find_modes",
    "histogram",
    "history",
    "judgements",
    "run_series",
    "trajectory",
]
