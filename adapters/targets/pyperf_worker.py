"""A pyperf script as a target: each round one new worker process per benchmark."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from statistics import fmean
from typing import TYPE_CHECKING, Any

from ..records.importers.pyperf import NAME, UNITS, parse
from ..records.importers.results import FormatError
from ..records.series import SeriesValue
from .arguments import show_argv
from .benchmark_suite import BenchmarkSuite, Round, RoundFailed, check_tool_argv
from .program import ProgramOptions

if TYPE_CHECKING:
    from typing_extensions import Unpack

# Options each worker gets from the target; the user's would clash.
_OURS = (
    "--worker", "--worker-task", "--loops", "-l", "--warmups", "-w", "--values", "-n",
    "--processes", "-p", "--output", "-o", "--append", "--pipe", "--calibrate-loops",
    "--compare-to",
)  # fmt: skip


class PyperfScript(BenchmarkSuite):
    """Run each benchmark of a pyperf ``Runner`` script in a new worker process per round.

    pyperf's own statistics treat the values of one process as dependent
    and processes as the unit of repetition (by default 20 processes of 3
    values each). Here every round starts one pyperf worker per benchmark
    (``script.py --worker --worker-task I --loops L --warmups W --values V
    -o FILE``, as pyperf's own manager does), reads its JSON with the pyperf
    importer and gives the mean of its values (one by default) as the
    benchmark's series; the rule decides how many processes are enough.
    Before the first round one worker calibrates the loops of every
    benchmark (``--calibrate-loops``) and names them, in the script's
    order, which is how a worker task is chosen: when the driver asks for
    some series only, only their workers run.

    Parameters
    ----------
    argv : list of str
        The script (``bench.py``, run with ``python``) and its options, or
        an executable that is a pyperf script. pyperf's options that pick
        processes, loops, values and the output are refused: each round
        sets them.
    python : str, optional
        The interpreter of a ``.py`` script (default: this one).
    loops : int, optional
        Loops per value for every benchmark (default: pyperf calibrates
        each benchmark's own once).
    warmups : int, default 1
        Values each worker runs and leaves out first.
    values : int, default 1
        Values per worker; the series is their mean.
    timeout, env, inherit_env, cwd, cpus, label
        As for :class:`~perfstats.adapters.targets.Command`; ``timeout`` is
        per worker process.

    Examples
    --------
    >>> from perfstats.adapters.targets.pyperf_worker import PyperfScript
    >>> PyperfScript(["no_such_script.py"])
    Traceback (most recent call last):
    ...
    ValueError: pyperf: script 'no_such_script.py' not found
    """

    kind = "pyperf"
    tool = NAME

    def __init__(
        self,
        argv: Sequence[str],
        *,
        python: str | None = None,
        loops: int | None = None,
        warmups: int = 1,
        values: int = 1,
        label: str | None = None,
        **program: Unpack[ProgramOptions],
    ) -> None:
        check_tool_argv(argv, NAME, "a script and its options")
        script = argv[0]
        started = list(argv)
        interpreter = None
        if isinstance(script, str) and script.endswith(".py"):
            cwd = program.get("cwd")
            where = script if cwd is None else os.path.join(cwd, script)
            if not os.path.isfile(where):
                raise ValueError(f"{NAME}: script {script!r} not found")
            interpreter = python or sys.executable
            started = [interpreter, *argv]
        super().__init__(started, **program)
        for arg in argv[1:]:
            if arg.split("=", 1)[0] in _OURS:
                flag = arg.split("=", 1)[0]
                raise ValueError(f"{NAME}: {flag} is set by each round; leave it out")
        self.loops = _count(loops, "loops", 1, allow_none=True)
        self.warmups = _count(warmups, "warmups", 0)
        self.values = _count(values, "values", 1)
        self.script = str(script)
        self.arguments = list(argv)
        self.python = interpreter
        self.name = label or f"pyperf {show_argv(argv)}"
        self._tasks: dict[str, tuple[int, int]] | None = None  # name -> (task, loops)

    def _prepare(self) -> None:
        self._discover()

    def _discover(self) -> dict[str, tuple[int, int]]:
        """Every benchmark's worker task and loops, from one calibrating worker."""
        if self._tasks is None:
            path = self.scratch_path(".json")
            if self.loops is None:
                options = ["--calibrate-loops", "--warmups", str(self.warmups)]
            else:
                options = ["--loops", str(self.loops), "--warmups", "0", "--values", "1"]
            self.run_step(
                [*self.argv, "--worker", *options, "-q", "-o", path],
                "calibrating the benchmarks failed",
            )
            doc = _load(path)
            if doc is None or not doc.get("benchmarks"):
                raise RoundFailed(f"{self.script} ran no benchmark (is it a pyperf Runner script?)")
            tasks: dict[str, tuple[int, int]] = {}
            suite_meta = doc.get("metadata", {})
            for i, bench in enumerate(doc["benchmarks"]):
                meta = {**suite_meta, **bench.get("metadata", {})}
                loops = self.loops or int(meta.get("loops", 1))
                tasks[str(meta.get("name", f"task {i}"))] = (i, loops)
            self._tasks = tasks
        return self._tasks

    def _round(self, only: frozenset[str] | None) -> Round:
        tasks = self._discover()
        wall = 0
        series: dict[str, SeriesValue] = {}
        done = 0
        for name, (task, loops) in tasks.items():
            if only is not None and name not in only:
                continue
            path = self.scratch_path(".json")
            argv = [
                *self.argv, "--worker", "--worker-task", str(task), "--loops", str(loops),
                "--warmups", str(self.warmups), "--values", str(self.values), "-q", "-o", path,
            ]  # fmt: skip
            out = self.run_program(argv=argv)
            wall += out.wall_ns
            if out.failure() is not None:
                raise self.failure(out, name, done=done)
            done += 1
            doc = _load(path)
            if doc is None:
                continue  # the script no longer has this task: missing this round
            try:
                res = parse(doc, source=path)
            except FormatError as exc:
                raise RoundFailed(f"{name}: {exc}", started_at=out.started_at) from None
            if name not in res.benchmarks:
                series[name] = SeriesValue(
                    None, UNITS["second"], source="pyperf",
                    error=f"worker task {task} ran {res.benchmarks[0]!r}, not {name!r} "
                    "(the script's benchmarks changed)",
                )  # fmt: skip
                continue
            series[name] = SeriesValue(fmean(res.values(name)), res.unit(name), source="pyperf")
        return Round(wall, series)

    def _config(self) -> dict[str, Any]:
        # argv as given (the script and its options): the metadata rebuilds this target.
        return {
            **self.suite_config(),
            "argv": self.arguments,
            "python": self.python,
            "loops": self.loops,
            "warmups": self.warmups,
            "values": self.values,
        }


def _load(path: str) -> dict[str, Any] | None:
    """A worker's JSON file, or None when it wrote none."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        return None
    except json.JSONDecodeError as exc:
        raise RoundFailed(f"a worker wrote a damaged JSON file ({exc})") from None
    finally:
        if os.path.exists(path):
            os.unlink(path)
    if not isinstance(doc, dict):
        raise RoundFailed("a worker wrote JSON that is no pyperf suite")
    return doc


def _count(value: Any, name: str, minimum: int, allow_none: bool = False) -> Any:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{NAME}: {name} must be an integer >= {minimum}; got {value!r}")
    return value
