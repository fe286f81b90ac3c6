"""Run one child process with a deadline, and be able to kill every live one.

Command, Container and SSH targets all come down to running a process and
timing it; this module is the one place that knows how to do that safely:
each child gets its own process group so a timeout or an interrupt kills the
whole tree (a shell and its children), not just the first process.
"""

from __future__ import annotations

import os
import selectors
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from ..records.measurement import utc_now
from .rusage import ChildUsage, Launcher, LaunchReport, launch_argv, parse_report

# Seconds to collect the output of a killed child.
_DRAIN_SECONDS = 2.0
# Bytes of each output stream kept (the last ones): a target that prints
# 100 MB per run must not hold 100 MB (and its decoded copy) in the driver.
OUTPUT_LIMIT = 4 * 2**20
_CHUNK = 2**16


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
    stdout_dropped, stderr_dropped : int
        Bytes of the output left out before the kept last
        :data:`OUTPUT_LIMIT` bytes of each stream.
    usage : ChildUsage or None
        CPU time and peak memory of the child's process tree, when it was
        started through the usage launcher (``run(usage=...)``) and ended.

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
    stdout_dropped: int = 0
    stderr_dropped: int = 0
    usage: ChildUsage | None = None

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
        # Calls of run() so far, and how many of them the last kill_all stops:
        # a call that started its process just before kill_all but registered
        # it just after is one of those, and must not be left running (its
        # thread would wait on it forever, and the interpreter with it).
        self._calls = 0
        self._stopped_calls = 0

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        stdin: bytes | None = None,
        cpus: Sequence[int] | None = None,
        usage: Launcher | None = None,
    ) -> Outcome:
        """Run ``argv`` to completion or until ``timeout`` seconds have passed.

        ``cpus`` pins the child (and what it starts) to those CPUs. The
        parent pins it right after it starts, before writing its standard
        input: a program that times work only after reading its input never
        runs that work unpinned.

        ``usage`` starts the child through that launcher
        (:mod:`~perfstats.adapters.targets.rusage`), so the outcome carries
        its CPU time and peak memory; the launcher applies ``cpus`` before
        the command starts. Where the launcher cannot be built, the child
        starts directly, without usage, and a message says so once.
        """
        with self._lock:
            self._calls += 1
            call = self._calls
        launcher = None if usage is None else usage.path()
        if usage is not None and launcher is None:
            usage.warn()
        report_r = report_w = -1
        started_at = utc_now()
        t0 = time.monotonic_ns()
        try:
            if launcher is not None:
                report_r, report_w = os.pipe()
                command = launch_argv(launcher, report_w, argv, cpus)
            else:
                command = list(argv)
            proc = subprocess.Popen(
                command,
                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=dict(env) if env is not None else None,
                cwd=cwd,
                start_new_session=True,
                pass_fds=(report_w,) if launcher is not None else (),
            )
        except OSError as exc:
            for fd in (report_r, report_w):
                if fd >= 0:
                    os.close(fd)
            return Outcome(
                started_at=started_at,
                wall_ns=time.monotonic_ns() - t0,
                returncode=None,
                stdout="",
                stderr="",
                start_error=f"cannot start {argv[0]!r}: {exc.strerror or exc}",
            )
        finally:
            if report_w >= 0:
                # Only the launcher writes on it; its end of the pipe is its own.
                os.close(report_w)
        with self._lock:
            self._live.add(proc)
            stopped = call <= self._stopped_calls
        if stopped:
            _kill_group(proc)
        try:
            if cpus is not None:
                _pin(proc, cpus)
            out, err, timed_out = _communicate(proc, stdin, timeout)
            wall_ns = time.monotonic_ns() - t0
        except BaseException:
            # An interrupt in the waiting thread must not leave the child behind.
            _kill_group(proc)
            proc.wait()
            raise
        finally:
            with self._lock:
                self._live.discard(proc)
            report = _read_report(report_r) if report_r >= 0 else None
        if report is not None and report.wall_ns is not None:
            # The launcher clocks the command alone; the driver's clock would
            # add the launcher's own start-up to every run.
            wall_ns = report.wall_ns
        if report is not None and report.start_error is not None:
            return Outcome(
                started_at=started_at,
                wall_ns=wall_ns,
                returncode=None,
                stdout=out.text(),
                stderr=err.text(),
                start_error=f"cannot start {argv[0]!r}: {report.start_error}",
            )
        return Outcome(
            started_at=started_at,
            wall_ns=wall_ns,
            returncode=None if timed_out else proc.returncode,
            stdout=out.text(),
            stderr=err.text(),
            timed_out=timed_out,
            timeout=timeout,
            stdout_dropped=out.dropped,
            stderr_dropped=err.dropped,
            usage=None if report is None or timed_out else report.usage,
        )

    def kill_all(self) -> None:
        """Kill every process group still running (on interrupt or close).

        Processes of the calls of :meth:`run` under way, which are still
        starting, are killed as soon as they start; later calls run as usual
        (a target's clean-up commands).
        """
        with self._lock:
            live = list(self._live)
            self._stopped_calls = self._calls
        for proc in live:
            _kill_group(proc)


def _read_report(fd: int) -> LaunchReport | None:
    """The launcher's report, read once it has exited (then the pipe is at its end)."""
    chunks = []
    try:
        while chunk := os.read(fd, 4096):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return parse_report(b"".join(chunks).decode("ascii", "replace"))


def _pin(proc: subprocess.Popen[bytes], cpus: Sequence[int]) -> None:
    try:
        os.sched_setaffinity(proc.pid, cpus)
    except ProcessLookupError:
        # It has already exited (and is not yet reaped): nothing to pin.
        pass


class _Tail:
    """The last ``limit`` bytes of a stream, and how many came before them."""

    def __init__(self, limit: int = OUTPUT_LIMIT) -> None:
        self.limit = limit
        self.buffer = bytearray()
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        self.buffer += data
        # Trimmed in steps, not per chunk: one move per ``limit`` bytes read.
        if len(self.buffer) > 2 * self.limit:
            del self.buffer[: len(self.buffer) - self.limit]

    @property
    def dropped(self) -> int:
        return self.total - min(len(self.buffer), self.limit)

    def text(self) -> str:
        return bytes(self.buffer[-self.limit :]).decode("utf-8", "replace")


def _communicate(
    proc: subprocess.Popen[bytes], stdin: bytes | None, timeout: float | None
) -> tuple[_Tail, _Tail, bool]:
    """Feed ``stdin``, keep the tails of stdout and stderr, wait for the end or the deadline.

    Returns the two tails and whether the child was killed at the deadline.
    After a kill its output is collected for at most ``_DRAIN_SECONDS``: a
    process outside the killed group may still hold the pipes (an ssh master
    connection keeps the client's descriptors until the remote command
    ends), and the output of a timed-out run is not worth waiting for.
    """
    assert proc.stdout is not None and proc.stderr is not None
    out, err = _Tail(), _Tail()
    tails = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}
    sel = selectors.DefaultSelector()
    for fd in tails:
        sel.register(fd, selectors.EVENT_READ)
    pending = memoryview(stdin or b"")
    if proc.stdin is not None:
        if pending:
            os.set_blocking(proc.stdin.fileno(), False)
            sel.register(proc.stdin.fileno(), selectors.EVENT_WRITE)
        else:
            proc.stdin.close()
    deadline = None if timeout is None else time.monotonic() + timeout
    timed_out = False
    try:
        while sel.get_map():
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and wait <= 0:
                if timed_out:
                    break  # drained as long as a killed child's output is worth
                timed_out = True
                _kill_group(proc)
                deadline = time.monotonic() + _DRAIN_SECONDS
                continue
            for key, _ in sel.select(wait):
                fd = int(key.fd)
                if fd in tails:
                    data = os.read(fd, _CHUNK)
                    if data:
                        tails[fd].add(data)
                    else:
                        sel.unregister(fd)
                    continue
                try:
                    pending = pending[os.write(fd, pending[:_CHUNK]) :]
                except BrokenPipeError:
                    pending = pending[:0]  # the child stopped reading: its business
                if not pending:
                    sel.unregister(fd)
                    assert proc.stdin is not None
                    proc.stdin.close()
    finally:
        sel.close()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None and not stream.closed:
                stream.close()
    if timed_out:
        proc.wait()
    else:
        remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            proc.wait(remaining)
        except subprocess.TimeoutExpired:
            # The pipes closed but the child lives on past its deadline.
            timed_out = True
            _kill_group(proc)
            proc.wait()
    return out, err, timed_out


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        # Already gone (or reaped): nothing left to stop.
        pass


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


def owner_token() -> str:
    """This process as what it leaves behind is labelled with: ``pid:start-time@host``.

    A later run tells the leftovers of a killed run (their owner is gone)
    from those of a run still going (:func:`owner_alive`); the start time
    tells a reused pid from the owner.

    Examples
    --------
    >>> from perfstats.adapters.targets.processes import owner_alive, owner_token
    >>> owner_alive(owner_token())
    True
    """
    pid = os.getpid()
    return f"{pid}:{_start_time(pid)}@{socket.gethostname()}"


def owner_alive(token: str) -> bool | None:
    """Whether the process an :func:`owner_token` names still runs; None when unknowable.

    Unknowable: another host's process, or a token this does not understand.

    Examples
    --------
    >>> from perfstats.adapters.targets.processes import owner_alive
    >>> owner_alive("1:0@another-host") is None, owner_alive("junk") is None
    (True, True)
    """
    who, sep, host = token.rpartition("@")
    pid_text, colon, start = who.partition(":")
    if not sep or not colon or not pid_text.isdigit() or host != socket.gethostname():
        return None
    pid = int(pid_text)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, as another user's process
    now = _start_time(pid)
    return not (start and now and start != now)


def _start_time(pid: int) -> str:
    """The start time of ``pid`` in clock ticks since boot ("" where /proc has none)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            stat = f.read()
    except OSError:
        return ""
    # Fields after the command name (which may hold spaces and parentheses).
    fields = stat.rpartition(")")[2].split()
    return fields[19] if len(fields) > 19 else ""
