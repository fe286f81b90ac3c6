"""Teardown and redeploy act only on a function this deployment's state proves it created.

Against a real moto server on loopback: a function someone else created
with perfstats' constant owner tag, a forged deployment id, a function
replaced behind perfstats' back, another state folder, qualified names
and ARNs are all refused and left as they are; the state file holds the
id and names, never a credential, and a deploy whose state cannot be
written leaves nothing deployed.
"""

from __future__ import annotations

import json
import stat
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from perfstats.adapters.ab.lifecycle import (
    DEPLOYMENT_TAG,
    OWNER,
    OWNER_TAG,
    FunctionSpec,
    deploy,
    deployed,
    lambda_client,
    package,
    teardown,
)
from support.services import MotoServer

pytestmark = [pytest.mark.service, pytest.mark.usefixtures("moto_credentials")]
REGION = "us-east-1"


@pytest.fixture(scope="module")
def role(lambda_role: str) -> str:
    return lambda_role


@pytest.fixture
def source(lambda_source: Path) -> Path:
    return lambda_source


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "state"
    monkeypatch.setenv("PERFSTATS_STATE_DIR", str(folder))
    return folder


@pytest.fixture
def client(moto: MotoServer) -> Any:
    return lambda_client(REGION, endpoint_url=moto.endpoint)


@pytest.fixture(autouse=True)
def nothing_left(moto_lambda: Any) -> Iterator[None]:
    yield
    for name in [f["FunctionName"] for f in moto_lambda.list_functions()["Functions"]]:
        moto_lambda.delete_function(FunctionName=name)


def _foreign(moto_lambda: Any, role: str, source: Path, name: str, tags: dict[str, str]) -> None:
    """A function created outside perfstats, carrying ``tags``."""
    moto_lambda.create_function(
        FunctionName=name, Runtime="python3.12", Role=role, Handler="main.handler",
        Code={"ZipFile": package(source)}, MemorySize=256, Tags=tags,
    )  # fmt: skip


def _exists(moto_lambda: Any, name: str) -> bool:
    return name in [f["FunctionName"] for f in moto_lambda.list_functions()["Functions"]]


def _state_files(state: Path) -> list[Path]:
    return sorted((state / "lambda").glob("*.json")) if (state / "lambda").exists() else []


def test_the_constant_owner_tag_alone_proves_nothing(
    moto: MotoServer, moto_lambda: Any, role: str, source: Path, state: Path, client: Any
) -> None:
    _foreign(moto_lambda, role, source, "mine", {OWNER_TAG: OWNER})
    with pytest.raises(ValueError, match=rf"but no {DEPLOYMENT_TAG} id, so nothing proves"):
        teardown("mine", client=client)
    with pytest.raises(ValueError, match="anyone can copy that tag"):
        deploy(FunctionSpec("mine", role=role, package=source, memory_mb=4096), client=client)
    assert _exists(moto_lambda, "mine")
    assert moto_lambda.get_function_configuration(FunctionName="mine")["MemorySize"] == 256


def test_a_forged_deployment_id_without_recorded_state_is_refused(
    moto: MotoServer, moto_lambda: Any, role: str, source: Path, state: Path, client: Any
) -> None:
    _foreign(moto_lambda, role, source, "mine", {OWNER_TAG: OWNER, DEPLOYMENT_TAG: "0" * 32})
    with pytest.raises(ValueError, match=rf"no deployment of it is recorded in {state}"):
        teardown("mine", client=client)
    assert _exists(moto_lambda, "mine")


def test_deploy_records_the_id_it_tags_and_no_credential(
    moto: MotoServer, moto_lambda: Any, role: str, source: Path, state: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    secret = f"Secret{uuid.uuid4().hex}"
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", secret)
    c = lambda_client(REGION, endpoint_url=moto.endpoint)
    d = deploy(FunctionSpec("bench", role=role, package=source), client=c)
    tags = moto_lambda.get_function(FunctionName="bench")["Tags"]
    assert tags[OWNER_TAG] == OWNER and tags[DEPLOYMENT_TAG] == d.deployment_id
    assert len(d.deployment_id) == 32
    [path] = _state_files(state)
    text = path.read_text()
    recorded = json.loads(text)
    assert recorded["deployment_id"] == d.deployment_id and recorded["name"] == "bench"
    assert recorded["arn"].endswith(":function:bench")
    assert secret not in text and "testing" not in text
    assert stat.S_IMODE((state / "lambda").stat().st_mode) == 0o700
    # No temporary file of the atomic write is left beside it.
    assert [p.name for p in (state / "lambda").iterdir()] == [path.name]
    # A second deploy from the same state updates it and keeps the id.
    again = deploy(FunctionSpec("bench", role=role, package=source, memory_mb=512), client=c)
    assert not again.created and again.deployment_id == d.deployment_id
    assert teardown("bench", client=c) is True
    assert not _exists(moto_lambda, "bench") and _state_files(state) == []


def test_a_function_replaced_behind_perfstats_back_is_refused(
    moto: MotoServer, moto_lambda: Any, role: str, source: Path, state: Path, client: Any
) -> None:
    deploy(FunctionSpec("bench", role=role, package=source), client=client)
    # Someone deletes it and creates their own, copying perfstats' tags but not the id.
    moto_lambda.delete_function(FunctionName="bench")
    _foreign(moto_lambda, role, source, "bench",
             {OWNER_TAG: OWNER, DEPLOYMENT_TAG: uuid.uuid4().hex})  # fmt: skip
    with pytest.raises(ValueError, match=rf"{DEPLOYMENT_TAG} tag does not match the deployment id"):
        teardown("bench", client=client)
    with pytest.raises(ValueError, match="does not match"):
        deploy(FunctionSpec("bench", role=role, package=source), client=client)
    assert _exists(moto_lambda, "bench")
    assert len(_state_files(state)) == 1  # the record stays until its own function is gone


def test_another_state_folder_cannot_tear_it_down(
    moto: MotoServer, moto_lambda: Any, role: str, source: Path, state: Path, client: Any,
    tmp_path: Path,
) -> None:  # fmt: skip
    d = deploy(FunctionSpec("bench", role=role, package=source), client=client)
    elsewhere = tmp_path / "other-machine"
    with pytest.raises(ValueError, match=f"no deployment of it is recorded in {elsewhere}"):
        teardown("bench", client=client, state=elsewhere)
    assert _exists(moto_lambda, "bench")
    # The Deployment itself carries the id: it proves ownership without the state.
    assert teardown(d, client=client, state=elsewhere) is True
    assert not _exists(moto_lambda, "bench")


@pytest.mark.parametrize(
    "given",
    ["bench:1", "bench:$LATEST", "arn:aws:lambda:us-east-1:123456789012:function:bench",
     "arn:aws:lambda:us-east-1:123456789012:function:bench:1"],
    ids=["version", "latest", "arn", "qualified-arn"],
)  # fmt: skip
def test_a_qualified_name_or_an_arn_is_refused_and_nothing_is_deleted(
    moto: MotoServer, moto_lambda: Any, role: str, source: Path, state: Path, client: Any,
    given: str,
) -> None:  # fmt: skip
    with deployed(FunctionSpec("bench", role=role, package=source), client=client) as d:
        with pytest.raises(ValueError, match=r"is a qualified name or an ARN; .*\(here 'bench'\)"):
            teardown(given, client=client)
        versions = moto_lambda.list_versions_by_function(FunctionName="bench")["Versions"]
        assert [v["Version"] for v in versions] == ["$LATEST", d.version]
    assert not _exists(moto_lambda, "bench")
    with pytest.raises(ValueError, match="is a qualified name or an ARN"):
        FunctionSpec(given, role=role, package=source)


def test_a_deploy_whose_state_cannot_be_written_leaves_nothing(
    moto: MotoServer, moto_lambda: Any, role: str, source: Path, tmp_path: Path, client: Any
) -> None:
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    (blocked / "lambda").write_text("a file where the state folder should be")
    with pytest.raises(OSError):
        deploy(FunctionSpec("bench", role=role, package=source), client=client, state=blocked)
    assert not _exists(moto_lambda, "bench")


def test_a_one_shot_run_keeps_its_state_in_the_folder_given_and_removes_it(
    moto: MotoServer, moto_lambda: Any, role: str, source: Path, tmp_path: Path, client: Any,
    state: Path,
) -> None:  # fmt: skip
    from perfstats.adapters.ab.deployed_run import run_deployed

    folder = tmp_path / "run-state"
    data = {
        "calls": 2, "repeats": 1, "concurrency": 1,
        "function": {"name": "oneshot", "role": role, "package": str(source),
                     "region": REGION, "endpoint_url": moto.endpoint, "memory_mb": 128},
        "target": {"unit": "ns", "timeout": 30},
        "benchmarks": [{"name": "a", "baseline": {}, "candidate": {"n": 2}}],
    }  # fmt: skip
    run, d = run_deployed(data, client=client, state=folder, rng=0)
    assert len(run.measurements) == 4 and len(d.deployment_id) == 32
    assert not _exists(moto_lambda, "oneshot")
    # The record went to the folder given (not the default one) and left with the function.
    assert (folder / "lambda").is_dir() and _state_files(folder) == []
    assert not state.exists()
