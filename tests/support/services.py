"""Start real services on 127.0.0.1 for the adapter tests, and stop them by pid.

Each helper is a context manager that fails loudly when its service cannot
start: these tests never skip (``.ci/install-services.sh`` installs what
they need).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import tarfile
import time
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
LOOPBACK = "127.0.0.1"


def free_port() -> int:
    """A TCP port that was free a moment ago (bind to port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float, what: str) -> None:
    """Wait until ``port`` accepts connections; fail if ``proc`` dies or time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with status {proc.returncode} before listening")
        try:
            with socket.create_connection((LOOPBACK, port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{what} did not listen on {LOOPBACK}:{port} within {timeout} s")


def stop(proc: subprocess.Popen[bytes], grace: float = 5.0) -> None:
    """Terminate ``proc`` by pid (its own process group), then kill it if needed."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def require(program: str) -> str:
    """The path of ``program``: this interpreter's scripts first, then PATH, then sbin."""
    scripts = Path(sysconfig.get_path("scripts")) / program
    if scripts.exists():
        return str(scripts)
    found = shutil.which(program) or (
        f"/usr/sbin/{program}" if os.path.exists(f"/usr/sbin/{program}") else None
    )
    if found is None:
        raise RuntimeError(f"{program} is not installed; run .ci/install-services.sh")
    return found


# --- sshd ---------------------------------------------------------------


@dataclass
class SshServer:
    port: int
    user: str
    key: Path
    known_hosts: Path
    wrong_known_hosts: Path
    pid: int


@contextmanager
def sshd(tmp: Path, extra_config: str = "") -> Iterator[SshServer]:
    """An OpenSSH server on a free loopback port accepting one generated key.

    ``extra_config`` is appended to its sshd_config (e.g. ``AcceptEnv X``).
    """
    sshd_bin = require("sshd")
    require("ssh-keygen")
    tmp.mkdir(parents=True, exist_ok=True)
    host_key, user_key, other_key = tmp / "host_key", tmp / "user_key", tmp / "other_key"
    for path in (host_key, user_key, other_key):
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)],
            check=True,
            capture_output=True,
        )
    authorized = tmp / "authorized_keys"
    authorized.write_text((tmp / "user_key.pub").read_text())
    port = free_port()

    def known(pub: Path) -> str:
        key_type, blob = pub.read_text().split()[:2]
        return f"[{LOOPBACK}]:{port} {key_type} {blob}\n"

    known_hosts = tmp / "known_hosts"
    known_hosts.write_text(known(tmp / "host_key.pub"))
    wrong = tmp / "wrong_known_hosts"
    wrong.write_text(known(tmp / "other_key.pub"))
    config = tmp / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress {LOOPBACK}\nHostKey {host_key}\n"
        f"AuthorizedKeysFile {authorized}\nPasswordAuthentication no\n"
        "KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n"
        f"StrictModes no\nUsePAM no\nPidFile {tmp / 'sshd.pid'}\nMaxSessions 64\n"
        "MaxStartups 64\n" + extra_config
    )
    Path("/run/sshd").mkdir(parents=True, exist_ok=True)
    # -D keeps sshd in the foreground so the Popen pid is the server's pid.
    proc = subprocess.Popen(
        [sshd_bin, "-D", "-e", "-f", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=open(tmp / "sshd.log", "wb"),
        start_new_session=True,
    )
    try:
        wait_for_port(port, proc, 15, "sshd")
        user = (
            os.environ.get("USER")
            or subprocess.run(
                ["id", "-un"], check=True, capture_output=True, text=True
            ).stdout.strip()
        )
        yield SshServer(port, user, user_key, known_hosts, wrong, proc.pid)
    finally:
        stop(proc)


# --- podman -------------------------------------------------------------

CONTAINERS_CONF = """[containers]
default_ulimits = []
[engine]
cgroup_manager = "cgroupfs"
runtime = "runc"
"""


@dataclass
class PodmanImage:
    image: str
    containers_conf: Path


def busybox_path() -> Path:
    for candidate in ("/bin/busybox", "/usr/bin/busybox"):
        if os.path.exists(candidate):
            return Path(candidate)
    raise RuntimeError("busybox-static is not installed; run .ci/install-services.sh")


@contextmanager
def busybox_image(tmp: Path) -> Iterator[PodmanImage]:
    """A podman image made from a busybox root file system, removed afterwards."""
    podman = require("podman")
    require("runc")
    tmp.mkdir(parents=True, exist_ok=True)
    conf = tmp / "containers.conf"
    conf.write_text(CONTAINERS_CONF)
    rootfs = tmp / "rootfs"
    (rootfs / "bin").mkdir(parents=True)
    shutil.copy2(busybox_path(), rootfs / "bin" / "busybox")
    for tool in ("sh", "echo", "sleep", "cat", "true", "false"):
        (rootfs / "bin" / tool).symlink_to("busybox")
    archive = tmp / "bb.tar"
    with tarfile.open(archive, "w") as tar:
        tar.add(rootfs, arcname=".")
    image = f"localhost/perfstats-test-bb-{uuid.uuid4().hex[:8]}:latest"
    env = {**os.environ, "CONTAINERS_CONF": str(conf)}
    done = subprocess.run(
        [podman, "import", str(archive), image], env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"podman import failed: {done.stderr.strip()}")
    try:
        yield PodmanImage(image, conf)
    finally:
        subprocess.run([podman, "rmi", "-f", image], env=env, capture_output=True)


# --- Functions Framework -------------------------------------------------


class FunctionServer:
    """The Functions Framework serving tests/support/function_main.py."""

    def __init__(self, tmp: Path, target: str = "work") -> None:
        self.tmp = tmp
        self.target = target
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}/"

    def start(self) -> None:
        ff = require("functions-framework")
        self.tmp.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [
                ff,
                f"--target={self.target}",
                f"--source={HERE / 'function_main.py'}",
                f"--host={LOOPBACK}",
                f"--port={self.port}",
            ],
            stdout=subprocess.DEVNULL,
            stderr=open(self.tmp / f"ff-{self.starts}.log", "wb"),
            start_new_session=True,
        )
        self.starts += 1
        # Only a TCP connect, no HTTP request: a request would warm the function.
        wait_for_port(self.port, self.proc, 30, "functions-framework")

    def stop(self) -> None:
        if self.proc is not None:
            stop(self.proc)
            self.proc = None

    def restart(self) -> None:
        """Force a cold start: a new server process with nothing loaded."""
        self.stop()
        self.start()


@contextmanager
def function_server(tmp: Path) -> Iterator[FunctionServer]:
    server = FunctionServer(tmp)
    server.start()
    try:
        yield server
    finally:
        server.stop()


# --- moto ----------------------------------------------------------------


@dataclass
class MotoServer:
    endpoint: str
    pid: int


@contextmanager
def moto_server(tmp: Path) -> Iterator[MotoServer]:
    """The moto AWS emulator with Lambda invocations served without Docker."""
    tmp.mkdir(parents=True, exist_ok=True)
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", LOOPBACK, "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=open(tmp / "moto.log", "wb"),
        start_new_session=True,
    )
    try:
        wait_for_port(port, proc, 60, "moto_server")
        endpoint = f"http://{LOOPBACK}:{port}"
        request = urllib.request.Request(
            f"{endpoint}/moto-api/config",
            data=json.dumps({"lambda": {"use_docker": False}}).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            if response.status not in (200, 201):
                raise RuntimeError(f"moto config failed: HTTP {response.status}")
        yield MotoServer(endpoint, proc.pid)
    finally:
        stop(proc)


def echo_function(endpoint: str, client: Any, *, role_name: str, variables: dict[str, str]) -> str:
    """Create the Lambda function ``echo`` (returns its event) on the moto server."""
    import io
    import zipfile

    role = aws_client("iam", endpoint).create_role(
        RoleName=role_name, AssumeRolePolicyDocument="{}"
    )
    code = io.BytesIO()
    with zipfile.ZipFile(code, "w") as z:
        z.writestr("main.py", "def handler(event, context):\n    return event\n")
    client.create_function(
        FunctionName="echo", Runtime="python3.11", Role=role["Role"]["Arn"],
        Handler="main.handler", Code={"ZipFile": code.getvalue()},
        Environment={"Variables": dict(variables)},
    )  # fmt: skip
    return "echo"


def aws_client(service: str, endpoint: str) -> Any:
    """A boto3 client of ``service`` talking to the moto server at ``endpoint``."""
    import boto3

    return boto3.client(
        service,
        region_name="us-east-1",
        endpoint_url=endpoint,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def aws_env(endpoint: str) -> dict[str, str]:
    """Environment for boto3 talking to moto (dummy credentials, fixed region)."""
    return {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": endpoint,
    }
