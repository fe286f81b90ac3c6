"""No secret reaches a file a run writes or anything the command prints.

Each test runs the real ``perfstats`` console script in a subprocess with a
target that carries one secret of each kind, then reads back every file the
run and its reports wrote and everything the processes printed, and looks
for every secret: none may appear.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import uuid
import zipfile
from pathlib import Path

import boto3
import pytest
from perfstats.adapters.records import metadata_path
from support.echo_http import echo_server
from support.services import require

# The interpreter of the console script (the one perfstats is installed in).
PYTHON = open(require("perfstats")).readline().removeprefix("#!").strip()


def _secret(kind: str) -> str:
    return f"S3cr3t{kind}{uuid.uuid4().hex[:10]}"


# Runs several ``perfstats`` command lines in one child process (each as the
# console script would: sys.argv set, main called), to pay the imports once.
SESSION = """\
import json, sys
from perfstats.adapters.cli import main
codes = []
for argv in json.load(open(sys.argv[1])):
    sys.argv = ["perfstats", *argv]
    codes.append(main(argv))
    sys.stdout.flush()
    sys.stderr.flush()
print("exit codes " + json.dumps(codes))
"""


def _perfstats(commands: list[list[str]], *, env: dict[str, str], inputs: Path, cwd: Path):
    """Exit codes and everything printed by the ``perfstats`` command lines ``commands``."""
    listing = inputs / f"commands-{uuid.uuid4().hex[:6]}.json"
    listing.write_text(json.dumps(commands))
    done = subprocess.run(
        [PYTHON, "-c", SESSION, str(listing)],
        capture_output=True, text=True, env=env, cwd=cwd, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    last = done.stdout.rstrip().splitlines()[-1]
    return json.loads(last.removeprefix("exit codes ")), done.stdout + done.stderr


def _reports(record: Path) -> list[list[str]]:
    """The ``perfstats report`` command lines of a record: summary, JSON, HTML."""
    return [["report", str(record)], ["report", str(record), "--json"],
            ["report", str(record), "-o", str(record.with_suffix(".html"))]]  # fmt: skip


def _leaks(secrets: dict[str, str], folder: Path, printed: list[str]) -> dict[str, list[str]]:
    """Which secrets appear where: in a file under ``folder`` or in printed text."""
    places = {os.fspath(p): p.read_bytes().decode("utf-8", "replace")
              for p in folder.rglob("*") if p.is_file()}  # fmt: skip
    places.update({f"printed[{i}]": text for i, text in enumerate(printed)})
    found: dict[str, list[str]] = {}
    for kind, secret in secrets.items():
        where = [place for place, text in places.items() if secret in text]
        if where:
            found[kind] = where
    return found


def _base_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    return {**env, **extra}


SCRIPT = """\
import os, pathlib, sys
counter = pathlib.Path(sys.argv[1])
n = int(counter.read_text()) if counter.exists() else 0
counter.write_text(str(n + 1))
if n < 2 or len(sys.argv) > 8:
    # A careless program: its error quotes its environment and argv.
    sys.stderr.write("failed: DB_PASS=%s aws=%s argv=%r\\n" % (
        os.environ["DB_PASS"], os.environ["AWS_SECRET_ACCESS_KEY"], sys.argv))
    sys.exit(1)
"""


def test_command_target_secrets_never_written_or_printed(tmp_path) -> None:
    secrets = {
        kind: _secret(kind)
        for kind in ("flag", "flag_eq", "assign", "userinfo", "query_token", "query_code",
                     "query_sig", "env_option", "driver_env", "bearer")
    }  # fmt: skip
    work = tmp_path / "work"
    work.mkdir()
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    script = inputs / "careless.py"
    script.write_text(SCRIPT)
    url = (f"https://bench:{secrets['userinfo']}@example.org/x?token={secrets['query_token']}"
           f"&code={secrets['query_code']}&n=1&sig={secrets['query_sig']}")  # fmt: skip
    argv = [
        sys.executable, str(script), str(inputs / "counter"),
        "--api-token", secrets["flag"], f"--password={secrets['flag_eq']}",
        f"MYSQL_PWD={secrets['assign']}", url,
        f"Authorization: Bearer {secrets['bearer']}",
    ]  # fmt: skip
    env = _base_env(AWS_SECRET_ACCESS_KEY=secrets["driver_env"])
    record, failing = work / "run.csv", work / "fail.csv"
    env_option = json.dumps({"DB_PASS": secrets["env_option"], "MODE": "fast"})
    run = ["run", "--rule", "fixed", "-r", "n=3", "-t", f"env={env_option}"]
    codes, text = _perfstats(
        [
            [*run, "--record", str(record), "--no-progress", "--", *argv],
            *_reports(record),
            # The target now keeps failing: the run ends with an error naming the last failure.
            [*run, "--record", str(failing), "--max-failures", "2", "--json", "--", *argv,
             str(inputs / "counter")],
            *_reports(failing),
        ],
        env=env, inputs=inputs, cwd=work,
    )  # fmt: skip
    assert codes == [0, 0, 0, 0, 1, 0, 0, 0], text
    # The runs really went through the failures that quote the secrets.
    assert "failed:" in text and "<redacted>" in text and "failed 2 times in a row" in text
    assert _leaks(secrets, work, [text]) == {}
    # What is recorded is still useful: the run and its non-secret settings.
    meta = json.loads(metadata_path(work / "run.csv").read_text())
    assert meta["target"]["env"] == {"DB_PASS": "<redacted>", "MODE": "fast"}
    assert meta["target"]["argv"][3:5] == ["--api-token", "<redacted>"]


def test_http_target_secrets_never_written_or_printed(tmp_path) -> None:
    secrets = {
        kind: _secret(kind)
        for kind in ("authorization", "api_key", "functions_key", "cookie", "userinfo",
                     "query_token", "payload")
    }  # fmt: skip
    headers = {
        "Authorization": f"Bearer {secrets['authorization']}",
        "X-Api-Key": secrets["api_key"],
        "X-Functions-Key": secrets["functions_key"],
        "Cookie": f"session={secrets['cookie']}",
        "Accept": "text/plain",
    }
    payload = {"password": secrets["payload"], "n": 3}
    work, inputs = tmp_path / "work", tmp_path / "inputs"
    work.mkdir()
    inputs.mkdir()
    env = _base_env()
    with echo_server(failures=2) as server:
        url = (f"http://bench:{secrets['userinfo']}@127.0.0.1:{server.port}/run"
               f"?token={secrets['query_token']}&n=1")  # fmt: skip
        record = work / "http.csv"
        run = [
            "run", "--target", "http", "--rule", "fixed", "-r", "n=3", "--record", str(record),
            "-t", f"headers={json.dumps(headers)}", "-t", f"payload={json.dumps(payload)}",
            "--no-progress", "--", url,
        ]  # fmt: skip
        codes, text = _perfstats([run, *_reports(record)], env=env, inputs=inputs, cwd=work)
        assert codes == [0, 0, 0, 0], text
        # The server got the secrets and quoted them back in its 500 pages.
        assert len(server.requests) == 5 and secrets["query_token"] in server.requests[0]
    assert "HTTP 500" in (work / "http.csv").read_text()
    assert _leaks(secrets, work, [text]) == {}
    meta = json.loads(metadata_path(work / "http.csv").read_text())
    assert meta["target"]["headers"]["Accept"] == "text/plain"
    assert meta["target"]["payload"] == {"password": "<redacted>", "n": 3}


def test_lambda_payload_and_aws_keys_never_written_or_printed(moto, tmp_path) -> None:
    secrets = {kind: _secret(kind) for kind in ("payload", "api_key", "aws_secret", "session")}
    aws = {
        "AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
        "AWS_SECRET_ACCESS_KEY": secrets["aws_secret"],
        "AWS_SESSION_TOKEN": secrets["session"],
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    kwargs = {"region_name": "us-east-1", "endpoint_url": moto.endpoint,
              "aws_access_key_id": "testing", "aws_secret_access_key": "testing"}  # fmt: skip
    role = boto3.client("iam", **kwargs).create_role(
        RoleName="secrets", AssumeRolePolicyDocument="{}"
    )
    code = io.BytesIO()
    with zipfile.ZipFile(code, "w") as z:
        z.writestr("main.py", "def handler(event, context):\n    return event\n")
    boto3.client("lambda", **kwargs).create_function(
        FunctionName="secrets", Runtime="python3.11", Role=role["Role"]["Arn"],
        Handler="main.handler", Code={"ZipFile": code.getvalue()},
    )  # fmt: skip
    work, inputs = tmp_path / "work", tmp_path / "inputs"
    work.mkdir()
    inputs.mkdir()
    env = _base_env(**aws)
    payload = {"password": secrets["payload"], "apiKey": secrets["api_key"], "size": 128}
    record = work / "lambda.csv"
    run = [
        "run", "--target", "lambda", "--rule", "fixed", "-r", "n=3", "--record", str(record),
        "-t", "region=us-east-1", "-t", f"endpoint_url={moto.endpoint}", "-t", "metric=wall",
        "-t", f"payload={json.dumps(payload)}", "--no-progress", "--", "secrets",
    ]  # fmt: skip
    codes, text = _perfstats([run, *_reports(record)], env=env, inputs=inputs, cwd=work)
    assert codes == [0, 0, 0, 0], text
    leaks = _leaks({**secrets, "key_id": aws["AWS_ACCESS_KEY_ID"]}, work, [text])
    assert leaks == {}
    meta = json.loads(metadata_path(work / "lambda.csv").read_text())
    assert meta["target"]["payload"]["size"] == 128


@pytest.mark.parametrize(
    "name",
    ["Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key", "X-Functions-Key",
     "X-Amz-Security-Token", "DB_PASS", "MYSQL_PWD", "GITHUB_PAT", "AWS_SECRET_ACCESS_KEY",
     "db.password", "passwd", "clientSecret", "aws-credential", "SESSION_ID", "X-Signature",
     "code", "sig", "apiKey", "PGPASSWORD"],
)  # fmt: skip
def test_every_listed_name_is_redacted_by_position(name: str) -> None:
    from perfstats.adapters.records.redaction import redact, redact_text

    value = _secret("v")
    forms = [
        f"{name}={value}",
        f"--{name} {value}",
        f"--{name}={value}",
        f"{name}: {value}",
        json.dumps({name: value}),
        repr({name: value}),
        f"http://127.0.0.1/x?{name}={value}",
    ]
    for form in forms:
        assert value not in redact_text(form), form
    assert value not in json.dumps(redact({"headers": {name: value}}))
    assert value not in json.dumps(redact(["./b", f"--{name}", value]))


@pytest.mark.parametrize(
    "name", ["PATH", "HOME", "BYPASS", "monkey", "max_tokens", "keepalive", "patience",
             "sessions", "passes", "Content-Type", "key", "unit", "n", "PWD", "OLDPWD"],
)  # fmt: skip
def test_harmless_names_are_kept(name: str) -> None:
    from perfstats.adapters.records.redaction import is_secret_name, redact_text

    assert not is_secret_name(name)
    assert redact_text(f"{name}=/usr/local/bin") == f"{name}=/usr/local/bin"


def test_ab_suite_secrets_never_written_or_printed(tmp_path) -> None:
    from support.suites import WORKLOADS

    secrets = {
        kind: _secret(kind)
        for kind in ("env", "db_pass", "mysql_pwd", "github_pat", "flag", "label_userinfo",
                     "label_token")
    }  # fmt: skip
    work, inputs = tmp_path / "work", tmp_path / "inputs"
    work.mkdir()
    inputs.mkdir()
    config = inputs / "suite.toml"
    config.write_text(
        'schedule = "duet"\ncalls = 4\nrepeats = 1\nconcurrency = 2\nseed = 3\n\n'
        f'[target]\nargv = ["{{python}}", "-I", "-S", "{WORKLOADS.name}", "--api-token", '
        f'"{secrets["flag"]}"]\n'
        f'cwd = "{WORKLOADS.parent}"\nunit = "ns"\n'
        f'label = "https://bench:{secrets["label_userinfo"]}@ci.example/?token='
        f'{secrets["label_token"]}"\n'
        f'env = {{BENCH_API_TOKEN = "{secrets["env"]}", DB_PASS = "{secrets["db_pass"]}", '
        f'MYSQL_PWD = "{secrets["mysql_pwd"]}", GITHUB_PAT = "{secrets["github_pat"]}"}}\n\n'
        '[[benchmarks]]\nname = "same"\n'
        'params = {kernel = "lcg", size = 100, clock = "thread"}\n'
        "baseline = {units = 2}\ncandidate = {units = 2}\n"
    )
    record = work / "suite.csv"
    codes, text = _perfstats(
        [
            ["ab", str(config), "--record", str(record), "--no-progress"],
            ["ab", "--from-record", str(record), "--json"],
            ["report", str(record), "-o", str(work / "suite.html")],
        ],
        env=_base_env(), inputs=inputs, cwd=work,
    )  # fmt: skip
    assert codes == [0, 0, 0], text
    assert _leaks(secrets, work, [text]) == {}
    meta = json.loads(metadata_path(work / "suite.csv").read_text())
    assert set(meta["suite"]["target"]["env"].values()) == {"<redacted>"}
