"""``perfstats ab`` on AWS Lambda against moto: deploy, teardown, the one-shot run, interrupts.

moto serves Lambda without Docker, so the deployed function echoes the
request instead of running a benchmark runner: these tests check the
lifecycle (everything deployed is removed, also on Ctrl-C and SIGTERM) and
the cost line; the data plane is tested through the Functions Framework
(test_ab_cost.py, test_reporting_http.py).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from perfstats.adapters.ab import read_ab_record
from perfstats.adapters.cli import main
from perfstats.adapters.records import metadata_path
from perfstats.adapters.report.billing import billing
from support.aws_proxy import aws_proxy
from support.services import MotoServer, aws_env

from perfstats import faas_cost

pytestmark = [pytest.mark.service, pytest.mark.usefixtures("moto_credentials")]
REGION = "us-east-1"
NAME = "perfstats-ab-bench"


@pytest.fixture(scope="module")
def role(lambda_role: str) -> str:
    return lambda_role


@pytest.fixture(autouse=True)
def nothing_left(moto_lambda: Any) -> Iterator[None]:
    yield
    names = [f["FunctionName"] for f in moto_lambda.list_functions()["Functions"]]
    for name in names:
        moto_lambda.delete_function(FunctionName=name)
    assert names == [], f"functions left deployed: {names}"


def _config(tmp_path: Path, role: str, endpoint: str, *, calls: int = 3) -> Path:
    fn = tmp_path / "fn"
    fn.mkdir(exist_ok=True)
    (fn / "main.py").write_text("def handler(event, context):\n    return event\n")
    path = tmp_path / "lambda_suite.toml"
    path.write_text(
        f"""\
schedule = "duet"
calls = {calls}
repeats = 1
concurrency = 1
seed = 1

[function]
name = "{NAME}"
role = "{role}"
package = "fn"
memory_mb = 1024
architecture = "arm64"
timeout_s = 30
region = "{REGION}"
endpoint_url = "{endpoint}"

[target]
timeout = 30
unit = "ns"

[[benchmarks]]
name = "sort"
params = {{kernel = "sort", size = 100}}
baseline = {{}}
candidate = {{units = 2}}
"""
    )
    return path


def _names(client: Any) -> list[str]:
    return [f["FunctionName"] for f in client.list_functions()["Functions"]]


def test_deploy_and_teardown_commands(capsys, moto: MotoServer, moto_lambda: Any, role: str,
                                      tmp_path: Path) -> None:  # fmt: skip
    config = _config(tmp_path, role, moto.endpoint)
    assert main(["ab", "deploy", str(config)]) == 0
    out = capsys.readouterr().out
    assert f"function {NAME} created, version 1 published (1024 MB, arm64)" in out
    assert _names(moto_lambda) == [NAME]
    assert main(["ab", "deploy", str(config), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["created"] is False and again["version"] == "2"
    assert main(["ab", "teardown", str(config)]) == 0
    assert f"{NAME}: deleted" in capsys.readouterr().out
    assert _names(moto_lambda) == []
    assert main(["ab", "teardown", str(config)]) == 0
    assert "nothing to delete" in capsys.readouterr().out


def test_one_shot_run_deploys_runs_three_calls_and_tears_down(
    capsys, moto: MotoServer, moto_lambda: Any, role: str, tmp_path: Path
) -> None:
    config = _config(tmp_path, role, moto.endpoint)
    record = tmp_path / "ab.csv"
    started = time.monotonic()
    code = main(["ab", str(config), "--record", str(record), "--no-progress"])
    took = time.monotonic() - started
    out, err = capsys.readouterr()
    assert code == 0, err
    # The bound for the whole cycle on moto (it takes a few seconds here).
    assert took < 30, f"deploy, 3 calls and teardown took {took:.1f} s"
    assert _names(moto_lambda) == []
    assert f"function {NAME} version 1 (1024 MB, arm64), deployed for the run and deleted" in out
    df = read_ab_record(record)
    assert sorted(set(df["call"])) == [1, 2, 3] and len(df) == 6
    meta = json.loads(metadata_path(record).read_text())
    target = meta["suite"]["target"]
    assert (target["kind"], target["qualifier"], target["memory_mb"]) == ("lambda", "1", 1024)
    # No REPORT line from moto: each call is billed by its measured duration.
    bill = billing(df)
    assert bill.requests == 3 and bill.from_report == 0 and len(bill.durations_s) == 3
    expected = faas_cost(bill.durations_s, memory_mb=1024, architecture="arm64", requests=3)
    assert f"cost     USD {expected.total:.6f} (3 requests" in out


def test_one_shot_with_a_missing_role_leaves_nothing(
    capsys, moto: MotoServer, moto_lambda: Any, tmp_path: Path
) -> None:
    config = _config(tmp_path, "arn:aws:iam::123456789012:role/missing", moto.endpoint)
    assert main(["ab", str(config), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "role arn:aws:iam::123456789012:role/missing does not exist" in err
    assert _names(moto_lambda) == []


def test_a_price_table_without_a_date_fails_before_deploying(
    capsys, moto: MotoServer, moto_lambda: Any, role: str, tmp_path: Path
) -> None:
    config = _config(tmp_path, role, moto.endpoint)
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"region": "us-east-1", "per_gb_second": {"arm64": 1e-5},
                                  "per_million_requests": 0.2}))  # fmt: skip
    assert main(["ab", str(config), "--prices", str(prices), "--no-progress"]) == 2
    assert "has no 'date'" in capsys.readouterr().err
    assert _names(moto_lambda) == []


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_an_interrupted_run_tears_down(
    moto: MotoServer, moto_lambda: Any, role: str, tmp_path: Path, signum: int
) -> None:
    def slow_invocations(method: str, path: str) -> float | None:
        return 1.5 if "/invocations" in path else None

    with aws_proxy(moto.endpoint, slow_invocations) as proxy:
        config = _config(tmp_path, role, proxy.endpoint, calls=20)
        env = {**os.environ, **aws_env(proxy.endpoint)}
        proc = subprocess.Popen(
            [sys.executable, "-m", "perfstats.adapters.cli", "ab", str(config), "--no-progress"],
            env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 60
            while not proxy.count(200, "/invocations") and time.monotonic() < deadline:
                assert proc.poll() is None, proc.communicate()
                time.sleep(0.05)
            assert _names(moto_lambda) == [NAME]  # deployed and calling
            proc.send_signal(signum)
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        assert proc.returncode == 130, err.decode()
        assert b"interrupted" in err
        assert any(m == "DELETE" and s == 204 for m, _, s in proxy.seen)
        assert proxy.count(200, "/invocations") < 20  # it stopped before the end
    assert _names(moto_lambda) == []


def test_a_deploy_interrupted_while_waiting_leaves_nothing(
    moto: MotoServer, moto_lambda: Any, role: str, tmp_path: Path
) -> None:
    def slow_lookups(method: str, path: str) -> float | None:
        # The waiter polls GetFunction: slow it so the signal lands in the wait.
        return 1.5 if method == "GET" and f"/functions/{NAME}" in path else None

    with aws_proxy(moto.endpoint, slow_lookups) as proxy:
        config = _config(tmp_path, role, proxy.endpoint)
        env = {**os.environ, **aws_env(proxy.endpoint)}
        proc = subprocess.Popen(
            [sys.executable, "-m", "perfstats.adapters.cli", "ab", str(config), "--no-progress"],
            env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 60
            while not proxy.count(201) and time.monotonic() < deadline:
                assert proc.poll() is None, proc.communicate()
                time.sleep(0.02)
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        assert proc.returncode == 130, err.decode()
        assert not any("/versions" in p for _, p, _ in proxy.seen)  # stopped before publishing
        assert not any("/invocations" in p for _, p, _ in proxy.seen)
        assert any(m == "DELETE" and s == 204 for m, _, s in proxy.seen)
    assert _names(moto_lambda) == []
