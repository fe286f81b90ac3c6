"""The ``perfstats`` command: the parser of every subcommand, and the entry point ``main``.

Errors are one line on standard error and a non-zero exit status: 2 for
bad input (unknown rule or target, bad option values, missing files), 1 when
the target kept failing, 130 when interrupted. ``perfstats gate`` adds its
own: 1 on a regression, 3 on an inconclusive benchmark with ``--strict``. ``--debug`` shows the
traceback instead.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from collections.abc import Sequence
from types import FrameType

from ..driver.failures import TargetFailed
from . import ab, compare, gate, history, replay, report, run
from .output import err
from .parser import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE, PROG, Parser, split_argv

# Each subcommand's module has HELP, EXAMPLES, add_arguments and command.
COMMANDS = {
    "run": run,
    "replay": replay,
    "compare": compare,
    "report": report,
    "ab": ab,
    "gate": gate,
    "history": history,
}


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``perfstats`` and all its subcommands."""
    parser = Parser(
        prog=PROG,
        description="Trustworthy performance measurements: run targets under stopping rules, "
        "replay rules over traces, compare, gate CI on regressions, find change points in a "
        "history, and report.",
        epilog="Run 'perfstats COMMAND --help' for a command's options and examples.",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    for name, module in COMMANDS.items():
        module.add_arguments(
            sub.add_parser(
                name,
                help=module.HELP,
                description=module.HELP,
                epilog=module.EXAMPLES,
                formatter_class=argparse.RawDescriptionHelpFormatter,
            )
        )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``perfstats`` console script; returns the exit status.

    Examples
    --------
    >>> from perfstats.adapters.cli import main
    >>> main(["report", "no-such-file.csv"])  # doctest: +SKIP
    perfstats: error: record no-such-file.csv does not exist
    2
    """
    own, command_argv = split_argv(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(own)
    if command_argv and args.command != "run":
        parser.error(f"'--' and a command make sense only for 'run', not {args.command!r}")
    logging.basicConfig(level=logging.WARNING, format=f"{PROG}: %(message)s")
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        return COMMANDS[args.command].command(args, command_argv)
    except KeyboardInterrupt:
        err("interrupted" + _record_hint(args))
        return EXIT_INTERRUPTED
    except TargetFailed as exc:
        if args.debug:
            raise
        err(f"{exc}{_record_hint(args)}")
        return EXIT_FAILED
    except (ValueError, OSError) as exc:
        if args.debug:
            raise
        err(str(exc) if isinstance(exc, ValueError) else f"{exc.strerror}: {exc.filename}")
        return EXIT_USAGE
    except Exception as exc:
        if args.debug:
            raise
        err(f"internal error: {type(exc).__name__}: {exc} (rerun with --debug for details)")
        return EXIT_FAILED
    finally:
        signal.signal(signal.SIGTERM, previous)


def _terminate(signum: int, frame: FrameType | None) -> None:
    # Turn SIGTERM into the same clean shutdown as Ctrl-C: containers are
    # removed and the metadata is finished.
    raise KeyboardInterrupt


def _record_hint(args: argparse.Namespace) -> str:
    path = getattr(args, "record", None)
    if args.command == "run" and path:
        return f"; measurements so far are in {path} (continue with --resume)"
    return ""


if __name__ == "__main__":
    sys.exit(main())
