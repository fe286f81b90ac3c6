"""``perfstats gate`` on damaged files: exit 2 and one line naming the file and the field.

The files start as real hyperfine output (and the committed JMH sample,
``tests/adapters/records/samples/README.md``); one field each is then made
what a broken or hostile writer could put there.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from perfstats.adapters.cli import main

SAMPLES = Path(__file__).parents[1] / "records" / "samples"


@pytest.fixture(scope="module")
def hyperfine_doc(tmp_path_factory: pytest.TempPathFactory) -> dict:
    tmp = tmp_path_factory.mktemp("hf")
    out = tmp / "h.json"
    subprocess.run(["hyperfine", "-N", "--runs", "5", "--warmup", "0", "--export-json", str(out),
                    "true"], cwd=tmp, check=True, capture_output=True, timeout=120)  # fmt: skip
    return json.loads(out.read_text())


def _gate(capsys, base: Path, cont: Path, *extra: str) -> tuple[int, str]:
    code = main(["gate", str(base), str(cont), "--resamples", "200", *extra])
    _, err = capsys.readouterr()
    return code, err


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err and "internal error" not in err, err
    return lines[0]


def _times(doc: dict, value: object) -> dict:
    bad = json.loads(json.dumps(doc))
    bad["results"][0]["times"][1] = value
    return bad


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (lambda d: _times(d, True), "benchmark 'true' value 1 is true, not a number"),
        (lambda d: _times(d, "0.1"), "benchmark 'true' value 1 is a str, not a number"),
        (lambda d: _times(d, 10**400), "value 1 is a 401-digit integer"),
        (lambda d: {**d, "results": [{**d["results"][0], "exit_codes": True}]},
         "exit_codes is true, not a list"),
        (lambda d: {**d, "results": [{**d["results"][0], "exit_codes": [0, 0]}]},
         "has 5 times but 2 exit codes"),
        (lambda d: {**d, "results": [{**d["results"][0], "exit_codes": [0, 0, "0", 0, 0]}]},
         "exit_codes[2] is '0', not an integer"),
    ],
)  # fmt: skip
def test_hyperfine_field_of_the_wrong_type(capsys, tmp_path, hyperfine_doc, damage, said) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(hyperfine_doc))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(damage(hyperfine_doc)))
    code, err = _gate(capsys, good, bad)
    assert code == 2
    line = _one_line(err)
    assert str(bad) in line and said in line, line


def test_deeply_nested_json_is_one_line(capsys, tmp_path, hyperfine_doc) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(hyperfine_doc))
    deep = tmp_path / "deep.json"
    deep.write_text('{"results": ' + "[" * 200_000 + "]" * 200_000 + "}")
    code, err = _gate(capsys, good, deep)
    assert code == 2
    assert str(deep) in _one_line(err) and "nested too deeply" in err


def test_jmh_fields_of_the_wrong_type(capsys, tmp_path) -> None:
    raw = json.loads((SAMPLES / "jmh.json").read_text())
    good = tmp_path / "good.json"
    good.write_text(json.dumps(raw))
    cases = [
        (lambda r: r[0]["primaryMetric"]["rawData"][1].__setitem__(2, "21.1"),
         "[0].rawData[1][2] (org.example.SumBench.sum(size=64)) is a str, not a number"),
        (lambda r: r[0].__setitem__("params", ["64"]), "[0].params is a list, not an object"),
        (lambda r: r[1]["primaryMetric"]["rawData"][0].__setitem__(0, None),
         "[1].rawData[0][0] (org.example.SumBench.sumThroughput) is null"),
        (lambda r: r[1].__setitem__("primaryMetric", [1]), "[1]['primaryMetric'] is a list"),
    ]  # fmt: skip
    for damage, said in cases:
        doc = json.loads(json.dumps(raw))
        damage(doc)
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps(doc))
        code, err = _gate(capsys, good, bad)
        assert code == 2, err
        line = _one_line(err)
        assert str(bad) in line and said in line, line


def test_resamples_out_of_range_is_a_usage_error(capsys, tmp_path, hyperfine_doc) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(hyperfine_doc))
    for value in ("1000000000", "0"):
        code = main(["gate", str(good), str(good), "--resamples", value])
        _, err = capsys.readouterr()
        assert code == 2 and "--resamples must be between 1 and 1,000,000" in _one_line(err)
    with pytest.raises(SystemExit) as stop:
        main(["gate", str(good), str(good), "--resamples", "1e9"])
    _, err = capsys.readouterr()
    assert stop.value.code == 2 and "--resamples: invalid int value: '1e9'" in _one_line(err)
