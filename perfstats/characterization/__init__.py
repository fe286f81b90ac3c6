"""What kind of data is this? Modes, mixtures, segments and the steady state of a run set.

Summary
-------
- :func:`characterize`, :class:`Characterization`: moments, modes,
  autocorrelation, change points and a steady-state class in one call.
- :func:`distribution_class`, :data:`DISTRIBUTION_CLASSES`: SHARP's classes
  of a distribution.
- :func:`steady_state_start`, :data:`STEADY_STATES`: where the warm-up ends.

Modes and mixtures
------------------
- :func:`find_modes`, :class:`Modes`: the modes of a kernel density estimate.
- :func:`fit_mixture`, :class:`MixtureFit`: a Gaussian mixture (scikit-learn).

Segments
--------
- :func:`pelt`: change points in the level of a series (PELT).

Examples
--------
>>> import numpy as np
>>> from perfstats.characterization import characterize
>>> rng = np.random.default_rng(3)
>>> runs = np.r_[rng.normal(30.0, 1.0, 60), rng.normal(20.0, 1.0, 400)]
>>> characterize(runs).steady_state
'warm-up'
"""

from __future__ import annotations

from .describe import (
    DISTRIBUTION_CLASSES,
    STEADY_STATES,
    Characterization,
    characterize,
    distribution_class,
    steady_state_start,
)
from .mixture import MixtureFit, fit_mixture
from .modes import Modes, find_modes
from .segmentation import pelt

__all__ = [
    "DISTRIBUTION_CLASSES",
    "STEADY_STATES",
    "Characterization",
    "MixtureFit",
    "Modes",
    "characterize",
    "distribution_class",
    "find_modes",
    "fit_mixture",
    "pelt",
    "steady_state_start",
]
