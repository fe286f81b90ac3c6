"""The pytest plugin, run for real: pytest in subprocesses (``pytester``) on benchmark files.

A file of five benchmarks runs with and without pytest-xdist; every
benchmark stops by the rule, the records and the pytest-benchmark JSON
hold all five (read by the gate, the importer and ``pytest-benchmark
compare``), and the gate between two record folders flags the benchmark
made three times slower. Without ``--perfstats`` the plugin changes
nothing; a raising function, Ctrl-C and bad options are handled as the
plugin's documentation says.
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

import pytest
from perfstats.adapters.ab.inputs import read_results
from perfstats.adapters.cli.pytest_calls import CallsResult, time_calls
from perfstats.adapters.records import read_metadata, read_record
from perfstats.adapters.records.importers import read as read_tool_results

from perfstats.rules import Fixed, by_name

pytest_plugins = ["pytester"]

# Five benchmarks of different kinds and noise; naps are the most stable on
# a loaded machine, so the slowed one is a nap.
FIVE = """\
import os
import time

import pytest

SLOWDOWN = float(os.environ.get("PERFSTATS_PLUGIN_SLOWDOWN", "1"))


def nap(seconds):
    time.sleep(seconds)
    return seconds


def test_nap_short(perfstats_benchmark):
    assert perfstats_benchmark(nap, 0.0005) == 0.0005


def test_nap_slowed(perfstats_benchmark):
    perfstats_benchmark(nap, 0.002 * SLOWDOWN)


def test_sum(perfstats_benchmark):
    assert perfstats_benchmark(sum, range(20000)) == 199990000


@pytest.mark.parametrize("n", [1000, 5000])
def test_sorted(perfstats_benchmark, n):
    data = list(range(n, 0, -1))
    assert perfstats_benchmark(sorted, data)[0] == 1
"""
NAMES = [
    "test_five.py::test_nap_short",
    "test_five.py::test_nap_slowed",
    "test_five.py::test_sorted[1000]",
    "test_five.py::test_sorted[5000]",
    "test_five.py::test_sum",
]
# The median alone: on a loaded machine a nap's upper quartile falls between
# the on-time wake-ups and the late ones, where no CI is narrow.
RULE = ["--perfstats-rule", "superflow", "--perfstats-rule-option", "error=0.05",
        "--perfstats-rule-option", "q=0.5"]  # fmt: skip
# Far above what the rule needs here: a benchmark that stops by time is a failure.
MAX_TIME = ["--perfstats-max-time", "120"]


@pytest.fixture(autouse=True)
def _not_an_xdist_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    # Under pytest -n, this test runs in an xdist worker whose environment
    # says so; the pytest it starts would inherit that and take itself for a
    # worker (pytest-benchmark then disables itself).
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
        monkeypatch.delenv(name, raising=False)


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)


def _five(pytester: pytest.Pytester, records: Path, *extra: str) -> pytest.RunResult:
    pytester.makepyfile(test_five=FIVE)
    return _run(
        pytester, "--perfstats", *RULE, *MAX_TIME, "--perfstats-record", str(records), *extra
    )


def _check_five(result: pytest.RunResult, records: Path, export: Path) -> None:
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=5)
    out = result.stdout.str()
    assert "perfstats benchmarks" in out
    # The summary: one row per test with its median, CI, runs and "rule".
    for name in NAMES:
        row = next(line for line in out.splitlines() if line.startswith(name + " "))
        assert " rule " in row, row
    # One record per test, each stopped by the rule, read by the gate's reader.
    tidy = read_results(records)
    assert sorted(tidy["benchmark"].unique()) == NAMES
    for csv in sorted(records.glob("*.csv")):
        meta = read_metadata(csv)
        assert meta["sessions"][-1]["stopped_by"] == "rule", (csv, meta["sessions"][-1])
        assert meta["sessions"][-1]["outcome"] == "passed"
        assert meta["target"]["kind"] == "pytest"
        rows = read_record(csv)
        assert (rows["status"] == "ok").all() and len(rows) >= 10
    # The pytest-benchmark export: read by perfstats' importer, all five, in seconds.
    doc = json.loads(export.read_text())
    assert [b["fullname"] for b in doc["benchmarks"]] == NAMES
    assert {b["extra_info"]["perfstats"]["stopped_by"] for b in doc["benchmarks"]} == {"rule"}
    imported = read_tool_results(export)
    assert imported.format == "pytest-benchmark"
    assert sorted(imported.benchmarks) == NAMES
    naps = imported.values("test_five.py::test_nap_slowed")
    assert naps.min() >= 0.002 and len(naps) == len(tidy[tidy["benchmark"] == NAMES[1]])


def test_five_benchmarks_stop_by_rule_and_export(pytester: pytest.Pytester) -> None:
    records, export = pytester.path / "runs", pytester.path / "bench.json"
    result = _five(pytester, records, "--perfstats-benchmark-json", str(export))
    _check_five(result, records, export)
    # pytest-benchmark's own comparison reads the export.
    compared = pytester.run(
        sys.executable, "-m", "pytest_benchmark", "compare", "--columns=min,median,rounds",
        str(export),
    )  # fmt: skip
    assert compared.ret == 0, compared.stderr.str()
    shown = compared.stdout.str()
    for name in ("test_nap_short", "test_nap_slowed", "test_sum", "test_sorted[1000]"):
        assert name in shown


def test_five_benchmarks_on_two_xdist_workers(pytester: pytest.Pytester) -> None:
    records, export = pytester.path / "runs", pytester.path / "bench.json"
    result = _five(pytester, records, "-n", "2", "--perfstats-benchmark-json", str(export))
    _check_five(result, records, export)
    # Each worker timed its own tests, and the controller gathered them all.
    workers = {read_metadata(csv)["target"]["worker"] for csv in records.glob("*.csv")}
    assert workers == {"gw0", "gw1"}


# The gate's file: five naps. The two sessions it compares run one after the
# other, and on a shared runner CPU-bound microsecond work (sorted, sum) can
# take twice as long in the second process as in the first: a gate rightly
# calls that a regression, so a claim about the injected slowdown alone needs
# benchmarks whose time the machine's load does not double.
NAPS = """\
import os
import time

import pytest

SLOWDOWN = float(os.environ.get("PERFSTATS_PLUGIN_SLOWDOWN", "1"))


def test_nap_short(perfstats_benchmark):
    perfstats_benchmark(time.sleep, 0.0005)


def test_nap_slowed(perfstats_benchmark):
    perfstats_benchmark(time.sleep, 0.002 * SLOWDOWN)


def test_nap_long(perfstats_benchmark):
    perfstats_benchmark(time.sleep, 0.004)


@pytest.mark.parametrize("ms", [1, 3])
def test_nap_sized(perfstats_benchmark, ms):
    perfstats_benchmark(time.sleep, ms / 1000)
"""
NAP_NAMES = [
    "test_naps.py::test_nap_long",
    "test_naps.py::test_nap_short",
    "test_naps.py::test_nap_sized[1]",
    "test_naps.py::test_nap_sized[3]",
    "test_naps.py::test_nap_slowed",
]


def _naps(pytester: pytest.Pytester, records: Path) -> pytest.RunResult:
    pytester.makepyfile(test_naps=NAPS)
    return _run(pytester, "--perfstats", *RULE, *MAX_TIME, "--perfstats-record", str(records))


@pytest.mark.timing
def test_gate_flags_the_benchmark_made_three_times_slower(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    base, slow = pytester.path / "base", pytester.path / "slow"
    assert _naps(pytester, base).ret == 0
    monkeypatch.setenv("PERFSTATS_PLUGIN_SLOWDOWN", "3")
    assert _naps(pytester, slow).ret == 0
    gated = pytester.run(
        sys.executable, "-m", "perfstats.adapters.cli", "gate", str(base), str(slow),
        "--threshold", "50%", "--format", "json", "--seed", "1",
    )  # fmt: skip
    assert gated.ret == 1, gated.stdout.str() + gated.stderr.str()
    verdicts = {b["name"]: b for b in json.loads(gated.stdout.str())["benchmarks"]}
    assert sorted(verdicts) == NAP_NAMES
    slowed = verdicts["test_naps.py::test_nap_slowed"]
    assert slowed["verdict"] == "regression" and slowed["ratio"] > 2.0
    regressions = [n for n, b in verdicts.items() if b["verdict"] == "regression"]
    assert regressions == ["test_naps.py::test_nap_slowed"]


def test_without_the_switch_the_fixture_calls_once_and_nothing_is_added(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_once="""
        CALLS = []

        def test_once(perfstats_benchmark):
            assert perfstats_benchmark(CALLS.append, 1) is None
            assert CALLS == [1]

        def test_plain():
            assert True
        """
    )
    result = _run(pytester)
    result.assert_outcomes(passed=2)
    assert "perfstats benchmarks" not in result.stdout.str()
    assert not list(pytester.path.glob("*.csv"))
    # The options are there (and beside pytest-benchmark's) even when off.
    shown = _run(pytester, "--help").stdout.str()
    assert "--perfstats-rule-option=KEY=VALUE" in shown and "--benchmark-json" in shown
    # -p no:perfstats removes the plugin: the fixture is then unknown.
    gone = _run(pytester, "-p", "no:perfstats")
    gone.assert_outcomes(passed=1, errors=1)
    assert "fixture 'perfstats_benchmark' not found" in gone.stdout.str()


def test_an_option_without_the_switch_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = _run(pytester, "--perfstats-record", "runs")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--perfstats-record is given without --perfstats" in result.stderr.str()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--perfstats-rule", "superflaw"], "--perfstats-rule: rule must be one of"),
        (
            ["--perfstats-rule-option", "errror=0.1"],
            "--perfstats-rule-option: bad option for rule 'superflow'",
        ),
        (["--perfstats-rule-option", "error"], "--perfstats-rule-option must look like"),
        (["--perfstats-rule-option", "error=-1"], "--perfstats-rule-option: error must be"),
        (["--perfstats-max-time", "0"], "--perfstats-max-time must be a finite number"),
        (["--perfstats-warmup", "lots"], "--perfstats-warmup: expected a number of calls"),
        (["--perfstats-warmup", "-1"], "--perfstats-warmup: expected a number of calls"),
        (
            ["--perfstats-warmup", "3", "--perfstats-max-warmup", "5"],
            "--perfstats-max-warmup 5: max_warmup applies only to warmup='auto'",
        ),
        (
            ["--perfstats-max-warmup", "0", "--perfstats-warmup", "auto"],
            "--perfstats-max-warmup 0: max_warmup must be an integer >= 1",
        ),
    ],
)
def test_bad_rule_or_option_is_a_usage_error_naming_it(
    pytester: pytest.Pytester, args: list[str], said: str
) -> None:
    pytester.makepyfile(test_x="def test_x(perfstats_benchmark):\n    perfstats_benchmark(int)\n")
    result = _run(pytester, "--perfstats", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert said in err, err
    assert args[1].split("=")[0] in err
    assert "Traceback" not in err


def test_a_record_folder_with_records_is_refused(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_x="def test_x(perfstats_benchmark):\n    perfstats_benchmark(int)\n")
    (pytester.path / "runs").mkdir()
    (pytester.path / "runs" / "old.csv").write_text("run\n")
    result = _run(pytester, "--perfstats", "--perfstats-record", "runs")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "already holds records (old.csv" in result.stderr.str()


RAISES = """\
CALLS = []


def flaky():
    CALLS.append(1)
    if len(CALLS) == 8:
        raise ValueError("the eighth call broke")


def test_flaky(perfstats_benchmark):
    perfstats_benchmark(flaky)


def test_after(perfstats_benchmark):
    perfstats_benchmark(int, "7")
"""


def test_a_raising_function_fails_its_test_and_keeps_its_partial_record(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_raises=RAISES)
    records = pytester.path / "runs"
    result = _run(
        pytester, "--perfstats", "--perfstats-rule", "fixed", "--perfstats-rule-option", "n=20",
        "--perfstats-record", str(records),
    )  # fmt: skip
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    assert "ValueError: the eighth call broke" in out
    row = next(line for line in out.splitlines() if line.startswith("test_raises.py::test_flaky"))
    assert " error " in row and "ValueError: the eighth call broke" in row
    tidy = read_results(records, keep_unrun=True)
    flaky = tidy[tidy["benchmark"] == "test_raises.py::test_flaky"]
    assert len(flaky) == 7 and set(flaky["failed"]) == {1}
    csv = next(p for p in records.glob("*.csv") if "flaky" in p.name)
    rows = read_record(csv)
    assert rows["status"].tolist() == ["ok"] * 7 + ["error"]
    assert "the eighth call broke" in rows["error"].iloc[-1]
    session = read_metadata(csv)["sessions"][-1]
    assert session["outcome"] == "failed" and session["stopped_by"] == "error"
    # The other test is untouched by its neighbour's failure.
    assert len(tidy[tidy["benchmark"] == "test_raises.py::test_after"]) == 20


INTERRUPTED = """\
import os
import signal

CALLS = []


def interrupted():
    CALLS.append(1)
    if len(CALLS) == 12:
        os.kill(os.getpid(), signal.SIGINT)


def test_first(perfstats_benchmark):
    perfstats_benchmark(int, "3")


def test_interrupted(perfstats_benchmark):
    perfstats_benchmark(interrupted)


def test_never_reached(perfstats_benchmark):
    perfstats_benchmark(int, "4")
"""


def test_ctrl_c_keeps_what_was_recorded(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_sigint=INTERRUPTED)
    records = pytester.path / "runs"
    result = _run(
        pytester, "--perfstats", "--perfstats-rule", "fixed", "--perfstats-rule-option", "n=30",
        "--perfstats-record", str(records),
    )  # fmt: skip
    assert result.ret == pytest.ExitCode.INTERRUPTED
    out = result.stdout.str()
    assert "KeyboardInterrupt" in out
    # The summary still shows both benchmarks that ran, the interrupted one as such.
    assert "perfstats benchmarks" in out
    row = next(line for line in out.splitlines() if line.startswith("test_sigint.py::test_int"))
    assert " interrupted " in row
    csvs = sorted(p.name for p in records.glob("*.csv"))
    assert len(csvs) == 2 and not any("never" in n for n in csvs)
    csv = next(p for p in records.glob("*.csv") if "interrupted" in p.name)
    rows = read_record(csv)
    # Eleven calls completed; the twelfth was interrupted and is recorded as failed.
    assert rows["status"].tolist() == ["ok"] * 11 + ["error"]
    assert read_metadata(csv)["sessions"][-1]["stopped_by"] == "interrupted"
    assert not list(records.glob("*.lock"))


# The first SLOW calls nap 20 ms (a lower bound: a nap never ends early),
# the later ones return at once: a warm-up of SLOW calls.
WARMING = """\
import os
import time

SLOW = int(os.environ["PERFSTATS_SLOW_CALLS"])
CALLS = []


def warming():
    CALLS.append(1)
    if len(CALLS) <= SLOW:
        time.sleep(0.02)


def test_warming(perfstats_benchmark):
    perfstats_benchmark(warming)
"""
NAP_NS = 0.02 * 1e9


def _warming(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, slow: int, *args: str
) -> tuple[pytest.RunResult, Path, Path]:
    pytester.makepyfile(test_warming=WARMING)
    monkeypatch.setenv("PERFSTATS_SLOW_CALLS", str(slow))
    records, export = pytester.path / "runs", pytester.path / "bench.json"
    result = _run(
        pytester, "--perfstats", "--perfstats-record", str(records),
        "--perfstats-benchmark-json", str(export), *args,
    )  # fmt: skip
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    (csv,) = records.glob("*.csv")
    return result, csv, export


def test_a_fixed_warmup_keeps_the_slow_first_calls_out_of_the_measurement(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result, csv, export = _warming(
        pytester, monkeypatch, 4,
        "--perfstats-rule", "fixed", "--perfstats-rule-option", "n=12", "--perfstats-warmup", "4",
    )  # fmt: skip
    rows = read_record(csv)
    # The four naps are the warm-up rows, recorded and never judged; twelve calls are judged.
    assert rows["phase"].tolist() == ["warmup"] * 4 + ["measure"] * 12
    assert rows["run"].tolist() == list(range(1, 17))
    assert (rows["value"].iloc[:4] >= NAP_NS).all()
    assert rows["value"].iloc[4:].median() < NAP_NS / 10
    assert set(rows.loc[rows["phase"] == "warmup", "interval"]) == {0}
    session = read_metadata(csv)["sessions"][-1]
    assert session["warmup_calls"] == 4 and session["settings"]["warmup"] == 4
    assert session["stopped_by"] == "rule" and session["decision"]["n"] == 12
    # The summary shows the warm-up beside the judged runs.
    row = next(line for line in result.stdout.lines if line.startswith("test_warming.py::"))
    assert re.search(r" 12 +4  rule ", row), row
    # The pytest-benchmark export holds the judged calls only, and says so.
    (bench,) = json.loads(export.read_text())["benchmarks"]
    assert bench["stats"]["rounds"] == len(bench["stats"]["data"]) == 12
    assert bench["options"]["warmup"] == 4
    assert bench["extra_info"]["perfstats"]["warmup"] == 4
    assert bench["stats"]["median"] < NAP_NS / 10 / 1e9
    # perfstats report counts the warm-up rows apart.
    report = pytester.run(sys.executable, "-m", "perfstats.adapters.cli", "report", str(csv))
    assert report.ret == 0, report.stderr.str()
    assert "12 measured (12 ok, 0 error, 0 timeout), 4 warm-up" in report.stdout.str()


def test_without_a_warmup_the_slow_first_calls_are_judged(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, csv, export = _warming(
        pytester, monkeypatch, 4, "--perfstats-rule", "fixed", "--perfstats-rule-option", "n=12",
    )  # fmt: skip
    rows = read_record(csv)
    assert rows["phase"].tolist() == ["measure"] * 12
    assert (rows["value"].iloc[:4] >= NAP_NS).all()
    assert read_metadata(csv)["sessions"][-1]["warmup_calls"] == 0
    (bench,) = json.loads(export.read_text())["benchmarks"]
    assert bench["options"]["warmup"] is False
    assert sum(v >= NAP_NS / 1e9 for v in bench["stats"]["data"]) >= 4


def test_the_automatic_warmup_finds_the_slow_calls_and_judges_the_rest(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Thirty slow calls: at the first checks (20, 30 calls) all calls look
    # alike, so the start is found only once the fast ones show; the rule's
    # forty judged calls then count from there.
    _, csv, export = _warming(
        pytester, monkeypatch, 30,
        "--perfstats-rule", "fixed", "--perfstats-rule-option", "n=40",
        "--perfstats-warmup", "auto",
    )  # fmt: skip
    rows = read_record(csv)
    session = read_metadata(csv)["sessions"][-1]
    found = session["warmup_calls"]
    assert 30 <= found <= 40, session["warmup"]
    assert session["warmup"]["mode"] == "auto" and session["warmup"]["start"] == found
    assert session["warmup"]["start_run"] == found + 1
    # The rows written as measurement before the start was found are re-marked on disk.
    assert rows["phase"].tolist() == ["warmup"] * found + ["measure"] * 40
    assert (rows["value"].iloc[:30] >= NAP_NS).all()
    assert rows["value"].iloc[found:].median() < NAP_NS / 10
    (bench,) = json.loads(export.read_text())["benchmarks"]
    assert bench["stats"]["rounds"] == 40 and bench["options"]["warmup"] == found
    report = pytester.run(sys.executable, "-m", "perfstats.adapters.cli", "report", str(csv))
    assert f"warm-up    auto: {found} runs, judged from run {found + 1}" in report.stdout.str()


BESIDE = """\
def add(a, b):
    return a + b


def test_with_pytest_benchmark(benchmark):
    assert benchmark(add, 1, 2) == 3


def test_with_perfstats(perfstats_benchmark):
    assert perfstats_benchmark(add, 1, 2) == 3
"""


def test_beside_pytest_benchmark(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_beside=BESIDE)
    theirs, ours = pytester.path / "theirs.json", pytester.path / "ours.json"
    result = _run(
        pytester, "--perfstats", "--perfstats-rule", "fixed", "--perfstats-rule-option", "n=15",
        "--perfstats-benchmark-json", str(ours), "--benchmark-json", str(theirs),
        "--benchmark-max-time", "0.05",
    )  # fmt: skip
    result.assert_outcomes(passed=2)
    mine = json.loads(ours.read_text())["benchmarks"]
    assert [b["name"] for b in mine] == ["test_with_perfstats"]
    assert mine[0]["stats"]["rounds"] == 15
    other = json.loads(theirs.read_text())["benchmarks"]
    assert [b["name"] for b in other] == ["test_with_pytest_benchmark"]


def test_the_fixture_times_one_function_per_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_twice="""
        def test_twice(perfstats_benchmark):
            perfstats_benchmark(int)
            perfstats_benchmark(str)
        """
    )
    for args in ([], ["--perfstats", "--perfstats-rule", "fixed"]):
        result = _run(pytester, *args)
        result.assert_outcomes(failed=1)
        assert "perfstats_benchmark times one function per test" in result.stdout.str()


def test_time_calls_stops_on_time_and_round_trips(tmp_path: Path) -> None:
    # A rule that never stops by itself here: the loop ends on max_seconds.
    rule = by_name("ci-width", error=1e-9, min_n=2)
    value, result = time_calls(abs, (-3,), rule=rule, name="t", max_seconds=0.2,
                               record=tmp_path / "t.csv")  # fmt: skip
    assert value == 3 and result.stopped_by == "max_time" and result.runs >= 2
    assert result.low <= result.estimate <= result.high
    again = CallsResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert again == result
    assert read_metadata(tmp_path / "t.csv")["sessions"][-1]["stopped_by"] == "max_time"
    assert len(read_record(tmp_path / "t.csv")) == result.runs


def test_time_calls_warmup_is_timed_apart_and_checked(tmp_path: Path) -> None:
    _, result = time_calls(int, rule=Fixed(n=5), name="t", warmup=3, record=tmp_path / "t.csv")
    assert result.runs == 5 and result.warmup == 3
    assert read_record(tmp_path / "t.csv")["phase"].tolist() == ["warmup"] * 3 + ["measure"] * 5
    assert CallsResult.from_dict(json.loads(json.dumps(result.to_dict()))).warmup == 3
    for warmup, max_warmup, said in [
        (-1, None, "warmup must be an integer >= 0 or 'auto'"),
        ("some", None, "warmup must be an integer >= 0 or 'auto'"),
        (2, 10, "max_warmup applies only to warmup='auto'"),
        ("auto", 0, "max_warmup must be an integer >= 1"),
    ]:
        with pytest.raises(ValueError, match=said):
            time_calls(int, rule=Fixed(n=2), name="t", warmup=warmup, max_warmup=max_warmup)


def test_time_calls_refuses_an_existing_record(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    time_calls(int, rule=Fixed(n=2), name="t", record=path)
    with pytest.raises(ValueError, match="already exists"):
        time_calls(int, rule=Fixed(n=2), name="t", record=path)
    with pytest.raises(ValueError, match="max_seconds"):
        time_calls(int, rule=Fixed(n=2), name="t", max_seconds=math.inf)
