"""Start and stop the shop's three services as separate processes on 127.0.0.1."""

from __future__ import annotations

import http.client
import json
import os
import selectors
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from .injection import ENV, Injection

REPO = Path(__file__).resolve().parents[2]
# Start order: a service's upstreams must already listen.
ORDER = ("pricing", "catalogue", "gateway")
UPSTREAMS = {"pricing": (), "catalogue": ("pricing",), "gateway": ("catalogue", "pricing")}
START_TIMEOUT_S = 30.0


def _read_ready(proc: subprocess.Popen[str], timeout: float) -> int:
    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            if not sel.select(timeout=max(0.0, deadline - time.monotonic())):
                continue
            line = proc.stdout.readline()
            if not line:
                break
            if line.startswith("READY "):
                return int(line.split()[1])
    finally:
        sel.close()
    raise RuntimeError(f"service (pid {proc.pid}) did not start within {timeout} s")


class Shop:
    """The three services, started by :meth:`start` (or ``with Shop(...)``)."""

    def __init__(self, injection: Injection | None = None) -> None:
        self.injection = injection or Injection()
        self.procs: dict[str, subprocess.Popen[str]] = {}
        self.ports: dict[str, int] = {}

    def start(self) -> Shop:
        env = dict(os.environ)
        env[ENV] = self.injection.spec()
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
        try:
            for name in ORDER:
                cmd = [sys.executable, "-m", "examples.shop.server", "--service", name]
                for up in UPSTREAMS[name]:
                    cmd += ["--upstream", f"{up}=http://127.0.0.1:{self.ports[up]}"]
                proc = subprocess.Popen(
                    cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, text=True
                )
                self.procs[name] = proc
                self.ports[name] = _read_ready(proc, START_TIMEOUT_S)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
            if proc.stdout is not None:
                proc.stdout.close()

    def __enter__(self) -> Shop:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def pids(self) -> dict[str, int]:
        return {name: proc.pid for name, proc in self.procs.items()}

    def address(self, service: str = "gateway") -> tuple[str, int]:
        return ("127.0.0.1", self.ports[service])

    def get(self, service: str, path: str) -> Any:
        conn = http.client.HTTPConnection(*self.address(service), timeout=30)
        try:
            conn.request("GET", path)
            resp = conn.getresponse()
            body = resp.read()
            if resp.status != 200:
                raise RuntimeError(f"{service}{path} answered {resp.status}")
            return json.loads(body)
        finally:
            conn.close()

    def spans(self) -> list[dict[str, Any]]:
        """All services' spans recorded since the last call."""
        out: list[dict[str, Any]] = []
        for name in ORDER:
            out.extend(self.get(name, "/_spans"))
        return out
