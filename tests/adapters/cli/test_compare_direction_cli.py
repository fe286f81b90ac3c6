"""``perfstats compare`` reads which values are better and says "faster" for a rising throughput.

hyperfine runs here; JMH cannot (Maven Central is out of reach), so the
committed JMH sample (``tests/adapters/records/samples``) stands in, with
the contender's throughput scaled.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
from perfstats.adapters.cli import main

from perfstats import compare, gate, relative_change

SAMPLES = Path(__file__).parents[1] / "records" / "samples"
THRPT = "org.example.SumBench.sumThroughput"


def _jmh(tmp_path: Path, name: str, factor: float) -> Path:
    raw = json.loads((SAMPLES / "jmh.json").read_text())
    rng = np.random.default_rng(len(name))
    for b in raw:
        scale = factor if b["mode"] == "thrpt" else 1.0
        b["primaryMetric"]["rawData"] = [
            [v * scale * float(rng.lognormal(0, 0.002)) for v in fork]
            for fork in b["primaryMetric"]["rawData"] * 3
        ]
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(raw))
    return path


def _compare(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["compare", *argv, "--seed", "1"])
    got = capsys.readouterr()
    return code, got.out, got.err


def test_compare_jmh_throughput_up_is_faster(capsys, tmp_path: Path) -> None:
    base, cont = _jmh(tmp_path, "base", 1.0), _jmh(tmp_path, "cont", 1.5)
    code, out, _ = _compare(capsys, str(base), str(cont), "--column", THRPT, "--json")
    data = json.loads(out)
    assert code == 0 and data["better"] == "higher" and data["change"]["better"] == "higher"
    row = next(r for r in data["statistics"] if r["statistic"] == "relative_change")
    assert row["value"] == pytest.approx(0.5, rel=0.05) and row["verdict"] == "faster"
    code, out, _ = _compare(capsys, str(base), str(cont), "--column", THRPT)
    assert "better         higher values" in out and ": faster" in out
    assert "higher is better" in out
    # A file of several benchmarks needs one chosen, and names them.
    code, _, err = _compare(capsys, str(base), str(cont))
    assert code == 2 and "holds 2 benchmarks; choose one with --column" in err and THRPT in err
    code, _, err = _compare(capsys, str(base), str(cont), "--column", "nope")
    assert code == 2 and "has no benchmark 'nope'" in err


def test_compare_csv_with_higher_is_better_and_disagreeing_sides(capsys, tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    before, after = tmp_path / "before.csv", tmp_path / "after.csv"
    ops = rng.lognormal(7, 0.01, 40)
    before.write_text("ops\n" + "".join(f"{v}\n" for v in ops))
    after.write_text("ops\n" + "".join(f"{v}\n" for v in ops * 1.2))
    code, out, _ = _compare(capsys, str(before), str(after), "--json")
    assert code == 0 and json.loads(out)["better"] == "lower"
    assert next(r for r in json.loads(out)["statistics"]
                if r["statistic"] == "relative_change")["verdict"] == "slower"  # fmt: skip
    code, out, _ = _compare(capsys, str(before), str(after), "--json", "--higher-is-better")
    assert next(r for r in json.loads(out)["statistics"]
                if r["statistic"] == "relative_change")["verdict"] == "faster"  # fmt: skip
    # A column of times against a throughput: refused, naming both files.
    jmh = _jmh(tmp_path, "base", 1.0)
    times = tmp_path / "times.csv"
    times.write_text(f"{THRPT}\n" + "".join(f"{v}\n" for v in ops))
    code, _, err = _compare(capsys, str(times), str(jmh), "--column", THRPT)
    assert code == 2 and "lower values are better in" in err and "but higher in" in err


def test_compare_reads_a_real_hyperfine_file(capsys, tmp_path: Path) -> None:
    files = []
    for name, seconds in (("fast", "0.005"), ("slow", "0.1")):
        path = tmp_path / f"{name}.json"
        subprocess.run(["hyperfine", "--runs", "10", "--warmup", "1", "-N", f"sleep {seconds}",
                        "--export-json", str(path)], check=True, capture_output=True,
                       timeout=120)  # fmt: skip
        files.append(str(path))
    code, out, _ = _compare(capsys, *files, "--json")
    data = json.loads(out)
    assert code == 0 and data["better"] == "lower" and data["n_a"] == data["n_b"] == 10
    row = next(r for r in data["statistics"] if r["statistic"] == "relative_change")
    assert row["verdict"] == "slower" and row["value"] > 1.0


def test_one_idea_of_direction_in_change_compare_and_gate() -> None:
    rng = np.random.default_rng(8)
    ops = rng.lognormal(5, 0.01, 30)
    up = ops * 1.25
    assert relative_change(ops, up, rng=1).direction == "slower"
    assert relative_change(ops, up, rng=1, better="higher").direction == "faster"
    assert relative_change(ops, ops / 1.25, rng=1, better="higher").direction == "slower"
    assert compare(ops, up, better="higher", n_resamples=500, rng=1).change.direction == "faster"
    verdict = gate({"put": ops}, {"put": up}, directions={"put": "higher"}, rng=1)["put"]
    assert verdict.verdict == "improvement"
    with pytest.raises(ValueError, match="better must be 'lower' or 'higher'"):
        relative_change(ops, up, better="up")
    with pytest.raises(ValueError, match="better must be 'lower' or 'higher'"):
        compare(ops, up, better=None)  # type: ignore[arg-type]
