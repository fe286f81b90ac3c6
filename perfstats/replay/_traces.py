"""Named traces: the one set of shapes that replay and scoring accept."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["lookup_trace", "named_traces"]


def named_traces(traces: Mapping[str, Any] | Sequence[Any]) -> dict[str, Any]:
    """``traces`` as an ordered ``{name: trace}`` dict.

    A mapping keeps its keys (as strings); a sequence of arrays is named
    ``"0"``, ``"1"``, ... by position, which is also how :func:`perfstats.replay.replay`
    names its rows.

    Examples
    --------
    >>> from perfstats.replay._traces import named_traces
    >>> list(named_traces([[1.0, 2.0], [3.0, 4.0]]))
    ['0', '1']
    """
    if isinstance(traces, Mapping):
        items = [(str(k), v) for k, v in traces.items()]
    elif isinstance(traces, (str, bytes)) or not isinstance(traces, Iterable):
        raise ValueError(
            f"traces must be a mapping of names to arrays or a sequence of arrays; "
            f"got {type(traces).__name__}"
        )
    else:
        items = [(str(i), v) for i, v in enumerate(traces)]
    if not items:
        raise ValueError("traces is empty; it needs at least one trace")
    named = dict(items)
    if len(named) != len(items):
        raise ValueError("traces has duplicate names once converted to strings")
    return named


def lookup_trace(table: Mapping[str, Any], name: str, what: str = "traces") -> Any:
    """``table[name]``, or a ValueError naming the missing trace."""
    if name not in table:
        raise ValueError(f"{what} has no trace named {name!r} (it has {len(table)} traces)")
    return table[name]
