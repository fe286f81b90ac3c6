"""``perfstats ab``: the verdict table, --json, re-analysis, agreement and one-line errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from perfstats.adapters.cli import main
from support.suites import WORKLOADS

CONFIG = f"""\
schedule = "duet"
calls = 15
repeats = 2
concurrency = 2
seed = 3

[target]
argv = ["{{python}}", "-I", "-S", "{WORKLOADS.name}"]
cwd = "{WORKLOADS.parent}"
unit = "ns"

[[benchmarks]]
name = "same"
params = {{kernel = "lcg", size = 1000, clock = "thread"}}
baseline = {{units = 10}}
candidate = {{units = 10}}

[[benchmarks]]
name = "plus50"
params = {{kernel = "sort", size = 2000, clock = "thread"}}
baseline = {{units = 10}}
candidate = {{units = 15}}

[[benchmarks]]
name = "broken"
params = {{kernel = "lcg", size = 10, units = 1}}
baseline = {{}}
candidate = {{fail = [1, 2]}}
"""


def _main(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def config(tmp_path) -> Path:
    path = tmp_path / "suite.toml"
    path.write_text(CONFIG)
    return path


def test_help_shows_examples(capsys) -> None:
    with pytest.raises(SystemExit) as info:
        main(["ab", "--help"])
    out = capsys.readouterr().out
    assert info.value.code == 0 and "examples:" in out and "perfstats ab " in out


@pytest.mark.timing
def test_json_run_then_reanalysis_and_agreement(capsys, config, tmp_path) -> None:
    record = tmp_path / "run.csv"
    code, out, err = _main(capsys, "ab", str(config), "--record", str(record), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["seed"] == 3 and data["record"] == str(record)
    assert data["suite"]["schedule"] == "duet" and data["suite"]["target"]["kind"] == "command"
    assert data["counts"] == {"executions": 180, "ok": 150, "error": 30, "timeout": 0}
    rows = {r["benchmark"]: r for r in data["benchmarks"]}
    assert rows["plus50"]["verdict"] == "slower"
    assert rows["plus50"]["low"] <= 0.5 <= rows["plus50"]["high"]
    assert rows["same"]["verdict"] == "no change"
    assert rows["broken"]["verdict"] == "too few results" and rows["broken"]["failed"] == 30
    assert data["verdicts"] == {"slower": 1, "faster": 0, "no change": 1, "too few results": 1}
    assert data["agreement"] is None
    # Judging the record again gives the same numbers; against itself all agree.
    code, out, err = _main(capsys, "ab", "--from-record", str(record), "--against", str(record),
                           "--json")  # fmt: skip
    assert code == 0, err
    again = json.loads(out)
    assert again["benchmarks"] == data["benchmarks"]
    assert again["agreement"]["n"] == 2 and again["agreement"]["two_sided"] == 1.0


@pytest.mark.timing
def test_human_output_is_a_verdict_table(capsys, config) -> None:
    # RMIT pairs two processes, and a process now and then runs much slower
    # than the others: with few trials, two in flight, the unchanged
    # benchmark's 99% interval can miss 0. Forty trials one at a time hold.
    code, out, err = _main(capsys, "ab", str(config), "--schedule", "rmit", "--calls", "40",
                           "--concurrency", "1", "--no-progress")  # fmt: skip
    assert code == 0, err
    assert "suite    rmit, 3 benchmarks, 40 calls x 2 repeats, 1 in flight, seed 3" in out
    assert "analysis paired by trial (RMIT blocks), 99% CI of the relative median change" in out
    assert "99% CI" in out and "rank-sum p" in out and "Cliff's delta" in out
    assert "plus50" in out and "too few results" in out
    assert "3 benchmarks: 1 slower, 0 faster, 1 no change, 1 with too few results (< 10)" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["ab"], "needs a config file or --from-record"),
        (["ab", "missing.toml"], "config missing.toml does not exist"),
        (["ab", "--from-record", "missing.csv"], "record missing.csv does not exist"),
        (["ab", "--from-record", "x.csv", "--calls", "3"], "--calls applies to a run"),
        (["ab", "CONFIG", "--concurrency", "0"], "concurrency must be an integer >= 1"),
        (["ab", "CONFIG", "--level", "1.5"], "level must be a number in (0, 1)"),
    ],
)
def test_errors_are_one_line(capsys, config, argv, message) -> None:
    argv = [str(config) if a == "CONFIG" else a for a in argv]
    code, out, err = _main(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("perfstats: error: ") and err.count("\n") == 1
    assert message in err


def test_the_console_script_runs_the_example(tmp_path) -> None:
    import subprocess

    example = Path(__file__).resolve().parents[3] / "examples" / "ab_suite.toml"
    done = subprocess.run(
        [sys.executable, "-m", "perfstats.adapters.cli", "ab", str(example), "--calls", "4",
         "--repeats", "3", "--json"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [r["benchmark"] for r in data["benchmarks"]] == ["lcg", "sort", "table", "strings"]
    assert all(r["n_baseline"] == 12 for r in data["benchmarks"])
