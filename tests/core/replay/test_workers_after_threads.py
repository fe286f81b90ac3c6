"""Replay workers stay healthy when the parent already runs numba's thread pool.

GNU OpenMP is not fork-safe: a worker forked from a process whose pool has
started dies when it enters the pool (seen as BrokenProcessPool before the
fix). Replay's workers run their kernels serially, and give the same stops
as an in-process replay.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

_SCRIPT = """
import sys, numba, numpy as np, pandas as pd, perfstats
from perfstats.replay import replay
from perfstats.rules import Metior, SuperFlow
rng = np.random.default_rng(3)
x = rng.lognormal(size=400)
perfstats.percentile_ci(x, 0.5, method="bootstrap", n_resamples=20000, rng=1)
perfstats.percentile_ci(x, [0.25, 0.5, 0.75], method="block", rng=1)
print("layer", numba.threading_layer())             # the pool is running now
cold = pd.read_csv(sys.argv[1])
traces = {c: cold[c].to_numpy()[:300] for c in list(cold)[:8]}
for rule in (SuperFlow(method="bootstrap", rng=1), SuperFlow(method="block", rng=2), Metior(rng=3)):
    a = replay(rule, traces, workers=2, progress=False)
    b = replay(rule, traces, workers=1, progress=False)
    assert a.equals(b), (a, b)
    print(rule.name, a.stop_n.tolist())
"""


def test_forked_workers_after_the_thread_pool_started(perfstats_data: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(perfstats_data / "scope" / "cold.csv")],
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ, NUMBA_NUM_THREADS="2"),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "layer " in done.stdout and done.stdout.count("SuperFlow") == 2
