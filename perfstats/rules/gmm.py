"""SHARP's GMM rule: stop when the fitted Gaussian mixture's likelihood has settled."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._rng import RNGLike
from .._validation import check_int, check_positive
from ..characterization.mixture import MixtureFit, fit_mixture
from ._limits import check_limits, limits_config, settle
from ._seeds import base_seed
from ._wording import runs
from .base import Rule
from .decision import Decision


class GMM(Rule):
    """Stop when the BIC-chosen Gaussian mixture's mean log-likelihood settles.

    SHARP's rule for multimodal data. Mixtures of 1 to ``max_components``
    components and every covariance type (scikit-learn's
    :class:`~sklearn.mixture.GaussianMixture`) are fitted to the runs and
    the one of least BIC is kept; the rule stops when its mean
    log-likelihood per run moved by at most ``threshold`` since the previous
    runs (all but the last ``interval``).

    SHARP's code allows a change of 2 (nats per run). A change that large
    means a different distribution altogether (doubling every run's
    likelihood would be 0.69), so with SHARP's value the rule stops at its
    first judgement: it did so on all 163 real traces of
    ``benchmarks/reproduce_sharp.py`` (130 serverless, 33 cloud). The
    default here is the stricter 0.01 (the geometric mean of the runs'
    likelihoods moves by at most about 1%); ``GMM(threshold=2.0)`` is
    SHARP's setting.

    Cost: the first judgement searches all counts and types (one fit per
    pair; in one dimension "full", "diag" and "spherical" are the same
    model, so they are fitted once, as "full"). Later judgements refit only
    the chosen type with the chosen count and its neighbours, starting from
    the last judgement's choice when the current runs extend the runs it
    judged; a judgement of runs that do not extend them starts afresh.

    Parameters
    ----------
    threshold : float, default 0.01
        Largest accepted change of the mean log-likelihood (SHARP: 2.0).
    max_components : int, default 7
        Most mixture components tried (SHARP: 7).
    min_n : int, default 20
        Never stop on fewer runs.
    max_n : int, default 200
        Stop here in any case, saying so.
    interval : int, default 1
        Runs between judgements.
    rng : None, int or numpy.random.Generator
        Seeds scikit-learn's initialisation.

    References
    ----------
    Mittal et al., "SHARP: A Distribution-Based Framework for Reproducible Performance
    Evaluation", manuscript (undated); see the References of :mod:`perfstats.rules.sharp`.

    G. Schwarz, "Estimating the Dimension of a Model", The Annals of
    Statistics 6(2), 461-464, 1978.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.rules import GMM
    >>> rng = np.random.default_rng(0)
    >>> x = np.where(rng.random(200) < 0.5, rng.normal(10, 0.5, 200), rng.normal(20, 0.5, 200))
    >>> d = GMM(rng=0).check(x[:120])
    >>> d.details["components"], d.stop
    (2, True)
    >>> GMM(rng=0).check([5.0] * 30).reason
    'all 30 runs are equal; there is no distribution to model, and more runs add nothing'
    """

    name = "SHARP-GMM"

    def __init__(
        self,
        *,
        threshold: float = 0.01,
        max_components: int = 7,
        min_n: int = 20,
        max_n: int = 200,
        interval: int = 1,
        rng: RNGLike = None,
    ) -> None:
        self.threshold = check_positive(threshold, "threshold")
        self.max_components = check_int(max_components, "max_components", minimum=1)
        self._min_n, self.max_n, self._interval = check_limits(
            min_n, max_n, interval, least_min_n=4
        )
        self.seed = base_seed(rng)
        self._memo: tuple[np.ndarray, MixtureFit] | None = None

    def config(self) -> dict[str, Any]:
        return {
            "threshold": self.threshold,
            "max_components": self.max_components,
            **limits_config(self),
            "rng": self.seed,
        }

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_memo"] = None
        return state

    def _most(self, n: int) -> int:
        # At least two runs per component, or the fit is degenerate.
        return max(1, min(self.max_components, n // 2))

    def _full(self, x: np.ndarray) -> MixtureFit:
        # In one dimension full, diag and spherical covariances coincide.
        return fit_mixture(x, range(1, self._most(x.size) + 1), ("full", "tied"), seed=self.seed)

    def _near(self, x: np.ndarray, last: MixtureFit) -> MixtureFit:
        k = last.components
        counts = [c for c in (k - 1, k, k + 1) if 1 <= c <= self._most(x.size)]
        return fit_mixture(x, counts, (last.covariance_type,), seed=self.seed)

    def _previous(self, previous: np.ndarray) -> MixtureFit:
        memo = self._memo
        if memo is not None and memo[0].size == previous.size and np.array_equal(memo[0], previous):
            return memo[1]
        if (
            memo is not None
            and memo[0].size < previous.size
            and np.array_equal(memo[0], previous[: memo[0].size])
        ):
            return self._near(previous, memo[1])
        return self._full(previous)

    def _decide(self, data: np.ndarray) -> Decision:
        n = int(data.size)
        if float(data.max()) == float(data.min()):
            reason = (
                f"all {runs(n)} are equal; there is no distribution to model, "
                f"and more runs add nothing"
            )
            return self._decision(True, n, reason, {})
        previous = data[: n - self._interval]
        if previous.size < 4:
            reason = (
                f"{runs(n)} so far; comparing with the previous runs needs more than "
                f"{runs(self._interval + 3)}"
            )
            return self._decision(False, n, reason, {})
        if float(previous.max()) == float(previous.min()):
            reason = f"the previous {runs(previous.size)} are all equal; a mixture needs spread"
            return self._decision(False, n, reason, {})
        before = self._previous(previous)
        now = self._near(data, before)
        self._memo = (data.copy(), now)
        change = abs(now.mean_log_likelihood - before.mean_log_likelihood)
        details = {
            "components": now.components,
            "covariance_type": now.covariance_type,
            "bic": now.bic,
            "mean_log_likelihood": now.mean_log_likelihood,
            "previous_mean_log_likelihood": before.mean_log_likelihood,
            "change": change,
            "threshold": self.threshold,
        }
        model = f"a {now.components}-component mixture"
        said = f"{model}'s mean log-likelihood moved by {change:.3g} since the previous runs"
        return settle(
            self,
            n,
            settled=change <= self.threshold,
            details=details,
            stop_reason=f"{said}, within {self.threshold:g}",
            wait_reason=f"{said}; needs at most {self.threshold:g}",
            what=f"{model}'s mean log-likelihood settling within {self.threshold:g}",
        )
