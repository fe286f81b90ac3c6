"""Importers read which values are better and which runs failed; the gate uses both.

hyperfine, Google Benchmark, Go and pytest-benchmark run here on tiny
workloads (failing runs included); JMH cannot (Maven Central is out of
reach), so its committed sample (``samples/README.md``) stands in, with the
contender's throughput scaled.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from perfstats.adapters import gate_files
from perfstats.adapters.cli import main
from perfstats.adapters.records.importers import FormatError, parse, read

from perfstats import gate

SAMPLES = Path(__file__).parent / "samples"
THRPT = "org.example.SumBench.sumThroughput"
AVGT = "org.example.SumBench.sum(size=64)"


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    res = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, f"{cmd[0]} failed:\n{res.stdout[-2000:]}\n{res.stderr[-2000:]}"
    return res.stdout


def _jmh(tmp_path: Path, name: str, thrpt: float, avgt: float) -> Path:
    """The JMH sample with its throughput and its time per operation scaled."""
    raw = json.loads((SAMPLES / "jmh.json").read_text())
    rng = np.random.default_rng(len(name))
    for b in raw:
        factor = thrpt if b["mode"] == "thrpt" else avgt
        # Three times the forks of the sample, so that each side has 12 or 18 values.
        b["primaryMetric"]["rawData"] = [
            [v * factor * float(rng.lognormal(0, 0.002)) for v in fork]
            for fork in b["primaryMetric"]["rawData"] * 3
        ]
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(raw))
    return path


def test_jmh_throughput_up_is_an_improvement(tmp_path: Path) -> None:
    base = _jmh(tmp_path, "base", 1.0, 1.0)
    cont = _jmh(tmp_path, "cont", 1.5, 1.0)
    res = read(cont)
    assert res.direction(THRPT) == "higher" and res.direction(AVGT) == "lower"
    for accessor in (res.values, res.unit, res.direction):
        with pytest.raises(KeyError, match=r"no value of benchmark 'nope' in these jmh results"):
            accessor("nope")
    result = gate_files(base, cont, rng=0, n_resamples=500, min_equivalent_runs=2)
    assert result[THRPT].verdict == "improvement"
    assert result[THRPT].ratio == pytest.approx(1.5, rel=0.02)
    assert result[THRPT].direction == "higher"
    assert result.counts["regression"] == 0 and result.exit_code() == 0
    # Throughput down by a third is a regression, and the geometric mean says worse.
    slower = gate_files(base, _jmh(tmp_path, "slow", 0.66, 1.0), rng=0, n_resamples=500)
    assert slower[THRPT].verdict == "regression" and slower.geomean > 1.0
    assert result.geomean < 1.0


def test_gate_cli_json_and_table_carry_direction_and_failed_runs(capsys, tmp_path: Path) -> None:
    base = _jmh(tmp_path, "base", 1.0, 1.0)
    cont = _jmh(tmp_path, "cont", 1.5, 1.0)
    code = main(["gate", str(base), str(cont), "--format", "json", "--seed", "1",
                 "--resamples", "500"])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err
    by_name = {b["name"]: b for b in json.loads(out)["benchmarks"]}
    assert by_name[THRPT]["verdict"] == "improvement"
    assert by_name[THRPT]["direction"] == "higher" and by_name[AVGT]["direction"] == "lower"
    assert by_name[THRPT]["n_failed"] == 0
    code = main(["gate", str(base), str(cont), "--seed", "1", "--resamples", "500"])
    out, _ = capsys.readouterr()
    header, *rows = out.splitlines()
    assert header.split()[-2:] == ["better", "failed"]
    assert next(r for r in rows if r.startswith(THRPT)).split()[-2:] == ["higher", "0"]


def test_core_gate_validates_directions() -> None:
    x = np.random.default_rng(0).lognormal(0, 0.01, 10)
    with pytest.raises(ValueError, match=r"directions\['a'\] must be 'lower' or 'higher'"):
        gate({"a": x}, {"a": x}, directions={"a": "up"})
    with pytest.raises(ValueError, match="directions must be a mapping"):
        gate({"a": x}, {"a": x}, directions=["a"])  # type: ignore[arg-type]


def _hyperfine(tmp_path: Path, name: str, command: str, runs: int = 8) -> Path:
    out = tmp_path / f"{name}.json"
    _run(["hyperfine", "-N", "-i", "--runs", str(runs), "--warmup", "0", "--export-json",
          str(out), "-n", "flaky", command], tmp_path)  # fmt: skip
    return out


# Fails every other run: a marker file is made by the failing runs and
# removed by the successful ones.
ALTERNATE = "sh -c 'if [ -e marker ]; then rm marker; else touch marker; exit 3; fi'"


def test_hyperfine_failed_runs_are_left_out_and_counted(capsys, tmp_path: Path) -> None:
    path = _hyperfine(tmp_path, "base", ALTERNATE)
    raw = json.loads(path.read_text())["results"][0]
    codes = raw["exit_codes"]
    assert 0 < codes.count(3) < len(codes)
    res = read(path)
    ok = [t for t, c in zip(raw["times"], codes, strict=True) if c == 0]
    np.testing.assert_array_equal(res.values("flaky"), ok)
    assert res.failed == {"flaky": codes.count(3)}
    assert set(res.frame["exit_code"]) == {0}
    cont = _hyperfine(tmp_path, "cont", ALTERNATE)
    n_cont = json.loads(cont.read_text())["results"][0]["exit_codes"].count(3)
    code = main(["gate", str(path), str(cont), "--format", "json", "--resamples", "300"])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    (bench,) = json.loads(out)["benchmarks"]
    assert bench["n_failed"] == codes.count(3) + n_cont
    assert bench["n_baseline"] == len(ok)


def test_hyperfine_command_that_always_fails_is_an_input_error(capsys, tmp_path: Path) -> None:
    bad = _hyperfine(tmp_path, "bad", "sh -c 'exit 1'", runs=4)
    with pytest.raises(FormatError, match=r"benchmark 'flaky' has no successful run \(4 failed\)"):
        read(bad)
    good = _hyperfine(tmp_path, "good", "true", runs=4)
    code = main(["gate", str(good), str(bad), "--resamples", "200"])
    _, err = capsys.readouterr()
    assert code == 2
    assert str(bad) in err and "'flaky' has no successful run" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


COPY, FLAKY, BROKEN = "BM_copy/iterations:200", "BM_flaky/iterations:200", "BM_broken/iterations:10"


@pytest.fixture(scope="module")
def gbench_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("gbench")
    src = tmp / "gb.cc"
    src.write_text(textwrap.dedent("""\
        #include <benchmark/benchmark.h>
        #include <vector>
        static void BM_copy(benchmark::State& state) {
          std::vector<char> a(4096, 1), b(4096);
          for (auto _ : state) { b = a; benchmark::DoNotOptimize(b.data()); }
          state.SetBytesProcessed(state.iterations() * 4096);
        }
        BENCHMARK(BM_copy)->Iterations(200);
        static int calls = 0;
        static void BM_flaky(benchmark::State& state) {
          if (++calls % 2 == 0) { state.SkipWithError("flaky"); }
          for (auto _ : state) { benchmark::DoNotOptimize(calls); }
        }
        BENCHMARK(BM_flaky)->Iterations(200);
        static void BM_broken(benchmark::State& state) {
          state.SkipWithError("cannot open the input");
          for (auto _ : state) {}
        }
        BENCHMARK(BM_broken)->Iterations(10);
        BENCHMARK_MAIN();
        """))
    _run(["g++", "-O1", str(src), "-o", str(tmp / "gb"), "-lbenchmark", "-lpthread"], tmp)
    out = tmp / "gbench.json"
    _run([str(tmp / "gb"), "--benchmark_repetitions=10", f"--benchmark_out={out}",
          "--benchmark_out_format=json"], tmp)  # fmt: skip
    return out


def test_google_benchmark_errors_and_rate_counters(gbench_file: Path) -> None:
    raw = json.loads(gbench_file.read_text())
    flaky = [b for b in raw["benchmarks"]
             if b.get("run_name") == FLAKY and b["run_type"] == "iteration"]  # fmt: skip
    n_err = sum(1 for b in flaky if b.get("error_occurred"))
    assert 0 < n_err < len(flaky)
    doc = {**raw, "benchmarks": [b for b in raw["benchmarks"] if b.get("run_name") != BROKEN]}
    res = parse(doc)
    assert res.failed == {FLAKY: n_err}
    assert len(res.values(FLAKY)) == len(flaky) - n_err
    assert res.direction(COPY) == "lower"
    with pytest.raises(FormatError, match=rf"'{BROKEN}' has no successful run \(10 failed\)"):
        read(gbench_file)
    copy = {**raw, "benchmarks": [b for b in raw["benchmarks"] if b.get("run_name") == COPY]}
    rate = parse(copy, metric="bytes_per_second")
    copies = [b["bytes_per_second"] for b in copy["benchmarks"] if b["run_type"] == "iteration"]
    assert len(copies) == 10
    np.testing.assert_allclose(rate.values(COPY), copies)
    assert rate.direction(COPY) == "higher" and rate.unit(COPY) == "bytes_per_second"


def test_google_benchmark_rate_that_rises_is_an_improvement(gbench_file: Path) -> None:
    raw = json.loads(gbench_file.read_text())
    doc = {**raw, "benchmarks": [b for b in raw["benchmarks"] if b.get("run_name") == COPY]}
    base = parse(doc, metric="bytes_per_second").frame
    cont = base.assign(value=base["value"] * 1.5)
    # The ratio is exactly 1.5 for every repetition: its CI lies above +2%.
    result = gate(base, cont, directions={COPY: "higher"}, rng=0, n_resamples=300,
                  min_equivalent_runs=2, paired=True)  # fmt: skip
    assert result[COPY].ratio == pytest.approx(1.5)
    assert result[COPY].verdict == "improvement"
    timed = gate(base, cont, rng=0, n_resamples=300, paired=True)
    assert timed[COPY].verdict == "regression"  # the same data read as a time


@pytest.fixture(scope="module")
def go_output(tmp_path_factory: pytest.TempPathFactory) -> str:
    """``go test -bench . ./...`` over a module of two packages, each with a BenchmarkSum."""
    tmp = tmp_path_factory.mktemp("gomod")
    (tmp / "go.mod").write_text("module example.com/two\n\ngo 1.19\n")
    for pkg, size in (("alpha", 64), ("beta", 4096)):
        (tmp / pkg).mkdir()
        (tmp / pkg / "sum_test.go").write_text(textwrap.dedent(f"""\
            package {pkg}

            import "testing"

            func BenchmarkSum(b *testing.B) {{
            \tv := make([]byte, {size})
            \tb.SetBytes({size})
            \tfor i := 0; i < b.N; i++ {{
            \t\ts := 0
            \t\tfor _, x := range v {{
            \t\t\ts += int(x)
            \t\t}}
            \t\t_ = s
            \t}}
            }}
            """))
    env = {**os.environ, "GOCACHE": str(tmp / "gocache"), "GOPATH": str(tmp / "gopath"),
           "GOPROXY": "off", "GOFLAGS": "-mod=mod", "HOME": str(tmp)}  # fmt: skip
    return _run(["go", "test", "-bench", ".", "-count", "3", "-benchtime", "2000x", "./..."],
                tmp, env)  # fmt: skip


def test_go_packages_qualify_the_names_and_mb_per_s_is_higher(go_output: str) -> None:
    assert go_output.count("pkg: ") == 2
    res = parse(go_output)
    procs = res.benchmarks[0].rsplit("-", 1)[1]
    assert res.benchmarks == [f"example.com/two/alpha.Sum-{procs}",
                              f"example.com/two/beta.Sum-{procs}"]  # fmt: skip
    assert all(len(res.values(n)) == 3 for n in res.benchmarks)
    assert set(res.direction(n) for n in res.benchmarks) == {"lower"}
    rate = parse(go_output, metric="MB/s")
    assert set(rate.direction(n) for n in rate.benchmarks) == {"higher"}


def test_go_output_cut_off_names_the_line(go_output: str) -> None:
    lines = go_output.splitlines(keepends=True)
    last = max(i for i, line in enumerate(lines) if line.startswith("BenchmarkSum"))
    # A benchmark's name printed, its result never came.
    name_only = "".join(lines[: last + 1]) + "BenchmarkSum\n"
    with pytest.raises(FormatError, match=rf"line {last + 2} names BenchmarkSum but no result"):
        parse(name_only)
    # Half a result line, cut inside its last unit.
    half = "".join(lines[:last]) + lines[last].rstrip("\n")[:-3]
    with pytest.raises(FormatError, match=rf"line {last + 1} is a cut-off result line"):
        parse(half)
    # The name with its result on a later line (go test -v, or a benchmark that logs) is fine.
    logged = "".join(lines[:last]) + "BenchmarkSum\n    sum_test.go:9: hello\n" + lines[last]
    assert len(parse(logged).frame) == len(parse(go_output).frame)


def test_pytest_benchmark_same_fullname_twice_is_refused(tmp_path: Path) -> None:
    pt = tmp_path / "pt"
    pt.mkdir()
    (pt / "test_speed.py").write_text(textwrap.dedent("""\
        def test_join(benchmark):
            benchmark.pedantic(lambda: "-".join(["a"] * 100), rounds=5, iterations=5)
        """))
    out = tmp_path / "ptb.json"
    inner = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST_")}
    _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(pt),
          "-c", os.devnull, f"--benchmark-json={out}", "--benchmark-save-data",
          str(pt / "test_speed.py")], pt, inner)  # fmt: skip
    raw = json.loads(out.read_text())
    assert len(parse(raw).benchmarks) == 1
    raw["benchmarks"].append(raw["benchmarks"][0])
    fullname = raw["benchmarks"][0]["fullname"]
    with pytest.raises(FormatError, match=rf"benchmarks\[1\]: benchmark '{fullname}' appears"):
        parse(raw)


def test_asv_failed_benchmark_is_named() -> None:
    doc = {
        "commit_hash": "abc",
        "result_columns": ["result", "params", "version", "samples"],
        "results": {
            "b.time_ok": [[1.0], [], "v", [[1.0, 1.1, 1.2]]],
            "b.time_broken": [None, [], "v", None],
            "b.time_param": [[1.0, None], [["1", "2"]], "v", [[1.0, 1.1], None]],
        },
    }
    with pytest.raises(FormatError, match=r"asv but benchmark 'b.time_broken' has no successful"):
        parse(doc)
    del doc["results"]["b.time_broken"]
    with pytest.raises(FormatError, match=r"'b.time_param\(2\)' has no successful run"):
        parse(doc)
    del doc["results"]["b.time_param"]
    assert parse(doc).benchmarks == ["b.time_ok"]


def test_higher_is_better_option_for_files_that_do_not_say(capsys, tmp_path: Path) -> None:
    rng = np.random.default_rng(3)

    def csv(factor: float, direction: str | None = None) -> str:
        head = "benchmark,value,unit" + (",direction" if direction else "") + "\n"
        tail = f",{direction}" if direction else ""
        values = rng.lognormal(7, 0.01, 15) * factor
        return head + "".join(f"put,{v},ops/s{tail}\n" for v in values)

    base, cont = tmp_path / "base.csv", tmp_path / "cont.csv"
    base.write_text(csv(1.0))
    cont.write_text(csv(1.3))
    argv = ["gate", str(base), str(cont), "--seed", "1", "--resamples", "500"]
    assert main(argv) == 1  # read as a time, 30% more is a regression
    capsys.readouterr()
    assert main([*argv, "--higher-is-better", "pu*", "--format", "json"]) == 0
    (bench,) = json.loads(capsys.readouterr().out)["benchmarks"]
    assert bench["verdict"] == "improvement" and bench["direction"] == "higher"
    # A CSV may say so itself.
    base.write_text(csv(1.0, "higher"))
    cont.write_text(csv(1.3, "higher"))
    assert main(argv) == 0
    capsys.readouterr()
    cont.write_text(csv(1.3, "up"))
    assert main(argv) == 2
    assert "direction 'up' is neither 'lower' nor 'higher'" in capsys.readouterr().err
