"""The ``perfstats`` command: the parser of every subcommand, and the entry point ``main``.

Errors are one line on standard error and a non-zero exit status: 2 for
bad input (unknown rule or target, bad option values, missing files) and OS
errors (the cause and the file named), 1 when the target kept failing, 130
when interrupted, 141 (as a shell shows SIGPIPE) when the reader of standard
output went away. ``perfstats gate`` adds its own: 1 on a regression, 3 on an
inconclusive benchmark with ``--strict``. ``--debug`` shows the
traceback instead.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from collections.abc import Sequence
from types import FrameType

from ..driver.failures import TargetFailed
from ..records.record import located
from ..records.redaction import remember_environment
from ..records.terminal import for_terminal
from . import ab, compare, export, gate, history, replay, report, run
from .output import err
from .parser import (
    EXIT_BROKEN_PIPE,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    PROG,
    Parser,
    split_argv,
)

# Each subcommand's module has HELP, EXAMPLES, add_arguments and command.
COMMANDS = {
    "run": run,
    "replay": replay,
    "compare": compare,
    "report": report,
    "ab": ab,
    "gate": gate,
    "history": history,
    "export": export,
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
    # Secrets of our own environment are redacted wherever they show up.
    remember_environment()
    _log_to_stderr()
    previous = {signum: signal.signal(signum, _stop) for signum in STOP_SIGNALS}
    _stopping.clear()
    try:
        status = COMMANDS[args.command].command(args, command_argv)
        with located("standard output"):
            sys.stdout.flush()
        return status
    except BrokenPipeError:
        # The reader went away (``perfstats ... | head -1``): nothing left to say.
        _silence_stdout()
        return EXIT_BROKEN_PIPE
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
        err(str(exc) if isinstance(exc, ValueError) else os_error_text(exc))
        _silence_stdout()
        return EXIT_USAGE
    except Exception as exc:
        if args.debug:
            raise
        err(f"internal error: {type(exc).__name__}: {exc} (rerun with --debug for details)")
        return EXIT_FAILED
    finally:
        # After a stop, further signals are ignored (SIG_IGN: the interpreter
        # resets Python handlers to the default, fatal one while it exits).
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_IGN if _stopping else handler)


def os_error_text(exc: OSError) -> str:
    """An OS error as its cause and the file it concerns (``No space left on device: run.csv``).

    Examples
    --------
    >>> import errno
    >>> os_error_text(OSError(errno.ENOSPC, "No space left on device", "run.csv"))
    'No space left on device: run.csv'
    >>> os_error_text(OSError(errno.EIO, "Input/output error"))
    'Input/output error'
    """
    cause = exc.strerror or str(exc) or type(exc).__name__
    return cause if exc.filename is None else f"{cause}: {os.fsdecode(exc.filename)}"


def _silence_stdout() -> None:
    # Output that could not be written is dropped, so the interpreter's own
    # flush at exit does not fail a second time with a traceback.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass  # not a real file (a test's capture): nothing is flushed at exit


# Ctrl-C, kill and a closed terminal all stop a run the same clean way.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_stopping: set[int] = set()


def _stop(signum: int, frame: FrameType | None) -> None:
    # The first signal unwinds the run (KeyboardInterrupt): the target is
    # closed (process groups killed, containers removed, a Lambda function's
    # environment restored) and the metadata finished. Later ones must not
    # interrupt that clean-up half-way, which would leave those behind.
    if _stopping:
        sys.stderr.write(f"{PROG}: stopping: cleaning up first (kill -9 skips the clean-up)\n")
        return
    _stopping.add(signum)
    raise KeyboardInterrupt


class _TerminalFormatter(logging.Formatter):
    """Log lines as every printer writes them: secrets redacted, escapes shown."""

    def format(self, record: logging.LogRecord) -> str:
        return for_terminal(super().format(record))


def _log_to_stderr() -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(_TerminalFormatter(f"{PROG}: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])


def _record_hint(args: argparse.Namespace) -> str:
    path = getattr(args, "record", None)
    if args.command == "run" and path:
        return f"; measurements so far are in {path} (continue with --resume)"
    return ""


if __name__ == "__main__":
    sys.exit(main())
