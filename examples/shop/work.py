"""The shop's CPU-bound work: a small integer loop of a fixed length.

About 10,000 iterations take a millisecond of CPython time on a laptop-class
core; the exact figure does not matter, only that the work is CPU-bound,
small and deterministic.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# What a handler gets to call another service: (service, path, params) -> JSON reply.
Call = Callable[[str, str, dict[str, str]], dict[str, Any]]


def burn(iterations: int, seed: int = 0) -> int:
    """Spin through ``iterations`` steps of a tiny hash; the result depends on all."""
    x = seed
    for i in range(iterations):
        x = (x * 31 + i) % 1_000_003
    return x
