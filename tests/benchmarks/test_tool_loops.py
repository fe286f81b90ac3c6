"""benchmarks/tool_loops.py, quickly: a Google Benchmark suite under the per-benchmark loop."""

from __future__ import annotations

from pathlib import Path

from perfstats.adapters.targets import GoogleBenchmark
from support.tool_suites import build_gbench

from benchmarks.tool_loops import overhead, stop_loop
from perfstats.rules import SuperFlow


def test_each_benchmark_stops_on_its_own_and_later_rounds_run_fewer(tmp_path: Path) -> None:
    binary = build_gbench(tmp_path / "gbench")
    target = GoogleBenchmark([str(binary), "--benchmark_min_time=0.01"], metric="cpu_time")
    with target:
        out = stop_loop(target, lambda: SuperFlow(error=0.10), max_rounds=60)
    assert [s.name for s in out.series] == ["BM_quiet", "BM_medium", "BM_noisy"]
    assert out.failed_rounds == 0
    # Every benchmark has ended, by its rule or at the cap, and took one value a round
    # until then: the executions are its values, the baseline every round times three.
    assert all(s.by in ("rule", "cap") for s in out.series)
    assert out.executions == sum(s.runs for s in out.series)
    assert out.every_until_last == 3 * out.rounds
    assert max(s.runs for s in out.series) == out.rounds
    assert 0.0 <= out.saving == 1 - out.executions / out.every_until_last


def test_the_overhead_of_a_fifty_benchmark_round_is_measured(tmp_path: Path) -> None:
    cost = overhead("gbench", tmp_path, 3, lambda: SuperFlow(error=0.05))
    assert cost.benchmarks == 50 and cost.rounds == 3
    assert cost.process_ms > 0 and cost.target_ms > 0 and cost.monitors_ms > 0
    assert cost.empty_ms > 0
    # Loose: a loaded machine may stretch it, but not to a second tool process.
    assert cost.total_ms < cost.process_ms + 50
