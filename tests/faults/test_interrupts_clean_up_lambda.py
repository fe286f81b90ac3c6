"""Lambda: a stopped run restores the function's environment; a later run cleans up.

``perfstats run --target lambda -t force_cold=true`` against the moto server
in a child process, stopped by signals.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from perfstats.adapters.targets.awslambda import COLD_VARIABLE
from support.cli import perfstats, rows, start, wait_for
from support.services import MotoServer, aws_env, echo_function

REGION = "us-east-1"
ORIGINAL = {"MODE": "bench"}


@pytest.fixture(scope="module")
def function(moto: MotoServer, moto_lambda: Any) -> str:
    return echo_function(
        moto.endpoint, moto_lambda, role_name="perfstats-faults", variables=ORIGINAL
    )


def _variables(client: Any, name: str) -> dict[str, str]:
    config = client.get_function_configuration(FunctionName=name)
    return dict((config.get("Environment") or {}).get("Variables") or {})


def _argv(moto: MotoServer, name: str, *extra: str) -> list[str]:
    return [
        "run", "--target", "lambda", "-t", f"region={REGION}", "-t", "metric=wall",
        "-t", f"endpoint_url={moto.endpoint}",
        "--rule", "fixed", "-r", "n=100000", "--record", "run.csv", "--no-progress", *extra,
        "--", name,
    ]  # fmt: skip


@pytest.mark.service
@pytest.mark.parametrize(
    "sequence", [[signal.SIGHUP], [signal.SIGINT, signal.SIGINT]], ids=["sighup", "ctrl-c-twice"]
)
def test_lambda_environment_restored(
    tmp_path: Path,
    moto: MotoServer,
    moto_lambda: Any,
    function: str,
    sequence: list[signal.Signals],
) -> None:
    driver = start(
        _argv(moto, function, "-t", "force_cold=true", "--spacing", "0.2"), tmp_path,
        env=aws_env(moto.endpoint),
    )  # fmt: skip
    try:
        wait_for(lambda: rows(tmp_path / "run.csv") >= 2, 90, "the forced cold starts")
        assert COLD_VARIABLE in _variables(moto_lambda, function)
        for i, signum in enumerate(sequence):
            if i:
                time.sleep(0.05)
            os.kill(driver.pid, signum)
        _, err = driver.communicate(timeout=120)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    assert _variables(moto_lambda, function) == ORIGINAL, err


@pytest.mark.service
def test_lambda_leftover_of_a_killed_run_removed(
    tmp_path: Path, moto: MotoServer, moto_lambda: Any, function: str
) -> None:
    # What a run killed with -9 in the middle of force_cold leaves behind.
    moto_lambda.update_function_configuration(
        FunctionName=function, Environment={"Variables": {**ORIGINAL, COLD_VARIABLE: "left"}}
    )
    done = perfstats([*_argv(moto, function, "--max-n", "2")], tmp_path, env=aws_env(moto.endpoint))
    assert done.returncode == 0, done.stderr
    assert "left by a perfstats run that was killed" in done.stderr
    assert _variables(moto_lambda, function) == ORIGINAL
