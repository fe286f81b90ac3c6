"""Planning a measurement: Metior's schedule and what a serverless run costs.

Schedules
---------
- :func:`schedule`, :class:`Schedule`, :class:`TraceSchedule`: how many runs,
  spaced how far apart, so that the runs a rule sees are close to
  independent (Metior).

Cost
----
- :func:`faas_cost`, :class:`FaasCost`: the bill of a FaaS run from its billed
  durations.
- :func:`faas_prices`, :class:`FaasPrices`: the bundled price table.

Examples
--------
>>> from perfstats.planning import faas_prices
>>> faas_prices().currency
'USD'
"""

from __future__ import annotations

from .faas_cost import FaasCost, FaasPrices, faas_cost, faas_prices
from .measurement_schedule import Schedule, TraceSchedule, schedule

__all__ = [
    "FaasCost",
    "FaasPrices",
    "Schedule",
    "TraceSchedule",
    "faas_cost",
    "faas_prices",
    "schedule",
]
