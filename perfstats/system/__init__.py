"""Does the system feel it? From a component benchmark to a system-level verdict (Liao et al.).

A component test that got slower matters only if the system feels it. The
pipeline judges the component, carries its change up the call graph to each
service's demand, and solves or simulates the architectural queueing model
of the system before and after.

The pipeline in one call
------------------------
- :func:`detect_system_regression`, :class:`SystemRegression`.

Its steps
---------
- :class:`CallGraph`: call graphs of a ``cProfile`` run or of spans.
- :func:`local_deviation`, :class:`LocalDeviation`: did the component change?
- :func:`propagate`, :class:`Propagation`: the change in each service's
  demand; :func:`propagate_per_class`, :class:`ClassPropagation`: the same
  with one system graph per request class.
- :func:`predict_regression`, :class:`RegressionPrediction`: the model's
  verdict for the system.

The model
---------
- :mod:`perfstats.system.queueing`: open and closed multi-class networks,
  solved (Erlang C, exact MVA) or simulated (ciw).
- :func:`calibrate`, :class:`Calibration` (:mod:`perfstats.system.calibration`):
  a model's demands, variability and slowdown from load tests.

References
----------
.. [Liao2025] L. Liao, S. Eismann, H. Li, C.-P. Bezemer, D. E. Costa,
   A. van Hoorn and W. Shang, "Early Detection of Performance Regressions by
   Bridging Local Performance Data and Architectural Models", ICSE, 2025.

Examples
--------
>>> from perfstats.system.queueing import OpenNetwork, Station
>>> net = OpenNetwork([Station("api", demands={"get": 0.01})], arrival_rates={"get": 50.0})
>>> round(net.solve().utilization["api"], 2)
0.5
"""

from __future__ import annotations

from . import queueing
from .calibration import Calibration, calibrate
from .callgraph import CallGraph
from .deviation import LocalDeviation, local_deviation
from .pipeline import SystemRegression, detect_system_regression
from .prediction import RegressionPrediction, predict_regression
from .propagation import ClassPropagation, Propagation, propagate, propagate_per_class

__all__ = [
    "Calibration",
    "CallGraph",
    "ClassPropagation",
    "LocalDeviation",
    "Propagation",
    "RegressionPrediction",
    "SystemRegression",
    "calibrate",
    "detect_system_regression",
    "local_deviation",
    "predict_regression",
    "propagate",
    "propagate_per_class",
    "queueing",
]
