"""The LambdaFunction target through boto3 against the moto server on loopback.

moto runs Lambda without Docker here, so invocations return the payload but
no log: the REPORT line parsing is tested in test_adapters_parsing.py on
the format AWS documents, the API calls (create, invoke, update) here.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from perfstats.adapters import LambdaFunction, TargetFailed, read_record, run
from perfstats.adapters.cli import main
from perfstats.adapters.targets.awslambda import COLD_VARIABLE
from support.services import MotoServer, echo_function

from perfstats.rules import Fixed

pytestmark = pytest.mark.usefixtures("moto_credentials")
REGION = "us-east-1"


@pytest.fixture(scope="module")
def function(moto: MotoServer, moto_lambda: Any) -> str:
    return echo_function(
        moto.endpoint, moto_lambda, role_name="perfstats-test", variables={"MODE": "bench"}
    )


def _target(moto: MotoServer, name: str, **kwargs: Any) -> LambdaFunction:
    return LambdaFunction(name, region=REGION, endpoint_url=moto.endpoint, **kwargs)


def test_invoke_measures_the_call(moto: MotoServer, function: str) -> None:
    m = _target(moto, function, metric="wall", payload={"x": 1}).invoke()
    assert m.ok and m.unit == "ns" and m.value is not None and m.value > 0
    assert m.extra["status_code"] == 200
    assert m.cold is None  # no REPORT line, so unknown


def test_value_from_the_response(moto: MotoServer, function: str) -> None:
    m = _target(moto, function, payload={"t": {"ms": 3.5}}, json_field="t.ms", unit="ms").invoke()
    assert m.ok and m.value == 3.5 and m.unit == "ms"


def test_without_a_report_line_duration_is_an_error_not_a_value(moto, function, tmp_path) -> None:
    path = tmp_path / "l.csv"
    with pytest.raises(TargetFailed, match="no REPORT line"):
        run(_target(moto, function), Fixed(n=3), record=path, progress=False, max_failures=2)
    df = read_record(path)
    assert df["status"].tolist() == ["error", "error"] and df["value"].isna().all()


def test_force_cold_changes_the_configuration_each_time(moto, function, moto_lambda) -> None:
    target = _target(moto, function, metric="wall", force_cold=True)
    seen = []
    for _ in range(3):
        m = target.invoke()
        assert m.ok and m.extra["forced_cold"] is True
        variables = moto_lambda.get_function_configuration(FunctionName=function)["Environment"][
            "Variables"
        ]
        assert variables["MODE"] == "bench"  # the function's own variables are kept
        seen.append(variables[COLD_VARIABLE])
    assert len(set(seen)) == 3
    target.close()
    restored = moto_lambda.get_function_configuration(FunctionName=function)["Environment"]
    assert restored["Variables"] == {"MODE": "bench"}


def test_missing_function_and_bad_options(moto: MotoServer, function: str) -> None:
    with pytest.raises(ValueError, match="ResourceNotFoundException"):
        _target(moto, "no-such-function")
    with pytest.raises(ValueError, match="force_cold"):
        _target(moto, function, force_cold=True, qualifier="prod")
    with pytest.raises(ValueError, match="metric must be one of"):
        _target(moto, function, metric="vibes")


def test_cli_run_against_moto(moto: MotoServer, function: str, tmp_path, capsys) -> None:
    path = tmp_path / "cli.csv"
    code = main([
        "run", "--target", "lambda", "--rule", "fixed", "-r", "n=5", "--record", str(path),
        "-t", f"region={REGION}", "-t", f"endpoint_url={moto.endpoint}", "-t", "metric=wall",
        "-t", 'payload={"size": 128}', "--no-progress", "--json", "--", function,
    ])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    assert data["target"]["function"] == "echo" and data["counts"]["ok"] == 5
    assert len(read_record(path)) == 5
