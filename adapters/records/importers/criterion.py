"""criterion.rs ``sample.json``: per-iteration time of every sample."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .results import FormatError, Results, build, need, number

NAME = "criterion"


def looks_like(obj: Any) -> bool:
    """``{"sampling_mode", "iters": [...], "times": [...]}``, or criterion 0.2's two lists."""
    return (isinstance(obj, Mapping) and "iters" in obj and "times" in obj) or _pair(obj)


def _pair(obj: Any) -> bool:
    # criterion 0.2 wrote sample.json as [[iters...], [times...]].
    return (
        isinstance(obj, list)
        and len(obj) == 2
        and all(isinstance(x, list) and x and all(isinstance(v, (int, float)) for v in x)
                for x in obj)
    )  # fmt: skip


def parse(obj: Any, *, name: str = "benchmark", source: str | None = None) -> Results:
    """Results from a decoded criterion ``sample.json``, in seconds per iteration.

    Sample ``i`` ran ``iters[i]`` iterations in ``times[i]`` nanoseconds; its
    value is ``times[i] / iters[i] * 1e-9``. The file does not name the
    benchmark: criterion writes that to ``benchmark.json`` beside it
    (``full_id``), which :func:`read` uses; here it is ``name``. criterion
    0.2 wrote the two lists as a pair, ``[[iters...], [times...]]``,
    which is read the same.

    Examples
    --------
    >>> from perfstats.adapters.records.importers.criterion import parse
    >>> parse({"iters": [2.0, 4.0], "times": [100.0, 180.0]}, name="f").values("f").round(12)
    array([5.0e-08, 4.5e-08])
    >>> parse([[2.0, 4.0], [100.0, 180.0]], name="f").values("f").round(12)
    array([5.0e-08, 4.5e-08])
    """
    if _pair(obj):
        obj = {"iters": obj[0], "times": obj[1]}
    iters = need(obj, "iters", list, NAME, "the sample")
    times = need(obj, "times", list, NAME, "the sample")
    if len(iters) != len(times):
        raise FormatError(NAME, f"has {len(iters)} iteration counts but {len(times)} times",
                          source)  # fmt: skip
    rows: list[tuple[Any, ...]] = []
    for k, (n, t) in enumerate(zip(iters, times, strict=True)):
        if not isinstance(n, (int, float)) or n <= 0:
            raise FormatError(NAME, f"iters[{k}] is {n!r}, not a positive count", source)
        if isinstance(n, bool):
            raise FormatError(NAME, f"iters[{k}] is {str(n).lower()}, not a count", source)
        rows.append((name, "s", number(t, NAME, f"times[{k}]", source) / n * 1e-9, n))
    meta = {"sampling_mode": obj.get("sampling_mode")}
    return build(rows, NAME, extra=["iterations"], metadata=meta, source=source)
