"""Time values of a record shown in a readable unit (``1.8 ms``, not ``1800000 ns``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

# Seconds per unit, for the units a record's time values come in.
_SECONDS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
_DISPLAY = (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9))


def display_unit(values: np.ndarray, unit: str) -> tuple[float, str]:
    """The divisor and unit that put the median of ``values`` in [1, 1000).

    Values in a unit that is not a time (or an unknown one) are left as
    they are.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.adapters.report.units import display_unit
    >>> display_unit(np.array([1.8e6, 2.1e6]), "ns")
    (1000000.0, 'ms')
    >>> display_unit(np.array([12.0]), "req/s")
    (1.0, 'req/s')
    """
    if unit not in _SECONDS or values.size == 0:
        return 1.0, unit
    seconds = float(np.median(values)) * _SECONDS[unit]
    for name, size in _DISPLAY[:-1]:
        if abs(seconds) >= size:
            return size / _SECONDS[unit], name
    return _DISPLAY[-1][1] / _SECONDS[unit], _DISPLAY[-1][0]


def record_unit(measurements: pd.DataFrame) -> str:
    """The unit of a record's successful runs, or ``""`` when they differ.

    Examples
    --------
    >>> import pandas as pd
    >>> record_unit(pd.DataFrame({"status": ["ok", "error"], "unit": ["ns", "s"]}))
    'ns'
    """
    units = sorted(set(measurements.loc[measurements["status"] == "ok", "unit"]))
    return units[0] if len(units) == 1 else ""
