"""A criterion.rs bench, built here with cargo from Debian's crates, as a target."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from perfstats.adapters.targets import TARGETS, Criterion, target_by_name
from perfstats.adapters.targets.criterion import name_filter
from support.cli import perfstats
from support.tool_suites import (
    CRITERION_BENCHMARKS,
    CRITERION_QUICK,
    cargo_command,
    criterion_crate,
    every_series_stopped_by_rule,
    hanging_child,
    interrupted_round,
    round_without,
    set_flag,
    wait_for_pid,
)

BASE = ["quiet", "medium", "noisy"]


@pytest.fixture(scope="session")
def crate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The suite's cargo project, built once, and its bench executable."""
    folder = criterion_crate(tmp_path_factory.mktemp("criterion") / "suite")
    cargo = cargo_command()
    res = subprocess.run(
        [cargo, "bench", "--no-run", "--offline", "--message-format=json"],
        cwd=folder, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr[-3000:]
    built = [
        m["executable"]
        for m in map(json.loads, filter(None, res.stdout.splitlines()))
        if m.get("reason") == "compiler-artifact" and "bench" in m["target"]["kind"]
    ]
    assert len(built) == 1, res.stdout[-2000:]
    return folder, built[0]


@pytest.fixture
def faulty(crate, tmp_path: Path):
    """A target over the project and the folder of its fault flags."""
    folder, _ = crate
    flags = tmp_path / "flags"
    flags.mkdir()
    env = {"TOOL_FLAGS": str(flags)}
    with Criterion([str(folder), *CRITERION_QUICK], cargo=cargo_command(), env=env,
                   timeout=300) as target:  # fmt: skip
        yield target, flags


def _homes(target: Criterion) -> list[Path]:
    """The rounds' criterion folders (CRITERION_HOME), in the order the rounds ran."""
    scratch = Path(target.scratch_path("")).parent
    return sorted(scratch.glob("*.criterion"), key=lambda p: int(p.name.split(".")[0]))


def _ran(home: Path) -> set[str]:
    """The benchmarks criterion wrote results for in ``home`` (their full ids)."""
    return {json.loads(p.read_text())["full_id"] for p in home.rglob("new/benchmark.json")}


def test_each_benchmark_is_a_series_of_its_median_time_in_seconds(faulty) -> None:
    target, _ = faulty
    m = target.invoke()
    assert m.ok, m.error
    assert list(m.series) == CRITERION_BENCHMARKS
    assert all(s.ok and s.unit == "s" and s.source == "criterion" for s in m.series.values())
    # A few thousand additions per iteration: between a nanosecond and a millisecond.
    assert all(1e-9 < s.value < 1e-3 for s in m.series.values())
    # sizes/100 adds ten times as many numbers as sizes/10.
    assert m.series["sizes/100"].value > 3 * m.series["sizes/10"].value
    assert m.unit == "ns" and m.value == m.extra["wall_ns"] > 0
    # The value is the median of the round's samples as criterion wrote them.
    (home,) = _homes(target)
    sample = json.loads(next(home.rglob("quiet/new/sample.json")).read_text())
    per_iteration = sorted(
        t / n * 1e-9 for n, t in zip(sample["iters"], sample["times"], strict=True)
    )
    assert len(per_iteration) == 10
    assert m.series["quiet"].value == pytest.approx(
        (per_iteration[4] + per_iteration[5]) / 2, rel=1e-12
    )


def test_a_round_of_some_series_runs_only_their_benchmarks(faulty) -> None:
    target, _ = faulty
    assert target.invoke().ok
    m = target.invoke_only(frozenset({"noisy", "sizes/100"}))
    assert m.ok, m.error
    assert set(m.series) == {"noisy", "sizes/100"}
    first, second = _homes(target)
    assert _ran(first) == set(CRITERION_BENCHMARKS)
    # criterion's filter matches anywhere in an id: "sizes/10" alone is
    # in "sizes/100" too, so the names are anchored.
    assert _ran(second) == {"noisy", "sizes/100"}


def test_the_filter_is_anchored_and_escaped() -> None:
    assert name_filter(["sizes/10", "a.b", "f(x)"]) == r"^(sizes/10|a\.b|f\(x\))$"


def test_a_built_executable_a_users_filter_and_the_mean(crate) -> None:
    _, binary = crate
    assert TARGETS["criterion"] is Criterion
    target = target_by_name(
        "criterion", [binary, *CRITERION_QUICK, "^(quiet|noisy)$"], {"statistic": "mean"}
    )
    with target:
        m = target.invoke()
        later = target.invoke_only(frozenset({"quiet"}))
    assert m.ok, m.error
    assert list(m.series) == ["quiet", "noisy"]
    assert list(later.series) == ["quiet"]
    assert target.config()["statistic"] == "mean"


def test_options_each_round_sets_are_refused(crate) -> None:
    folder, _ = crate
    with pytest.raises(ValueError, match=r"--sample-size is set by each round \(sample_size="):
        Criterion([str(folder), "--sample-size", "20"])
    with pytest.raises(ValueError, match="--save-baseline is set by each round"):
        Criterion([str(folder), "--save-baseline=main"])
    with pytest.raises(ValueError, match="at least 10"):
        Criterion([str(folder)], sample_size=5)
    with pytest.raises(ValueError, match="whole seconds"):
        Criterion([str(folder)], measurement_time=0.1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="one filter only"):
        Criterion([str(folder), "quiet", "noisy"])
    # A value of an option is no filter.
    target = Criterion([str(folder), "--nresamples", "1000", "--color", "never", "quiet"])
    assert target.flags == ["--nresamples", "1000", "--color", "never"]
    assert target.filter == "quiet"
    target.close()


def test_a_missing_cargo_or_project_is_refused_naming_the_tool(crate, tmp_path: Path) -> None:
    folder, _ = crate
    with pytest.raises(ValueError, match=r"^criterion: executable 'no-such-cargo' not found"):
        Criterion([str(folder)], cargo="no-such-cargo")
    with pytest.raises(ValueError, match=r"^criterion: .*no-such-project.* not found"):
        Criterion([str(tmp_path / "no-such-project")])
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"^criterion: .*empty has no Cargo\.toml"):
        Criterion([str(tmp_path / "empty")])


def test_a_project_that_does_not_build_fails_the_round(crate, tmp_path: Path) -> None:
    folder, _ = crate
    broken = criterion_crate(
        tmp_path / "broken", bench='fn main() { let x: u32 = "text"; }\n', name="broken"
    )
    # The suite's build folder: the dependencies are built already.
    env = {"CARGO_TARGET_DIR": str(folder / "target")}
    with Criterion([str(broken)], cargo=cargo_command(), env=env, timeout=600) as target:
        m = target.invoke()
        again = target.invoke()
    assert m.status == "error" and m.value is None
    assert m.error.startswith(
        "criterion: cargo bench --no-run failed: exit status 101: error[E0308]: mismatched types"
    ), m.error
    # Every round says so (the build is tried again, not a value).
    assert again.status == "error" and again.error.startswith("criterion: cargo bench --no-run")


def test_a_panic_mid_suite_fails_the_round_naming_the_benchmark(faulty) -> None:
    target, flags = faulty
    assert target.invoke().ok
    set_flag(flags, "crash")
    m = target.invoke()
    assert m.status == "error" and m.value is None
    assert re.fullmatch(
        r"criterion: exit status 101 in sizes/100 after 4 benchmarks: "
        r"panicked at benches/suite\.rs:\d+:\d+: boom",
        m.error,
    ), m.error
    assert m.extra["benchmark"] == "sizes/100"


def test_a_benchmark_missing_from_a_later_round_gets_no_value(faulty) -> None:
    target, flags = faulty
    assert round_without(target, flags, "quiet", "flaky").error == (
        "criterion: flaky is not in this round's output (it was in an earlier round)"
    )


def test_a_hung_benchmark_is_killed_at_the_timeout_naming_it(crate, tmp_path: Path) -> None:
    folder, _ = crate
    flags = tmp_path / "flags"
    set_flag(flags, "hang")
    env = {"TOOL_FLAGS": str(flags)}
    with Criterion([str(folder), *CRITERION_QUICK], cargo=cargo_command(), env=env,
                   timeout=15) as target:  # fmt: skip
        target.prepare()
        m = target.invoke()
    assert m.status == "timeout"
    assert m.error == "criterion: timed out after 15 s in sizes/100 after 4 benchmarks"


def test_sigint_to_the_bench_fails_the_round_as_interrupted(crate, tmp_path: Path) -> None:
    folder, binary = crate
    flags = tmp_path / "flags"
    set_flag(flags, "hang")
    env = {"TOOL_FLAGS": str(flags)}
    with Criterion([str(folder), *CRITERION_QUICK], cargo=cargo_command(), env=env,
                   timeout=300) as target:  # fmt: skip
        target.prepare()
        bench = hanging_child(flags, lambda cmd: cmd[0].decode() == binary)
        m = interrupted_round(
            target, lambda: wait_for_pid(bench, "the bench to reach the hang", 120), 60
        )
    assert m.status == "error"
    assert m.error == "criterion: interrupted (SIGINT) in sizes/100 after 4 benchmarks"


def test_the_recorded_settings_rebuild_the_target(crate) -> None:
    folder, _ = crate
    with Criterion([str(folder), *CRITERION_QUICK, "quiet"], cargo=cargo_command(),
                   statistic="mean", label="suite") as t:  # fmt: skip
        config = t.config()
    assert config["kind"] == "criterion" and config["argv"][0] == str(folder)
    options = {k: v for k, v in config.items() if k not in ("kind", "name", "executable", "argv")}
    with target_by_name("criterion", config["argv"], {**options, "label": config["name"]}) as again:
        assert again.config() == config


def test_perfstats_run_stops_every_benchmark_by_its_rule(crate, tmp_path: Path) -> None:
    # SHARP's CI rule on the mean of each benchmark's median times: every
    # benchmark stops by its own rule; the round's time is recorded but does
    # not hold the run, which ends with the last benchmark to stop.
    # Not a rule on the median of the rounds: a round's time can fall in a
    # fast or a slow mode of the host, and with a share near one half in the
    # slow one no median interval ever narrows, while the mean's does.
    folder, _ = crate
    res = perfstats(
        ["run", "--target", "criterion", "-t", f"cargo={cargo_command()}",
         "--rule", "ci-width", "-r", "error=0.08", "--max-n", "600",
         "--record", "run.csv", "--no-progress", "--seed", "3",
         "--", str(folder), *CRITERION_QUICK, "^(quiet|medium|noisy)$"],
        tmp_path, timeout=1200,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    per_series, decisions = every_series_stopped_by_rule(tmp_path, BASE)
    counts = pd.read_csv(tmp_path / "run.csv.series.csv").query("status == 'ok'")
    assert (counts["unit"] == "s").all()
    assert decisions["value"]["n"] == per_series.max()
