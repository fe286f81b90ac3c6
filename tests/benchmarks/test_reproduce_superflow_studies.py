"""SuperFlow's sweeps (RQ1-RQ4), normality and credibility studies, on small slices.

Known values: the public reference code's figures on these files
(shared/reference/ANCHORS.md) at the paper's defaults, and the shares of
Shapiro-Wilk rejections counted on the SCOPE traces.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.benchmark_scripts import load_benchmark

from perfstats.precision import percentile_ci
from perfstats.replay import replay
from perfstats.replay.scoring import score_distribution
from perfstats.rules import SuperFlow


def _cell(cells: list[dict[str, Any]], technique: str, start: str, value: float) -> dict[str, Any]:
    (cell,) = [
        c
        for c in cells
        if (c["technique"], c["start"]) == (technique, start) and c["value"] == value
    ]
    return cell


def test_rq1_pt4cloud_default_equals_reference_code(tmp_path: Path, perfstats_data: Path) -> None:
    module = load_benchmark("reproduce_superflow")
    out = tmp_path / "rq1.json"
    argv = ["rq1", "--techniques", "PT4Cloud", "--values", "0.9", "0.98", "--json", str(out)]
    assert module.main([*argv, "--plot-dir", str(tmp_path)]) == 0
    payload = json.loads(out.read_text())
    assert next(iter(payload)) == "command"
    cells = payload["cells"]
    assert _cell(cells, "PT4Cloud", "cold", 0.9)["accuracy"]["mean"] == pytest.approx(
        61.12, abs=0.006
    )
    assert _cell(cells, "PT4Cloud", "warm", 0.9)["accuracy"]["mean"] == pytest.approx(
        43.45, abs=0.006
    )
    # A stricter p0 needs a higher similarity, so PT4Cloud runs longer.
    for start in ("cold", "warm"):
        assert (
            _cell(cells, "PT4Cloud", start, 0.98)["mean_stop_n"]
            > _cell(cells, "PT4Cloud", start, 0.9)["mean_stop_n"]
        )
    gaps = {(g["start"], g["value"], g["metric"]): g for g in payload["gaps"]}
    cold = gaps[("cold", 0.9, "accuracy")]
    assert cold["paper"] == 51.30 and cold["difference"] == pytest.approx(9.82, abs=0.006)
    assert cold["reason"].startswith("ours = reference code")
    assert gaps[("cold", 0.98, "accuracy")]["paper"] == 59.91
    png = tmp_path / "superflow_rq1_pt4cloud_p0.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_rq3_superflow1_looser_error_stops_earlier(tmp_path: Path, perfstats_data: Path) -> None:
    module = load_benchmark("reproduce_superflow")
    out = tmp_path / "rq3.json"
    argv = ["rq3", "--techniques", "SuperFlow-1", "--values", "0.05", "0.01", "--json", str(out)]
    assert module.main(argv) == 0
    cells = json.loads(out.read_text())["cells"]
    default = _cell(cells, "SuperFlow-1", "warm", 0.01)
    assert default["accuracy"]["mean"] == pytest.approx(97.12, abs=0.006)
    assert default["25"]["mean"] == pytest.approx(86.15, abs=0.006)  # 56 of 65
    loose = _cell(cells, "SuperFlow-1", "warm", 0.05)
    assert loose["mean_stop_n"] < default["mean_stop_n"] / 2
    assert loose["accuracy"]["mean"] < default["accuracy"]["mean"] - 10


def test_rq4_prints_the_papers_ranges(
    tmp_path: Path, perfstats_data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    module = load_benchmark("reproduce_superflow")
    text = tmp_path / "rq4.txt"
    argv = ["rq4", "--techniques", "SuperFlow-1", "--values", "5", "10", "--every", "13"]
    assert module.main([*argv, "--out", str(text)]) == 0
    written = text.read_text()
    assert written.startswith("# command: python -m benchmarks.reproduce_superflow rq4 ")
    assert "RQ4 gives ranges over intervals 3-20" in written
    assert "97.21-97.71" in written  # the paper's range of SuperFlow 1's accuracy
    assert written == capsys.readouterr().out


def test_normality_shares_on_the_first_windows(perfstats_data: Path) -> None:
    module = load_benchmark("reproduce_superflow")
    from benchmarks._traces import load_scope

    study = module.normality_study(load_scope(perfstats_data), draws=2)
    for start in ("cold", "warm"):
        assert study[start]["first_window_count"] == 51  # of 65: 78.46 %
        assert study[start]["first_window_pct"] == pytest.approx(78.46)
        assert len(study[start]["windows_pct"]) == 20
        assert len(study[start]["not_rejected_first_window"]) == 14
    assert min(study["cold"]["windows_pct"]) == pytest.approx(69.23)
    assert max(study["cold"]["windows_pct"]) == pytest.approx(81.54)
    assert study["either_start_first_window_pct"] == pytest.approx(92.31)


def test_normality_study_tells_normal_from_skewed() -> None:
    module = load_benchmark("reproduce_superflow")
    rng = np.random.default_rng(3)
    normal = {f"f{i}": rng.normal(100.0, 5.0, size=200) for i in range(40)}
    skewed = {f"f{i}": 100.0 * rng.lognormal(0.0, 1.0, size=200) for i in range(40)}
    study = module.normality_study({"cold": normal, "warm": skewed}, draws=3)
    assert study["cold"]["first_window_pct"] <= 20.0
    assert study["warm"]["first_window_pct"] >= 90.0
    assert len(study["cold"]["windows_pct"]) == 4


def test_credibility_readings_reproduce_the_scoring(perfstats_data: Path) -> None:
    module = load_benchmark("reproduce_superflow")
    from benchmarks._traces import load_scope

    traces = load_scope(perfstats_data)["warm"]
    frame = replay(SuperFlow(), traces, workers=1, progress=False)
    stops = {str(t): int(n) for t, n in zip(frame["trace"], frame["stop_n"], strict=True)}
    counts, _ = module.credible_counts(traces, stops)
    scored = score_distribution(frame, traces)
    assert counts == [int(scored[f"credible_P{p}"].sum()) for p in (25, 50, 75, 90)]
    assert counts[0] == 56  # the reference code's 86.2 % warm P25; the paper has 61
    # The evaluation's interval is the core's order-normal interval.
    x = traces["Func1"]
    for q in (0.25, 0.9):
        (iv,) = percentile_ci(x, [q], method="order-normal")
        assert module.truth_interval(x, q) == pytest.approx((iv.low, iv.high))
    # Stops moved on the grid: at the stop itself the verdicts are unchanged.
    assert module.credible_counts(traces, stops, shift=0)[0] == counts
    wider, _ = module.credible_counts(traces, stops, z=2.58)
    assert all(w >= c for w, c in zip(wider, counts, strict=True))


def test_credibility_study_stops_moved_on_the_grid(perfstats_data: Path) -> None:
    module = load_benchmark("reproduce_superflow")
    from benchmarks._traces import load_scope

    warm = load_scope(perfstats_data)["warm"]
    study = module.credibility_study({"warm": warm}, seeds=[])
    p25 = study["neighbours"]["warm"][0]
    # The paper's 61 credible P25s need stops up to four intervals off.
    assert p25 == {"ours": 56, "reachable_within_intervals": [57, 58, 59, 61]}
    assert study["variants"]["reference (x[:stop], linear, rint ranks, strict)"]["warm"][0] == 56
    assert max(v["warm"][0] for v in study["variants"].values()) < 61
    missed = study["margins"]["warm"]["P25"]
    assert len(missed) == 9 and missed["Func34"] == [-9, -5]
    text = "\n".join(module.credibility_report(study, len(warm)))
    assert "at most 57 (+/-1), 58 (+/-2), 59 (+/-3), 61 (+/-4)" in text


def test_gap_reasons() -> None:
    module = load_benchmark("reproduce_superflow")
    assert module.gap_reason("PT4Cloud", "cold", "accuracy", 61.12, 51.30).startswith(
        "ours = reference code"
    )
    assert module.gap_reason("PT4Cloud", "cold", "25", 12.31, 12.31) == "same"
    assert module.gap_reason("PT4Cloud", "cold", "accuracy", 70.0, 51.30).startswith("unexplained")
    assert module.gap_reason("SHARP-KS", "cold", "accuracy", 90.0, 80.0) == "unexplained"
