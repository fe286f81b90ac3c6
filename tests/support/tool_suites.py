"""Benchmark suites of the real tools (Google Benchmark, go test, pyperf, criterion), built here.

Each suite has benchmarks of clearly different noise: the work of a
benchmark is scaled by a factor each process draws once (quiet: none,
medium: 15%, noisy: 35% standard deviation), so the spread from round to
round differs by construction and a round is the unit of variation, as
with a real benchmark whose process lands in a different memory layout
each time. Each benchmark also reports that drawn work (a counter of
Google Benchmark, a metric of go), which a loaded machine leaves alone
(criterion.rs has no counters: its suite's series are times).
Faults are switched on between rounds by files in a flag folder (an
environment variable names it), so one target sees a benchmark crash,
hang, fail or disappear in a later round than the first.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from support.cli import rows, wait_for

GBENCH_NOISE = r"""
#include <benchmark/benchmark.h>
#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <unistd.h>

static bool flag(const char* name) {
  const char* dir = std::getenv("TOOL_FLAGS");
  return dir && access((std::string(dir) + "/" + name).c_str(), F_OK) == 0;
}

// The factor this process draws for a benchmark: its round-to-round spread.
static double factor(double spread) {
  static std::mt19937_64 gen(std::random_device{}());
  std::normal_distribution<double> d(1.0, spread);
  double f = d(gen);
  return f < 0.3 ? 0.3 : f;
}

static void work(benchmark::State& s, double spread) {
  const long n = static_cast<long>(3000 * factor(spread));
  for (auto _ : s) {
    long acc = 0;
    for (long i = 0; i < n; ++i) benchmark::DoNotOptimize(acc += i);
  }
  // The additions per iteration: the drawn work, which no machine load changes.
  s.counters["work"] = static_cast<double>(n);
}

static void BM_quiet(benchmark::State& s) { work(s, 0.0); }
static void BM_medium(benchmark::State& s) { work(s, 0.15); }
static void BM_noisy(benchmark::State& s) { work(s, 0.35); }
static void BM_crash(benchmark::State& s) {
  if (flag("crash")) std::abort();
  work(s, 0.0);
}
static void BM_hang(benchmark::State& s) {
  if (flag("hang")) std::this_thread::sleep_for(std::chrono::seconds(60));
  work(s, 0.0);
}
static void BM_skip(benchmark::State& s) {
  if (flag("skip")) {
    s.SkipWithError("no input file");
    return;
  }
  work(s, 0.0);
}
static void BM_flaky(benchmark::State& s) { work(s, 0.0); }

int main(int argc, char** argv) {
  benchmark::RegisterBenchmark("BM_quiet", BM_quiet);
  benchmark::RegisterBenchmark("BM_medium", BM_medium);
  benchmark::RegisterBenchmark("BM_noisy", BM_noisy);
  if (std::getenv("TOOL_FAULTS")) {
    benchmark::RegisterBenchmark("BM_crash", BM_crash);
    benchmark::RegisterBenchmark("BM_hang", BM_hang);
    benchmark::RegisterBenchmark("BM_skip", BM_skip);
    if (!flag("vanish")) benchmark::RegisterBenchmark("BM_flaky", BM_flaky);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
"""

GBENCH_WIDE = r"""
#include <benchmark/benchmark.h>

// Fifty benchmarks that each do almost nothing: a round costs the process.
static void BM_tiny(benchmark::State& s) {
  for (auto _ : s) benchmark::DoNotOptimize(s.range(0));
}
BENCHMARK(BM_tiny)->DenseRange(1, 50);
BENCHMARK_MAIN();
"""

#: Options that keep a Google Benchmark round short.
GBENCH_QUICK = ["--benchmark_min_time=0.002"]


def build_gbench(folder: Path, source: str = GBENCH_NOISE, name: str = "suite") -> Path:
    """Compile ``source`` against the installed Google Benchmark; the binary's path."""
    folder.mkdir(parents=True, exist_ok=True)
    src = folder / f"{name}.cc"
    src.write_text(source)
    binary = folder / name
    _run(["g++", "-O1", str(src), "-o", str(binary), "-lbenchmark", "-lpthread"], folder)
    return binary


def set_flag(flags: Path, name: str, on: bool = True) -> None:
    """Switch a fault of the suites on (a file in the flag folder) or off."""
    flags.mkdir(parents=True, exist_ok=True)
    path = flags / name
    if on:
        path.write_text("")
    elif path.exists():
        path.unlink()


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    res = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, timeout=600)
    assert res.returncode == 0, f"{cmd[0]} failed:\n{res.stdout[-2000:]}\n{res.stderr[-2000:]}"
    return res.stdout


GO_NOISE = """package suite

import (
\t"math/rand"
\t"os"
\t"path/filepath"
\t"testing"
\t"time"
)

func flag(name string) bool {
\tdir := os.Getenv("TOOL_FLAGS")
\tif dir == "" {
\t\treturn false
\t}
\t_, err := os.Stat(filepath.Join(dir, name))
\treturn err == nil
}

// The factor this process draws for a benchmark: its round-to-round spread.
var gen = rand.New(rand.NewSource(time.Now().UnixNano() + int64(os.Getpid())))

func work(b *testing.B, spread float64) {
\tf := 1 + gen.NormFloat64()*spread
\tif f < 0.3 {
\t\tf = 0.3
\t}
\tn := int(3000 * f)
\tb.ResetTimer()
\tacc := 0
\tfor i := 0; i < b.N; i++ {
\t\tfor j := 0; j < n; j++ {
\t\t\tacc += j
\t\t}
\t}
\tsink = acc
\t// The additions per op: the drawn work, which no machine load changes.
\tb.ReportMetric(float64(n), "work/op")
}

var sink int

// Kept in a package variable so that each buffer escapes to the heap.
var keep []byte

func BenchmarkQuiet(b *testing.B)  { work(b, 0) }
func BenchmarkMedium(b *testing.B) { work(b, 0.15) }
func BenchmarkNoisy(b *testing.B)  { work(b, 0.35) }

func BenchmarkAlloc(b *testing.B) {
\tb.SetBytes(256)
\tfor i := 0; i < b.N; i++ {
\t\tkeep = make([]byte, 256)
\t}
\tb.ReportMetric(2.5, "widgets/op")
}

func BenchmarkSizes(b *testing.B) {
\tfor _, name := range []string{"n-10", "n-100"} {
\t\tb.Run(name, func(b *testing.B) {
\t\t\tif flag("crash") && name == "n-100" {
\t\t\t\tpanic("boom")
\t\t\t}
\t\t\tif flag("hang") && name == "n-100" {
\t\t\t\t// Says it hangs, so a test can signal it then and not after a guess.
\t\t\t\t_ = os.WriteFile(filepath.Join(os.Getenv("TOOL_FLAGS"), "hanging"), nil, 0o644)
\t\t\t\ttime.Sleep(60 * time.Second)
\t\t\t}
\t\t\twork(b, 0)
\t\t})
\t}
}

func BenchmarkFlaky(b *testing.B) {
\tif flag("vanish") {
\t\tb.Skip("switched off")
\t}
\twork(b, 0)
}
"""

GO_WIDE_HEAD = 'package wide\n\nimport "testing"\n\nvar sink int\n'


def go_wide_source(n: int = 50) -> str:
    """A Go test file of ``n`` benchmarks that each do almost nothing."""
    one = "func BenchmarkTiny{i:02d}(b *testing.B) {{ for i := 0; i < b.N; i++ {{ sink += i }} }}\n"
    return GO_WIDE_HEAD + "".join(one.format(i=i) for i in range(1, n + 1))


def go_env(tmp: Path) -> dict[str, str]:
    """An environment for ``go`` that needs no network and writes only under ``tmp``."""
    return {
        "GOFLAGS": "-mod=mod",
        "GOCACHE": str(tmp / "gocache"),
        "GOPATH": str(tmp / "gopath"),
        "GOPROXY": "off",
        "GOTOOLCHAIN": "local",
        "HOME": str(tmp),
    }


def go_module(folder: Path, packages: dict[str, str]) -> Path:
    """A Go module in ``folder`` with one test file per package (``{"suite": source}``)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "go.mod").write_text("module example.com/bench\n\ngo 1.19\n")
    for name, source in packages.items():
        (folder / name).mkdir(exist_ok=True)
        (folder / name / f"{name}_test.go").write_text(source)
    return folder


PYPERF_NOISE = '''"""A pyperf script of benchmarks of clearly different noise."""

import os
import random
import time

import pyperf


def flag(name):
    folder = os.environ.get("TOOL_FLAGS")
    return bool(folder) and os.path.exists(os.path.join(folder, name))


def work(loops, spread):
    # The factor this process draws: the round-to-round spread.
    n = max(30, int(300 * random.gauss(1.0, spread)))
    t0 = time.perf_counter()
    for _ in range(loops):
        sum(range(n))
    return time.perf_counter() - t0


def crash(loops):
    if flag("crash"):
        os.abort()
    if flag("hang"):
        time.sleep(60)
    return work(loops, 0.0)


runner = pyperf.Runner()
runner.bench_time_func("quiet", work, 0.0)
runner.bench_time_func("medium", work, 0.15)
runner.bench_time_func("noisy", work, 0.35)
if os.environ.get("TOOL_FAULTS"):
    runner.bench_time_func("crash", crash)
    if not flag("vanish"):
        runner.bench_time_func("flaky", work, 0.0)
'''


#: Options that keep a pyperf worker short.
PYPERF_QUICK = ["--min-time=0.002"]


def pyperf_script(folder: Path, source: str = PYPERF_NOISE, name: str = "bench.py") -> Path:
    """A pyperf Runner script in ``folder``; its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(source)
    return path


def stand_in(folder: Path, name: str, body: str) -> Path:
    """An executable shell script standing in for a tool binary (a fault to reproduce)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\n" + body)
    os.chmod(path, 0o755)
    return path


CRITERION_NOISE = r"""
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

fn flag(name: &str) -> bool {
    match std::env::var_os("TOOL_FLAGS") {
        Some(dir) => Path::new(&dir).join(name).exists(),
        None => false,
    }
}

// xorshift64 and Box-Muller: the suite needs no crate beyond criterion.
fn uniform(state: &mut u64) -> f64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    (*state >> 11) as f64 / (1u64 << 53) as f64
}

// The factor this process draws for a benchmark: its round-to-round spread.
fn factor(state: &mut u64, spread: f64) -> f64 {
    let u1 = uniform(state).max(1e-12);
    let u2 = uniform(state);
    let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
    (1.0 + spread * z).max(0.3)
}

fn sum(n: u64) -> u64 {
    let mut acc = 0u64;
    for i in 0..n {
        acc = acc.wrapping_add(black_box(i));
    }
    acc
}

fn work(c: &mut Criterion, name: &str, spread: f64, state: &mut u64) {
    let n = (3000.0 * factor(state, spread)) as u64;
    c.bench_function(name, |b| b.iter(|| sum(black_box(n))));
}

fn suite(c: &mut Criterion) {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos() as u64;
    let mut state = (nanos ^ ((std::process::id() as u64) << 32)) | 1;
    work(c, "quiet", 0.0, &mut state);
    work(c, "medium", 0.15, &mut state);
    work(c, "noisy", 0.35, &mut state);
    let mut sizes = c.benchmark_group("sizes");
    for n in [10u64, 100] {
        sizes.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            if flag("crash") && n == 100 {
                panic!("boom");
            }
            if flag("hang") && n == 100 {
                // Says it hangs, so a test can signal it then and not after a guess.
                let _ = std::fs::write(Path::new(&std::env::var_os("TOOL_FLAGS").unwrap())
                                       .join("hanging"), b"");
                std::thread::sleep(Duration::from_secs(60));
            }
            b.iter(|| sum(black_box(n * 30)))
        });
    }
    sizes.finish();
    if !flag("vanish") {
        work(c, "flaky", 0.0, &mut state);
    }
}

fn quick() -> Criterion {
    // criterion 0.3 reads whole seconds from its command line: short times
    // are the bench's own configuration, as a project sets them.
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(20))
        .measurement_time(Duration::from_millis(60))
        .without_plots()
}

criterion_group! {
    name = benches;
    config = quick();
    targets = suite
}
criterion_main!(benches);
"""

#: The benchmarks of CRITERION_NOISE, in the order criterion runs them.
CRITERION_BENCHMARKS = ["quiet", "medium", "noisy", "sizes/10", "sizes/100", "flaky"]

#: Options that keep a criterion round short (its analysis resamples 100000 times by default).
CRITERION_QUICK = ["--nresamples", "1000"]

# Builds offline from the crates Debian packages as source (librust-criterion-dev).
CARGO_OFFLINE = """[source.crates-io]
replace-with = "debian"

[source.debian]
directory = "/usr/share/cargo/registry"

[net]
offline = true
"""


def cargo_command() -> str:
    """The cargo command: on PATH, or rustup's under ``~/.cargo/bin``."""
    found = shutil.which("cargo") or str(Path.home() / ".cargo" / "bin" / "cargo")
    if not os.access(found, os.X_OK):
        raise RuntimeError("no cargo command (PATH, ~/.cargo/bin); install Rust's toolchain")
    return found


def criterion_crate(folder: Path, bench: str = CRITERION_NOISE, name: str = "suite") -> Path:
    """A cargo project in ``folder`` with ``bench`` as its criterion bench ``name``; its folder."""
    (folder / "benches").mkdir(parents=True, exist_ok=True)
    (folder / "src").mkdir(exist_ok=True)
    (folder / "Cargo.toml").write_text(
        f'[package]\nname = "{name}"\nversion = "0.1.0"\nedition = "2021"\n\n'
        # No bench of the library: cargo bench then builds the criterion bench only.
        '[lib]\nbench = false\n\n[dev-dependencies]\ncriterion = "0.3"\n\n'
        f'[[bench]]\nname = "{name}"\nharness = false\n'
    )
    (folder / "src" / "lib.rs").write_text("")
    (folder / "benches" / f"{name}.rs").write_text(bench)
    (folder / ".cargo").mkdir(exist_ok=True)
    (folder / ".cargo" / "config.toml").write_text(CARGO_OFFLINE)
    return folder


def child_process(matches: Callable[[list[bytes]], bool]) -> int | None:
    """The pid of a child of this process whose command line ``matches``, or None."""
    me = os.getpid()
    for entry in os.listdir("/proc"):
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if int(stat.rpartition(")")[2].split()[1]) == me and matches(cmd):
            return int(entry)
    return None


def wait_for_pid(found: Callable[[], int | None], what: str, timeout: float = 240) -> int:
    """Poll ``found`` until it gives a pid; fail naming ``what`` after ``timeout``."""
    pid: int | None = None

    def seen() -> bool:
        nonlocal pid
        pid = found()
        return pid is not None

    wait_for(seen, timeout, what)
    assert pid is not None
    return pid


def hanging_child(flags: Path, matches: Callable[[list[bytes]], bool]) -> Callable[[], int | None]:
    """The child that ``matches``, once a suite's hang has said so in ``flags``."""
    return lambda: child_process(matches) if (flags / "hanging").exists() else None


def interrupted_round(target: Any, pid_of: Callable[[], int], join: float = 300) -> Any:
    """One round of ``target`` on a thread, SIGINT to the process ``pid_of`` names; its result.

    The round's own timeout only bounds a test gone wrong: the signal is
    what must end the round.
    """
    result: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: result.setdefault("m", target.invoke()))
    worker.start()
    os.kill(pid_of(), signal.SIGINT)
    worker.join(join)
    return result["m"]


def round_of_some(target: Any, flags: Path, crashing: str, some: Sequence[str]) -> Any:
    """A round of the series ``some`` after the suite's "crash" flag is set.

    With the flag, ``crashing`` aborts its process whenever it runs: the
    round of the whole suite fails in it, and the round of ``some`` (which
    leaves it out) succeeds only if it never starts it.
    """
    assert target.invoke().ok
    set_flag(flags, "crash")
    assert target.invoke().extra["benchmark"] == crashing
    m = target.invoke_only(frozenset(some))
    assert m.ok, m.error
    assert list(m.series) == list(some)
    assert all(s.ok for s in m.series.values())
    return m


def round_without(target: Any, flags: Path, kept: str, gone: str) -> Any:
    """The series ``gone`` of a round after the suite's "vanish" flag is set.

    The first round has ``gone``; in the second, ``kept`` still has its value.
    """
    assert target.invoke().series[gone].ok
    set_flag(flags, "vanish")
    m = target.invoke()
    assert m.ok and m.series[kept].ok
    assert m.series[gone].value is None
    return m.series[gone]


def every_series_stopped_by_rule(folder: Path, series: Any) -> tuple[Any, dict[str, Any]]:
    """Check ``folder/run.csv`` of a ``perfstats run``: each of ``series`` stopped by its rule.

    Every series has ok rows, the run has as many rounds as its longest
    series, and each series' last decision stopped without a cap. Returns
    the ok rows per series and the last session's decisions, for more checks.
    """
    counts = pd.read_csv(folder / "run.csv.series.csv").query("status == 'ok'")
    per_series = counts.groupby("series").size()
    assert set(per_series.index) == set(series)
    assert rows(folder / "run.csv") == per_series.max()
    meta = json.loads((folder / "run.csv.meta.json").read_text())
    decisions = meta["sessions"][-1]["series"]
    assert all(decisions[b]["decision"]["stop"] for b in series), decisions
    assert not any(decisions[b].get("capped") for b in series), decisions
    return per_series, decisions
