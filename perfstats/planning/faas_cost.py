"""What a run on a function-as-a-service platform costs: billed time, memory, requests.

A FaaS platform bills each call for its duration, rounded up to the billing
granularity, times the memory configured (GB-seconds, at a price that depends
on the CPU architecture), plus a price per request. ElastiBench (Schirmer et
al., 2024) reports the cost of each experiment beside its time; this module
computes it from the billed durations (Lambda's ``REPORT`` lines, or timed
durations) and a price table that states its date and region.

The table shipped with perfstats is package data (``perfstats/planning/data/
faas_prices.json``); a table of the user's is parsed by the caller (the
adapter layer reads files) and given as a mapping.
"""

from __future__ import annotations

import datetime
import json
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np

from .._validation import as_sample, check_int, check_positive

__all__ = ["FaasCost", "FaasPrices", "faas_cost", "faas_prices"]

#: 1 GB of Lambda memory is 1024 MB (a 512 MB function bills 0.5 GB).
MB_PER_GB = 1024.0
#: Largest memory size priced, in MB: float64's largest run of exact integers
#: (far above any provider's offer).
MAX_MEMORY_MB = 2**53
#: Finest billing granularity accepted, in seconds: a nanosecond. Finer
#: steps would overflow the step count of an ordinary duration.
MIN_GRANULARITY_S = 1e-9


@dataclass(frozen=True)
class FaasPrices:
    """A validated price table.

    Parameters
    ----------
    date : datetime.date
        When the prices were taken.
    region : str
        The region they apply to (e.g. ``"us-east-1"``).
    per_gb_second : tuple of (str, float)
        Price of one GB-second by architecture, as ``(architecture, price)``
        pairs sorted by name.
    per_million_requests : float
        Price of one million requests.
    currency : str, default "USD"
        Currency of every price.
    duration_granularity_s : float, default 0.001
        Billed durations are rounded up to a multiple of this, in seconds
        (Lambda's granularity: 1 ms).
    provider : str, default ""
        Whose prices these are (empty when the table does not say).
    source : str, default ""
        Where they were read (empty when the table does not say).

    Examples
    --------
    >>> from perfstats import faas_prices
    >>> p = faas_prices()
    >>> p.region, p.price("arm64")
    ('us-east-1', 1.33334e-05)
    """

    date: datetime.date
    region: str
    per_gb_second: tuple[tuple[str, float], ...]
    per_million_requests: float
    currency: str = "USD"
    duration_granularity_s: float = 0.001
    provider: str = ""
    source: str = ""

    @property
    def architectures(self) -> tuple[str, ...]:
        """The architectures priced."""
        return tuple(name for name, _ in self.per_gb_second)

    def price(self, architecture: str) -> float:
        """Price of one GB-second on ``architecture``.

        Parameters
        ----------
        architecture : str
            A CPU architecture of the table, as :attr:`architectures` spells it
            (e.g. ``"arm64"``).

        Returns
        -------
        float
            The price, in :attr:`currency`.

        Raises
        ------
        ValueError
            If the table holds no price for ``architecture``.
        """
        for name, value in self.per_gb_second:
            if name == architecture:
                return value
        raise ValueError(
            f"architecture must be one of {list(self.architectures)} in the price table "
            f"of {self.date.isoformat()} ({self.region}), got {architecture!r}"
        )

    def __repr__(self) -> str:
        prices = ", ".join(f"{a} {v:.10g}/GB-s" for a, v in self.per_gb_second)
        return (
            f"FaasPrices({self.provider or 'FaaS'} {self.region} {self.date.isoformat()}: "
            f"{prices}, {self.per_million_requests:g}/1M requests {self.currency})"
        )


@dataclass(frozen=True)
class FaasCost:
    """The cost of a set of FaaS calls, part by part.

    Parameters
    ----------
    calls : int
        Number of billed durations summed.
    requests : int
        Requests billed.
    billed_s : float
        Sum of the billed durations in seconds, each rounded up to the
        billing granularity.
    gb_seconds : float
        ``billed_s * memory_mb / 1024``.
    compute : float
        ``gb_seconds`` times the architecture's price per GB-second.
    request : float
        ``requests / 1e6`` times the price per million requests.
    total : float
        ``compute + request``.
    memory_mb : int
        Memory configured for the function, in MB.
    architecture : str
        CPU architecture priced.
    currency : str
        Currency of the price table, and so of every cost.
    region : str
        Region of the price table.
    price_date : datetime.date
        Date of the price table.

    Examples
    --------
    >>> from perfstats import faas_cost
    >>> faas_cost([0.3] * 1000, memory_mb=512, architecture="x86_64")
    ... # doctest: +NORMALIZE_WHITESPACE +ELLIPSIS
    FaasCost(USD 0.002700 = compute 0.002500 (150 GB-s, x86_64, 512 MB)
             + 1000 requests 0.000200; us-east-1 prices of ...)
    """

    calls: int
    requests: int
    billed_s: float
    gb_seconds: float
    compute: float
    request: float
    total: float
    memory_mb: int
    architecture: str
    currency: str
    region: str
    price_date: datetime.date

    def __repr__(self) -> str:
        return (
            f"FaasCost({self.currency} {self.total:.6f} = compute {self.compute:.6f} "
            f"({self.gb_seconds:.6g} GB-s, {self.architecture}, {self.memory_mb} MB) + "
            f"{self.requests} requests {self.request:.6f}; {self.region} prices of "
            f"{self.price_date.isoformat()})"
        )


def _number(table: Mapping[str, Any], key: str, where: str) -> float:
    value = table.get(key)
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (
        math.isfinite(float(value)) and float(value) >= 0
    ):
        raise ValueError(f"price table: {where} must be a non-negative number, got {value!r}")
    return float(value)


def faas_prices(table: Mapping[str, Any] | None = None) -> FaasPrices:
    """Validate a price table, or load the one shipped with perfstats.

    Parameters
    ----------
    table : mapping, optional
        A parsed table (e.g. ``json.load`` of a file): ``date``
        (``"YYYY-MM-DD"``), ``region``, ``per_gb_second`` (architecture to
        price), ``per_million_requests``; optionally ``currency`` (default
        ``"USD"``), ``duration_granularity_s`` (default 0.001), ``provider``
        and ``source``. Default: the packaged table.

    Returns
    -------
    FaasPrices
        The table's date, region, prices per GB-second by architecture and
        per million requests, currency, billing granularity, provider and
        source.

    Raises
    ------
    ValueError
        If the table has no date or one not in ``YYYY-MM-DD`` form, no
        region, no architecture prices, or a price that is not a
        non-negative number.

    References
    ----------
    AWS Lambda pricing, https://aws.amazon.com/lambda/pricing/.

    Examples
    --------
    >>> from perfstats import faas_prices
    >>> faas_prices({"date": "2025-01-31", "region": "eu-west-1",
    ...              "per_gb_second": {"arm64": 1.3e-5}, "per_million_requests": 0.2})
    FaasPrices(FaaS eu-west-1 2025-01-31: arm64 1.3e-05/GB-s, 0.2/1M requests USD)
    >>> faas_prices({"region": "eu-west-1", "per_gb_second": {}, "per_million_requests": 0})
    Traceback (most recent call last):
    ...
    ValueError: price table has no 'date'; it must state when its prices were taken (YYYY-MM-DD)
    """
    if table is None:
        table_file = resources.files("perfstats.planning").joinpath("data/faas_prices.json")
        text = table_file.read_text("utf-8")
        table = json.loads(text)
    if not isinstance(table, Mapping):
        raise ValueError(f"price table must be a mapping, got {type(table).__name__}")
    raw_date = table.get("date")
    if raw_date is None or raw_date == "":
        raise ValueError(
            "price table has no 'date'; it must state when its prices were taken (YYYY-MM-DD)"
        )
    if isinstance(raw_date, datetime.date) and not isinstance(raw_date, datetime.datetime):
        date = raw_date
    else:
        try:
            if not isinstance(raw_date, str) or len(raw_date) != 10:
                raise ValueError
            date = datetime.date.fromisoformat(raw_date)
        except ValueError:
            raise ValueError(
                f"price table: 'date' must be a date YYYY-MM-DD, got {raw_date!r}"
            ) from None
    region = table.get("region")
    if not isinstance(region, str) or not region.strip():
        raise ValueError(f"price table must name its 'region' (e.g. 'us-east-1'), got {region!r}")
    per_gb = table.get("per_gb_second")
    if not isinstance(per_gb, Mapping) or not per_gb:
        raise ValueError(
            "price table: 'per_gb_second' must map architectures to prices, "
            f"got {per_gb!r}"
        )
    prices = tuple(
        sorted((str(a), _number(per_gb, a, f"per_gb_second[{a!r}]")) for a in per_gb)
    )
    per_million = _number(table, "per_million_requests", "'per_million_requests'")
    granularity = table.get("duration_granularity_s", 0.001)
    granularity = _granularity(
        check_positive(granularity, "price table 'duration_granularity_s'")
    )
    currency = table.get("currency", "USD")
    if not isinstance(currency, str) or not currency:
        raise ValueError(f"price table: 'currency' must be a name like 'USD', got {currency!r}")
    return FaasPrices(
        date=date,
        region=region,
        per_gb_second=prices,
        per_million_requests=per_million,
        currency=currency,
        duration_granularity_s=granularity,
        provider=str(table.get("provider", "")),
        source=str(table.get("source", "")),
    )


def faas_cost(
    billed_durations_s: Any,
    *,
    memory_mb: int,
    architecture: str,
    requests: int | None = None,
    prices: FaasPrices | Mapping[str, Any] | None = None,
) -> FaasCost:
    """Cost of FaaS calls from their billed durations, memory and architecture.

    Each duration is rounded up to the table's billing granularity (1 ms
    for Lambda; a ``REPORT`` line's billed duration already is), summed,
    and charged per GB-second of configured memory; each request is charged
    too. Free tiers and volume tiers are not deducted: this is the list
    price of the run.

    Parameters
    ----------
    billed_durations_s : array_like
        Billed (or timed) duration of each call in seconds, non-negative.
    memory_mb : int
        Memory configured for the function, in MB (1024 MB = 1 GB).
    architecture : str
        A key of the table's ``per_gb_second`` (``"arm64"``, ``"x86_64"``).
    requests : int, optional
        Requests billed; default one per duration. Give more when calls
        failed before reporting a duration.
    prices : FaasPrices or mapping, optional
        A price table (see :func:`faas_prices`); default the packaged one.

    Returns
    -------
    FaasCost
        The list price of the calls, part by part: billed seconds,
        GB-seconds, compute and request charges and their total, with the
        memory, architecture and the price table's currency, region and
        date.

    Raises
    ------
    ValueError
        On negative or non-finite durations, a bad memory size or request
        count, an architecture the table does not price, or an invalid table
        (e.g. one without a date).

    References
    ----------
    Schirmer et al., "ElastiBench: Scalable Continuous Benchmarking on Cloud FaaS
    Platforms", IC2E 2024 (Sections V and VI report each experiment's cost); see the
    References of :mod:`perfstats.comparison.change`.

    AWS Lambda pricing, https://aws.amazon.com/lambda/pricing/.

    Examples
    --------
    45 calls of 2 s on 2048 MB arm64, as one ElastiBench benchmark:

    >>> from perfstats import faas_cost
    >>> c = faas_cost([2.0] * 45, memory_mb=2048, architecture="arm64")
    >>> round(c.gb_seconds, 6), round(c.total, 6)
    (180.0, 0.002409)
    """
    table = prices if isinstance(prices, FaasPrices) else faas_prices(prices)
    if np.ndim(billed_durations_s) == 1 and np.size(billed_durations_s) == 0:
        durations = np.zeros(0)  # no call reported a duration: only requests cost
    else:
        durations = as_sample(billed_durations_s, "billed_durations_s")
    if bool(np.any(durations < 0)):
        i = int(np.flatnonzero(durations < 0)[0])
        raise ValueError(
            f"billed_durations_s must be non-negative; billed_durations_s[{i}] is "
            f"{float(durations[i])!r}"
        )
    memory = check_int(memory_mb, "memory_mb", minimum=1)
    if memory > MAX_MEMORY_MB:
        raise ValueError(
            f"memory_mb must be at most 2**53 = {MAX_MEMORY_MB} MB, got a number of "
            f"{len(str(memory))} digits"
        )
    rate = table.price(architecture)
    n_requests = durations.size if requests is None else check_int(
        requests, "requests", minimum=0
    )
    step = _granularity(table.duration_granularity_s)
    # The relative nudge keeps a duration that is already a whole number of
    # steps (a REPORT line's ``1234 ms``) from rounding up by float error.
    with np.errstate(over="ignore"):
        billed = float(np.sum(np.ceil(durations / step * (1.0 - 1e-12)) * step))
    if not math.isfinite(billed):
        raise ValueError(
            f"billed_durations_s are too large to bill (up to {float(np.max(durations)):.3g} s)"
        )
    gb_seconds = billed * memory / MB_PER_GB
    compute = gb_seconds * rate
    if not math.isfinite(compute):
        raise ValueError(
            f"the cost of {billed:.3g} billed s at memory_mb={memory} overflows float64"
        )
    request = n_requests / 1e6 * table.per_million_requests
    return FaasCost(
        calls=int(durations.size),
        requests=int(n_requests),
        billed_s=billed,
        gb_seconds=gb_seconds,
        compute=compute,
        request=request,
        total=compute + request,
        memory_mb=memory,
        architecture=architecture,
        currency=table.currency,
        region=table.region,
        price_date=table.date,
    )


def _granularity(step: float) -> float:
    """The billing step, refused below :data:`MIN_GRANULARITY_S` with a message naming it."""
    if not step >= MIN_GRANULARITY_S:
        raise ValueError(
            f"duration_granularity_s must be at least {MIN_GRANULARITY_S:g} s (a nanosecond), "
            f"got {step!r}"
        )
    return float(step)
