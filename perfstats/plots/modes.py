"""The mode finder the plots mark: it lives in the core, :mod:`perfstats.modes`.

Kept so that ``perfstats.plots.find_modes`` and ``perfstats.plots.modes``
keep working; there is one implementation.
"""

from __future__ import annotations

from ..modes import Modes, density_grid, find_modes, silverman_bandwidth

__all__ = ["Modes", "density_grid", "find_modes", "silverman_bandwidth"]
