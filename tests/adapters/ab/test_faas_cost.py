"""Cost of FaaS runs: the data plane through a Functions Framework HTTP function, priced.

The function is an ElastiBench-style runner written for the test: it runs
the request's executions in this instance and times them, and reports the
ElastiBench fields it received (``benchmarks``, ``randomize``,
``timeout_s``) beside the results. The cost of ``perfstats ab``, ``perfstats
run`` on the HTTP function and on a Lambda function (moto), and the HTML
report's cost line are checked against :func:`perfstats.faas_cost` on the
durations in the record.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from perfstats.adapters import read_record
from perfstats.adapters.ab import read_ab_record
from perfstats.adapters.cli import main
from perfstats.adapters.records import metadata_path
from perfstats.adapters.report.billing import billing, load_prices, run_cost
from perfstats.adapters.report.html import render_html_report
from support.services import (
    LOOPBACK,
    MotoServer,
    aws_env,
    free_port,
    require,
    stop,
    wait_for_port,
)

from perfstats import faas_cost

pytestmark = pytest.mark.service

RUNNER = '''\
import json
import os
import time


def _work(n):
    total = 0
    for i in range(n):
        total += i * i
    return total


def runner(request):
    body = request.get_json(silent=True)
    if not isinstance(body, dict) or "executions" not in body:
        return "expected a suite call request", 400, {}
    results = []
    for version, repeat in body["executions"]:
        params = body["versions"][version]
        t0 = time.perf_counter_ns()
        _work(int(params.get("n", 1000)))
        results.append({"version": version, "repeat": repeat,
                        "value": time.perf_counter_ns() - t0})
    answer = {"results": results, "unit": "ns", "pid": os.getpid(),
              "received": {k: body.get(k) for k in ("benchmarks", "randomize", "timeout_s")}}
    return json.dumps(answer), 200, {"Content-Type": "application/json"}
'''

PRICES_TOML = """\
date = "2025-06-30"
region = "eu-central-1"
currency = "USD"
per_million_requests = 0.25
[per_gb_second]
x86_64 = 0.00002
arm64 = 0.000016
"""


@pytest.fixture(scope="module")
def runner_url(tmp_path_factory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("runner")
    source = tmp / "main.py"
    source.write_text(RUNNER)
    port = free_port()
    with open(tmp / "ff.log", "wb") as log:
        proc = subprocess.Popen(
            [require("functions-framework"), "--target=runner", f"--source={source}",
             f"--host={LOOPBACK}", f"--port={port}"],
            stdout=subprocess.DEVNULL, stderr=log, start_new_session=True,
        )  # fmt: skip
    try:
        wait_for_port(port, proc, 30, "functions-framework")
        yield f"http://{LOOPBACK}:{port}/"
    finally:
        stop(proc)


@pytest.fixture
def prices(tmp_path: Path) -> Path:
    path = tmp_path / "prices.toml"
    path.write_text(PRICES_TOML)
    return path


def _suite(tmp_path: Path, url: str, sized: bool) -> Path:
    size = 'memory_mb = 512\narchitecture = "arm64"\n' if sized else ""
    path = tmp_path / "http_suite.toml"
    path.write_text(
        f"""\
schedule = "duet"
calls = 4
repeats = 2
concurrency = 2
seed = 5

[target]
kind = "http"
url = "{url}"
unit = "ns"
timeout = 60
{size}
[[benchmarks]]
name = "loop"
baseline = {{n = 2000}}
candidate = {{n = 4000}}
"""
    )
    return path


def test_ab_over_the_functions_framework_reports_its_cost(
    capsys, runner_url: str, tmp_path: Path, prices: Path
) -> None:
    record = tmp_path / "ab.csv"
    config = _suite(tmp_path, runner_url, sized=True)
    code = main(["ab", str(config), "--record", str(record), "--prices", str(prices),
                 "--no-progress", "--json"])  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    df = read_ab_record(record)
    assert set(df["status"]) == {"ok"} and len(df) == 16
    received = json.loads(df["extra"].iloc[0])["received"]
    assert received == {"benchmarks": ["loop"], "randomize": True, "timeout_s": 60.0}
    # One request per call, billed by the call's measured duration.
    walls = df.drop_duplicates("call")["extra"].map(lambda e: json.loads(e)["call_wall_ns"])
    expected = faas_cost(walls.to_numpy() / 1e9, memory_mb=512, architecture="arm64",
                         prices=load_prices(prices))  # fmt: skip
    cost = out["cost"]
    assert cost["requests"] == 4 and cost["region"] == "eu-central-1"
    assert cost["total"] == pytest.approx(expected.total, rel=1e-12)
    assert cost["gb_seconds"] == pytest.approx(expected.gb_seconds, rel=1e-12)
    # The text output and the report show it beside the time.
    assert main(["ab", "--from-record", str(record), "--prices", str(prices)]) == 0
    text = capsys.readouterr().out
    ran = next(i for i, line in enumerate(text.splitlines()) if line.startswith("ran "))
    assert text.splitlines()[ran + 1] == (
        f"cost     USD {expected.total:.6f} (4 requests, {expected.gb_seconds:.4g} GB-s on "
        "512 MB arm64; eu-central-1 prices of 2025-06-30)"
    )
    page = render_html_report(record, prices=load_prices(prices))
    assert f"USD {expected.total:.6f} (4 requests" in page
    assert page.index("<dt>time</dt>") < page.index("<dt>cost</dt>")


def test_an_unsized_http_function_says_it_is_not_priced(
    capsys, runner_url: str, tmp_path: Path
) -> None:
    config = _suite(tmp_path, runner_url, sized=False)
    assert main(["ab", str(config), "--no-progress"]) == 0
    assert "cost     not priced: the function's memory is unknown" in capsys.readouterr().out
    assert main(["ab", str(config), "--no-progress", "--memory-mb", "256", "--json"]) == 0
    cost = json.loads(capsys.readouterr().out)["cost"]
    assert (cost["memory_mb"], cost["architecture"], cost["requests"]) == (256, "x86_64", 4)


def test_perfstats_run_on_the_http_function_reports_its_cost(
    capsys, runner_url: str, tmp_path: Path
) -> None:
    record = tmp_path / "run.csv"
    payload = json.dumps({"versions": {"baseline": {"n": 1000}},
                          "executions": [["baseline", 1]]})  # fmt: skip
    code = main(["run", "--target", "http", "--rule", "fixed", "--rule-option", "n=6",
                 "-t", f"payload={payload}", "--memory-mb", "1024", "--record", str(record),
                 "--no-progress", "--", runner_url])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    df = read_record(record)
    walls = df["extra"].map(lambda e: json.loads(e)["wall_ns"]).to_numpy() / 1e9
    expected = faas_cost(walls, memory_mb=1024, architecture="x86_64")
    assert f"cost: USD {expected.total:.6f} ({len(df)} requests" in out


@pytest.fixture(scope="module")
def echo_function(moto: MotoServer) -> Iterator[str]:
    kw: dict[str, Any] = dict(region_name="us-east-1", endpoint_url=moto.endpoint,
                              aws_access_key_id="testing", aws_secret_access_key="testing")
    iam = boto3.client("iam", **kw)
    role = iam.create_role(RoleName="cost", AssumeRolePolicyDocument="{}")["Role"]["Arn"]
    client = boto3.client("lambda", **kw)
    import io
    import zipfile

    code = io.BytesIO()
    with zipfile.ZipFile(code, "w") as z:
        z.writestr("main.py", "def handler(event, context):\n    return event\n")
    client.create_function(
        FunctionName="priced", Runtime="python3.12", Role=role, Handler="main.handler",
        Code={"ZipFile": code.getvalue()}, MemorySize=2048, Architectures=["arm64"],
    )  # fmt: skip
    yield "priced"
    client.delete_function(FunctionName="priced")


def test_perfstats_run_on_lambda_reports_its_cost(
    capsys, monkeypatch, moto: MotoServer, echo_function: str, tmp_path: Path, prices: Path
) -> None:
    for key, value in aws_env(moto.endpoint).items():
        monkeypatch.setenv(key, value)
    record = tmp_path / "lambda.csv"
    code = main(["run", "--target", "lambda", "-t", "metric=wall", "-t",
                 f"endpoint_url={moto.endpoint}", "--rule", "fixed", "--rule-option", "n=5",
                 "--record", str(record), "--no-progress", "--", echo_function])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    df = read_record(record)
    meta = json.loads(metadata_path(record).read_text())
    target = meta["target"]
    assert (target["memory_mb"], target["architecture"]) == (2048, "arm64")
    # moto writes no REPORT line: the measured durations are billed.
    bill = billing(df)
    assert bill.from_report == 0 and bill.requests == len(df)
    expected = run_cost(df, target)
    assert expected is not None and expected.memory_mb == 2048
    assert f"cost: USD {expected.total:.6f} ({len(df)} requests" in out
    page = render_html_report(record)
    assert f"USD {expected.total:.6f}" in page
    # perfstats report shows it beside the time, priced with the table given.
    assert main(["report", str(record), "--prices", str(prices)]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("time "))
    other = run_cost(df, target, prices=load_prices(prices))
    assert other is not None and other.total != expected.total
    assert lines[at + 1].startswith(f"cost       USD {other.total:.6f} ({len(df)} requests")
    assert lines[at + 1].endswith("eu-central-1 prices of 2025-06-30)")
    html = tmp_path / "lambda.html"
    assert main(["report", str(record), "--prices", str(prices), "-o", str(html)]) == 0
    assert f"USD {other.total:.6f}" in html.read_text()
