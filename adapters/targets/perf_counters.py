"""Hardware and software counters of a local command through ``perf stat -x``.

``perf stat -x SEP -e EVENTS -o FILE -- command`` runs the command and
writes one line per event to ``FILE`` in perf's "not-quite-CSV" format
(perf-stat(1), "CSV FORMAT"). Without ``-I``, ``-A`` or ``--per-*`` the
fields of a line are: the counter value, its unit (often empty), the event
name, the run time of the counter, the percentage of the measurement time
it was counting, then an optional metric value and metric unit. Where
perf could not count an event the value is ``<not supported>`` (the CPU or
a VM's virtual CPU has no such counter) or ``<not counted>`` (it was not
scheduled). Lines starting with ``#`` and blank lines are comments. perf
does not quote fields, so an event name that holds the separator (a raw
``cpu/event=0x3c,umask=0/``) is found by the names asked for.

perf's own process is the parent of the command while it runs, so with
counters on, the CPU time and peak memory of the run include perf's.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ..records.series import SeriesValue

logger = logging.getLogger(__name__)

SOURCE = "perf"
#: The counters ``perf=True`` asks for.
DEFAULT_EVENTS = ("cycles", "instructions", "cache-misses")
_SEP = ","
NOT_SUPPORTED, NOT_COUNTED = "<not supported>", "<not counted>"
# Seconds allowed for the probe run at construction.
_PROBE_TIMEOUT = 60.0


@dataclass(frozen=True)
class Count:
    """One line of ``perf stat -x`` output.

    Attributes
    ----------
    event : str
        The event name as perf prints it (with modifiers such as ``:u``).
    value : float or None
        The count; None when perf could not count it (``problem`` says why).
    unit : str
        perf's unit of the value (``"msec"`` for task-clock, often empty).
    problem : str or None
        ``"<not supported>"`` or ``"<not counted>"``.
    running : float or None
        Percentage of the measurement time the counter was counting (below
        100 when perf multiplexed counters and scaled the value).
    """

    event: str
    value: float | None
    unit: str
    problem: str | None = None
    running: float | None = None


def parse_perf_csv(text: str, events: Sequence[str] = (), sep: str = _SEP) -> list[Count]:
    """Read the lines ``perf stat -x SEP`` writes.

    Parameters
    ----------
    text : str
        perf's output (its ``-o`` file, or its standard error).
    events : sequence of str
        The events asked for; an event whose name holds ``sep`` is only
        recognised through this list.
    sep : str, default ","

    Examples
    --------
    >>> from perfstats.adapters.targets.perf_counters import parse_perf_csv
    >>> out = '''# started on a day
    ...
    ... 0.71,msec,task-clock,711516,100.00,0.139,CPUs utilized
    ... <not supported>,,cycles,0,100.00,,
    ... '''
    >>> [(c.event, c.value, c.unit, c.problem) for c in parse_perf_csv(out)]
    [('task-clock', 0.71, 'msec', None), ('cycles', None, '', '<not supported>')]
    """
    counts = []
    names = sorted(events, key=len, reverse=True)
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = line.split(sep)
        if len(fields) < 3:
            continue
        value_text, unit, rest = fields[0], fields[1], sep.join(fields[2:])
        event = _event_name(rest, names, sep)
        after = rest[len(event) :].split(sep)[1:]
        running = _float(after[1]) if len(after) > 1 else None
        if value_text in (NOT_SUPPORTED, NOT_COUNTED):
            counts.append(Count(event, None, unit, value_text, running))
            continue
        value = _float(value_text)
        if value is None:
            continue
        counts.append(Count(event, value, unit, None, running))
    return counts


def _event_name(rest: str, names: Sequence[str], sep: str) -> str:
    for name in names:
        if rest.startswith(name):
            tail = rest[len(name) :]
            # perf may add modifiers (``cycles:u``) where it restricts counting.
            if tail.startswith(":"):
                return name + tail.split(sep, 1)[0]
            if not tail or tail.startswith(sep):
                return name
    return rest.split(sep, 1)[0]


def _float(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def series_name(event: str) -> str:
    """The series name of a perf event: ``perf_`` and the event without modifiers.

    Examples
    --------
    >>> from perfstats.adapters.targets.perf_counters import series_name
    >>> series_name("cycles:u"), series_name("task-clock")
    ('perf_cycles', 'perf_task-clock')
    """
    return "perf_" + event.split(":", 1)[0]


class PerfCounters:
    """Count ``events`` of each run of a local command with ``perf stat``.

    At construction perf runs once on ``true``: where perf is missing, not
    permitted, or cannot count an event, a one-line message names perf and
    the event, and the run goes on without it (without perf at all when no
    event is left).

    Parameters
    ----------
    events : sequence of str
        perf event names (``perf list``): ``cycles``, ``instructions``,
        ``cache-misses``, ``task-clock``, ...
    perf : str, default "perf"
        The perf program.

    Examples
    --------
    >>> from perfstats.adapters.targets.perf_counters import PerfCounters
    >>> counters = PerfCounters(["task-clock"])  # doctest: +SKIP
    >>> counters.events  # doctest: +SKIP
    ('task-clock',)
    """

    def __init__(self, events: Sequence[str], perf: str = "perf") -> None:
        if isinstance(events, str) or not isinstance(events, Sequence) or not events:
            raise ValueError(f"perf events must be a non-empty list of names; got {events!r}")
        for event in events:
            if not isinstance(event, str) or not event.strip() or event.startswith("-"):
                raise ValueError(f"perf event must be an event name; got {event!r}")
        self.asked = tuple(events)
        self.events: tuple[str, ...] = ()
        self.executable = shutil.which(perf)
        self.problems: dict[str, str] = {}
        if self.executable is None:
            self._give_up(f"perf: {perf!r} not found on PATH")
            return
        self.events = self._probe()

    def _give_up(self, message: str) -> None:
        logger.warning("%s; counters %s are not recorded", message, ", ".join(self.asked))
        self.problems = {event: message for event in self.asked}

    def _probe(self) -> tuple[str, ...]:
        assert self.executable is not None
        with self.output_file() as path:
            try:
                result = subprocess.run(
                    [*self._prefix(self.asked, path), "true"],
                    capture_output=True,
                    text=True,
                    timeout=_PROBE_TIMEOUT,
                    check=False,
                )
            except (OSError, subprocess.TimeoutExpired) as exc:
                self._give_up(f"perf: cannot run perf stat ({exc})")
                return ()
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        if result.returncode != 0:
            lines = [ln.strip() for ln in (result.stderr + text).splitlines() if ln.strip()]
            self._give_up(f"perf: perf stat failed ({lines[0] if lines else 'no message'})")
            return ()
        counted = {c.event.split(":", 1)[0]: c for c in parse_perf_csv(text, self.asked)}
        usable = []
        for event in self.asked:
            count = counted.get(event)
            if count is None:
                problem = "not in perf's output"
            elif count.problem is not None:
                problem = f"{count.problem} here"
            else:
                usable.append(event)
                continue
            self.problems[event] = problem
            logger.warning(
                f"perf: counter {event} is {problem}; it is not recorded, the run goes on"
            )
        return tuple(usable)

    def _prefix(self, events: Sequence[str], path: str) -> list[str]:
        assert self.executable is not None
        return [self.executable, "stat", "-x", _SEP, "-o", path, "-e", ",".join(events), "--"]

    @property
    def active(self) -> bool:
        """True when at least one event is counted."""
        return bool(self.events)

    @staticmethod
    @contextlib.contextmanager
    def output_file() -> Iterator[str]:
        """A fresh private file for perf's counts, removed after the block."""
        fd, path = tempfile.mkstemp(prefix="perfstats-perf-", suffix=".csv")
        os.close(fd)
        try:
            yield path
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)

    def command(self, argv: Sequence[str], output: str) -> list[str]:
        """``argv`` under ``perf stat``, its counts written to the file ``output``.

        Examples
        --------
        >>> from perfstats.adapters.targets.perf_counters import PerfCounters
        >>> counters = PerfCounters(["task-clock"])  # doctest: +SKIP
        >>> with counters.output_file() as path:  # doctest: +SKIP
        ...     argv = counters.command(["true"], path)
        """
        return [*self._prefix(self.events, output), *argv]

    def read(self, output: str) -> dict[str, SeriesValue]:
        """The series of the run whose counts went to the file ``output``."""
        try:
            with open(output, encoding="utf-8", errors="replace") as f:
                return self.series(f.read())
        except OSError as exc:
            return self.series(f"# cannot read perf's output: {exc}")

    def series(self, text: str) -> dict[str, SeriesValue]:
        """The counted events of one run's output as series (missing ones with their reason)."""
        counts = {c.event.split(":", 1)[0]: c for c in parse_perf_csv(text, self.events)}
        out = {}
        for event in self.events:
            count = counts.get(event)
            if count is not None and count.value is not None:
                out[series_name(event)] = SeriesValue(count.value, count.unit or "1", source=SOURCE)
            else:
                why = "not in perf's output" if count is None else count.problem
                out[series_name(event)] = SeriesValue(
                    None,
                    (count.unit if count else "") or "1",
                    source=SOURCE,
                    error=f"perf: {event} {why}",
                )
        return out

    def config(self) -> dict[str, object]:
        """The counters as plain data for records: asked for, counted, and why not."""
        return {"events": list(self.asked), "counted": list(self.events), "problems": self.problems}
