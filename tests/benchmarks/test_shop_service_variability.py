"""Service-time variability and CPU per call from spans (perfstats.system.calibration)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from perfstats.system.calibration import MIN_ALONE_VISITS, service_scv

STATIONS = ["gateway", "catalogue", "pricing"]


def _trace(i: int, kind: str, start: float, pricing_own: float) -> list[dict[str, Any]]:
    """gateway root -> pricing /quote (with a nested pricing component), one request."""
    root, quote, inner = f"{i}-g", f"{i}-q", f"{i}-c"
    return [
        {"id": root, "parent_id": None, "trace_id": f"t{i}", "name": kind,
         "service": "gateway", "start": start, "end": start + 1.5 * pricing_own + 0.004},
        {"id": quote, "parent_id": root, "trace_id": f"t{i}", "name": "quote",
         "service": "pricing", "start": start + 0.001, "end": start + 0.001 + pricing_own},
        # nested inside the same service: part of the same visit, not another one
        {"id": inner, "parent_id": quote, "trace_id": f"t{i}", "name": "compute_price",
         "service": "pricing", "start": start + 0.001 + 0.25 * pricing_own,
         "end": start + 0.001 + 0.75 * pricing_own},
    ]


def test_scv_from_visits_alone_in_their_service() -> None:
    rng = np.random.default_rng(1)
    own = rng.gamma(4.0, 0.002 / 4.0, size=200)  # scv 1/4
    spans: list[dict[str, Any]] = []
    for i, x in enumerate(own):
        spans += _trace(i, "checkout", start=i * 1.0, pricing_own=float(x))
    # Requests that overlapped another one in pricing waited there: their
    # times are 20x longer and must not enter the estimate.
    for j in range(30):
        t = 500.0 + j
        spans += _trace(1000 + 2 * j, "checkout", start=t, pricing_own=0.04)
        spans += _trace(1001 + 2 * j, "checkout", start=t + 0.01, pricing_own=0.04)
    scv = service_scv([spans], STATIONS)
    expected = float(own.var(ddof=1) / own.mean() ** 2)
    assert scv["pricing"] == pytest.approx(expected, rel=1e-9)
    # the gateway's own time is 4 ms plus half of pricing's
    gw = 0.004 + 0.5 * own
    assert scv["gateway"] == pytest.approx(float(gw.var(ddof=1) / gw.mean() ** 2), rel=1e-9)
    # no span of the catalogue: the exponential's 1
    assert scv["catalogue"] == 1.0


def test_too_few_alone_visits_keep_the_exponential() -> None:
    spans: list[dict[str, Any]] = []
    for i in range(MIN_ALONE_VISITS - 1):
        spans += _trace(i, "checkout", start=float(i), pricing_own=0.002 + 0.0001 * i)
    scv = service_scv(spans, STATIONS)
    assert scv["pricing"] == 1.0


def test_component_cpu_per_request_type_and_calibrated_mds() -> None:
    from benchmarks.reproduce_liao import calibrated
    from perfstats import local_deviation
    from perfstats.system.calibration import component_cpu

    spans = _trace(0, "checkout", start=0.0, pricing_own=0.002)
    spans += _trace(1, "product", start=1.0, pricing_own=0.002)
    cpu_of = {"0-q": 0.006, "0-c": 0.002, "1-q": 0.002, "1-c": 0.002, "0-g": 0.001, "1-g": 0.001}
    for s in spans:
        s["cpu"] = cpu_of[s["id"]]
    cpu = component_cpu(spans)
    assert cpu["checkout"]["quote"] == pytest.approx(0.006)
    assert cpu["product"]["quote"] == pytest.approx(0.002)
    # Locally the quote (three items) took 4 ms and now takes 6: +50%.
    before = np.full(30, 0.004) + np.linspace(0, 1e-5, 30)
    dev = local_deviation(before, before * 1.5, unit="s")
    quiet = local_deviation(before, before, unit="s")
    carried = calibrated({"quote": dev, "apply_discounts": quiet}, cpu["product"])
    # At the system's speed, for a product page's one-item quote: +1 ms.
    assert carried["quote"] == pytest.approx(0.5 * 0.002, rel=1e-9)
    assert carried["apply_discounts"] is quiet
    assert calibrated({"quote": dev}, None)["quote"] is dev
    # A paired estimate of the relative change, where given, replaces md / mean_before.
    paired = calibrated({"quote": dev, "apply_discounts": quiet}, cpu["product"], {"quote": 0.4})
    assert paired["quote"] == pytest.approx(0.4 * 0.002, rel=1e-9)
    assert paired["apply_discounts"] is quiet
