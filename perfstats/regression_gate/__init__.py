"""The CI gate: a verdict per benchmark of a suite, and its renderings for CI.

Verdicts
--------
- :func:`gate`, :class:`GateResult`, :class:`BenchmarkVerdict`: regression,
  improvement, equivalent or inconclusive per benchmark, with the
  Benjamini-Hochberg correction across the suite.
- :func:`parse_threshold`: ``"5%"`` and friends.
- :data:`VERDICTS`: the verdict names.

Renderings (:mod:`perfstats.regression_gate.render`)
----------------------------------------------------
- :func:`gate_table`, :func:`gate_markdown`, :func:`gate_junit`.

The package is not called ``gate``: that name is the function
:func:`perfstats.gate`.

Examples
--------
>>> import numpy as np
>>> from perfstats.regression_gate import gate
>>> rng = np.random.default_rng(0)
>>> base = {"parse": rng.normal(10.0, 0.1, 50)}
>>> new = {"parse": rng.normal(12.0, 0.1, 50)}
>>> gate(base, new, rng=1).benchmarks[0].verdict
'regression'
"""

from __future__ import annotations

from .render import gate_junit, gate_markdown, gate_table
from .verdicts import VERDICTS, BenchmarkVerdict, GateResult, gate, parse_threshold

__all__ = [
    "VERDICTS",
    "BenchmarkVerdict",
    "GateResult",
    "gate",
    "gate_junit",
    "gate_markdown",
    "gate_table",
    "parse_threshold",
]
