"""perfstats: trustworthy performance measurements on noisy infrastructure.

Three questions, answered with the statistics the literature validated:

* How precise is this number? :func:`percentile_ci`,
  :func:`bootstrap_distribution`, :func:`optimal_block_length`.
* When can I stop repeating? :mod:`perfstats.rules`, :class:`Monitor`, and
  :mod:`perfstats.replay` with :mod:`perfstats.scoring` to evaluate rules on
  recorded traces.
* What kind of data is this? :func:`characterize` (modes, autocorrelation,
  change points, warm-up and steady state), :func:`steady_state_start`,
  :func:`pelt`, :func:`find_modes`, :func:`hdi`.
* Did it change? :func:`ks`, :func:`namd`, :func:`kl_similarity`,
  :func:`cliffs_delta`, :func:`wilcoxon_ranksum`,
  :func:`wilcoxon_signedrank`, :func:`relative_change`, :func:`compare`;
  for a suite in CI, :func:`gate` (regression, improvement, equivalent or
  inconclusive, with :func:`benjamini_hochberg` across benchmarks, rendered
  by :mod:`perfstats.gate_report`); over a history, :func:`change_points`.

The adapter layer that runs real targets is :mod:`perfstats.adapters`.

Names are imported on first use, so ``import perfstats`` stays cheap (SciPy's
statistics and pandas load only when a function that needs them is called).

Examples
--------
>>> import numpy as np
>>> import perfstats
>>> x = np.random.default_rng(0).lognormal(3.0, 0.4, size=300)
>>> iv = perfstats.percentile_ci(x, 0.5)
>>> iv.contains(iv.estimate)
True
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> submodule that defines it
_EXPORTS: dict[str, str] = {
    "Interval": "interval",
    "acf": "autocorrelation",
    "percentile_ci": "intervals",
    "bootstrap_distribution": "bootstrap",
    "BlockLength": "blocklength",
    "optimal_block_length": "blocklength",
    "Decision": "decision",
    "Monitor": "monitor",
    "KSResult": "similarity",
    "ks": "similarity",
    "namd": "similarity",
    "kl_similarity": "similarity",
    "CliffsDelta": "effects",
    "RankTest": "effects",
    "cliffs_delta": "effects",
    "wilcoxon_ranksum": "effects",
    "wilcoxon_signedrank": "effects",
    "RelativeChange": "change",
    "ChangeAgreement": "change",
    "relative_change": "change",
    "change_agreement": "change",
    "Comparison": "comparison",
    "compare": "comparison",
    "LocalDeviation": "deviation",
    "local_deviation": "deviation",
    "CallGraph": "callgraph",
    "Propagation": "propagation",
    "propagate": "propagation",
    "RegressionPrediction": "prediction",
    "predict_regression": "prediction",
    "SystemRegression": "system_regression",
    "detect_system_regression": "system_regression",
    "Modes": "modes",
    "find_modes": "modes",
    "hdi": "highest_density",
    "pelt": "segmentation",
    "Characterization": "characterization",
    "characterize": "characterization",
    "steady_state_start": "characterization",
    "benjamini_hochberg": "multiple",
    "ChangePoint": "changepoints",
    "ChangePoints": "changepoints",
    "change_points": "changepoints",
    "history_change_points": "changepoints",
    "BenchmarkVerdict": "regression_gate",
    "GateResult": "regression_gate",
    "gate": "regression_gate",
    "parse_threshold": "regression_gate",
    # The module is not named "schedule": importing it would then replace
    # the function perfstats.schedule with the module.
    "ConsistencyCurve": "consistency",
    "PossibleChanges": "consistency",
    "RepetitionsNeeded": "consistency",
    "consistent_ci_curve": "consistency",
    "possible_changes": "consistency",
    "repetitions_needed": "consistency",
    "FaasCost": "cost",
    "FaasPrices": "cost",
    "faas_cost": "cost",
    "faas_prices": "cost",
    "Schedule": "measurement_schedule",
    "TraceSchedule": "measurement_schedule",
    "schedule": "measurement_schedule",
}
_SUBMODULES = ("rules", "replay", "scoring", "plots", "queueing", "gate_report")

if TYPE_CHECKING:
    from . import gate_report, plots, queueing, replay, rules, scoring
    from .autocorrelation import acf
    from .blocklength import BlockLength, optimal_block_length
    from .bootstrap import bootstrap_distribution
    from .callgraph import CallGraph
    from .change import ChangeAgreement, RelativeChange, change_agreement, relative_change
    from .changepoints import ChangePoint, ChangePoints, change_points, history_change_points
    from .characterization import Characterization, characterize, steady_state_start
    from .comparison import Comparison, compare
    from .consistency import (
        ConsistencyCurve,
        PossibleChanges,
        RepetitionsNeeded,
        consistent_ci_curve,
        possible_changes,
        repetitions_needed,
    )
    from .cost import FaasCost, FaasPrices, faas_cost, faas_prices
    from .decision import Decision
    from .deviation import LocalDeviation, local_deviation
    from .effects import (
        CliffsDelta,
        RankTest,
        cliffs_delta,
        wilcoxon_ranksum,
        wilcoxon_signedrank,
    )
    from .highest_density import hdi
    from .interval import Interval
    from .intervals import percentile_ci
    from .measurement_schedule import Schedule, TraceSchedule, schedule
    from .modes import Modes, find_modes
    from .monitor import Monitor
    from .multiple import benjamini_hochberg
    from .prediction import RegressionPrediction, predict_regression
    from .propagation import Propagation, propagate
    from .regression_gate import BenchmarkVerdict, GateResult, gate, parse_threshold
    from .segmentation import pelt
    from .similarity import KSResult, kl_similarity, ks, namd
    from .system_regression import SystemRegression, detect_system_regression


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module 'perfstats' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS, *_SUBMODULES])


__all__ = [
    "BenchmarkVerdict",
    "BlockLength",
    "CallGraph",
    "ChangeAgreement",
    "ChangePoint",
    "ChangePoints",
    "Characterization",
    "CliffsDelta",
    "Comparison",
    "ConsistencyCurve",
    "Decision",
    "FaasCost",
    "FaasPrices",
    "GateResult",
    "Interval",
    "KSResult",
    "LocalDeviation",
    "Modes",
    "Monitor",
    "PossibleChanges",
    "Propagation",
    "RankTest",
    "RegressionPrediction",
    "RelativeChange",
    "RepetitionsNeeded",
    "Schedule",
    "SystemRegression",
    "TraceSchedule",
    "__version__",
    "acf",
    "benjamini_hochberg",
    "bootstrap_distribution",
    "change_agreement",
    "change_points",
    "characterize",
    "cliffs_delta",
    "compare",
    "consistent_ci_curve",
    "detect_system_regression",
    "faas_cost",
    "faas_prices",
    "find_modes",
    "gate",
    "gate_report",
    "hdi",
    "history_change_points",
    "kl_similarity",
    "ks",
    "local_deviation",
    "namd",
    "optimal_block_length",
    "parse_threshold",
    "pelt",
    "percentile_ci",
    "plots",
    "possible_changes",
    "predict_regression",
    "propagate",
    "queueing",
    "relative_change",
    "repetitions_needed",
    "replay",
    "rules",
    "schedule",
    "scoring",
    "steady_state_start",
    "wilcoxon_ranksum",
    "wilcoxon_signedrank",
]
