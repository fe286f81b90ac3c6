"""Run one child process with a deadline, and be able to kill every live one.

Command, Container and SSH targets all come down to running a process and
timing it; this module is the one place that knows how to do that safely:
each child gets its own process group so a timeout or an interrupt kills the
whole tree (a shell and its children), not just the first process.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from ..records.measurement import utc_now

# Seconds to collect the output of a killed child.
_DRAIN_SECONDS = 2.0


@dataclass(frozen=True)
class Outcome:
    """What one child process did.

    Attributes
    ----------
    started_at : datetime
        Wall-clock start (UTC).
    wall_ns : int
        Monotonic nanoseconds from just before the start to the end of its
        output.
    returncode : int or None
        Exit status; None when it timed out or could not start.
    stdout, stderr : str
        Its output, decoded as UTF-8 with replacement.
    timed_out : bool
        True when it was killed at the deadline.
    start_error : str or None
        Why it could not be started (missing executable, permission).
    timeout : float or None
        The deadline it was given, in seconds.

    Examples
    --------
    >>> from perfstats.adapters.targets.processes import ProcessRunner
    >>> ProcessRunner().run(["sh", "-c", "echo oops >&2; exit 2"]).failure()
    'exit status 2: oops'
    """

    started_at: datetime
    wall_ns: int
    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool = False
    start_error: str | None = None
    timeout: float | None = None

    def failure(self) -> str | None:
        """One line saying why this run failed, or None when it succeeded."""
        if self.start_error is not None:
            return self.start_error
        if self.timed_out:
            return f"timed out after {self.timeout:g} s"
        if self.returncode != 0:
            last = _last_line(self.stderr) or _last_line(self.stdout)
            return f"exit status {self.returncode}" + (f": {last}" if last else "")
        return None


class ProcessRunner:
    """Start child processes with a timeout and track the live ones.

    Examples
    --------
    >>> from perfstats.adapters.targets.processes import ProcessRunner
    >>> out = ProcessRunner().run(["true"], timeout=5)
    >>> out.returncode, out.failure()
    (0, None)
    """

    def __init__(self) -> None:
        self._live: set[subprocess.Popen[bytes]] = set()
        self._lock = threading.Lock()

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        stdin: bytes | None = None,
        cpus: Sequence[int] | None = None,
    ) -> Outcome:
        """Run ``argv`` to completion or until ``timeout`` seconds have passed.

        ``cpus`` pins the child (and what it starts) to those CPUs. The
        parent pins it right after it starts, before writing its standard
        input: a program that times work only after reading its input never
        runs that work unpinned.
        """
        started_at = utc_now()
        t0 = time.monotonic_ns()
        try:
            proc = subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=dict(env) if env is not None else None,
                cwd=cwd,
                start_new_session=True,
            )
        except OSError as exc:
            return Outcome(
                started_at=started_at,
                wall_ns=time.monotonic_ns() - t0,
                returncode=None,
                stdout="",
                stderr="",
                start_error=f"cannot start {argv[0]!r}: {exc.strerror or exc}",
            )
        with self._lock:
            self._live.add(proc)
        timed_out = False
        try:
            if cpus is not None:
                _pin(proc, cpus)
            try:
                out, err = proc.communicate(stdin, timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                _kill_group(proc)
                out, err = _drain(proc)
            wall_ns = time.monotonic_ns() - t0
        except BaseException:
            # An interrupt in the waiting thread must not leave the child behind.
            _kill_group(proc)
            proc.wait()
            raise
        finally:
            with self._lock:
                self._live.discard(proc)
        return Outcome(
            started_at=started_at,
            wall_ns=wall_ns,
            returncode=None if timed_out else proc.returncode,
            stdout=out.decode("utf-8", "replace"),
            stderr=err.decode("utf-8", "replace"),
            timed_out=timed_out,
            timeout=timeout,
        )

    def kill_all(self) -> None:
        """Kill every process group still running (on interrupt or close)."""
        with self._lock:
            live = list(self._live)
        for proc in live:
            _kill_group(proc)


def _pin(proc: subprocess.Popen[bytes], cpus: Sequence[int]) -> None:
    try:
        os.sched_setaffinity(proc.pid, cpus)
    except ProcessLookupError:
        # It has already exited (and is not yet reaped): nothing to pin.
        pass


def _drain(proc: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    """Collect a killed child's output without waiting for its pipes forever.

    A process outside the killed group may still hold the pipes: an ssh
    master connection is handed the client's descriptors and keeps them until
    the remote command ends. The output of a timed-out run is not needed
    badly enough to wait for that.
    """
    try:
        return proc.communicate(timeout=_DRAIN_SECONDS)
    except subprocess.TimeoutExpired:
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
        proc.wait()
        return b"", b""


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        # Already gone (or reaped): nothing left to stop.
        pass


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""
