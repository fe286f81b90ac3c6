"""Run real targets under a perfstats stopping rule and record every measurement.

This package lives in the repository folder ``adapters/`` and is installed as
:mod:`perfstats.adapters` (a top-level ``adapters`` would collide with an
existing package of that name). It depends on the pure core :mod:`perfstats`;
the core never imports it. All the project's I/O (processes, sockets,
files) lives here.

Targets produce :class:`Measurement` objects, one per ``invoke()``:

* :class:`Command`: a local process;
* :class:`Container`: podman or docker, a fresh container per run (cold)
  or ``exec`` into one (warm);
* :class:`SSH`: a machine reached over SSH, host keys verified;
* :class:`HttpFunction`: any HTTP-triggered function, with an optional
  cold-start hook;
* :class:`LambdaFunction`: AWS Lambda through boto3, reading the REPORT
  line (:func:`parse_report`).

:func:`run` drives a target under a stopping rule in run intervals,
optionally concurrently and spaced in time, appends every invocation to a
tidy CSV (:func:`read_record` reads it back) with a metadata JSON beside it,
and can resume an interrupted record. The ``perfstats`` command line
(:mod:`perfstats.adapters.cli`) wraps it: ``perfstats run``, ``replay``,
``compare``, ``report`` and ``ab``.

The layer is split into subpackages by concept, importing one way
(``cli`` -> ``report``/``ab``/``driver`` -> ``targets`` -> ``records`` ->
the core; see ARCHITECTURE.md): :mod:`~perfstats.adapters.targets`,
:mod:`~perfstats.adapters.driver`, :mod:`~perfstats.adapters.records`,
:mod:`~perfstats.adapters.ab`, :mod:`~perfstats.adapters.report` and
:mod:`~perfstats.adapters.cli`.

The regression gate on files, :func:`gate_files` (``perfstats gate``),
reads a baseline and a contender (records, directories of them, or other
tools' results) and judges them with :func:`perfstats.gate`.
:mod:`perfstats.adapters.io` reads other tools' results (:func:`io.read
<perfstats.adapters.records.importers.read>`, format sniffed) and writes
pyperf JSON or the Bencher Metric Format (``io.write``); the core does no
I/O, so this file-reading entry lives here.

A-B performance-change testing (duet and RMIT schedules, ElastiBench and
Liao et al.) lives in :mod:`perfstats.adapters.ab`: suites of benchmarks in
two versions, run in parallel calls, judged with the core's
:func:`perfstats.relative_change`, Wilcoxon rank-sum and Cliff's delta.

Examples
--------
>>> import sys
>>> from perfstats.adapters import Command, run
>>> result = run(Command([sys.executable, "-c", "pass"]), "fixed",
...              rule_options={"n": 3}, progress=False)
>>> result.measurements[["run", "status"]].to_dict("list")
{'run': [1, 2, 3], 'status': ['ok', 'ok', 'ok']}
"""

import importlib
import importlib.abc
import importlib.machinery
import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .ab.file_gate import gate_files
    from .driver import RunResult, TargetFailed, run
    from .records import Measurement, read_record
    from .records import importers as io
    from .targets import (
        SSH,
        Command,
        Container,
        GoogleBenchmark,
        GoTest,
        HttpFunction,
        LambdaFunction,
        LambdaReport,
        PyperfScript,
        Target,
        parse_report,
    )

# Loaded on first use: a pytest run loads this package for the plugin's
# entry point, and should not pay for the A-B analysis and the driver then.
_WHERE = {
    "gate_files": ".ab.file_gate",
    "RunResult": ".driver",
    "TargetFailed": ".driver",
    "run": ".driver",
    "Measurement": ".records",
    "read_record": ".records",
    "SSH": ".targets",
    "Command": ".targets",
    "Container": ".targets",
    "HttpFunction": ".targets",
    "LambdaFunction": ".targets",
    "LambdaReport": ".targets",
    "Target": ".targets",
    "parse_report": ".targets",
    "GoogleBenchmark": ".targets",
    "GoTest": ".targets",
    "PyperfScript": ".targets",
}
_IO = "records.importers"


def __getattr__(name: str) -> Any:
    if name == "io":
        return importlib.import_module(f"{__name__}.{_IO}")
    if name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


class _IoAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``import perfstats.adapters.io`` gives the importers, as ``os.path`` gives posixpath."""

    name = f"{__name__}.io"

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != self.name:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: Any) -> ModuleType:
        return importlib.import_module(f"{__name__}.{_IO}")

    def exec_module(self, module: ModuleType) -> None:
        # The importers' module is already executed; the alias adds nothing.
        return None


if not any(isinstance(f, _IoAlias) for f in sys.meta_path):
    sys.meta_path.append(_IoAlias())

__all__ = [
    "SSH",
    "Command",
    "Container",
    "GoTest",
    "GoogleBenchmark",
    "HttpFunction",
    "LambdaFunction",
    "LambdaReport",
    "Measurement",
    "PyperfScript",
    "RunResult",
    "Target",
    "TargetFailed",
    "gate_files",
    "io",
    "parse_report",
    "read_record",
    "run",
]
