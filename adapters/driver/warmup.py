"""Automatic warm-up: the warm-up found in the data by the characterisation as runs arrive.

``perfstats run --warmup auto`` (``run(..., warmup="auto")``) does not
discard a fixed number of runs: it asks :func:`perfstats.characterize`
where the steady state of the successful runs so far starts, and gives the
stopping rule only the runs from there on. The policy:

* **First check** after :data:`FIRST_CHECK` (20) successful runs, the fewest
  the change-point search needs; until a steady state is found no run is
  judged (the runs are recorded with phase ``"warmup"``).
* **Re-checked** every :data:`CHECK_EVERY` (10) successful runs, as SHARP
  re-characterises its run set, on all successful runs in run order, and
  always once more before a stop of the rule is accepted.
* **Only later**: once found, the steady-state start may move later (a
  warm-up that ran longer than it first seemed) but never earlier, so a run
  once discarded as warm-up is never judged again. When it moves, the rule
  is restarted on the runs after the new start (a :class:`perfstats.Monitor`
  judges them exactly as a replay of them would) and the record's rows
  between the old and the new start are marked warm-up.
* **A cap**: at most ``max_warmup`` successful runs are warm-up. When that
  many have arrived without a steady state, or the steady state starts
  later, the start is the cap (the run is then flagged ``capped``).

A characterisation that finds no steady state leaves the start where it
was.

What no policy can do: tell a warm-up from the steady state before the
warm-up has ended. A series that is still on its first level looks flat,
so a rule that is satisfied before the warm-up ends (with fewer runs than
the warm-up lasts, plus the ten the change-point search needs after it)
stops there, on warm-up runs; give such a rule a larger ``min_n``, or use
a fixed warm-up (``warmup=N``) when the warm-up's length is known. The
runs collected before the first check are all judged at once when it finds
a steady state, so a rule that needs fewer stops at its own ``n`` with the
rest of them recorded as measurement runs.

The whole history of checks, and the last characterisation, go to the
record's metadata (``sessions[-1]["warmup"]``).

References
----------
E. Barrett, C. F. Bolz-Tereick, R. Killick, S. Mount and L. Tratt, "Virtual
Machine Warmup Blows Hot and Cold", Proceedings of the ACM on Programming
Languages 1(OOPSLA), 52:1-52:27, 2017.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from perfstats.characterization import Characterization, characterize

#: The value of ``warmup`` that asks for the automatic warm-up.
AUTO = "auto"
#: Successful runs before the first check (the change-point search needs 20).
FIRST_CHECK = 20
#: Successful runs between two checks.
CHECK_EVERY = 10
#: Default cap on the runs an automatic warm-up may take.
MAX_WARMUP = 200


class AutoWarmup:
    """The state of an automatic warm-up during one run (see the module notes).

    Parameters
    ----------
    max_warmup : int, default 200
        The most successful runs that may be warm-up.
    start : int, optional
        A start found earlier (a resumed run): the index, among the
        successful runs in run order, of the first judged one.

    Attributes
    ----------
    start : int or None
        Index of the first steady-state run among the successful runs
        (None while no steady state has been found).
    capped : bool
        Whether the cap set the start.
    checks : list of dict
        One entry per check: ``n`` runs seen, the ``detected`` start (None
        when the characterisation found no steady state), the ``state`` it
        saw and the ``start`` kept.
    last : Characterization or None
        The latest characterisation.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.adapters.driver.warmup import AutoWarmup
    >>> rng = np.random.default_rng(0)
    >>> x = np.concatenate([rng.normal(20, 1, 40), rng.normal(10, 1, 60)])
    >>> w = AutoWarmup()
    >>> w.update(x[:30]), w.start  # all slow so far: looks flat
    (True, 0)
    >>> w.update(x), w.start  # the fast level shows: the warm-up was 40 runs
    (True, 40)
    >>> w.update(x[:30]), w.start  # never earlier
    (False, 40)
    """

    def __init__(self, max_warmup: int = MAX_WARMUP, *, start: int | None = None) -> None:
        self.max_warmup = max_warmup
        self.start = start
        self.capped = False
        self.checks: list[dict[str, Any]] = []
        self.last: Characterization | None = None
        self.checked_n = 0

    def due(self, n: int) -> bool:
        """Whether ``n`` successful runs call for a check."""
        if n < FIRST_CHECK:
            return self.start is None and n >= self.max_warmup
        return n - self.checked_n >= CHECK_EVERY or (self.checked_n < FIRST_CHECK)

    def update(self, values: Any) -> bool:
        """Re-characterise all successful ``values`` so far; True when the start moved."""
        x = np.asarray(values, dtype=np.float64)
        n = int(x.size)
        self.checked_n = n
        detected: int | None = None
        state = "too few runs"
        if n >= FIRST_CHECK:
            # The modes do not bear on the steady state: skip their mixture fit.
            self.last = characterize(x, confirm_modes=False)
            detected = self.last.steady_state_start
            state = self.last.steady_state
        new = self.start
        if detected is not None and (new is None or detected > new):
            new = detected
        if new is None and n >= self.max_warmup:
            new = self.max_warmup
        if new is not None and new > self.max_warmup:
            new = self.max_warmup
        if new is not None and new == self.max_warmup and new != self.start:
            self.capped = True
        moved = new != self.start
        self.start = new
        self.checks.append({"n": n, "detected": detected, "state": state, "start": new})
        return moved

    def to_dict(self, start_run: int | None) -> dict[str, Any]:
        """Plain data for the record's metadata; ``start_run`` is the first judged run's number."""
        return {
            "mode": AUTO,
            "max_warmup": self.max_warmup,
            "start": self.start,
            "start_run": start_run,
            "capped": self.capped,
            "checks": list(self.checks),
            "characterization": None if self.last is None else self.last.to_dict(),
        }

    def __repr__(self) -> str:
        return f"AutoWarmup(start={self.start}, checks={len(self.checks)}, capped={self.capped})"


__all__ = ["AUTO", "CHECK_EVERY", "FIRST_CHECK", "MAX_WARMUP", "AutoWarmup"]


def warmup_setting(warmup: Any, max_warmup: Any = None) -> tuple[int | str, int | None]:
    """Check a ``warmup`` / ``max_warmup`` pair: a fixed count, or ``"auto"`` and its cap.

    Parameters
    ----------
    warmup : int or "auto"
        Invocations to discard first (an integer >= 0), or ``"auto"`` (any
        case) for the warm-up found in the data.
    max_warmup : int, optional
        With ``"auto"`` only: the most runs that may be warm-up (>= 1,
        default :data:`MAX_WARMUP`).

    Returns
    -------
    tuple
        ``(count, None)`` for a fixed warm-up, ``("auto", cap)`` otherwise.

    Raises
    ------
    ValueError
        When ``warmup`` is neither a count >= 0 nor ``"auto"``, or
        ``max_warmup`` is not a count >= 1 or is given without ``"auto"``.

    Examples
    --------
    >>> from perfstats.adapters.driver.warmup import warmup_setting
    >>> warmup_setting(5), warmup_setting("AUTO", 50)
    ((5, None), ('auto', 50))
    >>> warmup_setting(5, 50)
    Traceback (most recent call last):
    ...
    ValueError: max_warmup applies only to warmup='auto'; got warmup=5
    """
    auto = isinstance(warmup, str) and warmup.lower() == AUTO
    if max_warmup is not None and not auto:
        raise ValueError(f"max_warmup applies only to warmup='auto'; got warmup={warmup!r}")
    if auto:
        cap = MAX_WARMUP if max_warmup is None else count_at_least(max_warmup, "max_warmup", 1)
        return AUTO, cap
    fixed = not isinstance(warmup, (bool, str)) and isinstance(warmup, (int, np.integer))
    if not fixed or warmup < 0:
        raise ValueError(f"warmup must be an integer >= 0 or 'auto'; got {warmup!r}")
    return int(warmup), None


def count_at_least(value: Any, name: str, minimum: int) -> int:
    """``value`` as an int, checked to be an integer (not a bool) >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")
    return int(value)
