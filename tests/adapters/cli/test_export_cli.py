"""``perfstats export --format pyperf``, read back by the real pyperf.

Records written for real (a pytest benchmark's calls through
``time_calls``, a suite of named series through the driver) are exported
by the ``perfstats`` command in a child process; ``python -m pyperf show``,
``stats`` and ``compare_to`` read the files, and what they print agrees
with the record's own judged values. Bad input is refused with exit
status 2 and one line naming the problem, and the record is never
overwritten.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyperf
import pytest
from perfstats.adapters import Measurement, Target, run
from perfstats.adapters.cli import main
from perfstats.adapters.cli.pytest_calls import time_calls
from perfstats.adapters.records import read_record
from perfstats.adapters.records.measurement import utc_now
from perfstats.adapters.records.series import SeriesValue
from perfstats.adapters.records.series_table import read_series, series_values
from support.cli import perfstats
from support.series_suite import Suite

from perfstats.rules import Fixed

SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def _pyperf(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "pyperf", *args], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _close(shown: str, expected: float) -> None:
    """``shown``, a pyperf time (``1.03 ms``, ``980 us``), is ``expected`` seconds rounded."""
    number, unit = shown.split()
    decimals = len(number.partition(".")[2])
    # Half a unit of the last digit printed, and a hair for the float.
    step = 10.0**-decimals * SECONDS[unit]
    assert abs(float(number) * SECONDS[unit] - expected) <= 0.5 * step * (1 + 1e-9), (
        shown, expected,
    )  # fmt: skip


def _export(record: Path, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = perfstats(["export", str(record), "-o", str(out), *args], record.parent, timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def _nap(seconds: float) -> None:
    time.sleep(seconds)


def _nap_record(folder: Path, name: str, seconds: float) -> Path:
    path = folder / f"{name}.csv"
    time_calls(_nap, (seconds,), rule=Fixed(n=12), name="t.py::test_nap", warmup=3, record=path)
    return path


def test_a_pytest_record_is_read_by_pyperf_show_stats_and_compare_to(tmp_path: Path) -> None:
    base = _nap_record(tmp_path, "base", 0.001)
    # Far apart: a nap on a loaded machine may wake up late now and then.
    slow = _nap_record(tmp_path, "slow", 0.02)
    rows = read_record(base)
    judged = rows[rows["phase"] == "measure"]["value"].to_numpy() * 1e-9
    warm = rows[rows["phase"] == "warmup"]["value"].to_numpy() * 1e-9
    done = _export(base, tmp_path / "base.json")
    assert "t.py::test_nap  12 value(s) in 1 run(s) (second), 3 warm-up(s)" in done.stdout
    _export(slow, tmp_path / "slow.json")
    # pyperf's own reader: one benchmark, the calls of one process as one run, in seconds.
    (bench,) = pyperf.BenchmarkSuite.load(str(tmp_path / "base.json")).get_benchmarks()
    assert bench.get_name() == "t.py::test_nap" and bench.get_unit() == "second"
    assert bench.get_nrun() == 1
    np.testing.assert_allclose(bench.get_values(), judged, rtol=1e-12)
    np.testing.assert_allclose([v for _, v in bench.get_runs()[0].warmups], warm, rtol=1e-12)
    shown = _pyperf("show", "--quiet", str(tmp_path / "base.json"))
    mean, std = re.search(r"Mean \+- std dev: (\S+ \S+) \+- (\S+ \S+)", shown).groups()  # type: ignore[union-attr]
    _close(mean, judged.mean())
    _close(std, judged.std(ddof=1))
    stats = _pyperf("stats", str(tmp_path / "base.json"))
    assert "Number of warmup per run: 3" in stats and "Number of value per run: 12" in stats
    median = re.search(r"Median \+- MAD: +(\S+ \S+)", stats).group(1)  # type: ignore[union-attr]
    _close(median, float(np.median(judged)))
    _close(re.search(r"Minimum: +(\S+ \S+)", stats).group(1), judged.min())  # type: ignore[union-attr]
    _close(re.search(r"Maximum: +(\S+ \S+)", stats).group(1), judged.max())  # type: ignore[union-attr]
    compared = _pyperf("compare_to", str(tmp_path / "base.json"), str(tmp_path / "slow.json"))
    slow_rows = read_record(slow)
    slow_judged = slow_rows[slow_rows["phase"] == "measure"]["value"].to_numpy() * 1e-9
    ratio = float(re.search(r": ([0-9.]+)x slower", compared).group(1))  # type: ignore[union-attr]
    assert ratio == pytest.approx(slow_judged.mean() / judged.mean(), rel=0.01), compared


class _RoundTimedSuite(Suite):
    """A suite whose primary value is the round's time: recorded, not judged."""

    judges_value = False


def _suite_record(folder: Path, name: str, seed: int) -> Path:
    path = folder / f"{name}.csv"
    run(_RoundTimedSuite(seed=seed), Fixed(n=10), record=path, progress=False)
    return path


def test_a_suite_record_gives_one_pyperf_benchmark_per_series(tmp_path: Path) -> None:
    a, b = _suite_record(tmp_path, "a", 1), _suite_record(tmp_path, "b", 2)
    done = _export(a, tmp_path / "a.json")
    _export(b, tmp_path / "b.json")
    # The judged series, each a benchmark; the round's time (not judged) is not one.
    assert "3 pyperf benchmark(s)" in done.stdout
    measurements, table = read_record(a), read_series(a)
    suite = pyperf.BenchmarkSuite.load(str(tmp_path / "a.json"))
    assert suite.get_benchmark_names() == ["quiet", "mid", "noisy"]
    stats = _pyperf("stats", str(tmp_path / "a.json"))
    for bench in suite.get_benchmarks():
        expected = series_values(measurements, table, bench.get_name()) * 1e-9
        assert expected.size >= 10
        # A round is a process of its own: a pyperf run per value.
        assert bench.get_nrun() == expected.size
        np.testing.assert_allclose(bench.get_values(), expected, rtol=1e-12)
    assert stats.count("Number of run with values: 10") == 3
    for name, shown in re.findall(r"^(\w+): Mean \+- std dev: (\S+ \S+)", _pyperf(
        "show", "--quiet", str(tmp_path / "a.json")), flags=re.M):  # fmt: skip
        _close(shown, series_values(measurements, table, name).mean() * 1e-9)
    compared = _pyperf("compare_to", "--table", str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    assert all(name in compared for name in ("quiet", "mid", "noisy")), compared
    # Asked for by name: the primary value alone, under a name of one's choosing.
    _export(a, tmp_path / "rounds.json", "--metric", "value", "--name", "round")
    (rounds,) = pyperf.BenchmarkSuite.load(str(tmp_path / "rounds.json")).get_benchmarks()
    assert rounds.get_name() == "round"
    ok = measurements[measurements["status"] == "ok"]
    np.testing.assert_allclose(rounds.get_values(), ok["value"].to_numpy() * 1e-9, rtol=1e-12)


class _Rates(Target):
    """A target with a time, a rate (a unit pyperf has not) and a byte count."""

    kind = "rates"

    def __init__(self) -> None:
        self.name = "rates"
        self.n = 0

    def invoke(self) -> Measurement:
        self.n += 1
        return Measurement(0.5 + self.n / 1000, "s", None, utc_now(), series={
            "rate": SeriesValue(100.0 + self.n, "MB/s", direction="higher"),
            "size": SeriesValue(4096.0, "B"),
        })  # fmt: skip

    def _config(self) -> dict[str, Any]:
        return {}


def _main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_series_pyperf_cannot_hold_are_left_out_and_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "rates.csv"
    run(_Rates(), Fixed(n=5), record=record, progress=False)
    out = tmp_path / "rates.json"
    status, said, _ = _main(["export", str(record), "-o", str(out)], capsys)
    assert status == 0
    # The gate's benchmarks: the value, and the judged metrics beside it as TARGET/NAME.
    assert "left out rates/rate: pyperf has no unit for 'MB/s'" in said
    suite = pyperf.BenchmarkSuite.load(str(out))
    assert suite.get_benchmark_names() == ["rates", "rates/size"]
    assert suite.get_benchmark("rates/size").get_unit() == "byte"
    np.testing.assert_allclose(
        suite.get_benchmark("rates").get_values(), [0.5 + n / 1000 for n in range(1, 6)]
    )
    status, said, _ = _main(
        ["export", str(record), "-o", str(out), "--metric", "size", "--name", "r"], capsys
    )
    assert status == 0 and pyperf.BenchmarkSuite.load(str(out)).get_benchmark_names() == ["size"]
    status, _, err = _main(["export", str(record), "-o", str(out), "--metric", "rate"], capsys)
    assert status == 2
    assert err.strip() == (
        f"perfstats: error: {record}: series 'rate' cannot be written for pyperf: pyperf has no "
        "unit for 'MB/s'; it knows seconds, bytes and counts"
    )
    status, said, _ = _main(["export", str(record), "-o", str(out), "--json"], capsys)
    doc = json.loads(said)
    assert [b["name"] for b in doc["benchmarks"]] == ["rates", "rates/size"]
    assert doc["left_out"] == {"rates/rate": "pyperf has no unit for 'MB/s'; it knows seconds, "
                               "bytes and counts"}  # fmt: skip


def test_bad_input_is_refused_naming_it_and_the_record_is_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "run.csv"
    time_calls(int, rule=Fixed(n=4), name="t.py::test_int", record=record)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    (tmp_path / "link.json").symlink_to(record)
    empty = tmp_path / "empty.csv"
    empty.write_text(record.read_text().splitlines()[0] + "\n")
    plain = tmp_path / "plain.csv"
    plain.write_text("x\n1\n2\n")
    out = str(tmp_path / "out.json")
    cases = [
        (["export", str(tmp_path / "none.csv"), "-o", out], "record", "does not exist"),
        (["export", str(record), "-o", str(record)], "the pyperf export", "is the input"),
        (["export", str(record), "-o", f"{record}.meta.json"], "the pyperf export", "is the input"),
        (["export", str(record), "-o", str(tmp_path / "link.json")], "link.json", "is the input"),
        (["export", str(record), "-o", str(tmp_path / "no" / "x.json")], "--output", "folder"),
        (["export", str(empty), "-o", out], "empty.csv", "is empty"),
        (["export", str(plain), "-o", out], "plain.csv", "perfstats record"),
        (["export", str(record), "-o", out, "--metric", "nope"], "no series 'nope'", "'value'"),
        (["export", str(record), "-o", out, "--name", " "], "--name", "non-empty"),
    ]
    for argv, first, second in cases:
        status, said, err = _main(argv, capsys)
        assert status == 2, (argv, said, err)
        assert len(err.strip().splitlines()) == 1 and first in err and second in err, (argv, err)
        assert not Path(out).exists()
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name in before} == before
    with pytest.raises(SystemExit) as exc:
        main(["export", str(record), "-o", out, "--format", "csv"])
    assert exc.value.code == 2
