"""The driver: invoke a target under a stopping rule, in run intervals, and record every run.

* :func:`run` (:mod:`~perfstats.adapters.driver.stop_loop`): the public
  entry point, ``perfstats.adapters.run``; :func:`build_rule` makes a rule
  from its name;
* :class:`Session` and :class:`Settings`
  (:mod:`~perfstats.adapters.driver.pacing`): intervals, concurrency and
  spacing of invocations;
* :class:`RunResult` (:mod:`~perfstats.adapters.driver.result`), what a run
  returns; :class:`TargetFailed` (:mod:`~perfstats.adapters.driver.failures`),
  what it raises when the target keeps failing; :func:`run_seed`
  (:mod:`~perfstats.adapters.driver.seeding`), the seed it is made with;
* :class:`AutoWarmup` (:mod:`~perfstats.adapters.driver.warmup`), the
  detected warm-up of ``warmup="auto"``; :func:`run_from_metadata`
  (:mod:`~perfstats.adapters.driver.rerun`), an experiment run again from
  its record's metadata; :mod:`~perfstats.adapters.driver.provenance`, the
  git commit of a target's directory;
* :func:`diagnose_cap` (:mod:`~perfstats.adapters.driver.cap`): why a run
  ended at its cap before its rule stopped, in the data's terms.

The package is named ``driver``, not ``run``, so that it does not shadow
the function :func:`perfstats.adapters.run`.
"""

from .cap import CapDiagnosis, diagnose_cap
from .failures import TargetFailed
from .pacing import Session, Settings
from .rerun import Experiment, experiment_from_metadata, run_from_metadata
from .result import STOPPED_BY, RunResult, judged_values
from .seeding import run_seed
from .stop_loop import build_rule, run
from .warmup import AutoWarmup

__all__ = [
    "STOPPED_BY",
    "AutoWarmup",
    "CapDiagnosis",
    "Experiment",
    "RunResult",
    "Session",
    "Settings",
    "TargetFailed",
    "build_rule",
    "diagnose_cap",
    "experiment_from_metadata",
    "judged_values",
    "run",
    "run_from_metadata",
    "run_seed",
]
