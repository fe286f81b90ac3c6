"""Suites from TOML and YAML files: defaults, shared parameters, one-line errors."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from perfstats.adapters.ab import (
    ReportingCommand,
    ReportingHttp,
    TargetPerVersion,
    load_suite,
    suite_from_config,
)

REPO = Path(__file__).resolve().parents[3]
EXAMPLE = REPO / "examples" / "ab_suite.toml"

YAML = """\
schedule: rmit
calls: 4
repeats: 2
concurrency: 3
seed: 9
target:
  kind: http
  url: http://127.0.0.1:9/
  headers: {Authorization: Bearer hunter2}
benchmarks:
  - name: sort
    params: {kernel: sort, size: 100}
    baseline: {units: 10}
    candidate: {units: 15}
"""


def test_the_example_config_is_elastibench_shaped() -> None:
    suite, seed = load_suite(EXAMPLE)
    assert (suite.schedule, suite.calls, suite.repeats, suite.level, suite.min_results) == (
        "duet", 15, 3, 0.99, 10,
    )  # fmt: skip
    assert seed == 1 and suite.results_per_version == 45
    assert isinstance(suite.target, ReportingCommand)
    assert suite.target.argv[0] == sys.executable and suite.target.cwd == str(REPO)
    lcg = suite.benchmark("lcg")
    assert lcg.baseline == {"kernel": "lcg", "size": 2000, "clock": "thread", "units": 10}
    assert lcg.candidate["units"] == 11


def test_a_command_target_can_be_pinned_to_cpus() -> None:
    cpu = min(os.sched_getaffinity(0))
    data = {"target": {"argv": ["true"], "cpus": [cpu]},
            "benchmarks": [{"name": "a", "baseline": {}, "candidate": {}}]}  # fmt: skip
    suite = suite_from_config(data)
    assert isinstance(suite.target, ReportingCommand) and suite.target.cpus == (cpu,)
    assert suite.config()["target"]["cpus"] == [cpu]
    with pytest.raises(ValueError, match="CPU 4096 is not one this process may use"):
        suite_from_config({**data, "target": {"argv": ["true"], "cpus": [4096]}})


def test_yaml_with_overrides_and_redacted_secrets(tmp_path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(YAML)
    suite, seed = load_suite(path, calls=6, schedule=None)
    assert (suite.schedule, suite.calls, suite.repeats, suite.concurrency, seed) == (
        "rmit", 6, 2, 3, 9,
    )  # fmt: skip
    assert isinstance(suite.target, ReportingHttp)
    assert suite.benchmark("sort").candidate == {"kernel": "sort", "size": 100, "units": 15}
    config = suite.config()
    assert config["target"]["headers"]["Authorization"] == "<redacted>"
    assert "hunter2" not in repr(config)


def test_targets_kind_builds_one_target_per_version() -> None:
    spec = {"argv": ["echo", "t=1"], "regex": r"t=(\d)", "unit": "ms"}
    data = {"schedule": "rmit", "target": {"kind": "targets"},
            "benchmarks": [{"name": "e", "baseline": spec, "candidate": spec}]}  # fmt: skip
    suite = suite_from_config(data)
    assert isinstance(suite.target, TargetPerVersion)
    assert suite.target.targets["e"]["baseline"].name == "e/baseline"
    with pytest.raises(ValueError, match="duet schedule needs a target that runs both"):
        suite_from_config({**data, "schedule": "duet"})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("calls = 3\n", "benchmarks must be a non-empty list"),
        ('colour = "red"\n', "unknown key 'colour'"),
        ('[target]\nargv = ["true"]\n[[benchmarks]]\nname = "a"\nbaseline = {}\n',
         "benchmark 'a' needs a candidate table"),
        ('[target]\nkind = "ftp"\n[[benchmarks]]\nname = "a"\nbaseline = {}\ncandidate = {}\n',
         "target kind must be one of command, http, targets"),
        ('[target]\nargv = ["true"]\nretries = 3\n[[benchmarks]]\nname = "a"\nbaseline = {}\n'
         "candidate = {}\n", "unknown key 'retries'"),
        ('calls = 0\n[target]\nargv = ["true"]\n[[benchmarks]]\nname = "a"\nbaseline = {}\n'
         "candidate = {}\n", "calls must be an integer >= 1"),
        ('[target]\nargv = ["no-such-program-xyz"]\n[[benchmarks]]\nname = "a"\n'
         "baseline = {}\ncandidate = {}\n", "not found"),
        ("schedule = \n", "is not valid TOML"),
        ('by_trial = "yes"\n[target]\nargv = ["true"]\n[[benchmarks]]\nname = "a"\n'
         "baseline = {}\ncandidate = {}\n", "by_trial must be true or false"),
    ],
)  # fmt: skip
def test_bad_configs_say_what_is_wrong(tmp_path, text, message) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        load_suite(path)


def test_missing_or_unsupported_files(tmp_path) -> None:
    with pytest.raises(ValueError, match="does not exist"):
        load_suite(tmp_path / "none.toml")
    (tmp_path / "suite.json").write_text("{}")
    with pytest.raises(ValueError, match=r"must be a \.toml, \.yaml or \.yml file"):
        load_suite(tmp_path / "suite.json")
    (tmp_path / "bad.yaml").write_text("a: [1,\n")
    with pytest.raises(ValueError, match="is not valid YAML"):
        load_suite(tmp_path / "bad.yaml")
