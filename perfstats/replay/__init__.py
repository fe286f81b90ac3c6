"""Evaluate stopping rules on recorded traces: where would a rule have stopped, and how well?

Replaying
---------
- :func:`replay`: one rule over many traces and start offsets.
- :func:`sweep`: many rule configurations at once.
- :func:`replay_test`: one test (a trace and a start).
- :func:`judgement_grid`: the run counts at which a rule is asked.
- :func:`worker_pool`: the process pool replays use.
- :data:`COLUMNS`: the columns of the frame :func:`replay` returns.

Scoring (:mod:`perfstats.replay.scoring`)
-----------------------------------------
- ``accuracy``, ``credible``, ``relative_error``, ``cost``: the papers'
  metrics for one test.
- ``score_distribution``, ``score_estimate``, ``score_prefix``: the metrics
  applied to a replay's frame.

Examples
--------
>>> import numpy as np
>>> from perfstats.replay import replay
>>> from perfstats.rules import Fixed
>>> stops = replay(Fixed(n=20), {"t": np.arange(100.0)}, progress=False)
>>> int(stops.stop_n.iloc[0])
20
"""

from __future__ import annotations

from . import scoring
from .engine import COLUMNS, judgement_grid, replay, replay_test, sweep, worker_pool

__all__ = [
    "COLUMNS",
    "judgement_grid",
    "replay",
    "replay_test",
    "scoring",
    "sweep",
    "worker_pool",
]
