"""The perfstats command line: help, outputs, and one-line errors on bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from perfstats.adapters import read_record
from perfstats.adapters.cli import main
from support.services import require

PY = sys.executable


def _main(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("command", ["run", "replay", "compare", "report"])
def test_help_shows_examples(capsys, command) -> None:
    with pytest.raises(SystemExit) as info:
        main([command, "--help"])
    out = capsys.readouterr().out
    assert info.value.code == 0
    assert "examples:" in out and f"perfstats {command} " in out


def test_console_script_runs_the_builtin_workload_quickly(tmp_path) -> None:
    exe = require("perfstats")  # the console script pip installed
    # The built-in run is capped at 500 runs, so it ends even on a busy
    # machine where the rule's 1% precision never comes.
    done = subprocess.run([exe, "run", "--json", "--record", str(tmp_path / "b.csv")],
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["rule"]["name"] == "SuperFlow" and out["target"]["name"] == "builtin workload"
    assert out["stopped_by"] in ("rule", "max_n") and out["decision"]["stop"] is True
    assert out["decision"]["n"] <= 500
    assert [p["percentile"] for p in out["percentiles"]] == ["P25", "P50", "P75"]
    assert all(p["low"] <= p["estimate"] <= p["high"] for p in out["percentiles"])
    assert len(out["history"]) >= 1 and out["counts"]["ok"] == out["decision"]["n"]


def test_human_output_shows_trajectory_and_intervals(capsys, tmp_path) -> None:
    path = tmp_path / "h.csv"
    code, out, err = _main(capsys, "run", "--builtin", "--rule", "fixed", "-r", "n=10",
                           "--record", str(path), "--no-progress")  # fmt: skip
    assert code == 0, err
    assert "decision trajectory" in out and "10 of 10 runs done" in out
    assert "final intervals (95% CI" in out and "P50" in out and " ms" in out
    code, out, err = _main(capsys, "report", str(path))
    assert code == 0, err
    assert "builtin workload" in out and "Fixed(n=10)" in out and "10 ok" in out
    assert "P75" in out and "stopped by rule" in out
    code, out, _ = _main(capsys, "report", str(path), "--json")
    data = json.loads(out)
    assert data["counts"]["ok"] == 10 and data["values"]["unit"] == "ns"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "--rule", "nope"], "rule must be one of"),
        (["run", "--target", "rocket", "--", "x"], "target must be one of"),
        (["run", "-r", "error=abc"], "error"),
        (["run", "-r", "error"], "key=value"),
        (["run", "-t", "timeout=soon", "--", "true"], "timeout"),
        (["run", "-t", "colour=red", "--", "true"], "unknown option 'colour'"),
        (["run", "--concurrency", "0", "--", "true"], "concurrency"),
        (["run", "--", "no-such-program-x9"], "not found"),
        (["run", "--target", "ssh", "--", "true"], "needs the option host"),
        (["run", "--target", "http"], "needs a url"),
        (["run", "--target", "http", "--", "ftp://x/"], "http:// or https://"),
        (["run", "--resume", "--", "true"], "--resume needs --record"),
        (["report", "missing.csv"], "does not exist"),
        (["replay", "missing.csv"], "does not exist"),
        (["report", "x.csv", "--", "y"], "only for 'run'"),
    ],
)
def test_bad_input_is_one_clear_line(capsys, tmp_path, monkeypatch, argv, message) -> None:
    monkeypatch.chdir(tmp_path)
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own usage errors
        code = int(exc.code or 0)
    _out, err = capsys.readouterr()
    assert code == 2
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("perfstats")
    assert list(tmp_path.iterdir()) == []  # nothing recorded


def test_unreachable_url_records_errors_only(capsys, tmp_path) -> None:
    path = tmp_path / "u.csv"
    code, _out, err = _main(capsys, "run", "--target", "http", "--record", str(path),
                           "--max-failures", "2", "--no-progress", "--",
                           "http://127.0.0.1:9/")  # fmt: skip
    assert code == 1
    last = err.strip().splitlines()[-1]
    assert "failed 2 times in a row" in last and "Connection refused" in last
    assert "--resume" in last
    df = read_record(path)
    assert df["status"].tolist() == ["error", "error"] and df["value"].isna().all()


def test_replay_one_column_per_trace(capsys, tmp_path) -> None:
    rng = np.random.default_rng(3)
    a = rng.lognormal(3, 0.01, 120)
    b = np.concatenate([rng.lognormal(3, 0.5, 80), [np.nan] * 40])
    path = tmp_path / "traces.csv"
    pd.DataFrame({"steady": a, "noisy": b}).to_csv(path, index=False)
    code, out, err = _main(capsys, "replay", str(path), "--rule", "superflow", "--seed", "1",
                           "--workers", "1", "--no-progress", "--json")  # fmt: skip
    assert code == 0, err
    tests = {t["trace"]: t for t in json.loads(out)["tests"]}
    assert set(tests) == {"steady", "noisy"}
    assert tests["steady"]["stopped"] and tests["steady"]["stop_n"] < 120
    assert tests["noisy"]["stop_n"] <= 80
    code, out, _ = _main(capsys, "replay", str(path), "--rule", "fixed", "-r", "n=50",
                         "--workers", "1", "--no-progress")  # fmt: skip
    assert code == 0 and "steady" in out and "stopped 2 of 2 tests" in out


def test_replay_rejects_holes_and_text(capsys, tmp_path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,2\n,3\n4,5\n")
    code, _, err = _main(capsys, "replay", str(path), "--workers", "1")
    assert code == 2 and "empty cell before its end" in err
    path.write_text("a\n1\nfast\n")
    code, _, err = _main(capsys, "replay", str(path), "--workers", "1")
    assert code == 2 and "not a number" in err


@pytest.mark.timing
def test_compare_records_and_plain_columns(capsys, tmp_path) -> None:
    before, after = tmp_path / "before.csv", tmp_path / "after.csv"
    # The workload's own timing of its loop: the interpreter's start-up,
    # which a busy machine stretches, is not part of the work compared.
    for path, n in ((before, "8000"), (after, "30000")):
        code, _, err = _main(capsys, "run", "--rule", "fixed", "-r", "n=15", "--record",
                             str(path), "--no-progress", "-t", r"regex=elapsed_ns=(\d+)",
                             "-t", "unit=ns", "--", PY, "-I", "-S",
                             str(_workload()), n, "2")  # fmt: skip
        assert code == 0, err
    code, out, err = _main(capsys, "compare", str(before), str(after), "--seed", "1", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["n_a"] == data["n_b"] == 15
    change = {row["statistic"]: row for row in data["statistics"]}["relative_change"]
    assert change["value"] > 0.5 and change["verdict"] == "slower"
    rng = np.random.default_rng(0)
    one = tmp_path / "one.csv"
    pd.DataFrame({"ms": rng.lognormal(2, 0.1, 60)}).to_csv(one, index=False)
    two = tmp_path / "two.csv"
    pd.DataFrame({"x": rng.lognormal(2, 0.1, 60), "ms": rng.lognormal(2, 0.1, 60)}).to_csv(
        two, index=False
    )
    code, _, err = _main(capsys, "compare", str(one), str(two))
    assert code == 2 and "choose one with --column" in err
    code, out, err = _main(capsys, "compare", str(one), str(two), "--column", "ms")
    assert code == 0 and "relative change" in out
    code, out, err = _main(capsys, "compare", str(one), str(two), "--column", "ms", "--per-pair")
    assert code == 2 and "per_pair=True compares pairs and needs paired=True" in err
    code, out, err = _main(capsys, "compare", str(one), str(two), "--column", "ms", "--paired",
                           "--per-pair", "--seed", "1", "--json")  # fmt: skip
    assert code == 0, err
    ratios = {r["statistic"]: r for r in json.loads(out)["statistics"]}["relative_change"]
    a, b = pd.read_csv(one)["ms"].to_numpy(), pd.read_csv(two)["ms"].to_numpy()
    assert ratios["value"] == pytest.approx(np.median(b / a) - 1, rel=1e-9)


def _workload():
    from perfstats.adapters.targets.builtin import WORKLOAD_PATH

    return WORKLOAD_PATH
