"""Same seed, same numbers, whatever the number of numba threads."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np

import perfstats

_SCRIPT = """
import json, numpy as np, perfstats
x = np.random.default_rng(0).lognormal(3, 1, 6000)  # large enough for the parallel kernel
out = {}
for method in ("bootstrap", "block"):
    ivs = perfstats.percentile_ci(x, [0.25, 0.5, 0.75], method=method, rng=123)
    out[method] = [[iv.low, iv.high] for iv in ivs]
out["dist"] = perfstats.bootstrap_distribution(
    x, "mean", n_resamples=800, block_length=9, block_kind="stationary", rng=5).tolist()
print(json.dumps(out))
"""


def _run(threads: int) -> dict[str, object]:
    env = dict(os.environ, NUMBA_NUM_THREADS=str(threads))
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, check=True
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_results_do_not_depend_on_thread_count() -> None:
    assert _run(1) == _run(2)


def test_seed_forms() -> None:
    x = np.random.default_rng(1).normal(size=300)
    a = perfstats.percentile_ci(x, 0.5, method="bootstrap", rng=7)
    b = perfstats.percentile_ci(x, 0.5, method="bootstrap", rng=np.random.default_rng(7))
    c = perfstats.percentile_ci(x, 0.5, method="bootstrap", rng=8)
    assert (a.low, a.high) == (b.low, b.high)
    assert (a.low, a.high) != (c.low, c.high)
    # None draws fresh entropy: runs differ (with overwhelming probability)
    d = [perfstats.bootstrap_distribution(x, "mean", n_resamples=50) for _ in range(2)]
    assert not np.array_equal(d[0], d[1])
