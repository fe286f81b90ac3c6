"""airspeed velocity results (``results/<machine>/<commit>-<env>.json``), ``--record-samples``."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from .results import FormatError, Results, build, need

NAME = "asv"


def looks_like(obj: Any) -> bool:
    """``{"commit_hash", "results": {...}, "result_columns": [...]}`` (results format 2)."""
    return (
        isinstance(obj, Mapping)
        and isinstance(obj.get("results"), Mapping)
        and ("result_columns" in obj or "commit_hash" in obj)
    )


def _unit(name: str) -> str:
    # asv's results file has no unit; the benchmark's kind (its name's
    # prefix, which asv itself reads) says what the values are.
    last = name.rsplit(".", 1)[-1]
    if last.startswith("time_"):
        return "s"
    if last.startswith(("mem_", "peakmem_")):
        return "B"
    return "1"


def parse(obj: Any, *, source: str | None = None) -> Results:
    """Results from a decoded asv results file: every sample of every benchmark.

    Samples are stored only when asv ran with ``--record-samples``; without
    them a benchmark has one number (its median), which the gate cannot
    use, so the file is refused. A parameterised benchmark becomes one
    benchmark per parameter combination, ``name(p1, p2)``. A benchmark or
    combination that failed (``null``) has no successful run, and is
    refused, naming it (left out, it would vanish from the comparison).

    Examples
    --------
    >>> from perfstats.adapters.records.importers.asv import parse
    >>> doc = {"commit_hash": "abc", "result_columns": ["result", "params", "samples"],
    ...        "results": {"b.time_f": [[1.0, 2.0], [["1", "2"]], [[1.0, 1.1], [2.0, 2.1]]]}}
    >>> parse(doc).benchmarks
    ['b.time_f(1)', 'b.time_f(2)']
    """
    results = need(obj, "results", Mapping, NAME, "the file")
    columns = need(obj, "result_columns", list, NAME, "the file")
    if "samples" not in columns:
        raise FormatError(NAME, "has no 'samples' column", source)
    col = {c: k for k, c in enumerate(columns)}
    rows: list[tuple[Any, ...]] = []
    per: dict[str, dict[str, Any]] = {}
    failed: dict[str, int] = {}
    for name, entry in results.items():
        if not isinstance(entry, list):
            raise FormatError(NAME, f"results[{name!r}] is not a list", source)
        full = entry + [None] * (len(columns) - len(entry))
        samples, params = full[col["samples"]], full[col["params"]] or []
        combos = list(itertools.product(*params)) if params else [()]
        result = full[col["result"]] if "result" in col else None
        failed_whole = result is None or (
            isinstance(result, list) and all(r is None for r in result)
        )
        if samples is None and failed_whole:
            # asv writes null for a benchmark that failed (raised, timed out).
            for combo in combos:
                failed[f"{name}({', '.join(map(str, combo))})" if combo else name] = 1
            continue
        if samples is None:
            raise FormatError(
                NAME, f"results[{name!r}] has no samples: run asv with --record-samples", source
            )
        if len(samples) != len(combos):
            raise FormatError(
                NAME, f"results[{name!r}] has {len(samples)} sample lists for "
                f"{len(combos)} parameter combinations", source,
            )  # fmt: skip
        for combo, values in zip(combos, samples, strict=True):
            label = f"{name}({', '.join(map(str, combo))})" if combo else name
            if values is None:
                failed[label] = 1
                continue
            if not isinstance(values, list):
                raise FormatError(NAME, f"results[{name!r}] samples of {label} are not a list",
                                  source)  # fmt: skip
            rows.extend((label, _unit(name), v) for v in values)
            per[label] = {"version": full[col.get("version", -1)] if "version" in col else None,
                          "params": dict(enumerate(combo))}  # fmt: skip
    meta = {k: obj[k] for k in ("commit_hash", "env_name", "date", "params", "python",
                                "requirements", "version") if k in obj}  # fmt: skip
    return build(rows, NAME, metadata=meta, benchmark_metadata=per, source=source,
                 failed=failed)  # fmt: skip
