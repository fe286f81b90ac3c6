"""The record's metadata: field descriptions, the git commit of the target, and a re-run from it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from perfstats.adapters import Command, HttpFunction, read_record, run
from perfstats.adapters.cli import main
from perfstats.adapters.driver.rerun import (
    experiment_from_metadata,
    read_experiment_metadata,
    run_from_metadata,
)
from perfstats.adapters.driver.stop_loop import _normal
from perfstats.adapters.records.record import COLUMNS, metadata_path
from support.services import HERE

PY = sys.executable
SCRIPTED = str(HERE / "scripted.py")


def git(work: Path, *args: str) -> str:
    exe = shutil.which("git")
    assert exe is not None, "git is not installed"
    done = subprocess.run([exe, "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@t",
                           *args], capture_output=True, text=True, check=True)  # fmt: skip
    return done.stdout.strip()


@pytest.fixture
def work_tree(tmp_path: Path) -> Path:
    work = tmp_path / "bench"
    work.mkdir()
    git(work, "init", "-q")
    (work / "bench.txt").write_text("v1\n")
    git(work, "add", "bench.txt")
    git(work, "commit", "-q", "-m", "v1")
    return work


def scripted(state: Path, cwd: Path, **options: object) -> Command:
    return Command([PY, "-I", "-S", SCRIPTED, str(state)], regex=r"value=(\d+)", unit="ms",
                   cwd=str(cwd), label="scripted", **options)  # type: ignore[arg-type]  # fmt: skip


def test_run_again_from_metadata_with_the_same_configuration(tmp_path, work_tree, capsys) -> None:
    first = tmp_path / "first.csv"
    run(scripted(tmp_path / "s", work_tree), "ci-width", rule_options={"threshold": 0.5},
        max_n=8, warmup=2, max_failures=3, record=first, progress=False, rng=11)  # fmt: skip
    meta = json.loads(metadata_path(first).read_text())
    # Every column is described, in order.
    assert list(meta["fields"]) == list(COLUMNS) and all(meta["fields"].values())
    assert "warmup" in meta["fields"]["phase"]
    # The target's directory is a clean work tree at its commit.
    state = meta["sessions"][0]["git"]
    assert state["commit"] == git(work_tree, "rev-parse", "HEAD") and state["dirty"] is False
    assert Path(state["work_tree"]).resolve() == work_tree.resolve()

    (work_tree / "bench.txt").write_text("v2\n")  # an uncommitted change
    again = tmp_path / "again.csv"
    code = main(["run", "--from-metadata", str(metadata_path(first)), "--record", str(again),
                 "--no-progress"])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    rerun = json.loads(metadata_path(again).read_text())
    for key in ("target", "rule", "seed", "fields"):
        assert rerun[key] == meta[key], key
    assert rerun["sessions"][0]["settings"] == meta["sessions"][0]["settings"]
    assert rerun["sessions"][0]["git"]["dirty"] is True
    assert rerun["sessions"][0]["git"]["commit"] == state["commit"]
    df = read_record(again)
    assert df["phase"].tolist()[:2] == ["warmup", "warmup"]
    assert (df["phase"] == "measure").sum() <= 8
    # The Python entry point reads the same experiment.
    third = run_from_metadata(metadata_path(first), record=tmp_path / "third.csv", progress=False)
    assert third.metadata["rule"] == meta["rule"] and third.seed == 11


def test_no_git_state_outside_a_work_tree(tmp_path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    result = run(scripted(tmp_path / "s", folder), "fixed", rule_options={"n": 2},
                 record=tmp_path / "r.csv", progress=False)  # fmt: skip
    assert result.metadata["sessions"][0]["git"] is None
    remote = HttpFunction("http://127.0.0.1:9/")
    assert "cwd" not in remote.config()  # so no directory of its own is looked at


def test_redacted_env_is_read_from_the_environment(tmp_path, monkeypatch, capsys) -> None:
    first = tmp_path / "first.csv"
    run(scripted(tmp_path / "s", tmp_path, env={"BENCH_TOKEN": "s3cret", "MODE": "fast"}),
        "fixed", rule_options={"n": 2}, record=first, progress=False)  # fmt: skip
    meta = read_experiment_metadata(metadata_path(first))
    assert meta["target"]["env"] == {"BENCH_TOKEN": "<redacted>", "MODE": "fast"}
    with pytest.raises(ValueError, match=r"env\.BENCH_TOKEN.*variable\(s\) BENCH_TOKEN "):
        experiment_from_metadata(meta, environ={})
    monkeypatch.delenv("BENCH_TOKEN", raising=False)
    argv = ["run", "--from-metadata", str(first), "--record", str(tmp_path / "x.csv")]
    assert main(argv) == 2
    assert "set the environment variable(s) BENCH_TOKEN to" in capsys.readouterr().err
    assert not (tmp_path / "x.csv").exists()
    monkeypatch.setenv("BENCH_TOKEN", "s3cret")
    experiment = experiment_from_metadata(meta)
    assert experiment.target_options["env"] == {"BENCH_TOKEN": "s3cret", "MODE": "fast"}
    assert main([*argv, "--no-progress"]) == 0
    again = json.loads(metadata_path(tmp_path / "x.csv").read_text())
    assert again["target"] == meta["target"]  # still redacted in the new record
    assert "s3cret" not in metadata_path(tmp_path / "x.csv").read_text()


def test_redacted_header_must_be_given_again() -> None:
    target = HttpFunction("http://127.0.0.1:9/f", headers={"Authorization": "Bearer abc"})
    settings = {"warmup": "auto", "max_warmup": 50}
    meta = {"target": _normal(target.config()), "rule": {"name": "Fixed", "config": {"n": 3}},
            "seed": 1, "sessions": [{"settings": settings}]}  # fmt: skip
    with pytest.raises(ValueError, match=r"headers\.Authorization.*-t headers=\.\.\."):
        experiment_from_metadata(meta)
    experiment = experiment_from_metadata(
        meta, target_options={"headers": {"Authorization": "Bearer abc"}}
    )
    assert _normal(experiment.target().config()) == meta["target"]
    assert experiment.limits == {"warmup": "auto", "max_warmup": 50}
    assert experiment.argv == [] and experiment.target_options["url"] == "http://127.0.0.1:9/f"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda m: m.pop("rule"), "lacks 'rule'"),
        (lambda m: m.pop("seed"), "lacks 'seed'"),
        (lambda m: m["target"].update(kind="rocket"), "target kind 'rocket' is not one of"),
        (lambda m: m["rule"].update(name="Mine"), "rule 'Mine' .* is not one of"),
        (lambda m: m["target"].update(warp=9), "option\\(s\\) warp"),
        (lambda m: m.update(sessions=[{}]), "lacks the settings"),
    ],
)
def test_metadata_that_cannot_be_run_again(change, message) -> None:
    meta = {"target": _normal(Command(["true"]).config()),
            "rule": {"name": "Fixed", "config": {"n": 3}}, "seed": 1,
            "sessions": [{"settings": {"max_n": None}}]}  # fmt: skip
    change(meta)
    with pytest.raises(ValueError, match=message):
        experiment_from_metadata(meta)


def test_from_metadata_refuses_other_options(tmp_path, capsys) -> None:
    meta = str(metadata_path(tmp_path / "m.csv"))
    code = main(["run", "--from-metadata", meta, "--rule", "fixed", "--max-n", "3"])
    assert code == 2
    err = capsys.readouterr().err
    assert "do not give --rule, --max-n" in err
    assert main(["run", "--from-metadata", str(metadata_path(tmp_path / "m.csv"))]) == 2
    assert "does not exist" in capsys.readouterr().err
