"""JMH's failed forks, detected from what its JSON keeps, and the gate's verdicts on them.

JMH cannot run here (Maven Central is out of reach): the committed JMH
sample (``samples/README.md``) stands in, with forks taken out or cut short
as JMH leaves them when a fork fails (it writes the forks that finished).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from perfstats.adapters import gate_files
from perfstats.adapters.records.importers import FormatError, parse

SAMPLES = Path(__file__).parent / "samples"
AVGT = "org.example.SumBench.sum(size=64)"
THRPT = "org.example.SumBench.sumThroughput"


def _sample() -> list[dict]:
    return json.loads((SAMPLES / "jmh.json").read_text())


def _entry(doc: list[dict], name: str) -> dict:
    return next(b for b in doc if b["benchmark"] in name and b["mode"] in ("avgt", "thrpt")
                and (b["mode"] == "avgt") == (name == AVGT))  # fmt: skip


def test_a_missing_fork_is_counted_and_the_rest_read() -> None:
    doc = _sample()
    entry = _entry(doc, AVGT)
    assert entry["forks"] == 2 and len(entry["primaryMetric"]["rawData"]) == 2
    kept = entry["primaryMetric"]["rawData"][1]
    entry["primaryMetric"]["rawData"] = [kept]
    res = parse(doc)
    assert res.failed == {AVGT: 1}
    assert res.values(AVGT).tolist() == pytest.approx([v * 1e-9 for v in kept])
    assert AVGT not in res.unrun


def test_a_fork_cut_short_is_failed_and_its_values_left_out() -> None:
    doc = _sample()
    entry = _entry(doc, AVGT)
    first, second = entry["primaryMetric"]["rawData"]
    entry["primaryMetric"]["rawData"] = [first[:1], second]
    res = parse(doc)
    assert res.failed == {AVGT: 1} and len(res.values(AVGT)) == len(second)


def test_a_benchmark_without_a_whole_fork_is_an_error_in_the_gate(tmp_path: Path) -> None:
    base = tmp_path / "base.json"
    base.write_text(json.dumps(_sample()))
    doc = _sample()
    _entry(doc, AVGT)["primaryMetric"]["rawData"] = []
    with pytest.raises(FormatError, match=r"has no successful run \(2 failed\)"):
        parse(doc)
    cont = tmp_path / "cont.json"
    cont.write_text(json.dumps(doc))
    result = gate_files(base, cont, rng=0, n_resamples=200, min_equivalent_runs=2)
    assert result[AVGT].verdict == "error" and "no successful run in the contender" in \
        result[AVGT].reason  # fmt: skip
    assert result.exit_code() == 2


def test_a_benchmark_jmh_left_out_is_on_one_side_only(tmp_path: Path) -> None:
    base = tmp_path / "base.json"
    base.write_text(json.dumps(_sample()))
    doc = [b for b in _sample() if b["mode"] != "avgt"]
    cont = tmp_path / "cont.json"
    cont.write_text(json.dumps(doc))
    result = gate_files(base, cont, rng=0, n_resamples=200, min_equivalent_runs=2)
    assert result.unmatched_baseline == (AVGT,)
    assert [b.name for b in result.benchmarks] == [THRPT]


def test_declared_counts_are_checked() -> None:
    doc = copy.deepcopy(_sample())
    doc[0]["forks"] = "two"
    with pytest.raises(FormatError, match=r"\[0\]\.forks is 'two', not a count"):
        parse(doc)
