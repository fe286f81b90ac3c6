"""A local program as the command targets run it: argv, environment, folder, timeout and CPUs.

:class:`~perfstats.adapters.targets.Command` (one measurement per run) and
the A-B suite's :class:`~perfstats.adapters.ab.ReportingCommand` (a call's
results on stdout) both run a local program; this is what they share: the
checked settings, the environment the child gets, the executable found
before the first run, and killing every live child on close.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

from .arguments import check_argv, check_cpus, check_cwd, check_env, check_timeout, find_executable
from .processes import Outcome, ProcessRunner
from .rusage import Launcher, default_launcher


class ProgramOptions(TypedDict, total=False):
    """The settings of a local program that targets running one take as keywords.

    :class:`~perfstats.adapters.targets.Command`, the tool targets
    (:class:`~perfstats.adapters.targets.GoogleBenchmark`,
    :class:`~perfstats.adapters.targets.GoTest`,
    :class:`~perfstats.adapters.targets.PyperfScript`) and the A-B suite's
    :class:`~perfstats.adapters.ab.ReportingCommand` take them as
    ``**program``; each is checked as :class:`LocalProgram` checks it.

    Attributes
    ----------
    timeout : float or None
        Seconds before the child is killed (default: never).
    env : mapping or None
        Environment variables set for the child.
    inherit_env : bool
        Start from this process's environment (default), else from ``env`` only.
    cwd : str or None
        Working folder of the child.
    cpus : list of int or None
        Pin the child to these CPUs (Linux).

    Examples
    --------
    >>> from perfstats.adapters.targets.program import ProgramOptions
    >>> ProgramOptions(timeout=30, cwd="/tmp")
    {'timeout': 30, 'cwd': '/tmp'}
    """

    timeout: float | None
    env: Mapping[str, str] | None
    inherit_env: bool
    cwd: str | None
    cpus: Sequence[int] | None


def check_program_options(owner: str, options: Mapping[str, Any]) -> None:
    """Refuse a key of ``options`` that is no :class:`ProgramOptions` key, naming ``owner``.

    A target that takes ``**program: Unpack[ProgramOptions]`` passes it on
    to :class:`LocalProgram`, which takes more (``rusage``) than such a
    target offers.

    Examples
    --------
    >>> from perfstats.adapters.targets.program import check_program_options
    >>> check_program_options("GoTest", {"timeout": 5, "rusage": True})
    Traceback (most recent call last):
    ...
    TypeError: GoTest got an unexpected keyword argument 'rusage'
    """
    unknown = [key for key in options if key not in ProgramOptions.__annotations__]
    if unknown:
        raise TypeError(f"{owner} got an unexpected keyword argument {unknown[0]!r}")


class LocalProgram:
    """The settings and runner of a local program (a base of the command targets).

    Parameters
    ----------
    argv : list of str
        Program and arguments; no shell is involved.
    timeout : float, optional
        Seconds before the child is killed.
    env : mapping, optional
        Environment variables set for the child.
    inherit_env : bool, default True
        Start from this process's environment (else from ``env`` only).
    cwd : str, optional
        Working folder of the child.
    cpus : list of int, optional
        Pin the child to these CPUs (Linux).
    rusage : bool, default False
        Start the child through the usage launcher, so each outcome carries
        its CPU time and peak memory
        (:mod:`~perfstats.adapters.targets.rusage`).

    Examples
    --------
    >>> import sys
    >>> program = LocalProgram([sys.executable, "-c", "print(6 * 7)"], timeout=30)
    >>> program.run_program().stdout.strip()
    '42'
    >>> program.program_config()["timeout"]
    30.0
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
        inherit_env: bool = True,
        cwd: str | None = None,
        cpus: Sequence[int] | None = None,
        rusage: bool = False,
    ) -> None:
        self.argv = check_argv(argv)
        self.cpus = check_cpus(cpus)
        self.timeout = check_timeout(timeout)
        self.env = check_env(env)
        self.inherit_env = bool(inherit_env)
        self.cwd = check_cwd(cwd)
        self.full_env = self._environment()
        self.executable = find_executable(self.argv[0], self.cwd, self.full_env)
        self.runner = ProcessRunner()
        if not isinstance(rusage, bool):
            raise ValueError(f"rusage must be True or False; got {rusage!r}")
        self.rusage = rusage
        self.launcher: Launcher | None = default_launcher() if rusage else None

    def _environment(self) -> dict[str, str] | None:
        if self.env is None:
            return None if self.inherit_env else {}
        return {**os.environ, **self.env} if self.inherit_env else dict(self.env)

    def run_program(
        self,
        stdin: bytes | None = None,
        argv: Sequence[str] | None = None,
        *,
        cwd: str | None = None,
        pinned: bool = True,
    ) -> Outcome:
        """Run the program once, ``stdin`` on its standard input.

        The run gets the program's environment and timeout, and its usage
        launcher when ``rusage`` is set.

        Parameters
        ----------
        stdin : bytes, optional
            Written to the child's standard input, which is then closed;
            None (the default) gives it no input at all.
        argv : sequence of str, optional
            Command line for this run instead of the program's: the same
            program under a wrapper such as ``perf stat``, or another command
            of a tool, such as its build.
        cwd : str, optional
            Working folder for this run; default: the program's.
        pinned : bool, default True
            Pin the child to the program's CPUs, if it has any. False leaves
            it unpinned, for work that is no part of what the target times
            (a build).

        Returns
        -------
        Outcome
            How the child ended: exit status, output and wall time. A
            timeout, or a program that could not start, is reported in it
            (``timed_out``, ``start_error``), not raised.
        """
        return self.runner.run(
            self.argv if argv is None else argv,
            timeout=self.timeout,
            env=self.full_env,
            cwd=self.cwd if cwd is None else cwd,
            stdin=stdin,
            cpus=self.cpus if pinned else None,
            usage=self.launcher,
        )

    def program_config(self) -> dict[str, Any]:
        """The program's settings as plain data (secrets redacted later, by the target).

        Returns
        -------
        dict of str to Any
            ``argv``; ``executable``, the path found for ``argv[0]``;
            ``timeout`` in seconds; ``env``, the variables set (not the
            inherited environment); ``cwd``; and ``cpus`` as a list. Those
            of the last four not set are None.
        """
        return {
            "argv": self.argv,
            "executable": self.executable,
            "timeout": self.timeout,
            "env": self.env,
            "cwd": self.cwd,
            "cpus": None if self.cpus is None else list(self.cpus),
        }

    def close(self) -> None:
        """Kill every child still running."""
        self.runner.kill_all()
