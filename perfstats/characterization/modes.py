"""Modes of a sample: peaks of a kernel density estimate that stand out.

SHARP (Mittal et al.) found 70% of the Rodinia benchmarks multimodal and
argues that a point summary hides this; :func:`perfstats.characterize`
counts the modes and the plots mark them. The finder is deliberately simple
and fully described here:

1. A Gaussian kernel density estimate with Silverman's robust bandwidth
   ``h = 0.9 * min(sd, IQR / 1.349) * n ** (-1/5)`` (Silverman 1986,
   Eq. 3.31). The robust scale matters for performance data: a few cold
   starts or outliers inflate the standard deviation, and Scott's rule
   (``scipy.stats.gaussian_kde``'s default) would then smooth distinct
   modes into one.
2. The density is evaluated on a grid of step ``h / 5`` by binning the data
   and convolving the bin counts with the kernel (linear in ``n``; the
   binning error is far below the kernel's width).
3. A mode is a local maximum whose topographic *prominence* (how far it
   rises above the higher of the two valleys separating it from any higher
   peak, :func:`scipy.signal.find_peaks`) is at least ``prominence`` times
   the highest density. The default 0.1 ignores ripples of a tenth of the
   main peak's height, which on 1,000 runs are mostly sampling noise.

No test of significance is made here (Silverman's bandwidth test or the
dip test would be the rigorous tools); :func:`perfstats.characterize`
confirms several modes with a Gaussian mixture chosen by BIC.

References
----------
B. W. Silverman, "Density Estimation for Statistics and Data Analysis",
Chapman & Hall, 1986, Section 3.4.2.

Mittal et al., "SHARP: A Distribution-Based Framework for Reproducible Performance
Evaluation", manuscript (undated); see the References of :mod:`perfstats.rules.sharp`.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import FloatArray, as_sample, check_fraction, power_of_two_scale

# Finer grids only cost memory: the kernel is 40 steps wide at h / 5.
_MAX_GRID = 200_000
# Narrowest kernel, in units in the last place of the largest value.
_MIN_KERNEL_ULPS = 1024


@dataclass(frozen=True)
class Modes:
    """The modes of a sample, from :func:`find_modes`.

    Parameters
    ----------
    locations : numpy.ndarray
        Mode locations in increasing order (the data's units).
    densities : numpy.ndarray
        The estimated density at each mode.
    bandwidth : float
        The kernel's standard deviation ``h`` (0 for a constant sample).
    prominence : float
        The relative prominence threshold used.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import Modes
    >>> m = Modes(np.array([10.0, 20.0]), np.array([0.03, 0.01]), 0.8, 0.1)
    >>> m.count, m.multimodal, m.main
    (2, True, 10.0)
    """

    locations: FloatArray
    densities: FloatArray
    bandwidth: float
    prominence: float

    @property
    def count(self) -> int:
        """Number of modes."""
        return int(self.locations.size)

    @property
    def multimodal(self) -> bool:
        """True when there is more than one mode."""
        return self.count > 1

    @property
    def main(self) -> float:
        """Location of the highest mode."""
        return float(self.locations[int(np.argmax(self.densities))])

    def __repr__(self) -> str:
        where = ", ".join(f"{v:.6g}" for v in self.locations)
        return f"Modes({self.count}: [{where}], bandwidth={self.bandwidth:.4g})"


def silverman_bandwidth(x: FloatArray) -> float:
    """Silverman's robust rule-of-thumb bandwidth ``0.9 min(sd, IQR/1.349) n^(-1/5)``.

    Falls back to the standard deviation when the IQR is 0 (more than half
    the values tied), and returns 0 for a constant sample.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.characterization.modes import silverman_bandwidth
    >>> round(silverman_bandwidth(np.random.default_rng(0).normal(0, 1, 1000)), 2)
    0.22
    """
    if x.size < 2 or float(x.max()) == float(x.min()):
        # Equal values of any magnitude: the rounding of their mean would
        # otherwise leave a spurious SD of a few units in the last place.
        return 0.0
    # Scaled by a power of two (exact) so the squares stay finite near 1e160.
    s = power_of_two_scale(x)
    sd = float(np.std(x * s, ddof=1)) / s
    q75, q25 = np.quantile(x, [0.75, 0.25])
    iqr = float(q75 - q25) / 1.349
    scale = min(sd, iqr) if iqr > 0 else sd
    return 0.9 * scale * x.size ** (-0.2)


def density_grid(x: FloatArray, bandwidth: float) -> tuple[FloatArray, FloatArray]:
    """Grid points and the Gaussian KDE of ``x`` on them (binned; see the module notes).

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.characterization.modes import density_grid
    >>> grid, dens = density_grid(np.array([0.0, 1.0, 2.0]), 0.5)
    >>> bool(abs(dens.sum() * (grid[1] - grid[0]) - 1.0) < 1e-6)
    True
    """
    # Margins wider than the kernel's reach, so no mass falls off the grid.
    lo = float(x.min()) - 5.0 * bandwidth
    hi = float(x.max()) + 5.0 * bandwidth
    # A bandwidth far below the range (one outlier among equal values)
    # needs more points than any grid has: the grid's cap then decides.
    span = (hi - lo) / bandwidth * 5.0
    bins = _MAX_GRID if not math.isfinite(span) else min(_MAX_GRID, max(64, math.ceil(span)))
    counts, edges = np.histogram(x, bins=bins, range=(lo, hi))
    step = float(edges[1] - edges[0])
    half = math.ceil(4.0 * bandwidth / step)
    offsets = np.arange(-half, half + 1) * step
    # Steps far wider than the kernel: its weight beyond the centre is an
    # exact 0 (exp of -inf), not an error.
    with np.errstate(over="ignore"):
        kernel = np.exp(-0.5 * (offsets / bandwidth) ** 2)
    kernel /= kernel.sum() * step
    density = np.convolve(counts / x.size, kernel, mode="same")
    centres = (edges[:-1] + edges[1:]) / 2.0
    return centres.astype(np.float64), density.astype(np.float64)


def find_modes(data: Any, *, prominence: float = 0.1, bandwidth: float | None = None) -> Modes:
    """Find the modes of a sample as prominent peaks of its kernel density.

    Parameters
    ----------
    data : array_like
        1-D finite measurements.
    prominence : float, default 0.1
        A peak counts as a mode when its prominence is at least this
        fraction of the highest density, in (0, 1].
    bandwidth : float, optional
        Kernel standard deviation in the data's units (default: Silverman's
        robust rule, :func:`silverman_bandwidth`).

    Returns
    -------
    Modes
        At least one mode; a constant sample has one mode at its value.

    Raises
    ------
    ValueError
        For invalid data, a prominence outside (0, 1] or a non-positive
        bandwidth.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import find_modes
    >>> rng = np.random.default_rng(1)
    >>> x = np.concatenate([rng.normal(100, 3, 600), rng.normal(130, 3, 400)])
    >>> m = find_modes(x)
    >>> m.count, bool(abs(m.locations[0] - 100) < 2 and abs(m.locations[1] - 130) < 2)
    (2, True)
    >>> find_modes(rng.normal(100, 3, 1000)).multimodal
    False
    """
    x = as_sample(data, "data")
    prom = check_fraction(prominence, "prominence")
    if prom == 0.0:
        raise ValueError("prominence must be in (0, 1], got 0.0")
    h = silverman_bandwidth(x) if bandwidth is None else float(bandwidth)
    if bandwidth is not None and not (math.isfinite(h) and h > 0):
        raise ValueError(f"bandwidth must be a positive finite number, got {bandwidth!r}")
    if h == 0.0:
        # Every value equal (or a single value): one mode, where they are.
        return Modes(np.array([float(x[0])]), np.array([math.inf]), 0.0, prom)
    from scipy.signal import find_peaks

    # The density is found on values scaled by a power of two (exact) so that
    # the grid stays finite near 1e300, then read back in the data's units.
    s = power_of_two_scale(x)
    # A bandwidth that underflows at that scale (an IQR of a subnormal), or
    # one of a few units in the last place of the values (values that differ
    # only by rounding), acts as the narrowest kernel the grid can resolve:
    # grid steps (at least a fifth of the kernel) stay far wider than the
    # spacing of floats there.
    xs = x * s
    floor = _MIN_KERNEL_ULPS * float(np.spacing(float(np.max(np.abs(xs)))))
    grid, density = density_grid(xs, max(h * s, sys.float_info.min, floor))
    peaks, _ = find_peaks(density, prominence=prom * float(density.max()))
    if peaks.size == 0:
        # A flat-topped maximum has no strict peak; its centre is the mode.
        top = np.flatnonzero(density == density.max())
        peaks = np.array([int(top[top.size // 2])])
    # A kernel a few units in the last place wide, around values near the
    # smallest normal, has a density beyond float64 in the data's units: it
    # reads as infinite, like the density of a constant sample.
    with np.errstate(over="ignore"):
        heights = density[peaks] * s
    return Modes(grid[peaks] / s, heights, h, prom)


__all__ = ["Modes", "density_grid", "find_modes", "silverman_bandwidth"]
