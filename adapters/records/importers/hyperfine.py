"""hyperfine ``--export-json``: the wall-clock time of every run of every command."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np

from .results import FormatError, Results, build_arrays, need, numbers

NAME = "hyperfine"


def looks_like(obj: Any) -> bool:
    """``{"results": [{"command": ..., "times": [...]}, ...]}``."""
    if not isinstance(obj, Mapping) or not isinstance(obj.get("results"), list):
        return False
    return all(isinstance(r, Mapping) and "command" in r for r in obj["results"])


def parse(obj: Any, *, source: str | None = None) -> Results:
    """Results from a decoded hyperfine export (times in seconds).

    The benchmark name is the command (or its ``--command-name``); with
    ``--parameter-scan`` each parameter value is its own command already.
    A run with a non-zero exit code (kept by ``--ignore-failure``), or a
    null one (killed by a signal), failed: its time is left out and counted
    in ``failed``; a command none of whose runs succeeded is in ``unrun``
    only (which ``read`` refuses unless ``keep_unrun``). The exit codes are kept as a column.

    Examples
    --------
    >>> from perfstats.adapters.records.importers.hyperfine import parse
    >>> res = parse({"results": [{"command": "ls", "mean": 0.0015,
    ...                           "times": [0.001, 0.002], "exit_codes": [0, 0]}]})
    >>> res.values("ls").tolist(), res.benchmark_metadata["ls"]["mean"]
    ([0.001, 0.002], 0.0015)
    >>> res = parse({"results": [{"command": "f", "times": [0.5, 0.1], "exit_codes": [0, 1]}]})
    >>> res.values("f").tolist(), res.failed
    ([0.5], {'f': 1})
    """
    results = need(obj, "results", list, NAME, "the export")
    series: list[tuple[str, str, np.ndarray, dict[str, np.ndarray]]] = []
    per: dict[str, dict[str, Any]] = {}
    failed: dict[str, int] = {}
    for i, res in enumerate(results):
        where = f"results[{i}]"
        name = need(res, "command", str, NAME, where)
        if name in per:
            raise FormatError(NAME, f"command {name!r} appears twice", source)
        if "times" not in res:
            raise FormatError(
                NAME, f"{where} has no 'times' (exported by a hyperfine older than 1.6?)", source
            )
        times = numbers(need(res, "times", list, NAME, where), NAME, name, source)
        codes = _exit_codes(res.get("exit_codes"), times.size, f"{where} ({name})", source)
        ok = codes == 0
        failed[name] = int(times.size - np.count_nonzero(ok))
        if failed[name]:
            times, codes = times[ok], codes[ok]
        series.append((name, "s", times, {"exit_code": codes}))
        per[name] = {k: v for k, v in res.items() if k not in ("times", "exit_codes", "command")}
    return build_arrays(series, NAME, extra=["exit_code"], benchmark_metadata=per,
                        source=source, failed=failed)  # fmt: skip


def _exit_codes(codes: Any, n: int, where: str, source: str | None) -> np.ndarray:
    """The exit codes of ``n`` runs as integers; 0 for every run of an export without them."""
    if codes is None:
        return np.zeros(n, dtype=np.int64)
    if not isinstance(codes, list):
        raise FormatError(NAME, f"{where}: exit_codes is {json.dumps(codes)}, not a list", source)
    if len(codes) != n:
        raise FormatError(NAME, f"{where} has {n} times but {len(codes)} exit codes", source)
    kinds = set(map(type, codes))
    if kinds <= {int}:
        try:
            return np.asarray(codes, dtype=np.int64)
        except OverflowError:
            pass  # an exit code beyond int64: no process's, named below
    out = np.empty(n, dtype=np.int64)
    for j, code in enumerate(codes):
        if code is None:
            # hyperfine writes null for a run killed by a signal: it failed.
            out[j] = _KILLED
        elif isinstance(code, bool) or not isinstance(code, int) or not _in_int64(code):
            raise FormatError(
                NAME, f"{where}: exit_codes[{j}] is {code!r}, not an integer", source
            )
        else:
            out[j] = code
    return out


_KILLED = -(2**63)


def _in_int64(code: int) -> bool:
    return -(2**63) < code < 2**63
