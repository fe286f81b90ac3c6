"""A real HTTP proxy on loopback in front of moto that can throttle or slow requests.

moto has no switch for Lambda's throttling errors, so this proxy answers
chosen requests as AWS does when it throttles (HTTP 429 with the error type
``TooManyRequestsException``) and forwards the rest to moto, optionally after
a delay (to interrupt a run while calls are in flight).
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

LOOPBACK = "127.0.0.1"
# (method, path) -> "throttle", a delay in seconds, or None to forward at once.
Rule = Callable[[str, str], "str | float | None"]
_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "server", "date"}


@dataclass
class AwsProxy:
    endpoint: str
    seen: list[tuple[str, str, int]] = field(default_factory=list)

    def count(self, status: int, path_part: str = "") -> int:
        return sum(1 for _, path, s in self.seen if s == status and path_part in path)


@contextmanager
def aws_proxy(upstream: str, rule: Rule) -> Iterator[AwsProxy]:
    """Serve a proxy to ``upstream`` (moto) on a free loopback port."""
    target = urlsplit(upstream)
    lock = threading.Lock()
    proxy = AwsProxy("")

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            pass

        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            action = rule(self.command, self.path)
            if action == "throttle":
                payload = json.dumps(
                    {"__type": "TooManyRequestsException", "message": "Rate exceeded",
                     "Reason": "CallerRateLimitExceeded"}
                ).encode()  # fmt: skip
                self.send_response(429)
                self.send_header("x-amzn-ErrorType", "TooManyRequestsException")
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                status = 429
            else:
                if isinstance(action, (int, float)):
                    time.sleep(float(action))
                conn = http.client.HTTPConnection(target.hostname, target.port, timeout=60)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP}
                conn.request(self.command, self.path, body=body, headers=headers)
                response = conn.getresponse()
                data = response.read()
                conn.close()
                self.send_response(response.status)
                for k, v in response.getheaders():
                    if k.lower() not in _HOP:
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                status = response.status
            with lock:
                proxy.seen.append((self.command, self.path, status))

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _handle

    server = ThreadingHTTPServer((LOOPBACK, 0), Handler)
    server.daemon_threads = True
    proxy.endpoint = f"http://{LOOPBACK}:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield proxy
    finally:
        server.shutdown()
        server.server_close()
