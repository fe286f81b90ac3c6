"""The SSH target against a real sshd on loopback with generated keys."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator

import pytest
from perfstats.adapters import SSH, TargetFailed, read_record, run
from perfstats.adapters.cli import main
from support.services import SshServer, sshd

from perfstats.rules import Fixed


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[SshServer]:
    with sshd(tmp_path_factory.mktemp("sshd")) as s:
        yield s


def _target(server: SshServer, argv: list[str], **kwargs) -> SSH:
    options = {
        "port": server.port,
        "user": server.user,
        "key": str(server.key),
        "known_hosts": str(server.known_hosts),
        **kwargs,
    }
    return SSH("127.0.0.1", argv, **options)


@pytest.mark.parametrize("multiplex", [True, False])
def test_run_succeeds_with_the_right_known_hosts(server: SshServer, multiplex, tmp_path) -> None:
    target = _target(server, ["echo", "two words"], multiplex=multiplex)
    result = run(target, Fixed(n=3), record=tmp_path / "s.csv", progress=False)
    df = result.measurements
    assert (df["status"] == "ok").all() and len(df) == 3 and (df["value"] > 0).all()
    assert (df["unit"] == "ns").all()


def test_remote_argv_is_quoted_and_values_can_be_reported(server: SshServer) -> None:
    with _target(server, ["sh", "-c", "echo 'v=$((40+2))'; echo \"n=$((40+2))\""],
                 regex=r"n=(\d+)", unit="ms") as target:  # fmt: skip
        m = target.invoke()
    assert m.ok and m.value == 42.0


def test_wrong_host_key_is_a_clear_failure(server: SshServer, tmp_path) -> None:
    for multiplex in (True, False):
        target = _target(server, ["true"], known_hosts=str(server.wrong_known_hosts),
                         multiplex=multiplex)  # fmt: skip
        m = target.invoke()
        target.close()
        assert m.status == "error" and m.value is None
        assert "Host key verification failed" in (m.error or "")
        assert f"127.0.0.1:{server.port}" in (m.error or "")
    path = tmp_path / "w.csv"
    with pytest.raises(TargetFailed, match="Host key verification failed"):
        run(_target(server, ["true"], known_hosts=str(server.wrong_known_hosts)), Fixed(n=5),
            record=path, progress=False, max_failures=2)  # fmt: skip
    assert read_record(path)["status"].tolist() == ["error", "error"]


def test_unknown_host_is_not_accepted(server: SshServer, tmp_path) -> None:
    empty = tmp_path / "empty_known_hosts"
    empty.write_text("")
    m = _target(server, ["true"], known_hosts=str(empty), multiplex=False).invoke()
    assert m.status == "error" and "Host key verification failed" in (m.error or "")
    assert empty.read_text() == ""  # nothing was added behind our back


def test_remote_failure_and_timeout(server: SshServer) -> None:
    with _target(server, ["sh", "-c", "echo no space >&2; exit 3"]) as target:
        m = target.invoke()
    assert m.status == "error" and m.error == "exit status 3: no space"
    with _target(server, ["sleep", "20"], timeout=1.5) as target:
        m = target.invoke()
    assert m.status == "timeout"


def test_options_that_weaken_checking_are_refused(server: SshServer) -> None:
    with pytest.raises(ValueError, match="managed by the SSH target"):
        _target(server, ["true"], ssh_options=["StrictHostKeyChecking=no"])
    with pytest.raises(ValueError, match="does not exist"):
        _target(server, ["true"], known_hosts="/no/such/known_hosts")
    with pytest.raises(ValueError, match="port"):
        _target(server, ["true"], port=70000)


def test_cli_run_over_ssh(server: SshServer, tmp_path, capsys) -> None:
    path = tmp_path / "cli.csv"
    code = main([
        "run", "--target", "ssh", "--rule", "fixed", "-r", "n=4", "--record", str(path),
        "-t", "host=127.0.0.1", "-t", f"port={server.port}", "-t", f"user={server.user}",
        "-t", f"key={server.key}", "-t", f"known_hosts={server.known_hosts}",
        "--no-progress", "--json", "--", "uname", "-s",
    ])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["target"]["kind"] == "ssh"
    assert len(read_record(path)) == 4


def test_close_ends_the_master_connection(server: SshServer) -> None:
    target = _target(server, ["true"])
    assert target.invoke().ok
    control = target.control_dir
    assert control is not None

    def masters() -> int:
        return subprocess.run(["pgrep", "-f", control], capture_output=True).returncode

    assert masters() == 0  # pgrep: 0 = found
    target.close()
    assert masters() == 1 and not os.path.exists(control)
