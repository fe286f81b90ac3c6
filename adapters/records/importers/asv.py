"""airspeed velocity results (``results/<machine>/<commit>-<env>.json``), formats 1 and 2."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from .results import FormatError, Results, build, need

NAME = "asv"

#: Results file formats read: 2 (asv 0.5 and later, ``result_columns``) and 1 (before).
VERSIONS = (1, 2)


def looks_like(obj: Any) -> bool:
    """``{"commit_hash", "results": {...}, "result_columns": [...]}`` (format 1: no columns)."""
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


def _columns_from_format_1(obj: Mapping[str, Any], source: str | None) -> tuple[
        list[str], dict[str, list[Any]]]:  # fmt: skip
    # Format 1 keeps one object per benchmark ({"result", "params",
    # "samples"}), or a bare number for a benchmark without parameters.
    versions = obj.get("benchmark_version") or {}
    columns = ["result", "params", "version", "samples"]
    rows: dict[str, list[Any]] = {}
    for name, value in obj["results"].items():
        if not isinstance(value, Mapping):
            value = {"result": value}
        result = value.get("result")
        params = value.get("params") or []
        if result is not None and not isinstance(result, list):
            result = [result]
        if not isinstance(params, list):
            raise FormatError(NAME, f"results[{name!r}]['params'] is not a list", source)
        rows[name] = [result, params, versions.get(name), value.get("samples")]
    return columns, rows


def parse(obj: Any, *, source: str | None = None) -> Results:
    """Results from a decoded asv results file: every value of every benchmark.

    asv stores every sample of a timing benchmark only when it ran with
    ``--record-samples``; a benchmark without samples (``mem_``,
    ``peakmem_`` and ``track_`` benchmarks never have them) contributes its
    one recorded number. A file in which no benchmark has samples is
    refused with that hint: one number per benchmark is no sample the gate
    can use. A parameterised benchmark becomes one benchmark per parameter
    combination, ``name(p1, p2)``. A benchmark or combination that failed
    (``null``) has no successful run: it is counted in ``failed`` and
    listed in ``unrun`` (:func:`~perfstats.adapters.records.importers.read`
    refuses it unless asked to keep it: left out, it would vanish from the
    comparison). Results format 2 (asv 0.5 and
    later) and format 1 (before) are read; another version is refused,
    naming it.

    Examples
    --------
    >>> from perfstats.adapters.records.importers.asv import parse
    >>> doc = {"commit_hash": "abc", "result_columns": ["result", "params", "samples"],
    ...        "results": {"b.time_f": [[1.0, 2.0], [["1", "2"]], [[1.0, 1.1], [2.0, 2.1]]],
    ...                    "b.mem_f": [[4096], []]}}
    >>> res = parse(doc)
    >>> res.benchmarks, res.values("b.mem_f").tolist(), res.unit("b.mem_f")
    (['b.time_f(1)', 'b.time_f(2)', 'b.mem_f'], [4096.0], 'B')
    """
    results = need(obj, "results", Mapping, NAME, "the file")
    version = obj.get("version", 2 if "result_columns" in obj else 1)
    if version not in VERSIONS or isinstance(version, bool):
        raise FormatError(NAME, f"is results format {version!r}; this reads formats "
                          f"{' and '.join(map(str, VERSIONS))}", source)  # fmt: skip
    if version == 1:
        columns, entries = _columns_from_format_1(obj, source)
    else:
        columns = need(obj, "result_columns", list, NAME, "the file")
        entries = dict(results)
    col = {c: k for k, c in enumerate(columns)}
    if "result" not in col and "samples" not in col:
        raise FormatError(NAME, "has neither a 'result' nor a 'samples' column", source)
    rows: list[tuple[Any, ...]] = []
    per: dict[str, dict[str, Any]] = {}
    failed: dict[str, int] = {}
    any_samples = False
    for name, entry in entries.items():
        if not isinstance(entry, list):
            raise FormatError(NAME, f"results[{name!r}] is not a list", source)
        # asv drops a row's trailing nulls.
        full = entry + [None] * (len(columns) - len(entry))
        samples = full[col["samples"]] if "samples" in col else None
        params = (full[col["params"]] if "params" in col else None) or []
        result = full[col["result"]] if "result" in col else None
        combos = list(itertools.product(*params)) if params else [()]
        any_samples = any_samples or samples is not None
        if samples is None:
            samples = [None] * len(combos)
        if not isinstance(samples, list) or len(samples) != len(combos):
            got = len(samples) if isinstance(samples, list) else type(samples).__name__
            raise FormatError(
                NAME, f"results[{name!r}] has {got} sample lists for "
                f"{len(combos)} parameter combinations", source,
            )  # fmt: skip
        if isinstance(result, list) and len(result) == len(combos):
            # Without samples, the one number asv kept for the combination.
            samples = [[r] if s is None and r is not None else s
                       for s, r in zip(samples, result, strict=True)]  # fmt: skip
        for combo, values in zip(combos, samples, strict=True):
            label = f"{name}({', '.join(map(str, combo))})" if combo else name
            if values is None:
                failed[label] = 1
                continue
            if not isinstance(values, list):
                raise FormatError(NAME, f"results[{name!r}] samples of {label} are not a list",
                                  source)  # fmt: skip
            rows.extend((label, _unit(name), v) for v in values)
            per[label] = {"version": full[col["version"]] if "version" in col else None,
                          "params": dict(enumerate(combo))}  # fmt: skip
    if entries and not any_samples:
        raise FormatError(NAME, "has no samples (one number per benchmark): run asv with "
                          "--record-samples", source)  # fmt: skip
    meta = {k: obj[k] for k in ("commit_hash", "env_name", "date", "params", "python",
                                "requirements", "version") if k in obj}  # fmt: skip
    return build(rows, NAME, metadata=meta, benchmark_metadata=per, source=source,
                 failed=failed)  # fmt: skip
