"""A Go package's benchmarks, built here with the real go command, as a target."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from perfstats.adapters.targets import TARGETS, GoTest, target_by_name
from perfstats.adapters.targets.gotest import bench_filter
from support.cli import perfstats, rows
from support.tool_suites import (
    GO_NOISE,
    go_env,
    go_module,
    hanging_child,
    interrupted_round,
    round_without,
    set_flag,
    stand_in,
    wait_for_pid,
)

QUICK = ["-benchtime=200x"]
TIMES = ["Quiet-2 sec/op", "Medium-2 sec/op", "Noisy-2 sec/op"]

# Benchmarks that call b.Fatal and b.Error once a "fail" file is in TOOL_FLAGS.
GO_FAILING = """package failing

import (
\t"os"
\t"path/filepath"
\t"testing"
)

var sink int

func spin(b *testing.B) {
\tfor i := 0; i < b.N; i++ {
\t\tsink += i
\t}
}

func broken() bool {
\t_, err := os.Stat(filepath.Join(os.Getenv("TOOL_FLAGS"), "fail"))
\treturn err == nil
}

func BenchmarkFirst(b *testing.B) { spin(b) }

func BenchmarkInput(b *testing.B) {
\tif broken() {
\t\tb.Fatal("no input file")
\t}
\tspin(b)
}

func BenchmarkParts(b *testing.B) {
\tfor _, name := range []string{"good", "bad"} {
\t\tb.Run(name, func(b *testing.B) {
\t\t\tif broken() && name == "bad" {
\t\t\t\tb.Log("checking the part")
\t\t\t\tb.Errorf("part %s is wrong", name)
\t\t\t}
\t\t\tspin(b)
\t\t})
\t}
}

func BenchmarkLast(b *testing.B) { spin(b) }
"""


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    tmp = tmp_path_factory.mktemp("go")
    folder = go_module(tmp / "mod", {"suite": GO_NOISE, "failing": GO_FAILING})
    env = go_env(tmp)
    # Fill the build cache once: each target's own build is then quick.
    subprocess.run(
        ["go", "test", "-c", "-o", str(tmp / "warm.test"), "./suite"],
        cwd=folder, env={**os.environ, **env}, check=True, capture_output=True, timeout=600,
    )  # fmt: skip
    return folder, env


@pytest.fixture
def suite(module, tmp_path: Path):
    """A target over the suite (two CPUs, so names end in -2) and its flag folder."""
    folder, env = module
    flags = tmp_path / "flags"
    flags.mkdir()
    run_env = {**env, "TOOL_FLAGS": str(flags)}
    with GoTest(["./suite", *QUICK, "-cpu=2"], env=run_env, cwd=str(folder), timeout=300) as t:
        yield t, flags


def test_each_benchmark_and_metric_is_a_series(suite) -> None:
    target, _ = suite
    m = target.invoke()
    assert m.ok, m.error
    names = list(m.series)
    assert {n for n in names if n.startswith("Quiet-2 ")} == {
        "Quiet-2 sec/op", "Quiet-2 B/op", "Quiet-2 allocs/op", "Quiet-2 work/op"
    }  # fmt: skip
    assert set(TIMES) <= set(names)
    assert {"Alloc-2 MB/s", "Alloc-2 widgets/op", "Sizes/n-10-2 sec/op",
            "Sizes/n-100-2 sec/op", "Flaky-2 sec/op"} <= set(names)  # fmt: skip
    quiet = m.series["Quiet-2 sec/op"]
    assert quiet.unit == "s" and quiet.direction == "lower" and 1e-8 < quiet.value < 1e-3
    assert m.series["Alloc-2 MB/s"].direction == "higher"
    assert m.series["Alloc-2 widgets/op"].value == 2.5
    assert m.series["Alloc-2 B/op"].unit == "B" and m.series["Alloc-2 B/op"].value >= 256
    assert m.series["Quiet-2 allocs/op"].unit == "1"


def test_a_round_of_some_series_runs_only_their_benchmarks(suite) -> None:
    target, _ = suite
    target.invoke()
    m = target.invoke_only(frozenset({"Noisy-2 sec/op", "Sizes/n-10-2 B/op"}))
    assert m.ok, m.error
    assert set(m.series) == {"Noisy-2 sec/op", "Sizes/n-10-2 B/op"}


def test_the_filter_names_benchmarks_level_by_level() -> None:
    assert bench_filter(["Sum-8", "Sort/n=1.5-8", "A/b/c"]) == (
        "^BenchmarkA$/^b$/^c$|^BenchmarkSort$/^(n=1\\.5-8|n=1\\.5)$|^BenchmarkSum$"
    )


def test_a_users_bench_and_the_metrics_option_pick_the_series(module) -> None:
    folder, env = module
    target = target_by_name(
        "gotest", ["./suite", *QUICK, "-cpu=2", "-bench=Quiet|Noisy"],
        {"cwd": str(folder), "env": env, "metrics": ["sec/op"]},
    )  # fmt: skip
    assert TARGETS["gotest"] is GoTest
    with target:
        m = target.invoke()
    assert list(m.series) == ["Quiet-2 sec/op", "Noisy-2 sec/op"]


def test_flags_each_round_sets_are_refused(module) -> None:
    folder, env = module
    with pytest.raises(ValueError, match="-count is set by each round"):
        GoTest(["./suite", "-count=5"], cwd=str(folder), env=env)
    with pytest.raises(ValueError, match="one package"):
        GoTest(["./..."], cwd=str(folder), env=env)


def test_a_missing_go_command_is_refused_naming_the_tool(module) -> None:
    folder, env = module
    with pytest.raises(ValueError, match=r"^go test -bench: executable 'no-such-go' not found"):
        GoTest(["./suite"], go="no-such-go", cwd=str(folder), env=env)


def test_a_package_that_does_not_build_fails_the_round(module, tmp_path: Path) -> None:
    _, env = module
    broken = go_module(tmp_path / "broken", {"bad": "package bad\n\nfunc BenchmarkX( {\n"})
    with GoTest(["./bad"], cwd=str(broken), env=env, timeout=120) as target:
        m = target.invoke()
    assert m.status == "error"
    assert m.error.startswith("go test -bench: go test -c ./bad failed: exit status 1")


def test_a_panic_mid_suite_fails_the_round_naming_the_benchmark(suite) -> None:
    target, flags = suite
    assert target.invoke().ok
    set_flag(flags, "crash")
    m = target.invoke()
    assert m.status == "error"
    assert m.error == (
        "go test -bench: exit status 2 in Sizes/n-100-2 after 5 benchmarks: panic: boom"
    )
    assert m.extra["benchmark"] == "Sizes/n-100-2"


def test_a_benchmark_that_fails_fails_its_series_and_the_others_keep_theirs(
    module, tmp_path: Path
) -> None:
    folder, env = module
    flags = tmp_path / "flags"
    run_env = {**env, "TOOL_FLAGS": str(flags)}
    with GoTest(["./failing", *QUICK, "-cpu=2"], env=run_env, cwd=str(folder)) as target:
        first = target.invoke()
        assert first.ok and all(v.ok for v in first.series.values()), first.error
        set_flag(flags, "fail")
        m = target.invoke()
    assert m.ok, m.error
    assert set(m.series) == set(first.series)
    for name in ("First-2", "Parts/good-2", "Last-2"):
        assert m.series[f"{name} sec/op"].value > 0
    for metric in ("sec/op", "B/op", "allocs/op"):
        failed = m.series[f"Input-2 {metric}"]
        assert failed.value is None
        assert re.fullmatch(r"Input-2 failed: failing_test\.go:\d+: no input file", failed.error)
    assert re.fullmatch(
        r"Parts/bad-2 failed: failing_test\.go:\d+: part bad is wrong",
        m.series["Parts/bad-2 sec/op"].error,
    )


def test_a_benchmark_failing_in_the_first_round_gets_a_time_series(module, tmp_path) -> None:
    # No -cpu: the suffix of the failed benchmark's name is the one go gives the others.
    folder, env = module
    flags = tmp_path / "flags"
    set_flag(flags, "fail")
    run_env = {**env, "TOOL_FLAGS": str(flags)}
    with GoTest(["./failing", *QUICK], env=run_env, cwd=str(folder), metrics=["sec/op"]) as t:
        m = t.invoke()
    assert m.ok, m.error
    first = next(name for name in m.series if name.startswith("First"))
    suffix = first.removeprefix("First").removesuffix(" sec/op")
    assert set(m.series) == {
        f"{name}{suffix} sec/op" for name in ("First", "Input", "Parts/good", "Parts/bad", "Last")
    }
    assert m.series[f"Input{suffix} sec/op"].error.endswith("no input file")
    assert m.series[f"Last{suffix} sec/op"].ok


def test_a_hung_benchmark_is_killed_at_the_timeout_naming_it(module, tmp_path: Path) -> None:
    folder, env = module
    flags = tmp_path / "flags"
    set_flag(flags, "hang")
    run_env = {**env, "TOOL_FLAGS": str(flags)}
    with GoTest(["./suite", *QUICK, "-cpu=2"], env=run_env, cwd=str(folder), timeout=5) as target:
        m = target.invoke()
    assert m.status == "timeout"
    assert m.error == "go test -bench: timed out after 5 s in Sizes/n-100-2 after 5 benchmarks"
    assert m.extra["benchmark"] == "Sizes/n-100-2"


def test_sigint_to_the_test_binary_fails_the_round(module, tmp_path: Path) -> None:
    folder, env = module
    flags = tmp_path / "flags"
    set_flag(flags, "hang")
    run_env = {**env, "TOOL_FLAGS": str(flags)}
    with GoTest(["./suite", *QUICK, "-cpu=2"], env=run_env, cwd=str(folder)) as target:
        target.prepare()
        # The five quick benchmarks, then the hang, which says so.
        binary = hanging_child(flags, lambda cmd: cmd[0].decode().endswith(".test"))
        m = interrupted_round(
            target, lambda: wait_for_pid(binary, "the test binary to reach the hang", 120), 30
        )
    assert m.status == "error"
    assert m.error == "go test -bench: interrupted (SIGINT) in Sizes/n-100-2 after 5 benchmarks"


def test_a_benchmark_skipped_in_a_later_round_gets_no_value(suite) -> None:
    target, flags = suite
    gone = round_without(target, flags, "Quiet-2 sec/op", "Flaky-2 sec/op")
    assert "Flaky-2 sec/op is not in this round's output" in gone.error


def test_a_go_that_prints_nothing_fails_the_round(tmp_path: Path) -> None:
    # A go command that "builds" an empty test binary and answers go list.
    fake_go = stand_in(
        tmp_path, "go",
        'case "$1" in\n'
        '  test) out="$4"; printf "#!/bin/sh\\nexit 0\\n" > "$out"; chmod +x "$out";;\n'
        f'  list) echo "{tmp_path}";;\n'
        "esac\n",
    )  # fmt: skip
    with GoTest(["./pkg"], go=str(fake_go), cwd=str(tmp_path)) as target:
        m = target.invoke()
    assert m.status == "error" and m.error == "go test -bench: printed no results"


def test_perfstats_run_builds_the_gotest_kind(module, tmp_path: Path) -> None:
    folder, env = module
    res = perfstats(
        ["run", "--target", "gotest", "--rule", "fixed", "-r", "n=2", "--record", "run.csv",
         "-t", f"cwd={folder}", "--no-progress", "--", "./suite", *QUICK],
        tmp_path, timeout=300, env=env,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert rows(tmp_path / "run.csv") == 2


def test_the_recorded_settings_rebuild_the_target(module) -> None:
    folder, env = module
    with GoTest(["./suite", *QUICK], cwd=str(folder), env=env, metrics=["sec/op"]) as t:
        config = t.config()
    assert config["argv"] == ["./suite", *QUICK] and config["go"] == "go"
    options = {k: v for k, v in config.items() if k not in ("kind", "name", "executable", "argv")}
    with target_by_name("gotest", config["argv"], {**options, "label": config["name"]}) as again:
        assert again.config() == config
