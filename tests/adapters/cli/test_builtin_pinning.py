"""The bundled workload runs pinned to one CPU; a user's own command is not pinned unless asked."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from perfstats.adapters.targets.builtin import one_cpu
from support.cli import perfstats

FIXED = ["--rule", "fixed", "-r", "n=5", "--no-progress", "--json"]


def _target(tmp_path: Path, *args: str) -> dict:
    done = perfstats(["run", *FIXED, *args], cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["target"]


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="one usable CPU: nothing to pin to")
def test_the_builtin_workload_is_pinned_to_the_last_usable_cpu(tmp_path: Path) -> None:
    target = _target(tmp_path)
    assert target["name"] == "builtin workload"
    assert target["cpus"] == [max(os.sched_getaffinity(0))] == list(one_cpu() or ())


def test_the_builtin_workload_takes_another_cpu_or_none(tmp_path: Path) -> None:
    cpu = min(os.sched_getaffinity(0))
    assert _target(tmp_path, "--builtin", "-t", f"cpus=[{cpu}]")["cpus"] == [cpu]
    assert _target(tmp_path, "-t", "cpus=None")["cpus"] is None


def test_a_users_command_is_not_pinned_unless_asked(tmp_path: Path) -> None:
    command = ["--", sys.executable, "-c", "pass"]
    assert _target(tmp_path, *command)["cpus"] is None
    cpu = max(os.sched_getaffinity(0))
    assert _target(tmp_path, "-t", f"cpus=[{cpu}]", *command)["cpus"] == [cpu]


def test_the_builtin_workload_refuses_other_target_options(tmp_path: Path) -> None:
    done = perfstats(["run", *FIXED, "--builtin", "-t", "timeout=5"], cwd=tmp_path)
    assert done.returncode != 0
    assert "no target option but cpus" in done.stderr
