"""Automatic block length for the stationary and circular block bootstraps.

Politis & White (2004), "Automatic Block-Length Selection for the Dependent
Bootstrap", Econometric Reviews 23(1), 53-70, with the correction of the
constants D_SB and D_CB by Patton, Politis & White (2009), Econometric
Reviews 28(4), 372-375. Metior (He et al., ASE 2021) and SuperFlow 3 (Wen
et al.) choose their block sizes this way.

The numbers are those of ``arch.bootstrap.optimal_block_length`` (arch 8.0),
the reference this project is tested against; where arch differs from the
paper we follow arch and say so below.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from perfstats._kernels.blocklength import block_lengths
from perfstats._validation import as_sample, check_choice

__all__ = ["BLOCK_KINDS", "MIN_SIZE", "BlockLength", "optimal_block_length"]

BLOCK_KINDS: tuple[str, ...] = ("moving", "circular", "stationary", "superflow")
"""The block-bootstrap schemes perfstats knows, used wherever a block kind is checked:

* ``"moving"``: overlapping blocks of a fixed length (Kunsch 1989);
* ``"circular"``: the same with blocks that wrap around the end (Politis &
  Romano 1992);
* ``"stationary"``: geometric block lengths (Politis & Romano 1994);
* ``"superflow"``: the moving-block variant of SuperFlow's public reference
  code (``n - b`` blocks, ``floor((n - b) / b)`` of them per resample).
"""

#: Fewest points accepted. The lag search looks at autocorrelations up to
#: lag ``m_max = ceil(sqrt(n)) + 5`` and arch normalises lag ``k`` by the sums
#: of squares of ``x[k+1:]`` and ``x[:n-k-1]``; both are non-empty for every
#: lag only when ``n >= m_max + 2``, i.e. from 11 points on. arch raises below
#: 8 points and divides by zero for 8 to 10 (an infinite "correlation"), so
#: no meaningful value exists there.
MIN_SIZE = 11


@dataclass(frozen=True, repr=False)
class BlockLength:
    """Optimal block lengths of one series (Politis & White 2004; PPW 2009).

    Parameters
    ----------
    stationary : float
        Optimal expected block length of the stationary bootstrap.
    circular : float
        Optimal block length of the circular (and moving) block bootstrap.
    n : int
        Number of observations.
    m : int
        Bandwidth ``M`` of the flat-top lag window chosen by the lag search
        (0 for a constant series).
    m_max : int
        Largest bandwidth the search may choose, ``ceil(sqrt(n)) + K_N``;
        ``m == m_max`` usually means no run of ``K_N`` insignificant
        autocorrelations was found (strong dependence).
    b_max : float
        Cap on both lengths, ``ceil(min(3 sqrt(n), n / 3))``.

    Notes
    -----
    The lengths are real numbers and are **not** floored at 1: as in arch
    they can be below 1 (even 0 when the weighted autocovariance sum is zero)
    for series without dependence. Use :meth:`block` for an integer length.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.precision import optimal_block_length
    >>> rng = np.random.default_rng(0)
    >>> x = np.repeat(rng.normal(size=50), 8) + 0.2 * rng.normal(size=400)
    >>> b = optimal_block_length(x)
    >>> b.n, b.m_max, b.b_max
    (400, 25, 60.0)
    >>> 1 < b.stationary < b.circular <= b.b_max, b.block() == int(np.ceil(b.circular))
    (True, True)
    """

    stationary: float
    circular: float
    n: int
    m: int
    m_max: int
    b_max: float

    def block(self, kind: str = "circular") -> int:
        """Integer block length ``max(1, ceil(b))`` for ``kind``.

        Parameters
        ----------
        kind : {"circular", "stationary"}
            Which optimal length to round up.

        Returns
        -------
        int
            The rounded-up length, at least 1 (the convention of the
            SuperFlow and Metior reference code).

        Examples
        --------
        >>> import numpy as np
        >>> from perfstats.precision.blocklength import optimal_block_length
        >>> x = np.sin(np.arange(200) / 5.0) + np.cos(np.arange(200) * 1.3)
        >>> optimal_block_length(x).block() >= 1
        True
        """
        check_choice(kind, "kind", ("circular", "stationary"))
        value = self.circular if kind == "circular" else self.stationary
        return max(1, math.ceil(value))

    def __repr__(self) -> str:
        return (
            f"BlockLength(stationary={self.stationary:.6g}, circular={self.circular:.6g}, "
            f"n={self.n}, m={self.m}, m_max={self.m_max}, b_max={self.b_max:g})"
        )


def optimal_block_length(data: Any) -> BlockLength:
    r"""Politis-White optimal block lengths with the PPW (2009) correction.

    With autocovariances :math:`\hat R(k) = n^{-1}\sum_{t>k}
    (x_t-\bar x)(x_{t-k}-\bar x)` and the flat-top lag window
    :math:`\lambda(t) = \min(1, 2(1-|t|))` of bandwidth :math:`M`,

    .. math::

        \hat G = \sum_{|k|\le M} \lambda(k/M)\,|k|\,\hat R(k), \qquad
        \hat g = \sum_{|k|\le M} \lambda(k/M)\,\hat R(k),

        b_{SB} = \left(\frac{2\hat G^2}{2\hat g^2}\right)^{1/3} n^{1/3}, \qquad
        b_{CB} = \left(\frac{2\hat G^2}{\tfrac43\hat g^2}\right)^{1/3} n^{1/3},

    where :math:`D_{SB} = 2\hat g^2` and :math:`D_{CB} = \tfrac43 \hat g^2`
    are the constants as corrected by Patton, Politis & White (2009). Both
    lengths are capped at :math:`b_{max} = \lceil\min(3\sqrt n, n/3)\rceil`.
    :math:`M = 2\hat m`, where :math:`\hat m` is found by the
    Politis-White (2004, Sec. 3.2) rule: the first lag after which
    :math:`K_N` consecutive autocorrelations lie inside
    :math:`\pm 2\sqrt{\log_{10}(n)/n}`; :math:`M \le m_{max} =
    \lceil\sqrt n\rceil + K_N`, and :math:`M = m_{max}` when no such lag is
    found.

    Parameters
    ----------
    data : array_like
        1-D series of finite numbers in collection order, at least
        :data:`MIN_SIZE` (11) points.

    Returns
    -------
    BlockLength
        ``stationary`` and ``circular`` optimal lengths, plus ``n``, the
        bandwidth ``m``, ``m_max`` and the cap ``b_max``.

    Raises
    ------
    ValueError
        If ``data`` is not a 1-D array of finite numbers or has fewer than
        11 points.

    Notes
    -----
    Reproduces ``arch.bootstrap.optimal_block_length`` (arch 8.0) to
    rounding, including its departures from the papers:

    * :math:`K_N = \max(5, \lfloor\log_{10} n\rfloor)`; the paper and
      Patton's MATLAB code use :math:`\max(5, \sqrt{\log_{10} n})`. Both give
      5 below a million points.
    * The autocorrelation at lag :math:`k` used by the lag search is
      :math:`|\sum_t e_t e_{t-k}| / \sqrt{\sum_{t>k} e_t^2
      \sum_{t<n-k-1} e_t^2}`: the cross product of lag :math:`k` over the
      sums of squares of the lag-:math:`k+1` segments (the paper uses
      :math:`\hat R(k)/\hat R(0)`).
    * The search takes the first :math:`m` whose lags :math:`m, \dots,
      m+K_N-1` are insignificant (the paper: :math:`m+1, \dots, m+K_N`), so
      arch's :math:`\hat m` is the paper's plus one, and :math:`M =
      \min(2\max(\hat m, 1), m_{max})`.
    * No lower bound: a length below 1 (or 0) is returned as computed.

    A **constant** series has no dependence to estimate and every block
    bootstrap of it returns the same constant whatever the block length, so
    this function returns 1 for both lengths (``m = 0``). arch returns NaN
    there, or an arbitrary number driven by the rounding error of the mean
    (e.g. a circular length of 12.03 for fifty copies of 0.1). If the
    estimated long-run variance :math:`\hat g` of a non-constant series is
    exactly zero, the ratio is unbounded and both lengths are ``b_max``
    (arch: the same, or NaN when :math:`\hat G` is zero too).

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.precision.blocklength import optimal_block_length
    >>> rng = np.random.default_rng(0)
    >>> e = rng.standard_normal(1000)
    >>> x = np.empty(1000)
    >>> x[0] = e[0]
    >>> for t in range(1, 1000):
    ...     x[t] = 0.5 * x[t - 1] + e[t]
    >>> b = optimal_block_length(x)
    >>> 1 < b.stationary < b.circular <= b.b_max
    True
    >>> b.block("circular") == int(np.ceil(b.circular))
    True
    """
    x = as_sample(data, "data", min_size=MIN_SIZE)
    # The lengths are scale-free; the kernel rescales by an exact power of
    # two, which keeps the autocovariances finite for values near 1e160 or
    # 1e-160 (their squares overflow or underflow) without changing a bit of
    # the ordinary case.
    b_sb, b_cb, m, m_max, b_max = block_lengths(x)
    return BlockLength(float(b_sb), float(b_cb), int(x.shape[0]), int(m), int(m_max), float(b_max))
