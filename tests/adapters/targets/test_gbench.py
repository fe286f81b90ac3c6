"""A Google Benchmark binary, compiled here, as a target: series, selection and faults."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
from perfstats.adapters.records.importers.gbench import runs
from perfstats.adapters.targets import TARGETS, GoogleBenchmark, target_by_name
from perfstats.adapters.targets.gbench import decode_partial, name_filter
from support.cli import perfstats, rows, start, wait_for
from support.tool_suites import (
    GBENCH_NOISE,
    GBENCH_QUICK,
    build_gbench,
    child_process,
    every_series_stopped_by_rule,
    interrupted_round,
    round_of_some,
    round_without,
    set_flag,
    stand_in,
    wait_for_pid,
)

BASE = ["BM_quiet", "BM_medium", "BM_noisy"]
FAULTY = [*BASE, "BM_crash", "BM_hang", "BM_skip", "BM_flaky"]


@pytest.fixture(scope="module")
def binary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_gbench(tmp_path_factory.mktemp("gbench"))


@pytest.fixture
def faulty(binary: Path, tmp_path: Path):
    """A target over the suite with its fault benchmarks, and the folder of its flags."""
    flags = tmp_path / "flags"
    flags.mkdir()
    env = {"TOOL_FLAGS": str(flags), "TOOL_FAULTS": "1"}
    with GoogleBenchmark([str(binary), *GBENCH_QUICK], env=env, timeout=20) as target:
        yield target, flags


def test_each_benchmark_is_a_series_in_seconds_and_the_round_is_the_process_time(
    binary: Path,
) -> None:
    with GoogleBenchmark([str(binary), *GBENCH_QUICK]) as target:
        m = target.invoke()
    assert m.ok, m.error
    assert list(m.series) == BASE
    assert all(s.ok and s.unit == "s" and s.source == "gbench" for s in m.series.values())
    # A few thousand additions per iteration: between a nanosecond and a millisecond.
    assert all(1e-9 < s.value < 1e-3 for s in m.series.values())
    assert m.unit == "ns" and m.value == m.extra["wall_ns"] > 0
    assert target.series_names == tuple(BASE)


def test_the_cpu_time_metric_and_the_kind_built_from_the_registry(binary: Path) -> None:
    assert TARGETS["gbench"] is GoogleBenchmark
    target = target_by_name("gbench", [str(binary), *GBENCH_QUICK], {"metric": "cpu_time"})
    with target:
        m = target.invoke()
    assert m.ok and target.config()["metric"] == "cpu_time"
    assert set(m.series) == set(BASE)


def test_a_round_of_some_series_runs_only_those(faulty) -> None:
    target, flags = faulty
    # One benchmark before the crashing one and one after it.
    round_of_some(target, flags, "BM_crash", ["BM_noisy", "BM_flaky"])


def test_the_users_filter_picks_the_suite(binary: Path) -> None:
    argv = [str(binary), *GBENCH_QUICK, "--benchmark_filter=BM_(quiet|noisy)"]
    with GoogleBenchmark(argv) as target:
        m = target.invoke()
        later = target.invoke_only(frozenset({"BM_quiet"}))
    assert list(m.series) == ["BM_quiet", "BM_noisy"]
    assert list(later.series) == ["BM_quiet"]


def test_names_with_regex_characters_are_escaped_in_the_filter() -> None:
    assert name_filter(["BM_a/1.5", "BM_b<int>", "BM_c/threads:2"]) == (
        "--benchmark_filter=^(BM_a/1\\.5|BM_b<int>|BM_c/threads:2)$"
    )


def test_options_each_round_sets_are_refused(binary: Path) -> None:
    with pytest.raises(ValueError, match="--benchmark_out is set by each round"):
        GoogleBenchmark([str(binary), "--benchmark_out=x.json"])


def test_a_missing_binary_is_refused_naming_the_tool(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"^Google Benchmark: executable .*not found"):
        GoogleBenchmark([str(tmp_path / "no_such_bench")])


def test_a_binary_that_is_not_executable_is_refused_naming_the_tool(
    binary: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "bench"
    copy.write_bytes(binary.read_bytes())
    os.chmod(copy, 0o644)
    with pytest.raises(ValueError, match=r"^Google Benchmark: .*not executable"):
        GoogleBenchmark([str(copy)])


def test_a_binary_removed_between_rounds_fails_the_round(binary: Path, tmp_path: Path) -> None:
    copy = tmp_path / "bench"
    copy.write_bytes(binary.read_bytes())
    os.chmod(copy, 0o755)
    with GoogleBenchmark([str(copy), *GBENCH_QUICK]) as target:
        assert target.invoke().ok
        copy.unlink()
        m = target.invoke()
    assert m.status == "error" and m.value is None
    assert m.error.startswith("Google Benchmark: cannot start")


def test_a_crash_mid_suite_fails_the_round_naming_the_benchmark(faulty) -> None:
    target, flags = faulty
    assert target.invoke().ok
    set_flag(flags, "crash")
    m = target.invoke()
    assert m.status == "error"
    assert m.error == "Google Benchmark: crashed (SIGABRT) in BM_crash after 3 benchmarks"
    assert m.extra["benchmark"] == "BM_crash" and m.extra["returncode"] == -signal.SIGABRT
    set_flag(flags, "crash", on=False)
    assert target.invoke().ok  # the next round runs again


def test_a_killed_round_with_cut_off_json_is_a_timeout_naming_the_benchmark(
    binary: Path, tmp_path: Path
) -> None:
    flags = tmp_path / "flags"
    set_flag(flags, "hang")
    env = {"TOOL_FLAGS": str(flags), "TOOL_FAULTS": "1"}
    with GoogleBenchmark([str(binary), *GBENCH_QUICK], env=env, timeout=3) as target:
        m = target.invoke()
    assert m.status == "timeout"
    assert m.error == "Google Benchmark: timed out after 3 s in BM_hang after 4 benchmarks"


def test_a_benchmark_that_fails_gets_no_value_and_says_why(faulty) -> None:
    target, flags = faulty
    set_flag(flags, "skip")
    m = target.invoke()
    assert m.ok
    assert not m.series["BM_skip"].ok
    assert m.series["BM_skip"].error == "BM_skip failed: no input file"
    assert m.series["BM_quiet"].ok


def test_a_benchmark_missing_from_a_later_round_gets_no_value(faulty) -> None:
    target, flags = faulty
    assert round_without(target, flags, "BM_quiet", "BM_flaky").error == (
        "Google Benchmark: BM_flaky is not in this round's output (it was in an earlier round)"
    )


def test_sigint_to_the_tool_fails_the_round_as_interrupted(binary: Path, tmp_path: Path) -> None:
    flags = tmp_path / "flags"
    set_flag(flags, "hang")
    env = {"TOOL_FLAGS": str(flags), "TOOL_FAULTS": "1"}
    # The timeout only bounds a test gone wrong: the signal ends the round.
    with GoogleBenchmark([str(binary), *GBENCH_QUICK], env=env, timeout=300) as target:
        m = interrupted_round(target, lambda: _wait_for_hang(target, binary.name))
    assert m.status == "error"
    assert m.error == "Google Benchmark: interrupted (SIGINT) in BM_hang after 4 benchmarks"


def test_closing_the_target_mid_round_says_the_run_was_stopped(
    binary: Path, tmp_path: Path
) -> None:
    flags = tmp_path / "flags"
    set_flag(flags, "hang")
    env = {"TOOL_FLAGS": str(flags), "TOOL_FAULTS": "1"}
    target = GoogleBenchmark([str(binary), *GBENCH_QUICK], env=env, timeout=30)
    result = {}
    worker = threading.Thread(target=lambda: result.setdefault("m", target.invoke()))
    worker.start()
    _wait_for_hang(target, binary.name)
    target.close()  # what the driver does on Ctrl-C
    worker.join(30)
    m = result["m"]
    assert m.status == "error"
    assert m.error == (
        "Google Benchmark: interrupted in BM_hang after 4 benchmarks (the run was stopped)"
    )


def test_a_binary_that_prints_nothing_fails_the_round(tmp_path: Path) -> None:
    tool = stand_in(tmp_path, "silent", 'case "$*" in *list_tests*) echo BM_a; echo BM_b;; esac\n')
    with GoogleBenchmark([str(tool)]) as target:
        m = target.invoke()
    assert m.status == "error"
    assert m.error == "Google Benchmark: printed no results"


def test_a_binary_that_lists_nothing_fails_the_round(tmp_path: Path) -> None:
    tool = stand_in(tmp_path, "empty", "exit 0\n")
    with GoogleBenchmark([str(tool)]) as target:
        m = target.invoke()
    assert m.status == "error" and "lists no benchmark" in m.error


def test_json_cut_off_with_a_clean_exit_fails_the_round_naming_the_benchmark(
    tmp_path: Path,
) -> None:
    partial = (
        '{"context": {}, "benchmarks": [{"name": "BM_a", "run_name": "BM_a", '
        '"run_type": "iteration", "iterations": 5, "real_time": 3.0, "cpu_time": 3.0, '
        '"time_unit": "ns"}, {"name": "BM_'
    )
    body = (
        'case "$*" in *list_tests*) echo BM_a; echo BM_b; exit 0;; esac\n'
        'for a in "$@"; do case "$a" in --benchmark_out=*) out="${a#--benchmark_out=}";; esac; '
        "done\n"
        f"printf '%s' '{partial}' > \"$out\"\n"
    )
    tool = stand_in(tmp_path, "cut", body)
    with GoogleBenchmark([str(tool)]) as target:
        m = target.invoke()
    assert m.status == "error"
    assert m.error == "Google Benchmark: its JSON output was cut off after 1 benchmark, in BM_b"


def test_output_that_is_no_json_fails_the_round(tmp_path: Path) -> None:
    body = (
        'case "$*" in *list_tests*) echo BM_a; exit 0;; esac\n'
        'for a in "$@"; do case "$a" in --benchmark_out=*) out="${a#--benchmark_out=}";; esac; '
        "done\n"
        'echo "Segmentation fault in user code" > "$out"\n'
    )
    tool = stand_in(tmp_path, "junk", body)
    with GoogleBenchmark([str(tool)]) as target:
        m = target.invoke()
    assert m.status == "error" and "is not Google Benchmark JSON" in m.error


def test_a_cut_off_file_keeps_every_complete_entry(binary: Path) -> None:
    with GoogleBenchmark([str(binary), *GBENCH_QUICK]) as target:
        path = target.scratch_path(".json")
        os.system(f"{binary} {GBENCH_QUICK[0]} --benchmark_out={path} > /dev/null 2>&1")
        text = Path(path).read_text()
    whole, complete = decode_partial(text)
    assert complete and len(whole["benchmarks"]) == 3
    cut = text[: text.rindex('"real_time"')]  # inside the last entry
    doc, complete = decode_partial(cut)
    assert not complete
    assert [b["name"] for b in doc["benchmarks"]] == ["BM_quiet", "BM_medium"]
    assert doc["context"]["executable"] == str(binary)
    assert [r[0] for r in runs(doc).rows] == ["BM_quiet", "BM_medium"]


def test_series_names_must_have_been_seen(binary: Path) -> None:
    with GoogleBenchmark([str(binary), *GBENCH_QUICK]) as target:
        with pytest.raises(ValueError, match="no series 'BM_quiet' in earlier rounds"):
            target.invoke_only(frozenset({"BM_quiet"}))
        target.invoke()
        with pytest.raises(ValueError, match="at least one series"):
            target.invoke_only(frozenset())


def _wait_for_hang(target: GoogleBenchmark, name: str, timeout: float = 240) -> int:
    """The pid of the round's process ``name`` once it is in BM_hang (BM_crash written)."""
    scratch = Path(target.scratch_path("")).parent

    def found() -> int | None:
        written = "".join(p.read_text(errors="replace") for p in scratch.glob("*.json"))
        if '"run_name": "BM_crash"' not in written:
            return None
        return child_process(lambda cmd: Path(cmd[0].decode()).name == name)

    return wait_for_pid(found, f"the round of {name!r} to reach BM_hang", timeout)


def test_perfstats_run_builds_the_gbench_kind_and_records_rounds(
    binary: Path, tmp_path: Path
) -> None:
    res = perfstats(
        ["run", "--target", "gbench", "--rule", "fixed", "-r", "n=3", "--record", "run.csv",
         "--no-progress", "--", str(binary), *GBENCH_QUICK],
        tmp_path, timeout=120,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert rows(tmp_path / "run.csv") == 3
    # Every benchmark of every round is a row of the record's series table.
    series = (tmp_path / "run.csv.series.csv").read_text().splitlines()
    assert series[0].startswith("run,series,value,unit")
    named = [line.split(",")[1] for line in series[1:]]
    assert sorted(set(named)) == sorted(BASE) and len(named) == 3 * len(BASE)


def test_ctrl_c_during_a_round_stops_the_run_and_keeps_the_record(
    binary: Path, tmp_path: Path
) -> None:
    flags = tmp_path / "flags"
    env = {"TOOL_FLAGS": str(flags), "TOOL_FAULTS": "1"}
    driver = start(
        ["run", "--target", "gbench", "--rule", "fixed", "-r", "n=100000", "--record",
         "run.csv", "--no-progress", "--", str(binary), *GBENCH_QUICK],
        tmp_path, env=env,
    )  # fmt: skip
    try:
        wait_for(lambda: rows(tmp_path / "run.csv") >= 2, 120, "two recorded rounds")
        set_flag(flags, "hang")
        time.sleep(3.0)  # the next round sits in BM_hang
        os.kill(driver.pid, signal.SIGINT)
        _, err = driver.communicate(timeout=60)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    assert driver.returncode == 130, err
    assert "interrupted" in err
    assert rows(tmp_path / "run.csv") >= 2
    # No round process is left behind: its process group was killed.
    assert (
        binary.name
        not in subprocess.run(["ps", "-eo", "comm"], capture_output=True, text=True).stdout.split()
    )


def test_the_recorded_settings_rebuild_the_target(binary: Path) -> None:
    with GoogleBenchmark([str(binary), *GBENCH_QUICK], metric="cpu_time", label="suite") as t:
        assert rebuilt(t.config()) == t.config()


def rebuilt(config: dict) -> dict:
    """The settings of the target built again from recorded settings, as a rerun builds it."""
    options = {k: v for k, v in config.items() if k not in ("kind", "name", "executable", "argv")}
    with target_by_name(config["kind"], config["argv"], {**options, "label": config["name"]}) as t:
        return t.config()


def test_the_suite_ends_when_its_last_benchmark_stops_not_its_round_time(
    binary: Path, tmp_path: Path
) -> None:
    # Judged on the work each benchmark reports (which load does not change),
    # every benchmark stops by its own rule; the round's time is recorded but
    # does not hold the run, which ends with the last benchmark to stop.
    res = perfstats(
        ["run", "--target", "gbench", "-t", "metric=work", "--rule", "superflow",
         "-r", "error=0.1", "--max-n", "400", "--record", "run.csv", "--no-progress",
         "--seed", "3", "--json", "--", str(binary), *GBENCH_QUICK,
         "--benchmark_filter=BM_(quiet|medium|noisy)$"],
        tmp_path, timeout=600,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    per_series, decisions = every_series_stopped_by_rule(tmp_path, BASE)
    assert per_series["BM_quiet"] < per_series["BM_noisy"]
    # The round's time is recorded in every round but judged by a fixed rule
    # that stops at its first judgement: it never holds the suite up.
    assert decisions["value"]["n"] == per_series.max()
    assert decisions["value"]["decision"]["rule"] == "Fixed"


def test_the_gate_judges_every_benchmark_of_two_suite_records(tmp_path: Path) -> None:
    # Two records of a Google Benchmark suite, the contender's BM_medium doing
    # half as much work again: the gate reads each benchmark as its own row.
    source = GBENCH_NOISE.replace(
        "static void work(benchmark::State& s, double spread) {\n"
        "  const long n = static_cast<long>(3000 * factor(spread));",
        "static void work(benchmark::State& s, double spread, double scale = 1.0) {\n"
        "  const long n = static_cast<long>(3000 * scale * factor(spread));",
    ).replace("{ work(s, 0.15); }", "{ work(s, 0.15, 1.5); }")
    assert source != GBENCH_NOISE
    base = build_gbench(tmp_path / "a", name="suite")
    slow = build_gbench(tmp_path / "b", source=source, name="suite")
    for binary, record in ((base, "base.csv"), (slow, "new.csv")):
        res = perfstats(
            ["run", "--target", "gbench", "-t", "metric=work", "--rule", "fixed", "-r", "n=20",
             "--record", record, "--no-progress", "--", str(binary), *GBENCH_QUICK,
             "--benchmark_filter=BM_(quiet|medium|noisy)$"],
            tmp_path, timeout=300,
        )  # fmt: skip
        assert res.returncode == 0, res.stderr
    gate = perfstats(["gate", "base.csv", "new.csv", "--format", "markdown"], tmp_path)
    assert gate.returncode == 1, gate.stdout + gate.stderr
    rows_of = {line.split("|")[1].strip(" `"): line for line in gate.stdout.splitlines()
               if line.startswith("| `BM_")}  # fmt: skip
    assert set(rows_of) == set(BASE), gate.stdout
    assert "regression" in rows_of["BM_medium"].lower(), gate.stdout
    assert "regression" not in rows_of["BM_noisy"].lower(), gate.stdout
    # --metric value judges the rounds' time instead: one row named after the target.
    primary = perfstats(["gate", "base.csv", "base.csv", "--metric", "value", "--format", "json"],
                        tmp_path)  # fmt: skip
    judged = json.loads(primary.stdout)["benchmarks"]
    assert [b["name"].split()[0] for b in judged] == ["gbench"], primary.stdout


def test_compare_and_report_read_one_series_of_a_suite_record(binary: Path, tmp_path: Path) -> None:
    res = perfstats(
        ["run", "--target", "gbench", "-t", "metric=work", "--rule", "fixed", "-r", "n=8",
         "--record", "run.csv", "--no-progress", "--", str(binary), *GBENCH_QUICK,
         "--benchmark_filter=BM_(quiet|medium)$"],
        tmp_path, timeout=300,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    report = perfstats(["report", "run.csv", "--metric", "BM_quiet", "--json"], tmp_path)
    assert report.returncode == 0, report.stderr
    reported = json.loads(report.stdout)
    assert reported["metric"] == "BM_quiet" and reported["better"] == "lower"
    values = reported["values"]
    # BM_quiet's work is the same in every round.
    assert values["n"] == 8 and values["min"] == values["max"] == 3000.0
    same = perfstats(["compare", "run.csv", "run.csv", "--metric", "BM_medium", "--json"],
                     tmp_path)  # fmt: skip
    assert same.returncode == 0, same.stderr
    missing = perfstats(["compare", "run.csv", "run.csv", "--metric", "BM_nope"], tmp_path)
    assert missing.returncode == 2 and "no series 'BM_nope'" in missing.stderr
