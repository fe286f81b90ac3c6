"""Gaussian mixtures of a 1-D sample chosen by BIC (scikit-learn, imported lazily)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from .._validation import power_of_two_scale

__all__ = ["COVARIANCE_TYPES", "MixtureFit", "fit_mixture"]

COVARIANCE_TYPES = ("full", "tied", "diag", "spherical")


@dataclass(frozen=True)
class MixtureFit:
    """The mixture BIC chose for one set of runs.

    Parameters
    ----------
    components : int
        Number of Gaussian components.
    covariance_type : str
        The scikit-learn covariance type, one of :data:`COVARIANCE_TYPES`.
    bic : float
        The fit's Bayesian information criterion on the standardised runs
        (lower is better; comparable only between fits of the same runs).
    mean_log_likelihood : float
        Mean log-likelihood per run, in the runs' own units.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.characterization import fit_mixture
    >>> rng = np.random.default_rng(0)
    >>> x = np.concatenate([rng.normal(10, 0.5, 150), rng.normal(20, 0.5, 150)])
    >>> fit = fit_mixture(x, [1, 2, 3], ("full", "spherical"))
    >>> fit.components, fit.covariance_type in ("full", "spherical")
    (2, True)
    """

    components: int
    covariance_type: str
    bic: float
    mean_log_likelihood: float


def fit_mixture(
    data: np.ndarray,
    components: Iterable[int],
    covariance_types: tuple[str, ...],
    *,
    seed: int = 0,
) -> MixtureFit:
    """Fit every (count, type) and return the one of least BIC.

    Each fit starts from the ``k`` quantile midpoints ``(i + 0.5) / k`` as
    means (so the result does not depend on ``seed``, kept for scikit-learn's
    interface). The runs are standardised before fitting (numerically safer for values
    in the thousands); the mean log-likelihood is converted back to the
    runs' units by subtracting ``log(sd)``, which an affine change of units
    adds exactly.

    Parameters
    ----------
    data : numpy.ndarray
        1-D sample of finite runs.
    components : iterable of int
        Numbers of components to try; counts above the number of runs are
        skipped.
    covariance_types : tuple of str
        The scikit-learn covariance types to try for each count (see
        :data:`COVARIANCE_TYPES`).
    seed : int, default 0
        ``random_state`` of each scikit-learn model (taken modulo
        ``2**32``); with the quantile-midpoint start it does not change the
        result.

    Returns
    -------
    MixtureFit
        The (count, type) of least BIC, with its BIC and its mean
        log-likelihood per run; ties keep the first fit tried.

    Raises
    ------
    ValueError
        When no count in ``components`` is at most the number of runs (or
        ``covariance_types`` is empty), so no mixture was fitted.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.characterization.mixture import fit_mixture
    >>> rng = np.random.default_rng(0)
    >>> x = np.concatenate([rng.normal(10, 0.5, 150), rng.normal(20, 0.5, 150)])
    >>> fit_mixture(x, range(1, 5), ("full",)).components
    2
    """
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.mixture import GaussianMixture
    from threadpoolctl import threadpool_limits

    # Standardised from values scaled by a power of two (exact), so the
    # squares stay finite near 1e160; log(spread) - log(unit) is the log SD in the runs' units.
    unit = power_of_two_scale(np.asarray(data, dtype=np.float64))
    scaled = data * unit
    centre = float(np.mean(scaled))
    spread = float(np.std(scaled))
    z = ((scaled - centre) / spread).reshape(-1, 1)
    counts = list(components)
    best: MixtureFit | None = None
    for k in counts:
        if k > data.size:
            continue
        for kind in covariance_types:
            # In one dimension the k quantile midpoints are a good start, and
            # they spare scikit-learn's k-means initialisation, which costs
            # more than the EM fit itself (and starts a thread pool).
            start = np.quantile(z[:, 0], (np.arange(k) + 0.5) / k).reshape(-1, 1)
            model = GaussianMixture(
                n_components=k,
                covariance_type=kind,
                means_init=start,
                random_state=seed % (2**32),
            )
            # One thread: a 1-D fit is far too small to share, and idle
            # OpenMP/BLAS workers spinning on a busy machine cost more than
            # the fit.
            with warnings.catch_warnings(), threadpool_limits(1):
                warnings.simplefilter("ignore", ConvergenceWarning)
                model.fit(z)
            bic = float(model.bic(z))
            if best is None or bic < best.bic:
                loglik = float(model.score(z)) - (math.log(spread) - math.log(unit))
                best = MixtureFit(k, kind, bic, loglik)
    if best is None:
        raise ValueError(f"no mixture with {counts} components fits {data.size} runs")
    return best
