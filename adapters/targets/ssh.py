"""A machine reached over SSH (a VM, a cloud instance) as a target."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import threading
from collections.abc import Sequence
from typing import Any

from ..records.measurement import Measurement, utc_now
from .arguments import check_argv, check_timeout, show_argv
from .base import Target
from .command import outcome_measurement
from .processes import ProcessRunner
from .values import ValueReader

# ssh's own failures (connection, authentication, host key) exit with 255.
_SSH_FAILED = 255

# ssh_options the target refuses (lower case), and why: they would weaken or
# bypass host-key checking, forward the user's agent, run local commands or
# load code, or take over what the target itself manages.
_REFUSED = {
    **dict.fromkeys(
        ("stricthostkeychecking", "userknownhostsfile", "globalknownhostsfile",
         "knownhostscommand", "updatehostkeys", "hostkeyalias", "verifyhostkeydns"),
        "it changes host-key checking",
    ),
    **dict.fromkeys(
        ("proxycommand", "localcommand", "permitlocalcommand", "pkcs11provider",
         "securitykeyprovider", "include"),
        "it runs a local command or loads code",
    ),
    "forwardagent": "it forwards the SSH agent",
    **dict.fromkeys(
        ("batchmode", "controlmaster", "controlpath", "controlpersist", "remotecommand"),
        "the target sets it itself",
    ),
}  # fmt: skip


def check_ssh_options(options: Any) -> list[str]:
    """``-o`` values for ssh, refusing those that weaken host-key checking or run commands.

    Refused (in any spelling, ``Name=value`` or ``Name value``): the host-key
    options (``StrictHostKeyChecking``, ``UserKnownHostsFile``,
    ``GlobalKnownHostsFile``, ``KnownHostsCommand``, ...), agent forwarding
    (``ForwardAgent``), local commands and code (``ProxyCommand``,
    ``LocalCommand``, ``PermitLocalCommand``, ``PKCS11Provider``, ...),
    ``Include``, the connection sharing the target manages, and any value
    starting with ``-`` (an ssh flag, not an option).

    Examples
    --------
    >>> from perfstats.adapters.targets.ssh import check_ssh_options
    >>> check_ssh_options(["Ciphers=aes128-ctr"])
    ['Ciphers=aes128-ctr']
    >>> check_ssh_options(["ProxyCommand nc %h %p"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: ssh option 'ProxyCommand nc %h %p' is refused: it runs a local command ...
    """
    checked = list(options) and check_argv(options, "ssh_options")
    for option in checked:
        name = re.split(r"[\s=]", option.strip(), maxsplit=1)[0].lower()
        reason = _REFUSED.get(name)
        if option.strip().startswith("-"):
            reason = "ssh_options are -o values (Name=value), not flags"
        if reason is not None:
            raise ValueError(
                f"ssh option {option!r} is refused: {reason} (host-key checking, agent "
                "forwarding and local commands are managed by the SSH target)"
            )
    return checked


class SSH(Target):
    """Run ``argv`` on a remote host through the OpenSSH client.

    Host keys are always verified (``StrictHostKeyChecking=yes``): a host
    missing from ``known_hosts`` or whose key changed is an error, never
    accepted. Authentication is non-interactive (``BatchMode=yes``), the
    agent is never forwarded (``-a``), and no ssh configuration file is read
    (``-F none``) unless ``ssh_config`` asks for one, so a ``~/.ssh/config``
    cannot switch host-key checking off or add a ``ProxyCommand`` unseen.

    With ``multiplex=True`` one master connection is opened before the first
    invocation (not timed) and every invocation runs as a session over it,
    so the wall time measures the remote command plus one round trip rather
    than a full key exchange. Should the master expire, ssh connects
    directly, still verifying the host key.

    Parameters
    ----------
    host : str
        Host name or address.
    argv : list of str
        Remote command; it is quoted so the remote shell sees these words.
    port : int, default 22
        TCP port of the remote SSH server (``-p``), 1 to 65535.
    user : str, optional
        Login name (default: ssh's default).
    key : str, optional
        Private key file (``-i``, with ``IdentitiesOnly=yes``).
    known_hosts : str, optional
        The only known-hosts file consulted (default: ssh's defaults).
    timeout : float, optional
        Seconds per invocation. The local client is killed at the deadline;
        the remote command may run on until it finishes or writes output.
    connect_timeout : float, default 10
        Seconds to establish a connection.
    multiplex : bool, default True
        Reuse one master connection.
    ssh_options : list of str, optional
        Extra ``-o`` values, e.g. ``["Ciphers=aes128-ctr"]``; options that
        would weaken host-key checking, forward the agent or run local
        commands are refused (:func:`check_ssh_options`).
    ssh_config : bool or str, default False
        Which ssh configuration files apply: none (``False``, ``-F none``),
        ssh's usual ones (``True``: ``~/.ssh/config`` and the system's), or
        this file (a path). Host-key checking stays on either way: the
        target's own options come first and ssh keeps the first value.
    regex, json_field, unit : optional
        Read the value from the remote output instead of timing the call.
    label : str, optional
        Label for the record (default: ``"ssh <destination> <command>"``).

    Examples
    --------
    >>> from perfstats.adapters import SSH
    >>> vm = SSH("10.0.0.5", ["./bench"], user="bench", key="~/.ssh/id_ed25519",
    ...          known_hosts="known_hosts")  # doctest: +SKIP
    >>> vm.invoke().status  # doctest: +SKIP
    'ok'
    """

    kind = "ssh"

    def __init__(
        self,
        host: str,
        argv: Sequence[str],
        *,
        port: int = 22,
        user: str | None = None,
        key: str | None = None,
        known_hosts: str | None = None,
        timeout: float | None = None,
        connect_timeout: float = 10.0,
        multiplex: bool = True,
        ssh_options: Sequence[str] = (),
        ssh_config: bool | str = False,
        regex: str | None = None,
        json_field: str | None = None,
        unit: str | None = None,
        label: str | None = None,
    ) -> None:
        if not isinstance(host, str) or not host or host.startswith("-"):
            raise ValueError(f"host must be a host name or address; got {host!r}")
        self.host = host
        self.argv = check_argv(argv)
        if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
            raise ValueError(f"port must be an integer in 1..65535; got {port!r}")
        self.port = port
        if user is not None and (not isinstance(user, str) or not user or user.startswith("-")):
            raise ValueError(f"user must be a login name; got {user!r}")
        self.user = user
        self.key = _existing_file(key, "key")
        self.known_hosts = _existing_file(known_hosts, "known_hosts")
        self.timeout = check_timeout(timeout)
        connect = check_timeout(connect_timeout, "connect_timeout")
        self.connect_timeout = 10.0 if connect is None else connect
        self.multiplex = bool(multiplex)
        self.ssh_options = check_ssh_options(ssh_options)
        if ssh_config is None or isinstance(ssh_config, bool):
            self.ssh_config: bool | str = bool(ssh_config)
        else:
            self.ssh_config = _existing_file(ssh_config, "ssh_config") or ""
        self.reader = ValueReader(regex=regex, json_field=json_field, unit=unit)
        destination = f"{user}@{host}" if user else host
        self.destination = f"{destination}:{port}"
        self.name = label or f"ssh {self.destination} {show_argv(self.argv)}"
        if shutil.which("ssh") is None:
            raise ValueError("the OpenSSH client 'ssh' is not on PATH")
        self._runner = ProcessRunner()
        self._control_dir: str | None = None
        self._master_lock = threading.Lock()
        self._master_up = False

    @property
    def control_dir(self) -> str | None:
        """Folder of the master connection's socket while one is open."""
        return self._control_dir if self._master_up else None

    def _base(self) -> list[str]:
        connect = max(1, round(self.connect_timeout))
        if self.ssh_config is False:
            config = ["-F", "none"]
        elif self.ssh_config is True:
            config = []
        else:
            config = ["-F", str(self.ssh_config)]
        argv = [
            "ssh",
            *config,
            "-a",
            "-p", str(self.port),
            "-o", "BatchMode=yes",
            "-o", "StrictHostKeyChecking=yes",
            "-o", "UpdateHostKeys=no",
            "-o", "ForwardAgent=no",
            "-o", "PermitLocalCommand=no",
            "-o", f"ConnectTimeout={connect}",
        ]  # fmt: skip
        if self.known_hosts is not None:
            argv += ["-o", f"UserKnownHostsFile={self.known_hosts}"]
            argv += ["-o", "GlobalKnownHostsFile=/dev/null"]
        if self.key is not None:
            argv += ["-i", self.key, "-o", "IdentitiesOnly=yes"]
        if self.user is not None:
            argv += ["-l", self.user]
        for option in self.ssh_options:
            argv += ["-o", option]
        if self._control_dir is not None:
            argv += ["-o", f"ControlPath={os.path.join(self._control_dir, 'master')}"]
        return argv

    def _ensure_master(self) -> str | None:
        """Open the master connection once; return why it failed, if it did."""
        with self._master_lock:
            if self._master_up:
                return None
            if self._control_dir is None:
                self._control_dir = tempfile.mkdtemp(prefix="perfstats-ssh-")
            argv = [
                *self._base(),
                "-o", "ControlMaster=yes",
                # Bounded, so a driver killed with SIGKILL leaves no master for long.
                "-o", "ControlPersist=600",
                self.host, "true",
            ]  # fmt: skip
            out = self._runner.run(argv, timeout=self.connect_timeout + 30)
            problem = out.failure()
            if problem is not None:
                return f"ssh {self.destination}: {problem}"
            self._master_up = True
            return None

    def invoke(self) -> Measurement:
        if self.multiplex:
            problem = self._ensure_master()
            if problem is not None:
                return Measurement.failure(
                    problem, unit=self.reader.unit, cold=None, started_at=utc_now()
                )
        extra = ["-o", "ControlMaster=no"] if self.multiplex else []
        argv = [*self._base(), *extra, self.host, show_argv(self.argv)]
        out = self._runner.run(argv, timeout=self.timeout)
        describe = f"ssh {self.destination}: " if out.returncode == _SSH_FAILED else ""
        return outcome_measurement(out, self.reader, cold=None, describe=describe)

    def close(self) -> None:
        """Stop running invocations and close the master connection."""
        self._runner.kill_all()
        with self._master_lock:
            if self._master_up:
                self._runner.run([*self._base(), "-O", "exit", self.host], timeout=30)
                self._master_up = False
            if self._control_dir is not None:
                shutil.rmtree(self._control_dir, ignore_errors=True)
                self._control_dir = None

    def _config(self) -> dict[str, Any]:
        return {
            "host": self.host,
            "argv": self.argv,
            "port": self.port,
            "user": self.user,
            "key": self.key,
            "known_hosts": self.known_hosts,
            "timeout": self.timeout,
            "connect_timeout": self.connect_timeout,
            "multiplex": self.multiplex,
            "ssh_options": self.ssh_options,
            "ssh_config": self.ssh_config,
            **self.reader.config(),
        }


def _existing_file(path: str | None, name: str) -> str | None:
    if path is None:
        return None
    if not isinstance(path, (str, os.PathLike)):
        raise ValueError(f"{name} must be a file path; got {path!r}")
    full = os.path.abspath(os.path.expanduser(os.fspath(path)))
    if not os.path.isfile(full):
        raise ValueError(f"{name} file {os.fspath(path)!r} does not exist")
    return full
