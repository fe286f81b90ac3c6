"""CPU time and peak memory of a local child process, from ``wait4`` when it ends.

The kernel hands a parent the resource usage of a child it reaps
(``wait4``): user and system CPU time and the maximum resident set size,
each covering the child and every descendant it reaped in turn. That costs
nothing extra: the driver reaps the child anyway.

The peak needs one more step. Linux counts a forked child's memory from the
moment of the fork, and keeps that high-water mark across ``exec``: a
child started straight from the driver, a Python process holding its
imports and results, reports at least the driver's own peak however small
the program it runs (with ``vfork``/``posix_spawn`` too, since the child
borrows the parent's memory until ``exec``). So the child is started
through a tiny launcher, a few kilobytes of C built once with the system's
C compiler and cached: the launcher is exec'ed (and inherits the driver's
high-water mark, which is of no interest), starts the command with
``posix_spawn`` from its own small memory, reaps it with ``wait4`` and
writes the command's usage on a pipe, then exits with the command's status.
The command's peak then starts from the launcher's few pages, not the
driver's.

The price is one more small program started per run, inside the wall time
the driver clocks; ``rusage=False`` starts commands directly.

Where the launcher cannot be built (no C compiler), children start as
before, without these series, and a message says why once.
"""

from __future__ import annotations

import hashlib
import logging
import os
import platform
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..records.series import SeriesValue

logger = logging.getLogger(__name__)

SOURCE = "rusage"
#: Names of the series a local command reports.
CPU_USER, CPU_SYSTEM, MAX_RSS = "cpu_user", "cpu_system", "max_rss"

# The launcher: argv[1] is the descriptor to report on, argv[2] a CPU list
# ("-" for none) applied before the command starts, argv[3:] the command.
# Report lines: "usage STATUS UTIME_S UTIME_US STIME_S STIME_US MAXRSS WALL_NS", or
# "exec ERRNO" / "affinity ERRNO" when the command could not start.
_LAUNCHER_C = r"""
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv) {
    if (argc < 4) return 127;
    int fd = atoi(argv[1]);
    if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) return 127;
#ifdef __linux__
    if (strcmp(argv[2], "-") != 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        char *p = argv[2];
        while (*p) {
            CPU_SET((int)strtol(p, &p, 10), &set);
            if (*p == ',') p++;
        }
        if (sched_setaffinity(0, sizeof set, &set) < 0) {
            dprintf(fd, "affinity %d\n", errno);
            return 127;
        }
    }
#endif
    /* posix_spawn borrows this small process's memory until exec, so the
       command starts from these few pages, with no copy of page tables. */
    pid_t pid;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int err = posix_spawnp(&pid, argv[3], NULL, NULL, argv + 3, environ);
    if (err != 0) {
        dprintf(fd, "exec %d\n", err);
        return 127;
    }
    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0) {
        if (errno != EINTR) return 127;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    /* The command's own wall time, from just before it starts to its exit:
       the launcher's start-up is not in it. */
    long long wall = (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL
                     + (long long)(t1.tv_nsec - t0.tv_nsec);
    dprintf(fd, "usage %d %ld %ld %ld %ld %ld %lld\n", status,
            (long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec,
            (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec, (long)ru.ru_maxrss, wall);
    close(fd);
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) {
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none);
        signal(WTERMSIG(status), SIG_DFL);
        sigset_t all;
        sigfillset(&all);
        sigprocmask(SIG_UNBLOCK, &all, NULL);
        raise(WTERMSIG(status));
    }
    return 127;
}
"""

# ru_maxrss is in kibibytes on Linux and the BSDs, in bytes on macOS.
_MAXRSS_SCALE = 1 if sys.platform == "darwin" else 1024


@dataclass(frozen=True)
class ChildUsage:
    """What one child process tree used, as ``wait4`` reports it.

    Attributes
    ----------
    user_ns, system_ns : int
        CPU time in user and kernel mode of the child and the descendants
        it reaped.
    max_rss : int or None
        Peak resident memory in bytes of the largest single process of the
        tree (not their sum); None where it is not known.

    Examples
    --------
    >>> from perfstats.adapters.targets.rusage import ChildUsage
    >>> sorted(ChildUsage(2_000_000, 1_000_000, 8 * 2**20).series())
    ['cpu_system', 'cpu_user', 'max_rss']
    """

    user_ns: int
    system_ns: int
    max_rss: int | None

    def series(self) -> dict[str, SeriesValue]:
        """The usage as named series (CPU times in ns, the peak in bytes)."""
        out = {
            CPU_USER: SeriesValue(float(self.user_ns), "ns", source=SOURCE),
            CPU_SYSTEM: SeriesValue(float(self.system_ns), "ns", source=SOURCE),
        }
        if self.max_rss is not None:
            out[MAX_RSS] = SeriesValue(float(self.max_rss), "B", source=SOURCE)
        return out


@dataclass(frozen=True)
class LaunchReport:
    """The launcher's last word: the command's usage and status, or why it did not start."""

    usage: ChildUsage | None = None
    status: int | None = None
    start_error: str | None = None
    wall_ns: int | None = None


def parse_report(text: str) -> LaunchReport | None:
    """Read the launcher's report line; None when there is none (it was killed).

    Examples
    --------
    >>> from perfstats.adapters.targets.rusage import parse_report
    >>> r = parse_report("usage 0 1 500000 0 250000 2048 1750000000\\n")
    >>> r.usage.user_ns, r.usage.system_ns, r.usage.max_rss // 1024, r.status, r.wall_ns
    (1500000000, 250000000, 2048, 0, 1750000000)
    >>> parse_report("exec 2\\n").start_error
    'No such file or directory'
    >>> parse_report("") is None
    True
    """
    lines = [line.split() for line in text.splitlines() if line.strip()]
    if not lines:
        return None
    # A command that could not start is reported before its launcher's last word.
    for words in lines:
        kind, numbers = words[0], words[1:]
        if kind in ("exec", "affinity") and len(numbers) == 1 and numbers[0].isdigit():
            reason = os.strerror(int(numbers[0]))
            return LaunchReport(start_error=reason if kind == "exec" else f"{kind}: {reason}")
    kind, numbers = lines[-1][0], lines[-1][1:]
    if kind != "usage" or len(numbers) != 7:
        return None
    try:
        status, us, uus, ss, sus, rss, wall = (int(n) for n in numbers)
    except ValueError:
        return None
    usage = ChildUsage(
        user_ns=us * 10**9 + uus * 1000,
        system_ns=ss * 10**9 + sus * 1000,
        max_rss=rss * _MAXRSS_SCALE,
    )
    return LaunchReport(usage=usage, status=status, wall_ns=wall if wall >= 0 else None)


class Launcher:
    """The launcher program, built on first use and cached per user.

    Parameters
    ----------
    cache_dir : path, optional
        Where the built program is kept (default: ``$XDG_CACHE_HOME`` or
        ``~/.cache``, then ``perfstats``). It must be this user's own folder,
        writable by no one else: the driver runs what is in it.
    compiler : str, optional
        The C compiler (default: ``$CC``, else ``cc``, ``gcc`` or ``clang``
        on the ``PATH``).

    Examples
    --------
    >>> from perfstats.adapters.targets.rusage import Launcher
    >>> path = Launcher().path()  # doctest: +SKIP
    """

    def __init__(
        self, cache_dir: str | os.PathLike[str] | None = None, compiler: str | None = None
    ):
        if cache_dir is None:
            base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
                os.path.expanduser("~"), ".cache"
            )
            cache_dir = os.path.join(base, "perfstats")
        self.cache_dir = Path(cache_dir)
        self.compiler = compiler
        self._lock = threading.Lock()
        self._path: str | None = None
        self._problem: str | None = None
        self._warned = False

    def _find_compiler(self) -> str | None:
        names = [self.compiler or os.environ.get("CC", "")]
        if not self.compiler:
            names += ["cc", "gcc", "clang"]
        for name in names:
            if name:
                found = shutil.which(name)
                if found:
                    return found
        return None

    def path(self) -> str | None:
        """The launcher's path, built if needed; None where it cannot be (see :attr:`problem`)."""
        with self._lock:
            if self._path is None and self._problem is None:
                try:
                    self._path = self._build()
                except (OSError, RuntimeError) as exc:
                    self._problem = str(exc)
            return self._path

    def warn(self) -> None:
        """Say once, as a warning, why children start without the launcher."""
        with self._lock:
            if self._warned or self._problem is None:
                return
            self._warned = True
        logger.warning(
            "rusage: %s; CPU time and peak memory of the commands are not recorded",
            self._problem,
        )

    @property
    def problem(self) -> str | None:
        """Why the launcher is not available, once :meth:`path` has failed."""
        return self._problem

    def _build(self) -> str:
        digest = hashlib.sha256(
            (_LAUNCHER_C + platform.machine() + sys.platform).encode()
        ).hexdigest()[:16]
        target = self.cache_dir / f"launcher-{digest}"
        self._check_dir()
        if target.exists():
            _check_private(target, "the launcher")
            return str(target)
        compiler = self._find_compiler()
        if compiler is None:
            raise RuntimeError("no C compiler (cc, gcc or clang) to build the launcher")
        with tempfile.TemporaryDirectory(dir=self.cache_dir) as work:
            source = Path(work) / "launcher.c"
            source.write_text(_LAUNCHER_C, encoding="ascii")
            built = Path(work) / "launcher"
            # Static where the C library allows it: no dynamic loader, fewer pages.
            for extra in (["-static"], []):
                result = subprocess.run(
                    [compiler, "-O2", *extra, "-o", str(built), str(source)],
                    capture_output=True,
                    text=True,
                    check=False,
                )
                if result.returncode == 0:
                    break
            else:
                last = (result.stderr.strip().splitlines() or ["no output"])[-1]
                raise RuntimeError(f"{compiler} could not build the launcher: {last}")
            os.chmod(built, 0o700)
            os.replace(built, target)
        return str(target)

    def _check_dir(self) -> None:
        self.cache_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        _check_private(self.cache_dir, "the launcher's cache folder")


def _check_private(path: Path, what: str) -> None:
    """Refuse a file or folder someone else owns or may write: the driver runs what is in it."""
    info = path.lstat()
    if stat.S_ISLNK(info.st_mode):
        raise RuntimeError(f"{what} {str(path)!r} is a symbolic link")
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise RuntimeError(f"{what} {str(path)!r} belongs to another user")
    if info.st_mode & 0o022:
        raise RuntimeError(f"{what} {str(path)!r} is writable by others")


_DEFAULT: Launcher | None = None
_DEFAULT_LOCK = threading.Lock()


def default_launcher() -> Launcher:
    """The launcher shared by every local target of this process."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            _DEFAULT = Launcher()
        return _DEFAULT


def launch_argv(
    launcher: str, report_fd: int, argv: Sequence[str], cpus: Sequence[int] | None
) -> list[str]:
    """The command line that runs ``argv`` through ``launcher``, reporting on ``report_fd``.

    Examples
    --------
    >>> from perfstats.adapters.targets.rusage import launch_argv
    >>> launch_argv("/x/launcher", 5, ["true"], (0, 1))
    ['/x/launcher', '5', '0,1', 'true']
    """
    cpu_list = "-" if not cpus else ",".join(str(c) for c in cpus)
    return [launcher, str(report_fd), cpu_list, *argv]
