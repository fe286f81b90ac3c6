"""The example Lambda runner (examples/lambda_function) answers the protocol it is sent."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from io import BytesIO
from pathlib import Path

from perfstats.adapters.ab.benchmark import Benchmark
from perfstats.adapters.ab.config import function_of, load_config
from perfstats.adapters.ab.interleaving import duet_plan
from perfstats.adapters.ab.lifecycle import package
from perfstats.adapters.ab.protocol import read_results, request_of
from perfstats.adapters.records.measurement import utc_now

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
FUNCTION = EXAMPLES / "lambda_function"


def _handle(request: dict) -> str:
    # A fresh interpreter, as a Lambda instance: the handler's imports are its own.
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); import main; "
        "print(json.dumps(main.handler(json.loads(sys.argv[2]), None)))"
    )
    done = subprocess.run([sys.executable, "-c", code, str(FUNCTION), json.dumps(request)],
                          capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
    return done.stdout


def test_the_example_config_deploys_the_example_function() -> None:
    spec, place = function_of(load_config(EXAMPLES / "lambda_suite.toml"), base=EXAMPLES)
    assert Path(spec.package) == FUNCTION and place == {"region": "eu-west-1"}
    names = zipfile.ZipFile(BytesIO(package(spec.package))).namelist()
    assert {"main.py", "baseline/bench.py", "candidate/bench.py"} <= set(names)


def test_the_runner_times_every_execution_in_order() -> None:
    call = duet_plan(["join"], calls=1, repeats=3, rng=2)[0]
    request = request_of(call, Benchmark("join", {"size": 2000}, {"size": 2000}),
                         randomize=True, timeout_s=60)  # fmt: skip
    ms = read_results(_handle(request), call, unit="ns", started_at=utc_now())
    assert [m.status for m in ms] == ["ok"] * 6 and all(m.value > 0 for m in ms)


def test_the_runner_stops_starting_executions_at_the_timeout() -> None:
    call = duet_plan(["sort"], calls=1, repeats=2, rng=2)[0]
    request = request_of(call, Benchmark("sort"), randomize=True, timeout_s=0.5)
    ms = read_results(_handle(request), call, unit="ns", started_at=utc_now())
    assert [m.status for m in ms] == ["error"] * 4
    assert ms[0].error == "not started: the call's 0.5 s were used up"
