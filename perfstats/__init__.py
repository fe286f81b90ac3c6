"""perfstats: trustworthy performance measurements on noisy infrastructure.

Each subpackage answers one question; the names most used are also here, at
the top level (``perfstats.percentile_ci``, ``perfstats.Monitor``, ...).

============================================  ===================================
question                                      subpackage
============================================  ===================================
How precise is this number?                   :mod:`perfstats.precision`
What kind of data is this?                    :mod:`perfstats.characterization`
Did it change?                                :mod:`perfstats.comparison`
When can I stop repeating?                    :mod:`perfstats.rules`
How would a rule have done on traces?         :mod:`perfstats.replay`
Does the system feel a component's change?    :mod:`perfstats.system`
Did the suite regress (CI)?                   :mod:`perfstats.regression_gate`
How many runs, how far apart, at what cost?   :mod:`perfstats.planning`
What does it look like?                       :mod:`perfstats.plots`
============================================  ===================================

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

# public name -> module that defines it (relative to this package)
_EXPORTS: dict[str, str] = {
    # precision
    "Interval": "precision.interval",
    "percentile_ci": "precision.interval",
    "bootstrap_distribution": "precision.bootstrap",
    "BlockLength": "precision.blocklength",
    "optimal_block_length": "precision.blocklength",
    "acf": "precision.autocorrelation",
    "hdi": "precision.highest_density",
    # characterization
    "Characterization": "characterization.describe",
    "characterize": "characterization.describe",
    "steady_state_start": "characterization.describe",
    "Modes": "characterization.modes",
    "find_modes": "characterization.modes",
    "pelt": "characterization.segmentation",
    # comparison
    "Comparison": "comparison.measures",
    "compare": "comparison.measures",
    "KSResult": "comparison.similarity",
    "ks": "comparison.similarity",
    "namd": "comparison.similarity",
    "kl_similarity": "comparison.similarity",
    "CliffsDelta": "comparison.effects",
    "RankTest": "comparison.effects",
    "cliffs_delta": "comparison.effects",
    "wilcoxon_ranksum": "comparison.effects",
    "wilcoxon_signedrank": "comparison.effects",
    "RelativeChange": "comparison.change",
    "ChangeAgreement": "comparison.change",
    "relative_change": "comparison.change",
    "change_agreement": "comparison.change",
    "benjamini_hochberg": "comparison.multiple_testing",
    "ChangePoint": "comparison.history",
    "ChangePoints": "comparison.history",
    "change_points": "comparison.history",
    "history_change_points": "comparison.history",
    "ConsistencyCurve": "comparison.consistency",
    "PossibleChanges": "comparison.consistency",
    "RepetitionsNeeded": "comparison.consistency",
    "consistent_ci_curve": "comparison.consistency",
    "possible_changes": "comparison.consistency",
    "repetitions_needed": "comparison.consistency",
    # rules
    "Decision": "rules.decision",
    "Monitor": "rules.monitor",
    "MultiMonitor": "rules.monitor",
    # system
    "CallGraph": "system.callgraph",
    "LocalDeviation": "system.deviation",
    "local_deviation": "system.deviation",
    "Propagation": "system.propagation",
    "propagate": "system.propagation",
    "RegressionPrediction": "system.prediction",
    "predict_regression": "system.prediction",
    "SystemRegression": "system.pipeline",
    "detect_system_regression": "system.pipeline",
    "Calibration": "system.calibration",
    "calibrate": "system.calibration",
    # regression gate
    "BenchmarkVerdict": "regression_gate.verdicts",
    "GateResult": "regression_gate.verdicts",
    "gate": "regression_gate.verdicts",
    "parse_threshold": "regression_gate.verdicts",
    # planning
    "FaasCost": "planning.faas_cost",
    "FaasPrices": "planning.faas_cost",
    "faas_cost": "planning.faas_cost",
    "faas_prices": "planning.faas_cost",
    "Schedule": "planning.measurement_schedule",
    "TraceSchedule": "planning.measurement_schedule",
    "schedule": "planning.measurement_schedule",
}
# subpackages and modules reachable as attributes: name -> module path
_SUBMODULES: dict[str, str] = {
    "precision": "precision",
    "characterization": "characterization",
    "comparison": "comparison",
    "rules": "rules",
    "replay": "replay",
    "system": "system",
    "regression_gate": "regression_gate",
    "planning": "planning",
    "plots": "plots",
    # shorter names for modules inside the subpackages
    "scoring": "replay.scoring",
    "queueing": "system.queueing",
    "gate_report": "regression_gate.render",
}

# What the lazy names are, for type checkers. Every name of comparison and
# planning is a top-level name (their __all__ is the list); of the other
# subpackages, some are.
if TYPE_CHECKING:
    from . import (
        characterization,
        comparison,
        planning,
        plots,
        precision,
        regression_gate,
        replay,
        rules,
        system,
    )
    from .characterization.describe import Characterization, characterize, steady_state_start
    from .characterization.modes import Modes, find_modes
    from .characterization.segmentation import pelt
    from .comparison import *  # noqa: F403
    from .planning import *  # noqa: F403
    from .precision.autocorrelation import acf
    from .precision.blocklength import BlockLength, optimal_block_length
    from .precision.bootstrap import bootstrap_distribution
    from .precision.highest_density import hdi
    from .precision.interval import Interval, percentile_ci
    from .regression_gate import render as gate_report
    from .regression_gate.verdicts import BenchmarkVerdict, GateResult, gate, parse_threshold
    from .replay import scoring
    from .rules.decision import Decision
    from .rules.monitor import Monitor, MultiMonitor
    from .system import queueing
    from .system.calibration import Calibration, calibrate
    from .system.callgraph import CallGraph
    from .system.deviation import LocalDeviation, local_deviation
    from .system.pipeline import SystemRegression, detect_system_regression
    from .system.prediction import RegressionPrediction, predict_regression
    from .system.propagation import Propagation, propagate


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f".{_SUBMODULES[name]}", __name__)
    else:
        raise AttributeError(f"module 'perfstats' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS, *_SUBMODULES])


__all__ = [
    "BenchmarkVerdict",
    "BlockLength",
    "Calibration",
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
    "MultiMonitor",
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
    "calibrate",
    "change_agreement",
    "change_points",
    "characterization",
    "characterize",
    "cliffs_delta",
    "compare",
    "comparison",
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
    "planning",
    "plots",
    "possible_changes",
    "precision",
    "predict_regression",
    "propagate",
    "queueing",
    "regression_gate",
    "relative_change",
    "repetitions_needed",
    "replay",
    "rules",
    "schedule",
    "scoring",
    "steady_state_start",
    "system",
    "wilcoxon_ranksum",
    "wilcoxon_signedrank",
]
