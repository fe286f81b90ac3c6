"""The Lambda deployment state perfstats keeps never holds a credential, against moto.

The state file records names, the endpoint and the random deployment id;
neither the AWS secret key nor a password written into the endpoint URL may
reach it.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from perfstats.adapters.ab.lifecycle import FunctionSpec, deploy, lambda_client, teardown
from support.services import MotoServer, aws_client

pytestmark = [pytest.mark.service, pytest.mark.usefixtures("moto_credentials")]


def test_state_file_has_neither_the_secret_key_nor_an_endpoint_password(
    moto: MotoServer, moto_lambda: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key, password = f"Key{uuid.uuid4().hex}", f"Pw{uuid.uuid4().hex}"
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", key)
    role = aws_client("iam", moto.endpoint).create_role(
        RoleName="state-secret", AssumeRolePolicyDocument="{}"
    )["Role"]["Arn"]
    source = tmp_path / "fn"
    source.mkdir()
    (source / "main.py").write_text("def handler(event, context):\n    return event\n")
    endpoint = moto.endpoint.replace("://", f"://ops:{password}@", 1)
    client = lambda_client("us-east-1", endpoint_url=endpoint)
    state = tmp_path / "state"
    d = deploy(FunctionSpec("secretive", role=role, package=source), client=client, state=state)
    try:
        [path] = (state / "lambda").glob("*.json")
        text = path.read_text()
        assert d.deployment_id in text
        assert key not in text and password not in text
        assert "ops:<redacted>@" in text
    finally:
        assert teardown(d.name, client=client, state=state) is True
    assert list((state / "lambda").iterdir()) == []
