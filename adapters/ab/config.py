"""Read an A-B suite from a small TOML or YAML file.

A file looks like this (TOML; the same keys in YAML)::

    schedule = "duet"        # or "rmit"
    calls = 15               # calls per benchmark (duet) / trials (rmit)
    repeats = 3              # executions of each version per call
    concurrency = 16         # calls in flight
    level = 0.99             # optional: min_results, n_resamples, grouped, by_trial, seed

    [target]                 # kind "command", "http" or "targets"
    kind = "command"
    argv = ["{python}", "-I", "-S", "bench.py"]   # request on stdin, JSON out
    cwd = "."                # relative to this file
    unit = "ns"
    cpus = [1]               # optional: pin every call to these CPUs

    [[benchmarks]]
    name = "sort"
    params = {kernel = "sort", size = 5000}       # shared by both versions
    baseline = {units = 10}
    candidate = {units = 11}

``{python}`` in ``argv`` stands for the interpreter running perfstats. The
``http`` kind takes ``url``, ``timeout``, ``headers``, ``keep_alive``,
``unit`` and, to price the run, ``memory_mb`` and ``architecture``; the
``lambda`` kind takes ``name``, ``qualifier``, ``region``, ``endpoint_url``,
``profile``, ``timeout``, ``randomize`` and ``unit``; the ``targets`` kind
makes each version's table a perfstats target (``kind``, ``argv`` and its
options) and runs only the RMIT schedule.

A ``[function]`` table describes the Lambda function to deploy for the run
and remove afterwards (:mod:`perfstats.adapters.ab.lifecycle`)::

    [function]
    name = "perfstats-bench"
    role = "arn:aws:iam::123456789012:role/lambda-bench"
    package = "function/"    # a directory or .zip, relative to this file; or image_uri
    handler = "main.handler"
    runtime = "python3.12"
    memory_mb = 2048
    architecture = "arm64"
    timeout_s = 900
    region = "eu-west-1"     # optional: endpoint_url, profile

With it the target is the deployed version (kind ``lambda``, whose table
may then omit ``name`` and ``region``).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..records.files import parse_toml, read_text_file
from ..targets.registry import options_of
from .benchmark import Benchmark
from .lifecycle import FunctionSpec
from .per_version import TargetPerVersion
from .reporting_command import ReportingCommand
from .reporting_http import ReportingHttp
from .reporting_lambda import ReportingLambda
from .suite import Suite
from .suite_target import SuiteTarget

SETTINGS = (
    "schedule",
    "calls",
    "repeats",
    "concurrency",
    "level",
    "min_results",
    "n_resamples",
    "grouped",
    "by_trial",
)
TOP_KEYS = (*SETTINGS, "seed", "target", "benchmarks", "function")
# Where the function is, beside its FunctionSpec fields.
FUNCTION_PLACE = ("region", "endpoint_url", "profile")
BENCHMARK_KEYS = ("name", "params", "baseline", "candidate")
# The suite-target kinds; their keys are their constructors' (options_of).
SUITE_TARGETS: dict[str, type[SuiteTarget]] = {
    "command": ReportingCommand,
    "http": ReportingHttp,
    "targets": TargetPerVersion,
    "lambda": ReportingLambda,
}
PYTHON = "{python}"


def load_config(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The file at ``path`` (``.toml``, ``.yaml`` or ``.yml``) as plain data.

    Parameters
    ----------
    path : str or path
        The config file; its extension (any case) chooses the parser, and
        YAML needs PyYAML.

    Returns
    -------
    dict
        The file's top-level table, as parsed: nothing is checked beyond
        its being a table (:func:`suite_from_config` checks the keys).

    Raises
    ------
    ValueError
        When the file is missing, has another extension, does not parse, or
        is not a table at its top level.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from perfstats.adapters.ab import load_config
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "suite.toml"
    >>> _ = path.write_text('schedule = "duet"\\ncalls = 15\\n')
    >>> load_config(path)
    {'schedule': 'duet', 'calls': 15}
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in (".toml", ".yaml", ".yml"):
        raise ValueError(f"config {os.fspath(p)} must be a .toml, .yaml or .yml file")
    text = read_text_file(p, "config")
    data = parse_toml(text, p, "config") if suffix == ".toml" else _yaml(text, p)
    if not isinstance(data, dict):
        raise ValueError(f"config {os.fspath(p)} must be a table of settings")
    return data


def _yaml(text: str, path: Path) -> Any:
    try:
        yaml = importlib.import_module("yaml")
    except ImportError:
        raise ValueError("reading YAML needs PyYAML (pip install 'perfstats[adapters]')") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        flat = " ".join(str(exc).split())
        raise ValueError(f"config {os.fspath(path)} is not valid YAML: {flat}") from None


def _unknown(table: Mapping[str, Any], allowed: tuple[str, ...], where: str) -> None:
    extra = [k for k in table if k not in allowed]
    if extra:
        raise ValueError(f"{where}: unknown key {extra[0]!r}; allowed: {', '.join(allowed)}")


def _table(value: Any, where: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError(f"{where} must be a table; got {value!r}")
    return dict(value)


def _benchmarks(items: Any) -> list[Benchmark]:
    if not isinstance(items, list) or not items:
        raise ValueError("config: benchmarks must be a non-empty list of tables")
    out = []
    for i, item in enumerate(items, start=1):
        where = f"config: benchmark {i}"
        table = _table(item, where)
        _unknown(table, BENCHMARK_KEYS, where)
        if "name" not in table:
            raise ValueError(f"{where} needs a name")
        where = f"config: benchmark {table['name']!r}"
        for version in ("baseline", "candidate"):
            if version not in table:
                raise ValueError(f"{where} needs a {version} table (use {{}} for none)")
        shared = _table(table.get("params"), f"{where} params")
        out.append(
            Benchmark(
                table["name"],
                {**shared, **_table(table["baseline"], f"{where} baseline")},
                {**shared, **_table(table["candidate"], f"{where} candidate")},
            )
        )
    return out


def _target(table: dict[str, Any], benchmarks: list[Benchmark], base: Path) -> SuiteTarget:
    kind = table.pop("kind", "command")
    if kind not in SUITE_TARGETS:
        raise ValueError(
            f"config: target kind must be one of {', '.join(SUITE_TARGETS)}; got {kind!r}"
        )
    # Each version's targets come from the benchmarks' tables, not from here.
    allowed = ("label",) if kind == "targets" else options_of(SUITE_TARGETS[kind])
    _unknown(table, allowed, f"config: target ({kind})")
    if kind == "command":
        if "argv" not in table:
            raise ValueError("config: a command target needs argv")
        argv = table.pop("argv")
        if isinstance(argv, list):
            argv = [sys.executable if a == PYTHON else a for a in argv]
        cwd = table.pop("cwd", None)
        if isinstance(cwd, str) and not os.path.isabs(cwd):
            cwd = os.path.normpath(base / cwd)
        return ReportingCommand(argv, cwd=cwd, **table)
    if kind == "http":
        if "url" not in table:
            raise ValueError("config: an http target needs url")
        return ReportingHttp(table.pop("url"), **table)
    if kind == "lambda":
        if "name" not in table:
            raise ValueError("config: a lambda target needs name (or a [function] table)")
        return ReportingLambda(table.pop("name"), **table)
    return TargetPerVersion.from_specs(benchmarks)


def function_of(
    data: Mapping[str, Any], *, base: str | os.PathLike[str] = "."
) -> tuple[FunctionSpec, dict[str, Any]] | None:
    """The config's ``[function]`` table as a spec and where to deploy it; None without one.

    Examples
    --------
    >>> from perfstats.adapters.ab.config import function_of
    >>> spec, place = function_of({"function": {
    ...     "name": "b", "role": "arn:aws:iam::123456789012:role/r", "image_uri": "i:1",
    ...     "region": "eu-west-1"}})
    >>> spec.name, spec.architecture, place
    ('b', 'arm64', {'region': 'eu-west-1'})
    """
    if data.get("function") is None:
        return None
    table = _table(data["function"], "config: function")
    allowed = (*(f for f in FunctionSpec.__dataclass_fields__), *FUNCTION_PLACE)
    _unknown(table, allowed, "config: function")
    place = {k: table.pop(k) for k in FUNCTION_PLACE if k in table}
    pkg = table.get("package")
    if isinstance(pkg, str) and not os.path.isabs(pkg):
        table["package"] = os.path.normpath(Path(base) / pkg)
    for key in ("name", "role"):
        if key not in table:
            raise ValueError(f"config: the function table needs {key}")
    return FunctionSpec(**table), place


def suite_from_config(
    data: Mapping[str, Any], *, base: str | os.PathLike[str] = ".", **overrides: Any
) -> Suite:
    """Build the :class:`~perfstats.adapters.ab.suite.Suite` a config describes.

    Parameters
    ----------
    data : mapping
        The config (:func:`load_config`).
    base : path, default "."
        Folder that a relative ``cwd`` is relative to (the config's).
    **overrides
        Settings that replace the file's (``schedule``, ``calls``, ...);
        ``None`` values are ignored.

    Examples
    --------
    >>> from perfstats.adapters.ab.config import suite_from_config
    >>> cfg = {"schedule": "rmit", "target": {"argv": ["{python}", "bench.py"]},
    ...        "benchmarks": [{"name": "a", "baseline": {"n": 1}, "candidate": {"n": 2}}]}
    >>> suite = suite_from_config(cfg, calls=4)
    >>> suite.schedule, suite.calls, suite.benchmarks[0].candidate
    ('rmit', 4, {'n': 2})
    """
    _unknown(data, TOP_KEYS, "config")
    benchmarks = _benchmarks(data.get("benchmarks"))
    settings = {k: data[k] for k in SETTINGS if k in data}
    settings.update({k: v for k, v in overrides.items() if v is not None})
    unknown = [k for k in settings if k not in SETTINGS]
    if unknown:
        raise ValueError(f"unknown setting {unknown[0]!r}; settings: {', '.join(SETTINGS)}")
    if "target" not in data:
        raise ValueError("config needs a target table")
    target = _target(_table(data["target"], "config: target"), benchmarks, Path(base))
    try:
        return Suite(benchmarks, target, **settings)
    except BaseException:
        target.close()
        raise


def load_suite(path: str | os.PathLike[str], **overrides: Any) -> tuple[Suite, int | None]:
    """The suite in the file at ``path`` and its ``seed`` (None when unset).

    Parameters
    ----------
    path : str or path
        The config file (:func:`load_config`); a relative ``cwd`` of a
        command target is taken relative to the file's folder.
    **overrides
        Settings that replace the file's: ``schedule``, ``calls``,
        ``repeats``, ``concurrency``, ``level``, ``min_results``,
        ``n_resamples``, ``grouped`` or ``by_trial`` (as for
        :class:`~perfstats.adapters.ab.suite.Suite`); ``None`` values are
        ignored, and any other key (``seed`` included) is a
        :class:`ValueError`.

    Returns
    -------
    suite : Suite
        The benchmarks, the target and the settings the file describes,
        with the overrides applied.
    seed : int or None
        The file's ``seed`` for the run's random orders; None when the file
        has none.

    Raises
    ------
    ValueError
        When the file cannot be read (:func:`load_config`), its ``seed`` is
        not a non-negative integer, or it does not describe a valid suite.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from perfstats.adapters.ab import load_suite
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "suite.toml"
    >>> _ = path.write_text("\\n".join([
    ...     'schedule = "rmit"', "seed = 7",
    ...     "[target]", 'argv = ["{python}", "bench.py"]',
    ...     "[[benchmarks]]", 'name = "sort"', "baseline = {units = 10}",
    ...     "candidate = {units = 11}"]))
    >>> suite, seed = load_suite(path, calls=5)
    >>> suite.schedule, suite.calls, seed, suite.benchmarks[0].candidate
    ('rmit', 5, 7, {'units': 11})
    """
    data = load_config(path)
    seed = data.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ValueError(f"config: seed must be a non-negative integer; got {seed!r}")
    return suite_from_config(data, base=Path(path).resolve().parent, **overrides), seed
