"""The settings of a local program, one keyword group every local target takes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from perfstats.adapters.ab.config import SUITE_TARGETS
from perfstats.adapters.ab.reporting_command import ReportingCommand
from perfstats.adapters.targets import Command, GoogleBenchmark, GoTest, PyperfScript
from perfstats.adapters.targets.program import ProgramOptions
from perfstats.adapters.targets.registry import options_of, target_by_name

SETTINGS = ("timeout", "env", "inherit_env", "cwd", "cpus")


@pytest.mark.parametrize("cls", [Command, GoogleBenchmark, GoTest, PyperfScript, ReportingCommand])
def test_each_local_target_lists_the_program_settings_as_options(cls: type) -> None:
    options = options_of(cls)
    assert set(SETTINGS) <= set(options)
    assert "program" not in options and "label" in options


def test_the_group_is_the_settings_and_only_command_adds_rusage() -> None:
    assert tuple(ProgramOptions.__annotations__) == SETTINGS
    assert "rusage" in options_of(Command)
    assert "rusage" not in options_of(GoTest)
    assert "rusage" not in options_of(SUITE_TARGETS["command"])


def test_targets_that_pass_the_group_on_refuse_other_keys() -> None:
    with pytest.raises(
        TypeError, match="GoogleBenchmark got an unexpected keyword argument 'rusage'"
    ):
        GoogleBenchmark([sys.executable], rusage=True)
    with pytest.raises(TypeError, match="ReportingCommand got an unexpected keyword argument"):
        ReportingCommand([sys.executable], rusage=True)
    with pytest.raises(ValueError, match="unknown option 'rusage' for target gbench"):
        target_by_name("gbench", [sys.executable], {"rusage": True})


def test_the_settings_given_by_name_reach_the_program(tmp_path: Path) -> None:
    target = target_by_name(
        "command", [sys.executable, "-c", "import os; print(os.getcwd(), os.environ['K'])"],
        {"timeout": 30, "env": {"K": "v"}, "inherit_env": False, "cwd": str(tmp_path)},
    )  # fmt: skip
    assert target.timeout == 30.0 and target.full_env == {"K": "v"}
    out = target.run_program()
    assert out.stdout.split() == [str(tmp_path), "v"]
    reporting = ReportingCommand([sys.executable], inherit_env=False, env={"K": "v"})
    assert reporting.full_env == {"K": "v"}
