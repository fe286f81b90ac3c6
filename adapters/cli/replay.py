"""``perfstats replay``: replay a stopping rule over recorded traces."""

from __future__ import annotations

import argparse
import asyncio
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..driver.stop_loop import build_rule
from ..records.redaction import redact_url
from .options import parse_options
from .output import emit_json, out
from .parser import UsageError, output_arguments, rule_arguments
from .samples import read_traces

#: Default of ``--connect-timeout``: seconds to reach a Dask scheduler, and
#: again for its first worker, before giving up.
SCHEDULER_TIMEOUT = 10.0
# Schemes whose address is a TCP host and port, so a refusal is seen at once.
TCP_SCHEMES = ("tcp", "tls", "ws", "wss")

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
--connect-timeout S (default 10) bounds reaching the scheduler and, once
connected, waiting for its first worker: a refused connection is reported at
once, a listener that does not answer as Dask after S seconds, a scheduler
without workers after S seconds more.
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
        "--connect-timeout",
        type=float,
        default=SCHEDULER_TIMEOUT,
        metavar="S",
        help="seconds to reach the scheduler, and again for its first worker "
        f"(default: {SCHEDULER_TIMEOUT:g})",
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
    if args.scheduler is not None:
        if args.workers is not None:
            raise UsageError("--workers and --scheduler exclude each other")
        with _cluster(args.scheduler, args.connect_timeout) as client:
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
    if args.scheduler is not None:
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


@contextmanager
def _cluster(address: str, bound: float = SCHEDULER_TIMEOUT) -> Iterator[Any]:
    """A client of the Dask cluster at ``address`` with a worker, or a UsageError saying why not.

    Every step is bounded by ``bound`` seconds: Dask retries a refused
    connection until its timeout and waits for a handshake without one, so
    the address is first probed here (a refusal fails at once, a listener
    that does not answer as Dask fails after ``bound``), and a scheduler
    that has no worker fails after ``bound`` more instead of queueing the
    tasks for ever.
    """
    if not address.strip():
        raise UsageError(
            "--scheduler needs the scheduler's address (tcp://HOST:8786); "
            "leave it out to replay locally"
        )
    if not bound > 0 or bound == float("inf"):
        raise UsageError(f"--connect-timeout must be a positive number of seconds; got {bound:g}")
    try:
        from distributed import Client
    except ImportError:
        raise UsageError(
            "--scheduler needs Dask's distributed package (pip install distributed)"
        ) from None
    _probe(address, bound)
    try:
        client = Client(address, timeout=bound)
    except (OSError, TimeoutError, ValueError) as exc:
        raise UsageError(_unreachable(address, exc)) from None
    try:
        try:
            client.wait_for_workers(1, timeout=bound)
        except (TimeoutError, asyncio.TimeoutError):  # one class from Python 3.11
            raise UsageError(
                f"the Dask scheduler at {redact_url(address)} has no workers: none joined "
                f"within {bound:g} s (--connect-timeout); start 'dask worker {redact_url(address)}'"
            ) from None
        yield client
    finally:
        client.close()


def _probe(address: str, bound: float) -> None:
    """Check within ``bound`` seconds that ``address`` answers as a Dask server.

    Raises
    ------
    UsageError
        The connection is refused, the host unknown, or no Dask handshake
        came back within ``bound`` seconds; the message names which.
    """
    from distributed.comm import connect
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address)
        if scheme in TCP_SCHEMES:
            host, port = parse_host_port(location.rpartition("@")[2])
    except (TypeError, ValueError) as exc:
        raise UsageError(_unreachable(address, exc)) from None
    if scheme in TCP_SCHEMES:
        try:
            socket.create_connection((host, port), timeout=bound).close()
        except ConnectionRefusedError:
            raise UsageError(_unreachable(address, "connection refused")) from None
        except TimeoutError:
            raise UsageError(_unreachable(address, _no_answer(bound, "no connection"))) from None
        except OSError as exc:
            raise UsageError(_unreachable(address, exc.strerror or exc)) from None

    async def handshake() -> None:
        comm = await asyncio.wait_for(connect(address, timeout=bound), bound)
        await comm.close()

    try:
        asyncio.run(handshake())
    except asyncio.TimeoutError:
        raise UsageError(_unreachable(address, _no_answer(bound, "no Dask handshake"))) from None
    except (OSError, TypeError, ValueError) as exc:
        raise UsageError(_unreachable(address, exc)) from None


def _no_answer(bound: float, what: str) -> str:
    return f"timed out: {what} within {bound:g} s (--connect-timeout)"


def _unreachable(address: str, exc: BaseException | str) -> str:
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
