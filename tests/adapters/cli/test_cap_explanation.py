"""A run that ends at its cap says why, in the data's terms, through the real CLI.

Each test runs ``perfstats run`` as a child process on a real local command
that prints the next value of a planned series (one per call, in order), so
the rule sees data of a known kind: two alternating modes, autocorrelated
runs, a level change, too few runs, plain spread.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import numpy as np
from support.cli import perfstats

# Prints the next value of the series in VALUES; the count of calls so far is in STATE.
NEXT_VALUE = (
    "import sys, pathlib\n"
    "values, state = map(pathlib.Path, sys.argv[1:3])\n"
    "n = int(state.read_text()) if state.exists() else 0\n"
    "state.write_text(str(n + 1))\n"
    "print(f't={values.read_text().split()[n]}')\n"
)


def _run(tmp_path: Path, series: np.ndarray, *options: str) -> str:
    values = tmp_path / "values.txt"
    values.write_text("\n".join(f"{v:.6f}" for v in series))
    argv = [sys.executable, "-c", NEXT_VALUE, str(values), str(tmp_path / "state")]
    done = perfstats(
        ["run", "--no-progress", "--seed", "1", "-t", r"regex=t=([-\d.]+)", "-t", "unit=ms",
         "-t", "label=series", *options, "--", *argv],
        cwd=tmp_path,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def _line(out: str, start: str) -> str:
    found = [line for line in out.splitlines() if line.startswith(start)]
    assert len(found) == 1, out
    return found[0]


def _ar1(n: int, phi: float, sd: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    noise = rng.normal(0.0, sd, n)
    x = np.empty(n)
    x[0] = noise[0]
    for i in range(1, n):
        x[i] = phi * x[i - 1] + noise[i]
    return 100.0 + x


def test_a_cap_on_two_alternating_modes_names_them(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    series = np.where(rng.random(60) < 0.5, 3.9, 4.7) + rng.normal(0.0, 0.002, 60)
    out = _run(tmp_path, series, "--max-n", "60")
    assert "stopped by max_n after 60 measured runs" in out
    why = _line(out, "why it ended at max_n: ")
    found = re.search(
        r"two modes, ([\d.]+) ms and ([\d.]+) ms \((\d+)% and (\d+)% of the runs\)", why
    )
    assert found, why
    low, high, share_low, share_high = (float(g) for g in found.groups())
    assert abs(low - 3.9) < 0.02 and abs(high - 4.7) < 0.02
    assert share_low + share_high == 100 and 40 <= share_low <= 60
    assert "a quantile between modes (P50 here) converges slowly" in why
    todo = _line(out, "what you can do: ")
    # A command is never pinned unless asked, so pinning is offered.
    assert "-t cpus=[N]" in todo and "raise --max-n" in todo and "--rule gmm" in todo
    assert "--rule-option error=" in todo


def test_a_pinned_command_is_not_told_to_pin(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    series = np.where(rng.random(60) < 0.5, 3.9, 4.7) + rng.normal(0.0, 0.002, 60)
    cpu = str(max(os.sched_getaffinity(0)))
    out = _run(tmp_path, series, "--max-n", "60", "-t", f"cpus=[{cpu}]")
    assert _line(out, "target ") == f"target   series (command, pinned to CPU {cpu})"
    assert "two modes" in _line(out, "why it ended at max_n: ")
    assert "cpus" not in _line(out, "what you can do: ")


def test_a_cap_on_autocorrelated_runs_names_the_autocorrelation(tmp_path: Path) -> None:
    out = _run(tmp_path, _ar1(100, 0.9, 2.0, seed=0), "--max-n", "100")
    why = _line(out, "why it ended at max_n: ")
    found = re.search(r"strong autocorrelation \(lag-1 ([\d.]+) apart from level changes\)", why)
    assert found, why
    assert float(found.group(1)) >= 0.5
    assert "--spacing" in _line(out, "what you can do: ")


def test_a_cap_on_a_level_change_names_both_levels(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    series = np.concatenate([rng.normal(100.0, 1.0, 20), rng.normal(110.0, 1.0, 40)])
    out = _run(tmp_path, series, "--max-n", "60")
    why = _line(out, "why it ended at max_n: ")
    found = re.search(
        r"1 level change, from ([\d.]+) ms \(runs 1-20\) to ([\d.]+) ms \(runs 21-60\)", why
    )
    assert found, why
    assert abs(float(found.group(1)) - 100) < 1 and abs(float(found.group(2)) - 110) < 1
    assert why.startswith("why it ended at max_n: the runs became slower (a slow-down")


def test_a_cap_before_the_rule_can_judge_says_too_few_runs(tmp_path: Path) -> None:
    series = np.random.default_rng(8).normal(100.0, 10.0, 10)
    out = _run(tmp_path, series, "--max-n", "10")
    why = _line(out, "why it ended at max_n: ")
    assert "10 runs are too few for the rule" in why
    assert _line(out, "what you can do: ") == "what you can do: raise --max-n"


def test_a_cap_on_plain_spread_says_so_and_suggests_a_looser_error(tmp_path: Path) -> None:
    series = np.random.default_rng(8).normal(100.0, 10.0, 60)
    out = _run(tmp_path, series, "--max-n", "60", "--json")
    cap = json.loads(out)["cap"]
    assert cap["kind"] == "spread" and cap["n"] == 60
    assert cap["why"].startswith("one mode, steady, runs nearly independent")
    assert any(r.startswith("loosen the rule (--rule-option error=") for r in cap["remedies"])
    assert cap["characterization"]["n_modes"] == 1


def test_a_run_the_rule_stops_gives_no_cap_explanation(tmp_path: Path) -> None:
    out = _run(tmp_path, np.full(10, 5.0), "--rule", "fixed", "-r", "n=10")
    assert "stopped by rule after 10 measured runs" in out
    assert "why it ended" not in out and "what you can do" not in out
