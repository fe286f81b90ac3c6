"""hyperfine ``--export-json``: the wall-clock time of every run of every command."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .results import FormatError, Results, build, need

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
    A run with a non-zero exit code (kept by ``--ignore-failure``) failed:
    its time is left out and counted in ``failed``; a command none of whose
    runs succeeded is in ``unrun`` only (which ``read`` refuses unless
    ``keep_unrun``). The exit codes are kept as a column.

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
    rows: list[tuple[Any, ...]] = []
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
        times = need(res, "times", list, NAME, where)
        codes = res.get("exit_codes")
        if codes is None:
            codes = [None] * len(times)
        if not isinstance(codes, list):
            raise FormatError(
                NAME, f"{where} ({name}): exit_codes is {json.dumps(codes)}, not a list", source
            )
        if len(codes) != len(times):
            raise FormatError(
                NAME, f"{where} ({name}) has {len(times)} times but {len(codes)} exit codes", source
            )
        for j, code in enumerate(codes):
            if code is not None and (isinstance(code, bool) or not isinstance(code, int)):
                raise FormatError(
                    NAME, f"{where} ({name}): exit_codes[{j}] is {code!r}, not an integer", source
                )
        failed[name] = sum(1 for c in codes if c not in (None, 0))
        rows.extend(
            (name, "s", t, c) for t, c in zip(times, codes, strict=True) if c in (None, 0)
        )
        per[name] = {k: v for k, v in res.items() if k not in ("times", "exit_codes", "command")}
    return build(rows, NAME, extra=["exit_code"], benchmark_metadata=per, source=source,
                 failed=failed)  # fmt: skip
