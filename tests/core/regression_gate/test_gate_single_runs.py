"""Benchmarks of one run a side (one number per benchmark) in a suite the gate judges."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from perfstats import gate
from perfstats.regression_gate.render import gate_junit, gate_markdown, gate_table


def _suite() -> tuple[dict, dict]:
    rng = np.random.default_rng(3)
    base = {"slow": rng.lognormal(0, 0.01, 30), "same": rng.lognormal(1, 0.01, 30)}
    cont = {"slow": base["slow"] * 1.10, "same": rng.lognormal(1, 0.01, 30)}
    return base, cont


def test_one_value_benchmarks_are_inconclusive_rows_and_the_rest_is_judged() -> None:
    base, cont = _suite()
    alone = gate(base, cont, rng=0, n_resamples=500)
    base1 = {**base, "mem": [4096.0], "track": [40.0, 41.0, 42.0]}
    cont1 = {**cont, "mem": [8192.0], "track": [21.0]}
    res = gate(base1, cont1, rng=0, n_resamples=500)
    mem, track = res["mem"], res["track"]
    assert mem.verdict == track.verdict == "inconclusive"
    assert "1 run in the baseline and 1 run in the contender" in mem.reason
    assert track.reason.startswith("1 run in the contender;")
    assert "at least 2 runs a side" in mem.reason
    # The ratio of the statistics is what the data say; no interval or test.
    assert mem.ratio == 2.0 and track.ratio == pytest.approx(21.0 / 41.0)
    assert all(math.isnan(v) for v in (mem.ci_low, mem.ci_high, mem.p_value, mem.p_adjusted,
                                       mem.cliffs_delta))  # fmt: skip
    assert mem.runs_needed is None and (mem.n_baseline, mem.n_contender) == (1, 1)
    # The rest judged as without them: same verdicts, same adjusted p-values
    # (the rows are not in the adjustment) and the same geometric mean.
    for name in ("slow", "same"):
        assert res[name].verdict == alone[name].verdict
        assert res[name].p_adjusted == alone[name].p_adjusted
    assert res["slow"].verdict == "regression"
    assert (res.geomean, res.geomean_low, res.geomean_high) == (
        alone.geomean, alone.geomean_low, alone.geomean_high)  # fmt: skip
    assert res.counts["inconclusive"] == alone.counts["inconclusive"] + 2
    assert res.exit_code() == 1


def test_one_value_rows_in_every_output_and_strict() -> None:
    base, cont = _suite()
    cont = {**cont, "slow": base["slow"]}
    res = gate({**base, "mem": [10.0]}, {**cont, "mem": [10.0]}, rng=0, n_resamples=500)
    assert res["mem"].verdict == "inconclusive" and res.exit_code() == 0
    assert res.exit_code(strict=True) == 3
    data = json.loads(res.to_json())
    row = next(b for b in data["benchmarks"] if b["name"] == "mem")
    assert row["ratio"] == 1.0 and row["ci_low"] is None and row["runs_needed"] is None
    assert "needs at least 2 runs a side" in row["reason"]
    table = gate_table(res)
    assert any(line.startswith("mem ") and "n/a" in line and "inconclusive" in line
               for line in table.splitlines())  # fmt: skip
    assert "`mem`" in gate_markdown(res)
    junit = ET.fromstring(gate_junit(res))
    assert junit.attrib["skipped"] == "1" and junit.attrib["errors"] == "0"
    assert ET.fromstring(gate_junit(res, strict=True)).attrib["failures"] == "1"


def test_higher_is_better_one_value_row_keeps_its_direction() -> None:
    base, cont = _suite()
    res = gate({**base, "ops": [100.0]}, {**cont, "ops": [150.0]},
               directions={"ops": "higher"}, rng=0, n_resamples=200)  # fmt: skip
    assert res["ops"].direction == "higher" and res["ops"].verdict == "inconclusive"
    assert res["ops"].ratio == 1.5


def test_a_suite_with_nothing_to_judge_is_still_refused() -> None:
    with pytest.raises(ValueError, match=r"baseline\['a'\] has 1 run; .*no benchmark of the suite"):
        gate({"a": [1.0], "b": [2.0]}, {"a": [1.0, 1.1], "b": [2.0]})


def test_one_value_row_beside_an_error_row() -> None:
    res = gate({"mem": [10.0]}, {"mem": [12.0]}, errors={"t": "no successful run (3 failed)"})
    assert res["mem"].verdict == "inconclusive" and res["t"].verdict == "error"
    assert res.exit_code() == 2
