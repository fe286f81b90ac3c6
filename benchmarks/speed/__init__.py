"""The speed suite: perfstats timed beside its anchors, and how its cost scales.

* ``python -m benchmarks.speed``: every case of ``cases_*.py`` beside its
  anchor (SciPy, arch, NumPy, the papers' reference code) under three load
  conditions (``suite.py``, timed by ``harness.py``);
* ``python -m benchmarks.speed.scaling``: time against ``np.sort`` as n and
  B grow, and peak memory (``scaling.py``).
"""
