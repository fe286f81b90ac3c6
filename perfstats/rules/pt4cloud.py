"""PT4Cloud: stop when the distribution no longer changes between run intervals.

He, Manns, Saunders et al., "A Statistics-Based Performance Testing Methodology
for Cloud Applications" (ESEC/FSE 2019) [He2019]_, as summarised and evaluated by
SuperFlow (Wen et al. 2023, Section 2) and Metior (He et al. 2021,
Section IV): the similarity probability between the runs of the previous
intervals ``S_pre`` and all runs ``S_cur`` (Gaussian KDEs compared by a
symmetric KL divergence) must reach an objective probability ``p0`` (90%).

References
----------
.. [He2019] S. He, G. Manns, J. Saunders, W. Wang, L. Pollock and M. L. Soffa, "A
   Statistics-Based Performance Testing Methodology for Cloud Applications",
   27th ACM Joint European Software Engineering Conference and Symposium on the
   Foundations of Software Engineering (ESEC/FSE), 2019, pp. 188-199.
.. [Wen2023] Wen et al., "SuperFlow: Performance Testing for Serverless Computing",
   arXiv:2306.01620, 2023; see the References of :mod:`perfstats.rules.superflow`.
.. [He2021] He et al., "Performance Testing for Cloud Computing with Dependent Data
   Bootstrapping" (Metior), ASE 2021; see the References of :mod:`perfstats.rules.metior`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_fraction, check_int
from ..comparison.similarity import kl_similarity
from ._wording import pct
from .base import Rule
from .decision import Decision


class PT4Cloud(Rule):
    """Stop when ``kl_similarity(S_pre, S_cur) >= threshold``.

    Parameters
    ----------
    threshold : float, default 0.90
        The objective probability ``p0``; 0.90 is PT4Cloud's default.
    interval : int, default 5
        Runs per run interval; ``S_pre`` is ``S_cur`` without its last
        ``interval`` runs, so the first judgement is at ``2 * interval``.
        PT4Cloud itself used one-week intervals on VMs; SuperFlow evaluated
        it with 5-run intervals on serverless functions.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.rules import PT4Cloud
    >>> x = np.random.default_rng(0).normal(100.0, 5.0, size=200)
    >>> PT4Cloud().check(x).stop
    True
    >>> PT4Cloud(threshold=0.99, interval=100).check(x).reason
    'similarity of the previous and current runs is 98.8%; needs at least 99.0%'
    """

    name = "PT4Cloud"

    def __init__(self, *, threshold: float = 0.90, interval: int = 5) -> None:
        self.threshold = check_fraction(threshold, "threshold")
        self._interval = check_int(interval, "interval", minimum=1)

    @property
    def min_n(self) -> int:
        return 2 * self._interval

    def config(self) -> dict[str, Any]:
        return {"threshold": self.threshold, "interval": self._interval}

    def _decide(self, data: np.ndarray) -> Decision:
        n = int(data.size)
        previous = data[: n - self._interval]
        if previous.max() == previous.min():  # ptp would overflow near 1e308
            # A Gaussian KDE needs spread (its Scott bandwidth would be 0);
            # PT4Cloud has no answer until the runs differ.
            reason = f"the previous {previous.size} runs are all equal; a KDE needs spread"
            return self._decision(
                False, n, reason, {"similarity": float("nan"), "threshold": self.threshold}
            )
        similarity = float(kl_similarity(previous, data))
        stop = similarity >= self.threshold
        verdict = (
            f"reaches the {pct(self.threshold)} threshold"
            if stop
            else f"needs at least {pct(self.threshold)}"
        )
        reason = f"similarity of the previous and current runs is {pct(similarity)}; {verdict}"
        return self._decision(
            stop, n, reason, {"similarity": similarity, "threshold": self.threshold}
        )
