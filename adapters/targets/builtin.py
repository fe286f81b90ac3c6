"""The built-in workload as a ready-made target, for demos and the README.

The workload is pinned to one CPU by default. On a VM whose virtual CPUs
run at different speeds (each is a host thread that the hypervisor places
and the host shares with other guests), a process is as fast as the CPU it
lands on, so unpinned runs fall into one level per CPU; a quantile between
two such levels narrows only slowly, and a 1% rule may not stop in
hundreds of runs. One CPU gives one level. A user's own command is never
pinned unless asked (``Command(cpus=...)``, ``-t cpus=[N]``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from . import workload
from .command import Command

WORKLOAD_PATH = str(Path(workload.__file__).resolve())


class _OneCpu:
    """The default of ``builtin_target(cpus=...)``: one CPU, chosen where the OS allows."""

    def __repr__(self) -> str:
        return "ONE_CPU"


#: Pin the built-in workload to :func:`one_cpu` (the default of :func:`builtin_target`).
ONE_CPU: Final = _OneCpu()


def one_cpu() -> tuple[int, ...] | None:
    """The CPU the built-in workload is pinned to by default: the last this process may use.

    The last rather than the first because Linux routes many device
    interrupts to CPU 0. None where pinning is not available (no
    ``os.sched_setaffinity``: macOS, Windows) or only one CPU is usable,
    where there is nothing to choose between.

    Examples
    --------
    >>> import os
    >>> from perfstats.adapters.targets.builtin import one_cpu
    >>> one_cpu() in (None, (max(os.sched_getaffinity(0)),))
    True
    """
    if not (hasattr(os, "sched_setaffinity") and hasattr(os, "sched_getaffinity")):
        return None
    usable = os.sched_getaffinity(0)
    if len(usable) < 2:
        return None
    return (max(usable),)


def builtin_target(
    size: int = workload.DEFAULT_SIZE,
    repeat: int = workload.DEFAULT_REPEAT,
    *,
    cpus: Sequence[int] | _OneCpu | None = ONE_CPU,
) -> Command:
    """A :class:`Command` running the built-in workload and reading its reported time.

    The child interpreter runs isolated (``-I -S``: no site packages, no
    user environment), so its start-up is short and the same everywhere.

    Parameters
    ----------
    size, repeat : int
        Steps of the computation, and timed passes of it (the fastest is
        reported).
    cpus : list of int, None or ONE_CPU, default ONE_CPU
        CPUs each run is pinned to. ``ONE_CPU`` pins to :func:`one_cpu`
        (see the module notes for why); None leaves the placement to the
        OS. The choice is in the target's configuration, so a record says
        where its runs ran.

    Examples
    --------
    >>> from perfstats.adapters.targets.builtin import builtin_target, one_cpu
    >>> target = builtin_target(size=1000)
    >>> m = target.invoke()
    >>> m.status, m.unit
    ('ok', 'ns')
    >>> target.cpus == one_cpu(), builtin_target(cpus=None).cpus
    (True, None)
    """
    for name, value in (("size", size), ("repeat", repeat)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer; got {value!r}")
    return Command(
        [sys.executable, "-I", "-S", WORKLOAD_PATH, str(size), str(repeat)],
        regex=workload.PATTERN,
        unit="ns",
        label="builtin workload",
        cpus=one_cpu() if isinstance(cpus, _OneCpu) else cpus,
    )
