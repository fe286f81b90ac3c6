"""A machine reached over SSH (a VM, a cloud instance) as a target."""

from __future__ import annotations

import os
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


class SSH(Target):
    """Run ``argv`` on a remote host through the OpenSSH client.

    Host keys are always verified (``StrictHostKeyChecking=yes``): a host
    missing from ``known_hosts`` or whose key changed is an error, never
    accepted. Authentication is non-interactive (``BatchMode=yes``).

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
        would weaken host key checking are refused.
    regex, json_field, unit : optional
        Read the value from the remote output instead of timing the call.
    label : str, optional
        Label for the record.

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
        self.ssh_options = list(ssh_options) and check_argv(ssh_options, "ssh_options")
        for option in self.ssh_options:
            name_part = option.split("=", 1)[0].strip().lower()
            if name_part in {"stricthostkeychecking", "userknownhostsfile", "globalknownhostsfile"}:
                raise ValueError(f"ssh option {option!r} is managed by the SSH target")
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
        argv = [
            "ssh",
            "-p", str(self.port),
            "-o", "BatchMode=yes",
            "-o", "StrictHostKeyChecking=yes",
            "-o", "UpdateHostKeys=no",
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
