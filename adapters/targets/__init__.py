"""The targets: things the driver invokes and measures, one module per kind.

* :class:`Target` and :class:`Resource` (:mod:`~perfstats.adapters.targets.base`):
  the base every target and A-B suite target shares;
* :class:`Command`, :class:`Container`, :class:`SSH`, :class:`HttpFunction`,
  :class:`LambdaFunction` (``command``, ``container``, ``ssh``, ``http``,
  ``awslambda``), and the built-in workload (:func:`builtin_target`);
* benchmarking tools' own suites, one series per benchmark
  (:class:`~perfstats.adapters.targets.benchmark_suite.BenchmarkSuite`):
  :class:`GoogleBenchmark` (``gbench``), :class:`GoTest` (``gotest``),
  :class:`PyperfScript` (``pyperf``), :class:`Criterion` (``criterion``);
* :data:`TARGETS` and :func:`target_by_name`
  (:mod:`~perfstats.adapters.targets.registry`): the one registry of target
  kinds, used by ``perfstats run`` and A-B suites alike;
* the pieces targets share: argument checks
  (:mod:`~perfstats.adapters.targets.arguments`), child processes
  (:class:`ProcessRunner`), timed HTTP requests (:class:`HttpClient`), how
  a value is read (:class:`ValueReader`) and Lambda's REPORT line
  (:func:`parse_report`).

Each target validates its arguments when it is built; the driver trusts it.
"""

from .awslambda import LambdaFunction
from .base import Resource, Target
from .builtin import builtin_target
from .command import Command
from .connections import HttpClient, Response
from .container import Container
from .criterion import Criterion
from .gbench import GoogleBenchmark
from .gotest import GoTest
from .http import HttpFunction
from .lambda_report import LambdaReport, find_report, parse_report
from .processes import Outcome, ProcessRunner
from .program import LocalProgram
from .pyperf_worker import PyperfScript
from .registry import TARGETS, target_by_name
from .ssh import SSH
from .values import WALL_UNIT, ValueReader

__all__ = [
    "SSH",
    "TARGETS",
    "WALL_UNIT",
    "Command",
    "Container",
    "Criterion",
    "GoTest",
    "GoogleBenchmark",
    "HttpClient",
    "HttpFunction",
    "LambdaFunction",
    "LambdaReport",
    "LocalProgram",
    "Outcome",
    "ProcessRunner",
    "PyperfScript",
    "Resource",
    "Response",
    "Target",
    "ValueReader",
    "builtin_target",
    "find_report",
    "parse_report",
    "target_by_name",
]
