"""``perfstats gate`` on real records and pyperf files: verdicts, formats, exit codes, bad input."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from perfstats.adapters import gate_files, read_record
from perfstats.adapters.ab import AB
from perfstats.adapters.cli import main
from perfstats.adapters.driver.result import judged_values
from perfstats.adapters.records import importers, metadata_path
from perfstats.adapters.targets import workload

WORKLOAD = str(Path(workload.__file__).resolve())
RUNS = 10


def _record(path: Path, label: str, size: int) -> None:
    """A record of ``perfstats run`` on the built-in workload's script as a local command."""
    code = main(["run", "--rule", "fixed", "-r", f"n={RUNS}", "--record", str(path),
                 "--no-progress", "-t", f"label={label}", "-t", f"regex={workload.PATTERN}",
                 "-t", "unit=ns",
                 "--", sys.executable, "-I", "-S", WORKLOAD, str(size), "3"])  # fmt: skip
    assert code == 0


@pytest.fixture(scope="module")
def suites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """base/ and cont/: 'same' (the very same runs), 'slower' (4x the work), 'only_base'."""
    root = tmp_path_factory.mktemp("gate")
    base, cont = root / "base", root / "cont"
    base.mkdir()
    cont.mkdir()
    _record(base / "same.csv", "same", 20_000)
    # On this shared machine two records of the same work differ by up to 2x
    # (the virtual CPUs differ in speed), so 'same' is the same record on
    # both sides: a benchmark that did not change at all.
    shutil.copy(base / "same.csv", cont / "same.csv")
    shutil.copy(metadata_path(base / "same.csv"), metadata_path(cont / "same.csv"))
    _record(base / "slower.csv", "slower", 20_000)
    _record(cont / "slower.csv", "slower", 80_000)
    _record(base / "only_base.csv", "only_base", 2_000)
    config = root / "gate.toml"
    config.write_text('[thresholds]\n"sam*" = "25%"\n')
    return {"base": base, "cont": cont, "config": config, "root": root}


def _gate(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["gate", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _median(path: Path) -> float:
    return float(np.median(judged_values(read_record(path))))


def test_records_give_a_regression_and_every_format(capsys, suites, tmp_path) -> None:
    junit = tmp_path / "gate.xml"
    argv = [str(suites["base"]), str(suites["cont"]), "--config", str(suites["config"]),
            "--seed", "1", "--resamples", "2000"]  # fmt: skip
    code, out, err = _gate(capsys, *argv, "--format", "json", "--junit", str(junit))
    assert code == 1, err
    data = json.loads(out)
    assert data["schema"] == "perfstats.gate/1"
    assert data["inputs"] == {"baseline": str(suites["base"]), "contender": str(suites["cont"])}
    by_name = {b["name"]: b for b in data["benchmarks"]}
    assert set(by_name) == {"same", "slower"}
    assert data["unmatched"] == {"baseline": ["only_base"], "contender": []}
    for b in by_name.values():
        assert {"name", "unit", "n_baseline", "n_contender", "ratio", "ci_low", "ci_high",
                "p_value", "p_adjusted", "cliffs_delta", "verdict", "runs_needed"} <= set(b)
        assert b["unit"] == "ns" and b["n_baseline"] == b["n_contender"] == RUNS
        assert b["ci_low"] <= b["ratio"] <= b["ci_high"]
    slower = by_name["slower"]
    # The ratio is the contender's median over the baseline's, of the recorded values.
    expected = _median(suites["cont"] / "slower.csv") / _median(suites["base"] / "slower.csv")
    assert slower["ratio"] == pytest.approx(expected, rel=1e-12)
    assert slower["ratio"] > 1.5
    assert slower["verdict"] == "regression" and slower["threshold"] == 0.02
    same = by_name["same"]
    assert same["threshold"] == 0.25 and same["ratio"] == 1.0
    assert same["verdict"] in ("equivalent", "inconclusive")
    suite = data["suite"]
    assert suite["counts"]["regression"] == 1 and suite["counts"]["improvement"] == 0
    assert suite["counts"][same["verdict"]] == 1
    assert suite["geomean"]["ci_low"] <= suite["geomean"]["ratio"] <= suite["geomean"]["ci_high"]
    assert suite["exit_code"] == 1

    tree = ET.parse(junit).getroot()
    assert tree.tag == "testsuite" and tree.attrib["tests"] == "2"
    assert tree.attrib["failures"] == "1"
    cases = {c.attrib["name"]: c for c in tree.iter("testcase")}
    assert cases["slower"].find("failure") is not None
    assert cases["same"].find("failure") is None

    code, out, _ = _gate(capsys, *argv)
    assert code == 1
    lines = out.splitlines()
    assert lines[0].split()[:2] == ["benchmark", "runs"]
    assert any(line.startswith("slower") and "REGRESSION" in line for line in lines)
    assert "Only in baseline: only_base" in out

    code, out, _ = _gate(capsys, *argv, "--format", "markdown")
    assert code == 1
    assert out.startswith("### perfstats gate: 1 regression\n")
    assert "| `slower` | 10/10 |" in out and ":red_circle: regression" in out

    # The Python entry reads and judges the same way.
    res = gate_files(suites["base"], suites["cont"], config=suites["config"], rng=1,
                     n_resamples=2000)  # fmt: skip
    assert res.to_dict()["benchmarks"] == data["benchmarks"]


def test_no_regression_exits_0_and_inconclusive_is_3_when_strict(capsys, suites, tmp_path) -> None:
    base = suites["base"]
    code, out, err = _gate(capsys, str(base), str(base), "--seed", "2", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["suite"]["counts"]["regression"] == data["suite"]["counts"]["improvement"] == 0
    assert all(b["ratio"] == 1.0 for b in data["benchmarks"])
    # Three runs a side are too few to say "equivalent": inconclusive.
    few = tmp_path / "few.csv"
    values = judged_values(read_record(base / "same.csv"))[:3]
    pd.DataFrame({"benchmark": "same", "value": values, "unit": "ns"}).to_csv(few, index=False)
    code, out, _ = _gate(capsys, str(few), str(few), "--seed", "1")
    assert code == 0 and "inconclusive" in out
    code, out, _ = _gate(capsys, str(few), str(few), "--seed", "1", "--strict")
    assert code == 3
    junit = tmp_path / "strict.xml"
    code, _, _ = _gate(capsys, str(few), str(few), "--strict", "--junit", str(junit))
    assert code == 3 and ET.parse(junit).getroot().attrib["failures"] == "1"


def test_statistic_and_names_options(capsys, suites, tmp_path) -> None:
    argv = [str(suites["base"]), str(suites["cont"]), "--seed", "1", "--format", "json"]
    code, out, _ = _gate(capsys, *argv, "--statistic", "p90", "--threshold", "0.05")
    assert code == 1
    data = json.loads(out)
    assert data["suite"]["statistic"] == "q=0.9" and data["suite"]["threshold"] == 0.05
    # Named by file stem instead of target: the copies' labels differ, stems match.
    renamed = tmp_path / "renamed"
    renamed.mkdir()
    for stem in ("same", "slower"):
        src = suites["cont"] / f"{stem}.csv"
        shutil.copy(src, renamed / f"{stem}.csv")
        meta = json.loads(metadata_path(src).read_text())
        meta["target"]["name"] = f"new {stem}"
        meta["record"] = f"{stem}.csv"
        metadata_path(renamed / f"{stem}.csv").write_text(json.dumps(meta))
    code, _, err = _gate(capsys, str(suites["base"]), str(renamed))
    assert code == 2 and "share no benchmark" in err
    code, out, _ = _gate(capsys, str(suites["base"]), str(renamed), "--names", "file",
                         "--format", "json", "--seed", "1")  # fmt: skip
    assert code == 1 and json.loads(out)["suite"]["n_benchmarks"] == 2


def _pyperf(path: Path, statement: str) -> None:
    done = subprocess.run([sys.executable, "-m", "pyperf", "timeit", "-p", "2", "-n", "4", "-l",
                           "20", "-w", "1", "-q", "--name", "summing", "-o", str(path), statement],
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_pyperf_files_made_by_pyperf(capsys, suites, tmp_path) -> None:
    base, cont = tmp_path / "base.json", tmp_path / "cont.json"
    _pyperf(base, "sum(range(200))")
    _pyperf(cont, "sum(range(2000))")
    code, out, err = _gate(capsys, str(base), str(cont), "--format", "json", "--seed", "1")
    assert code == 1, err
    (bench,) = json.loads(out)["benchmarks"]
    assert bench["name"] == "summing" and bench["unit"] == "s" and bench["verdict"] == "regression"
    assert bench["n_baseline"] == bench["n_contender"] == 8
    ref = importers.read(cont).values("summing")
    assert bench["ratio"] == pytest.approx(
        np.median(ref) / np.median(importers.read(base).values("summing")), rel=1e-12
    )
    # A pyperf file (seconds) against a record (ns) of the same name: mixed units.
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    shutil.copy(suites["base"] / "same.csv", mixed / "summing.csv")
    code, _, err = _gate(capsys, str(mixed), str(cont), "--names", "file")
    assert code == 2
    assert "benchmark 'summing' has unit 'ns' in the baseline but 's' in the contender" in err


def _tidy(path: Path, rows: list[tuple[str, float]], unit: str | None = "ms") -> Path:
    frame = pd.DataFrame(rows, columns=["benchmark", "value"])
    if unit is not None:
        frame["unit"] = unit
    frame.to_csv(path, index=False)
    return path


def test_bad_input_exits_2_with_a_clear_message(capsys, suites, tmp_path) -> None:
    good = _tidy(tmp_path / "good.csv", [("a", 1.0), ("a", 1.1), ("a", 1.05)])
    one = _tidy(tmp_path / "one.csv", [("a", 1.0)])
    nan = tmp_path / "nan.csv"
    nan.write_text("benchmark,value\na,1.0\na,\na,1.2\n")
    text = tmp_path / "text.csv"
    text.write_text("benchmark,value\na,1.0\na,fast\n")
    mixed = tmp_path / "mixed.csv"
    mixed.write_text("benchmark,value,unit\na,1.0,ms\na,1.1,s\n")
    empty = tmp_path / "empty.json"
    empty.write_text("")
    junk = tmp_path / "junk.txt"
    junk.write_text("hello world\n")
    dup = tmp_path / "dup"
    dup.mkdir()
    for name in ("x", "y"):
        shutil.copy(suites["base"] / "same.csv", dup / f"{name}.csv")
        shutil.copy(metadata_path(suites["base"] / "same.csv"), metadata_path(dup / f"{name}.csv"))
    ab_record = tmp_path / "suite.csv"
    ab_record.write_text(",".join(AB.columns) + "\n")
    config = tmp_path / "bad.toml"
    config.write_text('[thresholds]\n"a" = "lots"\n')
    typo = tmp_path / "typo.toml"
    typo.write_text('[threshold]\n"a" = "5%"\n')
    cases = [
        ([one, good], "baseline['a'] has 1 run; the gate needs at least 2 runs a side"),
        ([good, nan], "contender['a'] must contain only finite numbers"),
        ([good, text], "text.csv line 3: value 'fast' is not a number"),
        ([mixed, good], "baseline['a'] mixes units ['ms', 's']"),
        ([empty, good], "empty.json is empty"),
        ([good, junk], "junk.txt"),
        ([dup, good], "benchmark 'same' is in"),
        ([good, tmp_path / "missing.csv"], "missing.csv does not exist"),
        ([ab_record, good], "suite.csv is an A-B record (both versions of a suite)"),
    ]
    for (a, b), message in cases:
        code, out, err = _gate(capsys, str(a), str(b))
        assert code == 2, (a, b, out)
        assert message in err, (message, err)
        assert err.startswith("perfstats: error: ") and len(err.strip().splitlines()) == 1
    for extra, message in [
        (["--threshold", "abc"], "threshold must be a fraction"),
        (["--statistic", "p200"], "statistic must be median, mean, a percentile"),
        (["--fdr", "2"], "fdr"),
        (["--config", str(config)], "thresholds['a']"),
        (["--config", str(typo)], "unknown key 'threshold'"),
    ]:
        code, _, err = _gate(capsys, str(good), str(good), *extra)
        assert code == 2 and message in err, (extra, err)
    with pytest.raises(SystemExit) as info:
        main(["gate", str(good), str(good), "--format", "html"])
    assert info.value.code == 2 and "invalid choice" in capsys.readouterr().err


def test_io_module_is_the_importers() -> None:
    import perfstats.adapters.io as io

    assert io.read is importers.read and io.write is importers.write


@pytest.mark.parametrize(
    ("command", "shown"),
    [("gate", ['"schema": "perfstats.gate/1"', "exit status: 0 no regression", "[thresholds]"]),
     ("history", ['"change_points"', "e-divisive"]),
     ("replay", ["--scheduler", "dask worker"])],
)  # fmt: skip
def test_help_documents_the_new_commands(capsys, command, shown) -> None:
    with pytest.raises(SystemExit) as info:
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert info.value.code == 0 and "examples:" in text
    for item in shown:
        assert " ".join(item.split()) in text, item
