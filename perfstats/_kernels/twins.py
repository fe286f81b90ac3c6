"""One kernel body compiled twice: a serial twin and a parallel twin.

Every parallel kernel has a serial twin (see :mod:`perfstats._kernels.threads`
for why the choice is made per call). Both must give the same numbers, which
holds by construction when they are the same source: the body loops over a
fixed number of chunks with ``numba.prange``, which numba compiles as a plain
``range`` unless ``parallel=True``. Writing the twins out by hand would keep
two copies of each body that can drift apart.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numba as nb

#: Chunks of a parallel kernel's outer loop. A fixed number, not one per
#: thread, so that no number depends on the thread count: every item draws
#: from its own stream, whichever chunk holds it. numba hands each thread an
#: equal share of the chunks, so more of them balance nothing, and each costs
#: its scratch arrays (64 chunks cost 5 % of a small resampling call).
CHUNKS = 16


def _renamed(body: Callable[..., Any], suffix: str) -> Callable[..., Any]:
    # numba names a function's on-disk cache after its qualified name and
    # first line, so the two compilations of one body need two names or the
    # second would load the first one's machine code.
    assert isinstance(body, types.FunctionType)
    clone = types.FunctionType(
        body.__code__, body.__globals__, body.__name__ + suffix, body.__defaults__, body.__closure__
    )
    clone.__qualname__ = body.__qualname__ + suffix
    clone.__module__ = body.__module__
    clone.__doc__ = body.__doc__
    return clone


def twins(body: Callable[..., Any]) -> tuple[Any, Any]:
    """Compile ``body`` serial and parallel, both with an on-disk cache.

    Parameters
    ----------
    body : function
        A numba-compilable function whose outer loop is ``numba.prange``
        over a fixed number of chunks (independent of the thread count).

    Returns
    -------
    serial, parallel : numba dispatchers
        ``body`` compiled with ``parallel=False`` and with ``parallel=True``.

    Examples
    --------
    The i.i.d. chain kernels are one such pair:

    >>> import numpy as np
    >>> from perfstats._kernels.orderstat import (
    ...     chain_resample_quantiles_parallel, chain_resample_quantiles_serial)
    >>> x = np.sort(np.random.default_rng(1).exponential(size=200))
    >>> args = (x, np.array([0.25, 0.5]), 100, np.uint64(7), False)
    >>> bool(np.array_equal(chain_resample_quantiles_serial(*args),
    ...                     chain_resample_quantiles_parallel(*args)))
    True
    """
    serial = nb.njit(cache=True)(_renamed(body, "_serial"))
    parallel = nb.njit(cache=True, parallel=True)(_renamed(body, "_parallel"))
    return serial, parallel
