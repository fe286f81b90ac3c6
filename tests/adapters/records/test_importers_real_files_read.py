"""Real files the importers used to refuse: asv without samples for some
benchmarks, Google Benchmark complexity fits and aggregate-only files,
gzip-compressed pyperf files, criterion 0.2's ``sample.json``.

asv, Google Benchmark and pyperf run here; Google Benchmark before 1.5,
asv's results format 1 and criterion 0.2 do not, so those files are written
per their format (Google Benchmark 1.4's README, asv's own format-1 to
format-2 conversion, criterion 0.2's ``(iters, times)`` pair), and asv's
own conversion checks the format-1 reading.
"""

from __future__ import annotations

import json
import math
import shutil
import sys
import textwrap
from pathlib import Path

import pytest
from perfstats.adapters.records.importers import FormatError, parse, read
from support.tools import asv_project, run_tool


@pytest.fixture(scope="module")
def asv_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """asv's results for time, mem, peakmem and track benchmarks, with and without samples."""
    tmp = tmp_path_factory.mktemp("asv")
    repo = tmp / "repo"
    head, env = asv_project(
        repo,
        textwrap.dedent("""\
        class Suite:
            def time_sum(self):
                sum(range(500))

            def mem_list(self):
                return [0] * 1000

            def peakmem_list(self):
                [0] * 10000

            def track_answer(self):
                return 42

            def time_broken(self):
                raise RuntimeError("cannot open the input")


        class Param:
            params = [1, 2]

            def time_sum(self, n):
                sum(range(200 * n))
        """),
        tmp,
    )
    out = {}
    for kind, extra in (("plain", []), ("samples", ["--record-samples"])):
        # asv exits 2 when a benchmark failed (time_broken).
        run_tool([sys.executable, "-m", "asv", "run", "--environment", f"existing:{sys.executable}",
              "--set-commit-hash", head, *extra, "-a", "repeat=4", "-a", "number=5",
              "-a", "warmup_time=0"], repo, env, ok=2)  # fmt: skip
        written = next(p for p in (repo / "results").rglob("*.json")
                       if p.name not in ("machine.json", "benchmarks.json"))  # fmt: skip
        out[kind] = tmp / f"{kind}.json"
        shutil.copy(written, out[kind])
        written.unlink()
    return out


def test_asv_reads_benchmarks_without_samples_beside_those_with(
    asv_files: dict[str, Path],
) -> None:
    with pytest.raises(FormatError, match=r"'bench\.Suite\.time_broken' has no successful run"):
        read(asv_files["samples"])
    res = read(asv_files["samples"], keep_unrun=True)
    assert res.unrun == {"bench.Suite.time_broken": 1}
    for accessor in (res.values, res.unit, res.direction):
        with pytest.raises(KeyError, match=r"time_broken' .*: all its 1 run\(s\) failed"):
            accessor("bench.Suite.time_broken")
    raw = json.loads(asv_files["samples"].read_text())["results"]
    assert set(res.benchmarks) == {
        "bench.Suite.time_sum", "bench.Suite.mem_list", "bench.Suite.peakmem_list",
        "bench.Suite.track_answer", "bench.Param.time_sum(1)", "bench.Param.time_sum(2)",
    }  # fmt: skip
    # mem, peakmem and track benchmarks have no samples: their one number.
    assert res.values("bench.Suite.mem_list").tolist() == raw["bench.Suite.mem_list"][0]
    assert res.unit("bench.Suite.peakmem_list") == "B"
    assert res.values("bench.Suite.track_answer").tolist() == [42.0]
    # Timing benchmarks: every sample (asv runs two rounds of four repeats).
    assert res.values("bench.Suite.time_sum").tolist() == raw["bench.Suite.time_sum"][11][0]
    assert len(res.values("bench.Suite.time_sum")) == 8 and res.unit("bench.Suite.time_sum") == "s"
    assert res.values("bench.Param.time_sum(2)").tolist() == raw["bench.Param.time_sum"][11][1]


def test_asv_without_any_samples_gives_the_hint(asv_files: dict[str, Path]) -> None:
    with pytest.raises(FormatError, match=r"no samples .*run asv with --record-samples"):
        read(asv_files["samples"].with_name("plain.json"))


def test_asv_failed_benchmark_is_an_error_row_in_the_gate(
    asv_files: dict[str, Path], tmp_path: Path
) -> None:
    from perfstats.adapters import gate_files

    # The timing benchmarks only: a benchmark of one number (mem_, track_)
    # is no sample the gate compares.
    doc = json.loads(asv_files["samples"].read_text())
    doc["results"] = {k: v for k, v in doc["results"].items() if ".time_" in k}
    timed = tmp_path / "timed.json"
    timed.write_text(json.dumps(doc))
    result = gate_files(timed, timed, rng=0, n_resamples=200)
    broken = result["bench.Suite.time_broken"]
    assert broken.verdict == "error" and "no successful run in the baseline" in broken.reason
    assert result["bench.Suite.time_sum"].verdict in ("equivalent", "inconclusive")
    assert result.counts["error"] == 1 and result.exit_code() == 2


def _format_1(doc2: dict) -> dict:
    """A format-2 asv file written as asv wrote format 1 (before asv 0.5)."""
    cols = doc2["result_columns"]
    results, versions = {}, {}
    for name, row in doc2["results"].items():
        full = dict(zip(cols, row + [None] * (len(cols) - len(row)), strict=True))
        versions[name] = full["version"]
        if not full["params"]:
            # A benchmark without parameters: a bare number, or an object when sampled.
            if full["samples"] is None:
                results[name] = None if full["result"] is None else full["result"][0]
            else:
                results[name] = {"result": full["result"][0], "samples": full["samples"],
                                 "params": []}  # fmt: skip
        else:
            results[name] = {"result": full["result"], "params": full["params"],
                             "samples": full["samples"]}  # fmt: skip
    keep = ("commit_hash", "date", "env_name", "params", "python", "requirements")
    return {**{k: doc2[k] for k in keep}, "version": 1, "results": results,
            "benchmark_version": versions}  # fmt: skip


def test_asv_results_format_1_reads_as_asv_converts_it(asv_files: dict[str, Path]) -> None:
    from asv.results import Results as AsvResults

    doc2 = json.loads(asv_files["samples"].read_text())
    doc1 = _format_1(doc2)
    mine = parse(doc1, keep_unrun=True)
    # asv's own conversion of the same file reads alike.
    theirs = parse({**AsvResults.update_to_2(json.loads(json.dumps(doc1))), "version": 2},
                   keep_unrun=True)  # fmt: skip
    assert mine.unrun == theirs.unrun == {"bench.Suite.time_broken": 1}
    assert sorted(mine.benchmarks) == sorted(theirs.benchmarks)
    assert len(mine.benchmarks) == 6
    for name in mine.benchmarks:
        assert mine.values(name).tolist() == theirs.values(name).tolist()
    assert mine.values("bench.Suite.time_sum").tolist() == read(
        asv_files["samples"], keep_unrun=True).values("bench.Suite.time_sum").tolist()  # fmt: skip
    with pytest.raises(FormatError, match="results format 3; this reads formats 1 and 2"):
        parse({**doc2, "version": 3})


@pytest.fixture(scope="module")
def gbench_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("gbench")
    (tmp / "gb.cc").write_text(textwrap.dedent("""\
        #include <benchmark/benchmark.h>
        #include <vector>
        static void BM_sum(benchmark::State& state) {
          std::vector<int> v(state.range(0), 1);
          for (auto _ : state) {
            long s = 0;
            for (int x : v) s += x;
            benchmark::DoNotOptimize(s);
          }
          state.SetComplexityN(state.range(0));
        }
        BENCHMARK(BM_sum)->Arg(64)->Arg(512)->Iterations(100)->Complexity();
        BENCHMARK_MAIN();
        """))
    run_tool(["g++", "-O1", "gb.cc", "-o", "gb", "-lbenchmark", "-lpthread"], tmp)
    for name, extra in (("all", []), ("agg", ["--benchmark_report_aggregates_only=true"])):
        run_tool(["./gb", "--benchmark_repetitions=3", f"--benchmark_out={name}.json",
              "--benchmark_out_format=json", *extra], tmp)  # fmt: skip
    single = ["./gb", "--benchmark_out=single.json", "--benchmark_out_format=json"]
    run_tool(single, tmp)
    return tmp


def test_google_benchmark_complexity_fits_are_kept_apart(gbench_dir: Path) -> None:
    for name, runs in (("all", 3), ("single", 1)):
        res = read(gbench_dir / f"{name}.json")
        assert res.benchmarks == ["BM_sum/64/iterations:100", "BM_sum/512/iterations:100"]
        assert len(res.values("BM_sum/64/iterations:100")) == runs
        fit = res.metadata["complexity"]["BM_sum/iterations:100"]
        # The fitted order depends on the timings; that it is kept does not.
        # Google Benchmark spells the constant order "(1)" (its GetBigOString).
        assert fit["big_o"] in ("(1)", "N", "lgN", "NlgN", "N^2", "N^3") and fit["rms"] >= 0


def test_google_benchmark_aggregates_only_is_named(gbench_dir: Path) -> None:
    with pytest.raises(FormatError, match=r"aggregates only .*--benchmark_report_aggregates_only"):
        read(gbench_dir / "agg.json")


def _gbench_1_4(aggregates_only: bool = False) -> dict:
    """Google Benchmark 1.4's JSON: no run_type, aggregates and fits named by suffix."""
    def run(name: str, real: float) -> dict:
        return {"name": name, "iterations": 1000, "real_time": real, "cpu_time": real,
                "time_unit": "ns"}  # fmt: skip

    reps = [] if aggregates_only else [run("BM_sum/8", t) for t in (50.0, 52.0, 51.0)]
    return {
        "context": {"date": "2018-06-01 10:00:00", "num_cpus": 2, "mhz_per_cpu": 2400,
                    "cpu_scaling_enabled": False, "library_build_type": "release"},
        "benchmarks": [
            *reps, run("BM_sum/8_mean", 51.0), run("BM_sum/8_median", 51.0),
            run("BM_sum/8_stddev", 1.0),
            {"name": "BM_sum_BigO", "cpu_coefficient": 6.3, "real_coefficient": 6.4,
             "big_o": "N", "time_unit": "ns"},
            {"name": "BM_sum_RMS", "rms": 0.02},
        ],
    }  # fmt: skip


def test_google_benchmark_before_1_5_leaves_out_aggregates_and_fits(tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    path.write_text(json.dumps(_gbench_1_4()))
    res = read(path)
    assert res.format == "gbench" and res.benchmarks == ["BM_sum/8"]
    assert res.values("BM_sum/8").tolist() == pytest.approx([50e-9, 52e-9, 51e-9])
    assert res.metadata["complexity"]["BM_sum"] == {
        "big_o": "N", "real_coefficient": 6.4, "cpu_coefficient": 6.3, "rms": 0.02}
    with pytest.raises(FormatError, match="'BM_sum/8' has aggregates only"):
        parse(_gbench_1_4(aggregates_only=True))


def test_pyperf_gzip_file_reads(tmp_path: Path) -> None:
    import pyperf

    out = tmp_path / "x.json.gz"
    run_tool([sys.executable, "-m", "pyperf", "timeit", "-p", "2", "-n", "3", "-l", "10", "-w", "1",
          "-q", "-o", str(out), "sum(range(50))"], tmp_path)  # fmt: skip
    assert out.read_bytes()[:2] == b"\x1f\x8b"
    res = read(out)
    (bench,) = pyperf.BenchmarkSuite.load(str(out)).get_benchmarks()
    assert res.format == "pyperf"
    assert res.values(bench.get_name()).tolist() == list(bench.get_values())
    cut = tmp_path / "cut.json.gz"
    cut.write_bytes(out.read_bytes()[:40])
    with pytest.raises(FormatError, match="damaged gzip file"):
        read(cut)


def _criterion_0_2(root: Path) -> Path:
    """criterion 0.2: ``<id>/new/sample.json`` as ``[[iters], [times]]``, no benchmark.json."""
    for ident, per_iter in (("sum/64", 42.0), ("sum/128", 80.0)):
        new = root / ident / "new"
        new.mkdir(parents=True)
        iters = [float(3 * k) for k in range(1, 11)]
        (new / "sample.json").write_text(json.dumps([iters, [n * per_iter for n in iters]]))
    return root


def test_criterion_0_2_sample_and_directory(tmp_path: Path) -> None:
    root = _criterion_0_2(tmp_path / "criterion")
    one = read(root / "sum" / "64" / "new" / "sample.json")
    assert one.format == "criterion" and one.benchmarks == ["64"]
    assert one.values("64").tolist() == pytest.approx([42e-9] * 10)
    tree = read(root)
    assert sorted(tree.benchmarks) == ["sum/128", "sum/64"]
    assert tree.values("sum/128").tolist() == pytest.approx([80e-9] * 10)


def test_directory_with_another_format_is_not_read_as_criterion(tmp_path: Path) -> None:
    root = _criterion_0_2(tmp_path / "criterion")
    with pytest.raises(FormatError, match="pyperf but is a directory"):
        read(root, format="pyperf")
    assert read(root, format="criterion").format == "criterion"


def test_asv_one_number_benchmarks_are_rows_and_the_suite_is_judged(
    asv_files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from perfstats.adapters import gate_files
    from perfstats.adapters.cli.main import main

    ones = ("bench.Suite.mem_list", "bench.Suite.peakmem_list", "bench.Suite.track_answer")
    result = gate_files(asv_files["samples"], asv_files["samples"], rng=0, n_resamples=200)
    for name in ones:
        row = result[name]
        assert row.verdict == "inconclusive", name
        assert (row.n_baseline, row.n_contender) == (1, 1) and row.ratio == 1.0
        assert "needs at least 2 runs a side" in row.reason
    for name in ("bench.Suite.time_sum", "bench.Param.time_sum(1)", "bench.Param.time_sum(2)"):
        assert result[name].verdict in ("equivalent", "inconclusive")
        assert math.isfinite(result[name].ci_low), name
    assert result["bench.Suite.time_broken"].verdict == "error" and result.exit_code() == 2
    # Without the failed benchmark the suite passes; --strict says the rows are undecided.
    doc = json.loads(asv_files["samples"].read_text())
    del doc["results"]["bench.Suite.time_broken"]
    ok = tmp_path / "ok.json"
    ok.write_text(json.dumps(doc))
    assert main(["gate", str(ok), str(ok), "--seed", "0", "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    assert all(any(line.startswith(name) and "inconclusive" in line for line in
                   out.splitlines()) for name in ones)  # fmt: skip
    assert main(["gate", str(ok), str(ok), "--seed", "0", "--resamples", "200",
                 "--strict"]) == 3  # fmt: skip
