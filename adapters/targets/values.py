"""How a target turns an invocation into numbers: wall time, or values it reports."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..records.series import DIRECTIONS, LOWER, SeriesValue

WALL_UNIT = "ns"


class ValueReader:
    """Pick the value an invocation gives.

    With neither ``regex`` nor ``json_field`` the value is the wall time the
    driver timed around the call (monotonic clock, nanoseconds). Otherwise
    the value is read from the target's output, which is what a benchmark
    that times itself wants: the number excludes process start-up, network
    and scheduling noise the benchmark does not mean to measure.

    Parameters
    ----------
    regex : str, optional
        A regular expression searched in the output; its group named
        ``value``, else its first group, else the whole match, is the number.
    json_field : str, optional
        A dotted path into the output parsed as JSON (``"timing.ms"``,
        ``"runs.0.ns"`` for list items).
    unit : str, optional
        Unit of a reported value (default ``""``, unknown); wall time is
        always ``"ns"``.
    name : str, optional
        The series name of the value, when it is one of several
        (:class:`ValueReaders`).
    direction : {"lower", "higher"}, default "lower"
        Which way is better for the value (``"higher"`` for a throughput).

    Examples
    --------
    >>> from perfstats.adapters.targets.values import ValueReader
    >>> ValueReader(regex=r"took (\\d+) ms", unit="ms").read("took 12 ms", wall_ns=5_000_000)
    12.0
    >>> ValueReader(json_field="t.ms").read('{"t": {"ms": 3.5}}', wall_ns=1)
    3.5
    >>> ValueReader().read("anything", wall_ns=1234)
    1234.0
    """

    def __init__(
        self,
        *,
        regex: str | None = None,
        json_field: str | None = None,
        unit: str | None = None,
        name: str | None = None,
        direction: str = LOWER,
    ) -> None:
        if name is not None and (not isinstance(name, str) or not name.strip()):
            raise ValueError(f"a value's name must be a non-empty string; got {name!r}")
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}; got {direction!r}")
        self.name = name
        self.direction = direction
        if regex is not None and json_field is not None:
            raise ValueError("give at most one of regex and json_field")
        self.regex = regex
        self._pattern: re.Pattern[str] | None = None
        if regex is not None:
            if not isinstance(regex, str):
                raise ValueError(f"regex must be a string; got {regex!r}")
            try:
                self._pattern = re.compile(regex)
            except re.error as exc:
                raise ValueError(
                    f"regex {regex!r} is not a valid regular expression: {exc}"
                ) from None
        if json_field is not None and (not isinstance(json_field, str) or not json_field):
            raise ValueError(f"json_field must be a non-empty dotted path; got {json_field!r}")
        self.json_field = json_field
        if unit is not None and not isinstance(unit, str):
            raise ValueError(f"unit must be a string; got {unit!r}")
        if self.reports:
            self.unit = unit or ""
        else:
            if unit not in (None, WALL_UNIT):
                raise ValueError(
                    f"unit={unit!r} needs regex or json_field: wall time is always in ns"
                )
            self.unit = WALL_UNIT

    @property
    def reports(self) -> bool:
        """True when the value comes from the output rather than the wall clock."""
        return self._pattern is not None or self.json_field is not None

    def read(self, output: str, *, wall_ns: int) -> float:
        """Return the value of one invocation; ``ValueError`` names what is missing."""
        if self._pattern is not None:
            return _number(self._from_regex(output), f"regex {self.regex!r}")
        if self.json_field is not None:
            return _number(self._from_json(output), f"json_field {self.json_field!r}")
        return float(wall_ns)

    def _from_regex(self, output: str) -> Any:
        assert self._pattern is not None
        match = self._pattern.search(output)
        if match is None:
            raise ValueError(f"regex {self.regex!r} found nothing in the output {_excerpt(output)}")
        if "value" in self._pattern.groupindex:
            return match.group("value")
        return match.group(1) if self._pattern.groups else match.group(0)

    def _from_json(self, output: str) -> Any:
        try:
            node: Any = json.loads(output)
        except json.JSONDecodeError:
            raise ValueError(f"the output is not JSON: {_excerpt(output)}") from None
        for part in str(self.json_field).split("."):
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif (
                isinstance(node, list)
                and part.lstrip("-").isdigit()
                and -len(node) <= int(part) < len(node)
            ):
                node = node[int(part)]
            else:
                raise ValueError(f"json_field {self.json_field!r}: no {part!r} in the output")
        return node

    def config(self) -> dict[str, Any]:
        """The reader's settings as plain data (for records)."""
        if not self.reports:
            return {"value": "wall time", "unit": self.unit}
        source = (
            {"regex": self.regex} if self.regex is not None else {"json_field": self.json_field}
        )
        named: dict[str, Any] = {} if self.name is None else {"name": self.name}
        if self.direction != LOWER:
            named["direction"] = self.direction
        return {**named, **source, "unit": self.unit}


class ValueReaders(Sequence[ValueReader]):
    """Several named values read from one invocation's output, each a series.

    A program that reports more than one number (a throughput and a
    latency, the peak of a heap) gives each its own reader with a name and
    a unit; the numbers become the measurement's series (source
    ``"output"``). A single :class:`ValueReader` is a list of one.

    Parameters
    ----------
    readers : sequence of ValueReader or of mappings
        Each with a ``name`` and a ``regex`` or ``json_field``; a mapping
        holds :class:`ValueReader`'s arguments (``{"name": "rps", "regex":
        "rps=(\\S+)", "unit": "1/s", "direction": "higher"}``).

    Examples
    --------
    >>> from perfstats.adapters.targets.values import ValueReaders
    >>> readers = ValueReaders([
    ...     {"name": "rps", "regex": r"rps=(\\S+)", "unit": "1/s", "direction": "higher"},
    ...     {"name": "heap", "json_field": "heap", "unit": "B"},
    ... ])
    >>> found = readers.read_all("rps=1200.5")
    >>> found["rps"].value, found["rps"].direction, found["heap"].ok
    (1200.5, 'higher', False)
    """

    def __init__(self, readers: Sequence[ValueReader | Mapping[str, Any]] = ()) -> None:
        if isinstance(readers, (str, bytes, Mapping)) or not isinstance(readers, Sequence):
            raise ValueError(f"metrics must be a list of readers; got {readers!r}")
        items: list[ValueReader] = []
        for spec in readers:
            if isinstance(spec, Mapping):
                unknown = set(spec) - {"name", "regex", "json_field", "unit", "direction"}
                if unknown:
                    raise ValueError(
                        f"a metric reader takes name, regex, json_field, unit and direction; "
                        f"got {sorted(unknown)[0]!r}"
                    )
                spec = ValueReader(**spec)
            if not isinstance(spec, ValueReader):
                raise ValueError(
                    f"a metric reader must be a ValueReader or a mapping; got {spec!r}"
                )
            if spec.name is None or not spec.reports:
                raise ValueError(
                    "each metric reader needs a name and a regex or json_field; "
                    f"got {spec.config()!r}"
                )
            items.append(spec)
        names = [r.name for r in items]
        duplicate = next((n for n in names if names.count(n) > 1), None)
        if duplicate is not None:
            raise ValueError(f"metric name {duplicate!r} is given twice")
        self._readers = items

    def __len__(self) -> int:
        return len(self._readers)

    def __getitem__(self, index: Any) -> Any:
        return self._readers[index]

    def __iter__(self) -> Iterator[ValueReader]:
        return iter(self._readers)

    def read_all(self, output: str) -> dict[str, SeriesValue]:
        """Every reader's value as a series; a value not found carries the reason."""
        out = {}
        for reader in self._readers:
            assert reader.name is not None
            try:
                value: float | None = reader.read(output, wall_ns=0)
                error = None
            except ValueError as exc:
                value, error = None, f"{reader.name}: {exc}"
            out[reader.name] = SeriesValue(
                value, reader.unit, direction=reader.direction, source="output", error=error
            )
        return out

    def config(self) -> list[dict[str, Any]]:
        """The readers' settings as plain data (for records)."""
        return [r.config() for r in self._readers]


def _number(raw: Any, source: str) -> float:
    if isinstance(raw, bool):
        raise ValueError(f"{source} gave {raw!r}, not a number")
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise ValueError(f"{source} gave {_excerpt(str(raw))}, not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"{source} gave {value}, not a finite number")
    return value


def _excerpt(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[:limit] + "...")
