"""Importers of other tools' results: output of the real tools, made during the test run.

pyperf, pytest-benchmark and asv (PyPI), hyperfine, Google Benchmark and Go
(Debian: ``.ci/install-system.sh``) run here on tiny workloads; JMH and
criterion cannot (their dependencies live on Maven Central and crates.io),
so committed samples stand in (``samples/README.md`` states where each came
from).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from perfstats.adapters.records.importers import (
    FORMATS,
    FormatError,
    parse,
    read,
    sniff,
    to_bmf,
    to_pyperf,
    write,
)
from support.tools import asv_project, run_tool

from perfstats import gate

SAMPLES = Path(__file__).parent / "samples"


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Result files written by the real tools."""
    tmp = tmp_path_factory.mktemp("tools")
    out: dict[str, Path] = {}

    out["pyperf"] = tmp / "pyperf.json"
    run_tool([sys.executable, "-m", "pyperf", "timeit", "-p", "2", "-n", "3", "-l", "10", "-w", "1",
          "-q", "-o", str(out["pyperf"]), "sum(range(50))"], tmp)  # fmt: skip

    out["hyperfine"] = tmp / "hyperfine.json"
    run_tool(["hyperfine", "-N", "--runs", "5", "--warmup", "1", "--export-json",
          str(out["hyperfine"]), "true", "sleep 0.001"], tmp)  # fmt: skip

    src = tmp / "gb.cc"
    src.write_text(textwrap.dedent("""\
        #include <benchmark/benchmark.h>
        #include <vector>
        static void BM_sum(benchmark::State& state) {
          std::vector<int> v(state.range(0), 1);
          for (auto _ : state) { int s = 0; for (int x : v) s += x; benchmark::DoNotOptimize(s); }
        }
        BENCHMARK(BM_sum)->Arg(8)->Arg(64);
        BENCHMARK_MAIN();
        """))
    run_tool(["g++", "-O1", str(src), "-o", str(tmp / "gb"), "-lbenchmark", "-lpthread"], tmp)
    out["gbench"] = tmp / "gbench.json"
    run_tool([str(tmp / "gb"), "--benchmark_repetitions=4", "--benchmark_min_time=0.001",
          f"--benchmark_out={out['gbench']}", "--benchmark_out_format=json"], tmp)  # fmt: skip

    pt = tmp / "pt"
    pt.mkdir()
    (pt / "test_speed.py").write_text(textwrap.dedent("""\
        def test_join(benchmark):
            benchmark.pedantic(lambda: "-".join(["a"] * 100), rounds=7, iterations=5)

        def test_sum(benchmark):
            benchmark.pedantic(lambda: sum(range(100)), rounds=6, iterations=5)
        """))
    out["pytest-benchmark"] = tmp / "ptb.json"
    # Not an xdist worker, whatever runs this test: pytest-benchmark switches
    # itself off when it sees PYTEST_XDIST_WORKER and would write no JSON.
    inner = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST_")}
    run_tool([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(pt),
          "-c", os.devnull, f"--benchmark-json={out['pytest-benchmark']}",
          "--benchmark-save-data", str(pt / "test_speed.py")], pt, inner)  # fmt: skip

    repo = tmp / "asvrepo"
    head, env = asv_project(
        repo,
        textwrap.dedent("""\
        class Suite:
            params = [10, 100]
            param_names = ["n"]

            def time_sum(self, n):
                sum(range(n))


        def time_join():
            "-".join(["a"] * 50)
        """),
        tmp,
    )
    run_tool([sys.executable, "-m", "asv", "run", "--environment", f"existing:{sys.executable}",
          "--set-commit-hash", head, "--record-samples", "-a", "repeat=5", "-a", "number=10",
          "-a", "warmup_time=0"], repo, env)  # fmt: skip
    out["asv"] = next(p for p in (repo / "results").rglob("*.json")
                      if p.name not in ("machine.json", "benchmarks.json"))  # fmt: skip

    gob = tmp / "gob"
    gob.mkdir()
    (gob / "go.mod").write_text("module example.com/sumbench\n\ngo 1.19\n")
    (gob / "sum_test.go").write_text(textwrap.dedent("""\
        package sumbench

        import "testing"

        func BenchmarkSum(b *testing.B) {
        \tv := make([]int, 64)
        \tfor i := 0; i < b.N; i++ {
        \t\ts := 0
        \t\tfor _, x := range v {
        \t\t\ts += x
        \t\t}
        \t\t_ = s
        \t}
        }
        """))
    genv = {**os.environ, "GOCACHE": str(tmp / "gocache"), "GOPATH": str(tmp / "gopath"),
            "GOPROXY": "off", "GOFLAGS": "-mod=mod", "HOME": str(tmp)}  # fmt: skip
    res = subprocess.run(["go", "test", "-bench", ".", "-count", "4", "-benchmem",
                          "-benchtime", "2000x"], cwd=gob, capture_output=True, text=True,
                         env=genv, timeout=300)  # fmt: skip
    assert res.returncode == 0, res.stderr
    out["gotest"] = tmp / "go.txt"
    out["gotest"].write_text(res.stdout)
    return out


def test_every_tool_is_installed() -> None:
    # The real tools must be here: a missing one is an install error, not a skip.
    for tool in ("hyperfine", "g++", "go", "git"):
        assert shutil.which(tool), f"{tool} is not installed (see .ci/install-system.sh)"


def test_pyperf(made: dict[str, Path]) -> None:
    import pyperf

    res = read(made["pyperf"])
    assert res.format == "pyperf"
    ref = pyperf.BenchmarkSuite.load(str(made["pyperf"]))
    (bench,) = ref.get_benchmarks()
    assert res.benchmarks == [bench.get_name()]
    np.testing.assert_array_equal(res.values(bench.get_name()), bench.get_values())
    assert res.unit(bench.get_name()) == "s"
    with_values = [r for r in bench.get_runs() if r.values]
    assert res.frame["process"].nunique() == len(with_values) == 2
    assert "python_version" in res.metadata or "python_implementation" in res.metadata


def test_pyperf_export_is_read_by_pyperf(made: dict[str, Path], tmp_path: Path) -> None:
    import pyperf

    res = read(made["hyperfine"])
    out = tmp_path / "back.json"
    write(res, out, format="pyperf")
    suite = pyperf.BenchmarkSuite.load(str(out))
    assert sorted(suite.get_benchmark_names()) == sorted(res.benchmarks)
    for b in suite.get_benchmarks():
        np.testing.assert_allclose(b.get_values(), res.values(b.get_name()), rtol=0)
        assert b.get_unit() == "second"
    # And pyperf's own file survives the round trip through us.
    again = tmp_path / "again.json"
    write(read(made["pyperf"]), again, format="pyperf")
    (orig,) = pyperf.BenchmarkSuite.load(str(made["pyperf"])).get_benchmarks()
    (copy,) = pyperf.BenchmarkSuite.load(str(again)).get_benchmarks()
    assert copy.get_values() == orig.get_values()
    assert copy.get_nrun() == len(read(made["pyperf"]).frame["process"].unique())


def test_hyperfine(made: dict[str, Path]) -> None:
    res = read(made["hyperfine"])
    raw = json.loads(made["hyperfine"].read_text())
    assert res.format == "hyperfine"
    assert res.benchmarks == ["true", "sleep 0.001"]
    for r in raw["results"]:
        np.testing.assert_array_equal(res.values(r["command"]), r["times"])
        assert res.benchmark_metadata[r["command"]]["mean"] == r["mean"]
    assert set(res.frame["exit_code"]) == {0}


def test_google_benchmark(made: dict[str, Path]) -> None:
    res = read(made["gbench"])
    raw = json.loads(made["gbench"].read_text())
    assert res.format == "gbench"
    assert res.benchmarks == ["BM_sum/8", "BM_sum/64"]
    iters = [b for b in raw["benchmarks"] if b["run_type"] == "iteration" and
             b["run_name"] == "BM_sum/64"]  # fmt: skip
    assert len(iters) == 4 and len(res.values("BM_sum/64")) == 4
    np.testing.assert_allclose(res.values("BM_sum/64"), [b["real_time"] * 1e-9 for b in iters])
    cpu = parse(made["gbench"].read_bytes(), metric="cpu_time")
    np.testing.assert_allclose(cpu.values("BM_sum/64"), [b["cpu_time"] * 1e-9 for b in iters])
    assert res.metadata["num_cpus"] == raw["context"]["num_cpus"]


def test_pytest_benchmark(made: dict[str, Path]) -> None:
    res = read(made["pytest-benchmark"])
    raw = json.loads(made["pytest-benchmark"].read_text())
    assert res.format == "pytest-benchmark"
    assert len(res.benchmarks) == 2
    for b in raw["benchmarks"]:
        np.testing.assert_array_equal(res.values(b["fullname"]), b["stats"]["data"])
    assert [len(res.values(n)) for n in res.benchmarks] == [7, 6]
    # Without --benchmark-save-data the file has summaries only.
    for b in raw["benchmarks"]:
        del b["stats"]["data"]
    with pytest.raises(FormatError, match=r"pytest-benchmark.*--benchmark-save-data"):
        parse(raw)


def test_asv(made: dict[str, Path]) -> None:
    res = read(made["asv"])
    raw = json.loads(made["asv"].read_text())
    assert res.format == "asv"
    assert sorted(res.benchmarks) == ["bench.Suite.time_sum(10)", "bench.Suite.time_sum(100)",
                                      "bench.time_join"]  # fmt: skip
    col = raw["result_columns"].index("samples")
    np.testing.assert_array_equal(res.values("bench.Suite.time_sum(100)"),
                                  raw["results"]["bench.Suite.time_sum"][col][1])  # fmt: skip
    assert res.metadata["commit_hash"] == raw["commit_hash"]
    assert set(res.frame["unit"]) == {"s"}


def test_go_test_bench(made: dict[str, Path]) -> None:
    res = read(made["gotest"])
    assert res.format == "gotest"
    assert res.benchmarks == ["Sum-" + res.benchmarks[0].split("-")[1]]
    assert len(res.values(res.benchmarks[0])) == 4
    assert res.metadata["pkg"] == "example.com/sumbench"
    allocs = parse(made["gotest"].read_text(), metric="allocs/op")
    assert set(allocs.frame["value"]) == {0.0}


def test_go_sample_and_metrics() -> None:
    text = (SAMPLES / "gotest_bench.txt").read_text()
    res = parse(text)
    assert res.benchmarks == ["Sum-2", "Join-2"]
    np.testing.assert_allclose(res.values("Join-2"), [52.28e-9, 34.80e-9, 50.81e-9])
    assert res.metadata["cpu"] == "Intel(R) Xeon(R) Processor"
    np.testing.assert_array_equal(parse(text, metric="B/op").values("Join-2"), [8, 8, 8])
    with pytest.raises(FormatError, match=r"no 'MB/s' values; it has \["):
        parse(text, metric="MB/s")
    cut = text.replace("        50.81 ns/op	       8 B/op	       1 allocs/op", "")
    with pytest.raises(FormatError, match=r"go test -bench but line \d+ is a cut-off result line"):
        parse(cut)


def test_jmh_sample() -> None:
    res = read(SAMPLES / "jmh.json")
    assert res.format == "jmh"
    assert res.benchmarks == ["org.example.SumBench.sum(size=64)",
                              "org.example.SumBench.sumThroughput"]  # fmt: skip
    np.testing.assert_allclose(res.values("org.example.SumBench.sum(size=64)"),
                               np.array([20.412, 20.981, 21.14, 21.873, 21.001, 21.118]) * 1e-9)
    assert list(res.frame["fork"][:6]) == [0, 0, 0, 1, 1, 1]
    assert res.unit("org.example.SumBench.sumThroughput") == "ops/us"
    raw = json.loads((SAMPLES / "jmh.json").read_text())
    raw[0]["primaryMetric"]["rawDataHistogram"] = raw[0]["primaryMetric"].pop("rawData")
    with pytest.raises(FormatError, match=r"JMH but .*rawDataHistogram"):
        parse(raw)


def test_criterion_sample_and_directory() -> None:
    one = read(SAMPLES / "criterion" / "sum" / "64" / "new" / "sample.json")
    assert one.format == "criterion" and one.benchmarks == ["sum/64"]
    np.testing.assert_allclose(one.values("sum/64"), [42e-9, 41e-9, 41.333e-9, 41e-9, 41.2e-9],
                               rtol=1e-4)  # fmt: skip
    tree = read(SAMPLES / "criterion")
    assert tree.benchmarks == ["sum/64"]


@pytest.mark.parametrize("fmt", ["pyperf", "hyperfine", "gbench", "pytest-benchmark", "asv",
                                 "gotest"])  # fmt: skip
def test_truncated_files_name_the_format(made: dict[str, Path], fmt: str) -> None:
    data = made[fmt].read_bytes()
    assert sniff(data) == fmt
    cut = data[: len(data) // 2]
    if fmt == "gotest":
        # Half a text file still parses up to its last whole line, or names the cut line.
        try:
            assert len(parse(cut).frame) < len(parse(data).frame)
        except FormatError as exc:
            assert "cut-off" in str(exc)
        return
    with pytest.raises(FormatError, match=r"looks like .* but is not valid JSON \(cut off"):
        parse(cut, source="x.json")


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"", "is empty"),
        (b"   \n", "is empty"),
        (b"hello world\n", "neither JSON nor go test -bench"),
        (b'{"foo": 1}', "no known benchmark format"),
        (b"[1, 2]", "no known benchmark format"),
        (b"\xff\xfe\x00", "not UTF-8"),
        (b'{"results": [{"command": "x"}]}', "hyperfine but results\\[0\\] has no 'times'"),
        (b'{"iters": [1, 2], "times": [1.0]}', "criterion but has 2 iteration counts but 1"),
        (b'{"results": [{"command": "x", "times": [1.0, NaN]}]}', "non-finite"),
    ],
)
def test_bad_files_are_named(data: bytes, match: str) -> None:
    with pytest.raises(FormatError, match=match):
        parse(data)


def test_explicit_format_and_unknown_format() -> None:
    with pytest.raises(ValueError, match="format must be one of"):
        parse(b"{}", format="csv")
    with pytest.raises(FormatError, match="pyperf but lacks the fields"):
        parse((SAMPLES / "jmh.json").read_bytes(), format="pyperf")
    assert set(FORMATS) == {"pyperf", "hyperfine", "gbench", "pytest-benchmark", "asv", "jmh",
                            "criterion", "gotest"}  # fmt: skip


def test_bmf_export(made: dict[str, Path], tmp_path: Path) -> None:
    res = read(made["hyperfine"])
    doc = to_bmf(res)
    times = res.values("true")
    assert doc["true"]["latency"] == {
        "value": pytest.approx(np.median(times) * 1e9),
        "lower_value": pytest.approx(times.min() * 1e9),
        "upper_value": pytest.approx(times.max() * 1e9),
    }
    write(read(SAMPLES / "jmh.json"), tmp_path / "b.json", format="bmf")
    back = json.loads((tmp_path / "b.json").read_text())
    assert "ops_per_us" in back["org.example.SumBench.sumThroughput"]
    with pytest.raises(ValueError, match="pyperf has no unit for 'ops/us'"):
        write(read(SAMPLES / "jmh.json"), tmp_path / "p.json", format="pyperf")


@pytest.mark.parametrize("export", [to_bmf, to_pyperf])
def test_exports_refuse_a_benchmark_in_two_units(export: Any) -> None:
    mixed = pd.DataFrame({"benchmark": ["a", "a"], "value": [1.0, 1.1], "unit": ["ms", "s"]})
    with pytest.raises(ValueError, match=r"benchmark 'a' mixes units \['ms', 's'\]"):
        export(mixed)


def test_importer_output_feeds_the_gate(made: dict[str, Path]) -> None:
    # Two Google Benchmark runs of the same binary: an A/A comparison.
    res = read(made["gbench"])
    verdict = gate(res.frame, res.frame, rng=0, n_resamples=500)
    assert {b.unit for b in verdict.benchmarks} == {"s"}
    assert verdict.counts["regression"] == 0
