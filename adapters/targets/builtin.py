"""The built-in workload as a ready-made target, for demos and the README."""

from __future__ import annotations

import sys
from pathlib import Path

from . import workload
from .command import Command

WORKLOAD_PATH = str(Path(workload.__file__).resolve())


def builtin_target(
    size: int = workload.DEFAULT_SIZE, repeat: int = workload.DEFAULT_REPEAT
) -> Command:
    """A :class:`Command` running the built-in workload and reading its reported time.

    The child interpreter runs isolated (``-I -S``: no site packages, no
    user environment), so its start-up is short and the same everywhere.

    Examples
    --------
    >>> from perfstats.adapters.targets.builtin import builtin_target
    >>> m = builtin_target(size=1000).invoke()
    >>> m.status, m.unit
    ('ok', 'ns')
    """
    for name, value in (("size", size), ("repeat", repeat)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer; got {value!r}")
    return Command(
        [sys.executable, "-I", "-S", WORKLOAD_PATH, str(size), str(repeat)],
        regex=workload.PATTERN,
        unit="ns",
        label="builtin workload",
    )
