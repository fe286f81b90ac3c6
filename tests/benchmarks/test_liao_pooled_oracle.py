"""Sets of Liao rounds pooled: each round scored against the other rounds' majority."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import liao_pooled_oracle as lpo

VERSIONS = ["A", "B"]


def _doc(rounds: list[dict[str, tuple[bool, bool]]], drives: str | None = "every") -> dict:
    """A rounds document of one workload; each round maps version -> (oracle R, model R)."""
    settings: dict = {"scenarios": ["fixed"], "versions": VERSIONS, "seed": 7}
    if drives is not None:
        settings["calibration_drives"] = drives
    return {
        "settings": settings,
        "rounds": [
            {
                "fixed": [
                    {
                        "version": v,
                        "load_test": {"cliffs_delta": 0.3 if o else 0.0, "regression": o},
                        "model": {"cliffs_delta": 0.2 if m else 0.01, "regression": m},
                    }
                    for v, (o, m) in rnd.items()
                ]
            }
            for rnd in rounds
        ],
    }


def _write(tmp_path: Path, name: str, doc: dict) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


def test_each_round_is_scored_against_the_other_rounds_only(tmp_path: Path) -> None:
    # A: the oracle says R in rounds 1-3 and not in round 4; the model always R.
    # B: never R in the oracle; the model says R in round 2 only.
    rounds = [
        {"A": (True, True), "B": (False, False)},
        {"A": (True, True), "B": (False, True)},
        {"A": (True, True), "B": (False, False)},
        {"A": (False, True), "B": (False, False)},
    ]
    doc = lpo.pool([lpo.load_set(_write(tmp_path, "a.json", _doc(rounds)))])
    scores = [rnd["fixed"] for rnd in doc["sets"][0]["rounds"]]
    assert [s["decided"] for s in scores] == [2, 2, 2, 2]
    assert [s["model"]["agree"] for s in scores] == [2, 1, 2, 2]
    assert scores[1]["model"]["FP"] == 1
    # Round 4's own oracle is outvoted by the other three: a false negative.
    assert scores[3]["oracle"]["FN"] == 1 and scores[3]["oracle"]["agree"] == 1
    text = lpo.format_pooled(doc)
    assert "the model: at worst 1/2 in a workload's round, false positives 1 in all" in text
    assert "own oracle: at worst 1/2 in a workload's round, false positives 0 in all" in text
    a = doc["versions"]["fixed"]["A"]
    assert a["share_regression"] == pytest.approx(0.75)
    assert a["clear"] and a["majority"] is True
    assert a["model_delta_median"]["every seed 7"] == pytest.approx(0.2)


def test_a_tie_among_the_other_rounds_leaves_the_version_undecided(tmp_path: Path) -> None:
    rounds = [
        {"A": (True, True), "B": (False, False)},
        {"A": (False, True), "B": (False, False)},
        {"A": (True, False), "B": (False, False)},
    ]
    doc = lpo.pool([lpo.load_set(_write(tmp_path, "a.json", _doc(rounds)))])
    # Rounds 1 and 3 each leave two rounds that split on A; round 2 leaves two R.
    assert [r["fixed"]["decided"] for r in doc["sets"][0]["rounds"]] == [1, 2, 1]
    text = lpo.format_pooled(doc)
    assert "3 rounds pooled" in text and "every seed 7" in text


def test_sets_pool_across_files_and_need_labels_and_the_same_versions(tmp_path: Path) -> None:
    r = [{"A": (True, True), "B": (False, False)}] * 2
    old = _write(tmp_path, "old.json", _doc(r, drives=None))
    new = _write(tmp_path, "new.json", _doc(r))
    with pytest.raises(ValueError, match="does not record its calibration"):
        lpo.load_set(old)
    doc = lpo.pool([lpo.load_set(f"{old}=busiest"), lpo.load_set(new)])
    assert doc["rounds"] == 4 and [s["label"] for s in doc["sets"]] == ["busiest", "every seed 7"]
    with pytest.raises(ValueError, match="share a label"):
        lpo.pool([lpo.load_set(new), lpo.load_set(new)])
    other = _doc(r)
    other["settings"]["versions"] = ["A"]
    with pytest.raises(ValueError, match="other workloads or versions"):
        lpo.pool([lpo.load_set(new), lpo.load_set(_write(tmp_path, "o.json", other))])
    with pytest.raises(ValueError, match="at least 3"):
        lpo.pool([lpo.load_set(new)])
    with pytest.raises(ValueError, match="not the JSON"):
        lpo.load_set(_write(tmp_path, "x.json", {"settings": {}}))


def test_the_command_writes_the_table_and_the_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    r = [{"A": (True, True), "B": (False, False)}] * 3
    out = tmp_path / "pooled.json"
    assert lpo.main([_write(tmp_path, "a.json", _doc(r)), "--json", str(out)]) == 0
    assert json.loads(out.read_text())["rounds"] == 3
    assert out.with_suffix(".txt").read_text().startswith("# command: python -m benchmarks.")
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert ["every", "seed", "7", "1", "fixed", "2/2", "0", "0", "2/2", "|"] in [
        row[:10] for row in rows
    ]
