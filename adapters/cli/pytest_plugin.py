"""The pytest plugin: benchmarks in a test suite that run until a perfstats rule says stop.

Installed with perfstats (the ``pytest11`` entry point ``perfstats``) and
off unless pytest runs with ``--perfstats``: without it the plugin only
adds its options, and the ``perfstats_benchmark`` fixture calls the
function once and returns its result, so a benchmark still runs as a
plain test and nothing else in the suite changes. ``-p no:perfstats``
removes the plugin altogether.

With ``--perfstats``:

* ``perfstats_benchmark(fn, *args, **kwargs)`` calls ``fn`` until the rule
  stops (``--perfstats-rule``, default ``superflow``, with
  ``--perfstats-rule-option KEY=VALUE``) or ``--perfstats-max-time``
  seconds have passed, each call timed with ``perf_counter_ns``
  (:mod:`~perfstats.adapters.cli.pytest_calls`), and returns the last
  call's result;
* ``--perfstats-warmup N`` makes the first N calls of each benchmark
  warm-up (timed and recorded, never judged; default none), ``auto`` the
  warm-up found in the times as they arrive (``perfstats run --warmup
  auto``'s policy, at most ``--perfstats-max-warmup`` calls);
* ``--perfstats-record DIR`` writes one perfstats record per test (named
  by the test's node id), which ``perfstats gate BASE_DIR NEW_DIR`` and
  ``perfstats report`` read;
* a table at the end of the session gives each test's median, its CI, the
  number of calls and why the loop stopped;
* ``--perfstats-benchmark-json FILE`` exports pytest-benchmark's JSON
  (:mod:`~perfstats.adapters.cli.pytest_benchmark_json`).

Under pytest-xdist each worker times its own tests; the controller gathers
their results (through xdist's ``workeroutput``) for the table and the
JSON. The fixture and the options do not clash with pytest-benchmark's
(``benchmark``, ``--benchmark-*``).

A function that raises fails its test with its own error; its record keeps
the calls before it and the failed call (status ``error``), and its
metadata says ``outcome: failed``. Ctrl-C keeps what was recorded so far.
A bad rule name or option is a usage error naming it.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from perfstats.rules import Rule

    from .pytest_calls import CallsResult

#: The name the session object is registered under (``config.pluginmanager``).
SESSION_PLUGIN = "perfstats-session"
DEFAULT_RULE = "superflow"
DEFAULT_MAX_TIME = 60.0
#: No warm-up unless asked for: every call is judged, as with ``perfstats run``.
DEFAULT_WARMUP = 0
_WORKER_KEY = "perfstats_results"


def _warmup(text: str) -> int | str:
    """``--perfstats-warmup``: a count of calls >= 0, or ``auto``."""
    from ..driver.warmup import AUTO

    if text.strip().lower() == AUTO:
        return AUTO
    try:
        count = int(text)
    except ValueError:
        count = -1
    if count < 0:
        raise argparse.ArgumentTypeError(f"expected a number of calls >= 0 or 'auto'; got {text!r}")
    return count


# The options besides --perfstats (flag, addoption's keywords). Their default
# is "not given": given without --perfstats they would silently measure nothing.
_OPTIONS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("--perfstats-rule", {
        "metavar": "NAME", "default": None,
        "help": f"stopping rule, a name of perfstats.rules.RULES (default: {DEFAULT_RULE})"}),
    ("--perfstats-rule-option", {
        "metavar": "KEY=VALUE", "action": "append", "default": [],
        "help": "an option of the rule, e.g. error=0.02 (repeatable)"}),
    ("--perfstats-max-time", {
        "metavar": "SECONDS", "type": float, "default": None,
        "help": f"start no call of a benchmark after this many seconds, warm-up included "
        f"(default: {DEFAULT_MAX_TIME:g})"}),
    ("--perfstats-warmup", {
        "metavar": "N|auto", "type": _warmup, "default": None,
        "help": f"calls timed and recorded first but not judged; 'auto': the warm-up found "
        f"in the times by perfstats.characterize, re-checked every 10 calls (default: "
        f"{DEFAULT_WARMUP})"}),
    ("--perfstats-max-warmup", {
        "metavar": "N", "type": int, "default": None,
        "help": "with --perfstats-warmup auto: at most N calls of warm-up (default 200)"}),
    ("--perfstats-record", {
        "metavar": "DIR", "default": None,
        "help": "write one perfstats record per benchmark into DIR (new or empty), for "
        "perfstats gate and perfstats report"}),
    ("--perfstats-benchmark-json", {
        "metavar": "FILE", "default": None,
        "help": "also write the results in pytest-benchmark's JSON (needs pytest-benchmark)"}),
    ("--perfstats-seed", {
        "metavar": "N", "type": int, "default": None,
        "help": "seed of randomised rules (recorded; default: fresh)"}),
)  # fmt: skip


def _dest(flag: str) -> str:
    return flag.lstrip("-").replace("-", "_")


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add the ``--perfstats*`` options."""
    group = parser.getgroup("perfstats", "perfstats: benchmarks that stop when a rule says so")
    group.addoption(
        "--perfstats", action="store_true", default=False,
        help="time perfstats_benchmark calls until the stopping rule says stop (off: each "
        "benchmark calls its function once)",
    )  # fmt: skip
    for flag, keywords in _OPTIONS:
        group.addoption(flag, **keywords)


def pytest_configure(config: pytest.Config) -> None:
    """Check the options and start a session when ``--perfstats`` is given."""
    if not config.getoption("perfstats", default=False):
        given = [flag for flag, keywords in _OPTIONS
                 if config.getoption(_dest(flag), default=keywords["default"])
                 != keywords["default"]]  # fmt: skip
        if given:
            raise pytest.UsageError(
                f"{given[0]} is given without --perfstats, so nothing would be measured; "
                "add --perfstats"
            )
        return
    settings = _Settings.from_config(config)
    config.pluginmanager.register(_Session(config, settings), SESSION_PLUGIN)


@dataclass(frozen=True)
class _Settings:
    """The checked options of a session."""

    rule: str
    rule_options: dict[str, Any]
    max_time: float
    warmup: int | str
    max_warmup: int | None
    record: Path | None
    benchmark_json: Path | None
    seed: int

    @classmethod
    def from_config(cls, config: pytest.Config) -> _Settings:
        from ..driver.seeding import run_seed
        from ..driver.stop_loop import build_rule
        from .options import parse_options
        from .pytest_calls import check_warmup

        rule = config.getoption("perfstats_rule") or DEFAULT_RULE
        try:
            options = parse_options(config.getoption("perfstats_rule_option"),
                                    "--perfstats-rule-option")  # fmt: skip
        except ValueError as exc:
            raise pytest.UsageError(str(exc)) from None
        try:
            seed = run_seed(config.getoption("perfstats_seed"))
        except ValueError as exc:
            raise pytest.UsageError(f"--perfstats-seed: {exc}") from None
        try:
            build_rule(rule, options, seed)
        except ValueError as exc:
            flag = "--perfstats-rule-option" if options and rule.lower() in _rule_names() else (
                "--perfstats-rule")  # fmt: skip
            raise pytest.UsageError(f"{flag}: {exc}") from None
        max_time = config.getoption("perfstats_max_time")
        max_time = DEFAULT_MAX_TIME if max_time is None else max_time
        if not (math.isfinite(max_time) and max_time > 0):
            raise pytest.UsageError(
                f"--perfstats-max-time must be a finite number of seconds > 0; got {max_time!r}"
            )
        warmup = config.getoption("perfstats_warmup")
        warmup = DEFAULT_WARMUP if warmup is None else warmup
        max_warmup = config.getoption("perfstats_max_warmup")
        try:
            check_warmup(warmup, max_warmup)
        except ValueError as exc:
            raise pytest.UsageError(f"--perfstats-max-warmup {max_warmup}: {exc}") from None
        record = _record_dir(config)
        benchmark_json = config.getoption("perfstats_benchmark_json")
        if benchmark_json is not None:
            from .pytest_benchmark_json import needs_pytest_benchmark

            problem = needs_pytest_benchmark()
            if problem is not None:
                raise pytest.UsageError(problem)
            folder = Path(benchmark_json).resolve().parent
            if not folder.is_dir():
                raise pytest.UsageError(
                    f"--perfstats-benchmark-json {benchmark_json}: folder {folder} does not exist"
                )
        return cls(rule, options, max_time, warmup, max_warmup, record,
                   None if benchmark_json is None else Path(benchmark_json), seed)  # fmt: skip

    def new_rule(self) -> Rule:
        """A fresh rule for one test (a rule keeps state between its checks)."""
        from ..driver.stop_loop import build_rule

        return build_rule(self.rule, self.rule_options, self.seed)


def _rule_names() -> set[str]:
    from perfstats.rules import RULES

    return set(RULES)


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _record_dir(config: pytest.Config) -> Path | None:
    given = config.getoption("perfstats_record")
    if given is None:
        return None
    folder = Path(given)
    if folder.exists() and not folder.is_dir():
        raise pytest.UsageError(f"--perfstats-record {given} is a file, not a directory")
    # The controller checks before any worker writes; a worker sees the
    # records of its peers and must not refuse them.
    if not _is_worker(config) and folder.is_dir():
        held = sorted(p.name for p in folder.glob("*.csv"))
        if held:
            raise pytest.UsageError(
                f"--perfstats-record {given} already holds records ({held[0]}, ...); give a "
                "new or empty directory, so that no measurement is overwritten"
            )
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise pytest.UsageError(
            f"--perfstats-record {given}: cannot create it ({exc.strerror})"
        ) from None
    return folder


def record_name(nodeid: str) -> str:
    """The file name of a test's record: its node id made safe, and a checksum of it.

    The checksum keeps apart two node ids that read alike once made safe.

    Examples
    --------
    >>> from perfstats.adapters.cli.pytest_plugin import record_name
    >>> record_name("tests/test_x.py::test_sort[100]")
    'tests_test_x.py_test_sort_100-edc13c9a.csv'
    """
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", nodeid).strip("._")[:120] or "test"
    return f"{safe}-{zlib.crc32(nodeid.encode('utf-8')):08x}.csv"


def _plain_param(value: Any) -> Any:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


class _Session:
    """One pytest session with ``--perfstats``: settings, results, summary and export."""

    def __init__(self, config: pytest.Config, settings: _Settings) -> None:
        from ..records.machine import machine_info, software_info

        self.config = config
        self.settings = settings
        self.results: list[CallsResult] = []
        self.session_metadata = {
            "seed": settings.seed,
            "session": {
                "machine": machine_info(),
                "software": software_info(),
                "settings": {
                    "max_time": settings.max_time,
                    "rule": settings.rule,
                    "warmup": settings.warmup,
                    "max_warmup": settings.max_warmup,
                },
            },
        }

    def measure(
        self, node: pytest.Item, fn: Callable[..., Any], args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> Any:  # fmt: skip
        """Time ``fn`` for the test ``node``; the last call's result."""
        from .pytest_calls import time_calls

        callspec = getattr(node, "callspec", None)
        extra: dict[str, Any] = {
            "test": node.name,
            "function": getattr(fn, "__qualname__", repr(fn)),
            "params": None if callspec is None else
            {k: _plain_param(v) for k, v in callspec.params.items()},
            "param": None if callspec is None else callspec.id,
            # Under pytest-xdist, the worker that timed the test.
            "worker": os.environ.get("PYTEST_XDIST_WORKER"),
        }  # fmt: skip
        record = None
        if self.settings.record is not None:
            record = self.settings.record / record_name(node.nodeid)
        value, _ = time_calls(
            fn, args, kwargs,
            rule=self.settings.new_rule(),
            name=node.nodeid,
            max_seconds=self.settings.max_time,
            warmup=self.settings.warmup,
            max_warmup=self.settings.max_warmup,
            record=record,
            metadata=self.session_metadata,
            extra=extra,
            on_result=self.results.append,
        )  # fmt: skip
        return value

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        """Gather the results of an xdist worker (it sends them as it finishes)."""
        from .pytest_calls import CallsResult

        output = getattr(node, "workeroutput", None) or {}
        for item in json.loads(output.get(_WORKER_KEY, "[]")):
            self.results.append(CallsResult.from_dict(item))

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Send a worker's results to the controller; write the JSON export."""
        if _is_worker(self.config):
            payload = json.dumps([r.to_dict() for r in self.results])
            self.config.workeroutput[_WORKER_KEY] = payload  # type: ignore[attr-defined]
            return
        if self.settings.benchmark_json is not None:
            from .pytest_benchmark_json import write_pytest_benchmark

            write_pytest_benchmark(self.settings.benchmark_json, self.ordered())

    def ordered(self) -> list[CallsResult]:
        """The results in test order (by node id: xdist's workers finish in any order)."""
        return sorted(self.results, key=lambda r: r.name)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """The table of every benchmark: median, its CI, calls, why it stopped."""
        if _is_worker(self.config):
            return
        terminalreporter.write_sep("=", "perfstats benchmarks")
        for line in summary_lines(self.ordered(), self.settings.rule):
            terminalreporter.write_line(line)
        if self.settings.record is not None:
            terminalreporter.write_line(f"records: {os.fspath(self.settings.record)}")
        if self.settings.benchmark_json is not None:
            terminalreporter.write_line(
                f"pytest-benchmark JSON: {os.fspath(self.settings.benchmark_json)}"
            )


def summary_lines(results: list[CallsResult], rule: str) -> list[str]:
    """The summary table's lines (one row per benchmark) under a one-line heading.

    Examples
    --------
    >>> from perfstats.adapters.cli.pytest_calls import time_calls
    >>> from perfstats.adapters.cli.pytest_plugin import summary_lines
    >>> from perfstats.rules import Fixed
    >>> _, result = time_calls(sum, ([1],), rule=Fixed(n=3), name="t.py::test_sum")
    >>> lines = summary_lines([result], "fixed")
    >>> lines[1].split()[:3]
    ['test', 'median', 'CI']
    >>> lines[2].startswith("t.py::test_sum"), lines[2].split()[6:8]
    (True, ['3', 'rule'])
    """
    from ..report.formatting import quantity

    if not results:
        return ["no perfstats_benchmark ran"]
    level = results[0].level
    heading = f"rule {rule}; median and its {100 * level:g}% CI (order statistics) per test"
    # The warm-up column only when some test had one: the runs are then the judged calls.
    warm = any(r.warmup for r in results)
    rows = [("test", "median", "CI", "runs", *(("warm-up",) if warm else ()), "stopped by", "why")]
    for r in results:
        shown = bool(r.runs)
        rows.append((
            r.name,
            quantity(r.estimate, "ns") if shown else "-",
            f"{quantity(r.low, 'ns')} .. {quantity(r.high, 'ns')}" if shown else "-",
            str(r.runs),
            *((str(r.warmup),) if warm else ()),
            r.stopped_by,
            r.reason,
        ))  # fmt: skip
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    # Numbers right-aligned, words left-aligned; the reason, last, is not padded.
    right = (False, True, True, True, *((True,) if warm else ()), False)
    return [heading] + [
        "  ".join(
            [
                cell.rjust(w) if r else cell.ljust(w)
                for cell, w, r in zip(row, widths, right, strict=False)
            ]
            + [row[-1]]
        ).rstrip()
        for row in rows
    ]


class PerfstatsBenchmark:
    """What the ``perfstats_benchmark`` fixture gives a test: call it with the function to time.

    ``perfstats_benchmark(fn, *args, **kwargs)`` returns what ``fn``
    returned at its last call. Without ``--perfstats`` it calls ``fn``
    once. A test may time one function.
    """

    def __init__(self, node: pytest.Item, session: _Session | None) -> None:
        self._node = node
        self._session = session
        self._used = False

    def __call__(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if not callable(fn):
            raise TypeError(f"perfstats_benchmark needs a function to call; got {fn!r}")
        if self._used:
            raise RuntimeError(
                "perfstats_benchmark times one function per test (each test is one benchmark, "
                "one record); split the test to time another"
            )
        self._used = True
        if self._session is None:
            return fn(*args, **kwargs)
        return self._session.measure(self._node, fn, args, kwargs)


@pytest.fixture
def perfstats_benchmark(request: pytest.FixtureRequest) -> PerfstatsBenchmark:
    """Time a function until the perfstats rule stops (once, without ``--perfstats``).

    Examples
    --------
    A test file::

        def test_sort(perfstats_benchmark):
            data = list(range(1000, 0, -1))
            assert perfstats_benchmark(sorted, data)[0] == 1

    run with ``pytest --perfstats --perfstats-record runs/``.
    """
    session = request.config.pluginmanager.get_plugin(SESSION_PLUGIN)
    return PerfstatsBenchmark(request.node, session)
