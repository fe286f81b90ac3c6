"""A-B performance-change testing on real targets: one import for the whole workflow.

A suite of benchmarks, each in two versions, is run on a target under a
schedule, recorded execution by execution, and judged benchmark by
benchmark:

* schedules (:mod:`~perfstats.adapters.ab.interleaving`): **duet**, both
  versions in the same call so they share the instance's performance state
  (ElastiBench, Schirmer et al. 2024), and **RMIT**, randomized multiple
  interleaved trials; ElastiBench's 3 repeats x 15 calls and 150 calls in
  flight are the defaults;
* targets: :class:`ReportingCommand` and :class:`ReportingHttp` run a
  call's executions and report every timing
  (:mod:`~perfstats.adapters.ab.protocol`); :class:`TargetPerVersion` uses
  any perfstats target per version (RMIT only);
* :func:`run_suite` runs the calls concurrently and writes the record
  (:mod:`~perfstats.adapters.ab.persistence`);
* :func:`analyse` gives each benchmark the 99% bootstrap CI of the relative
  median change (paired for duet) and its verdict, with the Wilcoxon
  rank-sum test and Cliff's delta of Liao et al. (2025);
  :func:`suite_agreement` scores two runs with ElastiBench's agreement and
  coverage;
* :func:`analyse_record` judges a record again and :func:`verdict_rows`
  is the one verdict table (:mod:`~perfstats.adapters.ab.verdicts`) that
  ``perfstats ab`` and the HTML report show;
* :func:`load_suite` reads a suite from TOML or YAML; ``perfstats ab`` is
  the command line;
* :func:`gate_files` is the regression gate (:func:`perfstats.gate`) on a
  baseline and a contender read from files (records, directories of them,
  other tools' results: :func:`read_results`; histories of commits:
  :func:`read_history`); ``perfstats gate`` is its command line.
* on AWS Lambda, :func:`deploy`, :func:`teardown` and :func:`deployed`
  manage the benchmark function's life (:mod:`~perfstats.adapters.ab.lifecycle`),
  :class:`ReportingLambda` calls it and :func:`run_deployed` does all three
  in one run that always tears down.

Examples
--------
>>> import sys
>>> from perfstats.adapters.ab import Benchmark, ReportingCommand, Suite, run_suite
>>> bench = ("import json,sys; r=json.load(sys.stdin); print(json.dumps({'results': "
...          "[{'version': v, 'repeat': k, 'value': 100.0 * (1.5 if v == 'candidate' "
...          "else 1.0) + k} for v, k in r['executions']]}))")
>>> suite = Suite([Benchmark("k")], ReportingCommand([sys.executable, "-c", bench]),
...               calls=5, repeats=3, concurrency=5)
>>> run_suite(suite, rng=1).analyse().verdict("k").verdict
'slower'

References
----------
.. [Schirmer2024] Schirmer et al., "ElastiBench: Scalable Continuous Benchmarking on Cloud
   FaaS Platforms", IC2E 2024: the suites, schedules and verdicts; full entry in
   :mod:`perfstats.comparison.change`.
.. [Liao2025] Liao et al., "Early Detection of Performance Regressions by Bridging Local
   Performance Data and Architectural Models", ICSE 2025: the rank test and effect size
   beside each verdict; full entry in :mod:`perfstats.system.propagation`.
"""

from .analysis import BenchmarkVerdict, SuiteAnalysis, analyse, suite_agreement
from .benchmark import Benchmark
from .config import function_of, load_config, load_suite, suite_from_config
from .deployed_run import run_deployed
from .file_gate import gate_files, read_overrides
from .inputs import read_history, read_results
from .interleaving import Call, Execution, duet_plan, plan_suite, rmit_plan
from .lifecycle import (
    Deployment,
    FunctionSpec,
    LambdaAccess,
    LifecycleError,
    deploy,
    deployed,
    teardown,
)
from .per_version import TargetPerVersion
from .persistence import AB, read_ab_metadata, read_ab_record, rows_of
from .reporting_command import ReportingCommand
from .reporting_http import ReportingHttp
from .reporting_lambda import ReportingLambda
from .runner import SuiteRun, run_suite
from .suite import Suite
from .suite_target import SuiteTarget
from .verdicts import VERDICT_COLUMNS, analyse_record, verdict_rows

__all__ = [
    "AB",
    "VERDICT_COLUMNS",
    "Benchmark",
    "BenchmarkVerdict",
    "Call",
    "Deployment",
    "Execution",
    "FunctionSpec",
    "LambdaAccess",
    "LifecycleError",
    "ReportingCommand",
    "ReportingHttp",
    "ReportingLambda",
    "Suite",
    "SuiteAnalysis",
    "SuiteRun",
    "SuiteTarget",
    "TargetPerVersion",
    "analyse",
    "analyse_record",
    "deploy",
    "deployed",
    "duet_plan",
    "function_of",
    "gate_files",
    "load_config",
    "load_suite",
    "plan_suite",
    "read_ab_metadata",
    "read_ab_record",
    "read_history",
    "read_overrides",
    "read_results",
    "rmit_plan",
    "rows_of",
    "run_deployed",
    "run_suite",
    "suite_agreement",
    "suite_from_config",
    "teardown",
    "verdict_rows",
]
