"""The HttpFunction target against the Functions Framework serving a real function."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
from perfstats.adapters import HttpFunction, read_record, run
from perfstats.adapters.cli import main
from support.services import FunctionServer, free_port, function_server

from perfstats.rules import Fixed


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[FunctionServer]:
    with function_server(tmp_path_factory.mktemp("ff")) as s:
        yield s


def test_wall_time_and_reported_value(server: FunctionServer) -> None:
    wall = HttpFunction(server.url, payload={"n": 500}).invoke()
    assert wall.ok and wall.unit == "ns" and wall.value is not None and wall.value > 0
    assert wall.extra["http_status"] == 200
    reported = HttpFunction(server.url, payload={"n": 500}, json_field="work_ns",
                            unit="ns").invoke()  # fmt: skip
    assert reported.ok and reported.value is not None
    assert 0 < reported.value < reported.extra["wall_ns"]


def test_cold_start_hook_restarts_the_function(server: FunctionServer) -> None:
    # The function itself reports whether it had to initialise (X-Cold-Start).
    warm = HttpFunction(server.url, cold_header="X-Cold-Start")
    warm.invoke()
    assert [warm.invoke().cold for _ in range(2)] == [False, False]
    starts = server.starts
    cold = HttpFunction(server.url, cold_start=server.restart, cold_header="X-Cold-Start",
                        json_field="work_ns", unit="ns")  # fmt: skip
    result = run(cold, Fixed(n=2), progress=False)
    assert server.starts == starts + 2
    assert result.measurements["cold"].tolist() == [True, True]
    assert result.measurements["status"].tolist() == ["ok", "ok"]
    # Without a header, the hook alone marks the runs cold.
    hooked = HttpFunction(server.url, cold_start=server.restart).invoke()
    assert hooked.ok and hooked.cold is True


def test_cold_start_command_hook_failure_is_recorded(server: FunctionServer) -> None:
    m = HttpFunction(server.url, cold_start=["sh", "-c", "echo cannot >&2; exit 1"]).invoke()
    assert m.status == "error" and "cold-start" in (m.error or "") and "cannot" in (m.error or "")


def test_http_errors_and_timeouts(server: FunctionServer) -> None:
    m = HttpFunction(server.url + "fail").invoke()
    assert m.status == "error" and m.error == "HTTP 500 INTERNAL SERVER ERROR: deliberate failure"
    m = HttpFunction(server.url + "slow", payload={"seconds": 3}, timeout=1).invoke()
    assert m.status == "timeout" and "1 s" in (m.error or "")


def test_keep_alive_reuses_one_connection(server: FunctionServer) -> None:
    def ports(target: HttpFunction, n: int) -> list[float | None]:
        return [target.invoke().value for _ in range(n)]

    fresh = HttpFunction(server.url, json_field="client_port", unit="port")
    assert len(set(ports(fresh, 3))) == 3
    kept = HttpFunction(server.url, json_field="client_port", unit="port", keep_alive=True)
    first = ports(kept, 3)
    assert len(set(first)) == 1 and None not in first
    # Idle past the server's keep-alive timeout: the closed connection is
    # replaced and the request still succeeds.
    time.sleep(3.0)
    later = kept.invoke()
    assert later.ok and later.value != first[0]
    kept.close()


def test_unreachable_url_is_an_error_not_a_value() -> None:
    port = free_port()
    m = HttpFunction(f"http://127.0.0.1:{port}/").invoke()
    assert m.status == "error" and m.value is None and "Connection refused" in (m.error or "")


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="http:// or https://"):
        HttpFunction("localhost:8080")
    with pytest.raises(ValueError, match="method"):
        HttpFunction("http://127.0.0.1/", method="BREW")
    with pytest.raises(ValueError, match="payload"):
        HttpFunction("http://127.0.0.1/", payload=object())


def test_authorization_is_redacted_in_the_metadata(server: FunctionServer, tmp_path) -> None:
    path = tmp_path / "a.csv"
    target = HttpFunction(server.url, headers={"Authorization": "Bearer very-secret"})
    run(target, Fixed(n=1), record=path, progress=False)
    meta = (tmp_path / "a.csv.meta.json").read_text()
    assert "very-secret" not in meta and "<redacted>" in meta


def test_load_200_invocations_at_concurrency_16(server: FunctionServer, tmp_path) -> None:
    path = tmp_path / "load.csv"
    # The value is the function's own request number: both sides must agree
    # that each of the 200 requests happened exactly once.
    target = HttpFunction(server.url, payload={"n": 200}, json_field="seq", unit="request")
    result = run(target, Fixed(n=200), concurrency=16, record=path, progress=False)
    df = read_record(path)
    assert len(df) == 200 and df["run"].is_unique and sorted(df["run"]) == list(range(1, 201))
    assert (df["status"] == "ok").all()
    seqs = sorted(int(v) for v in df["value"])
    assert seqs == list(range(seqs[0], seqs[0] + 200))
    assert len(result.values) == 200 and result.decision.stop


def test_cli_run_against_the_function(server: FunctionServer, tmp_path, capsys) -> None:
    path = tmp_path / "cli.csv"
    code = main([
        "run", "--target", "http", "--rule", "fixed", "-r", "n=6", "--record", str(path),
        "-t", 'payload={"n": 100}', "-t", "json_field=work_ns", "-t", "unit=ns",
        "--concurrency", "2", "--warmup", "1", "--no-progress", "--json", "--", server.url,
    ])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    assert data["counts"]["ok"] == 6 and data["counts"]["warmup"] == 1
    assert data["target"]["payload"] == {"n": 100}
    assert len(read_record(path)) == 7
