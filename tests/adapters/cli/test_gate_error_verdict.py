"""A benchmark with no successful run is an ``error`` row, not the end of the gate.

hyperfine runs here: the contender's ``broken`` command fails every run
(kept with ``--ignore-failure``), its ``ok`` command succeeds.
"""

from __future__ import annotations

import json
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from perfstats.adapters import gate_files
from perfstats.adapters.cli import main

from perfstats import gate
from perfstats.regression_gate.render import gate_junit, gate_markdown, gate_table


def _hyperfine(tmp_path: Path, name: str, broken: str) -> Path:
    out = tmp_path / f"{name}.json"
    res = subprocess.run(
        ["hyperfine", "-N", "-i", "--runs", "6", "--warmup", "0", "--export-json", str(out),
         "-n", "ok", "true", "-n", "broken", broken],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr[-2000:]
    return out


@pytest.fixture
def sides(tmp_path: Path) -> tuple[Path, Path]:
    return _hyperfine(tmp_path, "base", "true"), _hyperfine(tmp_path, "cont", "false")


def test_gate_writes_every_output_and_exits_2(capsys, tmp_path: Path, sides) -> None:
    base, cont = sides
    junit = tmp_path / "gate.xml"
    code = main(["gate", str(base), str(cont), "--format", "json", "--junit", str(junit),
                 "--seed", "1", "--resamples", "200"])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 2
    data = json.loads(out)
    rows = {b["name"]: b for b in data["benchmarks"]}
    assert rows["broken"]["verdict"] == "error" and rows["broken"]["n_failed"] == 6
    assert rows["broken"]["reason"] == f"no successful run in the contender (6 failed, in {cont})"
    assert rows["broken"]["n_baseline"] == 6 and rows["broken"]["n_contender"] == 0
    assert rows["broken"]["ratio"] is None
    # The other benchmark is judged as ever.
    assert rows["ok"]["verdict"] in ("equivalent", "inconclusive", "regression", "improvement")
    assert data["suite"]["counts"]["error"] == 1 and data["suite"]["exit_code"] == 2
    assert err.count("\n") == 1 and "benchmark 'broken' has no successful run" in err
    suite = ET.parse(junit).getroot()
    assert suite.attrib["errors"] == "1" and suite.attrib["tests"] == "2"
    (error,) = suite.iter("error")
    assert "no successful run in the contender" in error.attrib["message"]
    code = main(["gate", str(base), str(cont), "--seed", "1", "--resamples", "200"])
    out, _ = capsys.readouterr()
    assert code == 2
    line = next(x for x in out.splitlines() if x.startswith("broken"))
    assert "ERROR" in line and "n/a" in line
    assert "1 error." in out and "error: broken: no successful run in the contender" in out


def test_core_error_verdict_in_every_renderer() -> None:
    x = np.random.default_rng(0).lognormal(0, 0.01, 12)
    res = gate({"a": x, "b": x}, {"a": x}, errors={"b": "no successful run (3 failed)"},
               rng=0, n_resamples=200)  # fmt: skip
    assert [v.verdict for v in res.benchmarks] == ["equivalent", "error"]
    assert res.counts == {"regression": 0, "improvement": 0, "equivalent": 1,
                          "inconclusive": 0, "error": 1}  # fmt: skip
    assert res.exit_code() == 2 and res.exit_code(strict=True) == 2
    assert res.unmatched_baseline == ()
    # The geometric mean is that of the judged benchmarks only.
    alone = gate({"a": x}, {"a": x}, rng=0, n_resamples=200)
    assert res.geomean == alone.geomean
    assert "| `b` | 12/0 | n/a |" in gate_markdown(res)
    assert "- Error: `b`: no successful run (3 failed)" in gate_markdown(res)
    assert "error: b: no successful run (3 failed)" in gate_table(res)
    assert ET.fromstring(gate_junit(res)).attrib["errors"] == "1"
    with pytest.raises(ValueError, match="errors must be a mapping"):
        gate({"a": x}, {"a": x}, errors=["b"])  # type: ignore[arg-type]


def test_gate_files_with_every_contender_benchmark_broken(tmp_path: Path) -> None:
    base = _hyperfine(tmp_path, "base", "true")
    cont = tmp_path / "cont.json"
    res = subprocess.run(
        ["hyperfine", "-N", "-i", "--runs", "4", "--warmup", "0", "--export-json", str(cont),
         "-n", "ok", "false", "-n", "broken", "false"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr[-2000:]
    result = gate_files(base, cont, rng=0, n_resamples=200)
    assert [b.verdict for b in result.benchmarks] == ["error", "error"]
    assert result.exit_code() == 2 and np.isnan(result.geomean)
