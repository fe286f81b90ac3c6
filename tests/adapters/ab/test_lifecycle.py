"""The Lambda function lifecycle (deploy, update, wait, publish, teardown) against moto.

moto runs on loopback with Lambda served without Docker (invoke echoes the
payload). Throttling: moto cannot produce Lambda's throttling errors, so a
real HTTP proxy on loopback (tests/support/aws_proxy.py) answers chosen
requests with HTTP 429 ``TooManyRequestsException`` as AWS does and
forwards the rest to moto.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from perfstats.adapters.ab import Benchmark, Suite, run_suite
from perfstats.adapters.ab.lifecycle import (
    OWNER_TAG,
    ZIP_LIMIT_BYTES,
    FunctionSpec,
    LifecycleError,
    deploy,
    deployed,
    lambda_client,
    package,
    teardown,
)
from perfstats.adapters.ab.reporting_lambda import ReportingLambda
from support.aws_proxy import aws_proxy
from support.services import MotoServer

pytestmark = [pytest.mark.service, pytest.mark.usefixtures("moto_credentials")]
REGION = "us-east-1"
HANDLER = "def handler(event, context):\n    return event\n"


@pytest.fixture(scope="module")
def role(lambda_role: str) -> str:
    return lambda_role


@pytest.fixture
def source(lambda_source: Path) -> Path:
    return lambda_source


@pytest.fixture(autouse=True)
def nothing_left(moto_lambda: Any) -> Iterator[None]:
    yield
    names = [f["FunctionName"] for f in moto_lambda.list_functions()["Functions"]]
    for name in names:  # leave the next test a clean server, then fail this one
        moto_lambda.delete_function(FunctionName=name)
    assert names == [], f"functions left deployed: {names}"


def _names(client: Any) -> list[str]:
    return [f["FunctionName"] for f in client.list_functions()["Functions"]]


def test_deploy_creates_waits_publishes_and_teardown_deletes(
    moto: MotoServer, moto_lambda: Any, role: str, source: Path
) -> None:
    spec = FunctionSpec("bench", role=role, package=source, memory_mb=512, architecture="arm64")
    d = deploy(spec, region=REGION, endpoint_url=moto.endpoint)
    assert d.created and d.version == "1" and (d.memory_mb, d.architecture) == (512, "arm64")
    found = moto_lambda.get_function(FunctionName="bench", Qualifier="1")
    assert found["Configuration"]["State"] == "Active"
    assert found["Configuration"]["MemorySize"] == 512
    assert found["Configuration"]["Architectures"] == ["arm64"]
    assert found["Tags"][OWNER_TAG] == "perfstats"
    assert teardown("bench", region=REGION, endpoint_url=moto.endpoint) is True
    assert _names(moto_lambda) == []
    assert teardown("bench", region=REGION, endpoint_url=moto.endpoint) is False


def test_deploy_again_updates_code_and_configuration(
    moto: MotoServer, moto_lambda: Any, role: str, source: Path
) -> None:
    c = lambda_client(REGION, endpoint_url=moto.endpoint)
    first = deploy(FunctionSpec("bench", role=role, package=source, memory_mb=512), client=c)
    sha = moto_lambda.get_function(FunctionName="bench")["Configuration"]["CodeSha256"]
    (source / "main.py").write_text(HANDLER + "# version 2\n")
    second = deploy(
        FunctionSpec("bench", role=role, package=source, memory_mb=1024, timeout_s=60,
                     environment={"MODE": "bench"}),
        client=c,
    )  # fmt: skip
    assert not second.created and (first.version, second.version) == ("1", "2")
    config = moto_lambda.get_function_configuration(FunctionName="bench", Qualifier="2")
    assert config["MemorySize"] == 1024 and config["Timeout"] == 60
    assert config["Environment"]["Variables"] == {"MODE": "bench"}
    assert config["CodeSha256"] != sha
    assert config["LastUpdateStatus"] == "Successful"
    teardown(second, client=c)


def test_container_image_deploy(moto: MotoServer, moto_lambda: Any, role: str) -> None:
    uri = "123456789012.dkr.ecr.us-east-1.amazonaws.com/bench:1"
    with deployed(
        FunctionSpec("image-bench", role=role, image_uri=uri, architecture="x86_64"),
        region=REGION, endpoint_url=moto.endpoint,
    ) as d:  # fmt: skip
        config = moto_lambda.get_function(FunctionName=d.name)["Configuration"]
        assert config["PackageType"] == "Image" and d.architecture == "x86_64"
    assert _names(moto_lambda) == []


def test_a_block_that_fails_still_tears_down(
    moto: MotoServer, moto_lambda: Any, role: str, source: Path
) -> None:
    with pytest.raises(KeyboardInterrupt):
        with deployed(FunctionSpec("bench", role=role, package=source),
                      region=REGION, endpoint_url=moto.endpoint):  # fmt: skip
            assert _names(moto_lambda) == ["bench"]
            raise KeyboardInterrupt
    assert _names(moto_lambda) == []


def test_a_role_that_does_not_exist(moto: MotoServer, moto_lambda: Any, source: Path) -> None:
    spec = FunctionSpec("bench", role="arn:aws:iam::123456789012:role/nobody", package=source)
    with pytest.raises(ValueError, match="role arn:aws:iam::123456789012:role/nobody does not"):
        with deployed(spec, region=REGION, endpoint_url=moto.endpoint):
            pytest.fail("deployed with a missing role")
    assert _names(moto_lambda) == []


def test_a_function_perfstats_did_not_create_is_never_touched(
    moto: MotoServer, moto_lambda: Any, role: str, source: Path
) -> None:
    moto_lambda.create_function(
        FunctionName="theirs", Runtime="python3.11", Role=role, Handler="main.handler",
        Code={"ZipFile": package(source)}, MemorySize=256,
    )  # fmt: skip
    try:
        spec = FunctionSpec("theirs", role=role, package=source, memory_mb=4096)
        with pytest.raises(ValueError, match="perfstats did not create it"):
            deploy(spec, region=REGION, endpoint_url=moto.endpoint)
        with pytest.raises(ValueError, match="perfstats did not create it"):
            with deployed(spec, region=REGION, endpoint_url=moto.endpoint):
                pytest.fail("deployed over a foreign function")
        with pytest.raises(ValueError, match="never changes or deletes it"):
            teardown("theirs", region=REGION, endpoint_url=moto.endpoint)
        config = moto_lambda.get_function_configuration(FunctionName="theirs")
        assert config["MemorySize"] == 256
        assert [v["Version"] for v in moto_lambda.list_versions_by_function(
            FunctionName="theirs")["Versions"]] == ["$LATEST"]  # fmt: skip
    finally:
        moto_lambda.delete_function(FunctionName="theirs")


def test_a_package_over_the_upload_limit(
    moto: MotoServer, moto_lambda: Any, role: str, tmp_path: Path
) -> None:
    big = tmp_path / "big"
    big.mkdir()
    (big / "main.py").write_text(HANDLER)
    # Random bytes do not compress, so the zip is over the limit too.
    (big / "weights.bin").write_bytes(os.urandom(ZIP_LIMIT_BYTES + 1024))
    with pytest.raises(ValueError, match=r"MB zipped; Lambda takes at most 50 MB"):
        deploy(FunctionSpec("bench", role=role, package=big), region=REGION,
               endpoint_url=moto.endpoint)  # fmt: skip
    assert _names(moto_lambda) == []


def test_missing_credentials_or_region(moto: MotoServer, monkeypatch, tmp_path: Path,
                                       role: str, source: Path) -> None:  # fmt: skip
    for key in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    spec = FunctionSpec("bench", role=role, package=source)
    with pytest.raises(ValueError, match="no AWS credentials found"):
        deploy(spec, region=REGION, endpoint_url=moto.endpoint)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    monkeypatch.delenv("AWS_REGION", raising=False)
    with pytest.raises(ValueError, match="no AWS region"):
        deploy(spec, endpoint_url=moto.endpoint)


def test_throttled_calls_are_retried(moto: MotoServer, moto_lambda: Any, role: str,
                                     source: Path) -> None:  # fmt: skip
    throttled = {"n": 0}

    def rule(method: str, path: str) -> str | None:
        # The first two attempts to create the function are throttled.
        if method == "POST" and path.rstrip("/").endswith("/functions") and throttled["n"] < 2:
            throttled["n"] += 1
            return "throttle"
        return None

    with aws_proxy(moto.endpoint, rule) as proxy:
        d = deploy(FunctionSpec("bench", role=role, package=source),
                   client=lambda_client(REGION, endpoint_url=proxy.endpoint))  # fmt: skip
        assert proxy.count(429) == 2 and d.version == "1"
        assert proxy.count(201, "/functions") >= 1  # the third attempt created it
        assert teardown(d, client=lambda_client(REGION, endpoint_url=proxy.endpoint))
    assert _names(moto_lambda) == []


def test_throttled_beyond_the_retries_is_an_error_and_leaves_nothing(
    moto: MotoServer, moto_lambda: Any, role: str, source: Path
) -> None:
    def rule(method: str, path: str) -> str | None:
        return "throttle" if method == "POST" and "/versions" in path else None

    with aws_proxy(moto.endpoint, rule) as proxy:
        c = lambda_client(REGION, endpoint_url=proxy.endpoint, attempts=3)
        with pytest.raises(LifecycleError, match=r"throttled .* after 3 attempts .*"
                                               r"TooManyRequestsException"):  # fmt: skip
            deploy(FunctionSpec("bench", role=role, package=source), client=c)
        assert proxy.count(429, "/versions") == 3
    # It was created before publishing failed, and deleted again.
    assert _names(moto_lambda) == []


def test_reporting_lambda_calls_the_published_version(
    moto: MotoServer, moto_lambda: Any, role: str, source: Path
) -> None:
    with deployed(FunctionSpec("bench", role=role, package=source, memory_mb=1024),
                  region=REGION, endpoint_url=moto.endpoint) as d:  # fmt: skip
        target = ReportingLambda(d.name, qualifier=d.version, region=REGION,
                                 endpoint_url=moto.endpoint, timeout=30)  # fmt: skip
        assert (target.memory_mb, target.architecture) == (1024, "arm64")
        suite = Suite([Benchmark("a", {"n": 1}, {"n": 2})], target, calls=3, repeats=1,
                      concurrency=3)  # fmt: skip
        run = run_suite(suite, rng=0)
    df = run.measurements
    assert len(df) == 6 and set(df["call"]) == {1, 2, 3}
    # moto echoes the request instead of running a runner: every call reached the
    # function with ElastiBench's fields, and its answer is rejected, not misread.
    assert set(df["status"]) == {"error"}
    assert df["error"].str.startswith("the answer has no list of results").all()
    echoed = df["error"].iloc[0]
    assert '"benchmark": "a"' in echoed
    assert json.loads(df["extra"].iloc[0])["status_code"] == 200
    assert _names(moto_lambda) == []


def test_throttled_invocations_are_recorded_as_failures(
    moto: MotoServer, role: str, source: Path
) -> None:
    def rule(method: str, path: str) -> str | None:
        return "throttle" if "/invocations" in path else None

    with deployed(FunctionSpec("bench", role=role, package=source),
                  region=REGION, endpoint_url=moto.endpoint) as d:  # fmt: skip
        with aws_proxy(moto.endpoint, rule) as proxy:
            target = ReportingLambda(d.name, qualifier=d.version, region=REGION,
                                     endpoint_url=proxy.endpoint)  # fmt: skip
            suite = Suite([Benchmark("a")], target, calls=2, repeats=2, concurrency=1)
            run = run_suite(suite, rng=0)
        # Invocations are not retried: a retried call would be timed as one.
        assert proxy.count(429, "/invocations") == 2
    assert (run.measurements["error"] == "TooManyRequestsException: Rate exceeded").all()


def test_package_zips_a_directory(source: Path, tmp_path: Path) -> None:
    (source / "lib").mkdir()
    (source / "lib" / "util.py").write_text("X = 1\n")
    (source / "__pycache__").mkdir()
    (source / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"\0")
    names = sorted(zipfile.ZipFile(io.BytesIO(package(source))).namelist())
    assert names == ["lib/util.py", "main.py"]
    with pytest.raises(ValueError, match="does not exist"):
        package(tmp_path / "missing")
    (tmp_path / "x.tar").write_bytes(b"")
    with pytest.raises(ValueError, match=r"must be a directory or a \.zip"):
        package(tmp_path / "x.tar")


def test_a_misspelt_access_keyword_is_refused_before_anything_is_made(
    moto: MotoServer, moto_lambda: Any, role: str, source: Path
) -> None:
    spec = FunctionSpec("bench", role=role, package=source)
    with pytest.raises(TypeError, match="unexpected keyword argument 'regoin'"):
        deploy(spec, regoin=REGION, endpoint_url=moto.endpoint)
    with pytest.raises(TypeError, match=r"'endpoint'.*region, endpoint_url"):
        with deployed(spec, region=REGION, endpoint=moto.endpoint):
            pytest.fail("deployed with a misspelt keyword")
    with pytest.raises(TypeError, match="'clinet'"):
        teardown("bench", clinet=moto_lambda)
    assert _names(moto_lambda) == []
