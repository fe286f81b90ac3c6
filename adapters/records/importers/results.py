"""Tidy per-run results shared by every importer, and the error they raise."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    # Only the type checker reads the annotations, so typing_extensions is
    # not a run-time dependency.
    from typing_extensions import Unpack

#: Time units as tools write them, in seconds.
TIME_UNITS: dict[str, float] = {
    "s": 1.0, "sec": 1.0, "second": 1.0, "seconds": 1.0,
    "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ns": 1e-9, "ps": 1e-12,
    "min": 60.0,
}  # fmt: skip

COLUMNS = ["benchmark", "unit", "value", "run", "direction"]

#: Which values are better: "lower" (times, sizes) or "higher" (throughputs, rates).
LOWER, HIGHER = "lower", "higher"


class FormatError(ValueError):
    """A file that is not what it looked like, or is damaged.

    The message names the format it looked like and what was wrong.

    Parameters
    ----------
    fmt : str or None
        The tool's name for the format the data looked like (``"JMH"``,
        ``"hyperfine"``), kept as ``format``; None when it looked like
        none.
    problem : str
        What was wrong, worded to follow the file's name (``"is empty"``,
        ``"is not valid JSON ..."``); kept as ``problem``.
    source : str, optional
        The file the data came from, named first in the message; kept as
        ``source``.

    Examples
    --------
    >>> from perfstats.adapters.io import FormatError, parse
    >>> str(FormatError("JMH", "lacks primaryMetric", "jmh.json"))
    'jmh.json: looks like JMH but lacks primaryMetric'
    >>> try:
    ...     parse("", source="bench.txt")
    ... except FormatError as exc:
    ...     print(exc.format, exc.problem, exc.source, sep=" | ")
    None | is empty | bench.txt
    """

    def __init__(self, fmt: str | None, problem: str, source: str | None = None) -> None:
        self.format = fmt
        self.problem = problem
        self.source = source
        where = f"{source}: " if source else ""
        what = f"looks like {fmt} but " if fmt else ""
        super().__init__(f"{where}{what}{problem}")


@dataclass(frozen=True)
class Results:
    """Tidy per-run values from one file of another tool.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per successful value: ``benchmark`` (str),
        ``unit`` (str; times are in ``"s"``), ``value`` (float), ``run``
        (int, the value's position among its benchmark's values) and
        ``direction`` (``"lower"`` or ``"higher"``: which values are better,
        from the tool's unit or mode), plus columns a format adds (e.g.
        ``fork``, ``iterations``, ``repetition``).
    format : str
        The format read (``"pyperf"``, ``"hyperfine"``, ...).
    metadata : dict
        What the tool recorded about the whole run (machine, commit, ...).
    benchmark_metadata : dict of str to dict
        What it recorded per benchmark.
    failed : dict of str to int
        Runs the tool recorded as failed, by benchmark (a non-zero exit
        code, an error); they are not in ``frame``. A benchmark none of
        whose runs succeeded is here only (see :attr:`unrun`).

    Examples
    --------
    :func:`~perfstats.adapters.io.parse` and :func:`~perfstats.adapters.io.read`
    return them; here from a hyperfine export:

    >>> from perfstats.adapters.io import parse
    >>> res = parse({"results": [{"command": "ls", "times": [0.25, 0.5, 0.75]},
    ...                          {"command": "ls -l", "times": [1.0, 1.25]}]})
    >>> res
    Results(hyperfine: 2 benchmarks, 5 values)
    >>> res.format, res.benchmarks
    ('hyperfine', ['ls', 'ls -l'])
    >>> res.values("ls").tolist(), res.unit("ls"), res.direction("ls")
    ([0.25, 0.5, 0.75], 's', 'lower')
    """

    frame: pd.DataFrame
    format: str
    metadata: Mapping[str, Any] = field(default_factory=dict)
    benchmark_metadata: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    failed: Mapping[str, int] = field(default_factory=dict)

    @property
    def benchmarks(self) -> list[str]:
        """Benchmark names in file order."""
        return list(dict.fromkeys(self.frame["benchmark"]))

    @property
    def unrun(self) -> dict[str, int]:
        """Benchmarks with failed runs and no successful one, with their failed counts."""
        measured = set(self.frame["benchmark"])
        return {n: c for n, c in self.failed.items() if n not in measured}

    def values(self, name: str) -> np.ndarray:
        """The values of one benchmark, in run order.

        Parameters
        ----------
        name : str
            Name of the benchmark, as in :attr:`benchmarks`.

        Returns
        -------
        numpy.ndarray
            Its successful values as float64, in the unit :meth:`unit` gives
            (seconds for times).

        Raises
        ------
        KeyError
            When the results hold no value of that benchmark, also when all
            its runs failed (see :attr:`unrun`).
        """
        return self._rows(name)["value"].to_numpy(dtype=np.float64)

    def unit(self, name: str) -> str:
        """The unit of one benchmark.

        Parameters
        ----------
        name : str
            A benchmark of :attr:`benchmarks`.

        Returns
        -------
        str
            The unit of its values: ``"s"`` for times, which importers
            convert to seconds, else the unit the tool wrote.

        Raises
        ------
        KeyError
            As :meth:`values` does, for a benchmark without a value.
        """
        return str(self._rows(name)["unit"].iloc[0])

    def direction(self, name: str) -> str:
        """Which values of one benchmark are better: ``"lower"`` or ``"higher"``.

        Parameters
        ----------
        name : str
            As for :meth:`values`.

        Returns
        -------
        {"lower", "higher"}
            ``"lower"`` for times and sizes, ``"higher"`` for throughputs
            and rates, as the tool's unit or mode says.

        Raises
        ------
        KeyError
            When the results hold no value of that benchmark (see :meth:`values`).
        """
        return str(self._rows(name)["direction"].iloc[0])

    def _rows(self, name: str) -> pd.DataFrame:
        rows = self.frame[self.frame["benchmark"] == name]
        if rows.empty:
            why = (
                f"all its {self.failed[name]} run(s) failed"
                if name in self.failed
                else f"the benchmarks are {self.benchmarks}"
            )
            raise KeyError(f"no value of benchmark {name!r} in these {self.format} results: {why}")
        return rows

    def __repr__(self) -> str:
        return (
            f"Results({self.format}: {len(self.benchmarks)} benchmarks, "
            f"{len(self.frame)} values)"
        )


def number(value: Any, fmt: str, where: str, source: str | None = None) -> float:
    """``value`` as a float, or a FormatError naming ``where`` and what the value is.

    A JSON ``true`` is no 1.0, a string no number, and an integer too large
    for a float (JSON allows 400 digits) no measurement.

    Examples
    --------
    >>> from perfstats.adapters.records.importers.results import number
    >>> number(2, "JMH", "x")
    2.0
    >>> number(True, "JMH", "[0].rawData[0][1]")
    Traceback (most recent call last):
    ...
    perfstats.adapters.records.importers.results.FormatError: looks like JMH but \
[0].rawData[0][1] is true, not a number
    """
    if isinstance(value, (bool, np.bool_)):
        raise FormatError(fmt, f"{where} is {str(value).lower()}, not a number", source)
    if isinstance(value, (int, np.integer)):
        try:
            return float(value)
        except OverflowError:
            digits = len(str(abs(int(value))))
            raise FormatError(
                fmt, f"{where} is a {digits}-digit integer, too large for a measurement", source
            ) from None
    if isinstance(value, (float, np.floating)):
        return float(value)
    shown = "null" if value is None else f"a {type(value).__name__}"
    raise FormatError(fmt, f"{where} is {shown}, not a number", source)


def time_unit(unit: str, fmt: str, where: str) -> float:
    """Seconds per ``unit`` (a time unit), or a FormatError."""
    try:
        return TIME_UNITS[unit]
    except KeyError:
        raise FormatError(fmt, f"{where} has the unknown time unit {unit!r}") from None


class BuildOptions(TypedDict, total=False):
    """What :func:`build` and :func:`build_arrays` take beside the values.

    Attributes
    ----------
    extra : list of str
        Columns a format adds (``fork``, ``iterations``), after the value of
        each row (:func:`build`) or in each benchmark's mapping
        (:func:`build_arrays`).
    metadata, benchmark_metadata : dict
        What the tool recorded about the whole run and per benchmark.
    source : str
        The file read, named in errors.
    direction : str or dict of str to str
        Which values are better, for every benchmark or by name (a name
        not given is ``"lower"``; the default is ``"lower"`` for all).
    failed : dict of str to int
        The runs the tool recorded as failed, by name. A benchmark with
        failed runs and no successful one has no row, only its count
        (:attr:`Results.unrun`).

    Examples
    --------
    >>> from perfstats.adapters.records.importers.results import BuildOptions
    >>> BuildOptions(source="a.json", failed={"x": 2})
    {'source': 'a.json', 'failed': {'x': 2}}
    """

    extra: Sequence[str]
    metadata: Mapping[str, Any] | None
    benchmark_metadata: Mapping[str, Mapping[str, Any]] | None
    source: str | None
    direction: str | Mapping[str, str]
    failed: Mapping[str, int] | None


@dataclass(frozen=True)
class _Built:
    """The options of a build, with their defaults, and what a build does with them."""

    fmt: str
    extra: list[str]
    source: str | None
    direction: str | Mapping[str, str]
    failed: dict[str, int]
    metadata: dict[str, Any]
    benchmark_metadata: dict[str, Mapping[str, Any]]

    @classmethod
    def of(cls, fmt: str, options: BuildOptions, measured: bool) -> _Built:
        """The options in full; a FormatError when nothing was ``measured`` and nothing failed."""
        failed = {str(k): int(v) for k, v in (options.get("failed") or {}).items() if v}
        source = options.get("source")
        if not measured and not failed:
            raise FormatError(fmt, "holds no measured value", source)
        return cls(
            fmt,
            list(options.get("extra", ())),
            source,
            options.get("direction", LOWER),
            failed,
            dict(options.get("metadata") or {}),
            dict(options.get("benchmark_metadata") or {}),
        )

    def way(self, name: str) -> str:
        """Which values of benchmark ``name`` are better."""
        if isinstance(self.direction, str):
            return self.direction
        return self.direction.get(name, LOWER)

    def results(self, frame: pd.DataFrame) -> Results:
        """The results of ``frame``, with what the options say beside it."""
        return Results(frame, self.fmt, self.metadata, self.benchmark_metadata, self.failed)


def build(
    rows: Sequence[tuple[str, str, float]] | Sequence[tuple[Any, ...]],
    fmt: str,
    **options: Unpack[BuildOptions],
) -> Results:
    """Results from ``(benchmark, unit, value, *extra)`` rows; checks they are finite numbers.

    The ``options`` (:class:`BuildOptions`) name the ``extra`` columns and
    say what else the tool recorded: metadata, which values are better
    (``direction``) and the runs that failed.
    """
    built = _Built.of(fmt, options, measured=bool(rows))
    position: dict[str, int] = {}
    checked = []
    for row in rows:
        k = position[str(row[0])] = position.get(str(row[0]), -1) + 1
        checked.append((row[0], row[1], number(row[2], fmt, _place(row[0], k), built.source),
                        *row[3:]))  # fmt: skip
    frame = pd.DataFrame(checked, columns=["benchmark", "unit", "value", *built.extra])
    frame["value"] = frame["value"].astype(np.float64)
    bad = ~np.isfinite(frame["value"].to_numpy())
    if bad.any():
        row = frame[bad].iloc[0]
        raise FormatError(
            fmt,
            f"benchmark {row['benchmark']!r} has a non-finite value {row['value']!r}",
            built.source,
        )
    frame["benchmark"] = frame["benchmark"].astype(str)
    frame["run"] = frame.groupby("benchmark", sort=False).cumcount()
    if isinstance(built.direction, str):
        frame["direction"] = built.direction
    else:
        frame["direction"] = [built.way(n) for n in frame["benchmark"]]
    return built.results(frame[[*COLUMNS, *built.extra]])


def numbers(values: list[Any], fmt: str, name: str, source: str | None = None) -> np.ndarray:
    """Benchmark ``name``'s JSON list of values as a float64 array, each checked by :func:`number`.

    The common case (every item a float or an int) is one pass over the
    types and one conversion; otherwise the first item that is no number
    is named as :func:`build` names it (``benchmark 'x' value 3``).

    Examples
    --------
    >>> from perfstats.adapters.records.importers.results import numbers
    >>> numbers([1, 2.5], "hyperfine", "ls").tolist()
    [1.0, 2.5]
    """
    if set(map(type, values)) <= {float, int}:
        try:
            return np.asarray(values, dtype=np.float64)
        except OverflowError:
            pass  # a huge integer: named below
    out = np.empty(len(values), dtype=np.float64)
    for i, v in enumerate(values):
        out[i] = number(v, fmt, _place(name, i), source)
    return out


def _place(name: Any, k: int) -> str:
    return f"benchmark {str(name)!r} value {k}"


def build_arrays(
    series: Sequence[tuple[str, str, np.ndarray, Mapping[str, np.ndarray]]],
    fmt: str,
    **options: Unpack[BuildOptions],
) -> Results:
    """Results from ``(benchmark, unit, values, {extra column: values})``, one per benchmark.

    As :func:`build`, for a format whose values come as one array per
    benchmark: the frame is assembled from the arrays, with no Python
    object per value (a large file's values would cost tens of bytes each).
    """
    built = _Built.of(fmt, options, measured=any(len(s[2]) for s in series))
    kept = [s for s in series if len(s[2])]
    sizes = np.array([len(s[2]) for s in kept], dtype=np.int64)
    names = np.array([str(s[0]) for s in kept] or [""], dtype=object)[: len(kept)]
    units = np.array([str(s[1]) for s in kept] or [""], dtype=object)[: len(kept)]
    ways = [built.way(str(s[0])) for s in kept]
    values = np.concatenate([np.asarray(s[2], dtype=np.float64) for s in kept]) if kept \
        else np.empty(0)  # fmt: skip
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        which = int(np.searchsorted(np.cumsum(sizes), bad[0], side="right"))
        raise FormatError(
            fmt, f"benchmark {kept[which][0]!r} has a non-finite value {values[bad[0]]!r}",
            built.source,
        )  # fmt: skip
    starts = np.cumsum(sizes) - sizes
    columns: dict[str, Any] = {
        "benchmark": np.repeat(names, sizes),
        "unit": np.repeat(units, sizes),
        "value": values,
        "run": np.arange(values.size, dtype=np.int64) - np.repeat(starts, sizes),
        "direction": np.repeat(np.array(ways or [""], dtype=object)[: len(kept)], sizes),
    }
    for column in built.extra:
        columns[column] = np.concatenate([np.asarray(s[3][column]) for s in kept]) if kept \
            else np.empty(0)  # fmt: skip
    return built.results(pd.DataFrame(columns, copy=False))


def need(obj: Any, key: str, kind: type | tuple[type, ...], fmt: str, where: str) -> Any:
    """``obj[key]`` of the given type, or a FormatError naming what is missing."""
    if not isinstance(obj, Mapping):
        raise FormatError(fmt, f"{where} is a {type(obj).__name__}, not an object")
    if key not in obj:
        raise FormatError(fmt, f"{where} has no {key!r}")
    value = obj[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        # JSON's true is a Python int: no count, no time.
        raise FormatError(fmt, f"{where}[{key!r}] is {str(value).lower()}, expected "
                          f"{'/'.join(k.__name__ for k in kinds)}")  # fmt: skip
    if not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise FormatError(
            fmt, f"{where}[{key!r}] is a {type(value).__name__}, expected {names}"
        )
    return value
