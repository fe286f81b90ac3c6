"""A real HTTP server on 127.0.0.1 that can answer with the request it got.

For the security tests: the first ``failures`` requests are answered with
HTTP 500 and a body that quotes the request line, every header and the
body (as a careless server does in an error page), the rest with 200.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOOPBACK = "127.0.0.1"


@dataclass
class EchoServer:
    port: int
    failures: int
    requests: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}/"


def _handler(state: EchoServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            echo = f"{self.requestline}\n{self.headers}".encode() + body
            with state.lock:
                state.requests.append(self.requestline)
                failing = len(state.requests) <= state.failures
            status, payload = (500, echo) if failing else (200, b"ok")
            self.send_response(status)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = _answer

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@contextmanager
def echo_server(failures: int = 0) -> Iterator[EchoServer]:
    """Serve on a free loopback port until the block ends."""
    state = EchoServer(port=0, failures=failures)
    server = ThreadingHTTPServer((LOOPBACK, 0), _handler(state))
    state.port = int(server.server_address[1])
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
