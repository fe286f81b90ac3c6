"""SSH options that bypass host-key checking or forward the agent are refused;
no ssh configuration file applies unless asked for (``-F none`` by default).

Against a real sshd on loopback that accepts the variables the tests probe,
so what the remote side sees shows which configuration the client applied.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from perfstats.adapters import SSH
from support.services import SshServer, require, sshd, stop


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[SshServer]:
    accept = "AcceptEnv LANG LC_* PERFSTATS_PROBE\nAllowAgentForwarding yes\n"
    with sshd(tmp_path_factory.mktemp("sshd"), extra_config=accept) as s:
        yield s


def _remote_length(server: SshServer, variable: str, **kwargs) -> float:
    """The length of ``$variable`` as the remote command sees it (0 when unset)."""
    target = SSH(
        "127.0.0.1", ["sh", "-c", f"echo n=${{#{variable}}}"], port=server.port,
        user=server.user, key=str(server.key), known_hosts=str(server.known_hosts),
        multiplex=False, regex=r"n=(\d+)", unit="chars", **kwargs,
    )  # fmt: skip
    with target:
        m = target.invoke()
    assert m.ok, m.error
    assert m.value is not None
    return m.value


BYPASSES = [
    "StrictHostKeyChecking=no", "StrictHostKeyChecking no", "stricthostkeychecking=accept-new",
    "UserKnownHostsFile=/dev/null", "UserKnownHostsFile /dev/null",
    "GlobalKnownHostsFile=/tmp/planted", "KnownHostsCommand=/bin/echo %H %K",
    "ProxyCommand=nc %h %p", "ProxyCommand nc %h %p", "LocalCommand=touch /tmp/x",
    "PermitLocalCommand=yes", "ForwardAgent=yes", "forwardagent yes", "  ForwardAgent=yes",
    "-oProxyCommand=sh", "Include /tmp/planted.conf",
]  # fmt: skip


@pytest.mark.parametrize("option", BYPASSES)
def test_bypassing_ssh_options_are_refused(server: SshServer, option: str) -> None:
    with pytest.raises(ValueError, match=r"ssh option .* is refused"):
        SSH("127.0.0.1", ["true"], port=server.port, known_hosts=str(server.known_hosts),
            ssh_options=[option])  # fmt: skip


def test_harmless_ssh_options_still_work(server: SshServer) -> None:
    assert _remote_length(server, "PERFSTATS_PROBE", ssh_options=["Ciphers=aes128-ctr"]) == 0


def test_no_ssh_config_applies_by_default(server: SshServer, monkeypatch) -> None:
    # The system's ssh_config (Debian, Ubuntu: "SendEnv LANG LC_*") and any
    # ~/.ssh/config are not read: the variable stays on this side.
    monkeypatch.setenv("LANG", "C.perfstats-probe")
    monkeypatch.setenv("LC_PERFSTATS", "probe-value")
    assert _remote_length(server, "LANG") == 0
    assert _remote_length(server, "LC_PERFSTATS") == 0


def test_an_ssh_config_applies_when_asked_for(
    server: SshServer, tmp_path: Path, monkeypatch
) -> None:
    config = tmp_path / "ssh_config"
    config.write_text("Host *\n  SendEnv PERFSTATS_PROBE\n")
    monkeypatch.setenv("PERFSTATS_PROBE", "seven77")
    assert _remote_length(server, "PERFSTATS_PROBE") == 0
    assert _remote_length(server, "PERFSTATS_PROBE", ssh_config=str(config)) == 7
    # Even an asked-for config cannot switch host-key checking off.
    bad = tmp_path / "insecure_config"
    bad.write_text("Host *\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n")
    target = SSH("127.0.0.1", ["true"], port=server.port, user=server.user,
                 key=str(server.key), known_hosts=str(server.wrong_known_hosts),
                 multiplex=False, ssh_config=str(bad))  # fmt: skip
    with target:
        m = target.invoke()
    assert m.status == "error" and "Host key verification failed" in (m.error or "")


def test_agent_is_not_forwarded_even_when_a_config_asks(
    server: SshServer, tmp_path: Path, monkeypatch
) -> None:
    agent_bin = require("ssh-agent")
    sock = tmp_path / "agent.sock"
    agent = subprocess.Popen(
        [agent_bin, "-D", "-a", str(sock)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 10
        while not sock.exists():
            assert agent.poll() is None and time.monotonic() < deadline, "ssh-agent did not start"
            time.sleep(0.05)
        monkeypatch.setenv("SSH_AUTH_SOCK", str(sock))
        config = tmp_path / "forwarding_config"
        config.write_text("Host *\n  ForwardAgent yes\n")
        assert os.environ["SSH_AUTH_SOCK"] == str(sock)
        assert _remote_length(server, "SSH_AUTH_SOCK", ssh_config=str(config)) == 0
        assert _remote_length(server, "SSH_AUTH_SOCK", ssh_config=True) == 0
    finally:
        stop(agent)
