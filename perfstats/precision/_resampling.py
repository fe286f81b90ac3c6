"""Shared set-up of bootstrap schemes: sorted sample, ranks, scheme code, block length.

Private to :mod:`perfstats.precision`: other subpackages use the engine
functions that :mod:`perfstats.precision.bootstrap` exposes.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._kernels import band as kb
from .._kernels import blocktable as kt
from .._kernels import orderstat as ko
from .._kernels import resample as kr
from .._kernels.sortorder import stabilise_ties
from .._kernels.threads import run_kernel
from .._validation import FloatArray, check_choice
from .blocklength import BLOCK_KINDS

ENGINES = ("auto", "order", "direct", "chain")
# From this sample size on, counts no longer fit in the fastest cache, and
# skipping the points far from the wanted ranks pays for long blocks.
ORDER_MIN_N = 2048
_KIND_CODE = {
    "moving": kr.MOVING,
    "circular": kr.CIRCULAR,
    "stationary": kr.STATIONARY,
    "superflow": kr.SUPERFLOW,
}


@dataclass(frozen=True)
class Scheme:
    """A resampling scheme bound to one sample."""

    sorted_x: FloatArray
    ranks: np.ndarray
    order: np.ndarray
    kind: int
    block: float | None


def sort_order(x: FloatArray) -> np.ndarray:
    """``np.argsort(x, kind="stable")``, several times faster.

    NumPy's default sort uses the CPU's vector units where it can; its
    stable sort does not, and is several times slower, a cost a Metior
    decision would notice. The default sort
    leaves ties in any order, and a pass over the sorted values puts each
    run of ties back in order of position. The order of ties matters to no
    resampled quantile (tied points carry equal values), but a resampled
    mean adds the values of tied ranks in rank order, and its last bits
    would otherwise depend on how the sort broke ties.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.precision._resampling import sort_order
    >>> x = np.array([3.0, 1.0, 2.0, 1.0])
    >>> sort_order(x).tolist()
    [1, 3, 2, 0]
    """
    order: np.ndarray = np.argsort(x)
    stabilise_ties(x, order)
    return order


def resolve_block_length(x: FloatArray, block_length: Any, block_kind: str) -> float:
    """The block length to use: Politis-White for ``"auto"``, else the validated value."""
    n = x.size
    if isinstance(block_length, str):
        if block_length != "auto":
            raise ValueError(f"block_length must be 'auto' or a number >= 1, got {block_length!r}")
        from .blocklength import MIN_SIZE, optimal_block_length

        if n < MIN_SIZE:
            raise ValueError(
                f"block_length='auto' (Politis-White) needs at least {MIN_SIZE} points, "
                f"got {n}; pass an integer block_length"
            )
        pw = optimal_block_length(x)
        if block_kind == "stationary":
            return float(min(max(pw.stationary, 1.0), n))
        return float(min(max(math.ceil(pw.circular), 1), n))
    if isinstance(block_length, bool) or not isinstance(block_length, numbers.Real):
        raise ValueError(f"block_length must be 'auto' or a number >= 1, got {block_length!r}")
    value = float(block_length)
    if not math.isfinite(value) or value < 1:
        raise ValueError(f"block_length must be >= 1, got {block_length!r}")
    if value > n:
        raise ValueError(f"block_length must not exceed the sample size {n}, got {block_length!r}")
    if block_kind != "stationary" and not value.is_integer():
        raise ValueError(
            f"block_length must be an integer for block_kind={block_kind!r}, got {block_length!r}"
        )
    if block_kind == "superflow" and (n - value) // value < 1:
        raise ValueError(
            f"block_length={block_length!r} leaves no whole block for the 'superflow' scheme "
            f"with n={n} (needs n >= 2 * block_length)"
        )
    return value


def make_scheme(
    x: FloatArray, block_length: Any, block_kind: str, order: np.ndarray | None = None
) -> Scheme:
    """Sort ``x`` once and describe how it will be resampled.

    ``block_length=None`` means the i.i.d. bootstrap. ``order``, if given,
    is :func:`sort_order` of ``x`` already computed.
    """
    if order is None:
        order = sort_order(x)
    sorted_x = x[order]
    ranks = np.empty(x.size, np.int64)
    ranks[order] = np.arange(x.size)
    if block_length is None:
        return Scheme(sorted_x, ranks, order, kr.IID, None)
    check_choice(block_kind, "block_kind", BLOCK_KINDS)
    block = resolve_block_length(x, block_length, block_kind)
    return Scheme(sorted_x, ranks, order, _KIND_CODE[block_kind], block)


def resampled_stats(
    scheme: Scheme,
    qs: FloatArray,
    with_mean: bool,
    n_resamples: int,
    key: np.uint64,
    engine: str = "auto",
) -> np.ndarray:
    """Resampled quantiles (columns in the order of ``qs``), plus the mean if asked.

    Block schemes: long blocks or large samples go through the band engine,
    fixed-length blocks (not too short) of small samples through window
    tables (both the same numbers); under ``engine="auto"``, short
    fixed-length blocks of a large sample go through block classes (the
    same distribution). Under ``engine="auto"``, blocks of one point in
    samples of :data:`SINGLE_POINT_CHAIN_MIN_N` points or more are the
    i.i.d. bootstrap of the points they can start at, drawn by
    order-statistic chains (see :func:`single_point_pool`).
    """
    path = resampling_path(scheme, qs.size, with_mean, engine)
    if path == "single-point":
        return iid_quantiles(single_point_pool(scheme), qs, n_resamples, key, "auto")
    if path == "class":
        return band_stats(scheme, qs, n_resamples, key, classes=True)
    if path == "band":
        return band_stats(scheme, qs, n_resamples, key)
    if path == "table":
        return table_stats(scheme, qs, n_resamples, key)
    order = np.argsort(qs, kind="stable")
    out = run_kernel(
        kr.stats_serial,
        kr.stats_parallel,
        n_resamples * scheme.sorted_x.size,
        scheme.sorted_x, scheme.ranks, np.ascontiguousarray(qs[order]), with_mean,
        n_resamples, key, scheme.kind, 1.0 if scheme.block is None else scheme.block,
    )  # fmt: skip
    return _in_order(out, order)


def resampling_path(scheme: Scheme, n_quantiles: int, with_mean: bool, engine: str) -> str:
    """Which engine :func:`resampled_stats` takes (see there for why).

    One of ``"single-point"``, ``"class"``, ``"band"``, ``"table"`` and
    ``"direct"``.
    """
    if with_mean or not n_quantiles:
        return "direct"
    if (
        engine == "auto"
        and scheme.block == 1.0
        and scheme.sorted_x.size >= SINGLE_POINT_CHAIN_MIN_N
    ):
        return "single-point"
    if engine == "auto" and use_class_engine(scheme, n_quantiles):
        return "class"
    if use_band_engine(scheme):
        return "band"
    if use_table_engine(scheme, n_quantiles):
        return "table"
    return "direct"


# A chain costs the same per resample at any n, counting ranks a step per
# point, so counting is the faster up to about 60 points (timed side by side
# around that size); the threshold leaves the smallest samples to counting.
SINGLE_POINT_CHAIN_MIN_N = 64


def single_point_pool(scheme: Scheme) -> FloatArray:
    """The sorted points a block scheme with blocks of one point draws from.

    A block of one point is one uniform draw of its start, so such a
    scheme is the i.i.d. bootstrap of the points a block can start at, with
    a resample of the scheme's size: all ``n`` points for moving, circular
    and stationary blocks (a mean length of one is a length of one), the
    first ``n - 1`` for SuperFlow's variant (``n - 1`` starts and
    ``n - 1`` blocks). An order-statistic chain then draws a resample's
    quantiles in O(1) instead of counting ``n`` points: the same
    distribution as the direct engine, not the same numbers.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.precision._resampling import make_scheme, single_point_pool
    >>> x = np.array([3.0, 1.0, 2.0, 0.5])
    >>> single_point_pool(make_scheme(x, 1, "moving")).tolist()
    [0.5, 1.0, 2.0, 3.0]
    >>> single_point_pool(make_scheme(x, 1, "superflow")).tolist()  # never the last point
    [1.0, 2.0, 3.0]
    """
    if scheme.kind == kr.SUPERFLOW:
        return np.delete(scheme.sorted_x, scheme.ranks[-1])
    return scheme.sorted_x


def named_distribution(
    x: FloatArray,
    stat: str | float,
    n_resamples: int,
    block_length: Any,
    block_kind: str,
    key: np.uint64,
    engine: str = "auto",
    order: np.ndarray | None = None,
) -> np.ndarray:
    """Resampled values of a named statistic (``"mean"``, ``"median"`` or a quantile).

    The numbers of :func:`perfstats.bootstrap_distribution` for validated
    arguments (``stat`` as :func:`perfstats._quantiles.parse_statistic`
    returns it) and a stream key instead of ``rng``. ``order`` may pass
    :func:`sort_order` of ``x`` when the caller has it.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats import bootstrap_distribution
    >>> from perfstats.precision._resampling import named_distribution
    >>> from perfstats._rng import stream_key
    >>> x = np.random.default_rng(0).normal(10.0, 1.0, size=200)
    >>> a = named_distribution(x, "median", 300, 4, "moving", stream_key(3))
    >>> bool(np.array_equal(a, bootstrap_distribution(
    ...     x, "median", n_resamples=300, block_length=4, rng=3)))
    True
    """
    if stat == "mean":
        scheme = make_scheme(x, block_length, block_kind, order)
        return resampled_stats(scheme, np.empty(0), True, n_resamples, key)[:, 0].copy()
    qs = np.array([0.5 if stat == "median" else float(stat)])
    if block_length is None and use_order_engine(engine):
        sorted_x = np.sort(x) if order is None else x[order]
        return iid_quantiles(sorted_x, qs, n_resamples, key, engine)[:, 0].copy()
    scheme = make_scheme(x, block_length, block_kind, order)
    return resampled_stats(scheme, qs, False, n_resamples, key, engine)[:, 0].copy()


def nested_named_distributions(
    x: FloatArray,
    n_first: int,
    stat: str | float,
    n_resamples: int,
    block_length: Any,
    block_kind: str,
    keys: tuple[np.uint64, np.uint64],
    order: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`named_distribution` of the first ``n_first`` points and of all of ``x``.

    The numbers of the two calls (``keys[0]`` for the first points,
    ``keys[1]`` for all), computed together: when both go through window
    tables and no window wraps around, one set of tables (the whole
    sample's) and one kernel call serve both (see
    :func:`table_quantiles`).

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.precision._resampling import named_distribution, nested_named_distributions
    >>> from perfstats._rng import stream_key
    >>> x = np.random.default_rng(0).normal(10.0, 1.0, size=400)
    >>> keys = (stream_key(1), stream_key(2))
    >>> first, whole = nested_named_distributions(x, 390, "median", 200, 12, "moving", keys)
    >>> bool(np.array_equal(first, named_distribution(x[:390], "median", 200, 12, "moving",
    ...                                               keys[0])))
    True
    """
    if order is None:
        order = sort_order(x)
    first_x = x[:n_first]
    if stat != "mean" and block_length is not None and block_kind != "circular":
        scheme = make_scheme(x, block_length, block_kind, order)
        # When all points take the tables, so do the first ones at the same
        # block length: the other engines need more points or blocks of one.
        if (
            resampling_path(scheme, 1, False, "auto") == "table"
            and resolve_block_length(first_x, block_length, block_kind) == scheme.block
        ):
            qs = np.array([0.5 if stat == "median" else float(stat)])
            both = table_quantiles(scheme, qs, n_resamples, [n_first, x.size], list(keys))
            return both[0, :, 0], both[1, :, 0]
    # The stable order of all points, without the later ones, is the stable
    # order of the first points.
    first_order = order[order < n_first]
    return (
        named_distribution(first_x, stat, n_resamples, block_length, block_kind, keys[0],
                           order=first_order),
        named_distribution(x, stat, n_resamples, block_length, block_kind, keys[1], order=order),
    )  # fmt: skip


def check_engine(engine: Any, *, iid: bool, quantiles: bool) -> str:
    """Validate ``engine``; ``"order"`` and ``"chain"`` need an i.i.d. resample of quantiles."""
    check_choice(engine, "engine", ENGINES)
    if engine in ("order", "chain") and not (iid and quantiles):
        raise ValueError(
            f"engine={engine!r} draws quantiles of i.i.d. resamples only; use engine='auto' "
            "or 'direct' for block schemes, the mean or a callable statistic"
        )
    return str(engine)


def use_order_engine(engine: str) -> bool:
    """Whether an i.i.d. resample of quantiles is drawn by its order statistics.

    ``"auto"`` is: a chain costs O(1) per resample and quantile at any n,
    where counting ranks costs O(n) per resample (at n = 1,000 the chains
    are an order of magnitude the faster).
    """
    return engine != "direct"


def iid_quantiles(
    sorted_x: FloatArray,
    qs: FloatArray,
    n_resamples: int,
    key: np.uint64,
    engine: str = "order",
) -> np.ndarray:
    """Resampled quantiles ``qs`` (columns in the order given) by uniform order statistics.

    The same distribution as :func:`resampled_stats` on an i.i.d. scheme,
    not the same numbers: see :mod:`perfstats._kernels.orderstat`.
    ``engine="chain"`` draws each resample's order statistics in one
    ascending chain (O(k) per resample, see :func:`iid_quantiles_chain`);
    ``"auto"`` draws one chain per quantile from the resample's stream, so
    that a quantile's values are the ones it gets when asked alone (the
    columns are then each a true bootstrap distribution, but not the joint
    law of one resample); ``"order"`` descends the bisection tree
    (O(k log n)), which gives both.
    """
    if engine in ("chain", "auto"):
        return iid_quantiles_chain(sorted_x, qs, n_resamples, key, marginal=engine == "auto")
    qs = np.ascontiguousarray(qs, dtype=np.float64)
    # A Python int key would compile a signed variant of the stream hash.
    key = np.uint64(key)
    work = ko.iid_work(sorted_x.size, qs.size, n_resamples)
    out: np.ndarray = run_kernel(
        ko.iid_quantiles_serial, ko.iid_quantiles_parallel, work, sorted_x, qs, n_resamples, key
    )
    return out


def iid_quantiles_chain(
    sorted_x: FloatArray, qs: FloatArray, n_resamples: int, key: np.uint64, marginal: bool = False
) -> np.ndarray:
    """Resampled quantiles ``qs`` of i.i.d. resamples, by order-statistic chains.

    Each resample's order statistics at the ranks the quantiles need are
    drawn in one ascending chain of Gamma spacings, so a resample of k
    quantiles costs O(k) whatever n. The same distribution as the direct
    resampling and as :func:`iid_quantiles`, not the same numbers; the
    quantiles of one call are one resample, but a quantile's values depend
    on which other quantiles the call asks for. ``marginal=True`` draws
    each quantile by its own chain from the resample's stream instead: its
    values are then those it gets alone, and the columns are not one
    resample's.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.precision._resampling import iid_quantiles_chain
    >>> x = np.sort(np.random.default_rng(0).normal(size=1000))
    >>> boot = iid_quantiles_chain(x, np.array([0.25, 0.5]), 500, np.uint64(1))
    >>> boot.shape
    (500, 2)
    >>> bool(np.all(boot[:, 0] <= boot[:, 1]))
    True
    """
    qs = np.ascontiguousarray(qs, dtype=np.float64)
    key = np.uint64(key)
    out: np.ndarray = run_kernel(
        ko.chain_resample_quantiles_serial,
        ko.chain_resample_quantiles_parallel,
        ko.chain_work(qs.size, n_resamples),
        np.ascontiguousarray(sorted_x, dtype=np.float64), qs, n_resamples, key, marginal,
    )  # fmt: skip
    return out


def use_band_engine(scheme: Scheme) -> bool:
    """Whether block-bootstrap quantiles pay for the band tables (same numbers either way).

    A block then costs O(1) plus its band members instead of O(block), so
    bands pay for long blocks, or for large samples, whose counts no longer
    fit in cache.
    """
    n = scheme.sorted_x.size
    block = 1.0 if scheme.block is None else scheme.block
    if scheme.kind == kr.IID or not n < 2**31 - 1:
        return False
    return (n >= ORDER_MIN_N and block >= 8) or (n >= 2**18 and block >= 3)


def _fixed_block(scheme: Scheme) -> int | None:
    """The block length when every block of ``scheme`` has it (not stationary, not i.i.d.)."""
    if scheme.kind not in (kr.MOVING, kr.CIRCULAR, kr.SUPERFLOW) or scheme.block is None:
        return None
    return int(scheme.block)


def _in_order(columns: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Columns (last axis) computed for ``qs[order]`` put back in the order of ``qs``.

    Columns past ``order.size`` (a mean after the quantiles) stay where they
    are; already ascending quantiles are returned as computed.
    """
    if order.size < 2 or not np.any(order[1:] < order[:-1]):
        return columns
    restored = columns.copy()
    restored[..., order] = columns[..., : order.size]
    return restored


# Short blocks of large samples draw their plain blocks by class (see band.py).
CLASS_MIN_N = 2**14
_MAX_CLASS_CODES = 4096
_CLASS_MAX_BLOCK = 8


def use_class_engine(scheme: Scheme, n_quantiles: int) -> bool:
    """Whether short blocks of a large sample should be drawn by class."""
    b = _fixed_block(scheme)
    if b is None:
        return False
    n = scheme.sorted_x.size
    # Longer blocks mostly touch a band: then the band engine is the faster.
    return (
        CLASS_MIN_N <= n < 2**31 - 1
        and b < _CLASS_MAX_BLOCK
        and (b + 1) ** n_quantiles <= _MAX_CLASS_CODES
    )


def band_stats(
    scheme: Scheme,
    qs: FloatArray,
    n_resamples: int,
    key: np.uint64,
    spread: float = kb.SPREAD,
    classes: bool = False,
) -> np.ndarray:
    """Block-bootstrap quantiles from bands of order statistics.

    ``classes=False``: the direct engine's numbers. ``classes=True`` (fixed
    block lengths only): plain blocks drawn by class, the same distribution.
    """
    n = scheme.sorted_x.size
    block = 1.0 if scheme.block is None else scheme.block
    m = ((n - int(block)) // int(block)) * int(block) if scheme.kind == kr.SUPERFLOW else n
    # Ascending, as the recount (quantiles_from_counts) needs; restored below.
    order = np.argsort(qs, kind="stable")
    qs = np.ascontiguousarray(qs[order], dtype=np.float64)
    band_lo, band_hi, q_band = kb.plan_bands(scheme.ranks, qs, m, block, spread)
    prefix, member_slot, offset = kb.band_tables(scheme.ranks, band_lo, band_hi)
    # Per resample: O(bands) per block, each band member about once, and
    # the walks over the bands.
    work = n_resamples * (m // max(1, int(block)) * (band_lo.size + 2) + 2 * member_slot.size)
    if classes:
        b = int(block)
        n_starts = kr.window_starts(scheme.kind, n, b)
        touch, class_below, class_starts, class_offset = kb.block_classes(prefix, n, b, n_starts)
        work = n_resamples * (4 * member_slot.size + 30 * class_offset.size * 20)
        got: np.ndarray = run_kernel(
            kb.class_serial,
            kb.class_parallel,
            work,
            scheme.sorted_x, scheme.ranks, qs, q_band, band_lo, offset, prefix, member_slot,
            touch, class_below, class_starts, class_offset, n_resamples, np.uint64(key),
            scheme.kind, b,
        )  # fmt: skip
        return _in_order(got, order)
    out: np.ndarray = run_kernel(
        kb.band_serial,
        kb.band_parallel,
        max(work, n_resamples * 1000),
        scheme.sorted_x, scheme.ranks, qs, q_band, band_lo, offset, prefix,
        member_slot, n_resamples, np.uint64(key), scheme.kind, block,
    )  # fmt: skip
    return _in_order(out, order)


# Fixed-length blocks of samples up to this size go through per-window rank
# tables (blocktable.py; the same numbers as counting ranks); the tables
# take O(n^2 / 16) bytes and int16 counts.
TABLE_MAX_N = 2047
# A table resample costs a coarse row per block, then per quantile a fine
# row and a mask per block; counting costs one step per point, whatever the
# number of quantiles. Timed against each other on one thread, tables win
# from blocks of 6 points for one quantile, about 12 for two, 18-24 for three
# and 32 for five (the speed runs of the change are in
# benchmarks/results/speed_tables_interleaved.txt).
TABLE_MIN_BLOCK = 6
TABLE_BLOCK_PER_QUANTILE = 8


def use_table_engine(scheme: Scheme, n_quantiles: int) -> bool:
    """Whether fixed-length block quantiles of a small sample should use window tables."""
    # No fixed length counts as 0, below any threshold; the thresholds are
    # whole numbers, so int(block) >= k exactly when block >= k.
    b = _fixed_block(scheme) or 0
    wanted = TABLE_MIN_BLOCK + TABLE_BLOCK_PER_QUANTILE * (max(n_quantiles, 1) - 1)
    return scheme.sorted_x.size <= TABLE_MAX_N and b >= wanted


def table_stats(scheme: Scheme, qs: FloatArray, n_resamples: int, key: np.uint64) -> np.ndarray:
    """Fixed-length block-bootstrap quantiles from per-window rank tables.

    The direct engine's numbers (see :mod:`perfstats._kernels.blocktable`),
    columns in the order of ``qs``.

    Examples
    --------
    >>> import numpy as np
    >>> from perfstats.precision._resampling import make_scheme, table_stats
    >>> from perfstats._kernels import resample as kr
    >>> x = np.random.default_rng(0).normal(size=300)
    >>> scheme = make_scheme(x, 10, "moving")
    >>> qs = np.array([0.5, 0.25])
    >>> direct = kr.stats_serial(scheme.sorted_x, scheme.ranks, np.sort(qs), False,
    ...                          200, np.uint64(3), kr.MOVING, 10.0)
    >>> bool(np.array_equal(table_stats(scheme, qs, 200, np.uint64(3)), direct[:, ::-1]))
    True
    """
    return table_quantiles(scheme, qs, n_resamples, [scheme.sorted_x.size], [key])[0]


def table_quantiles(
    scheme: Scheme,
    qs: FloatArray,
    n_resamples: int,
    sizes: list[int],
    keys: list[np.uint64],
) -> np.ndarray:
    """Block-bootstrap quantiles of the first ``sizes[i]`` points, from one set of tables.

    Returns an array ``(len(sizes), n_resamples, qs.size)``: set ``i``
    resamples the first ``sizes[i]`` points of the scheme's sample under
    stream key ``keys[i]``, with the numbers :func:`table_stats` gives for
    that prefix alone. A window of a prefix is a window of the whole sample
    when no window wraps around, so every prefix reads the whole sample's
    tables (ranks among all points order a prefix's points as well as its
    own ranks do); circular schemes, whose windows wrap at the prefix's
    end, take the whole sample only.
    """
    n = scheme.sorted_x.size
    b = int(1.0 if scheme.block is None else scheme.block)
    if scheme.kind == kr.CIRCULAR and any(size != n for size in sizes):
        raise ValueError("circular windows of a prefix wrap at its end: resample it alone")
    tables = kt.window_tables(scheme.ranks, b, kr.window_starts(scheme.kind, n, b))
    order = np.argsort(qs, kind="stable")
    sorted_qs = np.ascontiguousarray(qs[order], dtype=np.float64)
    n_blocks = n // b
    # Per resample and block: a coarse row, then per quantile a fine row and a mask.
    work = len(sizes) * n_resamples * n_blocks * (4 + 12 * sorted_qs.size)
    out: np.ndarray = run_kernel(
        kt.table_serial,
        kt.table_parallel,
        work,
        scheme.sorted_x, scheme.ranks, np.array(sizes, np.int64), np.array(keys, np.uint64),
        sorted_qs, tables, scheme.kind, b, n_resamples,
    )  # fmt: skip
    return _in_order(out, order)
