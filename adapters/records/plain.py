"""Turn result objects into JSON-safe plain data for metadata and ``--json`` output."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np


def plain(obj: Any) -> Any:
    """Recursively convert ``obj`` to JSON-safe data.

    Dataclasses become dicts, NumPy scalars and arrays become numbers and
    lists, non-finite floats become the strings ``"inf"``, ``"-inf"`` and
    ``"nan"`` (standard JSON has no such numbers), datetimes become ISO 8601.

    Examples
    --------
    >>> from perfstats.adapters.records.plain import plain
    >>> import numpy as np
    >>> plain({"a": np.float64(1.5), "b": (1, float("inf"))})
    {'a': 1.5, 'b': [1, 'inf']}
    """
    if isinstance(obj, np.generic):
        # Before the float check: np.float64 is a float subclass.
        return plain(obj.item())
    if obj is None or isinstance(obj, (bool, str, int)):
        return obj
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else str(obj)
    if isinstance(obj, np.ndarray):
        return [plain(v) for v in obj.tolist()]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        to_dict = getattr(obj, "to_dict", None)
        source = to_dict() if callable(to_dict) else dataclasses.asdict(obj)
        return plain(source)
    if isinstance(obj, Mapping):
        return {str(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [plain(v) for v in obj]
    if isinstance(obj, datetime):
        return obj.isoformat()
    if isinstance(obj, Path):
        return str(obj)
    return repr(obj)
