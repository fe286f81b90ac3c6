"""``perfstats replay``: replay a stopping rule over recorded traces."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np

from ..driver.stop_loop import build_rule
from ..records.redaction import redact_url
from .options import parse_options
from .output import emit_json, out
from .parser import UsageError, output_arguments, rule_arguments
from .samples import read_traces

# Seconds to reach a Dask scheduler before giving up.
SCHEDULER_TIMEOUT = 20

HELP = "replay a stopping rule over recorded traces"
EXAMPLES = """\
examples:
  perfstats replay traces.csv --rule superflow
  perfstats replay traces.csv --rule metior -r error=0.03 -r interval=10 --max-n 500 --json
  # on a Dask cluster: each trace is one task, the result is the serial run's
  perfstats replay traces.csv --rule superflow --scheduler tcp://10.0.0.1:8786
  # larger tasks for many short traces: 10 traces per task
  perfstats replay traces.csv --rule superflow --scheduler tcp://10.0.0.1:8786 --traces-per-task 10

traces.csv has one column per trace (a header row with the trace names);
shorter traces leave their last cells empty.

--scheduler runs the traces on a Dask distributed cluster (pip install
distributed; start 'dask scheduler' and, on each machine, 'dask worker
tcp://HOST:8786 --nthreads 1 --nworkers auto' with the same perfstats
version). Without it, --workers local processes (default: one per core).
--traces-per-task K replays K consecutive traces in one task: fewer, larger
tasks cost less scheduling per test (the result is the same for any K).
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the options of ``perfstats replay`` to its parser."""
    p.add_argument("traces", help="CSV with one column per trace")
    rule_arguments(p)
    p.add_argument("--max-n", type=int, metavar="N", help="most runs a test may use")
    p.add_argument("--workers", type=int, metavar="W", help="local worker processes")
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run on the Dask cluster whose scheduler is at ADDRESS (tcp://HOST:8786)",
    )
    p.add_argument(
        "--traces-per-task",
        type=int,
        default=1,
        metavar="K",
        help="traces replayed by one task of a worker or the cluster (default: 1)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    output_arguments(p)


def command(args: argparse.Namespace, command_argv: list[str]) -> int:
    """Run ``perfstats replay`` with parsed arguments; returns the exit status."""
    from perfstats.replay import replay

    traces = read_traces(args.traces)
    options = parse_options(args.rule_option, "rule option")
    rule = build_rule(args.rule, options, args.seed)
    progress = not args.no_progress and sys.stderr.isatty()
    if args.scheduler:
        if args.workers is not None:
            raise UsageError("--workers and --scheduler exclude each other")
        with _cluster(args.scheduler) as client:
            result = replay(
                rule,
                traces,
                max_n=args.max_n,
                executor=client.get_executor(),
                progress=progress,
                traces_per_task=args.traces_per_task,
            )
    else:
        result = replay(
            rule,
            traces,
            max_n=args.max_n,
            workers=args.workers,
            progress=progress,
            traces_per_task=args.traces_per_task,
        )
    if args.json:
        emit_json(
            {
                "rule": {"name": rule.name, "config": rule.config()},
                "tests": result.to_dict("records"),
            }
        )
        return 0
    out(f"rule     {rule!r}")
    out(f"traces   {len(traces)} from {args.traces}")
    if args.scheduler:
        out(f"cluster  {redact_url(args.scheduler)}")
    out()
    out(str(result.to_string(index=False)))
    stopped = result["stopped"]
    out()
    out(
        f"stopped {int(stopped.sum())} of {len(result)} tests; "
        f"median stop at n={float(np.median(result['stop_n'])):g}"
    )
    return 0


def _cluster(address: str) -> Any:
    """A client of the Dask cluster at ``address``, or a UsageError saying why not."""
    try:
        from distributed import Client
    except ImportError:
        raise UsageError(
            "--scheduler needs Dask's distributed package (pip install distributed)"
        ) from None
    try:
        return Client(address, timeout=SCHEDULER_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as exc:
        raise UsageError(_unreachable(address, exc)) from None


def _unreachable(address: str, exc: BaseException) -> str:
    """Why the scheduler at ``address`` cannot be reached, its credentials hidden.

    Dask quotes the address without its scheme (``invalid address
    'user:pw@host:8786'``), where no URL shows that a password follows, so
    the userinfo is replaced by hand, however short the password.

    Examples
    --------
    >>> why = _unreachable("tcp://ann:pw@h:8786", ValueError("invalid address 'ann:pw@h:8786'"))
    >>> why.endswith("invalid address 'ann:<redacted>@h:8786'"), "pw" in why
    (True, False)
    """
    shown = redact_url(address)
    why = str(exc)
    userinfo = address.partition("://")[2].split("/", 1)[0].rpartition("@")[0]
    if userinfo:
        hidden = shown.partition("://")[2].split("/", 1)[0].rpartition("@")[0]
        why = why.replace(userinfo + "@", hidden + "@")
    return f"cannot reach the Dask scheduler at {shown}: {why}"
