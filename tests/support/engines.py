"""The direct counting engine, as engine-against-engine tests call it."""

from __future__ import annotations

import numpy as np

from perfstats._kernels import resample as kr
from perfstats.precision._resampling import Scheme


def direct_quantiles(
    scheme: Scheme, qs: np.ndarray, n_resamples: int, key: np.uint64
) -> np.ndarray:
    """Resampled quantiles by counting every resampled point (columns in the order of ``qs``)."""
    order = np.argsort(qs, kind="stable")  # the kernel wants them ascending
    block = float(scheme.block or 1.0)
    got = kr.stats_serial(
        scheme.sorted_x, scheme.ranks, qs[order], False, n_resamples, key, scheme.kind, block
    )
    out = np.empty_like(got)
    out[:, order] = got
    return out
