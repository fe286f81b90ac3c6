"""What a run on a FaaS target cost: billed durations from a record, priced by the core.

A run of ``perfstats run`` on a Lambda or HTTP function target, and an A-B
suite run on a Lambda or HTTP function, is priced with
:func:`perfstats.faas_cost` from

* the billed duration of each request: Lambda's REPORT line
  (``billed_duration_ms`` in the record's ``extra``) where present, else
  the driver's timed duration of the request (``wall_ns`` of a run's invocation,
  ``call_wall_ns`` of a suite's call);
* the request count: one per invocation (run) or per call (A-B suite);
* the memory and architecture of the function (read from Lambda; for an
  HTTP function they must be given);
* a price table: the one packaged with perfstats, or a JSON or TOML file
  (:func:`load_prices`) with its ``date`` (YYYY-MM-DD) and ``region``.

References
----------
.. [Schirmer2024] Schirmer et al., "ElastiBench: Scalable Continuous Benchmarking on Cloud
   FaaS Platforms", IC2E 2024; see the References of :mod:`perfstats.comparison.change`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from perfstats.planning.faas_cost import FaasCost, FaasPrices, faas_cost, faas_prices

from ..records.files import parse_toml, read_text_file

#: Target kinds that are FaaS functions, priced per request and GB-second.
FAAS_KINDS = ("lambda", "http")


def load_prices(path: str | os.PathLike[str] | None) -> FaasPrices:
    """The price table in a JSON or TOML file; the packaged one for None.

    Raises
    ------
    ValueError
        When the file is missing, does not parse, or is not a valid table
        (for example one without a ``date``).

    Examples
    --------
    >>> from perfstats.adapters.report.billing import load_prices
    >>> load_prices(None).region
    'us-east-1'
    """
    if path is None:
        return faas_prices()
    p = Path(path)
    text = read_text_file(p, "price table")
    suffix = p.suffix.lower()
    if suffix == ".json":
        try:
            table = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"price table {os.fspath(p)} is not valid JSON: {exc}") from None
    elif suffix == ".toml":
        table = parse_toml(text, p, "price table")
    else:
        raise ValueError(f"price table {os.fspath(p)} must be a .json or .toml file")
    try:
        prices = faas_prices(table)
    except ValueError as exc:
        raise ValueError(f"{os.fspath(p)}: {exc}") from None
    return replace(prices, source=prices.source or os.fspath(p))


@dataclass(frozen=True)
class Billing:
    """Billed durations of a record and how they were found.

    Attributes
    ----------
    durations_s : numpy.ndarray
        One billed duration per request that reported one, seconds.
    requests : int
        Requests made (also those that failed before a duration).
    from_report : int
        Durations taken from Lambda's REPORT line; the rest are timed by the driver.
    """

    durations_s: np.ndarray
    requests: int
    from_report: int


def _extra(cell: Any) -> dict[str, Any]:
    if isinstance(cell, Mapping):
        return dict(cell)
    if isinstance(cell, str) and cell:
        try:
            value = json.loads(cell)
        except json.JSONDecodeError:
            return {}
        return value if isinstance(value, dict) else {}
    return {}


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value):
        return None
    return float(value)


def billing(measurements: pd.DataFrame) -> Billing:
    """The billed durations and request count of a run record or an A-B record.

    An A-B record (with a ``call`` column) bills one request per call, whose
    rows share the call's ``extra``; a run record one per row.

    Examples
    --------
    >>> import pandas as pd
    >>> from perfstats.adapters.report.billing import billing
    >>> run = pd.DataFrame({"extra": ['{"billed_duration_ms": 13.0}', '{"wall_ns": 2500000}', ""]})
    >>> b = billing(run)
    >>> b.durations_s.tolist(), b.requests, b.from_report
    ([0.013, 0.0025], 3, 1)
    """
    if "extra" not in measurements.columns:
        raise ValueError("the record has no extra column, so no durations to bill")
    if "call" in measurements.columns:
        firsts = measurements.drop_duplicates("call")["extra"]
        measured_key = "call_wall_ns"
    else:
        firsts = measurements["extra"]
        measured_key = "wall_ns"
    durations: list[float] = []
    from_report = 0
    for cell in firsts:
        extra = _extra(cell)
        billed = _number(extra.get("billed_duration_ms"))
        if billed is not None:
            durations.append(billed / 1e3)
            from_report += 1
            continue
        measured = _number(extra.get(measured_key, extra.get("wall_ns")))
        if measured is not None:
            durations.append(measured / 1e9)
    return Billing(np.asarray(durations, dtype=float), len(firsts), from_report)


def function_size(
    target: Mapping[str, Any],
    *,
    memory_mb: int | None = None,
    architecture: str | None = None,
) -> tuple[int, str] | None:
    """Memory and architecture of a target from its recorded config; None if unknown.

    Explicit ``memory_mb`` and ``architecture`` win over the config's.

    Examples
    --------
    >>> from perfstats.adapters.report.billing import function_size
    >>> function_size({"kind": "lambda", "memory_mb": 512, "architecture": "arm64"})
    (512, 'arm64')
    >>> function_size({"kind": "http"}) is None
    True
    """
    memory = memory_mb if memory_mb is not None else target.get("memory_mb")
    if memory is None:
        return None
    arch = architecture or target.get("architecture") or "x86_64"
    return int(memory), str(arch)


def run_cost(
    measurements: pd.DataFrame,
    target: Mapping[str, Any],
    *,
    prices: FaasPrices | None = None,
    memory_mb: int | None = None,
    architecture: str | None = None,
) -> FaasCost | None:
    """The cost of a recorded run on a FaaS target; None for other targets or unknown memory.

    Parameters
    ----------
    measurements : pandas.DataFrame
        A run record or an A-B record.
    target : mapping
        The target's recorded config (``kind``, and ``memory_mb`` and
        ``architecture`` for Lambda or a sized HTTP function).
    prices : FaasPrices, optional
        Default the packaged table.
    memory_mb, architecture : optional
        The function's size when the config lacks it (an HTTP function).

    Examples
    --------
    >>> import pandas as pd
    >>> from perfstats.adapters.report.billing import run_cost
    >>> run = pd.DataFrame({"extra": ['{"billed_duration_ms": 1000}'] * 4})
    >>> c = run_cost(run, {"kind": "lambda", "memory_mb": 1024, "architecture": "x86_64"})
    >>> c.gb_seconds, c.requests, round(c.total, 8)
    (4.0, 4, 6.747e-05)
    """
    if target.get("kind") not in FAAS_KINDS:
        return None
    size = function_size(target, memory_mb=memory_mb, architecture=architecture)
    if size is None:
        return None
    bill = billing(measurements)
    return faas_cost(
        bill.durations_s,
        memory_mb=size[0],
        architecture=size[1],
        requests=bill.requests,
        prices=prices if prices is not None else faas_prices(),
    )


def cost_text(cost: FaasCost | None, target: Mapping[str, Any]) -> str | None:
    """One line for the output and the report; None when the target is not a FaaS function.

    Examples
    --------
    >>> from perfstats import faas_cost
    >>> from perfstats.adapters.report.billing import cost_text
    >>> print(cost_text(faas_cost([0.5] * 2, memory_mb=2048, architecture="arm64"),
    ...                 {"kind": "lambda"}))  # doctest: +ELLIPSIS
    USD 0.000027 (2 requests, 2 GB-s on 2048 MB arm64; us-east-1 prices of ...)
    """
    if target.get("kind") not in FAAS_KINDS:
        return None
    if cost is None:
        return "not priced: the function's memory is unknown (give --memory-mb)"
    return (
        f"{cost.currency} {cost.total:.6f} ({cost.requests} requests, {cost.gb_seconds:.4g} "
        f"GB-s on {cost.memory_mb} MB {cost.architecture}; {cost.region} prices of "
        f"{cost.price_date.isoformat()})"
    )


__all__ = ["FAAS_KINDS", "Billing", "billing", "cost_text", "function_size", "load_prices",
           "run_cost"]  # fmt: skip
