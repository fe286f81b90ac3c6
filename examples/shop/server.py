"""Run one shop service over HTTP on 127.0.0.1 (one process per service).

Usage::

    python -m examples.shop.server --service pricing --port 0 \
        [--upstream catalogue=http://127.0.0.1:PORT ...]

It prints ``READY <port>`` once it listens. Besides the service's routes it
serves ``GET /_health`` and ``GET /_spans`` (the spans recorded since the
last call, as JSON). ``SHOP_REGRESSION`` sets the injected regression
(:mod:`examples.shop.injection`).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import ModuleType
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from . import catalogue, gateway, pricing, tracing

SERVICES: dict[str, ModuleType] = {"gateway": gateway, "catalogue": catalogue, "pricing": pricing}
TIMEOUT_S = 30.0
# CPython lets a CPU-bound thread keep the interpreter for the switch interval
# (5 ms by default) before a thread that finished waiting for a socket gets
# it back, and a request waits like this at every read and write: a busy
# handler can slow its neighbours by more than its own CPU time (the convoy
# effect), which no thread of a JVM or Go service, and no queueing model of
# CPU demand, shows. Half a millisecond keeps the services closer to what the
# shop stands for: threads that share a CPU (see README.md for the measured
# size of the effect).
SWITCH_INTERVAL_S = 0.0005
SWITCH_ENV = "SHOP_SWITCH_INTERVAL"


def switch_interval() -> float:
    """The interpreter's switch interval for the services (``SHOP_SWITCH_INTERVAL`` overrides)."""
    text = os.environ.get(SWITCH_ENV)
    if not text:
        return SWITCH_INTERVAL_S
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0.0:
        raise ValueError(f"{SWITCH_ENV} must be a positive number of seconds, got {text!r}")
    return value


def make_call(upstreams: dict[str, tuple[str, int]]) -> Any:
    """The ``call`` that handlers use: GET another service with the trace headers."""

    def call(service: str, path: str, params: dict[str, str]) -> dict[str, Any]:
        if service not in upstreams:
            raise ValueError(f"no upstream configured for service {service!r}")
        host, port = upstreams[service]
        conn = http.client.HTTPConnection(host, port, timeout=TIMEOUT_S)
        try:
            conn.request("GET", f"{path}?{urlencode(params)}", headers=tracing.headers())
            resp = conn.getresponse()
            body = resp.read()
            if resp.status != 200:
                raise RuntimeError(f"{service}{path} answered {resp.status}: {body[:200]!r}")
            reply: dict[str, Any] = json.loads(body)
            return reply
        finally:
            conn.close()

    return call


class ShopServer(ThreadingHTTPServer):
    daemon_threads = True
    # Poisson bursts open many connections at once; the default backlog of 5
    # would drop SYNs and add a one-second retransmission to some requests.
    request_queue_size = 256


def make_handler(service: ModuleType, call: Any) -> type[BaseHTTPRequestHandler]:
    routes = service.ROUTES

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _reply(self, status: int, payload: Any) -> None:
            body = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            if parts.path == "/_health":
                self._reply(
                    200, {"service": service.SERVICE, "switch_interval": sys.getswitchinterval()}
                )
                return
            if parts.path == "/_spans":
                self._reply(200, tracing.collect())
                return
            route = routes.get(parts.path)
            if route is None:
                self._reply(404, {"error": f"no route {parts.path}"})
                return
            tracing.set_context(self.headers.get("X-Trace-Id"), self.headers.get("X-Parent-Id"))
            try:
                payload = route(dict(parse_qsl(parts.query)), call)
            except Exception as exc:
                self._reply(500, {"error": repr(exc)})
                return
            finally:
                tracing.set_context(None, None)
            self._reply(200, payload)

    return Handler


def parse_upstreams(items: list[str]) -> dict[str, tuple[str, int]]:
    out: dict[str, tuple[str, int]] = {}
    for item in items:
        name, _, url = item.partition("=")
        parts = urlsplit(url)
        if parts.hostname != "127.0.0.1" or parts.port is None:
            raise ValueError(f"upstream must be http://127.0.0.1:PORT, got {url!r}")
        out[name] = (parts.hostname, parts.port)
    return out


def exit_with_parent() -> None:
    """End this process when the process that started it is gone.

    A load test killed before it could stop its services would otherwise
    leave them running (reparented to init) and holding their ports.
    """
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--service", required=True, choices=sorted(SERVICES))
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--upstream", action="append", default=[], metavar="NAME=URL")
    args = parser.parse_args(argv)
    exit_with_parent()
    sys.setswitchinterval(switch_interval())
    tracing.enable(True)
    service = SERVICES[args.service]
    handler = make_handler(service, make_call(parse_upstreams(args.upstream)))
    server = ShopServer(("127.0.0.1", args.port), handler)
    sys.stdout.write(f"READY {server.server_address[1]}\n")
    sys.stdout.flush()
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
