"""``perfstats ab teardown`` deletes only the function its own deploy recorded, against moto."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from perfstats.adapters.ab.lifecycle import DEPLOYMENT_TAG, OWNER, OWNER_TAG, package
from perfstats.adapters.cli import main
from support.services import MotoServer

pytestmark = [pytest.mark.service, pytest.mark.usefixtures("moto_credentials")]
REGION = "us-east-1"


@pytest.fixture(scope="module")
def role(lambda_role: str) -> str:
    return lambda_role


@pytest.fixture(autouse=True)
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "state"
    monkeypatch.setenv("PERFSTATS_STATE_DIR", str(folder))
    return folder


@pytest.fixture(autouse=True)
def nothing_left(moto_lambda: Any) -> Iterator[None]:
    yield
    for name in [f["FunctionName"] for f in moto_lambda.list_functions()["Functions"]]:
        moto_lambda.delete_function(FunctionName=name)


def _config(tmp_path: Path, name: str, role: str, endpoint: str) -> Path:
    fn = tmp_path / "fn"
    fn.mkdir(exist_ok=True)
    (fn / "main.py").write_text("def handler(event, context):\n    return event\n")
    path = tmp_path / f"{name.replace(':', '_')}.toml"
    path.write_text(
        f'[function]\nname = "{name}"\nrole = "{role}"\npackage = "fn"\nmemory_mb = 128\n'
        f'region = "{REGION}"\nendpoint_url = "{endpoint}"\n\n[target]\nunit = "ns"\n\n'
        '[[benchmarks]]\nname = "a"\n'
    )
    return path


def _names(client: Any) -> list[str]:
    return [f["FunctionName"] for f in client.list_functions()["Functions"]]


def test_teardown_refuses_a_function_someone_else_tagged_as_perfstats(
    capsys, moto: MotoServer, moto_lambda: Any, role: str, tmp_path: Path
) -> None:
    config = _config(tmp_path, "mine", role, moto.endpoint)
    moto_lambda.create_function(
        FunctionName="mine", Runtime="python3.12", Role=role, Handler="main.handler",
        Code={"ZipFile": package(tmp_path / "fn")}, Tags={OWNER_TAG: OWNER},
    )  # fmt: skip
    assert main(["ab", "teardown", str(config)]) == 2
    out, err = capsys.readouterr()
    assert "deleted" not in out
    assert f"'mine' exists with the tag {OWNER_TAG}={OWNER} but no {DEPLOYMENT_TAG} id" in err
    assert "perfstats never changes or deletes it" in err
    assert _names(moto_lambda) == ["mine"]


def test_deploy_then_teardown_through_the_recorded_id(
    capsys, moto: MotoServer, moto_lambda: Any, role: str, tmp_path: Path, state: Path
) -> None:
    config = _config(tmp_path, "mine", role, moto.endpoint)
    assert main(["ab", "deploy", str(config), "--json"]) == 0
    deployment = json.loads(capsys.readouterr().out)
    tags = moto_lambda.get_function(FunctionName="mine")["Tags"]
    assert tags[DEPLOYMENT_TAG] == deployment["deployment_id"]
    [recorded] = (state / "lambda").glob("*.json")
    assert json.loads(recorded.read_text())["deployment_id"] == deployment["deployment_id"]
    assert main(["ab", "teardown", str(config)]) == 0
    assert "mine: deleted" in capsys.readouterr().out
    assert _names(moto_lambda) == [] and not recorded.exists()


def test_teardown_of_a_qualified_name_is_refused_and_the_function_stays(
    capsys, moto: MotoServer, moto_lambda: Any, role: str, tmp_path: Path
) -> None:
    assert main(["ab", "deploy", str(_config(tmp_path, "mine", role, moto.endpoint))]) == 0
    capsys.readouterr()
    assert main(["ab", "teardown", str(_config(tmp_path, "mine:1", role, moto.endpoint))]) == 2
    out, err = capsys.readouterr()
    assert "deleted" not in out
    assert "'mine:1' is a qualified name or an ARN" in err and "(here 'mine')" in err
    assert _names(moto_lambda) == ["mine"]
    versions = moto_lambda.list_versions_by_function(FunctionName="mine")["Versions"]
    assert [v["Version"] for v in versions] == ["$LATEST", "1"]
