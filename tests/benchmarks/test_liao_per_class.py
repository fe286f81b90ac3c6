"""benchmarks/liao_per_class.py: the per-request-type split of the Liao evaluation."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchmarks import liao_per_class as lp

KINDS = ["browse", "checkout", "product"]


def mix(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Response times of three well separated request types, 20/50/30 %."""
    kinds = rng.choice(KINDS, size=n, p=[0.2, 0.5, 0.3])
    centre = {"browse": 5.0, "checkout": 9.0, "product": 13.0}
    x = np.array([centre[k] for k in kinds]) + rng.normal(0.0, 0.5, n)
    return x, kinds


def test_contributions_add_up_and_name_the_slowed_type() -> None:
    rng = np.random.default_rng(3)
    b, kb = mix(rng, 2000)
    a, ka = mix(rng, 2000)
    a = lp.with_shift(a, ka, "browse", 4.0)
    whole = lp.delta(a, b)
    parts = lp.contributions(b, kb, a, ka, KINDS)
    assert sum(parts.values()) == pytest.approx(whole, abs=1e-12)
    # browse moves onto checkout: the whole-mix delta is browse's term
    assert parts["browse"] > 0.1
    assert abs(parts["checkout"]) < 0.03 and abs(parts["product"]) < 0.03
    cross = lp.cross_deltas(b, kb, a, ka, "browse", KINDS)
    assert cross["checkout"]["before"] == pytest.approx(-1.0)
    assert -0.5 < cross["checkout"]["after"] < 0.5
    assert cross["product"]["after"] == pytest.approx(-1.0)


def test_counterfactuals_swap_one_thing_at_a_time() -> None:
    rng = np.random.default_rng(4)
    b, kb = mix(rng, 2000)
    a, ka = mix(rng, 2000)
    a = lp.with_shift(a, ka, "browse", 4.0)
    # the "model": the same types, browse shifted by less
    mb, mkb = mix(rng, 2000)
    ma = lp.with_shift(mb, mkb, "browse", 1.0)
    shares = {"browse": 0.2, "checkout": 0.5, "product": 0.3}
    cf = lp.counterfactuals((b, kb, a, ka), (mb, mkb, ma, mkb), "browse", shares)
    assert cf["real_shift_ms"] == pytest.approx(4.0, abs=0.2)
    assert cf["model_shift_ms"] == pytest.approx(1.0, abs=1e-9)
    # only browse changed in the "load tests": the counterfactual is their delta
    assert cf["real_only_slowed_type"] == pytest.approx(lp.delta(a, b), abs=0.03)
    # each side's delta follows the shift put on it, whatever side it came from
    assert cf["real_with_model_shift"] == pytest.approx(lp.delta(ma, mb), abs=0.03)
    assert cf["model_with_real_shift"] == pytest.approx(lp.delta(a, b), abs=0.03)
    assert cf["real_model_shares"] == pytest.approx(lp.delta(a, b), abs=0.03)
    # each side's own shift on its own original: a constant shift is what it was
    assert cf["real_with_real_shift"] == pytest.approx(lp.delta(a, b), abs=0.03)
    assert cf["model_with_model_shift"] == pytest.approx(lp.delta(ma, mb), abs=1e-9)


def test_per_type_reads_shares_and_spreads() -> None:
    b = np.array([4.0, 5.0, 6.0, 10.0])
    kb = np.array(["x", "x", "x", "y"])
    row = lp.per_type(b, kb, b * 2, kb, ["x", "y"])
    assert row["x"]["share_before"] == 0.75 and row["y"]["n_after"] == 1
    assert row["x"]["median_ratio"] == pytest.approx(2.0)
    assert row["x"]["before"]["iqr"] == pytest.approx(1.0)
    assert row["x"]["before"]["iqr_rel"] == pytest.approx(0.2)
    assert row["x"]["cliffs_delta"] > 0.5


@pytest.mark.service
def test_quick_run_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "liao_per_class.json"
    assert lp.main(["--quick", "--json", str(out)]) == 0
    whole = json.loads(out.read_text())
    assert len(whole["runs"]) == 1
    doc = whole["runs"][0]
    text = out.with_suffix(".txt").read_text()
    assert text.startswith("# command: python -m benchmarks.liao_per_class --quick")
    assert "== variant2 L2-High" in text and "== fixed L2-High" in text
    assert "browse's time per component" in text and "== summary" in text
    summary = whole["summary"]["variant2 L2-High"]
    assert len(summary["runs"]) == 1 and len(summary["oracle_regression"]) == 1
    row = doc["rows"][1]
    assert summary["mean"]["oracle"] == row["oracle"]["cliffs_delta"]
    assert summary["mean"]["model"] == row["model"]["cliffs_delta"]
    assert [(r["scenario"], r["version"]) for r in doc["rows"]] == [
        ("fixed", "L2-High"),
        ("variant2", "L2-High"),
    ]
    for row in doc["rows"]:
        assert row["slowed_type"] == "browse"
        for side in ("oracle", "model"):
            part = row[side]
            assert set(part["per_type"]) == set(KINDS)
            # the split adds up to the whole mix's delta
            assert sum(part["contributions"].values()) == pytest.approx(
                part["cliffs_delta"], abs=1e-6
            )
            shares = sum(t["share_before"] for t in part["per_type"].values())
            assert shares == pytest.approx(1.0)
        assert row["oracle"]["per_type"]["browse"]["n_before"] > 5
        # the model's browse requests are the ones the injected wait slows
        assert row["model"]["per_type"]["browse"]["cliffs_delta"] > 0.5
        assert row["model"]["per_type"]["browse"]["median_shift_ms"] > 0.0
        # the spans of browse traces: the injected wait is CPU in filter_items
        sp = row["spans"]
        assert sp["n_runs"] == 1
        before, after = sp["before"]["filter_items"], sp["after"]["filter_items"]
        assert after["cpu_mean"] > 2.0 * before["cpu_mean"]
        assert after["wall_mean"] >= 0.9 * after["cpu_mean"]
        assert sp["before"]["response"]["n"] > 5
        res = sp["model_residence"]
        assert res["catalogue"]["after"] > res["catalogue"]["before"]
        assert res["total"]["before"] == pytest.approx(
            sum(v["before"] for k, v in res.items() if k != "total")
        )
    assert set(doc["aa"]) == {"fixed", "variant2"}
    st = doc["settings"]
    assert st["reps"] == 1 and st["slowdown"] is True and st["span_reps"] == 1
    assert st["calibration_drives"] == "every"
    # A calibration workload per request type that drives a station: checkout
    # the pricing service, browse the catalogue and the gateway (at the rate
    # of whichever of them it loads more), so that the catalogue, which the
    # regression slows, has its own slowdown table.
    cal = doc["model"]["calibration"]
    assert [w["mix"] for w in cal["workloads"]] == [{"checkout": 1.0}, {"browse": 1.0}]
    assert cal["workloads"][0]["station"] == "pricing"
    assert cal["workloads"][1]["station"] in ("catalogue", "gateway")
    for w in cal["workloads"]:
        assert len(w["runs"]) >= 3 and all(r["errors"] == 0 for r in w["runs"])
    tables = doc["model"]["slowdown"]
    for station in ("pricing", "catalogue"):
        assert tables[station] is not None and tables[station][0] == 1.0
    assert "calibration load tests of the original" in text and "browse " in text
