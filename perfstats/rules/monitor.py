"""Stateful wrappers that feed stopping rules from a run loop: one series or many."""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterable, Mapping, Sized
from typing import Any

import numpy as np

from .._validation import as_sample, check_int
from ._wording import runs
from .base import Rule
from .decision import Decision

_INITIAL_CAPACITY = 64


class Monitor:
    """Accumulate measurements and judge them at the rule's interval boundaries.

    A harness calls :meth:`add` with each batch of new measurements. The rule
    is consulted every time the number of points reaches a multiple of
    ``rule.interval`` (and at least ``min_n``), in order, so a batch that
    spans several boundaries is judged at each of them and the run stops at
    the first boundary where the rule says stop, exactly as a replay of the
    same sequence would.

    Parameters
    ----------
    rule : Rule
        Any rule from :mod:`perfstats.rules`.
    min_n : int, optional
        Do not judge before this many points (default: the rule's own
        ``min_n``).
    max_n : int, optional
        Stop when this many points have arrived even if the rule never says
        stop; the decision then carries ``details["max_n_reached"] = True``.

    Attributes
    ----------
    data : numpy.ndarray
        Every measurement added so far, in order (a read-only view).
    decision : Decision
        The latest decision.
    history : list of Decision
        Every judgement made so far.

    Examples
    --------
    >>> from perfstats import Monitor
    >>> from perfstats.rules import Fixed
    >>> m = Monitor(Fixed(n=4))
    >>> m.add([1.0, 2.0]).stop
    False
    >>> m.add([3.0, 4.0, 5.0])
    Decision(stop at n=4, rule='Fixed': 4 of 4 runs done)
    """

    def __init__(self, rule: Rule, *, min_n: int | None = None, max_n: int | None = None) -> None:
        if not isinstance(rule, Rule):
            raise ValueError(f"rule must be a perfstats.rules.Rule, got {type(rule).__name__}")
        self.rule = rule
        self.min_n = rule.min_n if min_n is None else check_int(min_n, "min_n", minimum=1)
        self.max_n = None if max_n is None else check_int(max_n, "max_n", minimum=1)
        # An append-only buffer that doubles when full: one add costs O(1)
        # amortised, and the rule sees a view of its prefix, never a copy.
        # Values once written are never changed, so views handed out stay valid.
        self._buf = np.empty(_INITIAL_CAPACITY)
        self._n = 0
        self.history: list[Decision] = []
        self.decision = Decision(stop=False, n=0, rule=rule.name, reason="no runs yet", details={})

    @property
    def data(self) -> np.ndarray:
        view = self._buf[: self._n]
        view.flags.writeable = False
        return view

    def _append(self, values: Any) -> None:
        """Validate and store ``values`` (a number or a 1-D sample)."""
        if (type(values) is float or type(values) is int) and not isinstance(values, bool):
            # The common single-value path skips as_sample's array round trip.
            value = float(values)
            if not math.isfinite(value):
                as_sample([value], "values")  # raises with the usual message
            self._reserve(1)
            self._buf[self._n] = value
            self._n += 1
            return
        new_values = as_sample(values, "values")
        self._reserve(new_values.size)
        self._buf[self._n : self._n + new_values.size] = new_values
        self._n += new_values.size

    def _reserve(self, extra: int) -> None:
        need = self._n + extra
        if need > self._buf.size:
            grown = np.empty(max(need, 2 * self._buf.size))
            grown[: self._n] = self._buf[: self._n]
            self._buf = grown

    @property
    def stopped(self) -> bool:
        return self.decision.stop

    def _boundaries(self, old: int, new: int) -> list[int]:
        step = self.rule.interval
        first = max(old + 1, self.min_n)
        start = -(-first // step) * step
        marks = list(range(start, new + 1, step))
        if self.max_n is not None and old < self.max_n <= new and self.max_n not in marks:
            marks.append(self.max_n)
            marks.sort()
        return marks

    def add(self, values: Any) -> Decision:
        """Append measurements and return the current decision.

        The rule is consulted at every judgement size the new values reach
        (a batch spanning several is judged at each, in order), and the run
        stops at the first one where the rule says stop. After the monitor
        has stopped, further values are still stored in :attr:`data` but not
        judged.

        Parameters
        ----------
        values : float or array_like
            One measurement or a 1-D batch of them, finite; an empty batch
            changes nothing.

        Returns
        -------
        Decision
            The latest decision: the rule's at the last judgement size
            reached, or, before the first one, a waiting decision whose
            reason says when the next judgement comes.

        Raises
        ------
        ValueError
            For values that are not finite or not one-dimensional.

        Examples
        --------
        >>> from perfstats import Monitor
        >>> from perfstats.rules import Fixed
        >>> m = Monitor(Fixed(n=3), max_n=10)
        >>> m.add(1.0).reason
        '1 run; next check at 3 (no judgement yet)'
        """
        if isinstance(values, np.number) and not isinstance(values, np.bool_):
            values = float(values)
        elif (not isinstance(values, (int, float)) or isinstance(values, bool)) and (
            _is_empty_batch(values)
        ):
            return self.decision
        old = self._n
        self._append(values)
        if self.decision.stop:
            return self.decision
        full = self.data
        for mark in self._boundaries(old, self._n):
            if mark % self.rule.interval != 0 or mark < self.min_n:
                # An off-grid max_n is where the runs end, not a judgement:
                # replay charges such a test its runs without asking the rule
                # again, and the monitor must decide alike.
                decision = self.history[-1] if self.history else self._waiting(mark)
            else:
                decision = self.rule.check(full[:mark])
            if self.max_n is not None and mark >= self.max_n and not decision.stop:
                decision = self._ran_out(decision, mark)
            self.decision = decision
            self.history.append(decision)
            if decision.stop:
                break
        else:
            if not self.history or self.history[-1].n != self._n:
                self.decision = self._waiting(self._n)
        return self.decision

    def _ran_out(self, last: Decision, n: int) -> Decision:
        details: dict[str, Any] = dict(last.details)
        details.update({"max_n_reached": True, "rule_reason": last.reason})
        return Decision(
            stop=True,
            n=n,
            rule=last.rule,
            reason=f"reached max_n={self.max_n} before the rule stopped ({last.reason})",
            details=details,
        )

    def _waiting(self, n: int) -> Decision:
        step = self.rule.interval
        nxt = max(-(-max(n + 1, self.min_n) // step) * step, self.min_n)
        last = self.history[-1].reason if self.history else "no judgement yet"
        return Decision(
            stop=False,
            n=n,
            rule=self.rule.name,
            reason=f"{runs(n)}; next check at {nxt} ({last})",
            details={"next_check": nxt},
        )

    def __repr__(self) -> str:
        return f"Monitor({self.rule!r}, n={self._n}, stop={self.decision.stop})"


def _is_empty_batch(values: Any) -> bool:
    # An empty batch is a harness with nothing new to report, not an error;
    # a 0-d array is neither empty nor a batch, so validation names it.
    if isinstance(values, np.ndarray):
        return values.ndim == 1 and values.size == 0
    return isinstance(values, Sized) and not isinstance(values, (str, bytes)) and len(values) == 0


#: The values of ``stop_when`` that are not a series name.
STOP_WHEN = ("all", "any")


class MultiMonitor:
    """One :class:`Monitor` per named series, each with its own rule, judged independently.

    A harness that measures several things per invocation (the benchmarks
    of a suite, the metrics of a run) calls :meth:`add` with a mapping of
    series name to that series' new values. Every series has its own
    :class:`Monitor` over its own copy of the rule, so each is judged
    exactly as a lone :class:`Monitor` fed the same values would be; the
    whole stops by ``stop_when``.

    Parameters
    ----------
    rule : Rule or callable
        A rule, copied with :func:`copy.deepcopy` for every series (so all
        series start from the same rule state, its random generator
        included, and a series' decisions do not depend on the others);
        or a factory called with no argument that returns a new rule for
        each series (to give each its own seed, say).
    names : iterable of str, optional
        Series known from the start. A series not named here starts when
        it first appears in :meth:`add`.
    min_n, max_n : int, optional
        As for :class:`Monitor`, for every series.
    stop_when : str, default "all"
        ``"all"``: stopped when every known series has stopped; ``"any"``:
        when one has; any other string is the name of the series whose
        stop ends the whole (the words ``"all"`` and ``"any"`` always mean
        the above, never a series of that name).

    Attributes
    ----------
    monitors : dict of str to Monitor
        Every series' monitor, in the order the series appeared.

    Examples
    --------
    >>> from perfstats import MultiMonitor
    >>> from perfstats.rules import Fixed
    >>> mm = MultiMonitor(Fixed(n=3))
    >>> sorted(mm.add({"parse": [1.0, 2.0, 3.0], "render": [5.0]}).items())[0]
    ('parse', Decision(stop at n=3, rule='Fixed': 3 of 3 runs done))
    >>> mm.stopped, mm.active
    (False, ('render',))
    >>> _ = mm.add({"render": [6.0, 7.0], "parse": [4.0]})
    >>> mm.stopped, mm.active
    (True, ())
    """

    def __init__(
        self,
        rule: Rule | Callable[[], Rule],
        names: Iterable[str] = (),
        *,
        min_n: int | None = None,
        max_n: int | None = None,
        stop_when: str = "all",
    ) -> None:
        if not isinstance(rule, Rule) and not callable(rule):
            raise ValueError(
                f"rule must be a perfstats.rules.Rule or a factory of rules, "
                f"got {type(rule).__name__}"
            )
        if not isinstance(stop_when, str) or not stop_when:
            raise ValueError(f"stop_when must be 'all', 'any' or a series name; got {stop_when!r}")
        self._rule = rule
        self.min_n = min_n
        self.max_n = max_n
        self.stop_when = stop_when
        self.monitors: dict[str, Monitor] = {}
        for name in names:
            self._monitor(name)

    def _new_rule(self) -> Rule:
        if isinstance(self._rule, Rule):
            return copy.deepcopy(self._rule)
        built = self._rule()
        if not isinstance(built, Rule):
            raise ValueError(
                f"the rule factory must return a perfstats.rules.Rule, got {type(built).__name__}"
            )
        return built

    def _monitor(self, name: str) -> Monitor:
        found = self.monitors.get(name)
        if found is None:
            if not isinstance(name, str) or not name:
                raise ValueError(f"a series name must be a non-empty string; got {name!r}")
            found = Monitor(self._new_rule(), min_n=self.min_n, max_n=self.max_n)
            self.monitors[name] = found
        return found

    def add(self, values: Mapping[str, Any]) -> dict[str, Decision]:
        """Give each named series its new values; return every series' decision.

        A series missing from ``values`` gets nothing this time; a new name
        starts a new series. Values of a stopped series are kept but not
        judged, as :meth:`Monitor.add` does.

        Parameters
        ----------
        values : mapping of str to float or array_like
            New values by series name, each as :meth:`Monitor.add` takes them.

        Returns
        -------
        dict of str to Decision
            The latest decision of every series seen so far (:attr:`decisions`).

        Raises
        ------
        ValueError
            When ``values`` is not a mapping, or a series' values are refused
            as :meth:`Monitor.add` refuses them.

        Examples
        --------
        >>> from perfstats import MultiMonitor
        >>> from perfstats.rules import Fixed
        >>> mm = MultiMonitor(Fixed(n=2), stop_when="b")
        >>> mm.add({"a": [1.0, 2.0]})["a"].stop, mm.stopped
        (True, False)
        """
        if not isinstance(values, Mapping):
            raise ValueError(
                f"values must be a mapping of series name to values; got {type(values).__name__}"
            )
        for name, batch in values.items():
            self._monitor(name).add(batch)
        return self.decisions

    @property
    def names(self) -> tuple[str, ...]:
        """Every known series, in the order they appeared."""
        return tuple(self.monitors)

    @property
    def decisions(self) -> dict[str, Decision]:
        """The latest decision of every series."""
        return {name: m.decision for name, m in self.monitors.items()}

    @property
    def active(self) -> tuple[str, ...]:
        """The series whose rule has not stopped yet, in order of appearance."""
        return tuple(name for name, m in self.monitors.items() if not m.stopped)

    @property
    def stopped(self) -> bool:
        """Whether the whole has stopped, by :attr:`stop_when`."""
        if not self.monitors:
            return False
        if self.stop_when == "all":
            return all(m.stopped for m in self.monitors.values())
        if self.stop_when == "any":
            return any(m.stopped for m in self.monitors.values())
        named = self.monitors.get(self.stop_when)
        return named is not None and named.stopped

    @property
    def capped(self) -> tuple[str, ...]:
        """The series that stopped at ``max_n`` before their rule did."""
        return tuple(
            name
            for name, m in self.monitors.items()
            if m.stopped and m.decision.details.get("max_n_reached")
        )

    def __getitem__(self, name: str) -> Monitor:
        return self.monitors[name]

    def __len__(self) -> int:
        return len(self.monitors)

    def __repr__(self) -> str:
        return (
            f"MultiMonitor({len(self.monitors)} series, {len(self.active)} active, "
            f"stop_when={self.stop_when!r}, stopped={self.stopped})"
        )
